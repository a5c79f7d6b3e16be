#!/usr/bin/python3
"""Builds a libFuzzer seed corpus for one target from the project's and ../shared's files.

usage: seed_corpus.py TARGET OUT_DIR REPO_DIR SHARED_DIR   (TARGET: onnx_model, onnx_text, tensor, convert_tflite,
       convert_tfjs, convert_graphdef, convert_keras_zip, convert_keras_h5, serve_request)
Small files only (the fuzzer mutates faster on small inputs); at most MAX_SEEDS per target, chosen by size.
"""
import glob
import json
import os
import struct
import sys

MAX_SEEDS = 200
MAX_BYTES = 256 * 1024


def smallest(patterns, limit=MAX_SEEDS):
    files = set()
    for p in patterns:
        files.update(f for f in glob.glob(p, recursive=True) if os.path.isfile(f))
    files = [f for f in files if os.path.getsize(f) <= MAX_BYTES]
    files.sort(key=lambda f: (os.path.getsize(f), f))
    # Spread the picks over the size range rather than taking only the tiniest.
    if len(files) > limit:
        step = len(files) / limit
        files = [files[int(i * step)] for i in range(limit)]
    return files


def main():
    target, out, repo, shared = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    seeds = []  # (name, bytes)
    if target == "onnx_model":
        for f in smallest([f"{shared}/onnx-tests/**/model.onnx", f"{repo}/tests/data/**/*.onnx"]):
            seeds.append((f, open(f, "rb").read()))
    elif target == "onnx_text":
        for f in smallest([f"{repo}/tests/**/*.onnxtxt", f"{repo}/docs/*.md"], 50):
            seeds.append((f, open(f, "rb").read()))
        seeds.append(("inline", b'<ir_version: 8, opset_import: ["" : 17]>\nagraph (float[N, 4] X) => (float[N, 4] Y) {\n'
                                b'  T = Relu(X)\n  Y = Add(T, X)\n}\n'))
    elif target == "tensor":
        for f in smallest([f"{shared}/onnx-tests/**/input_*.pb", f"{shared}/onnx-tests/**/output_*.pb"]):
            seeds.append((f, b"\0" + open(f, "rb").read()))
        for f in smallest([f"{repo}/tests/**/*.npy", f"{shared}/models/**/*.npy"], 100):
            seeds.append((f, b"\1" + open(f, "rb").read()))
    elif target == "convert_tflite":
        for f in smallest([f"{shared}/models/tflite/**/*.tflite", f"{repo}/tests/data/**/*.tflite"]):
            seeds.append((f, open(f, "rb").read()))
    elif target == "convert_tfjs":
        for f in smallest([f"{shared}/models/tfjs/**/model.json", f"{repo}/tests/data/**/model.json",
                           f"{repo}/tests/data/fuzz_regressions/tfjs_*/**/*.json"]):
            seeds.append((f, open(f, "rb").read()))
    elif target == "convert_graphdef":
        for f in smallest([f"{shared}/models/tf/*.pb", f"{repo}/tests/data/**/*.pb"]):
            if "test_data_set" not in f:
                seeds.append((f, open(f, "rb").read()))
    elif target == "convert_keras_zip":
        for f in smallest([f"{shared}/models/keras/**/*.keras", f"{repo}/tests/data/**/*.keras"]):
            seeds.append((f, open(f, "rb").read()))
    elif target == "convert_keras_h5":
        for f in smallest([f"{shared}/models/keras/**/*.h5", f"{repo}/tests/data/**/*.h5"]):
            seeds.append((f, open(f, "rb").read()))
    elif target == "serve_request":
        reqs = [
            {"inputs": [{"name": "x", "shape": [2, 2], "datatype": "FP32", "data": [1, 2, 3, 4]}]},
            {"id": "7", "inputs": [{"name": "x", "shape": [3], "datatype": "INT64", "data": [1, -2, 3]}],
             "outputs": [{"name": "y", "parameters": {"binary_data": True}}]},
            {"inputs": [{"name": "s", "shape": [1], "datatype": "BYTES", "data": ["abc"]}],
             "parameters": {"binary_data_output": True}},
        ]
        for i, r in enumerate(reqs):
            j = json.dumps(r).encode()
            seeds.append((f"json{i}", struct.pack("<I", len(j)) + j))
        j = json.dumps({"inputs": [{"name": "x", "shape": [2], "datatype": "FP32",
                                    "parameters": {"binary_data_size": 8}}]}).encode()
        seeds.append(("binary", struct.pack("<I", len(j)) + j + struct.pack("<2f", 1.5, -2.0)))
    else:
        sys.exit(f"unknown target {target}")
    # Inputs that once failed this target (tests/fuzz/libfuzzer/regressions/TARGET) stay in its corpus.
    for f in sorted(glob.glob(os.path.join(repo, "tests", "fuzz", "libfuzzer", "regressions", target, "*"))):
        seeds.append((f, open(f, "rb").read()))
    for i, (name, data) in enumerate(seeds):
        with open(os.path.join(out, f"seed_{i:04d}"), "wb") as fh:
            fh.write(data)
    print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
