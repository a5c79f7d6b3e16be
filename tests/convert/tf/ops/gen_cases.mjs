// Generates the TensorFlow operator cases of tests/data/tf_ops: for every case of cases_*.mjs, a TF.js graph-model
// (model.json + weights.bin), seeded random inputs, and the outputs @tensorflow/tfjs 4.22 (cpu backend) computes for
// them, as ONNX TensorProto files (test_data_set_0/input_N.pb, output_N.pb). run_op_cases.sh converts each model
// with onyx and compares. CI needs no node: the generated cases are committed.
//
//   npm install --prefix ~/.cache/onyx-keras @tensorflow/tfjs@4.22.0
//   NODE_PATH=~/.cache/onyx-keras/node_modules node tests/convert/tf/ops/gen_cases.mjs tests/data/tf_ops [FILTER]
//
// FILTER (a substring) regenerates only the cases whose name contains it. A case tfjs cannot run is reported and
// not written (exit 1 at the end).
//
// The expected outputs come, in order of preference, from TF.js running the case's graph, from TF.js running the
// case's `reference(g)` graph, or from the case's `expected(t, tf)` function: JS that computes them from
// TensorFlow's definition (with TF.js ops where it has them, e.g. tf.raggedRange, which its graph-model loader does
// not map), for operators neither can express. `t` maps every input and Const name to a tf.Tensor (int64 as
// int32); it returns the outputs in order, as tf.Tensors or {dtype, shape, values}. model.json's generatedBy names
// the kind of reference of every case that is not TF.js running the graph itself.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { DT, GraphBuilder } from './lib.mjs';

const require = createRequire(import.meta.url);
const tf = require(process.env.NODE_PATH ? path.join(process.env.NODE_PATH.split(':')[0], '@tensorflow/tfjs')
                                         : '@tensorflow/tfjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const outRoot = process.argv[2] || 'tests/data/tf_ops';
const filter = process.argv[3] || '';

// mulberry32, seeded by the case name: inputs do not change when other cases are added.
function rng(name) {
  let seed = 2166136261;
  for (const ch of name) seed = Math.imul(seed ^ ch.charCodeAt(0), 16777619);
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- ONNX TensorProto: dims 1, data_type 2, string_data 6, name 8, raw_data 9 ------------------------------
const ONNX_TYPE = { float32: 1, uint8: 2, int8: 3, int16: 5, int32: 6, int64: 7, string: 8, bool: 9, float64: 11 };
function varint(v) {
  let x = BigInt(v);
  if (x < 0n) x += 1n << 64n;
  const bytes = [];
  do { let b = Number(x & 0x7fn); x >>= 7n; if (x) b |= 0x80; bytes.push(b); } while (x);
  return Buffer.from(bytes);
}
const field = (num, wire, payload) => Buffer.concat([varint((num << 3) | wire), payload]);
const bytesField = (num, buf) => field(num, 2, Buffer.concat([varint(buf.length), buf]));

// values: a JS array (numbers, booleans, strings or BigInts).
function tensorProto(name, dtype, dims, values) {
  const parts = dims.map((d) => field(1, 0, varint(d)));
  parts.push(field(2, 0, varint(ONNX_TYPE[dtype])));
  if (dtype === 'string') for (const s of values) parts.push(bytesField(6, Buffer.from(s, 'utf8')));
  parts.push(bytesField(8, Buffer.from(name, 'utf8')));
  if (dtype !== 'string') parts.push(bytesField(9, rawBytes(dtype, values)));
  return Buffer.concat(parts);
}

function rawBytes(dtype, values) {
  const arrays = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int16: Int16Array,
                   int8: Int8Array, uint8: Uint8Array, bool: Uint8Array };
  if (dtype === 'int64') return Buffer.from(BigInt64Array.from(values, (v) => BigInt(Math.round(Number(v)))).buffer);
  const A = arrays[dtype];
  if (!A) throw new Error(`no raw encoding for ${dtype}`);
  return Buffer.from(A.from(values, (v) => (dtype === 'bool' ? (v ? 1 : 0) : Number(v))).buffer);
}

function fillInput(inp, next) {
  const n = inp.shape.reduce((a, b) => a * b, 1);
  const f = inp.fill || {};
  const out = new Array(n);
  for (let i = 0; i < n; ++i) {
    if (f.values) out[i] = f.values[i % f.values.length];
    else if (f.bool || inp.dtype === 'bool') out[i] = next() < 0.5;
    else if (inp.dtype === 'string') out[i] = `s${Math.floor(next() * 4)}`;
    else if (f.int || ['int32', 'int64', 'uint8', 'int8', 'int16'].includes(inp.dtype)) {
      const [lo, hi] = f.int || [-5, 5];
      out[i] = lo + Math.floor(next() * (hi - lo + 1));
    } else {
      const [lo, hi] = f.uniform || [-2, 2];
      out[i] = lo + (hi - lo) * next();
    }
  }
  return out;
}

// tfjs computes int64 as int32 and has no other integer types: feed and store constants as int32.
const tfjsDtype = (dtype) => (['int64', 'int8', 'int16', 'uint8'].includes(dtype) ? 'int32' : dtype);

function weightsOf(g) {
  const specs = [];
  const buffers = [];
  for (const c of g.consts) {
    const dtype = tfjsDtype(c.dtype);
    specs.push({ name: c.name, shape: c.shape, dtype });
    if (dtype === 'string') {
      for (const s of c.values) {
        const b = Buffer.from(s, 'utf8');
        const len = Buffer.alloc(4);
        len.writeUInt32LE(b.length);
        buffers.push(len, b);
      }
    } else {
      buffers.push(rawBytes(dtype === 'bool' ? 'bool' : dtype, c.values));
    }
  }
  return { specs, data: Buffer.concat(buffers) };
}

async function runCase(c) {
  const g = new GraphBuilder();
  c.build(g);
  if (g.outputs.length === 0) throw new Error('no outputs');
  const { specs, data } = weightsOf(g);
  // Const nodes stored in the weights carry no value in the graph, as the TF.js converter writes them.
  const topology = { node: g.nodes, library: { function: g.functions }, versions: { producer: 1286 } };
  const initializer = g.initNodes.length ? { node: g.initNodes, versions: { producer: 1286 } } : undefined;
  // TF.js runs the case's graph, or its reference graph when it has one (same inputs and outputs).
  let run = { g, specs, data, topology, initializer };
  if (c.reference && c.expected) throw new Error('a case gives either reference or expected, not both');
  if (c.expected) return writeCase(c, g, specs, data, topology, initializer, await expectedOutputs(c, g));
  if (c.reference) {
    const rg = new GraphBuilder();
    c.reference(rg);
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (!same(rg.inputs.map((i) => [i.name, i.dtype, i.shape]), g.inputs.map((i) => [i.name, i.dtype, i.shape])) ||
        rg.outputs.length !== g.outputs.length) {
      throw new Error('the reference graph has other inputs or outputs');
    }
    const w = weightsOf(rg);
    run = { g: rg, specs: w.specs, data: w.data,
            topology: { node: rg.nodes, library: { function: rg.functions }, versions: { producer: 1286 } },
            initializer: rg.initNodes.length ? { node: rg.initNodes, versions: { producer: 1286 } } : undefined };
  }
  const ab = run.data.buffer.slice(run.data.byteOffset, run.data.byteOffset + run.data.byteLength);
  const model = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: run.topology, weightSpecs: run.specs,
                                                           weightData: ab, format: 'graph-model',
                                                           modelInitializer: run.initializer }));
  const { feeds, inputFiles } = feedInputs(c, g);
  const runNames = run.g.outputs.map((o) => o.name);
  // execute() where it can (executeAsync warns on graphs without control flow), executeAsync for the others.
  let results;
  try {
    results = model.execute(feeds, runNames);
  } catch (e) {
    if (!/executeAsync|dynamic|control flow/.test(e.message)) throw e;
    results = await model.executeAsync(feeds, runNames);
  }
  if (!Array.isArray(results)) results = [results];
  const outputs = [];
  for (const r of results) {
    if (r.dtype === 'complex64') throw new Error('complex output');
    outputs.push({ dtype: r.dtype, shape: r.shape, values: Array.from(await r.data()) });
  }
  tf.dispose([...Object.values(feeds), ...results]);
  model.dispose();
  writeCase(c, g, specs, data, topology, initializer, { inputFiles, outputs }, c.reference ? 'reference graph' : '');
}

// The case's fed inputs as TensorProto files and as tf.Tensors (by Placeholder name), seeded by the case name.
function feedInputs(c, g) {
  const next = rng(c.name);
  const feeds = {};
  const inputFiles = [];
  g.inputs.forEach((inp, k) => {
    const values = fillInput(inp, next);
    feeds[inp.name] = tf.tensor(values, inp.shape, tfjsDtype(inp.dtype));
    inputFiles.push(tensorProto(`${inp.name}:0`, inp.dtype, inp.shape, values));
  });
  return { feeds, inputFiles };
}

// The outputs of the case's expected(t, tf) on its inputs and Consts.
async function expectedOutputs(c, g) {
  const { feeds, inputFiles } = feedInputs(c, g);
  const consts = Object.fromEntries(g.consts.map((k) => [k.name, tf.tensor(k.values, k.shape, tfjsDtype(k.dtype))]));
  const t = { ...consts, ...feeds };
  let results = await c.expected(t, tf);
  if (!Array.isArray(results)) results = [results];
  if (results.length !== g.outputs.length) throw new Error(`expected() gave ${results.length} outputs for ${g.outputs.length}`);
  const outputs = [];
  for (const r of results) {
    if (r instanceof tf.Tensor) outputs.push({ dtype: r.dtype, shape: r.shape, values: Array.from(await r.data()) });
    else outputs.push({ dtype: r.dtype, shape: r.shape, values: Array.from(r.values) });
  }
  tf.dispose([...Object.values(t), ...results.filter((r) => r instanceof tf.Tensor)]);
  return { inputFiles, outputs };
}

// Writes the case's directory. `kind` names a reference other than TF.js running the case's graph.
function writeCase(c, g, specs, data, topology, initializer, { inputFiles, outputs }, kind = 'expected() in JS') {
  const names = g.outputs.map((o) => o.name);
  const outputFiles = [];
  for (let k = 0; k < outputs.length; ++k) {
    const r = outputs[k];
    outputFiles.push(tensorProto(names[k], g.outputs[k].dtype || r.dtype, r.shape, r.values));
  }

  const dir = path.join(outRoot, c.name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'test_data_set_0'), { recursive: true });
  const signature = {
    inputs: Object.fromEntries(g.inputs.map((i) => [`${i.name}:0`, { name: `${i.name}:0`, dtype: DT[i.dtype] }])),
    outputs: Object.fromEntries(names.map((n) => [n, { name: n }])),
  };
  const generatedBy = 'onyx tests/convert/tf/ops/gen_cases.mjs' + (kind ? ` (expected outputs: ${kind})` : '');
  const modelJson = { format: 'graph-model', generatedBy,
                      convertedBy: null, signature, modelTopology: topology,
                      ...(initializer ? { modelInitializer: initializer } : {}),
                      weightsManifest: [{ paths: ['weights.bin'], weights: specs }] };
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson) + '\n');
  fs.writeFileSync(path.join(dir, 'weights.bin'), data);
  inputFiles.forEach((b, k) => fs.writeFileSync(path.join(dir, 'test_data_set_0', `input_${k}.pb`), b));
  outputFiles.forEach((b, k) => fs.writeFileSync(path.join(dir, 'test_data_set_0', `output_${k}.pb`), b));
}

await tf.setBackend('cpu');
const files = fs.readdirSync(here).filter((f) => /^cases_.*\.mjs$/.test(f)).sort();
let written = 0;
const failed = [];
const seen = new Set();
for (const f of files) {
  const { cases } = await import(pathToFileURL(path.join(here, f)).href);
  for (const c of cases) {
    if (seen.has(c.name)) throw new Error(`${f}: case name '${c.name}' is used twice`);
    seen.add(c.name);
    if (filter && !c.name.includes(filter)) continue;
    try {
      await runCase(c);
      ++written;
    } catch (e) {
      failed.push(c.name);
      console.error(`FAIL ${c.name} (${f}): ${e.message.split('\n')[0]}`);
      if (process.env.GEN_DEBUG) console.error(e.stack);
    }
  }
}
console.log(`${written} cases written to ${outRoot}, ${failed.length} failed`);
process.exit(failed.length ? 1 : 0);
