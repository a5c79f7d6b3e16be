#!/usr/bin/python3
"""Times quantized models side by side: onyx with its int8 kernels (oneDNN), onyx with its reference integer loops
(ONYX_INT8_REFERENCE=1), an optional float original in onyx, and ONNX Runtime (bench/ort_runner.js), in alternating
rounds so that the load of a shared machine spreads over all of them. Prints the median of the round medians (ms).

usage: bench/quant_compare.py ONYX MODEL[:FLOAT_MODEL] ... [--threads 1,2] [--rounds 3] [--runs 30] [--no-ref]
                              [--vnni-only]
       (--no-ref skips the reference loops, which take seconds per run on the big models; the last columns are the
       medians of the per-round ratios: onyx int8 / ORT int8 and onyx float / onyx int8)
       (--vnni-only, on a CPU with AMX: both engines as on a CPU without it, i.e. AVX-512 VNNI: onyx's oneDNN capped
       by ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI, ONNX Runtime under bench/no_amx_shim.c, which refuses the AMX
       permission its MLAS asks Linux for; without the shim ORT's int8 matrix products keep AMX: BERT-like dynamic
       52 ms instead of 68 on an Intel Xeon, Sapphire Rapids, session 38)
       (NODE_PATH=~/.cache/onyx-bench/ort/node_modules for ONNX Runtime; it is skipped when node cannot load it)
       (--no-pin: runs with fewer threads than CPUs otherwise pin every engine of a round to the same CPUs (taskset),
       rotating from round to round, as bench/compare.py does: one vCPU of the 2-vCPU machines measured here runs
       ~30% slower than the other for both engines, and an unpinned 1-thread process lands on either)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from round_pinning import round_pinning

HERE = os.path.dirname(os.path.abspath(__file__))


def onyx_ms(onyx, model, threads, runs, env_extra=None, pin=()):
    env = dict(os.environ, **(env_extra or {}))
    out = subprocess.run(list(pin) + [onyx, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup",
                                      "3", "--json"], capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def ort_ms(model, threads, runs, env_extra=None, pin=()):
    env = dict(os.environ, **(env_extra or {}))
    run = subprocess.run(list(pin) + ["node", os.path.join(HERE, "ort_runner.js"), model, str(threads), str(runs), "3"],
                         capture_output=True, text=True, env=env)
    if run.returncode != 0:
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onyx")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--no-ref", action="store_true")
    ap.add_argument("--vnni-only", action="store_true")
    ap.add_argument("--no-pin", action="store_true", help="never pin runs to CPUs")
    args = ap.parse_args()
    pin = round_pinning(not args.no_pin)  # every engine of round r on the same CPUs, rotating with r

    onyx_env, ort_env = {}, {}
    if args.vnni_only:
        shim_dir = tempfile.TemporaryDirectory(prefix="onyx-no-amx-")  # kept until main returns, then removed
        shim = os.path.join(shim_dir.name, "libno_amx_shim.so")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(HERE, "no_amx_shim.c"), "-ldl"],
                       check=True)
        onyx_env = {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_VNNI"}
        ort_env = {"LD_PRELOAD": shim}
    print("%-28s %3s %12s %12s %12s %12s %10s %10s" % ("model", "thr", "onyx int8", "onyx ref", "onyx float", "ORT int8",
                                                      "int8/ORT", "float/int8"))
    for spec in args.models:
        model, _, float_model = spec.partition(":")
        for threads in [int(t) for t in args.threads.split(",")]:
            times = {"int8": [], "ref": [], "float": [], "ort": []}
            for r in range(args.rounds):
                cpu = pin(threads, r)
                times["int8"].append(onyx_ms(args.onyx, model, threads, args.runs, onyx_env, cpu))
                if not args.no_ref:
                    times["ref"].append(onyx_ms(args.onyx, model, threads, args.runs,
                                                dict(onyx_env, ONYX_INT8_REFERENCE="1"), cpu))
                if float_model:
                    times["float"].append(onyx_ms(args.onyx, float_model, threads, args.runs, onyx_env, cpu))
                t = ort_ms(model, threads, args.runs, ort_env, cpu)
                if t is not None:
                    times["ort"].append(t)
            cell = lambda v: "%12.3f" % statistics.median(v) if v else "%12s" % "-"  # noqa: E731
            # tests/data/quant/NAME/model.onnx is named by its folder, other files by their own name.
            name = os.path.basename(model)
            if name == "model.onnx":
                name = os.path.basename(os.path.dirname(model))
            # The median of the per-round ratios (both engines of a round on the same CPUs, in the same phase of a
            # shared machine), as bench/compare.py reports it.
            ratio = lambda x, y: "%10.2f" % statistics.median(a / b for a, b in zip(times[x], times[y])) \
                if times[x] and len(times[x]) == len(times[y]) else "%10s" % "-"  # noqa: E731
            print("%-28s %3d %s %s %s %s %s %s" % (name[:28], threads, cell(times["int8"]), cell(times["ref"]),
                                                  cell(times["float"]), cell(times["ort"]), ratio("int8", "ort"),
                                                  ratio("float", "int8")))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
