// Runs one com.microsoft QLinearConcat model of tests/quant/qlinear_concat_reference.py in ONNX Runtime
// (onnxruntime-node 1.30, CPU, optimization disabled) on the unit test's inputs and prints {dims, data} as JSON.
//
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/quant/qlinear_concat_reference.mjs '{"model": ...}'
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const spec = JSON.parse(process.argv[2]);
const session = await ort.InferenceSession.create(spec.model, {
  executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', intraOpNumThreads: 1,
});
const feeds = {};
spec.shapes.forEach((shape, i) => {
  const n = shape.reduce((a, b) => a * b, 1);
  // x0[j] = j, x1[j] = 7j + 3, x2[j] = 255 - 5j, as bytes.
  const bytes = Uint8Array.from({ length: n }, (_, j) => (i === 0 ? j : i === 1 ? j * 7 + 3 : 255 - j * 5) & 255);
  feeds[`x${i}`] = new ort.Tensor(spec.type, spec.type === 'uint8' ? bytes : new Int8Array(bytes.buffer), shape);
});
const results = await session.run(feeds);
console.log(JSON.stringify({ dims: results.y.dims, data: Array.from(results.y.data) }));
