// Saves MODEL as ONNX Runtime 1.30 optimizes it at level 'all' (onnxruntime-node, CPU EP): the com.microsoft
// operators its transformer fusions write (FusedMatMul, BiasGelu, SkipLayerNormalization...), for
// make_ort_optimized.py.
//   NODE_PATH=~/.cache/onyx-bench/ort/node_modules node tests/contrib/ort_optimize.mjs MODEL OUT
import { createRequire } from 'module';
const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const [model, out] = process.argv.slice(2);
await ort.InferenceSession.create(model, { graphOptimizationLevel: 'all', optimizedModelFilePath: out });
console.log('saved', out);
