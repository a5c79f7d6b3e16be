#!/usr/bin/python3
"""One-operator ONNX models at shapes real networks use, for timing onyx against ONNX Runtime operator by operator.

Writes OUT/NAME/NAME.onnx and OUT/NAME/test_data_set_0/input_N.pb for each case (inputs drawn from a normal
distribution, so both signs occur: branchy kernels show their mispredictions as they would on real activations;
positive where the operator needs it). Only the first input of a case varies per run; indices, scales and weights are
initializers, as in exported models. Then bench/compare.py times both engines on them (see bench/op_sweep/run.sh).

usage: bench/op_sweep/make_op_models.py OUT [--only SUBSTRING,...]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)
F = TensorProto.FLOAT

CNN = [1, 32, 112, 112]  # an early CNN activation (401k values)
CNN_SMALL = [1, 256, 14, 14]
SEQ = [4, 128, 768]  # transformer hidden states (393k values)
VOL = [1, 16, 32, 64, 64]  # a 3-D (medical imaging) activation (2M values)


def normal(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def positive(shape):
    return (np.abs(RNG.standard_normal(shape)) + 0.05).astype(np.float32)


class Case:
    def __init__(self, name, op, x, attrs=None, consts=(), opset=17, outputs=1, domain="", x_dtype=np.float32,
                 gen=normal, extra_inputs=(), empty_roi=False, out_types=None, loop_body=False):
        self.loop_body = loop_body  # Loop: x is the carried value, the body adds 1 and multiplies by 0.999
        self.out_types = out_types  # element types of the outputs (default: the first input's)
        self.empty_roi = empty_roi  # Resize: the first constant input is an empty (absent) roi
        self.name, self.op, self.x, self.attrs, self.consts = name, op, x, attrs or {}, list(consts)
        self.opset, self.outputs, self.domain, self.x_dtype, self.gen = opset, outputs, domain, x_dtype, gen
        self.extra_inputs = list(extra_inputs)  # further varying inputs: (shape, generator)


def boxes(shape):
    """Corner boxes (y1, x1, y2, x2) in [0, 1.2): many overlap, as a detector's candidates do."""
    corner = RNG.random(shape[:-1] + [2]).astype(np.float32)
    size = RNG.random(shape[:-1] + [2]).astype(np.float32) * 0.2
    return np.concatenate([corner, corner + size], -1)


def cases():
    c = []
    unary = ["Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Erf", "Elu", "Selu", "Softplus", "Softsign",
             "HardSigmoid", "HardSwish", "Mish", "Celu", "ThresholdedRelu", "Floor", "Round", "Sin", "Cos", "Sign",
             "Reciprocal"]
    for op in unary:
        c.append(Case(op, op, CNN, opset=18 if op == "Mish" else 17))
    c.append(Case("Log", "Log", CNN, gen=positive))
    c.append(Case("Sqrt", "Sqrt", CNN, gen=positive))
    c.append(Case("LeakyRelu", "LeakyRelu", CNN, {"alpha": 0.1}))
    c.append(Case("Gelu_erf", "Gelu", SEQ, opset=20))
    c.append(Case("Gelu_tanh", "Gelu", SEQ, {"approximate": "tanh"}, opset=20))
    c.append(Case("Clip", "Clip", CNN, consts=[np.array(0, np.float32), np.array(6, np.float32)]))
    c.append(Case("PRelu_channel", "PRelu", CNN, consts=[normal([32, 1, 1])]))
    c.append(Case("Cast_f32_f16", "Cast", CNN, {"to": TensorProto.FLOAT16}, out_types=[TensorProto.FLOAT16]))
    c.append(Case("Cast_f16_f32", "Cast", CNN, {"to": F}, x_dtype=np.float16, out_types=[F]))
    c.append(Case("Cast_i64_f32", "Cast", CNN, {"to": F}, x_dtype=np.int64, out_types=[F],
                  gen=lambda s: RNG.integers(-100, 100, s).astype(np.int64)))
    # Binary, with the broadcasts networks use.
    for op in ["Add", "Mul", "Sub", "Div", "Max", "Min"]:
        c.append(Case(op + "_same", op, CNN, extra_inputs=[(CNN, normal if op != "Div" else positive)]))
    c.append(Case("Add_channel", "Add", CNN, consts=[normal([1, 32, 1, 1])]))
    c.append(Case("Mul_channel", "Mul", CNN, consts=[normal([1, 32, 1, 1])]))
    c.append(Case("Add_row", "Add", SEQ, consts=[normal([768])]))
    c.append(Case("Mul_scalar", "Mul", SEQ, consts=[np.array(0.125, np.float32)]))
    c.append(Case("Pow_2", "Pow", SEQ, consts=[np.array(2, np.float32)]))
    c.append(Case("Pow_general", "Pow", CNN, consts=[np.array(1.7, np.float32)], gen=positive))
    c.append(Case("Greater", "Greater", CNN, consts=[np.array(0, np.float32)], out_types=[TensorProto.BOOL]))
    c.append(Case("Where", "Where", CNN, consts=[], extra_inputs=[(CNN, normal), (CNN, normal)],
                  x_dtype=np.bool_, gen=lambda s: RNG.random(s) < 0.5))
    # Reductions and normalizations.
    c.append(Case("ReduceMean_last", "ReduceMean", SEQ, {"axes": [-1]}))
    c.append(Case("ReduceSum_last", "ReduceSum", SEQ, consts=[np.array([-1], np.int64)]))
    c.append(Case("ReduceMax_last", "ReduceMax", SEQ, {"axes": [-1]}))
    c.append(Case("ReduceMean_spatial", "ReduceMean", CNN, {"axes": [2, 3]}))
    c.append(Case("ReduceSum_channel", "ReduceSum", CNN, consts=[np.array([1], np.int64)]))
    c.append(Case("ReduceL2_last", "ReduceL2", SEQ, {"axes": [-1]}))
    c.append(Case("ReduceLogSumExp", "ReduceLogSumExp", SEQ, {"axes": [-1]}))
    c.append(Case("ArgMax_last", "ArgMax", SEQ, {"axis": -1}, out_types=[TensorProto.INT64]))
    c.append(Case("ArgMax_channel", "ArgMax", CNN, {"axis": 1}, out_types=[TensorProto.INT64]))
    c.append(Case("Softmax_last", "Softmax", [4, 12, 128, 128], {"axis": -1}))
    c.append(Case("Softmax_channel", "Softmax", CNN, {"axis": 1}))
    c.append(Case("LogSoftmax_last", "LogSoftmax", SEQ, {"axis": -1}))
    c.append(Case("LayerNorm", "LayerNormalization", SEQ, {"axis": -1}, consts=[positive([768]), normal([768])]))
    c.append(Case("InstanceNorm2d", "InstanceNormalization", CNN, consts=[positive([32]), normal([32])]))
    c.append(Case("InstanceNorm3d", "InstanceNormalization", VOL, consts=[positive([16]), normal([16])]))
    c.append(Case("BatchNorm", "BatchNormalization", CNN,
                  consts=[positive([32]), normal([32]), normal([32]), positive([32])]))
    c.append(Case("GroupNorm", "GroupNormalization", [1, 64, 56, 56], {"num_groups": 8},
                  consts=[positive([64]), normal([64])], opset=21))
    c.append(Case("LpNormalization", "LpNormalization", SEQ, {"axis": -1, "p": 2}))
    c.append(Case("MeanVarianceNorm", "MeanVarianceNormalization", CNN))
    c.append(Case("CumSum", "CumSum", SEQ, consts=[np.array(1, np.int64)]))
    c.append(Case("TopK_last", "TopK", [64, 1000], consts=[np.array([5], np.int64)], outputs=2,
                  out_types=[F, TensorProto.INT64]))
    # Data movement.
    c.append(Case("Transpose_nchw_nhwc", "Transpose", CNN, {"perm": [0, 2, 3, 1]}))
    c.append(Case("Transpose_heads", "Transpose", [4, 128, 12, 64], {"perm": [0, 2, 1, 3]}))
    c.append(Case("Transpose_last2", "Transpose", [4, 12, 128, 64], {"perm": [0, 1, 3, 2]}))
    c.append(Case("Concat_channel", "Concat", CNN, {"axis": 1}, extra_inputs=[(CNN, normal)]))
    c.append(Case("Split_channel", "Split", CNN, {"axis": 1}, consts=[np.array([16, 16], np.int64)], outputs=2))
    c.append(Case("Slice_spatial", "Slice", CNN, consts=[np.array([1, 1], np.int64), np.array([111, 111], np.int64),
                                                         np.array([2, 3], np.int64)]))
    c.append(Case("Slice_step2", "Slice", CNN, consts=[np.array([0, 0], np.int64), np.array([112, 112], np.int64),
                                                       np.array([2, 3], np.int64), np.array([2, 2], np.int64)]))
    c.append(Case("Gather_rows", "Gather", [30000, 768], {"axis": 0},
                  consts=[RNG.integers(0, 30000, [4, 128]).astype(np.int64)]))
    c.append(Case("GatherElements", "GatherElements", SEQ, {"axis": 2},
                  consts=[RNG.integers(0, 768, SEQ).astype(np.int64)]))
    c.append(Case("GatherND", "GatherND", [4, 128, 768], {"batch_dims": 1},
                  consts=[RNG.integers(0, 128, [4, 64, 1]).astype(np.int64)]))
    c.append(Case("ScatterElements", "ScatterElements", [4, 128, 768], {"axis": 1},
                  consts=[np.tile(RNG.permutation(128)[:64].astype(np.int64).reshape(1, 64, 1), (4, 1, 768)),
                          normal([4, 64, 768])]))
    c.append(Case("Pad_constant", "Pad", CNN, consts=[np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)]))
    c.append(Case("Pad_reflect", "Pad", CNN, {"mode": "reflect"},
                  consts=[np.array([0, 0, 3, 3, 0, 0, 3, 3], np.int64)]))
    c.append(Case("Pad_edge", "Pad", CNN, {"mode": "edge"}, consts=[np.array([0, 0, 2, 2, 0, 0, 2, 2], np.int64)]))
    c.append(Case("Tile", "Tile", [1, 32, 56, 56], consts=[np.array([1, 1, 2, 2], np.int64)]))
    c.append(Case("Expand", "Expand", [1, 32, 1, 112], consts=[np.array([1, 32, 112, 112], np.int64)]))
    c.append(Case("DepthToSpace", "DepthToSpace", [1, 128, 56, 56], {"blocksize": 2, "mode": "CRD"}))
    c.append(Case("DepthToSpace_DCR", "DepthToSpace", [1, 128, 56, 56], {"blocksize": 2, "mode": "DCR"}))
    c.append(Case("SpaceToDepth", "SpaceToDepth", CNN, {"blocksize": 2}))
    c.append(Case("Resize_nearest2x", "Resize", [1, 32, 56, 56], {"mode": "nearest"},
                  consts=[np.array([], np.float32), np.array([1, 1, 2, 2], np.float32)], empty_roi=True))
    c.append(Case("Resize_linear2x", "Resize", [1, 32, 56, 56], {"mode": "linear"},
                  consts=[np.array([], np.float32), np.array([1, 1, 2, 2], np.float32)], empty_roi=True))
    c.append(Case("Resize_linear_ac", "Resize", [1, 32, 56, 56],
                  {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
                  consts=[np.array([], np.float32), np.array([1, 1, 2, 2], np.float32)], empty_roi=True))
    c.append(Case("Resize_cubic2x", "Resize", [1, 32, 56, 56], {"mode": "cubic"},
                  consts=[np.array([], np.float32), np.array([1, 1, 2, 2], np.float32)], empty_roi=True))
    c.append(Case("Resize_nearest_down", "Resize", CNN, {"mode": "nearest"},
                  consts=[np.array([], np.float32), np.array([1, 1, 0.5, 0.5], np.float32)], empty_roi=True))
    c.append(Case("GridSample", "GridSample", [1, 32, 56, 56], {"align_corners": 0}, opset=16,
                  consts=[np.clip(normal([1, 56, 56, 2]) * 0.5, -1, 1)]))
    # Pooling.
    c.append(Case("MaxPool3x3s2", "MaxPool", CNN, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}))
    c.append(Case("MaxPool2x2", "MaxPool", CNN, {"kernel_shape": [2, 2], "strides": [2, 2]}))
    c.append(Case("AvgPool3x3s1", "AveragePool", CNN, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                       "count_include_pad": 0}))
    c.append(Case("AvgPool2x2", "AveragePool", CNN, {"kernel_shape": [2, 2], "strides": [2, 2]}))
    c.append(Case("AvgPool3d", "AveragePool", VOL, {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}))
    c.append(Case("MaxPool3d", "MaxPool", VOL, {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}))
    c.append(Case("GlobalAvgPool", "GlobalAveragePool", CNN))
    c.append(Case("GlobalMaxPool", "GlobalMaxPool", CNN))
    c.append(Case("LpPool", "LpPool", CNN, {"kernel_shape": [2, 2], "strides": [2, 2], "p": 2}))
    # Convolutions and products not in the four benchmark models.
    c.append(Case("ConvTranspose4x4s2", "ConvTranspose", [1, 64, 28, 28],
                  {"kernel_shape": [4, 4], "strides": [2, 2], "pads": [1, 1, 1, 1]},
                  consts=[normal([64, 32, 4, 4]) * 0.1, normal([32])]))
    c.append(Case("ConvTranspose2x2s2", "ConvTranspose", [1, 128, 28, 28], {"kernel_shape": [2, 2], "strides": [2, 2]},
                  consts=[normal([128, 64, 2, 2]) * 0.1, normal([64])]))
    c.append(Case("ConvTranspose3d", "ConvTranspose", [1, 32, 16, 32, 32], {"kernel_shape": [2, 2, 2],
                                                                              "strides": [2, 2, 2]},
                  consts=[normal([32, 16, 2, 2, 2]) * 0.1, normal([16])]))
    c.append(Case("Conv1d_k3", "Conv", [1, 256, 400], {"kernel_shape": [3], "pads": [1, 1]},
                  consts=[normal([256, 256, 3]) * 0.05, normal([256])]))
    c.append(Case("Conv1d_depthwise", "Conv", [1, 256, 400], {"kernel_shape": [31], "pads": [15, 15], "group": 256},
                  consts=[normal([256, 1, 31]) * 0.1, normal([256])]))
    c.append(Case("Conv_grouped", "Conv", [1, 128, 56, 56], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 32},
                  consts=[normal([128, 4, 3, 3]) * 0.1, normal([128])]))
    c.append(Case("Conv_dilated", "Conv", [1, 64, 56, 56], {"kernel_shape": [3, 3], "pads": [2, 2, 2, 2],
                                                            "dilations": [2, 2]},
                  consts=[normal([64, 64, 3, 3]) * 0.05, normal([64])]))
    c.append(Case("Conv_5x5", "Conv", [1, 32, 56, 56], {"kernel_shape": [5, 5], "pads": [2, 2, 2, 2]},
                  consts=[normal([64, 32, 5, 5]) * 0.05, normal([64])]))
    c.append(Case("MatMul_2d_in", "MatMul", [512, 768], consts=[normal([768, 768]) * 0.05]))
    c.append(Case("MatMul_batched", "MatMul", [4, 12, 128, 64], extra_inputs=[([4, 12, 64, 128], normal)]))
    c.append(Case("Gemm_transB", "Gemm", [64, 1024], {"transB": 1}, consts=[normal([1000, 1024]) * 0.05,
                                                                           normal([1000])]))
    c.append(Case("MatMul_gemv", "MatMul", [1, 1, 768], consts=[normal([768, 3072]) * 0.05]))
    c.append(Case("Einsum_bhqd", "Einsum", [4, 12, 128, 64], {"equation": "bhqd,bhkd->bhqk"},
                  extra_inputs=[([4, 12, 128, 64], normal)]))
    c.append(Case("LSTM", "LSTM", [64, 8, 128], {"hidden_size": 256},
                  consts=[normal([1, 1024, 128]) * 0.1, normal([1, 1024, 256]) * 0.1, normal([1, 2048]) * 0.1]))
    c.append(Case("LSTM_b1", "LSTM", [100, 1, 64], {"hidden_size": 256},
                  consts=[normal([1, 1024, 64]) * 0.1, normal([1, 1024, 256]) * 0.1, normal([1, 2048]) * 0.1]))
    c.append(Case("GRU_b1", "GRU", [100, 1, 64], {"hidden_size": 256},
                  consts=[normal([1, 768, 64]) * 0.1, normal([1, 768, 256]) * 0.1, normal([1, 1536]) * 0.1]))
    c.append(Case("LSTM_bidir", "LSTM", [64, 1, 128], {"hidden_size": 128, "direction": "bidirectional"},
                  consts=[normal([2, 512, 128]) * 0.1, normal([2, 512, 128]) * 0.1, normal([2, 1024]) * 0.1]))
    c.append(Case("GRU", "GRU", [64, 8, 128], {"hidden_size": 256, "linear_before_reset": 1},
                  consts=[normal([1, 768, 128]) * 0.1, normal([1, 768, 256]) * 0.1, normal([1, 1536]) * 0.1]))
    c.append(Case("RNN", "RNN", [64, 8, 128], {"hidden_size": 256},
                  consts=[normal([1, 256, 128]) * 0.1, normal([1, 256, 256]) * 0.1, normal([1, 512]) * 0.1]))
    # Detection heads.
    c.append(Case("NonMaxSuppression", "NonMaxSuppression", [1, 2000, 4], gen=boxes,
                  extra_inputs=[([1, 80, 2000], lambda s: RNG.random(s).astype(np.float32))],
                  consts=[np.array([100], np.int64), np.array([0.5], np.float32), np.array([0.05], np.float32)],
                  out_types=[TensorProto.INT64]))
    c.append(Case("RoiAlign", "RoiAlign", [1, 256, 50, 50], {"output_height": 7, "output_width": 7,
                                                             "sampling_ratio": 2, "spatial_scale": 0.25},
                  consts=[np.concatenate([RNG.random([300, 2]) * 100, RNG.random([300, 2]) * 100 + 100], 1)
                          .astype(np.float32), np.zeros([300], np.int64)]))
    c.append(Case("NonZero", "NonZero", CNN, x_dtype=np.bool_, gen=lambda s: RNG.random(s) < 0.3,
                  out_types=[TensorProto.INT64]))
    # Less common operators real models still carry.
    for op in ["Tan", "Atan", "Asin", "Acos", "Sinh", "Cosh", "Asinh", "Atanh", "IsNaN", "IsInf", "Ceil"]:
        gen = (lambda s: np.clip(normal(s), -0.99, 0.99)) if op in ("Asin", "Acos", "Atanh") else normal
        c.append(Case(op, op, CNN, gen=gen, opset=10 if op.startswith("Is") else 17,
                      out_types=[TensorProto.BOOL] if op.startswith("Is") else None))
    c.append(Case("Shrink", "Shrink", CNN, {"lambd": 0.5, "bias": 0.1}))
    c.append(Case("Mod_fmod", "Mod", CNN, {"fmod": 1}, consts=[np.array(0.7, np.float32)]))
    c.append(Case("ReduceProd_last", "ReduceProd", SEQ, {"axes": [-1]}))
    c.append(Case("ReduceMax_channel", "ReduceMax", CNN, {"axes": [1]}))
    c.append(Case("Hardmax", "Hardmax", SEQ, {"axis": -1}))
    c.append(Case("Trilu", "Trilu", [4, 12, 128, 128], consts=[np.array(0, np.int64)]))
    c.append(Case("Gather_axis1", "Gather", [4, 512, 768], {"axis": 1},
                  consts=[RNG.integers(0, 512, [256]).astype(np.int64)]))
    c.append(Case("GatherND_2d", "GatherND", [64, 64, 256],
                  consts=[RNG.integers(0, 64, [1000, 2]).astype(np.int64)]))
    c.append(Case("ScatterND", "ScatterND", [4096, 256],
                  consts=[RNG.permutation(4096)[:1000].astype(np.int64).reshape(1000, 1), normal([1000, 256])]))
    c.append(Case("OneHot", "OneHot", [4, 512], {"axis": -1}, x_dtype=np.int64,
                  gen=lambda s: RNG.integers(0, 1000, s).astype(np.int64),
                  consts=[np.array(1000, np.int64), np.array([0, 1], np.float32)], out_types=[F]))
    c.append(Case("Resize_preprocess", "Resize", [1, 3, 480, 640], {"mode": "linear"},
                  consts=[np.array([], np.float32), np.array([], np.float32), np.array([1, 3, 224, 224], np.int64)],
                  empty_roi=True))
    c.append(Case("Upsample_nearest", "Upsample", [1, 64, 56, 56], {"mode": "nearest"}, opset=9,
                  consts=[np.array([1, 1, 2, 2], np.float32)]))
    c.append(Case("Resize_linear3d", "Resize", [1, 16, 16, 32, 32], {"mode": "linear"},
                  consts=[np.array([], np.float32), np.array([1, 1, 2, 2, 2], np.float32)], empty_roi=True))
    c.append(Case("Conv_depthwise_s2", "Conv", [1, 96, 112, 112], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                                   "strides": [2, 2], "group": 96},
                  consts=[normal([96, 1, 3, 3]) * 0.3, normal([96])]))
    c.append(Case("Conv1d_s2", "Conv", [1, 128, 1600], {"kernel_shape": [10], "strides": [5]},
                  consts=[normal([256, 128, 10]) * 0.03, normal([256])]))
    c.append(Case("ConvTranspose1d", "ConvTranspose", [1, 256, 400], {"kernel_shape": [8], "strides": [4],
                                                                      "pads": [2, 2]},
                  consts=[normal([256, 128, 8]) * 0.03, normal([128])]))
    c.append(Case("MatMul_classifier", "MatMul", [8, 2048], consts=[normal([2048, 1000]) * 0.02]))
    c.append(Case("Gemm_small", "Gemm", [1, 512], {"transB": 1}, consts=[normal([10, 512]), normal([10])]))
    c.append(Case("Einsum_bij_jk", "Einsum", [8, 128, 256], {"equation": "bij,jk->bik"},
                  extra_inputs=[([256, 64], normal)]))
    c.append(Case("Tile_rows", "Tile", [1, 1, 768], consts=[np.array([4, 128, 1], np.int64)]))
    c.append(Case("Range", "Range", [], x_dtype=np.float32, gen=lambda s: np.array(0, np.float32),
                  consts=[np.array(100000, np.float32), np.array(1, np.float32)]))
    c.append(Case("Neg_int64", "Neg", [4, 128, 768], x_dtype=np.int64,
                  gen=lambda s: RNG.integers(-1000, 1000, s).astype(np.int64)))
    c.append(Case("Add_int64", "Add", [4, 128, 768], x_dtype=np.int64,
                  gen=lambda s: RNG.integers(-1000, 1000, s).astype(np.int64), consts=[np.array(3, np.int64)]))
    c.append(Case("Equal_int64", "Equal", [4, 128, 768], x_dtype=np.int64,
                  gen=lambda s: RNG.integers(0, 4, s).astype(np.int64), consts=[np.array(1, np.int64)],
                  out_types=[TensorProto.BOOL]))
    c.append(Case("Not_bool", "Not", CNN, x_dtype=np.bool_, gen=lambda s: RNG.random(s) < 0.5))
    c.append(Case("And_bool", "And", CNN, x_dtype=np.bool_, gen=lambda s: RNG.random(s) < 0.5,
                  consts=[RNG.random(CNN) < 0.5]))
    # Transformer operators: ONNX's newer ones and ONNX Runtime's com.microsoft ones that exporters write.
    MS = "com.microsoft"
    c.append(Case("RMSNormalization", "RMSNormalization", SEQ, {"axis": -1}, consts=[positive([768])], opset=23))
    c.append(Case("SkipLayerNorm_ms", "SkipLayerNormalization", SEQ, {"epsilon": 1e-5}, domain=MS,
                  extra_inputs=[(SEQ, normal)], consts=[positive([768]), normal([768])]))
    c.append(Case("SimplifiedLayerNorm_ms", "SimplifiedLayerNormalization", SEQ, {"axis": -1, "epsilon": 1e-6},
                  consts=[positive([768])]))
    c.append(Case("FastGelu_ms", "FastGelu", SEQ, domain=MS, consts=[normal([768])]))
    c.append(Case("BiasGelu_ms", "BiasGelu", SEQ, domain=MS, consts=[normal([768])]))
    c.append(Case("QuickGelu_ms", "QuickGelu", SEQ, {"alpha": 1.702}, domain=MS))
    c.append(Case("Attention_onnx", "Attention", [4, 12, 128, 64], opset=23,
                  extra_inputs=[([4, 12, 128, 64], normal), ([4, 12, 128, 64], normal)]))
    c.append(Case("Attention_ms", "Attention", [4, 128, 768], {"num_heads": 12}, domain=MS,
                  consts=[normal([768, 2304]) * 0.03, normal([2304]) * 0.1]))
    c.append(Case("MultiHeadAttention_ms", "MultiHeadAttention", [4, 128, 768], {"num_heads": 12}, domain=MS,
                  extra_inputs=[([4, 128, 768], normal), ([4, 128, 768], normal)]))
    c.append(Case("RotaryEmbedding_onnx", "RotaryEmbedding", [1, 32, 256, 64], opset=23,
                  consts=[normal([256, 32]), normal([256, 32]), np.arange(256, dtype=np.int64).reshape(1, 256)]))
    c.append(Case("GQA_prefill_ms", "GroupQueryAttention", [1, 128, 32 * 64], {"num_heads": 32, "kv_num_heads": 8},
                  domain=MS, extra_inputs=[([1, 128, 8 * 64], normal), ([1, 128, 8 * 64], normal)],
                  consts=[np.zeros([1, 8, 0, 64], np.float32), np.zeros([1, 8, 0, 64], np.float32),
                          np.array([127], np.int32), np.array(128, np.int32)], outputs=3, out_types=[F, F, F]))
    c.append(Case("GQA_decode_ms", "GroupQueryAttention", [1, 1, 32 * 64], {"num_heads": 32, "kv_num_heads": 8},
                  domain=MS, extra_inputs=[([1, 1, 8 * 64], normal), ([1, 1, 8 * 64], normal),
                                           ([1, 8, 511, 64], normal), ([1, 8, 511, 64], normal)],
                  consts=[np.array([511], np.int32), np.array(512, np.int32)], outputs=3, out_types=[F, F, F]))
    c.append(Case("RotaryEmbedding_ms", "RotaryEmbedding", [1, 128, 32 * 64], domain=MS,
                  consts=[np.arange(128, dtype=np.int64).reshape(1, 128), normal([4096, 32]), normal([4096, 32])]))
    # Broadcasts real graphs carry.
    c.append(Case("Add_attention_mask", "Add", [4, 12, 128, 128], consts=[normal([4, 1, 1, 128])]))
    c.append(Case("Mul_se_gate", "Mul", [4, 256, 28, 28], extra_inputs=[([4, 256, 1, 1], normal)]))
    c.append(Case("Add_outer", "Add", [4, 128, 1], extra_inputs=[([4, 1, 768], normal)]))
    c.append(Case("Sub_row_bcast", "Sub", [512, 768], extra_inputs=[([512, 1], normal)]))
    c.append(Case("Div_scalar", "Div", SEQ, consts=[np.array(8.0, np.float32)]))
    c.append(Case("Concat_last", "Concat", [4, 128, 384], {"axis": -1}, extra_inputs=[([4, 128, 384], normal)]))
    c.append(Case("Split_last3", "Split", [4, 128, 2304], {"axis": -1}, consts=[np.array([768, 768, 768], np.int64)],
                  outputs=3, opset=13))
    c.append(Case("Transpose_5d", "Transpose", [1, 16, 32, 32, 32], {"perm": [0, 2, 3, 4, 1]}))
    # Control flow: a Loop of 2000 small steps (per-iteration overhead, as greedy decoding loops in a graph have).
    c.append(Case("Loop_2000", "Loop", [16], consts=[np.array(2000, np.int64), np.array(True)], loop_body=True))
    # Audio front ends.
    c.append(Case("STFT", "STFT", [1, 160000, 1], {"onesided": 1}, opset=17,
                  consts=[np.array(160, np.int64), (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400))
                          .astype(np.float32), np.array(400, np.int64)]))
    c.append(Case("DFT_512", "DFT", [64, 512, 1], {"onesided": 1, "axis": 1}, opset=17))
    # Quantization operators (8-bit activations as uint8, weights as int8, as ONNX Runtime's quantizer writes them).
    u8 = lambda s: RNG.integers(0, 256, s).astype(np.uint8)  # noqa: E731
    f32 = lambda v: np.array(v, np.float32)  # noqa: E731
    c.append(Case("QuantizeLinear", "QuantizeLinear", CNN, consts=[f32(0.02), np.array(128, np.uint8)],
                  out_types=[TensorProto.UINT8]))
    c.append(Case("QuantizeLinear_axis", "QuantizeLinear", CNN, {"axis": 1},
                  consts=[positive([32]) * 0.02, RNG.integers(100, 150, [32]).astype(np.uint8)],
                  out_types=[TensorProto.UINT8]))
    c.append(Case("DequantizeLinear", "DequantizeLinear", CNN, x_dtype=np.uint8, gen=u8,
                  consts=[f32(0.02), np.array(128, np.uint8)], out_types=[F]))
    c.append(Case("DynamicQuantizeLinear", "DynamicQuantizeLinear", SEQ, outputs=3,
                  out_types=[TensorProto.UINT8, F, TensorProto.UINT8]))
    c.append(Case("MatMulInteger", "MatMulInteger", [512, 768], x_dtype=np.uint8, gen=u8,
                  consts=[RNG.integers(-128, 128, [768, 768]).astype(np.int8), np.array(128, np.uint8)],
                  out_types=[TensorProto.INT32]))
    c.append(Case("QLinearMatMul", "QLinearMatMul", [512, 768], x_dtype=np.uint8, gen=u8,
                  consts=[f32(0.02), np.array(128, np.uint8), RNG.integers(-128, 128, [768, 768]).astype(np.int8),
                          f32(0.01), np.array(0, np.int8), f32(0.5), np.array(128, np.uint8)],
                  out_types=[TensorProto.UINT8]))
    c.append(Case("QLinearConv3x3", "QLinearConv", [1, 64, 56, 56], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
                  x_dtype=np.uint8, gen=u8,
                  consts=[f32(0.02), np.array(128, np.uint8),
                          RNG.integers(-128, 128, [64, 64, 3, 3]).astype(np.int8), positive([64]) * 0.01,
                          np.zeros([64], np.int8), f32(2.0), np.array(128, np.uint8),
                          RNG.integers(-1000, 1000, [64]).astype(np.int32)],
                  out_types=[TensorProto.UINT8]))
    c.append(Case("QLinearConv_dw", "QLinearConv", [1, 96, 56, 56], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                                       "group": 96},
                  x_dtype=np.uint8, gen=u8,
                  consts=[f32(0.02), np.array(128, np.uint8),
                          RNG.integers(-128, 128, [96, 1, 3, 3]).astype(np.int8), positive([96]) * 0.01,
                          np.zeros([96], np.int8), f32(0.2), np.array(128, np.uint8),
                          RNG.integers(-1000, 1000, [96]).astype(np.int32)],
                  out_types=[TensorProto.UINT8]))
    c.append(Case("ConvInteger", "ConvInteger", [1, 64, 56, 56], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
                  x_dtype=np.uint8, gen=u8,
                  consts=[RNG.integers(-128, 128, [64, 64, 3, 3]).astype(np.int8), np.array(128, np.uint8)],
                  out_types=[TensorProto.INT32]))
    return c


ONNX_DTYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.int64: TensorProto.INT64,
              np.bool_: TensorProto.BOOL, np.int32: TensorProto.INT32, np.uint8: TensorProto.UINT8,
              np.int8: TensorProto.INT8}


def build(case, out_dir):
    inputs, initializers, feeds = [], [], []
    names = []
    x = case.gen(case.x)
    x = np.asarray(x).astype(case.x_dtype)
    inputs.append(helper.make_tensor_value_info("x", ONNX_DTYPE[case.x_dtype], list(x.shape)))
    feeds.append(numpy_helper.from_array(x, "x"))
    names.append("x")
    for k, (shape, gen) in enumerate(case.extra_inputs):
        v = np.asarray(gen(shape)).astype(np.float32)
        inputs.append(helper.make_tensor_value_info(f"x{k + 1}", F, list(v.shape)))
        feeds.append(numpy_helper.from_array(v, f"x{k + 1}"))
        names.append(f"x{k + 1}")
    for k, value in enumerate(case.consts):
        if case.empty_roi and k == 0:
            names.append("")
            continue
        initializers.append(numpy_helper.from_array(np.asarray(value), f"c{k}"))
        names.append(f"c{k}")
    if case.loop_body:  # Loop(M, cond, x): the trip count and condition come before the carried value
        names = ["c0", "c1", "x"]
        body = helper.make_graph(
            [helper.make_node("Add", ["v_in", "one"], ["t"]), helper.make_node("Mul", ["t", "decay"], ["v_out"]),
             helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
             helper.make_tensor_value_info("v_in", F, list(case.x))],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("v_out", F, list(case.x))],
            [numpy_helper.from_array(np.array(1, np.float32), "one"),
             numpy_helper.from_array(np.array(0.999, np.float32), "decay")])
        case.attrs = {"body": body}
    outs = [f"y{k}" for k in range(case.outputs)]
    out_types = case.out_types or [ONNX_DTYPE[case.x_dtype if case.op != "Where" else np.float32]] * case.outputs
    node = helper.make_node(case.op, names, outs, domain=case.domain or None, **case.attrs)
    graph = helper.make_graph([node], case.name, inputs,
                              [helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, out_types)],
                              initializers)
    opsets = [helper.make_opsetid("", case.opset)]
    if case.domain:
        opsets.append(helper.make_opsetid(case.domain, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="op_sweep")
    model.ir_version = 8
    d = os.path.join(out_dir, case.name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, case.name + ".onnx"))
    for k, t in enumerate(feeds):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    return os.path.join(d, case.name + ".onnx")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    for case in cases():
        if only and not any(s.lower() in case.name.lower() for s in only):
            continue
        print(build(case, args.out))


if __name__ == "__main__":
    main()
