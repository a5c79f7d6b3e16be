#!/usr/bin/env node
// Times ONNX Runtime (onnxruntime-node, CPU) on one model, the way `onyx bench --json` times onyx:
// node ort_runner.js MODEL THREADS RUNS WARMUP [INPUT_DIR]  ->  one JSON line (create_ms, median_ms, min_ms,
// mean_ms, p90_ms, peak_rss_mb). Inputs are random with symbolic dims 1, or INPUT_DIR/input_N.pb (ONNX test-data
// layout, as `onyx bench --inputs`). Optimization level 'all', sequential, 1 inter-op thread.
'use strict';
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');
const { randomFeeds } = require('./ort_feeds');

const [model, threadsArg, runsArg, warmArg, inputDir] = process.argv.slice(2);
if (!model) {
  console.error('usage: node ort_runner.js MODEL [threads] [runs] [warmup]');
  process.exit(2);
}
const threads = parseInt(threadsArg || '1', 10);
const runs = parseInt(runsArg || '50', 10);
const warmup = parseInt(warmArg || '5', 10);

// A serialized TensorProto with raw_data (what the ONNX test-data files hold): dims (1), data_type (2), raw_data (9).
function readTensorProto(file) {
  const buf = fs.readFileSync(file);
  const varint = (bytes, cursor) => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[cursor.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  };
  const at = { pos: 0 };
  const dims = [];
  let dataType = 0;
  let raw = null;
  while (at.pos < buf.length) {
    const key = Number(varint(buf, at));
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) {
      const v = varint(buf, at);
      if (field === 1) dims.push(Number(v));
      if (field === 2) dataType = Number(v);
    } else if (wire === 2) {
      const len = Number(varint(buf, at));
      const bytes = buf.subarray(at.pos, at.pos + len);
      at.pos += len;
      if (field === 1) {  // packed dims
        const inner = { pos: 0 };
        while (inner.pos < bytes.length) dims.push(Number(varint(bytes, inner)));
      }
      if (field === 9) raw = bytes;
    } else if (wire === 5) at.pos += 4;
    else if (wire === 1) at.pos += 8;
    else throw new Error(file + ': unexpected wire type ' + wire);
  }
  if (raw === null) throw new Error(file + ': only raw_data tensors are read');
  const copy = new Uint8Array(raw).buffer;
  const types = { 1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array],
    2: ['uint8', Uint8Array], 3: ['int8', Int8Array], 9: ['bool', Uint8Array], 10: ['float16', Uint16Array], 11: ['float64', Float64Array] };
  if (!types[dataType]) throw new Error(file + ': data_type ' + dataType + ' is not handled');
  const [name, Ctor] = types[dataType];
  return new ort.Tensor(name, new Ctor(copy), dims);
}

(async () => {
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: threads,
    interOpNumThreads: 1, executionMode: 'sequential',
  });
  const createMs = performance.now() - t0;
  let feeds = {};
  if (inputDir) {
    session.inputNames.forEach((name, i) => {
      feeds[name] = readTensorProto(path.join(inputDir, 'input_' + i + '.pb'));
    });
  } else {
    feeds = randomFeeds(session);
  }
  for (let i = 0; i < warmup; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    await session.run(feeds);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  const median = runs % 2 ? times[(runs - 1) / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
  const mean = times.reduce((a, b) => a + b, 0) / runs;
  const p90 = times[Math.min(runs - 1, Math.floor(0.9 * runs))];
  const peakRss = process.resourceUsage().maxRSS / 1024;  // KiB -> MiB
  console.log(JSON.stringify({ create_ms: createMs, median_ms: median, min_ms: times[0], mean_ms: mean, p90_ms: p90,
    peak_rss_mb: peakRss }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
