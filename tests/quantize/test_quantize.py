#!/usr/bin/python3
"""ctest quantize: `onyx quantize` in its three modes on small torch-made models (tests/quantize/make_models.py),
on a real model from the shared folder, and against ONNX Runtime 1.30's outputs for the committed quantized
models of tests/data/quantize (made by tests/quantize/make_reference.py; ONNX Runtime itself is not needed here).

Checks: the quantized models pass `onyx check --full`, have the expected structure (QDQ pairs with ONNX Runtime's
names, int8 weights, int32 biases, folded Relus; DynamicQuantizeLinear + MatMulInteger/ConvInteger; blocked int4
DequantizeLinear at opset 21), run in onyx, and follow the float model on a held-out evaluation set (cosine,
top-1 agreement); calibration memory does not grow with the number of samples; one calibration session (each
sample runs once) when the observed values fit --calibration-memory, the same ranges (to float rounding) from one
session and from many, minmax ranges equal to numpy's min/max of the values; a progress bar only on a tty, whose
counts end full; usage errors exit 2.

usage: test_quantize.py ONYX SOURCE_DIR [SHARED_DIR] [PYTHON_DIR]
"""
import glob
import json
import os
import pty
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def quantize(onyx, model, out, *args, env=None):
    report = out + ".json"
    r = run([onyx, "quantize", model, "-o", out, "--report", report, *args], env=env)
    if r.returncode != 0:
        raise RuntimeError("onyx quantize %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr))
    with open(report) as f:
        return json.load(f)


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def onyx_outputs(onyx, model, inputs, tmp):
    """Runs `model` on each input .pb; returns the list of 'output' arrays."""
    outs = []
    for i, pb in enumerate(inputs):
        d = os.path.join(tmp, "run_%d" % i)
        r = run([onyx, "run", model, "--input", "input=" + pb, "--output-dir", d, "--threads", "1"])
        if r.returncode != 0:
            raise RuntimeError("onyx run %s failed: %s" % (model, r.stderr))
        outs.append(np.load(os.path.join(d, "output.npy")))
    return outs


def agreement(ref, got):
    a = np.concatenate([x.ravel() for x in ref]).astype(np.float64)
    b = np.concatenate([x.ravel() for x in got]).astype(np.float64)
    cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    top1 = float(np.mean([np.argmax(x) == np.argmax(y) for x, y in zip(ref, got)]))
    return cos, top1


def ops(path):
    m = onnx.load(path)
    hist = {}
    for n in m.graph.node:
        hist[n.op_type] = hist.get(n.op_type, 0) + 1
    return m, hist


def full_check(onyx, path):
    r = run([onyx, "check", "--full", path])
    check(r.returncode == 0, "onyx check --full %s%s" % (os.path.basename(path), "" if r.returncode == 0 else ": " + r.stdout[-500:]))


def test_static_cnn(onyx, d, tmp):
    model = os.path.join(d, "cnn.onnx")
    evaluation = sorted(glob.glob(os.path.join(d, "cnn_evaluation", "*", "input_0.pb")))
    ref = onyx_outputs(onyx, model, evaluation, tmp)
    variants = [("uint8 minmax per-tensor", []),
                ("int8 entropy per-channel", ["--activation-type", "int8", "--calibrate-method", "entropy", "--per-channel"]),
                ("uint8 percentile per-channel", ["--calibrate-method", "percentile", "--per-channel"])]
    for i, (label, extra) in enumerate(variants):
        out = os.path.join(tmp, "cnn_static_%d.onnx" % i)
        report = quantize(onyx, model, out, "--mode", "static", "--calibration", os.path.join(d, "cnn_calibration"), *extra)
        full_check(onyx, out)
        m, hist = ops(out)
        act = "int8" if "--activation-type" in extra else "uint8"
        check(hist.get("Relu", 0) == 0 and hist.get("Clip", 0) == 0,
              "static %s: every Relu and the Relu6 Clip folded into their quantization (%s)" % (label, hist))
        check(hist.get("QuantizeLinear", 0) >= 10 and hist.get("DequantizeLinear", 0) >= hist.get("QuantizeLinear", 0) + 7 + 7,
              "static %s: Q/DQ pairs on activations, DQ on 7 weights and 7 biases (%s)" % (label, hist))
        inits = {t.name: t for t in m.graph.initializer}
        weights = [t for n, t in inits.items() if n.endswith("_quantized") and "weight" in n]
        biases = [t for n, t in inits.items() if n.endswith("_quantized") and "bias" in n]
        check(len(weights) == 7 and all(t.data_type == onnx.TensorProto.INT8 for t in weights),
              "static %s: 7 int8 weights" % label)
        check(len(biases) == 7 and all(t.data_type == onnx.TensorProto.INT32 for t in biases),
              "static %s: 7 int32 biases" % label)
        zps = [t for n, t in inits.items() if n.endswith("_zero_point") and "weight" not in n]
        want = onnx.TensorProto.INT8 if act == "int8" else onnx.TensorProto.UINT8
        check(zps and all(t.data_type == want for t in zps), "static %s: %s activation zero points" % (label, act))
        q_names = [n.name for n in m.graph.node if n.op_type == "QuantizeLinear"]
        check(all(n.endswith("_QuantizeLinear") for n in q_names), "static %s: ONNX Runtime's node names" % label)
        per_channel = "--per-channel" in extra
        w_dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear" and "weight" in n.input[0]]
        check(all(any(a.name == "axis" for a in n.attribute) == per_channel for n in w_dq),
              "static %s: weight DequantizeLinear %s" % (label, "per axis" if per_channel else "per tensor"))
        # The bias scale is s_input * s_weight.
        stem_x = inits["input_scale"] if "input_scale" in inits else None
        if stem_x is not None:
            sx = numpy_helper.to_array(stem_x)
            sw = numpy_helper.to_array(inits["stem.weight_scale"])
            sb = numpy_helper.to_array(inits["stem.bias_quantized_scale"])
            check(np.allclose(sb, sx * sw, rtol=1e-6), "static %s: bias scale = input scale x weight scale" % label)
        got = onyx_outputs(onyx, out, evaluation, tmp)
        cos, top1 = agreement(ref, got)
        # Bounds measured on this model (cosine 0.9995-0.99999, top-1 98-100%), with a margin.
        check(cos >= 0.99 and top1 >= 0.95,
              "static %s: float vs quantized on %d held-out samples: cosine %.5f, top-1 %.3f" % (label, len(got), cos, top1))
        o = report["outputs"][0]
        check(o["samples"] == 32 and o["cosine"] >= 0.99 and o["top1_agreement"] >= 0.95,
              "static %s: report's calibration-set agreement (cosine %.5f, top-1 %.3f)" % (label, o["cosine"], o["top1_agreement"]))
        acts = [t for t in report["tensors"] if t["kind"] == "activation"]
        check(acts and all("cosine" in t and t["type"] == act for t in acts) and
              all(t["cosine"] > 0.9 for t in report["tensors"] if "cosine" in t),
              "static %s: report has every tensor's scale, zero point and error" % label)


def test_static_qoperator(onyx, d, tmp):
    """--format qoperator: the integer operators themselves (QLinearConv, com.microsoft QLinearAdd, ...) with only the
    input's QuantizeLinear and the output's DequantizeLinear left; the same results as the QDQ model fused."""
    model = os.path.join(d, "cnn.onnx")
    qdq, qop = os.path.join(tmp, "cnn_qdq.onnx"), os.path.join(tmp, "cnn_qop.onnx")
    args = ["--mode", "static", "--calibration", os.path.join(d, "cnn_calibration"), "--per-channel", "--max-samples", "8"]
    quantize(onyx, model, qdq, *args)
    report = quantize(onyx, model, qop, *args, "--format", "qoperator")
    m, hist = ops(qop)
    check(hist.get("QLinearConv", 0) == 6 and hist.get("QGemm", 0) == 1 and "Conv" not in hist and
          hist.get("QuantizeLinear", 0) <= 2 and hist.get("DequantizeLinear", 0) <= 2,
          "static --format qoperator: 6 QLinearConv and a QGemm, no Conv, Q/DQ only at the edges (%s)" % hist)
    check(all(n.domain in ("", "ai.onnx", "com.microsoft") for n in m.graph.node) and
          any(o.domain == "com.microsoft" for o in m.opset_import) == any(n.domain == "com.microsoft" for n in m.graph.node),
          "static --format qoperator: standard and com.microsoft operators only, their opsets imported")
    full_check(onyx, qop)
    inputs = sorted(glob.glob(os.path.join(d, "cnn_evaluation", "*", "input_0.pb")))[:4]
    a, b = onyx_outputs(onyx, qdq, inputs, tmp), onyx_outputs(onyx, qop, inputs, tmp)
    check(all(x.tobytes() == y.tobytes() for x, y in zip(a, b)),
          "static --format qoperator: bit-identical to the QDQ model (whose groups onyx fuses the same way)")
    check(report["outputs"][0]["cosine"] > 0.99, "static --format qoperator: report's agreement %.5f" %
          report["outputs"][0]["cosine"])
    r = run([onyx, "quantize", model, "-o", qop, "--mode", "static", "--calibration",
             os.path.join(d, "cnn_calibration"), "--format", "qlinear"])
    check(r.returncode == 2 and "--format" in r.stderr, "--format qlinear is a usage error (exit 2)")


def test_dynamic(onyx, d, tmp):
    for name, bound in (("mlp", 0.999), ("cnn", 0.995)):
        model = os.path.join(d, name + ".onnx")
        evaluation = sorted(glob.glob(os.path.join(d, name + "_evaluation", "*", "input_0.pb")))[:24]
        ref = onyx_outputs(onyx, model, evaluation, tmp)
        for per_channel in (False, True):
            out = os.path.join(tmp, "%s_dynamic_%d.onnx" % (name, per_channel))
            report = quantize(onyx, model, out, "--mode", "dynamic", *(["--per-channel"] if per_channel else []))
            full_check(onyx, out)
            m, hist = ops(out)
            integer = "MatMulInteger" if name == "mlp" else "ConvInteger"
            want = 5 if name == "mlp" else 6
            check(hist.get(integer, 0) == want and hist.get("DynamicQuantizeLinear", 0) >= 1,
                  "dynamic %s: %d %s after DynamicQuantizeLinear (%s)" % (name, want, integer, hist))
            if name == "mlp":
                check(hist.get("MatMul", 0) == 2, "dynamic mlp: the two attention MatMuls of activations stay float")
            check(len(report["tensors"]) >= want and all(t["type"] == "int8" and t["zero_point"][0] == 0 for t in report["tensors"]),
                  "dynamic %s: symmetric int8 weights in the report" % name)
            got = onyx_outputs(onyx, out, evaluation, tmp)
            cos, top1 = agreement(ref, got)
            check(cos >= bound, "dynamic %s per_channel=%d: float vs quantized cosine %.6f (>= %g), top-1 %.3f" %
                  (name, per_channel, cos, bound, top1))


def test_dynamic_shared_weight(onyx, tmp):
    """A weight shared by two layers through an Identity (how torch writes cloned layers and tied weights): both
    MatMuls quantized, the weight once."""
    from onnx import helper, TensorProto
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array((rng.standard_normal((64, 64)) * 0.1).astype(np.float32), "w")
    nodes = [helper.make_node("Identity", ["w"], ["w_shared"]),
             helper.make_node("MatMul", ["input", "w"], ["h"], name="first"),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w_shared"], ["output"], name="second")]
    graph = helper.make_graph(nodes, "shared", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [4, 64])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [4, 64])], [w])
    model = os.path.join(tmp, "shared.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    out = os.path.join(tmp, "shared_dynamic.onnx")
    report = quantize(onyx, model, out, "--mode", "dynamic")
    full_check(onyx, out)
    m, hist = ops(out)
    check(hist.get("MatMulInteger", 0) == 2 and hist.get("MatMul", 0) == 0 and len(report["tensors"]) == 1,
          "dynamic, weight shared through an Identity: both MatMuls quantized, the weight once (%s, %d tensors)" %
          (hist, len(report["tensors"])))
    x = rng.standard_normal((4, 64)).astype(np.float32)
    pb = os.path.join(tmp, "shared_input.pb")
    with open(pb, "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    ref, got = onyx_outputs(onyx, model, [pb], tmp), onyx_outputs(onyx, out, [pb], tmp)
    cos, _ = agreement(ref, got)
    check(cos >= 0.999, "dynamic, shared weight: float vs quantized cosine %.6f (>= 0.999)" % cos)


def test_weight_only(onyx, d, tmp):
    model = os.path.join(d, "mlp.onnx")
    evaluation = sorted(glob.glob(os.path.join(d, "mlp_evaluation", "*", "input_0.pb")))[:24]
    ref = onyx_outputs(onyx, model, evaluation, tmp)
    for bits, block, bound in ((4, 32, 0.99), (8, 64, 0.9999)):
        out = os.path.join(tmp, "mlp_w%d.onnx" % bits)
        report = quantize(onyx, model, out, "--mode", "weight-only", "--bits", str(bits), "--block", str(block))
        full_check(onyx, out)
        m, hist = ops(out)
        opset = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0]
        dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear"]
        attrs = [{a.name: a.i for a in n.attribute} for n in dq]
        inits = {t.name: t for t in m.graph.initializer}
        want_type = 22 if bits == 4 else onnx.TensorProto.INT8  # INT4 (onnx 1.12 predates it)
        check(opset == 21 and len(dq) == 4 and all(a == {"axis": 0, "block_size": block} for a in attrs),
              "weight-only int%d: opset 21, 4 blocked DequantizeLinear (block_size %d)" % (bits, block))
        check(all(inits[n.input[0]].data_type == want_type for n in dq), "weight-only int%d: weights stored int%d" % (bits, bits))
        # The scales are blocked: [ceil(K / block), N].
        w = inits[dq[0].input[0]]
        s = inits[dq[0].input[1]]
        check(list(s.dims) == [-(-w.dims[0] // block), w.dims[1]], "weight-only int%d: scale shape %s for weight %s" %
              (bits, list(s.dims), list(w.dims)))
        got = onyx_outputs(onyx, out, evaluation, tmp)
        cos, _ = agreement(ref, got)
        check(cos >= bound, "weight-only int%d block %d: float vs quantized cosine %.6f (>= %g)" % (bits, block, cos, bound))
        check(all(t["block_size"] == block for t in report["tensors"]), "weight-only int%d: report lists blocks" % bits)


def test_selection(onyx, d, tmp):
    """--exclude keeps named nodes in float; --op-types restricts the operators."""
    model = os.path.join(d, "mlp.onnx")
    matmuls = [n.name for n in onnx.load(model).graph.node if n.op_type == "MatMul"]
    out = os.path.join(tmp, "mlp_exclude.onnx")
    first = next(n for n in matmuls if "qkv" in n)
    report = quantize(onyx, model, out, "--mode", "dynamic", "--exclude", first)
    _, hist = ops(out)
    check(hist.get("MatMulInteger", 0) == 4 and hist.get("MatMul", 0) == 3 and report["quantized_nodes"]["MatMul"] == 3,
          "dynamic --exclude %s: that MatMul stays float (%s)" % (first, hist))
    out = os.path.join(tmp, "mlp_gemm_only.onnx")
    quantize(onyx, model, out, "--mode", "dynamic", "--op-types", "Gemm")
    _, hist = ops(out)
    check(hist.get("MatMulInteger", 0) == 1 and hist.get("MatMul", 0) == 6, "dynamic --op-types Gemm: only the Gemm head")
    out = os.path.join(tmp, "cnn_conv_only.onnx")
    report = quantize(onyx, os.path.join(d, "cnn.onnx"), out, "--mode", "static", "--calibration",
                      os.path.join(d, "cnn_calibration"), "--op-types", "Conv", "--max-samples", "4")
    m, hist = ops(out)
    gemm = next(n for n in m.graph.node if n.op_type == "Gemm")
    inits = {t.name for t in m.graph.initializer}
    check(set(report["quantized_nodes"]) == {"Conv"} and gemm.input[1] in inits and hist.get("Relu", 0) == 5,
          "static --op-types Conv: Gemm keeps its float weight, Relus stay (%s)" % hist)


def test_exclude_static(onyx, d, tmp):
    """--exclude in static mode: the excluded Conv keeps its float weight, the Relu after it stays a float Relu, and
    no QuantizeLinear reads the excluded Conv's output (only a float operator does)."""
    model = os.path.join(d, "cnn.onnx")
    conv = next(n for n in onnx.load(model).graph.node if n.op_type == "Conv" and n.input[1] == "c1.weight")
    out = os.path.join(tmp, "cnn_exclude_c1.onnx")
    report = quantize(onyx, model, out, "--mode", "static", "--calibration", os.path.join(d, "cnn_calibration"),
                      "--exclude", conv.name, "--per-channel")
    full_check(onyx, out)
    m, hist = ops(out)
    c1 = [n for n in m.graph.node if n.name == conv.name]
    readers = [n for n in m.graph.node if c1 and c1[0].output[0] in n.input]
    check(len(c1) == 1 and c1[0].input[1] == "c1.weight" and
          any(n.op_type == "Conv" and n.input[1] != "c1.weight" and "DequantizeLinear" in n.input[1] for n in m.graph.node),
          "static --exclude %s: that Conv keeps its float weight, the others are int8" % conv.name)
    check([n.op_type for n in readers] == ["Relu"] and
          not any(n.op_type == "QuantizeLinear" and n.input[0] == c1[0].output[0] for n in m.graph.node),
          "static --exclude: the Relu after the excluded Conv stays float and reads it directly (%s)" %
          [n.op_type for n in readers])
    # The stem's Relu feeds the excluded Conv too, so it cannot fold into the stem's quantization: it stays a float
    # Relu. The stem's own output is quantized all the same (ONNX Runtime's quantizer quantizes every quantized Conv's
    # output), so the stem runs in 8 bits and the float Relu reads its DequantizeLinear.
    stem = next(n for n in m.graph.node if n.op_type == "Conv" and "stem.weight" in n.input[1])
    stem_readers = [n for n in m.graph.node if stem.output[0] in n.input]
    dq_out = [o for q in stem_readers if q.op_type == "QuantizeLinear" for n in m.graph.node
              if n.op_type == "DequantizeLinear" and q.output[0] in n.input for o in n.output]
    relus = [n for n in m.graph.node if n.op_type == "Relu"]
    check([n.op_type for n in stem_readers] == ["QuantizeLinear"] and len(relus) == 2 and
          any(r.input[0] in dq_out for r in relus),
          "static --exclude: the stem's output is quantized, its Relu (read by the excluded Conv) stays float on the "
          "dequantized value (%s; %d Relus)" % ([n.op_type for n in stem_readers], len(relus)))
    relu_out = readers[0].output[0] if readers else ""
    check(any(n.op_type == "QuantizeLinear" and n.input[0] == relu_out for n in m.graph.node),
          "static --exclude: the Relu's output is quantized for the int8 Conv after it")
    evaluation = sorted(glob.glob(os.path.join(d, "cnn_evaluation", "*", "input_0.pb")))
    cos, top1 = agreement(onyx_outputs(onyx, model, evaluation, tmp), onyx_outputs(onyx, out, evaluation, tmp))
    check(cos >= 0.99 and top1 >= 0.95, "static --exclude: cosine %.5f, top-1 %.3f on held-out samples" % (cos, top1))


def test_prepare(onyx, d, tmp):
    """Static mode folds Pad and BatchNormalization into the Conv, MatMul + Add into Gemm and drops Identity first
    (standard ONNX only); --no-prepare keeps the graph as it is."""
    model = os.path.join(d, "prep.onnx")
    evaluation = sorted(glob.glob(os.path.join(d, "prep_evaluation", "*", "input_0.pb")))
    ref = onyx_outputs(onyx, model, evaluation, tmp)
    out = os.path.join(tmp, "prep_q.onnx")
    report = quantize(onyx, model, out, "--mode", "static", "--calibration", os.path.join(d, "prep_calibration"),
                      "--per-channel")
    full_check(onyx, out)
    m, hist = ops(out)
    check(all(hist.get(op, 0) == 0 for op in ("Pad", "BatchNormalization", "Identity", "MatMul", "Add", "Relu")) and
          hist.get("Conv") == 1 and hist.get("Gemm") == 1 and all(n.domain in ("", "ai.onnx") for n in m.graph.node),
          "prepare: Pad, BatchNormalization, Identity folded, MatMul + Add is a Gemm, Relu folded (%s)" % hist)
    inits = {t.name: t for t in m.graph.initializer}
    gemm = next(n for n in m.graph.node if n.op_type == "Gemm")
    check(all(inits.get(n.input[0], onnx.TensorProto()).data_type in (onnx.TensorProto.INT8, onnx.TensorProto.INT32)
              for n in m.graph.node if n.op_type == "DequantizeLinear" and n.output[0] in gemm.input[1:]),
          "prepare: the Gemm has an int8 weight and an int32 bias")
    notes = " ".join(report["notes"])
    check(all(p in notes for p in ("FusePadConv", "FuseConvBatchNorm", "FuseMatMulAdd", "EliminateIdentity")),
          "prepare: the report names the folds (%s)" % notes)
    cos, top1 = agreement(ref, onyx_outputs(onyx, out, evaluation, tmp))
    check(cos >= 0.999 and top1 >= 0.95, "prepare: float vs quantized cosine %.5f, top-1 %.3f" % (cos, top1))
    excluded = os.path.join(tmp, "prep_exclude_fc.onnx")
    report = quantize(onyx, model, excluded, "--mode", "static", "--calibration", os.path.join(d, "prep_calibration"),
                      "--exclude", "fc", "--max-samples", "4")
    m, hist = ops(excluded)
    gemm = [n for n in m.graph.node if n.op_type == "Gemm"]
    check(len(gemm) == 1 and gemm[0].input[1] == "fc_w" and hist.get("MatMul", 0) == 0 and
          any("--exclude fc: applies to" in n for n in report["notes"]),
          "prepare: --exclude of the MatMul folded into a Gemm keeps that Gemm in float (%s)" % hist)
    raw = os.path.join(tmp, "prep_raw.onnx")
    quantize(onyx, model, raw, "--mode", "static", "--calibration", os.path.join(d, "prep_calibration"),
             "--no-prepare", "--max-samples", "4")
    _, hist = ops(raw)
    check(hist.get("BatchNormalization") == 1 and hist.get("Pad") == 1, "--no-prepare keeps Pad and BatchNormalization")


def dequantized_bias(m, conv):
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    dq = next(n for n in m.graph.node if n.output[0] == conv.input[2])
    return inits[dq.input[0]].astype(np.float64) * inits[dq.input[1]].astype(np.float64), inits[dq.input[1]]


def test_bias_correction(onyx, d, tmp):
    """Bias correction: the first Conv's int32 bias is b - E[(W_q - W) x] per output channel over the calibration
    samples (computed here independently with numpy and torch), and it reduces the output error of the prep model
    (per-tensor weights: a large rounding error)."""
    import torch
    model = os.path.join(d, "cnn.onnx")
    cal = sorted(glob.glob(os.path.join(d, "cnn_calibration", "*", "input_0.pb")))
    out = os.path.join(tmp, "cnn_bias.onnx")
    report = quantize(onyx, model, out, "--mode", "static", "--calibration", os.path.join(d, "cnn_calibration"))
    src = onnx.load(model)
    inits = {t.name: numpy_helper.to_array(t) for t in src.graph.initializer}
    stem = next(n for n in src.graph.node if n.op_type == "Conv" and n.input[1] == "stem.weight")
    w, b = inits["stem.weight"].astype(np.float64), inits[stem.input[2]].astype(np.float64)
    scale = np.float32(np.abs(inits["stem.weight"]).max()) / np.float32(127)
    dw = np.clip(np.round(inits["stem.weight"] / scale), -127, 127) * np.float64(scale) - w  # per tensor, half to even
    x = torch.from_numpy(np.concatenate([load_pb(p) for p in cal]).astype(np.float64))
    err = torch.nn.functional.conv2d(x, torch.from_numpy(dw), padding=1).mean(dim=(0, 2, 3)).numpy()
    m = onnx.load(out)
    conv = next(n for n in m.graph.node if n.op_type == "Conv" and "stem.weight" in n.input[1])
    got, bias_scale = dequantized_bias(m, conv)
    # the int32 bias rounds to its scale; the runtime's mean is float32 sums
    tol = np.asarray(bias_scale, np.float64) * 0.5 + 1e-5 * np.abs(b - err).max()
    check(np.all(np.abs(got - (b - err)) <= tol) and np.abs(err).max() > 4 * tol.max(),
          "bias correction: stem bias = b - E[dW x] (max difference %.3g, correction up to %.3g)" %
          (np.abs(got - (b - err)).max(), np.abs(err).max()))
    check(any("bias correction: 7 bias" in n for n in report["notes"]), "bias correction: 7 biases corrected, reported")
    plain = os.path.join(tmp, "cnn_no_bias.onnx")
    quantize(onyx, model, plain, "--mode", "static", "--calibration", os.path.join(d, "cnn_calibration"),
             "--no-bias-correction")
    got, _ = dequantized_bias(onnx.load(plain), next(n for n in onnx.load(plain).graph.node
                                                      if n.op_type == "Conv" and "stem.weight" in n.input[1]))
    check(np.all(np.abs(got - b) <= tol), "--no-bias-correction keeps the float bias")
    model = os.path.join(d, "prep.onnx")
    evaluation = sorted(glob.glob(os.path.join(d, "prep_evaluation", "*", "input_0.pb")))
    ref = np.stack(onyx_outputs(onyx, model, evaluation, tmp)).astype(np.float64)
    mse = []
    for extra in ([], ["--no-bias-correction"]):
        out = os.path.join(tmp, "prep_bc_%d.onnx" % len(extra))
        quantize(onyx, model, out, "--mode", "static", "--calibration", os.path.join(d, "prep_calibration"), *extra)
        mse.append(float(np.mean((np.stack(onyx_outputs(onyx, out, evaluation, tmp)) - ref) ** 2)))
    check(mse[0] < 0.5 * mse[1], "bias correction: held-out output MSE %.3g, %.3g without" % (mse[0], mse[1]))


def test_entropy_saturated(onyx, d, tmp):
    """Entropy calibration keeps the [0, 6] range of a saturated Relu6 (its KL threshold, ~1.2, clips the two
    always-saturated channels and has the larger QDQ error), and says so."""
    out = os.path.join(tmp, "relu6_entropy.onnx")
    report = quantize(onyx, os.path.join(d, "relu6.onnx"), out, "--mode", "static", "--calibration",
                      os.path.join(d, "relu6_calibration"), "--calibrate-method", "entropy")
    act = {t["name"]: t for t in report["tensors"] if t["kind"] == "activation"}
    r = act.get("relu6", {}).get("range", [0, 0])
    check(abs(r[0]) < 1e-6 and abs(r[1] - 6.0) < 1e-4 and act["relu6"]["cosine"] > 0.9999,
          "entropy: the saturated Relu6 keeps its range %s (QDQ cosine %.6f)" % (r, act.get("relu6", {}).get("cosine", 0)))
    check(any("keep their min/max range" in n for n in report["notes"]) and report["outputs"][0]["cosine"] > 0.999,
          "entropy: noted; output cosine %.6f" % report["outputs"][0]["cosine"])


def test_memory_bounded(onyx, d, tmp):
    """Observer memory is the same for 10 and 200 calibration samples; peak RSS hardly moves either."""
    results = []
    for n in (10, 200):
        out = os.path.join(tmp, "mlp_mem_%d.onnx" % n)
        report = out + ".json"
        proc = subprocess.Popen([onyx, "quantize", os.path.join(d, "mlp.onnx"), "-o", out, "--mode", "static",
                                 "--calibration", os.path.join(d, "big_calibration"), "--max-samples", str(n),
                                 "--calibrate-method", "entropy", "--report", report, "--quiet"])
        _, status, usage = os.wait4(proc.pid, 0)
        check(status == 0, "static calibration on %d samples" % n)
        with open(report) as f:
            r = json.load(f)
        results.append((r["calibration_samples"], r["observer_bytes"], usage.ru_maxrss, r["calibration_sessions"]))
    (n10, b10, rss10, s10), (n200, b200, rss200, s200) = results
    check(n10 == 10 and n200 == 200 and b10 == b200 and b10 > 0 and s10 == s200 == 1,
          "observer memory: %d bytes for %d samples, %d bytes for %d samples (one pass: %d and %d sessions)" %
          (b10, n10, b200, n200, s10, s200))
    check(rss200 < rss10 * 1.2 + 16384, "peak RSS: %d KiB for 10 samples, %d KiB for 200" % (rss10, rss200))


def activation_params(report):
    return {t["name"]: (t["range"], t["scale"], t["zero_point"]) for t in report["tensors"] if t["kind"] == "activation"}


def close_params(a, b, rtol):
    """Same tensors, ranges and scales equal within `rtol` (relative to the tensor's largest |range| end)."""
    if set(a) != set(b):
        return False
    for name in a:
        (ra, sa, za), (rb, sb, zb) = a[name], b[name]
        scale = max(abs(ra[0]), abs(ra[1]), 1e-30)
        if abs(ra[0] - rb[0]) > rtol * scale or abs(ra[1] - rb[1]) > rtol * scale or abs(sa[0] - sb[0]) > rtol * abs(sa[0]):
            return False
    return True


def test_one_pass(onyx, d, tmp):
    """Calibration runs each sample once with every observed tensor exposed (one session) when their values fit
    --calibration-memory, in groups of sessions otherwise; the ranges do not depend on the grouping."""
    model = os.path.join(d, "cnn.onnx")
    cal = os.path.join(d, "cnn_calibration")
    # The activations' sizes from onnx's own shape inference: what one run of the single session holds.
    inferred = onnx.shape_inference.infer_shapes(onnx.load(model))
    sizes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = [x.dim_value for x in vi.type.tensor_type.shape.dim]
        sizes[vi.name] = 4 * int(np.prod(dims))
    # The convolutions' implementations fixed for the three processes compared: with a cold tuning cache each process
    # times a different share of the shapes (its budget follows its sessions' creation time) and Winograd rounds
    # differently from the direct convolution, which moves the entropy and percentile thresholds by a histogram bin.
    fixed = dict(os.environ, ONYX_TUNING="off")
    for method in ("minmax", "entropy", "percentile"):
        out = os.path.join(tmp, "one_pass_%s.onnx" % method)
        one = quantize(onyx, model, out, "--mode", "static", "--calibration", cal, "--calibrate-method", method,
                       "--max-samples", "8", env=fixed)
        acts = activation_params(one)
        # Folded Relus (and Relu6 Clips): their input is observed too, under a name the report does not list.
        folded = [n.input[0] for n in onnx.load(model).graph.node if n.op_type in ("Relu", "Clip") and n.output[0] in acts]
        held = sum(sizes[n] for n in set(acts) | set(folded))
        check(one["calibration_sessions"] == 1 and one["observed_bytes_per_run"] == held,
              "%s: one calibration session holding %d bytes of observed values per run (shape inference: %d)" %
              (method, one["observed_bytes_per_run"], held))
        single = quantize(onyx, model, out, "--mode", "static", "--calibration", cal, "--calibrate-method", method,
                          "--max-samples", "8", "--outputs-per-session", "1", env=fixed)
        budget = quantize(onyx, model, out, "--mode", "static", "--calibration", cal, "--calibrate-method", method,
                          "--max-samples", "8", "--calibration-memory", "0.2", env=fixed)
        observed = len(set(acts) | set(folded))
        check(single["calibration_sessions"] == observed,
              "%s --outputs-per-session 1: %d sessions for %d observed tensors" % (method, single["calibration_sessions"], observed))
        check(1 < budget["calibration_sessions"] < single["calibration_sessions"] and
              0 < budget["observed_bytes_per_run"] <= max(0.2 * 2**20, max(sizes[n] for n in acts)),
              "%s --calibration-memory 0.2: %d sessions of at most %d bytes" %
              (method, budget["calibration_sessions"], budget["observed_bytes_per_run"]))
        # Each session's optimizer may fuse differently around what it observes (fused kernels round differently):
        # the ranges agree to float rounding, not bit for bit.
        check(close_params(acts, activation_params(single), 1e-5) and close_params(acts, activation_params(budget), 1e-5),
              "%s: the same ranges and scales from 1 session, %d sessions and %d sessions" %
              (method, single["calibration_sessions"], budget["calibration_sessions"]))
        if method != "minmax":
            continue
        # minmax against numpy's min and max of the same values: the tensors exposed as outputs of a copy of the
        # model run unoptimized by `onyx run`, one sample at a time.
        m = onnx.load(model)
        names = sorted(acts)
        for k, name in enumerate(names):
            m.graph.node.append(onnx.helper.make_node("Identity", [name], ["observed_%d" % k]))
            m.graph.output.append(onnx.helper.make_empty_tensor_value_info("observed_%d" % k))
        probe = os.path.join(tmp, "one_pass_probe.onnx")
        onnx.save(m, probe)
        lo, hi = {}, {}
        for i in range(8):  # the first 8 samples in onyx's (natural) order
            pb = os.path.join(cal, "test_data_set_%d" % i, "input_0.pb")
            o = os.path.join(tmp, "probe_%d" % i)
            r = run([onyx, "run", probe, "--input", "input=" + pb, "--output-dir", o, "--opt-level", "disabled"])
            if r.returncode != 0:
                raise RuntimeError("onyx run probe: " + r.stderr)
            for k, name in enumerate(names):
                v = np.load(os.path.join(o, "observed_%d.npy" % k))
                lo[name] = min(lo.get(name, np.inf), float(v.min()))
                hi[name] = max(hi.get(name, -np.inf), float(v.max()))
        want = {n: ([lo[n], hi[n]],) + acts[n][1:] for n in names}
        check(close_params(acts, want, 1e-5),
              "minmax ranges of %d activations equal numpy's min/max over 8 samples" % len(names))


def test_progress_and_usage(onyx, d, tmp):
    model = os.path.join(d, "cnn.onnx")
    args = [onyx, "quantize", model, "-o", os.path.join(tmp, "p.onnx"), "--mode", "static", "--calibration",
            os.path.join(d, "cnn_calibration"), "--max-samples", "4"]
    r = run(args)
    check(r.returncode == 0 and "\r" not in r.stderr, "no progress bar when stderr is not a tty")
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait()
    os.close(master)
    check(p.returncode == 0 and b"\rcalibrating [" in seen and b"/" in seen, "a one-line progress bar on a tty")
    # One calibration session: 4 calibration runs then 4 measuring runs count to 8 of 8, then 4 bias-correction
    # runs and 4 evaluation runs.
    frames = [(m.group(1).decode(), int(m.group(2)), int(m.group(3)))
              for m in re.finditer(rb"\r(\w+) *\[[#.]+\] (\d+)/(\d+)", seen)]
    last = {}
    for stage, done, total in frames:
        last[stage] = (done, total)
    check(last == {"calibrating": (4, 8), "measuring": (8, 8), "correcting": (4, 4), "evaluating": (4, 4)} and
          all(done <= total for _, done, total in frames),
          "progress counts every run once and ends full (%s)" % last)
    for bad, code in (([model], 2), ([model, "-o", "x.onnx", "--mode", "fast"], 2),
                      ([model, "-o", "x.onnx", "--mode", "static"], 2),
                      ([model, "-o", "x.onnx", "--mode", "weight-only", "--block", "48"], 2),
                      ([model, "-o", os.path.join(tmp, "x.onnx"), "--mode", "static", "--calibration", "/nonexistent"], 1)):
        r = run([onyx, "quantize", *bad])
        check(r.returncode == code and r.stderr.startswith("onyx: "), "quantize %s exits %d (%s)" % (" ".join(bad[1:]), code, r.stderr.strip()[:80]))


def test_npy_calibration(onyx, d, tmp):
    """Calibration from loose .npy files and from NAME.npy stacks gives the same ranges as from .pb folders."""
    sets = [os.path.join(d, "cnn_calibration", "test_data_set_%d" % i, "input_0.pb") for i in range(8)]
    arrays = [load_pb(p) for p in sets]
    loose = os.path.join(tmp, "npy_loose")
    stacked = os.path.join(tmp, "npy_stacked")
    os.makedirs(loose)
    os.makedirs(stacked)
    for i, a in enumerate(arrays):
        np.save(os.path.join(loose, "sample_%d.npy" % i), a)
    np.save(os.path.join(stacked, "input.npy"), np.concatenate(arrays, 0))
    reports = []
    for folder in (os.path.join(d, "cnn_calibration"), loose, stacked):
        reports.append(quantize(onyx, os.path.join(d, "cnn.onnx"), os.path.join(tmp, "npy.onnx"), "--mode", "static",
                                "--calibration", folder, "--max-samples", "8"))
    ranges = [[(t["name"], t["range"]) for t in r["tensors"] if t["kind"] == "activation"] for r in reports]
    check(ranges[0] == ranges[1] == ranges[2] and reports[1]["calibration_samples"] == 8,
          "calibration from .pb folders, loose .npy and stacked NAME.npy agree")


def test_real_model(onyx, shared, tmp):
    model = os.path.join(shared, "models", "onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    if not os.path.exists(model):
        print("skip real model: %s not found" % model)
        return
    inp = onnx.load(model).graph.input[0]
    dims = [1, 3, 48, 192]  # PaddleOCR's text direction classifier: [N, 3, 48, W]
    rng = np.random.default_rng(5)
    cal = os.path.join(tmp, "real_cal")
    for i in range(12):
        x = (rng.random(dims, dtype=np.float32) - 0.5) * 2
        x = (x + np.roll(x, 1, -1) + np.roll(x, 1, -2)) / 3
        os.makedirs(os.path.join(cal, "test_data_set_%d" % i))
        with open(os.path.join(cal, "test_data_set_%d" % i, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, inp.name).SerializeToString())
    out = os.path.join(tmp, "real_static.onnx")
    report = quantize(onyx, model, out, "--mode", "static", "--calibration", cal, "--per-channel")
    full_check(onyx, out)
    o = report["outputs"][0]
    check(o["cosine"] >= 0.99, "real model %s static QDQ: output cosine %.5f, top-1 %.3f over %d samples" %
          (os.path.basename(model), o["cosine"], o.get("top1_agreement", -1), o["samples"]))


def test_ort_reference(onyx, source, tmp):
    """The committed quantized models give ONNX Runtime 1.30's outputs in onyx."""
    folders = sorted(glob.glob(os.path.join(source, "tests", "data", "quantize", "*", "")))
    check(len(folders) >= 3, "reference data: %d quantized models in tests/data/quantize" % len(folders))
    for folder in folders:
        name = os.path.basename(folder.rstrip("/"))
        full_check(onyx, os.path.join(folder, "model.onnx"))
        sets = sorted(glob.glob(os.path.join(folder, "test_data_set_*")))
        for s in sets:
            want = load_pb(os.path.join(s, "output_0.pb"))
            got = onyx_outputs(onyx, os.path.join(folder, "model.onnx"), [os.path.join(s, "input_0.pb")], tmp)[0]
            diff = float(np.abs(got - want).max())
            check(got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max())),
                  "%s/%s: onyx vs ONNX Runtime max difference %.3g" % (name, os.path.basename(s), diff))


def test_python(python_dir, d, tmp):
    if not python_dir or not os.path.isdir(os.path.join(python_dir, "onyx")):
        print("skip python: no built module given")
        return
    sys.path.insert(0, python_dir)
    try:
        import onyx as onyx_module
    except ImportError as e:
        print("skip python: %s" % e)
        return
    out = os.path.join(tmp, "py_static.onnx")
    report = onyx_module.quantize(os.path.join(d, "cnn.onnx"), out, mode="static",
                                  calibration=os.path.join(d, "cnn_calibration"), per_channel=True, max_samples=8)
    check(os.path.exists(out) and report["mode"] == "static" and report["calibration_samples"] == 8 and
          report["outputs"][0]["cosine"] > 0.99 and any("bias correction" in n for n in report["notes"]),
          "onyx.quantize(mode='static') from Python")
    report = onyx_module.quantize(os.path.join(d, "cnn.onnx"), out, mode="static",
                                  calibration=os.path.join(d, "cnn_calibration"), max_samples=4, bias_correction=False,
                                  prepare=False)
    check(not any("bias correction" in n or "before quantizing" in n for n in report["notes"]),
          "onyx.quantize(bias_correction=False, prepare=False)")
    try:
        onyx_module.quantize(os.path.join(d, "cnn.onnx"), out, mode="sideways")
        check(False, "onyx.quantize rejects an unknown mode")
    except onyx_module.InvalidArgument:
        check(True, "onyx.quantize rejects an unknown mode")


def test_split_takes_input_parameters(onyx, tmp):
    """A quantized Split's outputs take its input's scale and zero point (as ONNX Runtime's quantizer writes them), so
    that the optimizer drops the DQ -> Split -> Q group (pass DropSplitQdq) and splits the 8-bit data."""
    from onnx import helper, TensorProto
    rng = np.random.default_rng(3)
    w1 = numpy_helper.from_array(rng.normal(0, 0.3, (8, 8, 3, 3)).astype(np.float32), "w1")
    wa = numpy_helper.from_array(rng.normal(0, 0.3, (4, 4, 1, 1)).astype(np.float32), "wa")
    wb = numpy_helper.from_array(rng.normal(0, 0.3, (4, 4, 1, 1)).astype(np.float32), "wb")
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Split", ["r"], ["s0", "s1"], axis=1, name="split"),
             helper.make_node("Conv", ["s0", "wa"], ["a"], name="conv_a"),
             helper.make_node("Conv", ["s1", "wb"], ["b"], name="conv_b"),
             helper.make_node("Concat", ["a", "b"], ["y"], axis=1, name="concat")]
    graph = helper.make_graph(nodes, "split", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 6, 6])], [w1, wa, wb])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    src = os.path.join(tmp, "split.onnx")
    onnx.save(model, src)
    cal = os.path.join(tmp, "split_cal")
    os.makedirs(cal, exist_ok=True)
    for i in range(4):
        np.save(os.path.join(cal, "s%d.npy" % i), rng.uniform(-1, 1, (1, 8, 6, 6)).astype(np.float32))
    out = os.path.join(tmp, "split_qdq.onnx")
    quantize(onyx, src, out, "--mode", "static", "--calibration", cal, "--op-types", "Conv,Relu,Split,Concat")
    m = onnx.load(out)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    producer = {o: n for n in m.graph.node for o in n.output}
    split = [n for n in m.graph.node if n.op_type == "Split"][0]
    dq = producer.get(split.input[0])
    readers = [n for n in m.graph.node if any(i in split.output for i in n.input)]
    same = dq is not None and dq.op_type == "DequantizeLinear" and len(readers) == 2 and all(
        q.op_type == "QuantizeLinear" and inits[q.input[1]] == inits[dq.input[1]] and
        inits[q.input[2]] == inits[dq.input[2]] for q in readers)
    check(same, "static: the Split's outputs quantized with its input's scale and zero point")
    optimized = os.path.join(tmp, "split_opt.onnx")
    x = os.path.join(tmp, "split_x.npy")
    np.save(x, rng.uniform(-1, 1, (1, 8, 6, 6)).astype(np.float32))
    r = run([onyx, "run", out, "--input", "x=" + x, "--optimized-model", optimized, "--output-dir",
             os.path.join(tmp, "split_out")])
    check(r.returncode == 0, "the quantized Split model runs" + ("" if r.returncode == 0 else ": " + r.stderr[-300:]))
    if r.returncode == 0:
        o = onnx.load(optimized)
        producer = {out_name: n for n in o.graph.node for out_name in n.output}
        splits = [n for n in o.graph.node if n.op_type == "Split"]
        check(len(splits) == 1 and producer[splits[0].input[0]].op_type != "DequantizeLinear" and
              not any(n.op_type == "QuantizeLinear" and n.input[0] in splits[0].output for n in o.graph.node),
              "optimized: the Split reads the 8-bit value (DQ -> Split -> Q dropped)")


def main():
    onyx, source = sys.argv[1], sys.argv[2]
    shared = sys.argv[3] if len(sys.argv) > 3 else ""
    python_dir = sys.argv[4] if len(sys.argv) > 4 else ""
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "models")
        subprocess.run(["/usr/bin/python3", os.path.join(source, "tests", "quantize", "make_models.py"), d,
                        "--calibration", "32", "--evaluation", "64", "--big-calibration", "200"], check=True)
        for test in (lambda: test_static_cnn(onyx, d, tmp), lambda: test_static_qoperator(onyx, d, tmp),
                     lambda: test_dynamic(onyx, d, tmp), lambda: test_dynamic_shared_weight(onyx, tmp),
                     lambda: test_weight_only(onyx, d, tmp), lambda: test_selection(onyx, d, tmp),
                     lambda: test_exclude_static(onyx, d, tmp), lambda: test_prepare(onyx, d, tmp),
                     lambda: test_bias_correction(onyx, d, tmp), lambda: test_entropy_saturated(onyx, d, tmp),
                     lambda: test_memory_bounded(onyx, d, tmp), lambda: test_one_pass(onyx, d, tmp),
                     lambda: test_progress_and_usage(onyx, d, tmp), lambda: test_npy_calibration(onyx, d, tmp),
                     lambda: test_real_model(onyx, shared, tmp), lambda: test_ort_reference(onyx, source, tmp),
                     lambda: test_python(python_dir, d, tmp), lambda: test_split_takes_input_parameters(onyx, tmp)):
            try:
                test()
            except Exception as e:  # a crash in one part fails it, the rest still run
                check(False, "%s: %s" % (type(e).__name__, e))
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
