#!/usr/bin/python3
"""Builds the test models of ONNX Runtime's com.microsoft quantized operators in tests/data/quant (Debian
python3-onnx 1.12, numpy; fixed seeds). References: tests/quant/ort_reference.mjs (ONNX Runtime 1.30).

  ms_qlinear       the com.microsoft operators themselves, uint8 and int8, on an input quantized by standard
                   QuantizeLinear twice per type (A, and B from the input reversed along C and W), every result a
                   graph output: QLinearAdd and QLinearMul (equal shapes, a per-channel [C,1,1] and a last-axis
                   constant, scalar constants as A and as B, C_zero_point left out), QLinearSigmoid and
                   QLinearLeakyRelu (input scales wide enough for sigmoid's whole range, alpha 0.1 and default),
                   QLinearAveragePool (3x3 padding counted and not, stride 2 with ceil_mode, where ORT divides by the
                   whole kernel when padding counts even past the padded edge, auto_pad SAME_UPPER, 1-D, 3-D,
                   channels_last on an NHWC Transpose, a kernel of the whole image: ORT's global path),
                   QLinearGlobalAveragePool (NCHW and channels last), QLinearConcat (an input copied at the output's
                   parameters, others requantized, some at a scale ratio of 1.5: ties; axis 1 and -1), QLinearSoftmax
                   (opset 13 along the last axis and along axis 1 of a 3-D tensor, opset 12 flattening from axis 1
                   of a 3-D tensor and from axis 2; y_scale 1/256 with zero point 0 or -128, as ORT's quantizer
                   writes), QLinearWhere (condition from Greater; X at Z's parameters and not, a scalar constant Y),
                   com.microsoft QuantizeLinear / DequantizeLinear (per tensor, with exact ties, and per axis), and a
                   few chains of them. Scales are 0-d or 1-element 1-D tensors (ORT's shape inference takes only 0-d
                   ones for QLinearAdd, QLinearMul and QLinearAveragePool). References at level disabled only: ORT's
                   level all gives the same bytes.
  qdq_ms_fusions   a QDQ float model (standard operators only, uint8, constant scalar scales and zero points) whose
                   DQ -> op -> Q groups ONNX Runtime 1.30 fuses at level all into com.microsoft QLinearSigmoid,
                   QLinearLeakyRelu, QLinearAveragePool (3x3, padding not counted), QLinearMul, QLinearAdd,
                   QLinearSoftmax (Q at 1/256, 0), QLinearGlobalAveragePool, QLinearConcat and QLinearWhere (all nine
                   checked in its optimized model). References at levels disabled (test_data_set_0) and all
                   (expected_all), which differ by 1 in a few elements (and downstream of them).

  qdq_drops        uint8 QDQ groups ONNX Runtime 1.30 drops at level all (DQ -> Resize -> Q, linear and nearest;
                   DQ -> ReduceMax -> Q; DQ -> ArgMax), around a fused Add. References at levels disabled and all.

  u8_resize        Resize (linear in four coordinate modes, up, down and by sizes; nearest) and Pad on uint8 data,
                   as QOperator models hold them: ONNX Runtime truncates the linear results. Level disabled.

  avgpool_threads  QLinearAveragePool on [1, 32, 32, 32], channels first and last, large enough to be split over
                   2 threads. Level disabled.

The input's channel 0 holds multiples of 2^-8 and its last three channels a ramp that gives every byte value. Graph
outputs carry element types only (ONNX's shape inference does not know the com.microsoft operators).

usage: tests/quant/make_contrib_models.py [OUT_DIR]
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

U8, I8, F32, BOOL = TensorProto.UINT8, TensorProto.INT8, TensorProto.FLOAT, TensorProto.BOOL
NP_TYPE = {U8: np.uint8, I8: np.int8, F32: np.float32, BOOL: np.bool_}
MS = "com.microsoft"


class Builder:
    """Nodes, constants and typed graph outputs; each value's element type is tracked (given for every node)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.outputs = [], [], []
        self.types = {"input": F32}
        self.count = 0

    def name(self, stem):
        self.count += 1
        return "%s_%d" % (stem, self.count)

    def const(self, stem, array):
        n = self.name(stem)
        self.inits.append(numpy_helper.from_array(array, n))
        self.types[n] = numpy_helper.from_array(array).data_type
        return n

    def scale(self, value, one_d=False):
        """A float32 scale, 0-d or a 1-element 1-D tensor."""
        return self.const("s", np.array([value] if one_d else value, np.float32))

    def zp(self, elem, value):
        return self.const("z", np.array(value, NP_TYPE[elem]))

    def node(self, op, inputs, elem, stem=None, domain="", listed=True, **attrs):
        """One node of one output of element type elem (listed as a graph output unless listed=False)."""
        out = self.name(stem or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=self.name("n_" + op), domain=domain, **attrs))
        self.types[out] = elem
        if listed:
            self.outputs.append(out)
        return out

    def model(self, graph_name, inputs, opsets):
        outs = [helper.make_tensor_value_info(n, self.types[n], None) for n in self.outputs]
        graph = helper.make_graph(self.nodes, graph_name, inputs, outs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                              producer_name="onyx-tests")
        m.ir_version = 8
        return m


# ---- ms_qlinear: the com.microsoft operators ----

class Q:
    """A quantized value: its name, element type, scale and zero point (as numbers)."""

    def __init__(self, name, elem, scale, zp):
        self.name, self.elem, self.scale, self.zp = name, elem, scale, zp


def qparams(b, q, one_d=False):
    return [q.name, b.scale(q.scale, one_d), b.zp(q.elem, q.zp)]


def random_bytes(b, elem, shape):
    lo, hi = (0, 256) if elem == U8 else (-128, 128)
    return b.rng.integers(lo, hi, shape).astype(NP_TYPE[elem])


def binary(b, op, a, bq, c_scale, c_zp, no_zp=False):
    """QLinearAdd / QLinearMul of two Q values; no_zp leaves C_zero_point out (7 inputs: ORT's type inference
    rejects an empty name for any of the zero points, "Input data type does not match the expected data type").
    Scales 0-d: it rejects 1-element 1-D ones here ("Scale and Zero-point must be a scalar"), as for
    QLinearAveragePool."""
    elem = a.elem
    inputs = qparams(b, a) + qparams(b, bq) + [b.scale(c_scale)]
    if no_zp:
        return Q(b.node(op, inputs, elem, domain=MS), elem, c_scale, 0)
    inputs.append(b.zp(elem, c_zp))
    return Q(b.node(op, inputs, elem, domain=MS), elem, c_scale, c_zp)


def unary(b, op, x, x_scale, y_scale, y_zp, one_d=False, **attrs):
    """QLinearSigmoid / QLinearLeakyRelu / QLinearAveragePool / QLinearGlobalAveragePool / QLinearSoftmax: X read at
    x_scale (not necessarily the scale it was quantized with) and its zero point."""
    inputs = [x.name, b.scale(x_scale, one_d), b.zp(x.elem, x.zp), b.scale(y_scale), b.zp(x.elem, y_zp)]
    return Q(b.node(op, inputs, x.elem, domain=MS, **attrs), x.elem, y_scale, y_zp)


def const_q(b, elem, shape, scale, zp, value=None):
    """A constant Q value: random bytes, or the given value (scalars: an offset that does not saturate the sum)."""
    data = random_bytes(b, elem, shape) if value is None else np.full(shape, value, NP_TYPE[elem])
    return Q(b.const("c", data), elem, scale, zp)


def ms_qlinear_branch(b, elem, xa, xb, cond):
    """Every case for one element type: xa and xb are [1, 8, 10, 12] quantized values, cond a bool of that shape."""
    u = elem == U8
    zp = lambda u8, s8: u8 if u else s8  # noqa: E731
    # QLinearAdd and QLinearMul.
    for op, c_scale, nozp_scale in (("QLinearAdd", 0.024, 0.04), ("QLinearMul", 0.035, 0.07 if u else 0.035)):
        binary(b, op, xa, xb, c_scale, zp(125, -4))  # equal shapes
        binary(b, op, xa, const_q(b, elem, (8, 1, 1), 0.01, zp(131, 2)), c_scale, zp(118, 6))  # per channel
        binary(b, op, xa, const_q(b, elem, (12,), 0.03, zp(90, -20)), c_scale, zp(128, 0))  # along the last axis
        binary(b, op, xa, const_q(b, elem, (), 0.05, zp(77, 33), zp(92, 50)), c_scale, zp(100, -10))  # scalar B
        binary(b, op, const_q(b, elem, (1,), 0.045, zp(200, -90), zp(181, -111)), xb, c_scale, zp(140, 12))  # A
        binary(b, op, xa, xb, nozp_scale, 0, no_zp=True)  # C_zero_point omitted
    # QLinearSigmoid (x_scale 0.1: the bytes span about +-12) and QLinearLeakyRelu.
    unary(b, "QLinearSigmoid", xa, 0.1, 1 / 256, zp(0, -128), one_d=True)
    unary(b, "QLinearSigmoid", xa, 0.03, 0.0045, zp(10, -100))
    unary(b, "QLinearLeakyRelu", xa, 0.05, 0.04, zp(60, -70), one_d=True, alpha=0.1)
    unary(b, "QLinearLeakyRelu", xa, 0.05, 0.05, zp(10, -120))  # default alpha 0.01
    # QLinearAveragePool.
    pool = lambda x, y_scale, y_zp, **attrs: unary(b, "QLinearAveragePool", x, x.scale, y_scale, y_zp,  # noqa: E731
                                                   **attrs)
    for include in (0, 1):
        pool(xa, 0.011, zp(118, -3), kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
             count_include_pad=include)
    pool(xa, 0.01, zp(121, -5), kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)  # 10x12 -> 5x6 (4x5 floor)
    pool(xa, 0.01, zp(121, -5), kernel_shape=[2, 3], strides=[2, 2], pads=[0, 1, 1, 1], ceil_mode=1,
         count_include_pad=1)
    pool(xa, 0.012, zp(119, 1), kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")
    flat = Q(b.node("Reshape", [xa.name, b.const("shape", np.array([1, 8, 120], np.int64))], elem), elem,
             xa.scale, xa.zp)
    pool(flat, 0.011, zp(120, -2), kernel_shape=[5], strides=[2], pads=[2, 2])  # 1-D
    vol = Q(b.node("Reshape", [xa.name, b.const("shape", np.array([1, 2, 4, 10, 12], np.int64))], elem), elem,
            xa.scale, xa.zp)
    pool(vol, 0.011, zp(117, 4), kernel_shape=[2, 3, 3], strides=[1, 2, 2], pads=[0, 1, 1, 1, 1, 1])  # 3-D
    nhwc = Q(b.node("Transpose", [xa.name], elem, perm=[0, 2, 3, 1]), elem, xa.scale, xa.zp)
    pool(nhwc, 0.011, zp(118, -3), kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], channels_last=1)
    pool(nhwc, 0.01, zp(121, -5), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], channels_last=1,
         count_include_pad=1)
    pool(xa, 0.012, zp(100, -60), kernel_shape=[10, 12])  # the whole image: ORT's global-average path
    # QLinearGlobalAveragePool.
    unary(b, "QLinearGlobalAveragePool", xa, xa.scale, 0.012, zp(100, -60), one_d=True, channels_last=0)
    unary(b, "QLinearGlobalAveragePool", nhwc, xa.scale, 0.011, zp(90, -50), channels_last=1)
    # QLinearConcat: Y at xa's parameters (xa copied, xb requantized), then along the last axis with Y at xb's.
    b.node("QLinearConcat", [b.scale(xa.scale), b.zp(elem, xa.zp)] + qparams(b, xa) + qparams(b, xb, True),
           elem, domain=MS, axis=1)
    c = const_q(b, elem, (1, 8, 10, 3), 0.03, zp(50, 20))
    b.node("QLinearConcat", [b.scale(xb.scale, True), b.zp(elem, xb.zp)] + qparams(b, xa) + qparams(b, xb) +
           qparams(b, c), elem, domain=MS, axis=-1)
    # QLinearSoftmax, x read at scale 0.05; y_scale 1/256, zero point 0 (uint8) or -128 (int8).
    sm = lambda x, x_scale=0.05, **attrs: unary(b, "QLinearSoftmax", x, x_scale, 1 / 256, zp(0, -128),  # noqa: E731
                                                 **attrs)
    sm(xa, axis=-1, opset=13, one_d=True)
    sm(Q(b.node("Reshape", [xa.name, b.const("shape", np.array([8, 10, 12], np.int64))], elem), elem, xa.scale,
         xa.zp), axis=1, opset=13)  # ORT transposes axis 1 last
    sm(Q(b.node("Reshape", [xa.name, b.const("shape", np.array([16, 5, 12], np.int64))], elem), elem, xa.scale,
         xa.zp), axis=1, opset=12)  # [16, 60]
    sm(xa, axis=2, opset=12)  # [8, 120]
    # x read at scale 0.5: rows where one element takes nearly all, 256/256 after rounding (clamped to 255 and 127).
    sm(xa, 0.5, axis=-1, opset=13)
    # QLinearWhere: X at Z's parameters (copied), at others, and a scalar constant Y.
    where = lambda x, y, z_scale, z_zp: b.node("QLinearWhere", [cond] + qparams(b, x) + qparams(b, y, True) +  # noqa
                                               [b.scale(z_scale), b.zp(elem, z_zp)], elem, domain=MS)
    where(xa, xb, xa.scale, xa.zp)
    where(xa, xb, 0.016, zp(110, -8))
    where(xa, const_q(b, elem, (), 0.02, zp(30, -30), zp(75, 10)), xb.scale, xb.zp)
    # com.microsoft QuantizeLinear and DequantizeLinear, per tensor and per axis. Scale 2^-7 makes the input's
    # channel 0 (multiples of 2^-8) exact ties.
    b.node("QuantizeLinear", ["input", b.scale(2.0 ** -7), b.zp(elem, zp(128, -3))], elem, domain=MS)
    axis_scales = np.array([2.0 ** -7, 2.0 ** -6, 0.011, 0.013, 0.017, 0.02, 0.009, 0.031], np.float32)
    axis_zps = np.array(zp([128, 127, 100, 140, 90, 160, 0, 255], [0, -1, 5, -20, 30, -128, 127, 3]), NP_TYPE[elem])
    b.node("QuantizeLinear", ["input", b.const("s", axis_scales), b.const("z", axis_zps)], elem, domain=MS, axis=1)
    b.node("DequantizeLinear", [xa.name, b.scale(xa.scale, True), b.zp(elem, xa.zp)], F32, domain=MS)
    b.node("DequantizeLinear", [xa.name, b.const("s", axis_scales), b.const("z", axis_zps)], F32, domain=MS, axis=1)
    if not u:
        w_scales = (0.01 + 0.001 * np.arange(12)).astype(np.float32)
        b.node("DequantizeLinear", [xb.name, b.const("s", w_scales), b.const("z", random_bytes(b, elem, (12,)))],
               F32, domain=MS, axis=-1)


def ms_qlinear_chains(b, xa8, xb8, xa_s, xb_s, cond):
    """A few chains, each op reading the previous op's output."""
    dq = lambda q: b.node("DequantizeLinear", [q.name, b.scale(q.scale), b.zp(q.elem, q.zp)], F32,  # noqa: E731
                          domain=MS)
    # uint8: Add -> Sigmoid -> AveragePool -> DequantizeLinear.
    y = binary(b, "QLinearAdd", xa8, xb8, 0.03, 128)
    y = unary(b, "QLinearSigmoid", y, y.scale, 1 / 256, 0)
    y = unary(b, "QLinearAveragePool", y, y.scale, 0.003, 5, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    dq(y)
    # int8: Mul -> LeakyRelu -> Concat (with xa) -> GlobalAveragePool -> DequantizeLinear.
    y = binary(b, "QLinearMul", xa_s, xb_s, 0.02, 3)
    y = unary(b, "QLinearLeakyRelu", y, y.scale, 0.015, -40, alpha=0.2)
    y = Q(b.node("QLinearConcat", [b.scale(0.02), b.zp(I8, -10)] + qparams(b, y) + qparams(b, xa_s), I8, domain=MS,
                 axis=1), I8, 0.02, -10)
    y = unary(b, "QLinearGlobalAveragePool", y, y.scale, 0.005, 0, channels_last=0)
    dq(y)
    # uint8: com.microsoft QuantizeLinear -> Softmax -> Where (with xa) -> DequantizeLinear.
    y = Q(b.node("QuantizeLinear", ["input", b.scale(0.03), b.zp(U8, 110)], U8, domain=MS), U8, 0.03, 110)
    y = unary(b, "QLinearSoftmax", y, y.scale, 1 / 256, 0, axis=-1, opset=13)
    y = Q(b.node("QLinearWhere", [cond] + qparams(b, y) + qparams(b, xa8) + [b.scale(0.01), b.zp(U8, 100)], U8,
                 domain=MS), U8, 0.01, 100)
    dq(y)
    # int8: com.microsoft QuantizeLinear -> AveragePool (stride 2, ceil) -> Add (per channel) -> DequantizeLinear.
    y = Q(b.node("QuantizeLinear", ["input", b.scale(0.02, True), b.zp(I8, -3)], I8, domain=MS), I8, 0.02, -3)
    y = unary(b, "QLinearAveragePool", y, y.scale, 0.018, 2, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    y = binary(b, "QLinearAdd", y, const_q(b, I8, (8, 1, 1), 0.02, 0), 0.025, -1)
    dq(y)


def flipped(b):
    """The input reversed along C and W (a second operand that is not a multiple of the first)."""
    i64 = lambda v: np.array(v, np.int64)  # noqa: E731
    ends = i64([np.iinfo(np.int64).min] * 2)
    return b.node("Slice", ["input", b.const("starts", i64([-1, -1])), b.const("ends", ends),
                            b.const("axes", i64([1, 3])), b.const("steps", i64([-1, -1]))], F32, listed=False)


def ms_qlinear_model():
    b = Builder(41)
    flip = flipped(b)
    cond = b.node("Greater", ["input", b.const("t", np.array(0.3, np.float32))], BOOL, listed=False)

    def quantize(x, elem, scale, zp, one_d):
        return Q(b.node("QuantizeLinear", [x, b.scale(scale, one_d), b.zp(elem, zp)], elem), elem, scale, zp)

    xa8 = quantize("input", U8, 0.0125, 120, False)
    xb8 = quantize(flip, U8, 0.02, 97, True)
    xa_s = quantize("input", I8, 0.014, -6, True)
    xb_s = quantize(flip, I8, 0.021, 9, False)
    ms_qlinear_branch(b, U8, xa8, xb8, cond)
    ms_qlinear_branch(b, I8, xa_s, xb_s, cond)
    ms_qlinear_chains(b, xa8, xb8, xa_s, xb_s, cond)
    inp = helper.make_tensor_value_info("input", F32, [1, 8, 10, 12])
    return b.model("ms_qlinear", [inp], [("", 17), (MS, 1)])


# ---- qdq_ms_fusions: QDQ groups ONNX Runtime fuses into them ----

def qdq_helpers(b):
    """uint8 QDQ building blocks on builder b: q(x, scale, zp) -> Q, dq(Q) -> float value, group(op, inputs, scale,
    zp) -> the Q of DQ(inputs) -> op (float inputs passed as they are)."""
    def q(x, scale, zp):
        return Q(b.node("QuantizeLinear", [x, b.scale(scale), b.zp(U8, zp)], U8, stem="q"), U8, scale, zp)

    def dq(x, listed=False):
        return b.node("DequantizeLinear", [x.name, b.scale(x.scale), b.zp(U8, x.zp)], F32, stem="dq", listed=listed)

    def group(op, inputs, scale, zp, **attrs):
        return q(b.node(op, [dq(x) if isinstance(x, Q) else x for x in inputs], F32, listed=False, **attrs),
                 scale, zp)

    return q, dq, group


def qdq_ms_fusions_model():
    """uint8 QDQ groups with constant scalar scales and zero points; every DQ read once (ORT fuses only those)."""
    b = Builder(43)

    q, dq, group = qdq_helpers(b)

    x = q("input", 0.02, 128)
    x2 = q(flipped(b), 0.025, 120)
    sig = group("Sigmoid", [x], 1 / 256, 0)
    lrelu = group("LeakyRelu", [x], 0.015, 20, alpha=0.1)
    pool = group("AveragePool", [x], 0.018, 125, kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=0)
    mul = group("Mul", [x, x2], 0.03, 140)
    add = group("Add", [lrelu, pool], 0.022, 110)
    sm = group("Softmax", [add], 1 / 256, 0, axis=-1)
    gap = group("GlobalAveragePool", [mul], 0.01, 150)
    cat = group("Concat", [sig, mul, x], 0.02, 128, axis=1)
    cond = b.node("Greater", ["input", b.const("t", np.array(0.3, np.float32))], BOOL, listed=False)
    where = group("Where", [cond, x, x2], 0.02, 128)
    for y in (sig, mul, sm, gap, cat, where):
        dq(y, listed=True)
    inp = helper.make_tensor_value_info("input", F32, [1, 8, 10, 12])
    return b.model("qdq_ms_fusions", [inp], [("", 17)])


def qdq_drops_model():
    """uint8 QDQ groups ONNX Runtime drops (runs the operator on the 8-bit data) with a fused Add between them: DQ ->
    Resize -> Q with equal parameters (linear in three coordinate modes, up and down, and nearest), DQ -> ReduceMax ->
    Q, and a DQ -> ArgMax; onyx fuses the whole graph only if its 8-bit Resize computes ONNX Runtime's bytes."""
    b = Builder(47)

    q, dq, group = qdq_helpers(b)

    x = q("input", 0.02, 128)
    x2 = q(flipped(b), 0.025, 120)
    add = group("Add", [x, x2], 0.03, 125)
    outs = []
    for mode, ctm, scales in [("linear", "half_pixel", [1, 1, 2, 2]), ("linear", "align_corners", [1, 1, 1.5, 0.75]),
                              ("linear", "asymmetric", [1, 1, 0.5, 2]), ("nearest", "half_pixel", [1, 1, 2, 1.5])]:
        sc = b.const("scales", np.array(scales, np.float32))
        outs.append(group("Resize", [add, "", sc], add.scale, add.zp, mode=mode, coordinate_transformation_mode=ctm))
    outs.append(group("ReduceMax", [add], add.scale, add.zp, axes=[2, 3], keepdims=1))
    b.node("ArgMax", [dq(add)], TensorProto.INT64, stem="argmax", axis=1)
    for y in outs:
        dq(y, listed=True)
    inp = helper.make_tensor_value_info("input", F32, [1, 8, 10, 12])
    return b.model("qdq_drops", [inp], [("", 17)])


def u8_resize_model():
    """Resize and Pad on uint8 data, as a QOperator model runs them (ONNX Runtime's quantizer writes them on 8-bit
    values): linear in four coordinate modes, up, down and by sizes (the float formula, truncated), nearest."""
    b = Builder(61)
    b.types["input"] = U8
    for mode in ("linear", "nearest"):
        for ctm in ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"):
            for scales in ([1, 1, 2, 2], [1, 1, 1.5, 0.75], [1, 1, 0.5, 0.5]):
                sc = b.const("scales", np.array(scales, np.float32))
                b.node("Resize", ["input", "", sc], U8, mode=mode, coordinate_transformation_mode=ctm)
        b.node("Resize", ["input", "", "", b.const("sizes", np.array([1, 8, 17, 9], np.int64))], U8, mode=mode)
    pads = b.const("pads", np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64))
    b.node("Pad", ["input", pads, b.const("value", np.array(7, np.uint8))], U8, mode="constant")
    for mode in ("reflect", "edge"):
        b.node("Pad", ["input", pads], U8, mode=mode)
    inp = helper.make_tensor_value_info("input", U8, [1, 8, 10, 12])
    return b.model("u8_resize", [inp], [("", 17)])


def avgpool_threads_model():
    """QLinearAveragePool (3x3, stride 1, pads 1, both count_include_pad) on an input large enough that onyx splits it
    over 2 threads, channels first and channels last."""
    b = Builder(67)
    q, dq, group = qdq_helpers(b)
    x = b.node("QuantizeLinear", ["input", b.scale(0.02), b.zp(U8, 128)], U8, stem="q")
    nhwc = b.node("Transpose", [x], U8, stem="nhwc", listed=False, perm=[0, 2, 3, 1])
    for layout, src in (("first", x), ("last", nhwc)):
        for include in (0, 1):
            b.node("QLinearAveragePool", [src, b.scale(0.02), b.zp(U8, 128), b.scale(0.015), b.zp(U8, 120)], U8,
                   domain=MS, kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=include,
                   channels_last=int(layout == "last"))
    inp = helper.make_tensor_value_info("input", F32, [1, 32, 32, 32])
    return b.model("avgpool_threads", [inp], [("", 17), (MS, 1)])


def write(out_dir, name, model, input_shape, seed):
    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    save(model, os.path.join(folder, "model.onnx"))
    rng = np.random.default_rng(seed)
    # Smooth structure plus noise, some negative values; channel 0 in multiples of 2^-8 (exact ties at scale 2^-7),
    # the last three channels a ramp over [-1.8, 1.9] in steps under 0.0125 (every byte value of the quantized
    # inputs, for the table-driven operators).
    x = rng.normal(0, 1.2, input_shape).astype(np.float32)
    x = (x + np.roll(x, 1, axis=-1) + np.roll(x, 1, axis=-2)) / 3 + 0.2
    x[:, 0] = np.rint(x[:, 0] * 256) / 256
    tail = x[:, -3:]
    x[:, -3:] = np.linspace(-1.8, 1.9, tail[0].size, dtype=np.float32).reshape(tail.shape[1:])
    t = numpy_helper.from_array(x.astype(np.float32), "input")
    if model.graph.input[0].type.tensor_type.elem_type == U8:
        t = numpy_helper.from_array(rng.integers(0, 256, input_shape).astype(np.uint8), "input")
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(t.SerializeToString())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "quant")
    write(out, "ms_qlinear", ms_qlinear_model(), (1, 8, 10, 12), 51)
    write(out, "qdq_ms_fusions", qdq_ms_fusions_model(), (1, 8, 10, 12), 53)
    write(out, "qdq_drops", qdq_drops_model(), (1, 8, 10, 12), 59)
    write(out, "u8_resize", u8_resize_model(), (1, 8, 10, 12), 61)
    write(out, "avgpool_threads", avgpool_threads_model(), (1, 32, 32, 32), 67)


if __name__ == "__main__":
    main()
