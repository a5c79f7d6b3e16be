#!/usr/bin/python3
"""Regenerates tests/data/quantize: small models quantized by `onyx quantize` (from tests/quantize/make_models.py)
with ONNX Runtime 1.30's outputs for two inputs each, which ctest quantize compares onyx's outputs with (so CI
needs no node). Needs onnxruntime-node (NODE_PATH, see tests/quant/ort_reference.mjs).

usage: NODE_PATH=~/.cache/onyx-bench/ort/node_modules tests/quantize/make_reference.py ONYX OUT_DIR [CASE ...]
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# ONNX Runtime runs with every optimization ("all": QDQ fused into QLinearConv and friends), except for the
# weight-only model: there "all" fuses DequantizeLinear + MatMul into MatMulNBits, which by default quantizes the
# activations to int8 too (accuracy level 4), no longer the graph's float MatMul.
CASES = [
    # name, source model, onyx quantize arguments
    ("cnn_static_qdq_per_channel", "cnn", ["--mode", "static", "--calibration", "{d}/cnn_calibration", "--per-channel"]),
    ("cnn_static_qdq_int8_entropy", "cnn", ["--mode", "static", "--calibration", "{d}/cnn_calibration",
                                             "--activation-type", "int8", "--calibrate-method", "entropy"]),
    ("cnn_static_qoperator_per_channel", "cnn", ["--mode", "static", "--calibration", "{d}/cnn_calibration",
                                                  "--per-channel", "--format", "qoperator"]),
    ("cnn_dynamic_conv_integer", "cnn", ["--mode", "dynamic", "--per-channel"]),
    ("mlp_dynamic_matmul_integer", "mlp", ["--mode", "dynamic", "--per-channel"]),
    ("mlp_weight_only_int4", "mlp", ["--mode", "weight-only", "--bits", "4", "--block", "32"]),
]


def main():
    onyx, out = sys.argv[1], sys.argv[2]
    only = sys.argv[3:]  # case names to regenerate (default: all)
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_models.py"), d, "--calibration", "16",
                        "--evaluation", "2"], check=True)
        for name, source, args in CASES:
            if only and name not in only:
                continue
            folder = os.path.join(out, name)
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            model = os.path.join(folder, "model.onnx")
            subprocess.run([onyx, "quantize", os.path.join(d, source + ".onnx"), "-o", model, "--quiet",
                            *[a.format(d=d) for a in args]], check=True)
            for i in range(2):
                case = os.path.join(folder, "test_data_set_%d" % i)
                os.makedirs(case)
                shutil.copy(os.path.join(d, source + "_evaluation", "test_data_set_%d" % i, "input_0.pb"), case)
                subprocess.run(["node", os.path.join(HERE, "..", "quant", "ort_reference.mjs"), model,
                                os.path.join(case, "input_0.pb"), case, "disabled" if "weight_only" in name else "all",
                                "1"], check=True)


if __name__ == "__main__":
    main()
