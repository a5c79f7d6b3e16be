// ONNX Runtime's answers for batch_test.py's real-model case: each of the 495 inputs (written by
// `batch_test.py --write-inputs FILE`, raw little-endian float32, [495, 1, 3, 48, 192]) run alone through
// ../shared/models/onnx/ch_ppocr_mobile_v2.0_cls_infer.onnx on the CPU EP, written to data/batch_ppocr_cls_ort.json.
// Not run in CI (no node there); the result is committed.
//
//   /usr/bin/python3 tests/cli/batch_test.py --write-inputs /tmp/ppocr_inputs.bin
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/cli/batch_ort_reference.mjs /tmp/ppocr_inputs.bin
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const here = path.dirname(fileURLToPath(import.meta.url));
const model = path.join(here, '..', '..', '..', 'shared', 'models', 'onnx', 'ch_ppocr_mobile_v2.0_cls_infer.onnx');
const bytes = fs.readFileSync(process.argv[2]);
const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
const per = 3 * 48 * 192;
if (all.length !== 495 * per) throw new Error(`expected ${495 * per} floats, got ${all.length}`);

const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
const outputs = [];
for (let i = 0; i < 495; ++i) {
  const x = new ort.Tensor('float32', all.slice(i * per, (i + 1) * per), [1, 3, 48, 192]);
  const out = await session.run({ x });
  outputs.push(Array.from(out[session.outputNames[0]].data));
}
const doc = {
  model: 'ch_ppocr_mobile_v2.0_cls_infer.onnx',
  inputs: 'batch_test.py ppocr_inputs(): the test input + N(0, 0.5) noise (numpy default_rng(495)), clipped',
  generator: `onnxruntime-node ${require('onnxruntime-node/package.json').version}, CPU EP, 1 thread, one input a run`,
  outputs,
};
fs.writeFileSync(path.join(here, 'data', 'batch_ppocr_cls_ort.json'), JSON.stringify(doc));
console.log(`wrote ${outputs.length} outputs`);
