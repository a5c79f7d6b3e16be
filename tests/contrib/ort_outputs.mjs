// Runs every tests/data/contrib/<case>/model.onnx in ONNX Runtime 1.30 (onnxruntime-node, CPU EP, optimizations
// disabled, one thread) on the inputs make_cases.py described in inputs.json, and writes outputs.json beside it
// (finish_cases.py turns that into test_data_set_0/output_N.pb). Not run in CI:
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/contrib/ort_outputs.mjs tests/data/contrib [CASE...]
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const ARRAYS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int8: Int8Array };
const [root, ...only] = process.argv.slice(2);
let failed = 0;
for (const name of fs.readdirSync(root).sort()) {
  if (only.length && !only.includes(name)) continue;
  const dir = path.join(root, name);
  const metaFile = path.join(dir, 'inputs.json');
  if (!fs.existsSync(metaFile)) continue;
  const meta = JSON.parse(fs.readFileSync(metaFile));
  try {
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
      graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1,
    });
    const feeds = {};
    for (const i of meta.inputs) {
      const bytes = Buffer.from(i.data, 'base64');
      const A = ARRAYS[i.dtype];
      const copy = new Uint8Array(bytes.length);
      copy.set(bytes);
      feeds[i.name] = new ort.Tensor(i.dtype, new A(copy.buffer, 0, bytes.length / A.BYTES_PER_ELEMENT), i.dims);
    }
    const result = await session.run(feeds);
    const outs = meta.outputs.map((o) => {
      const t = result[o];
      const d = t.data;
      return { name: o, dtype: t.type, dims: t.dims,
               data: Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64') };
    });
    fs.writeFileSync(path.join(dir, 'outputs.json'), JSON.stringify(outs));
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message.split('\n')[0]}`);
  }
}
process.exit(failed ? 1 : 0);
