#!/usr/bin/python3
"""Builds the quantized test models of tests/data/quant (Debian python3-onnx 1.12, numpy; fixed seeds).

  transformer_ort_fusions   two dynamically quantized layers of fixed shapes whose attention scale, residual
                     LayerNormalizations and GELU ONNX Runtime fuses at level all (checked with --ort-order on)
  transformer_dynamic.onnx  two encoder-like layers, every MatMul dynamically quantized as ORT's quantize_dynamic
                     writes it (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul [-> Add bias, either order],
                     per tensor and per column, 3-D and 2-D), joined by exactly computed float operators; references
                     at levels disabled and all (ONNX Runtime fuses the chains at all), only the layers' outputs listed.
  unet_dynamic.onnx  a dynamically quantized U-Net-like network, written the way ONNX Runtime's dynamic
                     quantization writes convolutions: DynamicQuantizeLinear -> ConvInteger (int8 weights) -> Cast ->
                     Mul by x_scale * w_scale (per tensor or per channel) -> Add bias, with Relu, dilated 3x3
                     convolutions, MaxPool, bilinear Resize (half_pixel and align_corners), Concat skips, and a
                     MatMulInteger head; 19 quantize steps, and 2 more on edge cases.
  qdq.onnx           a QDQ network: QuantizeLinear/DequantizeLinear (per tensor, per axis) around Conv, Relu,
                     MaxPool, Add, AveragePool (padding counted and not), GlobalAveragePool and MatMul, uint8 and int8
                     activations. References from ONNX Runtime at level disabled, and at extended (expected_all/: it
                     fuses DQ -> AveragePool -> Q into QLinearAveragePool, which differs by 1 in a few elements, as
                     onyx does; level all would also run the float AveragePool in its NCHWc kernel).
  float_ops*.onnx    the float operators between quantize steps (Resize linear/nearest in every coordinate mode,
                     AveragePool, GlobalAveragePool), every result an output, at opset 17 and 19 (ONNX Runtime sums
                     AveragePool-19 in another order).
  qdq_concat.onnx    DQ -> Concat -> Q groups, uint8 and int8, along the channels and spatial axes, with inputs
                     requantized and copied; references at levels disabled and all.
  float_heads.onnx   Flatten -> Gemm classifier heads with constant weights (as after a QDQ network's last
                     DequantizeLinear), summed in ONNX Runtime's order.
  qlinear.onnx       the QLinear operators themselves: QLinearConv (per-channel weights, int32 bias, grouped and
                     strided), QLinearMatMul, QuantizeLinear and DequantizeLinear.

Every model also lists the values of its quantization steps as graph outputs, so that ONNX Runtime's values for each
are recorded (tests/quant/ort_reference.mjs) and a divergence shows up where it starts.

usage: tests/quant/make_models.py [--all-intermediates] [OUT_DIR]
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save, shape_inference

OPSET = 17
# The intermediate values listed as outputs: those of the quantization operators themselves, whose values are fully
# specified, so they must match ONNX Runtime's bit for bit. With
# --all-intermediates every value is listed (to find the first divergent node, float ops included: Conv, Resize
# and pooling sum in an implementation-defined order).
QUANTIZE_STEPS = {"DynamicQuantizeLinear", "ConvInteger", "MatMulInteger", "QuantizeLinear", "DequantizeLinear",
                  "QLinearConv", "QLinearMatMul"}
ALL_INTERMEDIATES = False


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.outputs = [], [], []
        self.count = 0
        self.list_steps = True  # list the quantization steps' values as graph outputs

    def name(self, stem):
        self.count += 1
        return "%s_%d" % (stem, self.count)

    def const(self, stem, array):
        n = self.name(stem)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def node(self, op, inputs, n_out=1, stem=None, **attrs):
        outs = [self.name(stem or op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name("n_" + op), **attrs))
        if ALL_INTERMEDIATES or (self.list_steps and op in QUANTIZE_STEPS):
            self.outputs.extend(outs)
        return outs if n_out > 1 else outs[0]

    def model(self, graph_name, inputs, final, opset=OPSET):
        # The final outputs first, then the intermediate values (for the per-node comparison).
        # Their types come from ONNX's shape inference on the graph without outputs.
        names = list(final) + [o for o in self.outputs if o not in final]
        bare = helper.make_graph(self.nodes, graph_name, inputs, [], self.inits)
        opsets = [helper.make_opsetid("", opset)]
        inferred = shape_inference.infer_shapes(helper.make_model(bare, opset_imports=opsets), strict_mode=True)
        infos = {v.name: v for v in inferred.graph.value_info}
        graph = helper.make_graph(self.nodes, graph_name, inputs, [infos[n] for n in names], self.inits)
        m = helper.make_model(graph, opset_imports=opsets, producer_name="onyx-tests")
        m.ir_version = 8
        return m


# ---- the dynamically quantized U-Net ----

def dyn_conv(b, x, cin, cout, k=3, dilation=1, per_channel=False, relu=True, stride=1):
    """DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul(scale) -> Add(bias) [-> Relu], as ORT's tool writes."""
    w = b.rng.normal(0, 1.0 / np.sqrt(cin * k * k), (cout, cin, k, k)).astype(np.float32)
    bias = b.rng.normal(0, 0.1, (cout,)).astype(np.float32)
    if per_channel:
        w_scale = (np.abs(w).reshape(cout, -1).max(axis=1) / 127.0).astype(np.float32)
        wq = np.clip(np.rint(w / w_scale[:, None, None, None]), -127, 127).astype(np.int8)
        w_scale_name = b.const("w_scale", w_scale.reshape(1, cout, 1, 1))
    else:
        w_scale = np.float32(np.abs(w).max() / 127.0)
        wq = np.clip(np.rint(w / w_scale), -127, 127).astype(np.int8)
        w_scale_name = b.const("w_scale", np.array(w_scale, dtype=np.float32))
    xq, xs, xz = b.node("DynamicQuantizeLinear", [x], n_out=3, stem="dql")
    pad = dilation * (k - 1) // 2
    acc = b.node("ConvInteger", [xq, b.const("w", wq), xz, b.const("w_zp", np.array(0, dtype=np.int8))],
                 kernel_shape=[k, k], pads=[pad] * 4, dilations=[dilation] * 2, strides=[stride] * 2)
    f = b.node("Cast", [acc], to=TensorProto.FLOAT)
    scale = b.node("Mul", [xs, w_scale_name], stem="scale")
    y = b.node("Mul", [f, scale], stem="scaled")
    y = b.node("Add", [y, b.const("bias", bias.reshape(1, cout, 1, 1))], stem="biased")
    return b.node("Relu", [y]) if relu else y


def resize(b, x, mode_ct):
    roi = b.const("roi", np.array([], dtype=np.float32))
    scales = b.const("scales", np.array([1, 1, 2, 2], dtype=np.float32))
    return b.node("Resize", [x, roi, scales], mode="linear", coordinate_transformation_mode=mode_ct)


def unet_dynamic():
    b = Builder(16)
    x = "input"
    e1 = dyn_conv(b, x, 3, 16)
    e1 = dyn_conv(b, e1, 16, 16, per_channel=True)
    p1 = b.node("MaxPool", [e1], kernel_shape=[2, 2], strides=[2, 2])
    e2 = dyn_conv(b, p1, 16, 32)
    e2 = dyn_conv(b, e2, 32, 32, dilation=2)
    p2 = b.node("MaxPool", [e2], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    e3 = dyn_conv(b, p2, 32, 48, dilation=2, per_channel=True)
    e3 = dyn_conv(b, e3, 48, 48, dilation=4)
    e3 = dyn_conv(b, e3, 48, 48, dilation=2)
    p3 = b.node("MaxPool", [e3], kernel_shape=[2, 2], strides=[2, 2])
    mid = dyn_conv(b, p3, 48, 64)
    mid = dyn_conv(b, mid, 64, 64, dilation=2, per_channel=True)
    u3 = resize(b, mid, "half_pixel")
    u3 = dyn_conv(b, u3, 64, 48, k=1, relu=False)
    c3 = b.node("Concat", [u3, e3], axis=1)
    d3 = dyn_conv(b, c3, 96, 48)
    d3 = dyn_conv(b, d3, 48, 48, dilation=2)
    u2 = resize(b, d3, "align_corners")
    c2 = b.node("Concat", [u2, e2], axis=1)
    d2 = dyn_conv(b, c2, 80, 32, per_channel=True)
    d2 = dyn_conv(b, d2, 32, 32)
    u1 = resize(b, d2, "half_pixel")
    s1 = b.node("Add", [dyn_conv(b, u1, 32, 16, k=1, relu=False), e1])  # a residual skip
    d1 = dyn_conv(b, s1, 16, 16)
    d1 = dyn_conv(b, d1, 16, 16, dilation=3)
    seg = dyn_conv(b, d1, 16, 5, k=1, relu=False)
    # A classification head through MatMulInteger (as ORT's tool writes dynamically quantized MatMuls).
    pooled = b.node("GlobalAveragePool", [mid])
    flat = b.node("Flatten", [pooled], axis=1)
    hq, hs, hz = b.node("DynamicQuantizeLinear", [flat], n_out=3, stem="dql")
    wh = b.rng.normal(0, 0.125, (64, 10)).astype(np.float32)
    whs = np.float32(np.abs(wh).max() / 127.0)
    acc = b.node("MatMulInteger", [hq, b.const("wh", np.clip(np.rint(wh / whs), -127, 127).astype(np.int8)), hz,
                                   b.const("wh_zp", np.array(0, dtype=np.int8))])
    scale = b.node("Mul", [hs, b.const("wh_scale", np.array(whs, dtype=np.float32))], stem="scale")
    logits = b.node("Add", [b.node("Mul", [b.node("Cast", [acc], to=TensorProto.FLOAT), scale]),
                            b.const("bh", b.rng.normal(0, 0.1, (10,)).astype(np.float32))])
    # DynamicQuantizeLinear's edge cases: an all-zero tensor (ONNX Runtime gives scale 1, not 0) and an all-negative
    # one (zero point 255).
    b.node("DynamicQuantizeLinear", [b.node("Mul", [x, b.const("zero", np.array(0, np.float32))])], n_out=3,
           stem="dql")
    b.node("DynamicQuantizeLinear", [b.node("Neg", [b.node("Abs", [x])])], n_out=3, stem="dql")
    inp = helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 3, 32, 32])
    return b.model("unet_dynamic", [inp], [seg, logits])


# ---- a dynamically quantized transformer-like encoder ----

def dyn_matmul(b, x, k, n, bias="second", per_column=False, w_zero_point=True):
    """DynamicQuantizeLinear -> MatMulInteger(int8 W) -> Cast -> Mul(x_scale * w_scale) [-> Add(bias)], as ORT's
    quantize_dynamic writes a MatMul (bias "first" puts it first in the Add, as PyTorch exports write it)."""
    w = b.rng.normal(0, 1.0 / np.sqrt(k), (k, n)).astype(np.float32)
    if per_column:
        w_scale = (np.abs(w).max(axis=0) / 127.0).astype(np.float32)
        w_scale_name = b.const("w_scale", w_scale)
    else:
        w_scale = np.float32(np.abs(w).max() / 127.0)
        w_scale_name = b.const("w_scale", np.array(w_scale, dtype=np.float32))
    wq = np.clip(np.rint(w / w_scale), -127, 127).astype(np.int8)
    xq, xs, xz = b.node("DynamicQuantizeLinear", [x], n_out=3, stem="dql")
    inputs = [xq, b.const("w", wq), xz]
    if w_zero_point:
        inputs.append(b.const("w_zp", np.array(0, dtype=np.int8)))
    acc = b.node("MatMulInteger", inputs)
    f = b.node("Cast", [acc], to=TensorProto.FLOAT)
    y = b.node("Mul", [f, b.node("Mul", [xs, w_scale_name], stem="scale")], stem="scaled")
    if bias == "none":
        return y
    c = b.const("bias", b.rng.normal(0, 0.1, (n,)).astype(np.float32))
    return b.node("Add", [c, y] if bias == "first" else [y, c], stem="biased")


def transformer_dynamic():
    """Two encoder-like layers whose every MatMul is dynamically quantized (the chains onyx and ONNX Runtime fuse at
    level extended into MatMulIntegerToFloat / DynamicQuantizeMatMul), joined by float operators that both compute
    exactly (Slice, Mul, Add, Relu, Reshape), so that the outputs at level all check the fused kernels bit for bit.
    Only the layers' outputs are graph outputs: a listed MatMulInteger result would keep its chain unfused."""
    b = Builder(21)
    b.list_steps = False
    seq, hidden = 16, 64
    x = "input"
    layers = []
    for layer in range(2):
        qkv = dyn_matmul(b, x, hidden, 3 * hidden, bias="first")
        part = [b.node("Slice", [qkv, b.const("start", np.array([i * hidden], np.int64)),
                                 b.const("end", np.array([(i + 1) * hidden], np.int64)),
                                 b.const("axis", np.array([2], np.int64))]) for i in range(3)]
        mix = b.node("Relu", [b.node("Add", [b.node("Mul", [part[0], part[1]]), part[2]])])
        proj = dyn_matmul(b, mix, hidden, hidden, bias="second", per_column=True)
        x1 = b.node("Add", [x, proj], stem="residual")
        if layer == 1:  # a 2-D product: [seq, hidden] through Reshape
            x1 = b.node("Reshape", [x1, b.const("shape", np.array([seq, hidden], np.int64))])
        ff = b.node("Relu", [dyn_matmul(b, x1, hidden, 2 * hidden, bias="second", w_zero_point=layer == 0)])
        ff2 = dyn_matmul(b, ff, 2 * hidden, hidden, bias="none" if layer == 1 else "first")
        x = b.node("Add", [x1, ff2], stem="residual")
        if layer == 1:
            x = b.node("Reshape", [x, b.const("shape", np.array([1, seq, hidden], np.int64))])
        layers.append(x)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, seq, hidden])
    return b.model("transformer_dynamic", [inp], layers[::-1])


def layer_norm(b, x, hidden):
    """LayerNormalization as exporters write it before opset 17 (ReduceMean, Sub, Pow, Sqrt, Div, Mul, Add)."""
    mean = b.node("ReduceMean", [x], axes=[-1])
    d = b.node("Sub", [x, mean])
    var = b.node("ReduceMean", [b.node("Pow", [d, b.const("two", np.array(2.0, np.float32))])], axes=[-1])
    std = b.node("Sqrt", [b.node("Add", [var, b.const("eps", np.array(1e-5, np.float32))])])
    gamma = b.const("gamma", (1 + 0.2 * b.rng.standard_normal(hidden)).astype(np.float32))
    beta = b.const("beta", (0.1 * b.rng.standard_normal(hidden)).astype(np.float32))
    return b.node("Add", [b.node("Mul", [b.node("Div", [d, std]), gamma]), beta])


def transformer_ort_fusions():
    """A dynamically quantized encoder of fixed shapes whose float parts ONNX Runtime's level-all optimizer fuses into
    operators that compute differently from the unfused graph: attention scores divided by sqrt(24) (FusedMatMul with
    alpha, a factor not a power of two), residual Add + LayerNormalization (SkipLayerNormalization), the erf GELU
    (com.microsoft Gelu), the quantized MatMuls (DynamicQuantizeMatMul). onyx computes its level-all bytes when asked
    for ONNX Runtime's order (marker ort_order_all: `--ort-order on`, OptimizerOptions::ort_fusions). No Softmax: its
    MLAS lanes differ between AVX2 and AVX-512 CPUs; no GELU input of the committed case has x / sqrt(2) or
    x * 0.70710677 at MLAS erf's split point 0.921875 (checked), where its AVX-512F and FMA3 kernels part ways."""
    b = Builder(23)
    b.list_steps = False
    seq, hidden, heads, head = 16, 96, 4, 24
    x = "input"
    for _ in range(2):
        qkv = dyn_matmul(b, x, hidden, 3 * hidden, bias="first")
        split = [b.node("Slice", [qkv, b.const("start", np.array([i * hidden], np.int64)),
                                  b.const("end", np.array([(i + 1) * hidden], np.int64)),
                                  b.const("axis", np.array([2], np.int64))]) for i in range(3)]
        shape4 = b.const("heads", np.array([1, seq, heads, head], np.int64))
        q, k, v = [b.node("Transpose", [b.node("Reshape", [t, shape4])], perm=[0, 2, 1, 3]) for t in split]
        scores = b.node("MatMul", [q, b.node("Transpose", [k], perm=[0, 1, 3, 2])])
        scaled = b.node("Div", [scores, b.const("sqrt_head", np.array(np.sqrt(head), np.float32))])
        context = b.node("Transpose", [b.node("MatMul", [scaled, v])], perm=[0, 2, 1, 3])
        merged = b.node("Reshape", [context, b.const("merged", np.array([1, seq, hidden], np.int64))])
        attn = dyn_matmul(b, merged, hidden, hidden, bias="second", per_column=True)
        x1 = layer_norm(b, b.node("Add", [x, attn], stem="residual"), hidden)
        h = dyn_matmul(b, x1, hidden, 2 * hidden, bias="second")
        erf = b.node("Erf", [b.node("Div", [h, b.const("sqrt2", np.array(1.4142135, np.float32))])])
        gelu = b.node("Mul", [b.node("Mul", [h, b.node("Add", [erf, b.const("one", np.array(1.0, np.float32))])]),
                              b.const("half", np.array(0.5, np.float32))])
        ff = dyn_matmul(b, gelu, 2 * hidden, hidden, bias="first")
        x = layer_norm(b, b.node("Add", [x1, ff], stem="residual"), hidden)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, seq, hidden])
    return b.model("transformer_ort_fusions", [inp], [x], opset=13)


# ---- QDQ ----

def qdq(b, x, scale, zp):
    """QuantizeLinear then DequantizeLinear with per-tensor parameters; zp's dtype picks uint8 or int8."""
    s = b.const("s", np.array(scale, dtype=np.float32))
    z = b.const("zp", zp)
    q = b.node("QuantizeLinear", [x, s, z], stem="q")
    return b.node("DequantizeLinear", [q, s, z], stem="dq")


def qdq_weight(b, w, axis=0, per_tensor=False):
    """Per-axis (or per-tensor) symmetric int8 weights, stored quantized and dequantized in the graph."""
    if per_tensor:
        scale = np.array(np.abs(w).max() / 127.0, dtype=np.float32)
        wq = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        return b.node("DequantizeLinear", [b.const("wq", wq), b.const("ws", scale),
                                           b.const("wz", np.array(0, dtype=np.int8))], stem="w")
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    scale = (np.abs(moved).max(axis=1) / 127.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    wq = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return b.node("DequantizeLinear", [b.const("wq", wq), b.const("ws", scale),
                                       b.const("wz", np.zeros_like(scale, dtype=np.int8))], axis=axis, stem="w")


def qdq_conv(b, x, x_scale, cin, cout, k=3, stride=1, group=1, per_tensor=False):
    w = b.rng.normal(0, 1.0 / np.sqrt(cin / group * k * k), (cout, cin // group, k, k)).astype(np.float32)
    bias = b.rng.normal(0, 0.1, (cout,)).astype(np.float32)
    wd = qdq_weight(b, w, per_tensor=per_tensor)
    # Bias as int32 at scale x_scale * w_scale[m], as QDQ tools store it.
    w_scale = np.abs(w).reshape(cout, -1).max(axis=1) / 127.0
    if per_tensor:
        w_scale = np.full(cout, np.float32(np.abs(w).max() / 127.0))
    b_scale = (np.float32(x_scale) * w_scale).astype(np.float32)
    bq = np.rint(bias / b_scale).astype(np.int32)
    bd = b.node("DequantizeLinear", [b.const("bq", bq), b.const("bs", b_scale)], axis=0, stem="b")
    return b.node("Conv", [x, wd, bd], kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2, group=group)


def qdq_model():
    b = Builder(17)
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    i8 = lambda v: np.array(v, dtype=np.int8)  # noqa: E731
    x = qdq(b, "input", 0.02, u8(128))
    y = b.node("Relu", [qdq_conv(b, x, 0.02, 3, 16)])
    y = qdq(b, y, 0.015, u8(0))
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
    y = qdq(b, y, 0.015, u8(0))
    r = y
    y = b.node("Relu", [qdq_conv(b, y, 0.015, 16, 16)])
    y = qdq(b, y, 0.01, u8(0))
    y = qdq_conv(b, y, 0.01, 16, 16, group=4)
    y = qdq(b, y, 0.02, i8(3))
    y = qdq(b, b.node("Add", [y, r]), 0.025, i8(-5))
    y = b.node("Relu", [y])
    # AveragePool 3x3 / 2 with padding, counting the padding and not: ONNX Runtime's float summation order matters.
    y = qdq(b, b.node("AveragePool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                      count_include_pad=1), 0.01, u8(0))
    y = qdq(b, b.node("MaxPool", [y], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]), 0.01, u8(0))
    y = qdq(b, qdq_conv(b, y, 0.01, 16, 32, stride=2), 0.03, u8(120))
    y = qdq(b, b.node("AveragePool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), 0.02, u8(120))
    y = qdq(b, b.node("GlobalAveragePool", [y]), 0.004, u8(100))
    y = b.node("Flatten", [y], axis=1)
    w = b.rng.normal(0, 0.2, (32, 10)).astype(np.float32)
    y = qdq(b, b.node("MatMul", [y, qdq_weight(b, w, axis=1)]), 0.05, u8(128))
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])
    return b.model("qdq", [inp], [y])


def qdq_fused_model():
    """Only QDQ groups that onyx fuses like ONNX Runtime (src/optimizer/qdq_fusion.cc): Conv (per tensor and per
    channel, uint8 and int8 activations, depthwise, grouped, strided, 1x1) with a redundant Relu or Clip, a Conv whose
    Relu the Q does not make redundant (left in float by both), MaxPool/Transpose/Reshape/Flatten between equal Q and
    DQ (run on 8-bit data), MatMul with per-column and per-tensor weights. ONNX Runtime 1.30's x86-64 CPU build has no
    int8 x int8 Conv/MatMul; it turns int8 Q -> DQ pairs into uint8 first, but not where the Q's value is a graph
    output, as every quantization step of this model is (list_steps): so the int8 branch checks that onyx leaves
    those groups unfused too (its Flatten still drops to int8). qdq_s8_gemm has the converted pairs."""
    b = Builder(23)
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    i8 = lambda v: np.array(v, dtype=np.int8)  # noqa: E731
    x = qdq(b, "input", 0.02, u8(128))
    y = qdq(b, b.node("Relu", [qdq_conv(b, x, 0.02, 3, 16)]), 0.015, u8(0))  # Relu made redundant by zp 0
    y = qdq(b, b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2]), 0.015, u8(0))
    # A residual block: Add with a redundant Relu, then an Add whose output zero point is not 0.
    r = y
    t = qdq(b, b.node("Relu", [qdq_conv(b, y, 0.015, 16, 16)]), 0.02, u8(0))
    y = qdq(b, b.node("Relu", [b.node("Add", [t, r])]), 0.03, u8(0))
    y = qdq(b, b.node("Add", [y, t]), 0.035, u8(37))
    y = qdq(b, b.node("Relu", [y]), 0.035, u8(37))  # not fused (Relu is no QDQ target); stays float
    # Long sums (144 and 576 products) where the float path's rounding moves a few results across a rounding
    # boundary: ONNX Runtime's fused and unfused outputs differ there, so the comparison tells them apart.
    y = qdq(b, qdq_conv(b, y, 0.035, 16, 64), 0.02, u8(120))
    y = qdq(b, qdq_conv(b, y, 0.02, 64, 64, per_tensor=True), 0.1, u8(120))
    # Exact ties: weights scaled by 2^-7 and y_scale = 2 * x_scale * w_scale make the integer result acc / 2, so odd
    # accumulators are ties (rounded to even), which the float path's rounding errors push either way.
    wt = b.rng.integers(-1, 2, (64, 64, 1, 1)).astype(np.int8)
    wts = np.float32(2.0 ** -7)
    wtd = b.node("DequantizeLinear", [b.const("wq", wt), b.const("ws", np.array(wts)),
                                      b.const("wz", np.array(0, np.int8))], stem="w")
    y = qdq(b, b.node("Conv", [y, wtd]), np.float32(2) * np.float32(0.1) * wts, u8(128))
    y = qdq(b, qdq_conv(b, y, np.float32(2) * np.float32(0.1) * wts, 64, 64, k=1), 0.025, u8(125))
    y = qdq(b, qdq_conv(b, y, 0.025, 64, 64, stride=2, group=64), 0.02, u8(131))  # depthwise, stride 2
    clip_lo, clip_hi = b.const("lo", np.array(0, np.float32)), b.const("hi", np.array(6, np.float32))
    y = qdq(b, b.node("Clip", [qdq_conv(b, y, 0.02, 64, 24, k=1), clip_lo, clip_hi]), 6 / 255, u8(0))
    y = qdq(b, qdq_conv(b, y, 6 / 255, 24, 24, group=4, per_tensor=True), 0.03, u8(100))
    y = qdq(b, b.node("Relu", [qdq_conv(b, y, 0.03, 24, 16)]), 0.01, u8(10))  # not redundant: stays float
    # GlobalAveragePool, and Adds broadcasting per channel and a quantized scalar constant.
    g = qdq(b, b.node("GlobalAveragePool", [y]), 0.004, u8(3))
    gy = qdq(b, b.node("Add", [y, g]), 0.012, u8(9))
    one = b.node("DequantizeLinear", [b.const("c", u8(200)), b.const("cs", np.array(0.003, np.float32)),
                                      b.const("cz", u8(50))], stem="dqc")
    gy = qdq(b, b.node("Add", [one, gy]), 0.013, u8(4))
    y = qdq(b, b.node("Transpose", [y], perm=[0, 1, 3, 2]), 0.01, u8(10))
    y = qdq(b, b.node("Reshape", [y, b.const("shape", np.array([1, -1], np.int64))]), 0.01, u8(10))
    w = b.rng.normal(0, 0.05, (16 * 6 * 6, 10)).astype(np.float32)
    y = qdq(b, b.node("MatMul", [y, qdq_weight(b, w, axis=1)]), 0.05, u8(128))
    # int8 activations.
    z = qdq(b, "input", 0.02, i8(-3))
    z = qdq(b, qdq_conv(b, z, 0.02, 3, 8, stride=2), 0.02, i8(5))
    z = qdq(b, b.node("Flatten", [z], axis=1), 0.02, i8(5))
    w = b.rng.normal(0, 0.03, (8 * 12 * 12, 6)).astype(np.float32)
    z = qdq(b, b.node("MatMul", [z, qdq_weight(b, w, per_tensor=True)]), 0.04, i8(0))
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 24, 24])
    return b.model("qdq_fused", [inp], [y, z])


def qdq_gemm(b, x, x_scale, k, n, trans_b=True):
    """Gemm of a DQ'd activation [M, k] by per-tensor int8 weights and an int32 bias at x_scale * w_scale."""
    w = b.rng.normal(0, 1.0 / np.sqrt(k), (n, k) if trans_b else (k, n)).astype(np.float32)
    w_scale = np.float32(np.abs(w).max() / 127.0)
    wd = qdq_weight(b, w, per_tensor=True)
    bq = np.rint(b.rng.normal(0, 0.1, (n,)) / (np.float32(x_scale) * w_scale)).astype(np.int32)
    bd = b.node("DequantizeLinear", [b.const("bq", bq), b.const("bs", np.array(np.float32(x_scale) * w_scale))],
                stem="b")
    return b.node("Gemm", [x, wd, bd], transB=int(trans_b))


def qdq_s8_gemm_model():
    """int8 QDQ activations and Gemm groups as ONNX Runtime 1.30's x86-64 build treats them: an int8 Q -> DQ pair whose
    DQ has one reader becomes uint8 (QDQS8ToU8Transformer), so its groups fuse as uint8 x int8 ones; an int8 value read
    by two DQ readers stays int8 (its convolution in float); Gemm groups become com.microsoft.QGemm, with a float result
    when no Q follows, with a Q, with a Relu that Q makes redundant, and with int8 activations read twice (int8 x
    int8). Only the final values are outputs: listing the Q/DQ values would change which groups fuse."""
    b = Builder(29)
    b.list_steps = False
    i8 = lambda v: np.array(v, dtype=np.int8)  # noqa: E731
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    x = qdq(b, "input", 0.02, i8(-3))  # -> uint8
    y = qdq(b, b.node("Relu", [qdq_conv(b, x, 0.02, 3, 8, stride=2)]), 0.015, i8(-128))  # Relu redundant (zp -128)
    # An int8 value read by two convolutions: ONNX Runtime duplicates the DQ, the Q keeps int8, both convs stay float.
    shared = qdq(b, qdq_conv(b, y, 0.015, 8, 8), 0.03, i8(4))
    p = qdq(b, qdq_conv(b, shared, 0.03, 8, 8, k=1), 0.03, i8(2))
    r = qdq(b, b.node("Add", [p, shared]), 0.04, i8(1))
    f = qdq(b, b.node("Flatten", [r], axis=1), 0.04, i8(1))  # -> uint8
    out_float = qdq_gemm(b, f, 0.04, 8 * 6 * 6, 10)  # float result
    f2 = qdq(b, b.node("Flatten", [shared], axis=1), 0.03, i8(4))  # -> uint8
    # Exact ties (as in qdq_fused): weights in {-1, 0, 1} at scale 2^-7 and y_scale = 2 * x_scale * w_scale make the
    # result acc / 2, which the fused QGemm rounds to even and the float path's rounding pushes either way.
    wt = b.rng.integers(-1, 2, (8 * 6 * 6, 12)).astype(np.int8)
    wts = np.float32(2.0 ** -7)
    wtd = b.node("DequantizeLinear", [b.const("wq", wt), b.const("ws", np.array(wts)),
                                      b.const("wz", np.array(0, np.int8))], stem="w")
    g = qdq(b, b.node("Gemm", [f2, wtd]), np.float32(2) * np.float32(0.03) * wts, i8(-7))  # Q -> uint8
    h = qdq(b, b.node("Relu", [qdq_gemm(b, g, 0.05, 12, 12)]), 0.02, i8(-128))  # redundant Relu
    w = b.rng.normal(0, 0.3, (12, 4)).astype(np.float32)
    out_u8 = qdq(b, b.node("Gemm", [h, qdq_weight(b, w, axis=1)]), 0.1, u8(128))  # per-column weights
    # int8 activations read by a Gemm and a Relu: int8 x int8 QGemm.
    t = qdq(b, b.node("Flatten", [p], axis=1), 0.03, i8(2))
    out_s8 = qdq_gemm(b, t, 0.03, 8 * 6 * 6, 5)
    out_relu = b.node("Relu", [t])
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 12, 12])
    return b.model("qdq_s8_gemm", [inp], [out_float, out_s8, out_relu, out_u8])


def qdq_stem_model():
    """Convolutions with an odd number of input channels and several taps (an RGB stem, a 5-channel 3x3): on CPUs whose
    uint8 x int8 products add in saturating int16 pairs, MLAS runs them as an im2col in (kh, kw, c) order, pairing
    across taps; full-range weights and inputs reaching 190 make pairs saturate, so the sums depend on that pairing.
    ONNX Runtime's references come from such a CPU (AMD EPYC, AVX2): with VNNI both engines are exact and agree
    anyway."""
    b = Builder(31)
    b.list_steps = False
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731

    def full_range_conv(x, x_scale, cin, cout, stride):
        w = b.rng.normal(0, 1.0, (cout, cin, 3, 3)).astype(np.float32)
        scale = (np.abs(w).reshape(cout, -1).max(axis=1) / 127.0).astype(np.float32)
        wq = np.clip(np.rint(w / scale.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
        wd = b.node("DequantizeLinear", [b.const("wq", wq), b.const("ws", scale),
                                         b.const("wz", np.zeros(cout, np.int8))], axis=0, stem="w")
        bq = b.rng.integers(-2000, 2000, cout).astype(np.int32)
        bd = b.node("DequantizeLinear", [b.const("bq", bq), b.const("bs", (np.float32(x_scale) * scale))], axis=0,
                    stem="b")
        return b.node("Conv", [x, wd, bd], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride])

    x = qdq(b, "input", 0.008, u8(0))
    y = qdq(b, b.node("Relu", [full_range_conv(x, 0.008, 3, 16, 2)]), 0.05, u8(0))
    y = qdq(b, full_range_conv(y, 0.05, 16, 5, 1), 0.08, u8(0))  # 5 channels out, then a 5-channel 3x3 in
    y = qdq(b, full_range_conv(y, 0.08, 5, 8, 1), 0.1, u8(128))
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])
    return b.model("qdq_stem", [inp], [y])


def qdq_concat_model():
    """DQ -> Concat -> Q groups (ONNX Runtime turns them into com.microsoft QLinearConcat, onyx into
    ai.onyx.internal.QLinearConcat), uint8 and int8: inputs with their own scales and zero points (requantized
    through a table), one with the output's (copied), along the channels between fused convolutions (kept channels
    last by onyx's layout pass) and along the spatial axes, one with a Relu the Q makes redundant, and an input DQ
    that other nodes read too."""
    b = Builder(29)
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    i8 = lambda v: np.array(v, dtype=np.int8)  # noqa: E731
    x = qdq(b, "input", 0.02, u8(128))
    a = qdq(b, b.node("Relu", [qdq_conv(b, x, 0.02, 3, 8, k=1)]), 0.015, u8(0))
    c = qdq(b, qdq_conv(b, x, 0.02, 3, 8), 0.03, u8(100))
    cat = qdq(b, b.node("Concat", [a, c, x], axis=1), 0.03, u8(100))  # c copied, a and x through tables
    y = qdq(b, qdq_conv(b, cat, 0.03, 19, 8, k=1), 0.05, u8(120))
    # Exact ties (as in qdq_fused): the fused convolution rounds them to even, the float path either way, so the
    # outputs at level all show whether onyx fused the graph at all.
    wt = b.rng.integers(-1, 2, (16, 19, 1, 1)).astype(np.int8)
    wts = np.float32(2.0 ** -7)
    wtd = b.node("DequantizeLinear", [b.const("wq", wt), b.const("ws", np.array(wts)),
                                      b.const("wz", np.array(0, np.int8))], stem="w")
    t = qdq(b, b.node("Conv", [cat, wtd]), np.float32(2) * np.float32(0.03) * wts, u8(128))
    w = qdq(b, b.node("Concat", [a, c], axis=-1), 0.02, u8(90))  # along the width
    r = qdq(b, b.node("Relu", [b.node("Concat", [a, c], axis=1)]), 0.02, u8(0))  # Relu made redundant by zp 0
    # Values not listed as outputs, so that onyx's layout pass keeps conv -> concat -> conv channels last.
    b.list_steps = False
    p1 = qdq(b, b.node("Relu", [qdq_conv(b, x, 0.02, 3, 8, k=1)]), 0.012, u8(0))
    p2 = qdq(b, qdq_conv(b, x, 0.02, 3, 4), 0.04, u8(60))
    pc = qdq(b, b.node("Concat", [p1, p2], axis=1), 0.04, u8(60))
    pc = qdq(b, qdq_conv(b, pc, 0.04, 12, 8, k=1), 0.05, u8(128))
    b.list_steps = True
    z = qdq(b, "input", 0.02, i8(-3))
    z2 = qdq(b, b.node("Relu", [z]), 0.01, i8(-128))  # ORT drops this Relu (the Q's zp -128 makes it moot)
    z3 = qdq(b, b.node("MaxPool", [z], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), 0.02, i8(-3))
    zc = qdq(b, b.node("Concat", [z, z2, z3], axis=1), 0.025, i8(5))
    zh = qdq(b, b.node("Concat", [z, z2], axis=2), 0.01, i8(-128))  # z2 copied
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 12, 12])
    return b.model("qdq_concat", [inp], [y, t, w, r, pc, zc, zh])


# ---- the float operators between quantize steps ----

def float_ops_model(opset):
    """Resize (linear and nearest, every coordinate mode, scales and sizes), AveragePool (the vector and the generic
    summation orders, padding counted or not) and GlobalAveragePool on odd sizes, every result an output: their
    values feed quantize steps, so they must be ONNX Runtime's to the bit."""
    b = Builder(19)
    x = "input"
    modes = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"]
    if opset >= 19:
        modes.append("half_pixel_symmetric")  # new in Resize-19
    empty = b.const("roi", np.array([], dtype=np.float32))
    outs = []
    for mode_ct in modes:
        # align_corners only where scale * length is whole: elsewhere ONNX Runtime divides by the integer output
        # length and the ONNX specification (which onyx follows there) by the real one.
        all_scales = ([1, 1, 2, 2], [1, 1, 1.7, 0.6], [1, 1, 0.5, 3])
        for scales in all_scales[:1] if mode_ct == "align_corners" else all_scales:
            outs.append(b.node("Resize", [x, empty, b.const("scales", np.array(scales, np.float32))], mode="linear",
                               coordinate_transformation_mode=mode_ct))
        outs.append(b.node("Resize", [x, empty, "", b.const("sizes", np.array([1, 3, 29, 11], np.int64))],
                           mode="linear", coordinate_transformation_mode=mode_ct))
    for mode_ct in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"):
        for nearest in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
            scales = [1, 1, 3, 2] if mode_ct == "align_corners" else [1, 1, 3, 0.7]
            outs.append(b.node("Resize", [x, empty, b.const("scales", np.array(scales, np.float32))],
                               mode="nearest", coordinate_transformation_mode=mode_ct, nearest_mode=nearest))
    for include in (0, 1):
        outs.append(b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                           count_include_pad=include))
        outs.append(b.node("AveragePool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
                           count_include_pad=include))
        outs.append(b.node("AveragePool", [x], kernel_shape=[5, 4], strides=[3, 3], pads=[2, 1, 2, 1],
                           count_include_pad=include))
    outs.append(b.node("AveragePool", [x], kernel_shape=[2, 2], strides=[2, 2]))
    outs.append(b.node("AveragePool", [x], kernel_shape=[17, 23]))
    outs.append(b.node("GlobalAveragePool", [x]))
    outs.append(b.node("GlobalAveragePool", [b.node("Slice", [x, b.const("st", np.array([0, 0], np.int64)),
                                                              b.const("en", np.array([4, 4], np.int64)),
                                                              b.const("ax", np.array([2, 3], np.int64))])]))
    inp = helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 3, 17, 23])
    b.outputs = []
    return b.model("float_ops", [inp], outs, opset=opset)


def float_heads_model():
    """Classifier heads after the last DequantizeLinear: Flatten -> Gemm with a constant weight (PyTorch's Linear:
    transB=1 and a bias; also B as stored, a [1, N] bias, and no bias), K = 600 so that the sums cross ONNX Runtime's
    256-long K slices twice and end in a partial one. ONNX Runtime computes them with the packed-B order that onyx
    reproduces (kernels/sgemm_row.h), so every logit must match to the bit."""
    b = Builder(23)
    flat = b.node("Flatten", ["input"], axis=1)
    k = 600
    outs = []
    w = b.rng.normal(0, 0.05, (37, k)).astype(np.float32)
    outs.append(b.node("Gemm", [flat, b.const("w", w), b.const("bias", b.rng.normal(0, 1, 37).astype(np.float32))],
                       transB=1))
    w = b.rng.normal(0, 0.05, (k, 20)).astype(np.float32)
    outs.append(b.node("Gemm", [flat, b.const("w", w), b.const("bias", b.rng.normal(0, 1, (1, 20)).astype(np.float32))]))
    w = b.rng.normal(0, 0.05, (9, k)).astype(np.float32)
    outs.append(b.node("Gemm", [flat, b.const("w", w)], transB=1))
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 25])
    b.outputs = []
    return b.model("float_heads", [inp], outs)


# ---- QLinear operators ----

def qlinear_conv(b, x, xs, xz, cin, cout, ys, yz, k=3, stride=1, group=1, per_channel=True):
    w = b.rng.normal(0, 1.0 / np.sqrt(cin / group * k * k), (cout, cin // group, k, k)).astype(np.float32)
    if per_channel:
        w_scale = (np.abs(w).reshape(cout, -1).max(axis=1) / 127.0).astype(np.float32)
        wq = np.clip(np.rint(w / w_scale[:, None, None, None]), -127, 127).astype(np.int8)
        wz = np.zeros(cout, dtype=np.int8)
    else:
        w_scale = np.array(np.abs(w).max() / 127.0, dtype=np.float32)
        wq = np.clip(np.rint(w / w_scale), -127, 127).astype(np.int8)
        wz = np.array(0, dtype=np.int8)
    bias = np.rint(b.rng.normal(0, 0.1, (cout,)) / (xs * np.broadcast_to(w_scale, (cout,)))).astype(np.int32)
    return b.node("QLinearConv", [x, b.const("xs", np.array(xs, np.float32)), b.const("xz", xz), b.const("w", wq),
                                  b.const("ws", w_scale), b.const("wz", wz), b.const("ys", np.array(ys, np.float32)),
                                  b.const("yz", yz), b.const("bias", bias)],
                  kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2, group=group)


def qlinear_stem_model():
    """qdq_stem's point for QLinearConv nodes as given (QOperator format, the channels-first kernel at every level): an
    RGB stem and a 5-channel 3x3 with weights spread over the whole int8 range on inputs reaching 255, pairs saturating
    where MLAS pairs across taps."""
    b = Builder(37)
    b.list_steps = False
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731

    def conv(x, xs, cin, cout, ys, yz, stride):
        wq = b.rng.integers(-127, 128, (cout, cin, 3, 3)).astype(np.int8)
        w_scale = np.full(cout, 0.002, np.float32)
        bias = b.rng.integers(-3000, 3000, cout).astype(np.int32)
        return b.node("QLinearConv", [x, b.const("xs", np.array(xs, np.float32)), b.const("xz", u8(0)),
                                      b.const("w", wq), b.const("ws", w_scale), b.const("wz", np.zeros(cout, np.int8)),
                                      b.const("ys", np.array(ys, np.float32)), b.const("yz", yz),
                                      b.const("bias", bias)],
                      kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride])

    s = b.const("s", np.array(0.004, np.float32))
    q = b.node("QuantizeLinear", ["input", s, b.const("z", u8(0))], stem="q")
    y = conv(q, 0.004, 3, 5, 0.02, u8(0), 2)
    y = conv(y, 0.02, 5, 8, 0.4, u8(128), 1)
    out = b.node("DequantizeLinear", [y, b.const("s", np.array(0.4, np.float32)), b.const("z", u8(128))])
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])
    return b.model("qlinear_stem", [inp], [out])


def qlinear_model():
    b = Builder(18)
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    x = b.node("QuantizeLinear", ["input", b.const("s", np.array(0.017, np.float32)), b.const("z", u8(131))])
    y = qlinear_conv(b, x, 0.017, u8(131), 3, 24, 0.013, u8(7))
    y = qlinear_conv(b, y, 0.013, u8(7), 24, 24, 0.011, u8(60), group=3, stride=2)
    y = qlinear_conv(b, y, 0.011, u8(60), 24, 40, 0.02, u8(128), k=1, per_channel=False)
    y = qlinear_conv(b, y, 0.02, u8(128), 40, 40, 0.009, u8(0), k=5, group=40)
    flat = b.node("Reshape", [y, b.const("shape", np.array([40, -1], np.int64))])
    wm = b.rng.normal(0, 0.05, (flat_cols := 16 * 16, 12)).astype(np.float32)
    wms = np.float32(np.abs(wm).max() / 127.0)
    wmq = np.clip(np.rint(wm / wms), -127, 127).astype(np.int8)
    mm = b.node("QLinearMatMul", [flat, b.const("as", np.array(0.009, np.float32)), b.const("az", u8(0)),
                                  b.const("b", wmq), b.const("bs", np.array(wms, np.float32)),
                                  b.const("bz", np.array(0, np.int8)), b.const("ys", np.array(0.03, np.float32)),
                                  b.const("yz", u8(125))])
    assert flat_cols == 256
    out = b.node("DequantizeLinear", [mm, b.const("s", np.array(0.03, np.float32)), b.const("z", u8(125))])
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])
    return b.model("qlinear", [inp], [out])


def qlinear_u8u8_conv(b, x, xs, xz, cin, cout, ys, yz, k=3, stride=1, group=1, per_channel=False):
    """QLinearConv with uint8 weights and non-zero weight zero points (ONNX Runtime's older QUInt8 weights, TFLite's
    uint8 models): raw weights over the whole byte range around zero points near 128."""
    w = b.rng.integers(0, 256, (cout, cin // group, k, k)).astype(np.uint8)
    wz = (b.rng.integers(110, 150, (cout,)) if per_channel else np.array(b.rng.integers(110, 150))).astype(np.uint8)
    w_scale = (np.full(cout, 0.002) if per_channel else np.array(0.002)).astype(np.float32)
    bias = b.rng.integers(-3000, 3000, (cout,)).astype(np.int32)
    return b.node("QLinearConv", [x, b.const("xs", np.array(xs, np.float32)), b.const("xz", xz), b.const("w", w),
                                  b.const("ws", w_scale), b.const("wz", wz), b.const("ys", np.array(ys, np.float32)),
                                  b.const("yz", yz), b.const("bias", bias)],
                  kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2, group=group)


def qlinear_u8u8_model():
    """U8U8 QLinearConv nodes (QOperator format, uint8 weights): onyx runs them on int8 weights W - 128 plus the
    zero points' share from sums of ones (ops/nn/conv_core.h), its convolutions built for the constant x zero point
    (bordered images, the share subtracted from the int32 sums): padded 3x3 with x zero points 131 and 90, stride 2,
    per-channel weight zero points, 1x1, depthwise. ONNX Runtime's U8U8 kernels are exact on every CPU."""
    b = Builder(24)
    u8 = lambda v: np.array(v, dtype=np.uint8)  # noqa: E731
    x = b.node("QuantizeLinear", ["input", b.const("s", np.array(0.02, np.float32)), b.const("z", u8(131))])
    y = qlinear_u8u8_conv(b, x, 0.02, u8(131), 16, 32, 0.05, u8(90))
    y = qlinear_u8u8_conv(b, y, 0.05, u8(90), 32, 48, 0.5, u8(120), stride=2, per_channel=True)
    y = qlinear_u8u8_conv(b, y, 0.5, u8(120), 48, 48, 0.6, u8(128), k=1)
    y = qlinear_u8u8_conv(b, y, 0.6, u8(128), 48, 48, 0.5, u8(100), group=48, per_channel=True)
    out = b.node("DequantizeLinear", [y, b.const("s", np.array(0.5, np.float32)), b.const("z", u8(100))])
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16, 20, 20])
    return b.model("qlinear_u8u8", [inp], [out])


def write(out_dir, name, model, input_shape, seed):
    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    save(model, os.path.join(folder, "model.onnx"))
    rng = np.random.default_rng(seed)
    # Natural-image-like input: smooth structure plus noise, some negative values.
    x = rng.normal(0, 1, input_shape).astype(np.float32)
    x = (x + np.roll(x, 1, axis=-1) + np.roll(x, 1, axis=-2)) / 3 + 0.2
    t = numpy_helper.from_array(x.astype(np.float32), "input")
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(t.SerializeToString())


def main():
    global ALL_INTERMEDIATES
    args = [a for a in sys.argv[1:] if a != "--all-intermediates"]
    ALL_INTERMEDIATES = len(args) != len(sys.argv) - 1
    out = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "data", "quant")
    write(out, "unet_dynamic", unet_dynamic(), (1, 3, 32, 32), 1)
    write(out, "transformer_dynamic", transformer_dynamic(), (1, 16, 64), 6)
    write(out, "transformer_ort_fusions", transformer_ort_fusions(), (1, 16, 96), 12)
    write(out, "qdq", qdq_model(), (1, 3, 32, 32), 2)
    write(out, "qdq_fused", qdq_fused_model(), (1, 3, 24, 24), 5)
    write(out, "qdq_concat", qdq_concat_model(), (1, 3, 12, 12), 7)
    write(out, "qdq_s8_gemm", qdq_s8_gemm_model(), (1, 3, 12, 12), 9)
    write(out, "qdq_stem", qdq_stem_model(), (1, 3, 16, 16), 10)
    write(out, "qlinear_stem", qlinear_stem_model(), (1, 3, 16, 16), 11)
    write(out, "qlinear", qlinear_model(), (1, 3, 32, 32), 3)
    write(out, "qlinear_u8u8", qlinear_u8u8_model(), (1, 16, 20, 20), 13)
    # ONNX Runtime sums AveragePool-19 (dilations) in another order than AveragePool-7..11: both are checked.
    write(out, "float_ops", float_ops_model(17), (1, 3, 17, 23), 4)
    write(out, "float_ops19", float_ops_model(19), (1, 3, 17, 23), 4)
    write(out, "float_heads", float_heads_model(), (1, 3, 8, 25), 8)


if __name__ == "__main__":
    main()
