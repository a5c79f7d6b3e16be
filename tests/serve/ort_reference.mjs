// Adds ONNX Runtime's answers to tests/serve/data/requests.json: for each request (run on its own, CPU EP) the
// outputs of affine_v1.onnx and affine_v2.onnx, as "v1": [{"y"}], "v2": [{"y", "sum"}]. Not run in CI (no node
// there); the result is committed.
//
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/serve/ort_reference.mjs
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const data = path.join(path.dirname(fileURLToPath(import.meta.url)), 'data');
const file = path.join(data, 'requests.json');
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));

for (const version of ['v1', 'v2']) {
  const session = await ort.InferenceSession.create(path.join(data, `affine_${version}.onnx`));
  doc[version] = [];
  for (const rows of doc.requests) {
    const x = new ort.Tensor('float32', Float32Array.from(rows.flat()), [rows.length, 4]);
    const out = await session.run({ x });
    const answer = {};
    for (const name of session.outputNames) answer[name] = Array.from(out[name].data);
    doc[version].push(answer);
  }
}
doc.generator = `onnxruntime-node ${require('onnxruntime-node/package.json').version}, CPU EP`;
fs.writeFileSync(file, JSON.stringify(doc));
