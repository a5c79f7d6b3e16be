#!/usr/bin/python3
"""Regenerates the ONNX Runtime reference outputs embedded in tests/unit/int8_qlinear_concat_test.cc: one
com.microsoft QLinearConcat model per case (Debian python3-onnx), run by onnxruntime-node 1.30
(tests/quant/qlinear_concat_reference.mjs) on the inputs the unit test feeds, x0[j] = j, x1[j] = 7j + 3,
x2[j] = 255 - 5j (as bytes). Prints the C++ arrays to paste into the test. Not run in CI (no node there).

usage: NODE_PATH=~/.cache/onyx-bench/ort/node_modules tests/quant/qlinear_concat_reference.py
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (type, axis, input shapes, (scale, zero point) per input, Y's (scale, zero point))
CASES = {
    # uint8, axis 1: x0 through a table whose values fall on ties (scale 0.5 -> 1.0), x1 copied (Y's parameters),
    # x2 through a table (Y's scale, another zero point).
    "u8": ("uint8", 1, [[1, 2, 4, 32], [1, 1, 4, 32], [1, 1, 4, 32]], [(0.5, 0), (1.0, 128), (1.0, 3)], (1.0, 128)),
    # int8, axis -1: x0 through a table of odd scales, x1 through one of ties, x2 copied.
    "s8": ("int8", -1, [[2, 4, 32], [2, 4, 16], [2, 4, 8]], [(0.0186584, -7), (0.25, 1), (0.031, 5)], (0.031, 5)),
}


def make_model(qtype, axis, shapes, params, y, path):
    np_type = np.uint8 if qtype == "uint8" else np.int8
    elem = TensorProto.UINT8 if qtype == "uint8" else TensorProto.INT8
    inits = [numpy_helper.from_array(np.array(y[0], np.float32), "ys"),
             numpy_helper.from_array(np.array(y[1], np_type), "yz")]
    inputs, graph_inputs = ["ys", "yz"], []
    for i, (shape, (scale, zp)) in enumerate(zip(shapes, params)):
        inits.append(numpy_helper.from_array(np.array(scale, np.float32), "s%d" % i))
        inits.append(numpy_helper.from_array(np.array(zp, np_type), "z%d" % i))
        inputs += ["x%d" % i, "s%d" % i, "z%d" % i]
        graph_inputs.append(helper.make_tensor_value_info("x%d" % i, elem, shape))
    node = helper.make_node("QLinearConcat", inputs, ["y"], domain="com.microsoft", axis=axis)
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info("y", elem, None)], inits)
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    onnx.save(model, path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in CASES.items():
            make_model(*case, os.path.join(tmp, name + ".onnx"))
            spec = {"model": os.path.join(tmp, name + ".onnx"), "type": case[0], "shapes": case[2]}
            run = subprocess.run(["node", os.path.join(HERE, "qlinear_concat_reference.mjs"), json.dumps(spec)],
                                 check=True, capture_output=True, text=True)
            out = json.loads(run.stdout)
            print("// ORT output of case \"%s\" (%s, dims [%s])." % (name, case[0], ", ".join(map(str, out["dims"]))))
            print("const int kOrt_%s[] = {%s};" % (name, ", ".join(map(str, out["data"]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
