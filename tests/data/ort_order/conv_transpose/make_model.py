#!/usr/bin/python3
"""Builds model.onnx and test_data_set_0/input_0.pb of this folder (Debian python3-onnx 1.12, numpy; fixed seed): a
small QDQ U-Net decoder whose ConvTransposes run in float at optimization level disabled, each
DequantizeLinear -> ConvTranspose -> QuantizeLinear as ONNX Runtime's quantizer writes them (int8 weights per output
channel, axis 1; int32 bias through DequantizeLinear), so that onyx must reproduce ONNX Runtime's float sums bit for
bit (src/ops/nn/conv_transpose_ort_order.h):

  enc   two 3x3 stride-2 convolutions down to 192 channels of 8 x 8 (not listed)
  up1   2x2 stride 2, K = 192 input channels over 64 pixels: W from a DequantizeLinear, so MLAS reads it transposed
        and sums K in blocks of 128 (its float output is listed too)
  up2   4x4 stride 2 pad 1 after a skip Concat: K = 144 over 256 pixels
  up3   3x3 stride 2 pad 1 output_padding 1, 2 groups, 64 x 64 (not listed: its size; the pool after it is)
  up1f  the shape of up1 with a float constant W (float output listed): ONNX Runtime transposes it once (PrePack)
        and MLAS then sums K = 192 in one block (N = 64 < K lets its K stride grow)
  up1d  1-D: 4 taps stride 2 pad 1 over a 64-long row (Col2imNd; float output listed)
The QuantizeLinear after each step is an output (each step's quantization step a quarter of what its range needs,
see quantize()); the float outputs listed make any other order visible (a quantized decoder this small flips too
few values: with onyx's own order only 1 of the quantized values differs, but 16960 of up1's floats).

Checked at level disabled only (ctest quant_ort_order): at level all ONNX Runtime keeps these ConvTransposes in
float (it has no QDQ fusion for them on x86) but quantizes the float W of up1f to int8 first (its weight/bias
quantization pass), and onyx sums in its own order there.

References (ONNX Runtime 1.30: its outputs at 1 and 2 threads are the same):
  python3 make_model.py . && NODE_PATH=~/.cache/onyx-bench/ort/node_modules node ../../../quant/ort_reference.mjs \
      model.onnx test_data_set_0/input_0.pb test_data_set_0 disabled 1

usage: make_model.py OUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save, shape_inference

rng = np.random.default_rng(2027)
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


def np_conv(x, w, b, stride, pad):
    """float64 2-D convolution (NCHW, one group) to pick quantization scales."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j])
    return y + b[None, :, None, None]


def np_conv_transpose(x, w, b, stride, pad, out_pad, group):
    """float64 ConvTranspose (N-D, NCHW) to pick quantization scales: every input pixel's tap scattered."""
    dims = x.ndim - 2
    cg, mg = x.shape[1] // group, w.shape[1]
    k = w.shape[2:]
    full = [(x.shape[2 + d] - 1) * stride + k[d] + out_pad for d in range(dims)]
    y = np.zeros((x.shape[0], mg * group) + tuple(full))
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        for tap in np.ndindex(*k):
            contrib = np.einsum("nc...,cm->nm...", xs, w[g * cg:(g + 1) * cg, :][(slice(None), slice(None)) + tap])
            sl = tuple(slice(tap[d], tap[d] + stride * (x.shape[2 + d] - 1) + 1, stride) for d in range(dims))
            y[(slice(None), slice(g * mg, (g + 1) * mg)) + sl] += contrib
    crop = tuple(slice(pad, full[d] - pad) for d in range(dims))
    y = y[(slice(None), slice(None)) + crop]
    return y + b.reshape((1, -1) + (1,) * dims)


def quantize(x_name, x_val, listed=True):
    """QuantizeLinear (uint8) -> DequantizeLinear; returns (dq name, dq value, scale). The step is a quarter of what
    the value's range needs, centred on the range, as in ../conv_ort_order/make_model.py."""
    lo, hi = min(float(x_val.min()), 0.0), max(float(x_val.max()), 0.0)
    scale = np.float32((hi - lo) / 1020.0 or 1.0)
    zp = np.uint8(np.clip(np.round(128.0 - 0.5 * (lo + hi) / scale), 0, 255))
    q = node("QuantizeLinear", [x_name, const("scale", np.array(scale)), const("zp", np.array(zp))])
    if listed:
        outputs.append(q)
    dq = node("DequantizeLinear", [q, const("scale", np.array(scale)), const("zp", np.array(zp))])
    val = (np.clip(np.round(x_val / scale) + float(zp), 0, 255) - float(zp)) * float(scale)
    return dq, val, scale


def weights(shape, fan_in, axis):
    """int8 weights quantized per channel along `axis`: (int8, scales, float64 values)."""
    w = rng.normal(0, 1.0 / np.sqrt(fan_in), shape).astype(np.float32)
    other = tuple(d for d in range(len(shape)) if d != axis)
    ws = (np.abs(w).max(axis=other) / 127.0).astype(np.float32)
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    wq = np.clip(np.round(w / ws.reshape(bshape)), -127, 127).astype(np.int8)
    return wq, ws, wq.astype(np.float64) * ws.reshape(bshape)


def bias(x_scale, ws):
    bs = (np.float32(x_scale) * ws).astype(np.float32)
    bq = np.round(rng.normal(0, 0.2, ws.size) / bs).astype(np.int32)
    dq = node("DequantizeLinear", [const("b", bq), const("b_scale", bs), const("b_zp", np.zeros(ws.size, np.int32))],
              axis=0)
    return dq, bq * bs.astype(np.float64)


def conv(x, cout, k, stride, pad):
    """DQ(int8 weights, per channel, axis 0) -> Conv -> Q -> DQ (not listed)."""
    x_name, x_val, x_scale = x
    cin = x_val.shape[1]
    wq, ws, wf = weights([cout, cin, k, k], cin * k * k, 0)
    wdq = node("DequantizeLinear", [const("w", wq), const("w_scale", ws), const("w_zp", np.zeros(cout, np.int8))],
               axis=0)
    bdq, b = bias(x_scale, ws)
    y = node("Conv", [x_name, wdq, bdq], kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4)
    return quantize(y, np_conv(x_val, wf, b, stride, pad), listed=False)


def conv_transpose(x, cout, k, stride, pad=0, out_pad=0, group=1, float_w=False, listed=True, float_listed=False):
    """DQ(int8 weights per output channel, axis 1) -> ConvTranspose (bias: int32 through DQ) -> Q -> DQ; with
    float_w a float initializer W instead (and a float initializer bias)."""
    x_name, x_val, x_scale = x
    cin, dims = x_val.shape[1], x_val.ndim - 2
    kshape = [k] * dims
    wq, ws, wf = weights([cin, cout // group] + kshape, cin // group * k ** dims // stride ** dims, 1)
    if group > 1:  # axis-1 scales would cover M/group channels only: one scale for the tensor instead
        ws = np.array(np.abs(wf).max() / 127.0, np.float32)
        wq = np.clip(np.round(wf / float(ws)), -127, 127).astype(np.int8)
        wf = wq.astype(np.float64) * float(ws)
    if float_w:
        w_name = const("wf", wf.astype(np.float32))
        b = rng.normal(0, 0.2, cout).astype(np.float32)
        b_name = const("bf", b)
        b = b.astype(np.float64)
    else:
        if ws.ndim == 0:
            w_name = node("DequantizeLinear", [const("w", wq), const("w_scale", ws), const("w_zp", np.array(0, np.int8))])
            b_name, b = bias(x_scale, np.full(cout, ws, np.float32))
        else:
            w_name = node("DequantizeLinear", [const("w", wq), const("w_scale", ws),
                                               const("w_zp", np.zeros(ws.size, np.int8))], axis=1)
            b_name, b = bias(x_scale, ws)
    attrs = dict(kernel_shape=kshape, strides=[stride] * dims, pads=[pad] * (2 * dims))
    if out_pad:
        attrs["output_padding"] = [out_pad] * dims
    if group > 1:
        attrs["group"] = group
    y = node("ConvTranspose", [x_name, w_name, b_name], **attrs)
    if float_listed:
        outputs.append(y)
    return quantize(y, np_conv_transpose(x_val, wf, b, stride, pad, out_pad, group), listed)


def pool_q(x):
    quantize(node("GlobalAveragePool", [x[0]]), x[1].mean(axis=tuple(range(2, x[1].ndim)), keepdims=True))


def main():
    out_dir = sys.argv[1]
    x_val = rng.random((1, 16, 32, 32)).astype(np.float32)
    x = quantize("input", x_val, listed=False)
    e1 = conv(x, 48, 3, 2, 1)  # 16 x 16
    e2 = conv(e1, 192, 3, 2, 1)  # 8 x 8, 192 channels
    up1 = conv_transpose(e2, 96, 2, 2, float_listed=True)  # K = 192 > 128 over 64 pixels: blocks of 128
    skip = node("Concat", [up1[0], e1[0]], axis=1)  # 144 channels of 16 x 16 (float: scales may differ)
    cat = (skip, np.concatenate([up1[1], e1[1]], axis=1), up1[2])
    up2 = conv_transpose(cat, 64, 4, 2, pad=1)  # 32 x 32, K = 144 over 256 pixels
    pool_q(conv_transpose(up2, 32, 3, 2, pad=1, out_pad=1, group=2, listed=False))  # 64 x 64, 2 groups
    conv_transpose(e2, 16, 2, 2, float_w=True, float_listed=True)  # constant float W: one K block
    row = node("Reshape", [e2[0], const("shape", np.array([1, 192, 64], np.int64))])
    conv_transpose((row, e2[1].reshape(1, 192, 64), e2[2]), 24, 4, 2, pad=1, float_listed=True)  # 1-D

    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16, 32, 32])]
    opsets = [helper.make_opsetid("", 17)]
    bare = helper.make_graph(nodes, "conv_transpose", inputs, [], inits)
    inferred = shape_inference.infer_shapes(helper.make_model(bare, opset_imports=opsets), strict_mode=True)
    infos = {v.name: v for v in inferred.graph.value_info}
    graph = helper.make_graph(nodes, "conv_transpose", inputs, [infos[o] for o in outputs], inits)
    m = helper.make_model(graph, opset_imports=opsets, producer_name="onyx-tests")
    m.ir_version = 8
    save(m, os.path.join(out_dir, "model.onnx"))
    os.makedirs(os.path.join(out_dir, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(out_dir, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x_val, "input").SerializeToString())


if __name__ == "__main__":
    main()
