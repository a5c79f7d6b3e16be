#!/usr/bin/python3
"""Builds model.onnx and test_data_set_0/input_0.pb of this folder (Debian python3-onnx 1.12, numpy; fixed seed):
float grouped convolutions of the one shape MLAS runs on its own AVX-512F kernel (one input channel and two filters
per group, 7x7, stride 2, pads 3: MobileCLIP's grouped projection; src/ops/nn/conv_ort_order.h), whose outputs onyx
must compute bit for bit as ONNX Runtime 1.30 does at optimization level disabled:

  y      16 groups over 40 x 40 with a bias (interior outputs: a lane per kernel column, then the 16-lane reduction;
         border outputs: one FMA chain over the taps inside)
  y_odd  8 groups over 9 x 11, no bias (mostly border outputs)
  y_dq   the weights through a DequantizeLinear, as a QDQ model has them
The file mlas_avx512f marks the references as AVX-512 ones: MLAS takes this kernel only there (tests/quant/
check_bit_exact.py skips the folder elsewhere).

References (ONNX Runtime 1.30, one thread; two give the same bits):
  python3 make_model.py . && NODE_PATH=~/.cache/onyx-bench/ort/node_modules node ../../../quant/ort_reference.mjs \\
      model.onnx test_data_set_0/input_0.pb test_data_set_0 disabled 1

usage: make_model.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

rng = np.random.default_rng(2028)


def main():
    out_dir = sys.argv[1]
    x = rng.normal(0, 1, [1, 16, 40, 40]).astype(np.float32)
    inits = [
        numpy_helper.from_array(rng.normal(0, 0.2, [32, 1, 7, 7]).astype(np.float32), "w"),
        numpy_helper.from_array(rng.normal(0, 1, [32]).astype(np.float32), "b"),
        numpy_helper.from_array(rng.normal(0, 0.2, [16, 1, 7, 7]).astype(np.float32), "w_odd"),
        numpy_helper.from_array(rng.integers(-127, 128, [32, 1, 7, 7]).astype(np.int8), "wq"),
        numpy_helper.from_array(np.array(0.004, np.float32), "w_scale"),
        numpy_helper.from_array(np.array([0, 0, 8, 9], np.int64), "starts"),
        numpy_helper.from_array(np.array([1, 8, 17, 20], np.int64), "ends"),
    ]
    attrs = dict(kernel_shape=[7, 7], strides=[2, 2], pads=[3, 3, 3, 3])
    nodes = [
        helper.make_node("Conv", ["input", "w", "b"], ["y"], group=16, **attrs),
        helper.make_node("Slice", ["input", "starts", "ends"], ["x_odd"]),  # [1, 8, 9, 11]
        helper.make_node("Conv", ["x_odd", "w_odd"], ["y_odd"], group=8, **attrs),
        helper.make_node("DequantizeLinear", ["wq", "w_scale"], ["w_dq"]),
        helper.make_node("Conv", ["input", "w_dq", "b"], ["y_dq"], group=16, **attrs),
    ]
    graph = helper.make_graph(nodes, "conv_7x7_multiplier2",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "y_odd", "y_dq")],
                              inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onyx-tests")
    m.ir_version = 8
    save(m, os.path.join(out_dir, "model.onnx"))
    os.makedirs(os.path.join(out_dir, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(out_dir, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())


if __name__ == "__main__":
    main()
