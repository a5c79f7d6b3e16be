#!/usr/bin/env node
// ONNX Runtime's time per node, to set beside `onyx bench MODEL --profile-nodes`:
// NODE_PATH=~/.cache/onyx-bench/ort/node_modules node bench/ort_profile.js MODEL [THREADS] [RUNS] [WARMUP]
// Random inputs with symbolic dims 1 (as bench/ort_runner.js), level 'all', sequential. Prints the nodes of the
// optimized graph by mean time per run (ORT's *_kernel_time profile events), slowest first, then the run total.
'use strict';
const ort = require('onnxruntime-node');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { randomFeeds } = require('./ort_feeds');

const [model, threadsArg, runsArg, warmArg] = process.argv.slice(2);
if (!model) {
  console.error('usage: node ort_profile.js MODEL [threads] [runs] [warmup]');
  process.exit(2);
}
const threads = parseInt(threadsArg || '1', 10);
const runs = parseInt(runsArg || '20', 10);
const warmup = parseInt(warmArg || '5', 10);

(async () => {
  const prefix = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-')), 'profile');
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableProfiling: true,
    profileFilePrefix: prefix,
  });
  const feeds = randomFeeds(session);
  for (let i = 0; i < warmup + runs; i++) await session.run(feeds);
  session.endProfiling();
  await session.release();
  const dir = path.dirname(prefix);
  const file = fs.readdirSync(dir).map((f) => path.join(dir, f)).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  // Runs are in order: keep the node events of the last `runs` model_run spans.
  const modelRuns = events.filter((e) => e.name === 'model_run').sort((a, b) => a.ts - b.ts).slice(-runs);
  const from = modelRuns.length ? modelRuns[0].ts : 0;
  const perNode = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < from) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    const entry = perNode.get(name) || {op: (e.args && e.args.op_name) || '?', us: 0, calls: 0};
    entry.us += e.dur;
    entry.calls += 1;
    perNode.set(name, entry);
  }
  const rows = [...perNode.entries()].sort((a, b) => b[1].us - a[1].us);
  const total = rows.reduce((s, [, v]) => s + v.us, 0) / runs;
  for (const [name, v] of rows) {
    const ms = v.us / runs / 1000;
    console.log(
        `${name} (${v.op})`.padEnd(70) + ms.toFixed(3).padStart(9) + ` ${(100 * v.us / runs / total).toFixed(1)}%`);
  }
  const wall = modelRuns.reduce((s, e) => s + e.dur, 0) / Math.max(1, modelRuns.length) / 1000;
  console.log(`nodes total ${(total / 1000).toFixed(3)} ms/run, model_run ${wall.toFixed(3)} ms/run`);
  fs.rmSync(dir, {recursive: true, force: true});
})().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
