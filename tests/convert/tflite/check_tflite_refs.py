#!/usr/bin/python3
"""Differential check of the TFLite converter against LiteRT.js reference outputs.

usage: check_tflite_refs.py ONYX_BINARY CASE...
A CASE is MODEL.tflite:REF_DIR, REF_DIR holding test_data_set_0/{input_N,output_N}.pb written by LiteRT.js
(tflite_refs.mjs) and refs.json. Each model is converted, passes `onyx check --full`, runs on the reference
inputs, and each output must match: float outputs to rtol 1e-4 / atol 1e-5; int8/uint8/int16 outputs (quantized
tensors) within one quantization step, because TFLite's integer kernels round with fixed-point multipliers where
the converted graph computes in float between DequantizeLinear and QuantizeLinear; other types exactly.
A case directory holding opset.txt is converted at that --opset (int16 activations need 21).
Inputs and outputs are matched by position (the signature order LiteRT.js used is the subgraph's order).
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

RTOL, ATOL = 1e-4, 1e-5


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def check(onyx, model, ref_dir, work):
    name = os.path.basename(ref_dir.rstrip("/"))
    onnx_path = os.path.join(work, name + ".onnx")
    opset_file = os.path.join(ref_dir, "opset.txt")  # int16 (16x8) cases convert at opset 21
    opset = ["--opset", open(opset_file).read().strip()] if os.path.exists(opset_file) else []
    r = subprocess.run([onyx, "convert", model, "-o", onnx_path, "--quiet"] + opset, capture_output=True, text=True)
    if r.returncode != 0:
        return f"convert: {(r.stdout + r.stderr).strip()[-400:]}"
    r = subprocess.run([onyx, "check", "--full", onnx_path], capture_output=True, text=True)
    if r.returncode != 0:
        return f"check --full: {(r.stdout + r.stderr).strip()[-400:]}"
    m = onnx.load(onnx_path)
    inits = {i.name for i in m.graph.initializer}
    inputs = [i.name for i in m.graph.input if i.name not in inits]
    outputs = [o.name for o in m.graph.output]
    data = os.path.join(ref_dir, "test_data_set_0")
    args = [onyx, "run", onnx_path, "--output-dir", os.path.join(work, name + "_out"), "--threads", "1"]
    for k, n in enumerate(inputs):
        args += ["--input", f"{n}={os.path.join(data, f'input_{k}.pb')}"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return f"run: {(r.stdout + r.stderr).strip()[-400:]}"
    problems = []
    for k, n in enumerate(outputs):
        ref = load_pb(os.path.join(data, f"output_{k}.pb"))
        got = np.load(os.path.join(work, name + "_out", n.replace("/", "_") + ".npy"))
        if got.shape != ref.shape:
            problems.append(f"output {k} '{n}': shape {got.shape}, LiteRT {ref.shape}")
            continue
        if ref.dtype.kind == "f":
            bad = ~(np.abs(got.astype(np.float64) - ref) <= ATOL + RTOL * np.abs(ref))
            what = f"max abs diff {np.max(np.abs(got.astype(np.float64) - ref)) if ref.size else 0:.3g}"
        elif ref.dtype in (np.int8, np.uint8, np.int16):
            diff = np.abs(got.astype(np.int64) - ref.astype(np.int64))
            bad = diff > 1
            what = f"max diff {diff.max() if diff.size else 0} steps"
        else:
            bad = got != ref
            what = "values differ"
        if np.any(bad):
            problems.append(f"output {k} '{n}': {int(np.sum(bad))} of {ref.size} elements off ({what})")
    return "; ".join(problems)


def main():
    onyx = sys.argv[1]
    failures = 0

    def one(case, work):
        model, ref_dir = case.split(":", 1)
        try:
            return os.path.basename(ref_dir.rstrip("/")), check(onyx, model, ref_dir, work)
        except Exception as e:  # a missing output file, an unreadable model: a failure of this case
            return os.path.basename(ref_dir.rstrip("/")), f"{type(e).__name__}: {e}"

    with tempfile.TemporaryDirectory() as work:
        # Cases run as subprocesses: a few at a time keeps the whole check within seconds.
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for name, problem in pool.map(lambda c: one(c, work), sys.argv[2:]):
                if problem:
                    failures += 1
                    print(f"FAIL {name}: {problem}")
    total = len(sys.argv) - 2
    print(f"{total - failures} of {total} TFLite cases match their references, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
