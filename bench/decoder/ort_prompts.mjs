// Prompts of changing length through ONNX Runtime 1.30 (onnxruntime-node, CPU EP, all graph optimizations) on the
// decoder that export_gpt2.py writes (or its quantized copy): the same lengths, in the same order, as
// prompts_compare.py's onyx worker. Prints one JSON line: the first pass's and the best later pass's ms per prompt.
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node bench/decoder/ort_prompts.mjs MODEL THREADS LENGTHS
// LENGTHS: comma-separated prompt lengths.
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const [model, threads = '1', lengthsArg] = process.argv.slice(2);
const LAYERS = 6, HEADS = 8, HEAD = 64, VOCAB = 8192;
const lengths = lengthsArg.split(',').map(Number);

const session = await ort.InferenceSession.create(model, {
  graphOptimizationLevel: 'all', intraOpNumThreads: Number(threads), interOpNumThreads: 1,
  executionMode: 'sequential',
});

function feeds(length) {
  const ids = BigInt64Array.from(Array.from({ length }, (_, i) => BigInt((i * 37 + 11) % VOCAB)));
  const f = { input_ids: new ort.Tensor('int64', ids, [1, length]) };
  for (let i = 0; i < LAYERS; i++) {
    for (const kind of ['key', 'value']) {
      f[`past_${kind}_${i}`] = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, HEAD]);
    }
  }
  return f;
}

async function pass() {
  const start = performance.now();
  for (const length of lengths) await session.run(feeds(length));
  return (performance.now() - start) / lengths.length;
}

const first = await pass();
const later = Math.min(await pass(), await pass());
console.log(JSON.stringify({ engine: 'ort', first_ms: first, ms: later }));
