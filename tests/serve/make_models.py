"""Writes the small batchable test models of tests/serve (run once with Debian's python3; the outputs are committed):
data/affine_v1.onnx  y = Relu(x @ W1 + b1)                      x: float[N,4] -> y: float[N,3]
data/affine_v2.onnx  y = Tanh(x @ W2 + b2), sum = ReduceSum(y, 1)  x: float[N,4] -> y: float[N,3], sum: float[N,1]
data/requests.json   16 requests of 1 or 2 rows (seeded); ort_reference.mjs then adds ONNX Runtime's outputs.

usage: /usr/bin/python3 tests/serve/make_models.py
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240520)


def affine(version):
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["pre"])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])]
    if version == 1:
        nodes.append(helper.make_node("Relu", ["pre"], ["y"]))
    else:
        nodes.append(helper.make_node("Tanh", ["pre"], ["y"]))
        nodes.append(helper.make_node("ReduceSum", ["y", "axes"], ["sum"], keepdims=1))
        outputs.append(helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["N", 1]))
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    if version == 2:
        inits.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"))
    graph = helper.make_graph(nodes, f"affine_v{version}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "data", f"affine_v{version}.onnx"))


os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
affine(1)
affine(2)
requests = [rng.standard_normal((1 + i % 2, 4)).astype(np.float32).round(4).tolist() for i in range(16)]
with open(os.path.join(HERE, "data", "requests.json"), "w") as f:
    json.dump({"requests": requests}, f)
