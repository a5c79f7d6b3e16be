// Runs a model of tests/data/quant in ONNX Runtime (onnxruntime-node 1.30) on DIR/test_data_set_0/input_0.pb and
// writes every graph output as OUT/output_N.pb (TensorProto with raw_data, in the graph's output order), the
// reference values tests/quant/check_bit_exact.sh compares onyx with bit for bit. Not run in CI (no node there):
//
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/quant/ort_reference.mjs MODEL INPUT_PB OUT_DIR \
//       [disabled|basic|extended|all] [THREADS]
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const [model, inputFile, outDir, level = 'disabled', threads = '1'] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node ort_reference.mjs MODEL INPUT_PB OUT_DIR [level] [threads]');
  process.exit(2);
}

// ONNX element type numbers and typed arrays of the types these models produce.
const TYPES = {
  float32: [1, Float32Array], uint8: [2, Uint8Array], int8: [3, Int8Array], int32: [6, Int32Array],
  int64: [7, BigInt64Array],
};

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}

function field(num, wire) { return varint((num << 3) | wire); }

function bytesField(num, bytes) { return [...field(num, 2), ...varint(bytes.length), ...bytes]; }

// TensorProto: dims (1), data_type (2), name (8), raw_data (9).
function encodeTensor(name, tensor) {
  const [code] = TYPES[tensor.type];
  const parts = [];
  for (const d of tensor.dims) parts.push(...field(1, 0), ...varint(d));
  parts.push(...field(2, 0), ...varint(code));
  parts.push(...bytesField(8, Buffer.from(name, 'utf8')));
  const raw = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  return Buffer.concat([Buffer.from(parts), Buffer.from([...field(9, 2), ...varint(raw.length)]), raw]);
}

// A TensorProto with raw_data of one of TYPES (token ids of sequence models are int64).
function decodeTensor(file) {
  const buf = fs.readFileSync(file);
  let pos = 0;
  const readVarint = () => {
    let result = 0n, shift = 0n;
    for (;;) {
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  };
  const dims = [];
  let raw = null;
  let code = 1;
  while (pos < buf.length) {
    const key = Number(readVarint());
    const wire = key & 7, num = key >> 3;
    if (wire === 0) {
      const v = readVarint();
      if (num === 1) dims.push(Number(v));
      if (num === 2) code = Number(v);
    } else if (wire === 2) {
      const len = Number(readVarint());
      if (num === 9) raw = buf.subarray(pos, pos + len);
      pos += len;
    } else throw new Error('unexpected wire type ' + wire);
  }
  const entry = Object.entries(TYPES).find(([, [c]]) => c === code);
  if (!entry || raw === null) throw new Error('input element type ' + code + ' is not handled');
  const [type, [, Array_]] = entry;
  return new ort.Tensor(type, new Array_(new Uint8Array(raw).buffer), dims);
}

const session = await ort.InferenceSession.create(model, {
  executionProviders: ['cpu'], graphOptimizationLevel: level, intraOpNumThreads: parseInt(threads, 10),
  interOpNumThreads: 1, executionMode: 'sequential',
});
const feeds = { [session.inputNames[0]]: decodeTensor(inputFile) };
const results = await session.run(feeds);
fs.mkdirSync(outDir, { recursive: true });
session.outputNames.forEach((name, i) => {
  fs.writeFileSync(path.join(outDir, `output_${i}.pb`), encodeTensor(name, results[name]));
});
console.log(`${path.basename(path.dirname(model))}: ${session.outputNames.length} outputs (${level}, ${threads} threads)`);
