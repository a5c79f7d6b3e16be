"""InferenceSession.run reads C-contiguous numpy inputs in place (no copy); the caller's arrays must come out
unchanged and the outputs must be arrays of their own, as with onnxruntime."""
import numpy as np
import onnx
from onnx import TensorProto, helper

import onyx


def session(nodes, inputs, outputs, level=onyx.GraphOptimizationLevel.ORT_ENABLE_ALL):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    opts = onyx.SessionOptions()
    opts.graph_optimization_level = level
    return onyx.InferenceSession(model.SerializeToString(), sess_options=opts)


def float_io(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_identity_output_is_a_copy():
    s = session([helper.make_node("Identity", ["x"], ["y"])], [float_io("x", [2, 3])], [float_io("y", [2, 3])])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = s.run(None, {"x": x})
    assert not np.shares_memory(x, y)
    x[:] = -1
    np.testing.assert_array_equal(y, np.arange(6, dtype=np.float32).reshape(2, 3))


def test_inputs_are_not_overwritten_by_in_place_kernels():
    # Relu then Add reading x for the last time: kernels that may compute into a dead input's buffer must not take
    # the caller's array; a reshaped view of it neither.
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "r"], ["a"]),
             helper.make_node("Reshape", ["x", "shape"], ["v"]), helper.make_node("Neg", ["v"], ["y"])]
    shape = helper.make_tensor("shape", TensorProto.INT64, [1], [12])
    graph = helper.make_graph(nodes, "g", [float_io("x", [3, 4])], [float_io("a", [3, 4]), float_io("y", [12])],
                              initializer=[shape])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for level in (onyx.GraphOptimizationLevel.ORT_DISABLE_ALL, onyx.GraphOptimizationLevel.ORT_ENABLE_ALL):
        opts = onyx.SessionOptions()
        opts.graph_optimization_level = level
        s = onyx.InferenceSession(model.SerializeToString(), sess_options=opts)
        x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
        before = x.copy()
        for _ in range(3):
            a, y = s.run(None, {"x": x})
            np.testing.assert_array_equal(x, before)
            np.testing.assert_array_equal(a, 2 * np.maximum(before, 0))
            np.testing.assert_array_equal(y, -before.reshape(12))
            assert not np.shares_memory(a, x) and not np.shares_memory(y, x)


def test_strided_and_misaligned_inputs_are_copied_correctly():
    s = session([helper.make_node("Mul", ["x", "x"], ["y"])], [float_io("x", [3, 2])], [float_io("y", [3, 2])])
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    transposed = base.T  # not C-contiguous
    (y,) = s.run(None, {"x": transposed})
    np.testing.assert_array_equal(y, transposed * transposed)
    raw = np.zeros(6 * 4 + 1, dtype=np.uint8)
    odd = raw[1:].view(np.float32).reshape(3, 2)  # 1 byte off the allocation's alignment
    odd[:] = np.arange(6, dtype=np.float32).reshape(3, 2)
    (y,) = s.run(None, {"x": odd})
    np.testing.assert_array_equal(y, odd * odd)


def test_feeding_outputs_back_as_inputs():
    # A decoder's loop: each run's output array is the next run's input (borrowed, itself over onyx's memory).
    s = session([helper.make_node("Add", ["x", "one"], ["y"])], [float_io("x", [4]), float_io("one", [4])],
                [float_io("y", [4])])
    x = np.zeros(4, dtype=np.float32)
    one = np.ones(4, dtype=np.float32)
    outs = []
    for _ in range(5):
        (x,) = s.run(None, {"x": x, "one": one})
        outs.append(x)
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(o, np.full(4, i + 1, dtype=np.float32))
