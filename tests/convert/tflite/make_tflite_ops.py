#!/usr/bin/python3
"""Generates the tiny single-operator .tflite models of tests/data/tflite_ops and their LiteRT.js references.

usage: make_tflite_ops.py OUT_DIR [CASE...]      (Debian: apt-get install python3-flatbuffers python3-numpy
                                                   python3-onnx; LiteRT.js in ~/.cache/litert, see
                                                   shared/tools/litert/README.md)
Each case is written as OUT_DIR/<case>/model.tflite (and ops.txt, the builtins it uses), its inputs (seeded numpy, chosen so every case is well
defined: positive values for LOG/SQRT, non-zero divisors...) as OUT_DIR/<case>/inputs/input_N.pb, then
`node tflite_refs.mjs` runs it in LiteRT.js and writes OUT_DIR/<case>/test_data_set_0 and refs.json. (Cases LiteRT.js
cannot run take their references from TF.js instead: tfjs_rnn_refs.js for recurrent layers with variable states,
tfjs_mediapipe_refs.js for MediaPipe's custom operators, tfjs_tflite_cells.js for the full LSTM and SVDF; cases needing another --opset get an opset.txt.) The models
are written with the FlatBuffers builder following TensorFlow Lite's schema.fbs (field ids in declaration order,
BuiltinOptions union ids in declaration order starting at 1).
"""
import json
import os
import shutil
import struct
import subprocess
import sys

import flatbuffers
from flatbuffers import flexbuffers
import numpy as np
from onnx import numpy_helper

LITERT = os.path.expanduser("~/.cache/litert")

# schema.fbs BuiltinOperator values used here.
OPS = dict(
    ADD=0, AVERAGE_POOL_2D=1, CONCATENATION=2, CONV_2D=3, DEPTHWISE_CONV_2D=4, DEPTH_TO_SPACE=5, DEQUANTIZE=6,
    EMBEDDING_LOOKUP=7, FLOOR=8, FULLY_CONNECTED=9, L2_NORMALIZATION=11, L2_POOL_2D=12,
    LOCAL_RESPONSE_NORMALIZATION=13, LOGISTIC=14, MAX_POOL_2D=17, MUL=18, RELU=19, RELU_N1_TO_1=20, RELU6=21,
    RESHAPE=22, RESIZE_BILINEAR=23, SOFTMAX=25, SPACE_TO_DEPTH=26, TANH=28, PAD=34, GATHER=36,
    BATCH_TO_SPACE_ND=37, SPACE_TO_BATCH_ND=38, TRANSPOSE=39, MEAN=40, SUB=41, DIV=42, SQUEEZE=43,
    STRIDED_SLICE=45, EXP=47, TOPK_V2=48, SPLIT=49, LOG_SOFTMAX=50, CAST=53, PRELU=54, MAXIMUM=55, ARG_MAX=56,
    MINIMUM=57, LESS=58, NEG=59, PADV2=60, GREATER=61, GREATER_EQUAL=62, LESS_EQUAL=63, SELECT=64, SLICE=65,
    SIN=66, TRANSPOSE_CONV=67, TILE=69, EXPAND_DIMS=70, EQUAL=71, NOT_EQUAL=72, LOG=73, SUM=74, SQRT=75, RSQRT=76,
    SHAPE=77, POW=78, ARG_MIN=79, REDUCE_PROD=81, REDUCE_MAX=82, PACK=83, LOGICAL_OR=84, ONE_HOT=85,
    LOGICAL_AND=86, LOGICAL_NOT=87, UNPACK=88, REDUCE_MIN=89, FLOOR_DIV=90, REDUCE_ANY=91, SQUARE=92,
    ZEROS_LIKE=93, FILL=94, FLOOR_MOD=95, RANGE=96, RESIZE_NEAREST_NEIGHBOR=97, LEAKY_RELU=98,
    SQUARED_DIFFERENCE=99, MIRROR_PAD=100, ABS=101, SPLIT_V=102, CEIL=104, REVERSE_V2=105, ADD_N=106,
    GATHER_ND=107, COS=108, RANK=110, ELU=111, REVERSE_SEQUENCE=112, QUANTIZE=114, ROUND=116, HARD_SWISH=117,
    UNIDIRECTIONAL_SEQUENCE_RNN=35, UNIDIRECTIONAL_SEQUENCE_LSTM=44, BIDIRECTIONAL_SEQUENCE_LSTM=52,
    NON_MAX_SUPPRESSION_V4=120, NON_MAX_SUPPRESSION_V5=121, IF=118, WHILE=119, SCATTER_ND=122, SELECT_V2=123, DENSIFY=124, BATCH_MATMUL=126, CUMSUM=128, CALL_ONCE=129,
    BROADCAST_TO=130, CONV_3D=132, REDUCE_ALL=140, GELU=150, RELU_0_TO_1=152, SIGN=158,
    HASHTABLE_LOOKUP=10, RNN=24, SVDF=27, LSTM=16, BIDIRECTIONAL_SEQUENCE_RNN=46, SPARSE_TO_DENSE=68, FAKE_QUANT=80,
    CUSTOM=32, VAR_HANDLE=142, READ_VARIABLE=143, ASSIGN_VARIABLE=144, HASHTABLE=136, HASHTABLE_FIND=137,
    HASHTABLE_IMPORT=138, HASHTABLE_SIZE=139, UNIQUE=103, WHERE=109, MATRIX_DIAG=113, MATRIX_SET_DIAG=115, SEGMENT_SUM=125, CONV_3D_TRANSPOSE=141,
    BROADCAST_ARGS=145, RANDOM_STANDARD_NORMAL=146, BUCKETIZE=147, RANDOM_UNIFORM=148, DYNAMIC_UPDATE_SLICE=151,
    UNSORTED_SEGMENT_PROD=153, UNSORTED_SEGMENT_MAX=154, UNSORTED_SEGMENT_SUM=155, ATAN2=156,
    UNSORTED_SEGMENT_MIN=157, BITWISE_XOR=160, RIGHT_SHIFT=161)

# BuiltinOptions union ids (declaration order + 1).
OPT = dict(SequenceRNN=31, BidirectionalSequenceLSTM=69, UnidirectionalSequenceLSTM=71, NonMaxSuppressionV4=95,
           NonMaxSuppressionV5=96, Conv2D=1, DepthwiseConv2D=2, Pool2D=5, FullyConnected=8, Softmax=9, Concatenation=10, Add=11, L2Norm=12,
           LocalResponseNormalization=13, ResizeBilinear=15, Reshape=17, SpaceToDepth=19, Mul=21, Pad=22, Gather=23,
           BatchToSpaceND=24, SpaceToBatchND=25, Transpose=26, Reducer=27, Sub=28, Div=29, Squeeze=30,
           StridedSlice=32, Exp=33, TopKV2=34, Split=35, LogSoftmax=36, Cast=37, Dequantize=38, MaximumMinimum=39,
           ArgMax=40, Less=41, Neg=42, PadV2=43, Greater=44, GreaterEqual=45, LessEqual=46, Select=47, Slice=48,
           TransposeConv=49, Tile=51, ExpandDims=52, Equal=53, NotEqual=54, Shape=55, Pow=56, ArgMin=57, Pack=59,
           LogicalOr=60, OneHot=61, LogicalAnd=62, LogicalNot=63, Unpack=64, FloorDiv=65, Square=66, ZerosLike=67,
           Fill=68, FloorMod=72, Range=73, ResizeNearestNeighbor=74, LeakyRelu=75, SquaredDifference=76,
           MirrorPad=77, Abs=78, SplitV=79, ReverseV2=81, AddN=82, GatherNd=83, Cos=84, Rank=86, ReverseSequence=87,
           Quantize=89, HardSwish=91, If=92, While=93, DepthToSpace=94, ScatterNd=97, SelectV2=98, Densify=99,
           BatchMatMul=101, Cumsum=102, CallOnce=103, BroadcastTo=104, Conv3D=106, Gelu=116, SVDF=6, RNN=7,
           LSTM=14, SparseToDense=50, FakeQuant=58, BidirectionalSequenceRNN=70, Unique=80, Where=85,
           MatrixDiag=88, MatrixSetDiag=90, SegmentSum=100, Random=114, Bucketize=115, DynamicUpdateSlice=117,
           UnsortedSegmentProd=118, UnsortedSegmentMax=119, UnsortedSegmentMin=120, UnsortedSegmentSum=121,
           ATan2=122, BitwiseXor=125, RightShift=126, Hashtable=107, HashtableFind=108, HashtableImport=109,
           HashtableSize=110, VarHandle=111, ReadVariable=112, AssignVariable=113)

# Operators whose version 1 LiteRT does not register.
MIN_VERSION = {OPS["BROADCAST_TO"]: 2}

TYPES = {np.float32: 0, np.float16: 1, np.int32: 2, np.uint8: 3, np.int64: 4, np.bool_: 6, np.int16: 7, np.int8: 9}


class Graph:
    """One subgraph: tensors (constants carry numpy data), operators, inputs and outputs."""

    def __init__(self, model):
        self.model, self.tensors, self.ops, self.inputs, self.outputs = model, [], [], [], []

    def tensor(self, shape, dtype=np.float32, data=None, name=None, quant=None, sparsity=None, variable=False):
        buf = 0
        if data is not None:
            data = np.asarray(data, dtype=dtype)
            shape = list(data.shape) if shape is None else shape
            buf = self.model.buffer(data.tobytes() if sparsity is None else sparsity["values"].tobytes())
        self.tensors.append(dict(shape=list(shape), type=TYPES[np.dtype(dtype).type], buffer=buf,
                                 name=name or f"t{len(self.tensors)}", quant=quant, sparsity=sparsity,
                                 variable=variable))
        return len(self.tensors) - 1

    def const(self, data, dtype=np.float32, **kw):
        return self.tensor(None, dtype, data, **kw)

    def input(self, shape, dtype=np.float32, **kw):
        i = self.tensor(shape, dtype, **kw)
        self.inputs.append(i)
        return i

    def op(self, name, ins, outs, opt=None, fields=()):
        """fields: (slot, kind, value), kind in b (int8), B (bool), i (int32), u (uint32), f (float32), I (int32 list)."""
        self.ops.append(dict(code=self.model.opcode(OPS[name]), ins=ins, outs=outs, opt=opt, fields=fields))
        return outs[0] if len(outs) == 1 else outs

    def custom_op(self, name, ins, outs, options=b"", version=1):
        """A CUSTOM operator `name` (its operator code's version) with raw custom_options bytes."""
        self.ops.append(dict(code=self.model.opcode(OPS["CUSTOM"], name, version), ins=ins, outs=outs, opt=None,
                             fields=(), custom_options=options))
        return outs[0] if len(outs) == 1 else outs


class Model:
    def __init__(self):
        self.buffers, self.codes, self.graphs = [b""], [], []

    def buffer(self, data):
        self.buffers.append(data)
        return len(self.buffers) - 1

    def opcode(self, code, custom=None, version=None):
        key = (code, custom, version or MIN_VERSION.get(code, 1))
        if key not in self.codes:
            self.codes.append(key)
        return self.codes.index(key)

    def graph(self):
        g = Graph(self)
        self.graphs.append(g)
        return g

    def serialize(self):
        b = flatbuffers.Builder(1024)

        def ints(v, elem=4, prepend=None):
            b.StartVector(elem, len(v), elem)
            for x in reversed(v):
                (prepend or b.PrependInt32)(x)
            return b.EndVector()

        def table(fields):  # fields: list of (slot, kind, value); vectors and tables are pre-built offsets
            pre = {}
            for slot, kind, value in fields:
                if kind == "I":
                    pre[slot] = ints([int(x) for x in value])
                elif kind == "F":
                    pre[slot] = ints([float(x) for x in value], 4, b.PrependFloat32)
                elif kind == "L":
                    pre[slot] = ints([int(x) for x in value], 8, b.PrependInt64)
                elif kind == "s":
                    pre[slot] = b.CreateString(value)
            b.StartObject(max([s for s, _, _ in fields], default=-1) + 1)
            for slot, kind, value in fields:
                if kind == "b":
                    b.PrependInt8Slot(slot, value, -128)
                elif kind == "ub":
                    b.PrependUint8Slot(slot, value, 255)
                elif kind == "B":
                    b.PrependBoolSlot(slot, value, not value)
                elif kind == "i":
                    b.PrependInt32Slot(slot, value, value + 1)
                elif kind == "u":
                    b.PrependUint32Slot(slot, value, value + 1)
                elif kind == "f":
                    b.PrependFloat32Slot(slot, value, value + 1)
                elif kind in ("I", "F", "L", "s"):
                    b.PrependUOffsetTRelativeSlot(slot, pre[slot], 0)
                elif kind == "o":  # a pre-built offset (table, string, vector)
                    b.PrependUOffsetTRelativeSlot(slot, value, 0)
            return b.EndObject()

        def vec_offsets(offs):
            b.StartVector(4, len(offs), 4)
            for o in reversed(offs):
                b.PrependUOffsetTRelative(o)
            return b.EndVector()

        buffers = []
        for data in self.buffers:
            if data:
                b.StartVector(1, len(data), 16)
                b.head = b.head - len(data)
                b.Bytes[b.head:b.head + len(data)] = data
                vec = b.EndVector()
                buffers.append(table([(0, "o", vec)]))
            else:
                buffers.append(table([]))
        graphs = []
        for g in self.graphs:
            tensors = []
            for t in g.tensors:
                name = b.CreateString(t["name"])
                f = [(0, "I", t["shape"]), (1, "b", t["type"]), (2, "u", t["buffer"]), (3, "o", name)]
                if t["quant"]:
                    q = t["quant"]
                    f.append((4, "o", table([(2, "F", q["scale"]), (3, "L", q["zero_point"]),
                                             (6, "i", q.get("axis", 0))])))
                if t["variable"]:
                    f.append((5, "B", True))
                if t["sparsity"]:
                    f.append((6, "o", sparsity_table(b, table, t["sparsity"])))
                tensors.append(table(f))
            ops = []
            for o in g.ops:
                f = [(0, "u", o["code"]), (1, "I", o["ins"]), (2, "I", o["outs"])]
                if o["opt"]:
                    f += [(3, "ub", OPT[o["opt"]]), (4, "o", table(list(o["fields"])))]
                if o.get("custom_options"):
                    f.append((5, "o", b.CreateByteVector(o["custom_options"])))
                ops.append(table(f))
            graphs.append(table([(0, "o", vec_offsets(tensors)), (1, "I", g.inputs), (2, "I", g.outputs),
                                 (3, "o", vec_offsets(ops))]))
        codes = []
        for c, custom, version in self.codes:
            f = [(0, "b", min(c, 127)), (2, "i", version), (3, "i", c)]
            if custom:
                f.append((1, "o", b.CreateString(custom)))
            codes.append(table(f))
        root = table([(0, "u", 3), (1, "o", vec_offsets(codes)), (2, "o", vec_offsets(graphs)),
                      (3, "o", b.CreateString("onyx tests/convert/tflite/make_tflite_ops.py")),
                      (4, "o", vec_offsets(buffers))])
        b.Finish(root, file_identifier=b"TFL3")
        return bytes(b.Output())


def sparsity_table(b, table, sp):
    """SparsityParameters with DimensionMetadata levels: ("dense", size) or ("csr", segments, indices) (int32)."""
    levels = []
    for lv in sp["levels"]:
        if lv[0] == "dense":
            levels.append(table([(0, "b", 0), (1, "i", lv[1])]))
        else:
            seg = table([(0, "I", lv[1])])
            idx = table([(0, "I", lv[2])])
            levels.append(table([(0, "b", 1), (2, "ub", 1), (3, "o", seg), (4, "ub", 1), (5, "o", idx)]))
    b.StartVector(4, len(levels), 4)
    for o in reversed(levels):
        b.PrependUOffsetTRelative(o)
    vec = b.EndVector()
    return table([(0, "I", sp["order"]), (1, "I", sp.get("block_map", [])), (2, "o", vec)])


RNG = np.random.default_rng(20261201)


def uniform(shape, lo=-3.0, hi=3.0, dtype=np.float32):
    return RNG.uniform(lo, hi, shape).astype(dtype)


def ints(shape, lo, hi, dtype=np.int32):
    return RNG.integers(lo, hi, shape).astype(dtype)


CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def single(op, in_shapes_or_data, out_shape, out_dtype=np.float32, opt=None, fields=(), consts=()):
    """A model of one operator: `in_shapes_or_data` are (numpy input data) fed at run time, `consts` constants
    appended after them; returns (model, feeds)."""
    m = Model()
    g = m.graph()
    feeds, ins = [], []
    for d in in_shapes_or_data:
        ins.append(g.input(list(d.shape), d.dtype.type, name=f"input_{len(ins)}"))
        feeds.append(d)
    for cdata, cdtype in consts:
        ins.append(g.const(cdata, cdtype))
    out = g.tensor(out_shape, out_dtype, name="output")
    g.op(op, ins, [out], opt, fields)
    g.outputs = [out]
    return m, feeds


# ---- elementwise -------------------------------------------------------------------------------------------
S = [2, 3, 4]
for _op, _lo, _hi in [("EXP", -3, 3), ("LOG", 0.1, 5), ("SIN", -3, 3), ("COS", -3, 3), ("SQRT", 0.1, 5),
                      ("RSQRT", 0.1, 5), ("ABS", -3, 3), ("NEG", -3, 3), ("SQUARE", -3, 3), ("FLOOR", -3, 3),
                      ("CEIL", -3, 3), ("ROUND", -3, 3), ("SIGN", -3, 3), ("TANH", -3, 3), ("LOGISTIC", -3, 3),
                      ("RELU", -3, 3), ("RELU6", -8, 8), ("RELU_N1_TO_1", -3, 3), ("RELU_0_TO_1", -3, 3),
                      ("ELU", -3, 3), ("HARD_SWISH", -5, 5)]:
    CASES[_op.lower()] = (lambda o, lo, hi: lambda: single(o, [uniform(S, lo, hi)], S))(_op, _lo, _hi)
CASES["gelu"] = lambda: single("GELU", [uniform(S)], S, opt="Gelu", fields=[(0, "B", False)])
CASES["gelu_tanh"] = lambda: single("GELU", [uniform(S)], S, opt="Gelu", fields=[(0, "B", True)])
CASES["leaky_relu"] = lambda: single("LEAKY_RELU", [uniform(S)], S, opt="LeakyRelu", fields=[(0, "f", 0.3)])
CASES["round_halves"] = lambda: single("ROUND", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49], np.float32)], [8])

for _op, _opt in [("ADD", "Add"), ("SUB", "Sub"), ("MUL", "Mul"), ("DIV", "Div")]:
    CASES[_op.lower() + "_relu6"] = (lambda o, p: lambda: single(o, [uniform(S), uniform([4], 0.5, 2)], S, opt=p,
                                                                 fields=[(0, "b", 3)]))(_op, _opt)
CASES["maximum"] = lambda: single("MAXIMUM", [uniform(S), uniform(S)], S)
CASES["minimum"] = lambda: single("MINIMUM", [uniform(S), uniform([3, 1])], S)
CASES["pow"] = lambda: single("POW", [uniform(S, 0.1, 3), uniform(S, -2, 2)], S)
CASES["squared_difference"] = lambda: single("SQUARED_DIFFERENCE", [uniform(S), uniform(S)], S)
CASES["floor_div"] = lambda: single("FLOOR_DIV", [uniform(S, -9, 9), uniform(S, 0.5, 3) * np.sign(uniform(S))], S)
CASES["floor_div_int"] = lambda: single("FLOOR_DIV", [ints(S, -20, 20), ints(S, 1, 6) * np.where(ints(S, 0, 2) > 0, 1, -1).astype(np.int32)], S, np.int32)
CASES["floor_mod"] = lambda: single("FLOOR_MOD", [uniform(S, -9, 9), uniform(S, 0.5, 3) * np.sign(uniform(S))], S)
CASES["floor_mod_int"] = lambda: single("FLOOR_MOD", [ints(S, -20, 20), ints(S, 1, 6) * np.where(ints(S, 0, 2) > 0, 1, -1).astype(np.int32)], S, np.int32)
CASES["prelu"] = lambda: single("PRELU", [uniform([1, 3, 3, 4])], [1, 3, 3, 4], consts=[(uniform([1, 1, 4], 0, 1), np.float32)])
CASES["add_n"] = lambda: single("ADD_N", [uniform(S), uniform(S), uniform(S)], S)
for _op in ["LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL"]:
    CASES[_op.lower()] = (lambda o: lambda: single(o, [ints(S, 0, 4), ints(S, 0, 4)], S, np.bool_))(_op)
CASES["less_float"] = lambda: single("LESS", [uniform(S), uniform([4])], S, np.bool_)
CASES["logical_and"] = lambda: single("LOGICAL_AND", [ints(S, 0, 2).astype(np.bool_), ints(S, 0, 2).astype(np.bool_)], S, np.bool_)
CASES["logical_or"] = lambda: single("LOGICAL_OR", [ints(S, 0, 2).astype(np.bool_), ints(S, 0, 2).astype(np.bool_)], S, np.bool_)
CASES["logical_not"] = lambda: single("LOGICAL_NOT", [ints(S, 0, 2).astype(np.bool_)], S, np.bool_)
CASES["select_v2"] = lambda: single("SELECT_V2", [ints([3, 1], 0, 2).astype(np.bool_), uniform(S), uniform([4])], S)
CASES["select"] = lambda: single("SELECT", [ints(S, 0, 2).astype(np.bool_), uniform(S), uniform(S)], S)
CASES["cast_float_int"] = lambda: single("CAST", [uniform(S, -9, 9)], S, np.int32)
CASES["cast_int_float"] = lambda: single("CAST", [ints(S, -9, 9)], S, np.float32)

# ---- reductions ----------------------------------------------------------------------------------------------
R = [2, 3, 4, 5]
for _op, _keep in [("SUM", False), ("MEAN", True), ("REDUCE_PROD", False), ("REDUCE_MAX", True), ("REDUCE_MIN", False)]:
    CASES[_op.lower()] = (lambda o, k: lambda: single(o, [uniform(R, 0.5, 1.5)], [2, 1, 4, 1] if k else [2, 4],
                                                      opt="Reducer", fields=[(0, "B", k)],
                                                      consts=[(np.array([1, -1]), np.int32)]))(_op, _keep)
CASES["reduce_any"] = lambda: single("REDUCE_ANY", [(uniform(R) > 2.5)], [2, 3], np.bool_, opt="Reducer",
                                     consts=[(np.array([2, 3]), np.int32)])
CASES["reduce_all"] = lambda: single("REDUCE_ALL", [(uniform(R) > -2.5)], [2, 3], np.bool_, opt="Reducer",
                                     consts=[(np.array([2, 3]), np.int32)])
CASES["arg_max"] = lambda: single("ARG_MAX", [uniform(R)], [2, 4, 5], np.int32, opt="ArgMax", fields=[(0, "b", 2)],
                                  consts=[(np.array([1]), np.int32)])
CASES["arg_min"] = lambda: single("ARG_MIN", [uniform(R)], [2, 3, 4], np.int64, opt="ArgMin", fields=[(0, "b", 4)],
                                  consts=[(np.array([-1]), np.int32)])
CASES["softmax_beta"] = lambda: single("SOFTMAX", [uniform([3, 7])], [3, 7], opt="Softmax", fields=[(0, "f", 0.5)])
CASES["log_softmax"] = lambda: single("LOG_SOFTMAX", [uniform([3, 7])], [3, 7], opt="LogSoftmax")


@case("topk_v2")
def _():
    m = Model()
    g = m.graph()
    x = g.input([3, 10], name="input")
    k = g.const(np.array(4), np.int32)
    v, i = g.tensor([3, 4], name="values"), g.tensor([3, 4], np.int32, name="indices")
    g.op("TOPK_V2", [x, k], [v, i], "TopKV2")
    g.outputs = [v, i]
    return m, [uniform([3, 10])]


CASES["cumsum"] = lambda: single("CUMSUM", [uniform([3, 5])], [3, 5], opt="Cumsum", fields=[(0, "B", False), (1, "B", False)],
                                 consts=[(np.array(1), np.int32)])
CASES["cumsum_exclusive_reverse"] = lambda: single("CUMSUM", [uniform([3, 5])], [3, 5], opt="Cumsum",
                                                   fields=[(0, "B", True), (1, "B", True)], consts=[(np.array(0), np.int32)])

# ---- shapes and arrays ---------------------------------------------------------------------------------------
CASES["squeeze"] = lambda: single("SQUEEZE", [uniform([1, 3, 1, 4])], [3, 1, 4], opt="Squeeze", fields=[(0, "I", [0])])
CASES["squeeze_all"] = lambda: single("SQUEEZE", [uniform([1, 3, 1, 4])], [3, 4], opt="Squeeze")
CASES["expand_dims"] = lambda: single("EXPAND_DIMS", [uniform([3, 4])], [3, 4, 1], opt="ExpandDims", consts=[(np.array([-1]), np.int32)])
CASES["strided_slice_shrink"] = lambda: single("STRIDED_SLICE", [uniform([4, 5, 6])], [5, 3], opt="StridedSlice",
                                               fields=[(0, "i", 0), (1, "i", 0), (4, "i", 1)],
                                               consts=[(np.array([1, 0, 0]), np.int32), (np.array([2, 5, 6]), np.int32),
                                                       (np.array([1, 1, 2]), np.int32)])
CASES["strided_slice_ellipsis"] = lambda: single("STRIDED_SLICE", [uniform([4, 5, 6])], [4, 5, 1, 2], opt="StridedSlice",
                                                 fields=[(2, "i", 1), (3, "i", 2)],
                                                 consts=[(np.array([0, 0, 1]), np.int32), (np.array([0, 0, 5]), np.int32),
                                                         (np.array([1, 1, 3]), np.int32)])
CASES["strided_slice_negative"] = lambda: single("STRIDED_SLICE", [uniform([4, 5, 6])], [4, 2, 6], opt="StridedSlice",
                                                 fields=[(0, "i", 1), (1, "i", 5)],
                                                 consts=[(np.array([0, -1, 0]), np.int32), (np.array([0, 0, 0]), np.int32),
                                                         (np.array([1, -2, 1]), np.int32)])
CASES["slice"] = lambda: single("SLICE", [uniform([4, 5, 6])], [2, 5, 3], consts=[(np.array([1, 0, 2]), np.int32),
                                                                                  (np.array([2, -1, 3]), np.int32)])


@case("split_v")
def _():
    m = Model()
    g = m.graph()
    x = g.input([4, 9], name="input")
    sizes, axis = g.const(np.array([2, -1, 3]), np.int32), g.const(np.array(1), np.int32)
    outs = [g.tensor([4, 2], name="a"), g.tensor([4, 4], name="b"), g.tensor([4, 3], name="c")]
    g.op("SPLIT_V", [x, sizes, axis], outs, "SplitV", [(0, "i", 3)])
    g.outputs = outs
    return m, [uniform([4, 9])]


@case("pack")
def _():
    m = Model()
    g = m.graph()
    a, b2 = g.input([3, 4], name="a"), g.input([3, 4], name="b")
    out = g.tensor([3, 2, 4], name="output")
    g.op("PACK", [a, b2], [out], "Pack", [(0, "i", 2), (1, "i", 1)])
    g.outputs = [out]
    return m, [uniform([3, 4]), uniform([3, 4])]


@case("unpack")
def _():
    m = Model()
    g = m.graph()
    x = g.input([3, 2, 4], name="input")
    outs = [g.tensor([3, 4], name="a"), g.tensor([3, 4], name="b")]
    g.op("UNPACK", [x], outs, "Unpack", [(0, "i", 2), (1, "i", 1)])
    g.outputs = outs
    return m, [uniform([3, 2, 4])]


CASES["tile"] = lambda: single("TILE", [uniform([2, 3])], [4, 9], consts=[(np.array([2, 3]), np.int32)])
CASES["gather"] = lambda: single("GATHER", [uniform([5, 4])], [5, 3], opt="Gather", fields=[(0, "i", 1)],
                                 consts=[(np.array([3, 0, 3]), np.int32)])
CASES["gather_runtime_indices"] = lambda: single("GATHER", [uniform([6, 4]), ints([2, 3], 0, 6)], [2, 3, 4], opt="Gather")
CASES["gather_nd"] = lambda: single("GATHER_ND", [uniform([3, 4, 5]), ints([2, 2], 0, 3)], [2, 5])
CASES["scatter_nd"] = lambda: single("SCATTER_ND", [ints([4, 1], 0, 5), uniform([4, 3])], [5, 3],
                                     consts=[(np.array([5, 3]), np.int32)])
CASES["embedding_lookup"] = lambda: single("EMBEDDING_LOOKUP", [ints([4], 0, 6)], [4, 3], consts=[(uniform([6, 3]), np.float32)])


def shape_case(op, opt, fields, out_shape):
    # LiteRT computes SHAPE / RANK at preparation into a constant tensor, which LiteRT.js does not copy out as a
    # model output: the result goes through an ADD with a second input.
    m = Model()
    g = m.graph()
    x, y = g.input([2, 3, 4], name="input"), g.input(out_shape, np.int32, name="offset")
    s = g.tensor(out_shape, np.int32, name="shape")
    g.op(op, [x], [s], opt, fields)
    out = g.tensor(out_shape, np.int32, name="output")
    g.op("ADD", [s, y], [out], "Add")
    g.outputs = [out]
    return m, [uniform([2, 3, 4]), ints(out_shape, 0, 10)]


CASES["shape"] = lambda: shape_case("SHAPE", "Shape", [(0, "b", 2)], [3])
CASES["rank"] = lambda: shape_case("RANK", "Rank", [], [])
CASES["broadcast_to"] = lambda: single("BROADCAST_TO", [uniform([3, 1])], [2, 3, 4], consts=[(np.array([2, 3, 4]), np.int32)])
CASES["fill"] = lambda: fill_case()
CASES["zeros_like"] = lambda: single("ZEROS_LIKE", [uniform(S)], S, opt="ZerosLike")
CASES["range"] = lambda: range_case()
CASES["one_hot"] = lambda: single("ONE_HOT", [ints([4], 0, 5)], [4, 5], opt="OneHot", fields=[(0, "i", -1)],
                                  consts=[(np.array(5), np.int32), (np.array(2.0), np.float32), (np.array(-1.0), np.float32)])
CASES["mirror_pad_symmetric"] = lambda: single("MIRROR_PAD", [uniform([3, 4])], [6, 7], opt="MirrorPad", fields=[(0, "b", 1)],
                                               consts=[(np.array([[1, 2], [3, 0]]), np.int32)])
CASES["mirror_pad_reflect"] = lambda: single("MIRROR_PAD", [uniform([3, 4])], [5, 7], opt="MirrorPad", fields=[(0, "b", 0)],
                                             consts=[(np.array([[1, 1], [2, 1]]), np.int32)])
CASES["padv2"] = lambda: single("PADV2", [uniform([2, 3])], [4, 6], opt="PadV2",
                                consts=[(np.array([[1, 1], [2, 1]]), np.int32), (np.array(-7.0), np.float32)])
CASES["reverse_v2"] = lambda: single("REVERSE_V2", [uniform([3, 4, 2])], [3, 4, 2], opt="ReverseV2", consts=[(np.array([1]), np.int32)])
CASES["reverse_sequence"] = lambda: single("REVERSE_SEQUENCE", [uniform([3, 5, 2])], [3, 5, 2], opt="ReverseSequence",
                                           fields=[(0, "i", 1), (1, "i", 0)], consts=[(np.array([2, 5, 1]), np.int32)])
CASES["transpose"] = lambda: single("TRANSPOSE", [uniform([2, 3, 4])], [4, 2, 3], opt="Transpose", consts=[(np.array([2, 0, 1]), np.int32)])


def fill_case():
    m = Model()
    g = m.graph()
    v = g.input([], name="value")
    dims = g.const(np.array([2, 3]), np.int32)
    out = g.tensor([2, 3], name="output")
    g.op("FILL", [dims, v], [out], "Fill")
    g.outputs = [out]
    return m, [uniform([])]


def range_case():
    m = Model()
    g = m.graph()
    x = g.input([5], name="input")
    start, limit, delta = g.const(np.array(1.0), np.float32), g.const(np.array(3.5), np.float32), g.const(np.array(0.5), np.float32)
    r = g.tensor([5], name="range")
    g.op("RANGE", [start, limit, delta], [r], "Range")
    out = g.tensor([5], name="output")
    g.op("ADD", [x, r], [out], "Add")
    g.outputs = [out]
    return m, [uniform([5])]


# ---- image and block rearrangement ---------------------------------------------------------------------------
CASES["depth_to_space"] = lambda: single("DEPTH_TO_SPACE", [uniform([1, 2, 3, 8])], [1, 4, 6, 2], opt="DepthToSpace", fields=[(0, "i", 2)])
CASES["space_to_depth"] = lambda: single("SPACE_TO_DEPTH", [uniform([1, 4, 6, 2])], [1, 2, 3, 8], opt="SpaceToDepth", fields=[(0, "i", 2)])
CASES["space_to_batch_nd"] = lambda: single("SPACE_TO_BATCH_ND", [uniform([1, 4, 5, 3])], [4, 2, 3, 3], opt="SpaceToBatchND",
                                            consts=[(np.array([2, 2]), np.int32), (np.array([[0, 0], [0, 1]]), np.int32)])
CASES["batch_to_space_nd"] = lambda: single("BATCH_TO_SPACE_ND", [uniform([4, 2, 3, 3])], [1, 4, 5, 3], opt="BatchToSpaceND",
                                            consts=[(np.array([2, 2]), np.int32), (np.array([[0, 0], [0, 1]]), np.int32)])
CASES["resize_nearest_half_pixel"] = lambda: single("RESIZE_NEAREST_NEIGHBOR", [uniform([1, 3, 4, 2])], [1, 7, 5, 2],
                                                    opt="ResizeNearestNeighbor", fields=[(1, "B", True)],
                                                    consts=[(np.array([7, 5]), np.int32)])
CASES["resize_bilinear_align"] = lambda: single("RESIZE_BILINEAR", [uniform([1, 3, 4, 2])], [1, 7, 5, 2],
                                                opt="ResizeBilinear", fields=[(2, "B", True)],
                                                consts=[(np.array([7, 5]), np.int32)])
CASES["l2_pool_2d"] = lambda: single("L2_POOL_2D", [uniform([1, 5, 5, 2])], [1, 3, 3, 2], opt="Pool2D",
                                     fields=[(0, "b", 0), (1, "i", 2), (2, "i", 2), (3, "i", 2), (4, "i", 2)])

# ---- neural network ------------------------------------------------------------------------------------------
CASES["batch_matmul"] = lambda: single("BATCH_MATMUL", [uniform([2, 3, 4]), uniform([2, 5, 4])], [2, 3, 5], opt="BatchMatMul",
                                       fields=[(0, "B", False), (1, "B", True)])
CASES["batch_matmul_broadcast"] = lambda: single("BATCH_MATMUL", [uniform([2, 4, 3]), uniform([4, 5])], [2, 3, 5],
                                                 opt="BatchMatMul", fields=[(0, "B", True)])
CASES["conv_3d"] = lambda: single("CONV_3D", [uniform([1, 4, 5, 5, 2])], [1, 4, 3, 3, 3], opt="Conv3D",
                                  fields=[(0, "b", 0), (1, "i", 1), (2, "i", 2), (3, "i", 2), (4, "b", 1)],
                                  consts=[(uniform([2, 3, 3, 2, 3], -1, 1), np.float32), (uniform([3]), np.float32)])
CASES["l2_normalization"] = lambda: single("L2_NORMALIZATION", [uniform([2, 3, 6])], [2, 3, 6], opt="L2Norm")
CASES["local_response_normalization"] = lambda: single("LOCAL_RESPONSE_NORMALIZATION", [uniform([1, 3, 3, 7])], [1, 3, 3, 7],
                                                       opt="LocalResponseNormalization",
                                                       fields=[(0, "i", 2), (1, "f", 1.5), (2, "f", 0.3), (3, "f", 0.6)])
CASES["transpose_conv_bias"] = lambda: transpose_conv_case()
CASES["fully_connected_keep_dims"] = lambda: single("FULLY_CONNECTED", [uniform([2, 3, 4])], [2, 3, 5], opt="FullyConnected",
                                                    fields=[(0, "b", 1), (2, "B", True)],
                                                    consts=[(uniform([5, 4]), np.float32), (uniform([5]), np.float32)])
CASES["average_pool_same_relu"] = lambda: single("AVERAGE_POOL_2D", [uniform([1, 5, 5, 2])], [1, 3, 3, 2], opt="Pool2D",
                                                 fields=[(0, "b", 0), (1, "i", 2), (2, "i", 2), (3, "i", 3), (4, "i", 3), (5, "b", 1)])


CASES["depthwise_conv_multiplier_dilation"] = lambda: single(
    "DEPTHWISE_CONV_2D", [uniform([1, 6, 6, 2])], [1, 6, 6, 4], opt="DepthwiseConv2D",
    fields=[(0, "b", 0), (1, "i", 1), (2, "i", 1), (3, "i", 2), (4, "b", 3), (5, "i", 2), (6, "i", 2)],
    consts=[(uniform([1, 3, 3, 4], -1, 1), np.float32), (uniform([4]), np.float32)])
CASES["max_pool_valid"] = lambda: single("MAX_POOL_2D", [uniform([1, 6, 7, 3])], [1, 2, 3, 3], opt="Pool2D",
                                         fields=[(0, "b", 1), (1, "i", 2), (2, "i", 2), (3, "i", 3), (4, "i", 3)])
CASES["concatenation_relu"] = lambda: single("CONCATENATION", [uniform([2, 3]), uniform([2, 2])], [2, 5],
                                             opt="Concatenation", fields=[(0, "i", -1), (1, "b", 1)])
CASES["reshape_new_shape_option"] = lambda: single("RESHAPE", [uniform([2, 3, 4])], [6, 4], opt="Reshape",
                                                   fields=[(0, "I", [6, -1])])


@case("split")
def _():
    m = Model()
    g = m.graph()
    axis = g.const(np.array(-1), np.int32)
    x = g.input([2, 6], name="input")
    outs = [g.tensor([2, 2], name=f"part_{k}") for k in range(3)]
    g.op("SPLIT", [axis, x], outs, "Split", [(0, "i", 3)])
    g.outputs = outs
    return m, [uniform([2, 6])]


@case("pad_quantized_uint8")
def _():
    # A quantized PAD fills with the zero point (the real value 0).
    m = Model()
    g = m.graph()
    x = g.input([1, 2, 3, 1], np.uint8, name="input", quant=q(0.1, 100))
    pads = g.const(np.array([[0, 0], [1, 1], [0, 2], [0, 0]]), np.int32)
    out = g.tensor([1, 4, 5, 1], np.uint8, name="output", quant=q(0.1, 100))
    g.op("PAD", [x, pads], [out], "Pad")
    g.outputs = [out]
    return m, [ints([1, 2, 3, 1], 0, 256, np.uint8)]


def transpose_conv_case():
    m = Model()
    g = m.graph()
    x = g.input([1, 3, 3, 2], name="input")
    shape = g.const(np.array([1, 6, 6, 4]), np.int32)
    w = g.const(uniform([4, 3, 3, 2], -1, 1))
    bias = g.const(uniform([4]))
    out = g.tensor([1, 6, 6, 4], name="output")
    g.op("TRANSPOSE_CONV", [shape, w, x, bias], [out], "TransposeConv", [(0, "b", 0), (1, "i", 2), (2, "i", 2)])
    g.outputs = [out]
    return m, [uniform([1, 3, 3, 2])]


# ---- quantization --------------------------------------------------------------------------------------------
def q(scale, zp, axis=0):
    scale = scale if isinstance(scale, list) else [scale]
    zp = zp if isinstance(zp, list) else [zp]
    return dict(scale=scale, zero_point=zp, axis=axis)


@case("quantize_int8")
def _():
    m = Model()
    g = m.graph()
    x = g.input([2, 8], name="input")
    out = g.tensor([2, 8], np.int8, name="output", quant=q(0.05, 3))
    g.op("QUANTIZE", [x], [out], "Quantize")
    g.outputs = [out]
    return m, [uniform([2, 8], -4, 4)]


@case("dequantize_uint8")
def _():
    m = Model()
    g = m.graph()
    x = g.input([2, 8], np.uint8, name="input", quant=q(0.1, 128))
    out = g.tensor([2, 8], name="output")
    g.op("DEQUANTIZE", [x], [out], "Dequantize")
    g.outputs = [out]
    return m, [ints([2, 8], 0, 256, np.uint8)]


@case("quantized_add_int8")
def _():
    m = Model()
    g = m.graph()
    a = g.input([2, 8], np.int8, name="a", quant=q(0.04, -3))
    b2 = g.input([2, 8], np.int8, name="b", quant=q(0.03, 5))
    out = g.tensor([2, 8], np.int8, name="output", quant=q(0.06, 1))
    g.op("ADD", [a, b2], [out], "Add", [(0, "b", 0)])
    g.outputs = [out]
    return m, [ints([2, 8], -128, 128, np.int8), ints([2, 8], -128, 128, np.int8)]


@case("quantized_conv_int8_per_channel")
def _():
    m = Model()
    g = m.graph()
    x = g.input([1, 5, 5, 3], np.int8, name="input", quant=q(0.02, -10))
    wq = ints([4, 3, 3, 3], -127, 128, np.int8)
    ws = [0.01, 0.02, 0.015, 0.005]
    w = g.const(wq, np.int8, quant=q(ws, [0, 0, 0, 0], 0))
    bias = g.const(ints([4], -500, 500), np.int32, quant=q([0.02 * s for s in ws], [0, 0, 0, 0], 0))
    out = g.tensor([1, 5, 5, 4], np.int8, name="output", quant=q(0.05, -5))
    g.op("CONV_2D", [x, w, bias], [out], "Conv2D", [(0, "b", 0), (1, "i", 1), (2, "i", 1), (3, "b", 1)])
    g.outputs = [out]
    return m, [ints([1, 5, 5, 3], -128, 128, np.int8)]


@case("quantized_fully_connected_int8")
def _():
    m = Model()
    g = m.graph()
    x = g.input([2, 6], np.int8, name="input", quant=q(0.03, 2))
    w = g.const(ints([4, 6], -127, 128, np.int8), np.int8, quant=q(0.01, 0))
    bias = g.const(ints([4], -300, 300), np.int32, quant=q(0.0003, 0))
    out = g.tensor([2, 4], np.int8, name="output", quant=q(0.04, -3))
    g.op("FULLY_CONNECTED", [x, w, bias], [out], "FullyConnected", [(0, "b", 0)])
    g.outputs = [out]
    return m, [ints([2, 6], -128, 128, np.int8)]


@case("densify")
def _():
    # A [3, 4] matrix stored as CSR (dense rows, sparse columns), densified before a FULLY_CONNECTED-free ADD.
    m = Model()
    g = m.graph()
    x = g.input([3, 4], name="input")
    dense = np.array([[6, 0, 9, 8], [0, 0, 0, 0], [5, 0, 0, 7]], np.float32)
    sp = dict(order=[0, 1], levels=[("dense", 3), ("csr", [0, 3, 3, 5], [0, 2, 3, 0, 3])],
              values=np.array([6, 9, 8, 5, 7], np.float32))
    s = g.tensor([3, 4], np.float32, dense, sparsity=sp)
    d = g.tensor([3, 4], name="dense")
    g.op("DENSIFY", [s], [d], "Densify")
    out = g.tensor([3, 4], name="output")
    g.op("ADD", [x, d], [out], "Add")
    g.outputs = [out]
    return m, [uniform([3, 4])]


# ---- recurrent layers ---------------------------------------------------------------------------------------
def lstm_weights(g, n_in, hidden, peephole, keras=None):
    """TFLite's per-gate LSTM tensors (i f c o): 4 input weights, 4 recurrent, 3 peepholes (or -1), 4 biases,
    2 projection slots (-1). `keras` collects the same weights in Keras' layout for the TF.js reference."""
    wn = [uniform([hidden, n_in], -0.7, 0.7) for _ in range(4)]
    rn = [uniform([hidden, hidden], -0.7, 0.7) for _ in range(4)]
    bn = [uniform([hidden], -0.5, 0.5) for _ in range(4)]
    w, r, b = [g.const(a) for a in wn], [g.const(a) for a in rn], [g.const(a) for a in bn]
    p = [g.const(uniform([hidden], -0.5, 0.5)) for _ in range(3)] if peephole else [-1, -1, -1]
    if keras is not None:
        keras += [np.concatenate([a.T for a in wn], 1), np.concatenate([a.T for a in rn], 1), np.concatenate(bn)]
    return w + r + p + b + [-1, -1]


def tfjs_spec(kind, units, x, weights):
    return dict(kind=kind, units=units, input=dict(shape=list(x.shape), data=x.ravel().tolist()),
                weights=[[list(a.shape), a.ravel().tolist()] for a in weights])


# LiteRT.js cannot run these (no variable tensors, which hold the states): TF.js's Keras layers with the same
# weights give the references (tfjs_rnn_refs.js), batch-major and without peepholes (Keras has none).
@case("lstm")
def _():
    m = Model()
    g = m.graph()
    batch, steps, n_in, hidden = 2, 5, 3, 4
    x = g.input([batch, steps, n_in], name="input")
    keras = []
    ins = [x] + lstm_weights(g, n_in, hidden, False, keras)
    ins += [g.tensor([batch, hidden], variable=True), g.tensor([batch, hidden], variable=True)] + [-1] * 4
    out = g.tensor([batch, steps, hidden], name="output")
    g.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [out], "UnidirectionalSequenceLSTM",
         [(0, "b", 4), (1, "f", 0.0), (2, "f", 0.0), (3, "B", False)])
    g.outputs = [out]
    feed = uniform([batch, steps, n_in], -1, 1)
    return m, [feed], tfjs_spec("lstm", hidden, feed, keras)


@case("bidirectional_lstm")
def _():
    m = Model()
    g = m.graph()
    batch, steps, n_in, hidden = 2, 4, 3, 5
    x = g.input([batch, steps, n_in], name="input")
    keras = []
    ins = [x] + lstm_weights(g, n_in, hidden, False, keras) + lstm_weights(g, n_in, hidden, False, keras)
    ins += [g.tensor([batch, hidden], variable=True) for _ in range(4)] + [-1] * 9
    out = g.tensor([batch, steps, 2 * hidden], name="output")
    g.op("BIDIRECTIONAL_SEQUENCE_LSTM", ins, [out], "BidirectionalSequenceLSTM",
         [(0, "b", 4), (1, "f", 0.0), (2, "f", 0.0), (3, "B", True), (4, "B", False)])
    g.outputs = [out]
    feed = uniform([batch, steps, n_in], -1, 1)
    return m, [feed], tfjs_spec("bilstm", hidden, feed, keras)


@case("rnn")
def _():
    m = Model()
    g = m.graph()
    batch, steps, n_in, hidden = 2, 5, 3, 4
    x = g.input([batch, steps, n_in], name="input")
    w, r, b = uniform([hidden, n_in], -0.7, 0.7), uniform([hidden, hidden], -0.7, 0.7), uniform([hidden], -0.5, 0.5)
    ins = [x, g.const(w), g.const(r), g.const(b), g.tensor([batch, hidden], variable=True)]
    out = g.tensor([batch, steps, hidden], name="output")
    g.op("UNIDIRECTIONAL_SEQUENCE_RNN", ins, [out], "SequenceRNN", [(0, "B", False), (1, "b", 4)])
    g.outputs = [out]
    feed = uniform([batch, steps, n_in], -1, 1)
    return m, [feed], tfjs_spec("rnn", hidden, feed, [w.T, r.T, b])


# ---- detection -----------------------------------------------------------------------------------------------
def nms_case(v5):
    m = Model()
    g = m.graph()
    n = 8
    boxes, scores = g.input([n, 4], name="boxes"), g.input([n], name="scores")
    # Overlapping boxes and a score threshold: some boxes are suppressed, the rest of the output is padding.
    consts = [g.const(np.array(6), np.int32), g.const(np.array(0.3), np.float32), g.const(np.array(0.3), np.float32)]
    if v5:
        consts.append(g.const(np.array(0.0), np.float32))
    sel, valid = g.tensor([6], np.int32, name="selected_indices"), g.tensor([], np.int32, name="valid_outputs")
    outs = [sel, g.tensor([6], name="selected_scores"), valid] if v5 else [sel, valid]
    g.op("NON_MAX_SUPPRESSION_V5" if v5 else "NON_MAX_SUPPRESSION_V4", [boxes, scores] + consts, outs,
         "NonMaxSuppressionV5" if v5 else "NonMaxSuppressionV4")
    g.outputs = outs
    centers = uniform([n, 2], 0.35, 0.65)
    half = uniform([n, 2], 0.08, 0.2)
    b = np.concatenate([centers - half, centers + half], axis=1).astype(np.float32)  # y1, x1, y2, x2
    return m, [b, RNG.permutation(np.linspace(0.05, 0.95, n)).astype(np.float32)]


CASES["non_max_suppression_v4"] = lambda: nms_case(False)
CASES["non_max_suppression_v5"] = lambda: nms_case(True)


# ---- control flow --------------------------------------------------------------------------------------------
@case("while_loop")
def _():
    # i, x = 0, x; while i < 5: i, x = i + 1, x * 1.5 + 1
    m = Model()
    g = m.graph()
    x = g.input([2, 3], name="input")
    i0 = g.const(np.array(0), np.int32)
    i_out, x_out = g.tensor([], np.int32, name="i_out"), g.tensor([2, 3], name="output")
    g.op("WHILE", [i0, x], [i_out, x_out], "While", [(0, "i", 1), (1, "i", 2)])
    g.outputs = [x_out]
    cond = m.graph()
    ci, cx = cond.input([], np.int32, name="i"), cond.input([2, 3], name="x")
    lim = cond.const(np.array(5), np.int32)
    c = cond.tensor([], np.bool_, name="c")
    cond.op("LESS", [ci, lim], [c])
    cond.outputs = [c]
    body = m.graph()
    bi, bx = body.input([], np.int32, name="i"), body.input([2, 3], name="x")
    one, k, one_f = body.const(np.array(1), np.int32), body.const(np.array(1.5), np.float32), body.const(np.array(1.0), np.float32)
    ni, t, nx = body.tensor([], np.int32, name="ni"), body.tensor([2, 3], name="t"), body.tensor([2, 3], name="nx")
    body.op("ADD", [bi, one], [ni], "Add")
    body.op("MUL", [bx, k], [t], "Mul")
    body.op("ADD", [t, one_f], [nx], "Add")
    body.outputs = [ni, nx]
    return m, [uniform([2, 3])]


@case("if_branches")
def _():
    # out = flag ? x * 2 : x - 1
    m = Model()
    g = m.graph()
    flag, x = g.input([], np.bool_, name="flag"), g.input([2, 3], name="input")
    out = g.tensor([2, 3], name="output")
    g.op("IF", [flag, x], [out], "If", [(0, "i", 1), (1, "i", 2)])
    g.outputs = [out]
    for sub, (opname, val) in ((m.graph(), ("MUL", 2.0)), (m.graph(), ("SUB", 1.0))):
        sx = sub.input([2, 3], name="x")
        cst = sub.const(np.array(val), np.float32)
        so = sub.tensor([2, 3], name="y")
        sub.op(opname, [sx, cst], [so])
        sub.outputs = [so]
    return m, [np.array(True), uniform([2, 3])]


# ---- the remaining builtins (issue 15) ------------------------------------------------------------------------
@case("atan2")
def _():
    # Random points in every quadrant, then the axes (x = 0 both signs of y, y = 0 both signs of x).
    y = np.concatenate([uniform([10]), np.array([1.5, -2.0, 0.0, 0.0], np.float32)])
    x = np.concatenate([uniform([10]), np.array([0.0, 0.0, 2.0, -2.0], np.float32)])
    return single("ATAN2", [y, x], [14], opt="ATan2")


CASES["right_shift"] = lambda: single("RIGHT_SHIFT", [ints([3, 4], -100000, 100000), ints([4], 0, 32)], [3, 4], np.int32,
                                      opt="RightShift")
CASES["right_shift_uint8"] = lambda: single("RIGHT_SHIFT", [ints([3, 4], 0, 256, np.uint8), ints([3, 4], 0, 8, np.uint8)],
                                            [3, 4], np.uint8, opt="RightShift")
CASES["bitwise_xor"] = lambda: single("BITWISE_XOR", [ints([3, 4], -2**31, 2**31 - 1), ints([4], -2**31, 2**31 - 1)],
                                      [3, 4], np.int32, opt="BitwiseXor")
CASES["bitwise_xor_int8"] = lambda: single("BITWISE_XOR", [ints([3, 4], -128, 128, np.int8), ints([3, 4], -128, 128, np.int8)],
                                           [3, 4], np.int8, opt="BitwiseXor")


def through_add(g, seg, shape, dtype):
    """LiteRT.js copies out garbage for a segment operator's output (LiteRT sizes it at run time, into its own
    buffer): the result goes through an ADD with a second input, whose output LiteRT.js reads correctly."""
    offset = g.input(shape, dtype, name="offset")
    out = g.tensor(shape, dtype, name="output")
    g.op("ADD", [seg, offset], [out], "Add")
    g.outputs = [out]
    return (uniform(shape) if dtype == np.float32 else ints(shape, -5, 5)).astype(dtype)


def unsorted_segment_case(op, opt, data, ids, segments, out_dtype=np.float32):
    m = Model()
    g = m.graph()
    x = g.input(list(data.shape), data.dtype.type, name="data")
    i = g.input(list(ids.shape), np.int32, name="segment_ids")
    n = g.const(np.array([segments]), np.int32)
    shape = [segments] + list(data.shape[ids.ndim:])
    seg = g.tensor(shape, out_dtype, name="segments")
    g.op(op, [x, i, n], [seg], opt)
    return m, [data, ids, through_add(g, seg, shape, out_dtype)]


# Segment 4 gets no row: sum 0, product 1, max the type's lowest value, min its highest.
for _op, _opt in [("UNSORTED_SEGMENT_SUM", "UnsortedSegmentSum"), ("UNSORTED_SEGMENT_PROD", "UnsortedSegmentProd"),
                  ("UNSORTED_SEGMENT_MAX", "UnsortedSegmentMax"), ("UNSORTED_SEGMENT_MIN", "UnsortedSegmentMin")]:
    CASES[_op.lower()] = (lambda o, p: lambda: unsorted_segment_case(
        o, p, uniform([7, 3], 0.5, 1.5), np.array([2, 0, 3, 2, 0, 0, 1], np.int32), 5))(_op, _opt)
CASES["unsorted_segment_sum_2d_ids"] = lambda: unsorted_segment_case(
    "UNSORTED_SEGMENT_SUM", "UnsortedSegmentSum", ints([2, 3, 4], -50, 50), ints([2, 3], 0, 3), 3, np.int32)


@case("segment_sum")
def _():
    m = Model()
    g = m.graph()
    x = g.input([6, 3], name="data")
    ids = g.input([6], np.int32, name="segment_ids")
    seg = g.tensor([3, 3], name="segments")
    g.op("SEGMENT_SUM", [x, ids], [seg], "SegmentSum")
    feeds = [uniform([6, 3]), np.array([0, 0, 1, 2, 2, 2], np.int32)]  # sorted without gaps, as TFLite requires
    return m, feeds + [through_add(g, seg, [3, 3], np.float32)]


# The start [3, -1] is clamped to [2, 0] so the update fits.
CASES["dynamic_update_slice"] = lambda: single("DYNAMIC_UPDATE_SLICE", [uniform([4, 5]), uniform([2, 3]),
                                                                        np.array([3, -1], np.int32)], [4, 5],
                                               opt="DynamicUpdateSlice")
CASES["matrix_diag"] = lambda: single("MATRIX_DIAG", [uniform([2, 3])], [2, 3, 3], opt="MatrixDiag")
CASES["matrix_set_diag"] = lambda: single("MATRIX_SET_DIAG", [uniform([2, 3, 4]), uniform([2, 3])], [2, 3, 4],
                                          opt="MatrixSetDiag")
CASES["bucketize"] = lambda: single("BUCKETIZE", [np.concatenate([uniform([10]), np.array([-0.5, 1.5], np.float32)])],
                                    [12], np.int32, opt="Bucketize", fields=[(0, "F", [-2.0, -0.5, 0.0, 1.5])])
CASES["broadcast_args"] = lambda: single("BROADCAST_ARGS", [np.array([2, 1, 4], np.int32), np.array([3, 1], np.int32)],
                                         [3], np.int32)


@case("where")
def _():
    # WHERE's output size depends on the data (LiteRT.js cannot copy out a dynamic output): its [N, 2] indices
    # are summed over N, giving the sums of the row and column indices of the true elements.
    m = Model()
    g = m.graph()
    x = g.input([4, 5], np.bool_, name="condition")
    idx = g.tensor([7, 2], np.int64, name="indices")
    g.op("WHERE", [x], [idx], "Where")
    axis = g.const(np.array([0]), np.int32)
    out = g.tensor([2], np.int64, name="output")
    g.op("SUM", [idx, axis], [out], "Reducer", [(0, "B", False)])
    g.outputs = [out]
    return m, [uniform([4, 5]) > 0.5]


CASES["gather_batch_dims"] = lambda: single("GATHER", [uniform([2, 3, 5]), ints([2, 4], 0, 3)], [2, 4, 5], opt="Gather",
                                            fields=[(0, "i", 1), (1, "i", 1)])
CASES["gather_batch_dims_inner_axis"] = lambda: single("GATHER", [uniform([2, 3, 5]), ints([2, 4], 0, 5)], [2, 3, 4],
                                                       opt="Gather", fields=[(0, "i", 2), (1, "i", 1)])


@case("unique")
def _():
    # UNIQUE's values have a data-dependent size: the case checks idx (each element's index among the unique
    # values, in order of first occurrence).
    m = Model()
    g = m.graph()
    x = g.input([9], name="input")
    y, idx = g.tensor([9], name="unique"), g.tensor([9], np.int32, name="idx")
    g.op("UNIQUE", [x], [y, idx], "Unique", [(0, "b", 2)])
    g.outputs = [idx]
    return m, [np.array([2.5, -1, 2.5, 7, -1, 0, 7, 3, 2.5], np.float32)]


@case("sparse_to_dense")
def _():
    m = Model()
    g = m.graph()
    values = g.input([3], name="values")
    indices = g.const(np.array([[0, 1], [2, 3], [1, 0]]), np.int32)
    shape, default = g.const(np.array([3, 4]), np.int32), g.const(np.array(0.5), np.float32)
    out = g.tensor([3, 4], name="output")
    g.op("SPARSE_TO_DENSE", [indices, shape, values, default], [out], "SparseToDense", [(0, "B", False)])
    g.outputs = [out]
    return m, [uniform([3])]


CASES["fake_quant"] = lambda: single("FAKE_QUANT", [uniform([2, 8], -4, 4)], [2, 8], opt="FakeQuant",
                                     fields=[(0, "f", -2.0), (1, "f", 3.0), (2, "i", 8), (3, "B", False)])
# (TFLite refuses narrow_range at run time: "only meant to be applied to weights".)
CASES["fake_quant_4bit"] = lambda: single("FAKE_QUANT", [uniform([2, 8], -4, 4)], [2, 8], opt="FakeQuant",
                                          fields=[(0, "f", -1.3), (1, "f", 2.1), (2, "i", 4), (3, "B", False)])


@case("hashtable_lookup")
def _():
    m = Model()
    g = m.graph()
    lookup = g.input([6], np.int32, name="lookup")
    keys = g.const(np.array([-3, 2, 5, 11]), np.int32)  # sorted, as TFLite's binary search needs
    values = g.const(uniform([4, 3]))
    out, hits = g.tensor([6, 3], name="output"), g.tensor([6], np.uint8, name="hits")
    g.op("HASHTABLE_LOOKUP", [lookup, keys, values], [out, hits])
    g.outputs = [out, hits]
    return m, [np.array([5, 0, -3, 11, 7, 2], np.int32)]


def random_case(op, check):
    # Random draws differ between runtimes: the case checks their shape and range ([0, 1) for RANDOM_UNIFORM,
    # |x| < bound for RANDOM_STANDARD_NORMAL), giving an all-true bool tensor.
    m = Model()
    g = m.graph()
    bound = g.input([], name="bound")
    shape = g.const(np.array([3, 4]), np.int32)
    r = g.tensor([3, 4], name="draws")
    g.op(op, [shape], [r], "Random")
    out = g.tensor([3, 4], np.bool_, name="output")
    if check == "unit":
        zero = g.const(np.array(0.0), np.float32)
        ge, lt = g.tensor([3, 4], np.bool_), g.tensor([3, 4], np.bool_)
        g.op("GREATER_EQUAL", [r, zero], [ge])
        g.op("LESS", [r, bound], [lt])
        g.op("LOGICAL_AND", [ge, lt], [out])
    else:
        a = g.tensor([3, 4])
        g.op("ABS", [r], [a])
        g.op("LESS", [a, bound], [out])
    g.outputs = [out]
    return m, [np.array(1.0 if check == "unit" else 10.0, np.float32)]


CASES["random_uniform"] = lambda: random_case("RANDOM_UNIFORM", "unit")
CASES["random_standard_normal"] = lambda: random_case("RANDOM_STANDARD_NORMAL", "bound")


@case("conv_3d_transpose")
def _():
    m = Model()
    g = m.graph()
    x = g.input([1, 2, 3, 3, 2], name="input")
    shape = g.const(np.array([1, 4, 6, 6, 3]), np.int32)
    w = g.const(uniform([2, 3, 3, 3, 2], -1, 1))  # [D, H, W, out, in]
    bias = g.const(uniform([3]))
    out = g.tensor([1, 4, 6, 6, 3], name="output")
    g.op("CONV_3D_TRANSPOSE", [shape, w, x, bias], [out], "Conv3D",
         [(0, "b", 0), (1, "i", 2), (2, "i", 2), (3, "i", 2), (4, "b", 1)])
    g.outputs = [out]
    return m, [uniform([1, 2, 3, 3, 2])]


@case("rnn_cell")
def _():
    # RNN (one step from the zero state a variable tensor starts with): TF.js's SimpleRNN over a one-step sequence.
    m = Model()
    g = m.graph()
    batch, n_in, hidden = 2, 3, 4
    x = g.input([batch, n_in], name="input")
    w, r, b = uniform([hidden, n_in], -0.7, 0.7), uniform([hidden, hidden], -0.7, 0.7), uniform([hidden], -0.5, 0.5)
    out = g.tensor([batch, hidden], name="output")
    g.op("RNN", [x, g.const(w), g.const(r), g.const(b), g.tensor([batch, hidden], variable=True)], [out], "RNN",
         [(0, "b", 4)])
    g.outputs = [out]
    feed = uniform([batch, n_in], -1, 1)
    spec = tfjs_spec("rnn", hidden, feed.reshape(batch, 1, n_in), [w.T, r.T, b])
    spec["output_shape"] = [batch, hidden]
    return m, [feed], spec


@case("bidirectional_rnn")
def _():
    m = Model()
    g = m.graph()
    batch, steps, n_in, hidden = 2, 4, 3, 5
    x = g.input([batch, steps, n_in], name="input")
    ins, keras = [x], []
    for _ in range(2):
        w, r, b = uniform([hidden, n_in], -0.7, 0.7), uniform([hidden, hidden], -0.7, 0.7), uniform([hidden], -0.5, 0.5)
        ins += [g.const(w), g.const(r), g.const(b), g.tensor([batch, hidden], variable=True)]
        keras += [w.T, r.T, b]
    out = g.tensor([batch, steps, 2 * hidden], name="output")
    g.op("BIDIRECTIONAL_SEQUENCE_RNN", ins + [-1, -1, -1], [out], "BidirectionalSequenceRNN",
         [(0, "B", False), (1, "b", 4), (2, "B", True)])
    g.outputs = [out]
    feed = uniform([batch, steps, n_in], -1, 1)
    return m, [feed], tfjs_spec("birnn", hidden, feed, keras)


# ---- MediaPipe custom operators (issue 15) -------------------------------------------------------------------
# LiteRT.js cannot run them (they live in MediaPipe's op resolver): tfjs_mediapipe_refs.js computes each with TF.js
# ops (tf.maxPoolWithArgmax, tf.scatterND, tf.matMul, tf.image.transform, tf.atan2) on the same inputs.
# ---- the full LSTM and SVDF (issue 15): TF.js ops spell out TFLite's float kernels (tfjs_tflite_cells.js) ----------
def arr(a):
    return None if a is None else dict(shape=list(a.shape), data=a.ravel().tolist())


def full_lstm_weights(g, n_in, n_cell, n_out=None, cifg=False, peephole=False, proj_bias=False, layer_norm=False):
    """The 16 weight inputs of TFLite's LSTMs (input weights i f c o, recurrent i f c o, peepholes i f o, biases
    i f c o, projection weights and bias; -1 where omitted) and the 4 layer-norm coefficients (or None), with the
    same arrays for the TF.js reference. n_out: the projection's size (None: no projection)."""
    rec = n_out or n_cell
    gates = [None] + [0] * 3 if cifg else [0] * 4
    w = [None if k is None else uniform([n_cell, n_in], -0.7, 0.7) for k in gates]
    r = [None if k is None else uniform([n_cell, rec], -0.7, 0.7) for k in gates]
    b = [None if k is None else uniform([n_cell], -0.5, 0.5) for k in gates]
    p = [None if (cifg and k == 0) or not peephole else uniform([n_cell], -0.5, 0.5) for k in range(3)]
    ln = [None if k is None else uniform([n_cell], 0.5, 1.5) for k in gates] if layer_norm else [None] * 4
    proj = uniform([n_out, n_cell], -0.7, 0.7) if n_out else None
    pb = uniform([n_out], -0.3, 0.3) if n_out and proj_bias else None
    ids = lambda arrays: [-1 if a is None else g.const(a) for a in arrays]
    ins = ids(w) + ids(r) + ids(p) + ids(b) + ids([proj, pb])
    spec = dict(w=[arr(a) for a in w], r=[arr(a) for a in r], p=[arr(a) for a in p], b=[arr(a) for a in b],
                ln=[arr(a) for a in ln], proj=arr(proj), proj_bias=arr(pb))
    return ins, (ids(ln) if layer_norm else None), spec


def lstm_spec(x_time_major, weights, activation, cell_clip, proj_clip):
    return dict(kind="lstm", x=arr(x_time_major), weights=weights, activation=activation, cell_clip=cell_clip,
                proj_clip=proj_clip)


@case("lstm_peephole_projection")
def _():
    # Batch-major, peepholes, a projection with bias, both clips (small enough to bind).
    m = Model()
    g = m.graph()
    batch, steps, n_in, n_cell, n_out = 2, 4, 3, 5, 3
    x = g.input([batch, steps, n_in], name="input")
    ins, _, spec = full_lstm_weights(g, n_in, n_cell, n_out, peephole=True, proj_bias=True)
    ins = [x] + ins + [g.tensor([batch, n_out], variable=True), g.tensor([batch, n_cell], variable=True)]
    out = g.tensor([batch, steps, n_out], name="output")
    g.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [out], "UnidirectionalSequenceLSTM",
         [(0, "b", 4), (1, "f", 0.6), (2, "f", 0.4), (3, "B", False)])
    g.outputs = [out]
    feed = uniform([batch, steps, n_in], -1.5, 1.5)
    specs = [lstm_spec(feed.transpose(1, 0, 2), spec, 4, 0.6, 0.4)]
    return m, [feed], dict(script="cells", specs=specs, combine=lambda ys: [ys[0].transpose(1, 0, 2)])


@case("lstm_cifg_layer_norm")
def _():
    # Time-major, CIFG (no input gate), layer-normalized gates, relu6 cell activation.
    m = Model()
    g = m.graph()
    steps, batch, n_in, n_cell = 3, 2, 4, 5
    x = g.input([steps, batch, n_in], name="input")
    ins, ln, spec = full_lstm_weights(g, n_in, n_cell, cifg=True, layer_norm=True)
    ins = [x] + ins + [g.tensor([batch, n_cell], variable=True), g.tensor([batch, n_cell], variable=True)] + ln
    out = g.tensor([steps, batch, n_cell], name="output")
    g.op("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [out], "UnidirectionalSequenceLSTM",
         [(0, "b", 3), (1, "f", 0.0), (2, "f", 0.0), (3, "B", True)])
    g.outputs = [out]
    feed = uniform([steps, batch, n_in], -1, 1)
    return m, [feed], dict(script="cells", specs=[lstm_spec(feed, spec, 3, 0, 0)], combine=lambda ys: ys)


@case("bidirectional_lstm_cifg_projection")
def _():
    # Two outputs (merge_outputs false), batch-major; CIFG with peepholes, a projection without bias, cell_clip.
    m = Model()
    g = m.graph()
    batch, steps, n_in, n_cell, n_out = 2, 3, 3, 4, 2
    x = g.input([batch, steps, n_in], name="input")
    fw, _, fw_spec = full_lstm_weights(g, n_in, n_cell, n_out, cifg=True, peephole=True)
    bw, _, bw_spec = full_lstm_weights(g, n_in, n_cell, n_out, cifg=True, peephole=True)
    states = [g.tensor([batch, n], variable=True) for n in (n_out, n_cell, n_out, n_cell)]
    ins = [x] + fw + bw + states + [-1] * 9
    outs = [g.tensor([batch, steps, n_out], name="forward"), g.tensor([batch, steps, n_out], name="backward")]
    g.op("BIDIRECTIONAL_SEQUENCE_LSTM", ins, outs, "BidirectionalSequenceLSTM",
         [(0, "b", 4), (1, "f", 0.7), (2, "f", 0.0), (3, "B", False), (4, "B", False)])
    g.outputs = outs
    feed = uniform([batch, steps, n_in], -1.5, 1.5)
    tm = feed.transpose(1, 0, 2)
    specs = [lstm_spec(tm, fw_spec, 4, 0.7, 0), lstm_spec(tm[::-1].copy(), bw_spec, 4, 0.7, 0)]
    return m, [feed], dict(script="cells", specs=specs,
                           combine=lambda ys: [ys[0].transpose(1, 0, 2), ys[1][::-1].transpose(1, 0, 2)])


@case("lstm_cell_full")
def _():
    # The LSTM builtin (one step, full kernel): peepholes, layer norm, a projection with bias, both clips.
    m = Model()
    g = m.graph()
    batch, n_in, n_cell, n_out = 3, 4, 6, 3
    x = g.input([batch, n_in], name="input")
    ins, ln, spec = full_lstm_weights(g, n_in, n_cell, n_out, peephole=True, proj_bias=True, layer_norm=True)
    ins = [x] + ins + [g.tensor([batch, n_out], variable=True), g.tensor([batch, n_cell], variable=True)] + ln
    out = g.tensor([batch, n_out], name="output")
    g.op("LSTM", ins, [out], "LSTM", [(0, "b", 4), (1, "f", 0.5), (2, "f", 0.3), (3, "b", 0)])
    g.outputs = [out]
    feed = uniform([batch, n_in], -1.5, 1.5)
    return m, [feed], dict(script="cells", specs=[lstm_spec(feed[None], spec, 4, 0.5, 0.3)], combine=lambda ys: [ys[0][0]])


def svdf_case(batch, n_in, filters, memory, rank, activation, bias):
    m = Model()
    g = m.graph()
    x = g.input([batch, n_in], name="input")
    feature, time = uniform([filters, n_in], -1, 1), uniform([filters, memory], -1, 1)
    b = uniform([filters // rank], -0.5, 0.5) if bias else None
    ins = [x, g.const(feature), g.const(time), -1 if b is None else g.const(b),
           g.tensor([batch, filters * memory], variable=True)]
    out = g.tensor([batch, filters // rank], name="output")
    g.op("SVDF", ins, [out], "SVDF", [(0, "i", rank), (1, "b", activation)])
    g.outputs = [out]
    feed = uniform([batch, n_in], -1, 1)
    spec = dict(kind="svdf", x=arr(feed), rank=rank, activation=activation, feature=arr(feature), time=arr(time),
                bias=arr(b))
    return m, [feed], dict(script="cells", specs=[spec], combine=lambda ys: ys)


CASES["svdf_rank2_relu"] = lambda: svdf_case(2, 5, 8, 3, 2, 1, True)
CASES["svdf_rank1"] = lambda: svdf_case(3, 4, 3, 4, 1, 0, False)


def pool_params(padding, stride, filt, activation=0):
    """TfLitePoolParams as raw custom options: padding (1 SAME, 2 VALID), stride w/h, filter w/h, activation, and
    the computed padding (4 ints) the kernel fills in itself."""
    return struct.pack("<10i", 1 if padding == "same" else 2, stride[1], stride[0], filt[1], filt[0], activation,
                       0, 0, 0, 0)


def mp_spec(kind, feeds, **kw):
    return dict(kind=kind, script="mediapipe",
                inputs=[dict(shape=list(f.shape), data=f.ravel().tolist()) for f in feeds], **kw)


def max_pool_argmax_case(in_shape, filt, stride, padding, out_hw):
    m = Model()
    g = m.graph()
    x = g.input(in_shape, name="input")
    out_shape = [in_shape[0], out_hw[0], out_hw[1], in_shape[3]]
    y, idx = g.tensor(out_shape, name="output"), g.tensor(out_shape, name="indices")
    g.custom_op("MaxPoolingWithArgmax2D", [x], [y, idx], pool_params(padding, stride, filt))
    g.outputs = [y, idx]
    feed = uniform(in_shape)
    return m, [feed], mp_spec("max_pool_argmax", [feed], filter=filt, strides=stride, pad=padding)


CASES["mp_max_pool_argmax_same"] = lambda: max_pool_argmax_case([1, 5, 7, 3], [2, 2], [2, 2], "same", [3, 4])
CASES["mp_max_pool_argmax_overlap"] = lambda: max_pool_argmax_case([2, 7, 6, 2], [3, 3], [2, 2], "same", [4, 3])
CASES["mp_max_pool_argmax_valid"] = lambda: max_pool_argmax_case([1, 6, 8, 2], [3, 2], [3, 2], "valid", [2, 4])


@case("mp_max_unpool")
def _():
    m = Model()
    g = m.graph()
    x, idx = g.input([1, 3, 4, 2], name="input"), g.input([1, 3, 4, 2], name="indices")
    out = g.tensor([1, 6, 8, 2], name="output")
    g.custom_op("MaxUnpooling2D", [x, idx], [out], pool_params("same", [2, 2], [2, 2]))
    g.outputs = [out]
    feeds = [uniform([1, 3, 4, 2]), (ints([1, 3, 4, 2], 0, 4) + 0.1).astype(np.float32)]
    return m, feeds, mp_spec("max_unpool", feeds, filter=[2, 2])


def affine_matrix(angle, scale, tx, ty):
    """A [1, 4, 4] matrix whose first two rows map (x, y) to scale * R(angle) (x, y) + (tx, ty)."""
    c, s = np.cos(angle) * scale, np.sin(angle) * scale
    return np.array([[[c, -s, 0, tx], [s, c, 0, ty], [0, 0, 1, 0], [0, 0, 0, 1]]], np.float32)


def transform_landmarks_case(n, d):
    m = Model()
    g = m.graph()
    lm, mat = g.input([1, n, d], name="landmarks"), g.input([1, 4, 4], name="matrix")
    out = g.tensor([1, n, d], name="output")
    g.custom_op("TransformLandmarks", [lm, mat], [out], flexbuffers.Dumps({"dimensions": d}), version=2)
    g.outputs = [out]
    feeds = [uniform([1, n, d], 0, 64), affine_matrix(0.4, 1.3, 5.0, -3.0)]
    return m, feeds, mp_spec("transform_landmarks", feeds)


CASES["mp_transform_landmarks"] = lambda: transform_landmarks_case(10, 3)
CASES["mp_transform_landmarks_2d"] = lambda: transform_landmarks_case(6, 2)


def transform_landmarks_v1_case(shape, options, dims, scale):
    # Version 1: 4-D landmarks, FlexBuffers options (omitted ones take the kernel's defaults: 3 dimensions, scale 1).
    m = Model()
    g = m.graph()
    lm, mat = g.input(shape, name="landmarks"), g.input([1, 4, 4], name="matrix")
    out = g.tensor(shape, name="output")
    g.custom_op("TransformLandmarks", [lm, mat], [out], flexbuffers.Dumps(options), version=1)
    g.outputs = [out]
    feeds = [uniform(shape, 0, 64), affine_matrix(-0.7, 0.8, 3.0, 9.0)]
    return m, feeds, mp_spec("transform_landmarks_v1", feeds, dims=dims, scale=scale)


CASES["mp_transform_landmarks_v1"] = lambda: transform_landmarks_v1_case([1, 2, 3, 12], {"dimensions": 3, "scale": 2.5}, 3, 2.5)
CASES["mp_transform_landmarks_v1_2d"] = lambda: transform_landmarks_v1_case([1, 1, 5, 4], {"dimensions": 2}, 2, 1.0)


def transform_tensor_case(version, name="TransformTensorBilinear"):
    # Some source points fall outside the input (those pixels are zero), some on the border band.
    h, w, oh, ow = 8, 10, 6, 7
    m = Model()
    g = m.graph()
    x, mat = g.input([1, h, w, 3], name="input"), g.input([1, 4, 4], name="matrix")
    out = g.tensor([1, oh, ow, 3], name="output")
    g.custom_op(name, [x, mat], [out],
                flexbuffers.Dumps({"mode": 1, "output_size": [oh, ow], "align_corners": False}), version=version)
    g.outputs = [out]
    matrix = affine_matrix(0.35, 1.25, 2.2, -1.6)
    feeds = [uniform([1, h, w, 3]), matrix]
    return m, feeds, mp_spec("transform_tensor", feeds, output=[oh, ow], half_pixel=version >= 2)


CASES["mp_transform_tensor_bilinear"] = lambda: transform_tensor_case(2)
CASES["mp_transform_tensor_bilinear_v1"] = lambda: transform_tensor_case(1)
CASES["mp_transform_tensor_v1_name"] = lambda: transform_tensor_case(1, "TransformTensor")


def flex_options(options):
    """A FlexBuffers map as MediaPipe's converters write custom options: lists of ints as typed vectors (what
    flexbuffers' AsTypedVector reads), floats as floats, ints as ints."""
    b = flexbuffers.Builder()
    with b.Map():
        for key, v in options.items():
            if isinstance(v, list):
                b.TypedVectorFromElements(key, v, flexbuffers.Type.INT)
            elif isinstance(v, float):
                b.Float(key, v)
            else:
                b.Int(key, v)
    return bytes(b.Finish())


def landmarks_to_matrix_case(version, shape, options, seed):
    # Landmarks2TransformMatrix: [x, y] in an image of a few hundred pixels, z small; the output is [1, 4, 4].
    m = Model()
    g = m.graph()
    lm = g.input(shape, name="landmarks")
    out = g.tensor([1, 4, 4], name="matrix")
    g.custom_op("Landmarks2TransformMatrix", [lm], [out], flex_options(options), version=version)
    g.outputs = [out]
    rng = np.random.default_rng(seed)
    points = rng.uniform([20, 20, -10], [300, 220, 10], [int(np.prod(shape)) // 3, 3]).astype(np.float32)
    feed = points.reshape(shape)
    return m, [feed], mp_spec("landmarks_to_matrix", [feed], version=version, options=options)


# Version 2 as in the hand and face landmark pipelines: an odd-length subset (its last index is paired with itself).
CASES["mp_landmarks_to_matrix"] = lambda: landmarks_to_matrix_case(
    2, [1, 21, 3], dict(subset_idxs=[0, 1, 2, 3, 5, 9, 13, 17, 19], left_rotation_idx=0, right_rotation_idx=9,
                        target_rotation_radians=float(np.pi / 2), output_height=256, output_width=256, scale_x=2.6,
                        scale_y=2.6), 151)
CASES["mp_landmarks_to_matrix_rect"] = lambda: landmarks_to_matrix_case(
    2, [1, 12, 3], dict(subset_idxs=[1, 2, 4, 7, 8, 11], left_rotation_idx=7, right_rotation_idx=2,
                        target_rotation_radians=-0.3, output_height=128, output_width=160, scale_x=1.5, scale_y=2.0),
    152)
# Version 1: [1, 1, 1, 3 N] landmarks, the rotation from atan of the slope (so it ignores which way the landmarks
# face), input and output sizes as [h, w].
CASES["mp_landmarks_to_matrix_v1"] = lambda: landmarks_to_matrix_case(
    1, [1, 1, 1, 36], dict(dimensions=3, landmarks_range=192, input_hw=[240, 320], output_hw=[192, 192],
                           bbox_size_multiplier=1.5, left_rotation_idx=1, right_rotation_idx=4,
                           subset=[0, 1, 2, 3, 4, 5, 6, 7]), 153)
CASES["mp_landmarks_to_matrix_v1_odd"] = lambda: landmarks_to_matrix_case(
    1, [1, 1, 1, 30], dict(dimensions=3, landmarks_range=256, input_hw=[300, 200], output_hw=[96, 128],
                           bbox_size_multiplier=1.25, left_rotation_idx=8, right_rotation_idx=3,
                           subset=[9, 2, 5, 6, 0]), 154)


# ---- stateful operators (issue 15): LiteRT.js runs them ---------------------------------------------------------
def string_buffer(strings):
    """TFLite's string tensor buffer: int32 count, count + 1 int32 offsets from the buffer start, the bytes."""
    data = [s.encode() for s in strings]
    head = 4 * (len(data) + 2)
    offsets, at = [], head
    for d in data:
        offsets.append(at)
        at += len(d)
    offsets.append(at)
    return struct.pack(f"<{len(data) + 2}i", len(data), *offsets) + b"".join(data)


def add_tensor(g, shape, type_code, name=None, data=None):
    """A tensor of a type numpy has no dtype for (resource 13, string 5); `data` the raw buffer bytes."""
    buf = g.model.buffer(data) if data is not None else 0
    g.tensors.append(dict(shape=list(shape), type=type_code, buffer=buf, name=name or f"t{len(g.tensors)}",
                          quant=None, sparsity=None, variable=False))
    return len(g.tensors) - 1


def call_once(m, g, index):
    g.ops.append(dict(code=m.opcode(OPS["CALL_ONCE"]), ins=[], outs=[], opt="CallOnce", fields=[(0, "i", index)]))


def var_handle(m, g, name):
    """VAR_HANDLE with shared_name `name`: handles with one name are one variable."""
    h = add_tensor(g, [], 13, name=f"{name}_handle")
    g.ops.append(dict(code=m.opcode(OPS["VAR_HANDLE"]), ins=[], outs=[h], opt="VarHandle", fields=[(1, "s", name)]))
    return h


@case("variable_call_once")
def _():
    # A variable initialized once by a CALL_ONCE subgraph, read twice, then updated for the next invocation.
    m = Model()
    g = m.graph()
    x = g.input([2, 3], name="input")
    call_once(m, g, 1)
    v = g.tensor([2, 3], name="value")
    g.op("READ_VARIABLE", [var_handle(m, g, "weights")], [v])
    t = g.tensor([2, 3], name="sum")
    g.op("ADD", [x, v], [t], "Add")
    g.ops.append(dict(code=m.opcode(OPS["ASSIGN_VARIABLE"]), ins=[var_handle(m, g, "weights"), t], outs=[],
                      opt=None, fields=()))
    out = g.tensor([2, 3], name="output")
    g.op("MUL", [t, v], [out], "Mul")
    g.outputs = [out]
    init = m.graph()
    init.ops.append(dict(code=m.opcode(OPS["ASSIGN_VARIABLE"]),
                         ins=[var_handle(m, init, "weights"), init.const(uniform([2, 3]))], outs=[], opt=None,
                         fields=()))
    return m, [uniform([2, 3])]


@case("hashtable")
def _():
    # A string -> int64 table filled by a CALL_ONCE subgraph; lookups of constant keys (one missing: the default)
    # and the table's size, each through an ADD with an input.
    m = Model()
    g = m.graph()
    offset, size_offset = g.input([5], np.int64, name="offset"), g.input([1], np.int64, name="size_offset")
    call_once(m, g, 1)
    table = add_tensor(g, [], 13, name="table")
    g.op("HASHTABLE", [], [table], "Hashtable", [(0, "i", 7), (1, "b", 5), (2, "b", 4)])
    keys = add_tensor(g, [5], 5, name="keys", data=string_buffer(["pear", "apple", "fig", "kiwi", "apple"]))
    found = g.tensor([5], np.int64, name="found")
    g.op("HASHTABLE_FIND", [table, keys, g.const(np.array(-1), np.int64)], [found], "HashtableFind")
    out = g.tensor([5], np.int64, name="output")
    g.op("ADD", [found, offset], [out], "Add")
    size = g.tensor([1], np.int64, name="size")
    g.op("HASHTABLE_SIZE", [table], [size], "HashtableSize")
    out2 = g.tensor([1], np.int64, name="size_output")
    g.op("ADD", [size, size_offset], [out2], "Add")
    g.outputs = [out, out2]
    init = m.graph()
    t2 = add_tensor(init, [], 13, name="table")
    init.op("HASHTABLE", [], [t2], "Hashtable", [(0, "i", 7), (1, "b", 5), (2, "b", 4)])
    ks = add_tensor(init, [4], 5, name="keys", data=string_buffer(["apple", "banana", "fig", "pear"]))
    init.ops.append(dict(code=m.opcode(OPS["HASHTABLE_IMPORT"]),
                         ins=[t2, ks, init.const(np.array([10, 20, 30, 40]), np.int64)], outs=[],
                         opt="HashtableImport", fields=()))
    return m, [ints([5], 0, 100).astype(np.int64), ints([1], 0, 100).astype(np.int64)]


# ---- int16 activations (16x8 quantization, issue 15): converted at --opset 21 (int16 QuantizeLinear) ------------
# Cases converted at another opset than the default: written as opset.txt, read by check_tflite_refs.py.
OPSET = {}


@case("quantize_int16")
def _():
    m = Model()
    g = m.graph()
    x = g.input([2, 8], name="input")
    out = g.tensor([2, 8], np.int16, name="output", quant=q(0.0004, 0))
    g.op("QUANTIZE", [x], [out], "Quantize")
    g.outputs = [out]
    return m, [uniform([2, 8], -12, 12)]


@case("dequantize_int16")
def _():
    m = Model()
    g = m.graph()
    x = g.input([2, 8], np.int16, name="input", quant=q(0.001, 0))
    out = g.tensor([2, 8], name="output")
    g.op("DEQUANTIZE", [x], [out], "Dequantize")
    g.outputs = [out]
    return m, [ints([2, 8], -32768, 32768, np.int16)]


@case("quantized_add_int16")
def _():
    m = Model()
    g = m.graph()
    a = g.input([2, 8], np.int16, name="a", quant=q(0.0004, 0))
    b2 = g.input([2, 8], np.int16, name="b", quant=q(0.0003, 0))
    out = g.tensor([2, 8], np.int16, name="output", quant=q(0.0006, 0))
    g.op("ADD", [a, b2], [out], "Add", [(0, "b", 0)])
    g.outputs = [out]
    return m, [ints([2, 8], -20000, 20000, np.int16), ints([2, 8], -20000, 20000, np.int16)]


@case("quantized_fully_connected_16x8")
def _():
    # int16 activations, int8 weights, int64 bias (TFLite's 16x8 scheme).
    m = Model()
    g = m.graph()
    x = g.input([2, 6], np.int16, name="input", quant=q(0.0005, 0))
    w = g.const(ints([4, 6], -127, 128, np.int8), np.int8, quant=q(0.01, 0))
    bias = g.const(ints([4], -3000, 3000).astype(np.int64), np.int64, quant=q(0.000005, 0))
    out = g.tensor([2, 4], np.int16, name="output", quant=q(0.002, 0))
    g.op("FULLY_CONNECTED", [x, w, bias], [out], "FullyConnected", [(0, "b", 0)])
    g.outputs = [out]
    return m, [ints([2, 6], -30000, 30000, np.int16)]


for _name in ["quantize_int16", "dequantize_int16", "quantized_add_int16", "quantized_fully_connected_16x8"]:
    OPSET[_name] = 21


# ---- malformed or unsupported models: `onyx convert` must fail with a one-line error naming the operator -------
def error_models():
    """(file name, model, substrings the error must contain)."""
    out = []
    m = Model()
    g = m.graph()
    x = g.input([2], name="input")
    y = g.tensor([2], name="output")
    g.ops.append(dict(code=m.opcode(15), ins=[x], outs=[y], opt=None, fields=()))  # LSH_PROJECTION: no converter
    g.outputs = [y]
    out.append(("unsupported_lsh_projection.tflite", m, ["no converter for TFLite operator(s) LSH_PROJECTION"]))
    m = Model()
    g = m.graph()
    x = g.input([2], name="input")
    g.op("RSQRT", [x], [])
    g.outputs = [x]
    out.append(("no_outputs.tflite", m, ["operator 0 (RSQRT)", "no outputs"]))
    m = Model()
    g = m.graph()
    x = g.input([2], name="input")
    y = g.tensor([2], name="output")
    g.op("DEQUANTIZE", [-1], [y])
    g.outputs = [y]
    out.append(("omitted_input.tflite", m, ["operator 0 (DEQUANTIZE)", "omitted"]))
    m = Model()
    g = m.graph()
    y = g.tensor([2], name="output")
    g.inputs = [-1]
    g.op("ABS", [y], [y])
    g.outputs = [y]
    out.append(("graph_input_minus1.tflite", m, ["subgraph input refers to tensor -1"]))
    m = Model()
    g = m.graph()
    x = g.input([2], name="input")
    y = g.tensor([2], name="output")
    g.op("WHILE", [x], [y], "While", [(0, "i", 0), (1, "i", 0)])
    g.outputs = [y]
    out.append(("recursive_while.tflite", m, ["operator 0 (WHILE)", "recursive"]))
    m = Model()
    g = m.graph()
    x = g.input([2], name="input")
    y = g.tensor([2], np.int16, name="output", quant=q(0.001, 0))
    g.op("QUANTIZE", [x], [y], "Quantize")
    g.outputs = [y]
    out.append(("int16_below_opset_21.tflite", m, ["operator 0 (QUANTIZE)", "convert with --opset 21"]))
    m = Model()
    g = m.graph()
    x = g.input([1, 1, 4, 3], name="input")
    y = g.tensor([1, 4, 4], name="output")
    g.custom_op("UnknownCustomOp", [x], [y])  # a custom code no converter will ever have
    g.outputs = [y]
    out.append(("unsupported_custom.tflite", m, ["no converter for TFLite operator(s) CUSTOM(UnknownCustomOp)"]))
    m = Model()
    g = m.graph()
    x = g.input([1, 21, 3], name="landmarks")
    y = g.tensor([1, 4, 4], name="matrix")
    g.custom_op("Landmarks2TransformMatrix", [x], [y],
                flex_options(dict(subset_idxs=[0, 30], left_rotation_idx=0, right_rotation_idx=9, output_height=256,
                                  output_width=256, scale_x=2.6, scale_y=2.6)), version=2)
    g.outputs = [y]
    out.append(("landmark_index_out_of_range.tflite", m,
                ["operator 0 (CUSTOM(Landmarks2TransformMatrix))", "landmark index 30 outside the 21 landmarks"]))
    m = Model()
    g = m.graph()
    v = g.tensor([2], name="output")
    g.op("READ_VARIABLE", [var_handle(m, g, "never_assigned")], [v])
    g.outputs = [v]
    out.append(("variable_without_init.tflite", m, ["operator 1 (READ_VARIABLE)", "before any assignment"]))
    return out


def write_error_models(out_dir):
    d = os.path.join(out_dir, "errors")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "expected.txt"), "w") as f:
        f.write("# file|substring the one-line error of `onyx convert` must contain (one line per substring)\n")
        for name, model, needles in error_models():
            with open(os.path.join(d, name), "wb") as mf:
                mf.write(model.serialize())
            for n in needles:
                f.write(f"{name}|{n}\n")


@case("call_once")
def _():
    # CALL_ONCE runs an initialization subgraph (here without operators) before the graph's own work.
    m = Model()
    g = m.graph()
    x = g.input([2, 3], name="input")
    g.ops.append(dict(code=m.opcode(OPS["CALL_ONCE"]), ins=[], outs=[], opt="CallOnce", fields=[(0, "i", 1)]))
    out = g.tensor([2, 3], name="output")
    g.op("ABS", [x], [out])
    g.outputs = [out]
    m.graph()
    return m, [uniform([2, 3])]


def write_ops_txt(d, model):
    """ops.txt: the schema names of the builtins the case uses (read by tools/gen/converter_coverage.py)."""
    names = {v: k for k, v in OPS.items()}
    with open(os.path.join(d, "ops.txt"), "w") as f:
        f.write("\n".join(sorted({names[c] for c, _, _ in model.codes})) + "\n")


def write_pb(arr, path, name):
    t = numpy_helper.from_array(np.asarray(arr), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def write_tfjs_refs(d, feeds, spec):
    """test_data_set_0 from TF.js (tfjs_rnn_refs.js) for the recurrent cases."""
    env = dict(os.environ, NODE_PATH=os.path.expanduser("~/.cache/onyx-keras/node_modules"))
    r = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfjs_rnn_refs.js")],
                       input=json.dumps(spec), capture_output=True, text=True, env=env, check=True)
    y = json.loads(r.stdout)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data)
    for k, arr in enumerate(feeds):
        write_pb(arr, os.path.join(data, f"input_{k}.pb"), f"input_{k}")
    write_pb(np.array(y["data"], np.float32).reshape(spec.get("output_shape", y["shape"])),
             os.path.join(data, "output_0.pb"), "output")
    shutil.rmtree(os.path.join(d, "inputs"))
    with open(os.path.join(d, "refs.json"), "w") as f:
        json.dump({"generator": "TF.js 4.22 tfjs-layers (tests/convert/tflite/tfjs_rnn_refs.js)", "kind": spec["kind"],
                   "note": "LiteRT.js cannot run TFLite's variable state tensors"}, f, indent=1)


def write_mediapipe_refs(d, feeds, spec):
    """test_data_set_0 from TF.js ops (tfjs_mediapipe_refs.js) for MediaPipe's custom operators."""
    env = dict(os.environ, NODE_PATH=os.path.expanduser("~/.cache/onyx-keras/node_modules"))
    r = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfjs_mediapipe_refs.js")],
                       input=json.dumps(spec), capture_output=True, text=True, env=env, check=True)
    outs = json.loads(r.stdout)["outputs"]
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data)
    for k, arr in enumerate(feeds):
        write_pb(arr, os.path.join(data, f"input_{k}.pb"), f"input_{k}")
    for k, y in enumerate(outs):
        write_pb(np.array(y["data"], np.float32).reshape(y["shape"]), os.path.join(data, f"output_{k}.pb"),
                 f"output_{k}")
    shutil.rmtree(os.path.join(d, "inputs"))
    with open(os.path.join(d, "refs.json"), "w") as f:
        json.dump({"generator": "TF.js 4.22 ops (tests/convert/tflite/tfjs_mediapipe_refs.js)", "kind": spec["kind"],
                   "note": "LiteRT.js cannot run MediaPipe's custom operators"}, f, indent=1)


def write_cell_refs(d, feeds, spec):
    """test_data_set_0 from TF.js ops (tfjs_tflite_cells.js) for the full LSTM and SVDF: one run per spec (an LSTM
    direction), `combine` makes the operator's outputs of them."""
    env = dict(os.environ, NODE_PATH=os.path.expanduser("~/.cache/onyx-keras/node_modules"))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfjs_tflite_cells.js")
    ys = []
    for s in spec["specs"]:
        r = subprocess.run(["node", script], input=json.dumps(s), capture_output=True, text=True, env=env, check=True)
        y = json.loads(r.stdout)["outputs"][0]
        ys.append(np.array(y["data"], np.float32).reshape(y["shape"]))
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data)
    for k, a in enumerate(feeds):
        write_pb(a, os.path.join(data, f"input_{k}.pb"), f"input_{k}")
    for k, y in enumerate(spec["combine"](ys)):
        write_pb(np.ascontiguousarray(y), os.path.join(data, f"output_{k}.pb"), f"output_{k}")
    shutil.rmtree(os.path.join(d, "inputs"))
    with open(os.path.join(d, "refs.json"), "w") as f:
        json.dump({"generator": "TF.js 4.22 ops spelling out TFLite's float kernels "
                                "(tests/convert/tflite/tfjs_tflite_cells.js)", "kind": spec["specs"][0]["kind"],
                   "note": "LiteRT.js cannot run TFLite's variable state tensors; zero states (first invocation)"},
                  f, indent=1)


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or sorted(CASES)
    if not sys.argv[2:]:
        write_error_models(out_dir)
    failed = []
    for name in names:
        model, feeds, *tfjs = CASES[name]()
        d = os.path.join(out_dir, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "inputs"))
        path = os.path.join(d, "model.tflite")
        with open(path, "wb") as f:
            f.write(model.serialize())
        write_ops_txt(d, model)
        for k, arr in enumerate(feeds):
            write_pb(arr, os.path.join(d, "inputs", f"input_{k}.pb"), f"input_{k}")
        if tfjs and tfjs[0].get("script") == "cells":
            write_cell_refs(d, feeds, tfjs[0])
            continue
        if tfjs and tfjs[0].get("script") == "mediapipe":
            write_mediapipe_refs(d, feeds, tfjs[0])
            continue
        if tfjs:
            write_tfjs_refs(d, feeds, tfjs[0])
            continue
        r = subprocess.run(["node", "tflite_refs.mjs", os.path.abspath(path), os.path.abspath(d),
                            os.path.abspath(os.path.join(d, "inputs"))], cwd=LITERT, capture_output=True, text=True)
        shutil.rmtree(os.path.join(d, "inputs"))
        if name in OPSET:
            with open(os.path.join(d, "opset.txt"), "w") as f:
                f.write(f"{OPSET[name]}\n")
        if r.returncode != 0:
            failed.append(name)
            errors = [ln for ln in (r.stdout + r.stderr).splitlines() if "ERROR" in ln or "tflite_refs" in ln]
            print(f"LiteRT.js failed on {name}: {' / '.join(errors)[-600:]}")
            shutil.rmtree(d, ignore_errors=True)
    print(f"{len(names) - len(failed)} of {len(names)} cases written, LiteRT.js refused: {' '.join(failed) or 'none'}")


if __name__ == "__main__":
    main()
