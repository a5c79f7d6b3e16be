#!/usr/bin/env node
// Times ONNX Runtime (onnxruntime-node, CPU) on one model, the way `onyx bench --json` times onyx:
// node ort_runner.js MODEL THREADS RUNS WARMUP  ->  one JSON line (create_ms, median_ms, min_ms, mean_ms, p90_ms,
// peak_rss_mb). Inputs are random; symbolic dims are 1. Optimization level 'all', sequential, 1 inter-op thread.
'use strict';
const ort = require('onnxruntime-node');
const { performance } = require('perf_hooks');

const [model, threadsArg, runsArg, warmArg] = process.argv.slice(2);
if (!model) {
  console.error('usage: node ort_runner.js MODEL [threads] [runs] [warmup]');
  process.exit(2);
}
const threads = parseInt(threadsArg || '1', 10);
const runs = parseInt(runsArg || '50', 10);
const warmup = parseInt(warmArg || '5', 10);

function randomTensor(type, dims) {
  const n = dims.reduce((a, b) => a * b, 1);
  if (type === 'float32') return new ort.Tensor(type, Float32Array.from({ length: n }, () => Math.random()), dims);
  if (type === 'int64') return new ort.Tensor(type, BigInt64Array.from({ length: n }, () => BigInt(Math.floor(Math.random() * 10))), dims);
  if (type === 'int32') return new ort.Tensor(type, Int32Array.from({ length: n }, () => Math.floor(Math.random() * 10)), dims);
  if (type === 'bool') return new ort.Tensor(type, new Uint8Array(n), dims);
  throw new Error('input type ' + type + ' is not handled');
}

(async () => {
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: threads,
    interOpNumThreads: 1, executionMode: 'sequential',
  });
  const createMs = performance.now() - t0;
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const meta = session.inputMetadata && session.inputMetadata[i];
    const dims = ((meta && meta.shape) || [1]).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    feeds[name] = randomTensor((meta && meta.type) || 'float32', dims);
  });
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
