#!/usr/bin/python3
"""Builds model.onnx and test_data_set_0/input_0.pb of this folder (Debian python3-onnx 1.12, numpy; fixed seed): QDQ
convolutions of every kind MLAS runs its own way, each DequantizeLinear -> Conv -> QuantizeLinear as ONNX Runtime's
quantizer writes them (int8 weights per channel, int32 bias through DequantizeLinear), so that at optimization level
disabled onyx must reproduce ONNX Runtime's float sums bit for bit (src/ops/nn/conv_ort_order.h):

  trunk   three 3x3 pad 1 convolutions of 48 x 48 x 48 (im2col, segments, K = 72 and 432 in blocks of 128): enough
          sums that another order flips some quantized values, which then move everything after them (not listed:
          their size; the GlobalAveragePool -> QuantizeLinear after them is)
  c7      7x7 stride 2 pad 3 (K = 2352), then 3x3 stride 2 twice (12 x 12, then 6 x 6 = 36 pixels)
  1x1     GEMM on the input (MlasGemm split along N)
  small   36 pixels, K = 576: K blocks of 256
  wide    64 filters > 36 pixels: im2col + MlasGemm split along M
  dw      depthwise 3x3 stride 1 and 2 (MLAS's M = 1 kernel, without FMA)
  grp     grouped 3x3 (4 groups of 8 -> 12)
The QuantizeLinear of each listed step, and of a GlobalAveragePool after each branch, are the outputs. Each step's
quantization step is a quarter of what its range needs (see quantize()).

References (ONNX Runtime 1.30: its outputs at 1 and 2 threads are the same):
  NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/quant/ort_reference.mjs \
      tests/data/quant/conv_ort_order/model.onnx tests/data/quant/conv_ort_order/test_data_set_0/input_0.pb \
      tests/data/quant/conv_ort_order/test_data_set_0 disabled 1
  and the same with `expected_all all 1` into expected_all/ (at level all ONNX Runtime fuses the groups into
  QLinearConv). Without the ONNX Runtime order (onyx before issue 16's change) 9 of the 15 outputs differ at level
  disabled.

usage: make_model.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save, shape_inference

rng = np.random.default_rng(2026)
nodes, inits, outputs = [], [], []
count = [0]


def name(stem):
    count[0] += 1
    return "%s_%d" % (stem, count[0])


def const(stem, a):
    n = name(stem)
    inits.append(numpy_helper.from_array(a, n))
    return n


def node(op, ins, **attrs):
    out = name(op.lower())
    nodes.append(helper.make_node(op, ins, [out], name=name("n_" + op), **attrs))
    return out


def np_conv(x, w, b, stride, pad, group):
    """float64 convolution (2-D, NCHW) to pick quantization scales."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for o in range(m):
        g = o // mg
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j])
    if b is not None:
        y += b[None, :, None, None]
    return y


def quantize(x_name, x_val, listed=True):
    """QuantizeLinear (uint8) -> DequantizeLinear; returns (dq name, dq value, scale). The step is a quarter of what
    the value's range needs, centred on the range: the extreme values saturate, and four times as many sums sit close
    enough to a rounding boundary that another summation order flips them (what makes this test fail without the
    order)."""
    lo, hi = min(float(x_val.min()), 0.0), max(float(x_val.max()), 0.0)
    scale = np.float32((hi - lo) / 1020.0 or 1.0)
    zp = np.uint8(np.clip(np.round(128.0 - 0.5 * (lo + hi) / scale), 0, 255))
    q = node("QuantizeLinear", [x_name, const("scale", np.array(scale)), const("zp", np.array(zp))])
    if listed:
        outputs.append(q)
    dq = node("DequantizeLinear", [q, const("scale", np.array(scale)), const("zp", np.array(zp))])
    val = (np.clip(np.round(x_val / scale) + float(zp), 0, 255) - float(zp)) * float(scale)
    return dq, val, scale


def conv(x, cout, k, stride=1, pad=0, group=1, bias=True, dims=2, listed=True):
    """DQ(int8 weights, per channel) -> Conv (bias: int32 through DQ, scale x_scale * w_scale) -> Q -> DQ."""
    x_name, x_val, x_scale = x
    cin = x_val.shape[1]
    kshape = [k] * dims
    w = rng.normal(0, 1.0 / np.sqrt(cin / group * k ** dims), [cout, cin // group] + kshape).astype(np.float32)
    ws = (np.abs(w).reshape(cout, -1).max(axis=1) / 127.0).astype(np.float32)
    bshape = (cout,) + (1,) * (dims + 1)
    wq = np.clip(np.round(w / ws.reshape(bshape)), -127, 127).astype(np.int8)
    wdq = node("DequantizeLinear", [const("w", wq), const("w_scale", ws), const("w_zp", np.zeros(cout, np.int8))],
               axis=0)
    wf = wq.astype(np.float64) * ws.reshape(bshape)
    ins = [x_name, wdq]
    b = None
    if bias:
        bs = (np.float32(x_scale) * ws).astype(np.float32)
        bq = np.round(rng.normal(0, 0.2, cout) / bs).astype(np.int32)
        ins.append(node("DequantizeLinear", [const("b", bq), const("b_scale", bs), const("b_zp", np.zeros(cout, np.int32))],
                        axis=0))
        b = bq * bs.astype(np.float64)
    y = node("Conv", ins, kernel_shape=kshape, strides=[stride] * dims, pads=[pad] * (2 * dims), group=group)
    if dims == 1:
        yv = np_conv(x_val[:, :, None, :], wf[:, :, None, :], b, 1, 0, group)[:, :, 0, :]  # range estimate
    else:
        yv = np_conv(x_val, wf, b, stride, pad, group)
    return quantize(y, yv, listed)


def pool_q(x):
    quantize(node("GlobalAveragePool", [x[0]]), x[1].mean(axis=(2, 3), keepdims=True))


def main():
    out_dir = sys.argv[1]
    x_val = rng.random((1, 8, 48, 48)).astype(np.float32)
    x = quantize("input", x_val, listed=False)
    # A wide trunk (110592 values per step, K = 432): enough sums that another order flips some quantized values,
    # which then move everything after them. Its steps are not listed (their size); the pool after them is.
    a = conv(x, 48, 3, pad=1, listed=False)
    b = conv(a, 48, 3, pad=1, listed=False)
    c = conv(b, 48, 3, pad=1, listed=False)
    pool_q(c)
    c7 = conv(c, 32, 7, stride=2, pad=3)         # 7x7 stride 2: 24x24, K = 2352
    s = conv(c7, 64, 3, stride=2, pad=1)         # 12x12
    pool_q(conv(s, 96, 1))                       # 1x1: GEMM on the input, MlasGemm split along N
    s2 = conv(s, 64, 3, stride=2, pad=1)         # 6x6 = 36 pixels
    pool_q(conv(s2, 32, 3, pad=1))               # 36 pixels, K = 576: blocks of 256
    pool_q(conv(s2, 64, 3, pad=1))               # 64 filters > 36 pixels: im2col + MlasGemm split along M
    dw1 = conv(c7, 32, 3, pad=1, group=32)       # depthwise: MLAS's M = 1 kernel (no FMA)
    pool_q(conv(dw1, 32, 3, stride=2, pad=1, group=32))
    pool_q(conv(c7, 48, 3, pad=1, group=4))      # 4 groups of 8 -> 12

    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 8, 48, 48])]
    opsets = [helper.make_opsetid("", 17)]
    bare = helper.make_graph(nodes, "conv_ort_order", inputs, [], inits)
    inferred = shape_inference.infer_shapes(helper.make_model(bare, opset_imports=opsets), strict_mode=True)
    infos = {v.name: v for v in inferred.graph.value_info}
    graph = helper.make_graph(nodes, "conv_ort_order", inputs, [infos[o] for o in outputs], inits)
    m = helper.make_model(graph, opset_imports=opsets, producer_name="onyx-tests")
    m.ir_version = 8
    save(m, os.path.join(out_dir, "model.onnx"))
    os.makedirs(os.path.join(out_dir, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(out_dir, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x_val, "input").SerializeToString())


if __name__ == "__main__":
    main()
