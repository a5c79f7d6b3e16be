// Greedy decoding with ONNX Runtime 1.30 (onnxruntime-node, CPU EP, all graph optimizations) on the decoder that
// export_gpt2.py writes: the same loop as decode_compare.py's onyx worker. Prints one JSON line: the tokens, the
// prompt time and the decode throughput.
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node bench/decoder/ort_decode.mjs MODEL THREADS PROMPT NEW
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const [model, threads = '1', promptLen = '32', newTokens = '128'] = process.argv.slice(2);
const LAYERS = 6, HEADS = 8, HEAD = 64, VOCAB = 8192;

const session = await ort.InferenceSession.create(model, {
  graphOptimizationLevel: 'all', intraOpNumThreads: Number(threads), interOpNumThreads: 1,
  executionMode: 'sequential',
});

function emptyPast() {
  const feeds = {};
  for (let i = 0; i < LAYERS; i++) {
    for (const kind of ['key', 'value']) {
      feeds[`past_${kind}_${i}`] = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, HEAD]);
    }
  }
  return feeds;
}

function argmaxLast(logits) {
  const [, s, v] = logits.dims;
  const d = logits.data;
  let best = 0;
  for (let j = 1; j < v; j++) if (d[(s - 1) * v + j] > d[(s - 1) * v + best]) best = j;
  return best;
}

async function decode(prompt, steps) {
  let past = emptyPast();
  let ids = prompt;
  const tokens = [];
  let promptMs = 0;
  let t0 = 0;
  for (let step = 0; step <= steps; step++) {
    if (step === 1) t0 = performance.now();
    const start = performance.now();
    const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]), ...past };
    const out = await session.run(feeds);
    if (step === 0) promptMs = performance.now() - start;
    const next = argmaxLast(out.logits);
    tokens.push(next);
    past = {};
    for (let i = 0; i < LAYERS; i++) {
      past[`past_key_${i}`] = out[`present_key_${i}`];
      past[`past_value_${i}`] = out[`present_value_${i}`];
    }
    ids = [next];
  }
  const decodeS = (performance.now() - t0) / 1000;
  return { tokens, promptMs, decodeS };
}

const prompt = Array.from({ length: Number(promptLen) }, (_, i) => (i * 37 + 11) % VOCAB);
await decode(prompt, 4);  // warm-up
const r = await decode(prompt, Number(newTokens));
console.log(JSON.stringify({ engine: 'ort', tokens: r.tokens, prompt_ms: r.promptMs,
                             tokens_per_s: Number(newTokens) / r.decodeS }));
