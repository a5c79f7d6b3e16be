#!/usr/bin/env node
// Runs every converted corpus model in ONNX Runtime (onnxruntime-node, CPU) and compares its outputs with the
// corpus references (TF.js outputs, or numpy for gen_numpy_cases.py's cases), with run_corpus.py's tolerance:
// |ort - ref| <= 1e-5 + 1e-4 * |ref|. Not part of ctest (CI has no npm); run by hand:
//
//   node tests/convert/keras/check_with_ort.mjs build/bin/onyx tests/data/keras [ORT_NODE_MODULES] [--opset N]
//
// ORT_NODE_MODULES defaults to ~/.cache/onyx-bench/ort/node_modules (where onnxruntime-node is installed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const RTOL = 1e-4, ATOL = 1e-5;
const argv = process.argv.slice(2);
const opsetAt = argv.indexOf('--opset');
const convertArgs = opsetAt >= 0 ? ['--opset', argv.splice(opsetAt, 2)[1]] : [];
const [onyx, corpus, modulesArg] = argv;
if (!onyx || !corpus) {
  console.error('usage: node check_with_ort.mjs ONYX_BINARY CORPUS_DIR [ORT_NODE_MODULES] [--opset N]');
  process.exit(2);
}
const modules = modulesArg || path.join(os.homedir(), '.cache/onyx-bench/ort/node_modules');
const ort = createRequire(import.meta.url)(path.join(modules, 'onnxruntime-node'));

// A .npy file (little-endian float32 / int32 / int64, C order) as { type, data, dims }.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.subarray(major === 1 ? 10 : 12, start).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': Fortran order');
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const bytes = buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + buf.length);
  const kinds = { '<f4': ['float32', Float32Array], '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array] };
  if (!kinds[descr]) throw new Error(file + ': dtype ' + descr + ' is not handled');
  const [type, Ctor] = kinds[descr];
  return { type, data: new Ctor(bytes), dims };
}

const forms = { tfjs: 'model.json', h5: 'model.h5', keras: 'model.keras' };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'onyx-ort-'));
let cases = 0, worstRel = 0, worstRatio = 0;
const failures = [];
for (const name of fs.readdirSync(corpus).sort()) {
  const dir = path.join(corpus, name);
  const metaFile = path.join(dir, 'meta.json');
  if (!fs.existsSync(metaFile)) continue;
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  for (const form of meta.forms || ['tfjs']) {
    cases++;
    const out = path.join(work, 'model.onnx');
    let msg = '';
    let rel = 0, ratio = 0;
    try {
      execFileSync(onyx, ['convert', path.join(dir, forms[form]), '-o', out, '--quiet', ...convertArgs]);
      const session = await ort.InferenceSession.create(out, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
      const feeds = {};
      for (const i of meta.inputs) {
        const a = readNpy(path.join(dir, i.file));
        feeds[i.name] = new ort.Tensor(a.type, a.data, a.dims);
      }
      const results = await session.run(feeds);
      meta.outputs.forEach((o, k) => {
        const ref = readNpy(path.join(dir, o.file));
        const got = results[session.outputNames[k]];
        if (got.dims.join(',') !== ref.dims.join(',')) {
          throw new Error(`output ${session.outputNames[k]}: shape [${got.dims}], reference [${ref.dims}]`);
        }
        for (let j = 0; j < ref.data.length; j++) {
          const r = Number(ref.data[j]), g = Number(got.data[j]);
          // NaN agrees only with NaN; any other NaN is an infinite error.
          const e = Number.isNaN(r) && Number.isNaN(g) ? 0 : Number.isNaN(r) || Number.isNaN(g) ? Infinity : Math.abs(g - r);
          ratio = Math.max(ratio, e === 0 ? 0 : e / (ATOL + RTOL * (Number.isNaN(r) ? 0 : Math.abs(r))));
          if (Math.abs(r) > 1e-3) rel = Math.max(rel, e / Math.abs(r));
        }
      });
      if (ratio > 1) msg = `error ${ratio.toFixed(2)}x tolerance`;
    } catch (e) {
      msg = String(e.message || e).split('\n')[0];
    }
    worstRel = Math.max(worstRel, rel);
    worstRatio = Math.max(worstRatio, ratio);
    console.log(`${msg ? 'FAIL' : 'PASS'} ${name} [${form}]${msg ? ': ' + msg : ''}`);
    if (msg) failures.push(`${name} [${form}]`);
  }
}
fs.rmSync(work, { recursive: true, force: true });
console.log(`onnxruntime-node ${ort.env.versions ? ort.env.versions.common : ''}` +
            `${convertArgs.length ? ', opset ' + convertArgs[1] : ''}: ${cases} cases, ${failures.length} ` +
            `failed; worst relative error ${worstRel.toPrecision(3)} (|ref| > 1e-3), worst error/tolerance ` +
            `${worstRatio.toPrecision(3)} (rtol ${RTOL}, atol ${ATOL})`);
process.exit(failures.length ? 1 : 0);
