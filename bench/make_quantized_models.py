#!/usr/bin/python3
"""Makes quantized versions of the benchmark models for bench/quant_compare.py, the way ONNX Runtime's quantization
tool lays them out (its algorithms for choosing ranges are not reproduced: quality does not matter for speed):

  static QDQ (resnet50, mobilenet_v2, squeezenet1_1): every float activation read by Conv, Add, MaxPool,
      GlobalAveragePool or Concat, and every output of those ops (after their Relu/Clip when one follows), goes
      through QuantizeLinear -> DequantizeLinear with uint8 asymmetric parameters from the range seen on a few random
      inputs (a Relu/Clip output's minimum is 0, so its zero point is 0 and the Q makes the activation redundant);
      Conv weights are int8 symmetric per output channel behind a DequantizeLinear, biases int32 at
      x_scale * w_scale. Gemm stays float (as with the tool's default op list for CNN heads here).
  dynamic (bert_like_enc12): every MatMul with a constant 2-D weight becomes DynamicQuantizeLinear(A) ->
      MatMulInteger(A_q, W_q int8 per tensor, A_zp) -> Cast -> Mul(A_scale * W_scale), as quantize_dynamic writes it.

The float model is first cleaned by onyx at level basic (weights behind Identity nodes folded), and the ranges come
from `onyx run` with every intermediate value as an output.

usage: bench/make_quantized_models.py ONYX OUT_DIR [MODEL ...]   (MODEL: a name in ~/.cache/onyx-bench/models)
       writes OUT_DIR/<name>_qdq.onnx or OUT_DIR/<name>_dynamic.onnx
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MODELS = os.path.expanduser("~/.cache/onyx-bench/models")
STATIC = {"resnet50", "mobilenet_v2", "squeezenet1_1"}
DYNAMIC = {"bert_like_enc12"}
QUANTIZED_OPS = {"Conv", "Add", "MaxPool", "GlobalAveragePool", "Concat"}


def clean(onyx, src, dst):
    """The model at onyx's level basic, its intermediate values renamed v0, v1, ... (file-name safe)."""
    subprocess.run([onyx, "run", src, "--opt-level", "basic", "--optimized-model", dst, "--threads", "2"],
                   check=True, stdout=subprocess.DEVNULL)
    m = onnx.load(dst)
    keep = {o.name for o in m.graph.output}
    names = {}
    for n in m.graph.node:
        for k, o in enumerate(n.output):
            if o and o not in keep:
                names[o] = "v%d" % len(names)
                n.output[k] = names[o]
    for n in m.graph.node:
        for k, i in enumerate(n.input):
            n.input[k] = names.get(i, i)
    return m


def ranges(onyx, model, names, runs=2):
    """min/max of each value over `runs` random inputs (onyx run fills them in [0, 1); shifted to [-1, 1))."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    known = {o.name for o in m.graph.output}
    for n in names:
        if n not in known:
            m.graph.output.append(helper.make_empty_tensor_value_info(n))
    lo, hi = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "all.onnx")
        onnx.save(m, path)
        inp = m.graph.input[0]
        shape = [d.dim_value or 1 for d in inp.type.tensor_type.shape.dim]
        rng = np.random.default_rng(0)
        for r in range(runs):
            x = rng.uniform(-1, 1, shape).astype(np.float32)
            np.save(os.path.join(tmp, "x.npy"), x)
            out = os.path.join(tmp, "out%d" % r)
            subprocess.run([onyx, "run", path, "--input", "%s=%s" % (inp.name, os.path.join(tmp, "x.npy")),
                            "--opt-level", "disabled", "--threads", "2", "--output-dir", out],
                           check=True, stdout=subprocess.DEVNULL)
            for n in names:
                v = np.load(os.path.join(out, n + ".npy"))
                lo[n] = min(lo.get(n, 0.0), float(v.min()))
                hi[n] = max(hi.get(n, 0.0), float(v.max()))
    return lo, hi


def uint8_params(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
    zp = np.uint8(np.clip(np.rint(-lo / scale), 0, 255))
    return scale, zp


def static_qdq(onyx, model):
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    float_values = [g.input[0].name] + [o for n in g.node for o in n.output]

    def quantize_value(v):
        if v in inits:
            return False
        users = consumers.get(v, [])
        if any(u.op_type in QUANTIZED_OPS and list(u.input).index(v) == 0 or u.op_type in ("Add", "Concat")
               for u in users):
            return True
        p = producer.get(v)
        if p is None:
            return False
        if p.op_type in QUANTIZED_OPS:
            # A lone Relu/Clip reader takes the quantization (its output is quantized instead).
            return not (len(users) == 1 and users[0].op_type in ("Relu", "Clip"))
        if p.op_type in ("Relu", "Clip") and producer.get(p.input[0]) is not None:
            return producer[p.input[0]].op_type in QUANTIZED_OPS
        return False

    targets = [v for v in float_values if quantize_value(v)]
    lo, hi = ranges(onyx, model, targets)
    new_nodes, new_inits = [], []
    x_params = {}
    for v in targets:
        s, z = uint8_params(lo[v], hi[v])
        x_params[v] = (s, z)
        new_inits += [numpy_helper.from_array(np.array(s), v + "_scale"), numpy_helper.from_array(np.array(z), v + "_zp")]
    renamed = {v: v + "_dq" for v in targets}
    nodes = []
    for v in targets:
        if v == g.input[0].name:
            nodes += [helper.make_node("QuantizeLinear", [v, v + "_scale", v + "_zp"], [v + "_q"]),
                      helper.make_node("DequantizeLinear", [v + "_q", v + "_scale", v + "_zp"], [v + "_dq"])]
    for n in g.node:
        n2 = helper.make_node(n.op_type, [renamed.get(i, i) for i in n.input], list(n.output), name=n.name)
        n2.attribute.extend(n.attribute)
        if n.op_type == "Conv" and n.input[1] in inits and n.input[0] in renamed:
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            ws = (np.abs(w).reshape(w.shape[0], -1).max(axis=1) / 127.0).astype(np.float32)
            ws[ws == 0] = 1.0
            wq = np.clip(np.rint(w / ws.reshape(-1, *([1] * (w.ndim - 1)))), -127, 127).astype(np.int8)
            wn = n.output[0] + "_w"  # per node: exporters share equal weights and biases between nodes
            new_inits += [numpy_helper.from_array(wq, wn), numpy_helper.from_array(ws, wn + "_scale"),
                          numpy_helper.from_array(np.zeros(len(ws), np.int8), wn + "_zp")]
            nodes.append(helper.make_node("DequantizeLinear", [wn, wn + "_scale", wn + "_zp"], [wn + "_dq"], axis=0))
            n2.input[1] = wn + "_dq"
            if len(n.input) > 2 and n.input[2] in inits:
                b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float32)
                bs = (x_params[n.input[0]][0] * ws).astype(np.float32)
                bq = np.rint(b / bs).astype(np.int32)
                bn = n.output[0] + "_b"
                new_inits += [numpy_helper.from_array(bq, bn), numpy_helper.from_array(bs, bn + "_scale")]
                nodes.append(helper.make_node("DequantizeLinear", [bn, bn + "_scale"], [bn + "_dq"], axis=0))
                n2.input[2] = bn + "_dq"
        nodes.append(n2)
        for o in n.output:
            if o in renamed:
                nodes += [helper.make_node("QuantizeLinear", [o, o + "_scale", o + "_zp"], [o + "_q"]),
                          helper.make_node("DequantizeLinear", [o + "_q", o + "_scale", o + "_zp"], [o + "_dq"])]
    return finish(model, nodes, new_inits)


def finish(model, nodes, new_inits):
    """The model with these nodes, keeping only the initializers they read."""
    g = model.graph
    used = {i for n in nodes for i in n.input}
    inits = [t for t in list(g.initializer) + new_inits if t.name in used]
    graph = helper.make_graph(nodes, g.name, list(g.input), list(g.output), inits)
    out = helper.make_model(graph, opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    return out


def dynamic(model):
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    nodes, new_inits = [], []
    for n in g.node:
        if n.op_type == "MatMul" and n.input[1] in inits and len(inits[n.input[1]].dims) == 2:
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            ws = np.float32(max(np.abs(w).max(), 1e-8) / 127.0)
            wq = np.clip(np.rint(w / ws), -127, 127).astype(np.int8)
            a, y = n.input[0], n.output[0]
            wn = y + "_w"
            new_inits += [numpy_helper.from_array(wq, wn), numpy_helper.from_array(np.array(ws), wn + "_scale"),
                          numpy_helper.from_array(np.array(0, np.int8), wn + "_zp")]
            nodes += [
                helper.make_node("DynamicQuantizeLinear", [a], [y + "_aq", y + "_as", y + "_azp"]),
                helper.make_node("MatMulInteger", [y + "_aq", wn, y + "_azp", wn + "_zp"], [y + "_acc"]),
                helper.make_node("Cast", [y + "_acc"], [y + "_accf"], to=TensorProto.FLOAT),
                helper.make_node("Mul", [y + "_as", wn + "_scale"], [y + "_s"]),
                helper.make_node("Mul", [y + "_accf", y + "_s"], [y]),
            ]
        else:
            nodes.append(n)
    return finish(model, nodes, new_inits)


def main():
    onyx, out_dir = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or sorted(STATIC | DYNAMIC)
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            model = clean(onyx, os.path.join(MODELS, name + ".onnx"), os.path.join(tmp, "clean.onnx"))
            if name in DYNAMIC:
                path = os.path.join(out_dir, name + "_dynamic.onnx")
                onnx.save(dynamic(model), path)
            else:
                path = os.path.join(out_dir, name + "_qdq.onnx")
                onnx.save(static_qdq(onyx, model), path)
        print(path)


if __name__ == "__main__":
    main()
