#!/usr/bin/python3
"""Converts every corpus model (tests/data/keras/*, in each of its forms: TF.js model.json, Keras 2 .h5,
Keras 3 .keras) with `onyx convert`, checks it with `onyx check`, runs it with `onyx run` on the stored inputs and
compares with the reference outputs (TF.js's, or numpy's for gen_numpy_cases.py's cases): |onyx - ref| <= atol + rtol * |tfjs|, rtol 1e-4, atol 1e-5 (the atol covers
values near 0, where float32 rounding of long sums dominates). Two models again with channels-first inputs and
outputs (--inputs-as-nchw / --outputs-as-nchw); every model at opsets 13 and 21. Then the real model nsfwjs_mobilenet_v2 (shared
models) against its stored reference.

usage: run_corpus.py ONYX_BINARY CORPUS_DIR [SHARED_DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

RTOL, ATOL = 1e-4, 1e-5


def output_names(onnx_path):
    import onnx
    return [o.name for o in onnx.load(onnx_path).graph.output]


def load_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    t.ParseFromString(open(path, "rb").read())
    return numpy_helper.to_array(t)


def run_case(onyx, model, inputs, refs, work, convert_args=()):
    """inputs: [(name, file)], refs: [array]; returns (ok, worst_ratio, worst_rel, message)."""
    out = os.path.join(work, "model.onnx")
    r = subprocess.run([onyx, "convert", model, "-o", out, "--quiet"] + list(convert_args), capture_output=True,
                       text=True)
    if r.returncode != 0:
        return False, 0, 0, "convert failed: " + r.stderr.strip()
    r = subprocess.run([onyx, "check", "--full", out], capture_output=True, text=True)
    if r.returncode != 0:
        return False, 0, 0, "check failed: " + (r.stdout + r.stderr).strip()[-500:]
    outdir = os.path.join(work, "out")
    cmd = [onyx, "run", out, "--output-dir", outdir, "--threads", "1"]
    for name, f in inputs:
        cmd += ["--input", "%s=%s" % (name, f)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return False, 0, 0, "run failed: " + r.stderr.strip()
    names = output_names(out)
    if len(names) != len(refs):
        return False, 0, 0, "%d outputs, reference has %d" % (len(names), len(refs))
    worst_ratio = worst_rel = 0.0
    for name, ref in zip(names, refs):
        got = np.load(os.path.join(outdir, name + ".npy"))
        if got.shape != ref.shape:
            return False, 0, 0, "output %s: shape %s, reference %s" % (name, got.shape, ref.shape)
        err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        err[np.isnan(got) & np.isnan(ref)] = 0.0  # NaN where the reference has NaN agrees; any other NaN fails
        err[np.isnan(err)] = np.inf
        ratio = float(np.max(err / (ATOL + RTOL * np.abs(np.nan_to_num(ref))))) if err.size else 0.0
        big = np.abs(ref) > 1e-3
        rel = float(np.max(err[big] / np.abs(ref[big]))) if big.any() else 0.0
        worst_ratio, worst_rel = max(worst_ratio, ratio), max(worst_rel, rel)
        if ratio > 1:
            return False, worst_ratio, worst_rel, "output %s: max error %.3g (%.2fx tolerance)" % (
                name, float(err.max()), ratio)
    return True, worst_ratio, worst_rel, ""


def main():
    onyx, corpus = sys.argv[1], sys.argv[2]
    shared = sys.argv[3] if len(sys.argv) > 3 else None
    files = {"tfjs": "model.json", "h5": "model.h5", "keras": "model.keras"}
    failures, cases, worst_rel, worst_ratio, size = [], 0, 0.0, 0.0, 0
    for root, _, fs in os.walk(corpus):
        size += sum(os.path.getsize(os.path.join(root, f)) for f in fs)
    with tempfile.TemporaryDirectory() as work:
        for name in sorted(os.listdir(corpus)):
            d = os.path.join(corpus, name)
            if not os.path.isfile(os.path.join(d, "meta.json")):
                continue
            meta = json.load(open(os.path.join(d, "meta.json")))
            inputs = [(i["name"], os.path.join(d, i["file"])) for i in meta["inputs"]]
            refs = [np.load(os.path.join(d, o["file"])) for o in meta["outputs"]]
            for form in meta.get("forms", ["tfjs"]):
                cases += 1
                ok, ratio, rel, msg = run_case(onyx, os.path.join(d, files[form]), inputs, refs, work)
                worst_ratio, worst_rel = max(worst_ratio, ratio), max(worst_rel, rel)
                print("%-4s %s [%s]%s" % ("PASS" if ok else "FAIL", name, form, "" if ok else ": " + msg))
                if not ok:
                    failures.append("%s [%s]" % (name, form))
        # The lowest and highest opsets (the default is 17): each model once, in its first form. Operators and
        # decompositions differ by opset (HardSwish, Gelu, Mish, LayerNormalization, ReduceMax's axes).
        for opset in ("13", "21"):
            for name in sorted(os.listdir(corpus)):
                d = os.path.join(corpus, name)
                if not os.path.isfile(os.path.join(d, "meta.json")):
                    continue
                meta = json.load(open(os.path.join(d, "meta.json")))
                form = meta.get("forms", ["tfjs"])[0]
                inputs = [(i["name"], os.path.join(d, i["file"])) for i in meta["inputs"]]
                refs = [np.load(os.path.join(d, o["file"])) for o in meta["outputs"]]
                cases += 1
                ok, ratio, rel, msg = run_case(onyx, os.path.join(d, files[form]), inputs, refs, work,
                                               ["--opset", opset])
                worst_ratio, worst_rel = max(worst_ratio, ratio), max(worst_rel, rel)
                print("%-4s %s [%s, opset %s]%s" % ("PASS" if ok else "FAIL", name, form, opset,
                                                    "" if ok else ": " + msg))
                if not ok:
                    failures.append("%s [opset %s]" % (name, opset))
        # Channels-first inputs and outputs: every rank >= 3 input / output of these models named in
        # --inputs-as-nchw / --outputs-as-nchw, fed transposed inputs and compared with transposed references.
        for name in ("conv2d", "mobilenet_like", "conv2d_transpose", "conv3d"):
            d = os.path.join(corpus, name)
            if not os.path.isfile(os.path.join(d, "meta.json")):
                continue
            meta = json.load(open(os.path.join(d, "meta.json")))
            first = lambda a: np.transpose(a, [0, a.ndim - 1] + list(range(1, a.ndim - 1))) if a.ndim >= 3 else a
            inputs, in_names, out_names = [], [], []
            for k, i in enumerate(meta["inputs"]):
                a = np.load(os.path.join(d, i["file"]))
                if a.ndim >= 3:
                    in_names.append(i["name"])
                f = os.path.join(work, "nchw_input_%d.npy" % k)
                np.save(f, np.ascontiguousarray(first(a)))
                inputs.append((i["name"], f))
            refs = []
            for o in meta["outputs"]:
                a = np.load(os.path.join(d, o["file"]))
                if a.ndim >= 3:
                    out_names.append(o["name"])
                refs.append(first(a))
            args = ["--inputs-as-nchw", ",".join(in_names)] + (["--outputs-as-nchw", ",".join(out_names)]
                                                                if out_names else [])
            cases += 1
            ok, ratio, rel, msg = run_case(onyx, os.path.join(d, "model.json"), inputs, refs, work, args)
            worst_ratio, worst_rel = max(worst_ratio, ratio), max(worst_rel, rel)
            print("%-4s %s [tfjs, %s]%s" % ("PASS" if ok else "FAIL", name, " ".join(args), "" if ok else ": " + msg))
            if not ok:
                failures.append("%s [nchw]" % name)
        if shared:
            model = os.path.join(shared, "models/tfjs/layers/nsfwjs_mobilenet_v2/model.json")
            data = os.path.join(shared, "models/tfjs/testdata/nsfwjs_mobilenet_v2")
            if os.path.exists(model):
                refs_json = json.load(open(os.path.join(data, "refs.json")))
                ins = [(i["name"], os.path.join(data, "test_data_set_0", i["file"])) for i in refs_json["inputs"]]
                outs = [load_pb(os.path.join(data, "test_data_set_0", o["file"])) for o in refs_json["outputs"]]
                cases += 1
                ok, ratio, rel, msg = run_case(onyx, model, ins, outs, work)
                worst_ratio, worst_rel = max(worst_ratio, ratio), max(worst_rel, rel)
                print("%-4s nsfwjs_mobilenet_v2 [tfjs, real model]%s" % ("PASS" if ok else "FAIL", "" if ok else ": " + msg))
                if not ok:
                    failures.append("nsfwjs_mobilenet_v2")
    print("corpus: %.2f MB; %d cases, %d failed; worst relative error %.3g (|ref| > 1e-3), worst error/tolerance %.3g "
          "(rtol %g, atol %g)" % (size / 1e6, cases, len(failures), worst_rel, worst_ratio, RTOL, ATOL))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
