#!/usr/bin/python3
"""Writes the cases of tests/data/ort_order/: small float graphs whose every output onyx must compute bit for bit as
ONNX Runtime 1.30 does at optimization level disabled (KernelInfo::ort_summation_order; docs/kernels.md): Softmax
and LogSoftmax (MLAS's exp and lane sums), ReduceSum/ReduceMean in each of ONNX Runtime's loops, Erf and a Gelu
written out, LayerNormalization written out (as exporters emit it) and the operator itself, attention-shaped MatMuls and a Gemm with a
constant weight, and ONNX Runtime's fused transformer operators (Gelu, BiasGelu, FusedMatMul; fused_ops; its Skip/Simplified
LayerNormalizations: skip_norms). Each folder holds model.onnx (one float input named "input"), test_data_set_0/input_0.pb and
output_N.pb, ONNX Runtime's outputs at level disabled, one thread (tests/quant/ort_reference.mjs). Every case is
also run in ONNX Runtime at two threads and must give the same bits there (shapes chosen so that its thread split
changes nothing), since onyx is checked at 1 and 2 threads against the one reference.

The references come from an AVX-512 CPU, where MLAS runs its AVX-512F softmax (16 sum lanes); on an AVX2-only CPU
(or under ONYX_MAX_ISA=avx2) MLAS, and onyx with it, sums in 8 lanes and softmax results differ in their last bits.
Cases whose outputs go through a softmax hold an empty file `mlas_avx512f`: check them only where onyx runs AVX-512.

usage: NODE_PATH=~/.cache/onyx-bench/ort/node_modules tests/data/ort_order/make_cases.py [CASE...]
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_REFERENCE = os.path.join(HERE, "..", "..", "quant", "ort_reference.mjs")
OPSET = 13


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value), name))


def model(nodes, input_shape, outputs, initializers=(), opset=OPSET):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
                              [helper.make_empty_tensor_value_info(o) for o in outputs], initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="ort_order cases")
    m.ir_version = 7
    # The outputs' types and shapes from shape inference (the checker wants them; onyx and ONNX Runtime do not).
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.value_info}
    for i, o in enumerate(outputs):
        graph.output[i].CopyFrom(inferred[o])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="ort_order cases")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def softmax_case():
    nodes = [
        helper.make_node("Softmax", ["input"], ["rows_128"], axis=-1),
        helper.make_node("Softmax", ["input"], ["strided_axis"], axis=2),
        helper.make_node("LogSoftmax", ["input"], ["log_rows"], axis=-1),
        const("s0", np.array([0], np.int64)), const("s1", np.array([77], np.int64)), const("ax", np.array([3], np.int64)),
        helper.make_node("Slice", ["input", "s0", "s1", "ax"], ["sliced"]),
        helper.make_node("Softmax", ["sliced"], ["rows_77"], axis=-1),
        helper.make_node("LogSoftmax", ["sliced"], ["log_rows_77"], axis=-1),
    ]
    outputs = ["rows_128", "strided_axis", "log_rows", "rows_77", "log_rows_77"]
    x = (np.random.default_rng(1).standard_normal((1, 2, 48, 128)) * 4).astype(np.float32)
    return model(nodes, list(x.shape), outputs), x


def reduce_case():
    axes = lambda name, v: const(name, np.array(v, np.int64))  # noqa: E731
    nodes = [
        helper.make_node("ReduceMean", ["input"], ["kr_mean"], axes=[-1]),                    # KR, rows of 768
        axes("a0", [0]), helper.make_node("ReduceSum", ["input", "a0"], ["rk_sum"]),         # RK (fast)
        helper.make_node("ReduceMean", ["input"], ["rk_mean"], axes=[0]),
        helper.make_node("ReduceMean", ["input"], ["all_mean"], axes=[0, 1]),                 # everything
        const("shape3", np.array([8, 8, 768], np.int64)),
        helper.make_node("Reshape", ["input", "shape3"], ["x3"]),
        axes("a1", [1]), helper.make_node("ReduceSum", ["x3", "a1"], ["krk_sum"]),           # KRK
        helper.make_node("ReduceMean", ["x3"], ["rkr_mean"], axes=[0, 2]),                    # RKR
        const("s0", np.array([0], np.int64)), const("s1", np.array([765], np.int64)), axes("ax", [1]),
        helper.make_node("Slice", ["input", "s0", "s1", "ax"], ["odd"]),
        helper.make_node("ReduceMean", ["odd"], ["kr_mean_765"], axes=[1]),                   # rows at odd offsets
        axes("a_last", [-1]), helper.make_node("ReduceSum", ["odd", "a_last"], ["kr_sum_765"]),
        const("sh2", np.array([4, 16, 765], np.int64)),
        helper.make_node("Reshape", ["odd", "sh2"], ["odd3"]),
        helper.make_node("ReduceSum", ["odd3", "a0"], ["rk_small_sum"]),                      # RK below its threshold
        # The other sums: Eigen's order when everything is reduced, one by one otherwise.
        helper.make_node("ReduceSumSquare", ["odd"], ["sumsquare_rows"], axes=[1]),
        helper.make_node("ReduceL1", ["x3"], ["l1_middle"], axes=[1]),
        helper.make_node("ReduceL2", ["odd"], ["l2_all"], axes=[0, 1]),
        helper.make_node("Abs", ["input"], ["magnitudes"]),
        helper.make_node("ReduceLogSum", ["magnitudes"], ["logsum_rows"], axes=[1]),
        helper.make_node("ReduceSumSquare", ["input"], ["sumsquare_all"], axes=[0, 1]),
    ]
    outputs = ["kr_mean", "rk_sum", "rk_mean", "all_mean", "krk_sum", "rkr_mean", "kr_mean_765", "kr_sum_765",
               "rk_small_sum", "sumsquare_rows", "l1_middle", "l2_all", "logsum_rows", "sumsquare_all"]
    x = (np.random.default_rng(2).standard_normal((64, 768)) * 3 + 0.5).astype(np.float32)
    return model(nodes, list(x.shape), outputs), x


def erf_case():
    nodes = [
        helper.make_node("Erf", ["input"], ["erf"]),
        const("inv_sqrt2", np.array(0.70710677, np.float32)), const("one", np.array(1.0, np.float32)),
        const("half", np.array(0.5, np.float32)),
        helper.make_node("Mul", ["input", "inv_sqrt2"], ["scaled"]),
        helper.make_node("Erf", ["scaled"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["input", "e1"], ["xe"]),
        helper.make_node("Mul", ["xe", "half"], ["gelu"]),
    ]
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((48, 771)) * rng.choice([0.3, 1.0, 2.5, 5.0], (48, 1))).astype(np.float32)
    return model(nodes, list(x.shape), ["erf", "gelu"]), x


def layernorm_case():
    rng = np.random.default_rng(4)
    gamma = numpy_helper.from_array((1 + 0.1 * rng.standard_normal(256)).astype(np.float32), "gamma")
    beta = numpy_helper.from_array((0.1 * rng.standard_normal(256)).astype(np.float32), "beta")
    nodes = [
        helper.make_node("ReduceMean", ["input"], ["mean"], axes=[-1]),
        helper.make_node("Sub", ["input", "mean"], ["centered"]),
        const("two", np.array(2.0, np.float32)), const("eps", np.array(1e-5, np.float32)),
        helper.make_node("Pow", ["centered", "two"], ["sq"]),
        helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1]),
        helper.make_node("Add", ["var", "eps"], ["var_eps"]),
        helper.make_node("Sqrt", ["var_eps"], ["std"]),
        helper.make_node("Div", ["centered", "std"], ["normed"]),
        helper.make_node("Mul", ["normed", "gamma"], ["scaled"]),
        helper.make_node("Add", ["scaled", "beta"], ["layernorm"]),
    ]
    x = (rng.standard_normal((1, 128, 256)) * 2 + 0.3).astype(np.float32)
    return model(nodes, list(x.shape), ["layernorm"], [gamma, beta]), x


def layernorm_op_case():
    """LayerNormalization-17 itself (ONNX Runtime's MLAS AVX2 row kernel on x86): rows of 104 and 1,664 (multiples of
    8, as every transformer width), with and without B, the Mean and InvStdDev outputs, and rows of 13 (an 8-lane
    block and a 5-element tail), on inputs of large and small means."""
    rng = np.random.default_rng(6)
    params = []
    for name, n in (("g104", (104,)), ("b104", (104,)), ("g1664", (16, 104)), ("b1664", (16, 104)), ("g13", (13,)),
                    ("b13", (13,))):
        scale = 1 + 0.5 * rng.standard_normal(n) if name.startswith("g") else rng.standard_normal(n)
        params.append(numpy_helper.from_array(scale.astype(np.float32), name))
    nodes = [
        helper.make_node("LayerNormalization", ["input", "g104", "b104"], ["ln", "ln_mean", "ln_inv_std"], axis=-1,
                         epsilon=1e-5),
        helper.make_node("LayerNormalization", ["input", "g104"], ["ln_no_bias"], axis=-1, epsilon=1e-5),
        helper.make_node("LayerNormalization", ["input", "g1664", "b1664"], ["ln_axis1"], axis=1, epsilon=1e-3),
        const("rows13", np.array([4, 128, 13], np.int64)),
        helper.make_node("Reshape", ["input", "rows13"], ["x13"]),
        helper.make_node("LayerNormalization", ["x13", "g13", "b13"], ["ln_13"], axis=-1, epsilon=1e-5),
    ]
    x = rng.standard_normal((4, 16, 104)) * rng.uniform(0.1, 20, (4, 16, 1)) + rng.uniform(-40, 40, (4, 16, 1))
    return model(nodes, [4, 16, 104], ["ln", "ln_mean", "ln_inv_std", "ln_no_bias", "ln_axis1", "ln_13"], params,
                 opset=17), x.astype(np.float32)


def attention_case():
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array((rng.standard_normal((300, 40)) * 0.05).astype(np.float32), "w")
    bias = numpy_helper.from_array((rng.standard_normal(40) * 0.1).astype(np.float32), "bias")
    wt = numpy_helper.from_array((rng.standard_normal((24, 300)) * 0.05).astype(np.float32), "wt")
    nodes = [
        helper.make_node("Transpose", ["input"], ["xt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["input", "xt"], ["scores"]),            # batched, both computed, K = 300
        const("scale", np.array(0.125, np.float32)),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "input"], ["context"]),        # batched, K = 64
        const("flat", np.array([128, 300], np.int64)),
        helper.make_node("Reshape", ["input", "flat"], ["x2"]),
        helper.make_node("Gemm", ["x2", "w", "bias"], ["gemm"]),           # constant B: prepacked by ORT
        helper.make_node("Gemm", ["x2", "wt"], ["gemm_tb"], transB=1, alpha=0.5),
        helper.make_node("MatMul", ["input", "w"], ["matmul_const"]),      # constant 2-D B, A stacked
    ]
    x = rng.standard_normal((2, 64, 300)).astype(np.float32)
    return model(nodes, list(x.shape), ["scores", "probs", "context", "gemm", "gemm_tb", "matmul_const"],
                 [w, bias, wt]), x


def contrib_model(nodes, input_shape, outputs):
    """A model with com.microsoft operators and ONNX opset 20 (Gelu-20): no shape inference or checker (onnx 1.12
    knows neither); ONNX Runtime and onyx take the outputs untyped."""
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid("com.microsoft", 1)],
                          producer_name="ort_order cases")
    m.ir_version = 9
    return m


def fused_ops_case():
    """The operators ONNX Runtime's level-all optimizer writes into transformer graphs, as it computes them: its
    fused GELU (com.microsoft Gelu and BiasGelu, ONNX Gelu-20: x * 0.70710677f, MLAS's erf, (0.5x)(erf + 1)) and
    FusedMatMul (MLAS's SGEMM with alpha, batches read through transBatch strides). No value of t = x / sqrt(2) sits
    on MLAS erf's split point 0.921875, where its AVX-512F GELU kernel and its FMA3 erf part ways: the references
    hold on both kinds of CPU."""
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((64, 4, 64)) * rng.choice([0.5, 1.0, 3.0], (64, 1, 1))).astype(np.float32)
    t = x * np.float32(0.70710678118654752440)
    x[np.abs(t) == np.float32(0.921875)] = 0.5
    bias = (rng.standard_normal(64) * 0.3).astype(np.float32)
    nodes = [
        helper.make_node("Gelu", ["input"], ["gelu_ms"], domain="com.microsoft"),
        helper.make_node("Gelu", ["input"], ["gelu_onnx"]),
        helper.make_node("Constant", [], ["bias"], value=numpy_helper.from_array(bias, "bias")),
        helper.make_node("BiasGelu", ["input", "bias"], ["bias_gelu"], domain="com.microsoft"),
        helper.make_node("FusedMatMul", ["input", "input"], ["scores"], domain="com.microsoft", alpha=0.125, transA=0,
                         transB=1, transBatchA=1, transBatchB=1),
        helper.make_node("FusedMatMul", ["scores", "input"], ["context"], domain="com.microsoft", alpha=1.0,
                         transBatchB=1),
    ]
    return contrib_model(nodes, list(x.shape), ["gelu_ms", "gelu_onnx", "bias_gelu", "scores", "context"]), x


def skip_norms_case():
    """ONNX Runtime's normalizations of transformer graphs (its optimizer writes them; exporters such as Optimum
    too): SkipLayerNormalization (its scalar Welford loop) with and without beta and bias, with the mean, inv_std and
    sum outputs; SkipSimplifiedLayerNormalization (squares summed in sequence); SimplifiedLayerNormalization (MLAS's
    AVX2 RMS kernel). Rows of 200 (multiples of 8) and 100 and 50 (tails of 4 and 2)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 8, 200)) * rng.uniform(0.2, 6, (4, 8, 1)) + rng.uniform(-4, 4, (4, 8, 1))
    params = {}
    for n in (200, 100, 50):
        params["g%d" % n] = (1 + 0.4 * rng.standard_normal(n)).astype(np.float32)
    params["b200"] = (0.3 * rng.standard_normal(200)).astype(np.float32)
    params["c200"] = (0.3 * rng.standard_normal(200)).astype(np.float32)
    nodes = [helper.make_node("Constant", [], [k], value=numpy_helper.from_array(v, k)) for k, v in params.items()]
    nodes += [
        const("rows100", np.array([64, 100], np.int64)), const("rows50", np.array([128, 50], np.int64)),
        helper.make_node("Mul", ["input", "input"], ["skip"]),
        helper.make_node("Reshape", ["input", "rows100"], ["x100"]),
        helper.make_node("Reshape", ["skip", "rows100"], ["skip100"]),
        helper.make_node("Reshape", ["input", "rows50"], ["x50"]),
        helper.make_node("Reshape", ["skip", "rows50"], ["skip50"]),
        helper.make_node("SkipLayerNormalization", ["input", "skip", "g200", "b200", "c200"],
                         ["skip_ln", "skip_ln_mean", "skip_ln_inv_std", "skip_ln_sum"], domain="com.microsoft",
                         epsilon=1e-5),
        helper.make_node("SkipLayerNormalization", ["x100", "skip100", "g100"], ["skip_ln_gamma_only"],
                         domain="com.microsoft", epsilon=1e-3),
        helper.make_node("SkipSimplifiedLayerNormalization", ["input", "skip", "g200"], ["skip_rms"],
                         domain="com.microsoft", epsilon=1e-5),
        helper.make_node("SkipSimplifiedLayerNormalization", ["x50", "skip50", "g50"], ["skip_rms_50"],
                         domain="com.microsoft", epsilon=1e-5),
        helper.make_node("SimplifiedLayerNormalization", ["input", "g200"], ["rms"], axis=-1, epsilon=1e-5),
        helper.make_node("SimplifiedLayerNormalization", ["x100", "g100"], ["rms_100"], axis=-1, epsilon=1e-5),
        helper.make_node("SimplifiedLayerNormalization", ["x50", "g50"], ["rms_50"], axis=-1, epsilon=1e-5),
    ]
    outputs = ["skip_ln", "skip_ln_mean", "skip_ln_inv_std", "skip_ln_sum", "skip_ln_gamma_only", "skip_rms",
               "skip_rms_50", "rms", "rms_100", "rms_50"]
    return contrib_model(nodes, list(x.shape), outputs), x.astype(np.float32)


def ort_outputs(model_file, input_pb, level, threads, out):
    subprocess.run(["node", ORT_REFERENCE, model_file, input_pb, out, level, str(threads)], check=True,
                   stdout=subprocess.DEVNULL)
    return sorted(f for f in os.listdir(out) if f.startswith("output_"))


def main():
    cases = {"softmax": softmax_case, "reduce": reduce_case, "erf_gelu": erf_case, "layernorm": layernorm_case,
             "layernorm_op": layernorm_op_case, "skip_norms": skip_norms_case, "attention": attention_case, "fused_ops": fused_ops_case}
    # Names on the command line remake only those cases (the softmax ones need an AVX-512 CPU, see above).
    wanted = sys.argv[1:] or list(cases)
    for name, make in cases.items():
        if name not in wanted:
            continue
        m, x = make()
        folder = os.path.join(HERE, name)
        data = os.path.join(folder, "test_data_set_0")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(data)
        model_file = os.path.join(folder, "model.onnx")
        onnx.save(m, model_file)
        input_pb = os.path.join(data, "input_0.pb")
        with open(input_pb, "wb") as f:
            f.write(numpy_helper.from_array(x, "input").SerializeToString())
        ort_outputs(model_file, input_pb, "disabled", 1, data)
        with tempfile.TemporaryDirectory() as two:
            for f in ort_outputs(model_file, input_pb, "disabled", 2, two):
                with open(os.path.join(data, f), "rb") as a, open(os.path.join(two, f), "rb") as b:
                    if a.read() != b.read():
                        sys.exit("%s: ONNX Runtime's %s differs between 1 and 2 threads" % (name, f))
        if name in ("softmax", "attention"):
            open(os.path.join(folder, "mlas_avx512f"), "w").close()
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(folder) for f in fs)
        print("%s: %d outputs, %d KB" % (name, len(m.graph.output), size // 1024))


if __name__ == "__main__":
    main()
