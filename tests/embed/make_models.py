"""Writes the tiny models of tests/embed/data with ONNX's own helpers (python3-onnx): run with /usr/bin/python3.

identity.onnx: y = Identity(x), float32 [1] (bench/api_overhead.cc, the C error test).
identity_strings.onnx: s_out = Identity(s), string ["n"].
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def save(name, node, inp, out):
    graph = helper.make_graph([node], name, [inp], [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="onyx-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


save("identity", helper.make_node("Identity", ["x"], ["y"]),
     helper.make_tensor_value_info("x", TensorProto.FLOAT, [1]),
     helper.make_tensor_value_info("y", TensorProto.FLOAT, [1]))
save("identity_strings", helper.make_node("Identity", ["s"], ["s_out"]),
     helper.make_tensor_value_info("s", TensorProto.STRING, ["n"]),
     helper.make_tensor_value_info("s_out", TensorProto.STRING, ["n"]))
