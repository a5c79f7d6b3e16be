// Saves ONNX Runtime 1.30's level-all optimization of a model (SessionOptions.optimizedModelFilePath): what a user
// who ships ONNX Runtime's optimized file hands to onyx.  node ort_optimize.mjs MODEL OUT
import { createRequire } from 'module';
const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const [model, out] = process.argv.slice(2);
await ort.InferenceSession.create(model, { graphOptimizationLevel: 'all', optimizedModelFilePath: out,
                                           intraOpNumThreads: 1 });
