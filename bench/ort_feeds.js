// Feeds for ONNX Runtime's session as `onyx bench` makes them, shared by bench/ort_runner.js and bench/ort_profile.js:
// random values with every symbolic dim 1 (floats in [0, 1), integers below 10, 8-bit over their range).
'use strict';
const ort = require('onnxruntime-node');

function randomTensor(type, dims) {
  const n = dims.reduce((a, b) => a * b, 1);
  const fill = (Ctor, f) => Ctor.from({ length: n }, f);
  if (type === 'float32') return new ort.Tensor(type, fill(Float32Array, () => Math.random()), dims);
  if (type === 'int64') return new ort.Tensor(type, fill(BigInt64Array, () => BigInt(Math.floor(Math.random() * 10))), dims);
  if (type === 'int32') return new ort.Tensor(type, fill(Int32Array, () => Math.floor(Math.random() * 10)), dims);
  if (type === 'bool') return new ort.Tensor(type, new Uint8Array(n), dims);
  if (type === 'uint8') return new ort.Tensor(type, fill(Uint8Array, () => Math.floor(Math.random() * 256)), dims);
  if (type === 'int8') return new ort.Tensor(type, fill(Int8Array, () => Math.floor(Math.random() * 256) - 128), dims);
  throw new Error('input type ' + type + ' is not handled');
}

// One random tensor per input of `session`, named as its inputs.
function randomFeeds(session) {
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const meta = session.inputMetadata && session.inputMetadata[i];
    const dims = ((meta && meta.shape) || [1]).map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
    feeds[name] = randomTensor((meta && meta.type) || 'float32', dims);
  });
  return feeds;
}

module.exports = { randomTensor, randomFeeds };
