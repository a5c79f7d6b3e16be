#!/usr/bin/python3
"""Bit-exactness of onyx against ONNX Runtime 1.30 on models with any inputs (the BERT-like encoder quantized
dynamically, bench/make_quantized_models.py, takes float embeddings; token-id models take int64 ids and a mask):
random inputs (floats in [-1, 1), token ids below --vocab, masks of ones), optimization levels disabled and all,
onyx and ONNX Runtime each at 1 and 2 threads, every output compared byte for byte with ONNX Runtime's at the same
level and thread count.

With --per-node, every float or 8-bit value the nodes compute becomes an extra output (through an Identity, so its
name is a plain file name), at level disabled only, and the first node whose output differs from ONNX Runtime's is
named with its inputs' status: the node where the two engines part.

usage: NODE_PATH=~/.cache/onyx-bench/ort/node_modules bench/bert_exact_vs_ort.py ONYX MODEL [--per-node]
           [--threads 1,2] [--levels disabled,all] [--seed N] [--vocab N] [--ort-order on|off]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# ONNX Runtime (onnxruntime-node) on raw input files; outputs as raw files plus a JSON list of names/types/dims.
ORT_RUNNER = r"""
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const [model, specFile, outDir, level, threads] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
const ARRAYS = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array, int8: Int8Array,
                 bool: Uint8Array };
const session = await ort.InferenceSession.create(model, {
  executionProviders: ['cpu'], graphOptimizationLevel: level, intraOpNumThreads: parseInt(threads, 10),
  interOpNumThreads: 1, executionMode: 'sequential' });
const feeds = {};
for (const inp of spec) {
  const raw = new Uint8Array(fs.readFileSync(inp.file)).buffer;
  feeds[inp.name] = new ort.Tensor(inp.dtype, new ARRAYS[inp.dtype](raw), inp.dims);
}
const results = await session.run(feeds);
fs.mkdirSync(outDir, { recursive: true });
const meta = session.outputNames.map((name, i) => {
  const t = results[name];
  fs.writeFileSync(path.join(outDir, `out_${i}.bin`), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return { name, dtype: t.type, dims: t.dims };
});
fs.writeFileSync(path.join(outDir, 'meta.json'), JSON.stringify(meta));
"""

NP_TYPES = {"float32": np.float32, "int64": np.int64, "int32": np.int32, "uint8": np.uint8, "int8": np.int8,
            "bool": np.bool_}
ONNX_TO_NAME = {TensorProto.FLOAT: "float32", TensorProto.INT64: "int64", TensorProto.INT32: "int32",
                TensorProto.UINT8: "uint8", TensorProto.INT8: "int8", TensorProto.BOOL: "bool"}


def make_inputs(model, rng, vocab):
    feeds = {}
    inits = {i.name for i in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        t = inp.type.tensor_type
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in t.shape.dim]
        name = ONNX_TO_NAME[t.elem_type]
        if name == "float32":
            feeds[inp.name] = rng.uniform(-1, 1, dims).astype(np.float32)
        elif "mask" in inp.name.lower():
            feeds[inp.name] = np.ones(dims, dtype=NP_TYPES[name])
        else:
            feeds[inp.name] = rng.integers(0, vocab, dims).astype(NP_TYPES[name])
    return feeds


def expose_all(model):
    """A copy of the model whose every float/8-bit node output is also a graph output dbg_N (N in node order)."""
    m = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in list(m.graph.value_info) + list(m.graph.output)}
    exposed = []  # (debug name, value name, node index)
    for i, node in enumerate(m.graph.node):
        for out in node.output:
            # onnx's shape inference knows no com.microsoft operator (ONNX Runtime's optimized models carry them):
            # the values it could not type are float, but for the integer-valued operators.
            if out and out not in types and node.op_type not in ("Shape", "Size", "NonZero", "ArgMax", "ArgMin"):
                types[out] = TensorProto.FLOAT
            if out and types.get(out) in (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8):
                exposed.append(("dbg_%05d" % len(exposed), out, i))
    for dbg, value, _ in exposed:
        m.graph.node.append(helper.make_node("Identity", [value], [dbg]))
        m.graph.output.append(helper.make_tensor_value_info(dbg, types[value], None))
    return m, exposed


def run_ort(model_file, feeds, level, threads, work):
    spec = []
    for i, (name, value) in enumerate(feeds.items()):
        f = os.path.join(work, "in_%d.bin" % i)
        value.tofile(f)
        spec.append({"name": name, "dtype": {v: k for k, v in NP_TYPES.items()}[value.dtype.type],
                     "dims": list(value.shape), "file": f})
    spec_file = os.path.join(work, "spec.json")
    with open(spec_file, "w") as f:
        json.dump(spec, f)
    runner = os.path.join(work, "ort_runner.mjs")
    with open(runner, "w") as f:
        f.write(ORT_RUNNER)
    out = os.path.join(work, "ort_%s_%d" % (level, threads))
    subprocess.run(["node", runner, model_file, spec_file, out, level, str(threads)], check=True)
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    return {m["name"]: np.fromfile(os.path.join(out, "out_%d.bin" % i), dtype=NP_TYPES[m["dtype"]]).reshape(m["dims"])
            for i, m in enumerate(meta)}


def run_onyx(onyx, model_file, feeds, level, threads, work, ort_order=None):
    args = [onyx, "run", model_file, "--threads", str(threads), "--opt-level", level]
    if ort_order:
        args += ["--ort-order", ort_order]
    for i, (name, value) in enumerate(feeds.items()):
        f = os.path.join(work, "onyx_in_%d.pb" % i)
        with open(f, "wb") as fh:
            fh.write(numpy_helper.from_array(value, name).SerializeToString())
        args += ["--input", "%s=%s" % (name, f)]
    out = os.path.join(work, "onyx_%s_%d" % (level, threads))
    subprocess.run(args + ["--output-dir", out], check=True, stdout=subprocess.DEVNULL)
    return {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out) if f.endswith(".npy")}


def differs(got, want):
    if got is None or got.shape != want.shape or got.dtype != want.dtype:
        return "type/shape"
    g = np.atleast_1d(got).view(np.uint8).reshape(got.size, -1)
    w = np.atleast_1d(want).view(np.uint8).reshape(want.size, -1)
    bad = int((g != w).any(axis=1).sum())
    if bad == 0:
        return None
    worst = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
    return "%d of %d elements, max |diff| %.3g" % (bad, want.size, worst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onyx")
    ap.add_argument("model")
    ap.add_argument("--per-node", action="store_true")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--levels", default="disabled,all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--ort-order", choices=["on", "off"],
                    help="onyx's --ort-order at every level (default: onyx's own default, on at level disabled only)")
    args = ap.parse_args()
    model = onnx.load(args.model)
    feeds = make_inputs(model, np.random.default_rng(args.seed), args.vocab)
    threads = [int(t) for t in args.threads.split(",")]
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        if args.per_node:
            exposed_model, exposed = expose_all(model)
            model_file = os.path.join(work, "exposed.onnx")
            onnx.save(exposed_model, model_file)
            for t in threads:
                want = run_ort(model_file, feeds, "disabled", t, work)
                got = run_onyx(args.onyx, model_file, feeds, "disabled", t, work, args.ort_order)
                first = None
                bad_nodes = 0
                for dbg, value, index in exposed:
                    d = differs(got.get(dbg), want[dbg])
                    if d is not None:
                        bad_nodes += 1
                        if first is None:
                            first = (dbg, value, index, d)
                if first is None:
                    print("threads=%d: all %d node outputs identical" % (t, len(exposed)))
                    continue
                failures += 1
                dbg, value, index, d = first
                node = exposed_model.graph.node[index]
                print("threads=%d: %d of %d node outputs differ; first: node %d %s (%s) output %s: %s" %
                      (t, bad_nodes, len(exposed), index, node.name, node.op_type, value, d))
                by_value = {v: db for db, v, _ in exposed}
                for inp in node.input:
                    if inp in by_value:
                        print("    input %s: %s" % (inp, differs(got.get(by_value[inp]), want[by_value[inp]]) or
                                                    "identical"))
            return 1 if failures else 0
        names = [o.name for o in model.graph.output]
        for level in args.levels.split(","):
            for t in threads:
                want = run_ort(args.model, feeds, level, t, work)
                got = run_onyx(args.onyx, args.model, feeds, level, t, work, args.ort_order)
                for name in names:
                    d = differs(got.get(name), want[name])
                    failures += d is not None
                    print("%s level=%s threads=%d %s: %s" % (os.path.basename(args.model), level, t, name,
                                                              "identical" if d is None else "DIFFER in " + d))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
