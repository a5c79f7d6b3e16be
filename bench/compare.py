#!/usr/bin/python3
"""onyx against ONNX Runtime, side by side on this machine.

Installs onnxruntime-node 1.30.0 from npm into ~/.cache/onyx-bench/ort when missing, exports the benchmark models
(../shared/bench/export_models.py, needs python3-torch) into ~/.cache/onyx-bench/models when missing, then runs
onyx and ONNX Runtime alternately, each in its own process, on each model at 1 and 2 threads for several rounds.
Prints a table of medians: latency of each, ratio onyx/ORT (median of per-round ratios of the medians), the same
ratio of each round's fastest runs (steadier on a shared host: interference only adds), session-creation ratio,
peak-RSS ratio, and onyx's GFLOP/s as a share of this CPU's FP32 peak for the instruction set in effect (measured by
bench/fma_peak.sh, cached per CPU model: per core on 1 thread, per core with every thread busy beyond that).

--isa avx2|avx512|native runs onyx under ONYX_MAX_ISA (src/kernels/cpu_isa.h: oneDNN, Highway and the blocked layout
capped, as on a CPU with only that instruction set) and takes that ISA's peak. ONNX Runtime's MLAS honours no such
variable: its column stays at the CPU's full instruction set (AVX-512 here), so under --isa avx2 the ratio compares
onyx-as-on-AVX2 with ORT-on-AVX-512, a harder comparison than on a real AVX2 CPU.

Runs with fewer threads than CPUs pin both engines of a round to the same CPUs (taskset), rotating from round to
round: on the 2-vCPU machines measured here one vCPU is ~30% slower than the other for both engines, so an unpinned
1-thread process lands on either and the per-round ratio measured where each engine happened to land.

usage: bench/compare.py [--rounds N] [--runs N] [--threads 1,2] [--models a,b|path.onnx,...] [--onyx build/bin/onyx]
                        [--no-pin] [--isa avx2|avx512|native]
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys

from round_pinning import round_pinning

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
CACHE = os.path.expanduser("~/.cache/onyx-bench")
# GFLOP per inference (multiply-adds counted as 2), as measured for ../shared/bench's exports.
GFLOP = {"resnet50": 8.18, "mobilenet_v2": 0.60, "squeezenet1_1": 0.70, "bert_like_enc12": 22.35}


def measured_peaks():
    """This CPU's FP32 FMA peak per core by ISA, {"avx512": {"1": .., "all": .., "threads": n}, "avx2": {..}}."""
    p = subprocess.run(["sh", os.path.join(HERE, "fma_peak.sh")], capture_output=True, text=True)
    if p.returncode != 0:
        print("bench/fma_peak.sh failed:", p.stderr.strip()[-300:], file=sys.stderr)
        return {}
    return json.loads(p.stdout.strip().splitlines()[-1])


def peak_gflops(peaks, isa, threads):
    """The FP32 peak of `threads` cores for the ISA onyx runs with (the best the CPU has when not capped)."""
    order = {"avx2": ["avx2"], "avx512": ["avx512", "avx2"], "native": ["avx512", "avx2"]}[isa]
    for name in order:
        if name in peaks:
            per_core = peaks[name]["1"] if threads == 1 else peaks[name]["all"]
            return name, per_core * threads
    return None, None


def ensure_ort():
    ort_dir = os.path.join(CACHE, "ort")
    if not os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        os.makedirs(ort_dir, exist_ok=True)
        print("installing onnxruntime-node 1.30.0 into", ort_dir, file=sys.stderr)
        subprocess.run(["npm", "init", "-y"], cwd=ort_dir, check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip")  # its postinstall would fetch CUDA libraries
        subprocess.run(["npm", "install", "onnxruntime-node@1.30.0"], cwd=ort_dir, check=True, env=env)
    return os.path.join(ort_dir, "node_modules")


def ensure_models(names):
    out = os.path.join(CACHE, "models")
    missing = [n for n in names if n in GFLOP and not os.path.exists(os.path.join(out, n + ".onnx"))]
    if missing:
        print("exporting", ", ".join(missing), "into", out, file=sys.stderr)
        os.makedirs(out, exist_ok=True)
        subprocess.run(["/usr/bin/python3", os.path.join(SHARED, "bench", "export_models.py")], check=True,
                       env=dict(os.environ, OUT=out))
    models = {n: (os.path.join(out, n + ".onnx"), None) for n in names if n in GFLOP}
    # Paths to .onnx files (converted models, say) run on random inputs, or on test_data_set_0 beside them.
    for n in names:
        if n.endswith(".onnx") and os.path.isfile(n):
            beside = os.path.join(os.path.dirname(n), "test_data_set_0")
            models[os.path.splitext(os.path.basename(n))[0]] = (n, beside if os.path.isdir(beside) else None)
    for path in sorted(glob.glob(os.path.join(SHARED, "models", "onnx", "*.onnx"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if name in names:
            # Real models run on their reference inputs: their dynamic dims (image size, audio length) and control
            # inputs (Silero's sample rate) need real values.
            inputs = os.path.join(SHARED, "models", "onnx", "testdata", name, "test_data_set_0")
            models[name] = (path, inputs if os.path.isdir(inputs) else None)
    return models


def run_json(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    default_models = list(GFLOP) + [os.path.splitext(os.path.basename(p))[0]
                                    for p in sorted(glob.glob(os.path.join(SHARED, "models", "onnx", "*.onnx")))]
    ap.add_argument("--models", default=",".join(default_models))
    ap.add_argument("--onyx", default=os.path.join(ROOT, "build", "bin", "onyx"))
    ap.add_argument("--no-pin", action="store_true", help="never pin runs to CPUs")
    ap.add_argument("--isa", choices=["avx2", "avx512", "native"], default="native",
                    help="run onyx under ONYX_MAX_ISA=ISA (ONNX Runtime cannot be capped)")
    args = ap.parse_args()
    peaks = measured_peaks()
    onyx_env = dict(os.environ, ONYX_MAX_ISA=args.isa)
    pin = round_pinning(not args.no_pin)  # both engines of round r on the same CPUs (see the module docstring)

    def pinned(cmd, threads, r):
        return pin(threads, r) + cmd

    node_path = ensure_ort()
    models = ensure_models(args.models.split(","))
    ort_env = dict(os.environ, NODE_PATH=node_path)
    ort_runner = os.path.join(HERE, "ort_runner.js")
    rows = []
    for name, (path, inputs) in models.items():
        for threads in [int(t) for t in args.threads.split(",")]:
            onyx_runs, ort_runs, error = [], [], None
            for r in range(args.rounds):
                o, err = run_json(pinned([args.onyx, "bench", path, "--threads", str(threads), "--runs", str(args.runs),
                                          "--warmup", str(args.warmup), "--json"] + (["--inputs", inputs] if inputs else []),
                                         threads, r), onyx_env)
                if err:
                    error = err
                    break
                t, err = run_json(pinned(["node", ort_runner, path, str(threads), str(args.runs), str(args.warmup)] +
                                         ([inputs] if inputs else []), threads, r), ort_env)
                if err:
                    error = "ORT: " + err
                    break
                onyx_runs.append(o)
                ort_runs.append(t)
                print(f"{name} t={threads} round {r + 1}: onyx {o['median_ms']:.2f} ms, ORT {t['median_ms']:.2f} ms",
                      file=sys.stderr)
            if error:
                rows.append((name, threads, None, None, None, None, None, None, None, error[:80]))
                continue
            med = lambda runs, key: statistics.median(x[key] for x in runs)  # noqa: E731
            ratio = statistics.median(o["median_ms"] / t["median_ms"] for o, t in zip(onyx_runs, ort_runs))
            # The same over each round's fastest run: what each engine does when nothing disturbs it, steadier than
            # the medians where another tenant of the host takes CPU time now and then (interference only adds).
            best = statistics.median(o["min_ms"] / t["min_ms"] for o, t in zip(onyx_runs, ort_runs))
            create = med(onyx_runs, "create_ms") / med(ort_runs, "create_ms")
            rss = med(onyx_runs, "peak_rss_mb") / med(ort_runs, "peak_rss_mb")
            peak = ""
            peak_isa, peak_value = peak_gflops(peaks, args.isa, threads)
            if name in GFLOP and peak_value:
                gflops = GFLOP[name] / (med(onyx_runs, "median_ms") / 1000)
                peak = f"{100 * gflops / peak_value:.0f}% of {peak_value:.0f} ({peak_isa})"
            rows.append((name, threads, med(onyx_runs, "median_ms"), med(ort_runs, "median_ms"), ratio, best, create,
                         rss, peak, ""))
    print()
    if args.isa != "native":
        print(f"onyx under ONYX_MAX_ISA={args.isa}; ONNX Runtime uncapped (MLAS reads no such variable)\n")
    print("| model | threads | onyx ms | ORT ms | onyx/ORT | best runs onyx/ORT | create onyx/ORT | peak RSS onyx/ORT "
          "| onyx % of peak | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios, bests = [], []
    for name, threads, o, t, ratio, best, create, rss, peak, note in rows:
        if ratio is None:
            print(f"| {name} | {threads} | - | - | - | - | - | - | - | {note} |")
            continue
        ratios.append(ratio)
        bests.append(best)
        print(f"| {name} | {threads} | {o:.2f} | {t:.2f} | {ratio:.2f} | {best:.2f} | {create:.2f} | {rss:.2f} | {peak} | |")
    if ratios:
        geo = lambda rs: math.exp(sum(math.log(r) for r in rs) / len(rs))  # noqa: E731
        print(f"\ngeometric mean of onyx/ORT latency ratios over {len(ratios)} runs: {geo(ratios):.2f} "
              f"(best runs: {geo(bests):.2f})")


if __name__ == "__main__":
    main()
