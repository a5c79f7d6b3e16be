// Generates the Keras conversion corpus: small Keras-style models built with @tensorflow/tfjs's layers API
// (random weights), saved as TF.js layers models (model.json + one weight shard), with seeded random inputs and
// the outputs tfjs computes for them, both as .npy. wrap_keras.py then re-wraps each model as Keras 2 .h5 and
// Keras 3 .keras files.
//
//   npm install --prefix ~/.cache/onyx-keras @tensorflow/tfjs@4.22.0
//   NODE_PATH=~/.cache/onyx-keras/node_modules node tests/convert/keras/gen_corpus.mjs tests/data/keras
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tf = require(process.env.NODE_PATH ? path.join(process.env.NODE_PATH.split(':')[0], '@tensorflow/tfjs')
                                         : '@tensorflow/tfjs');
const L = tf.layers;
const outRoot = process.argv[2] || 'tests/data/keras';

// mulberry32: deterministic inputs and weights.
function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function npy(tensor) {
  const dtype = tensor.dtype === 'int32' ? '<i4' : '<f4';
  const shape = tensor.shape.length === 1 ? `(${tensor.shape[0]},)` : `(${tensor.shape.join(', ')})`;
  let header = `{'descr': '${dtype}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1'); pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(header.length, 8);
  const data = tensor.dataSync();
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

// Random weights in [-0.5, 0.5) (BatchNorm variances positive), so no layer saturates everything.
function randomizeWeights(model, r) {
  for (const layer of model.layers) {
    const ws = layer.getWeights();
    if (ws.length === 0) continue;
    layer.setWeights(ws.map((w, i) => {
      const n = w.size;
      const v = new Float32Array(n);
      const isVariance = layer.getClassName() === 'BatchNormalization' && layer.weights[i].name.includes('variance');
      for (let k = 0; k < n; ++k) v[k] = isVariance ? 0.5 + r() : r() - 0.5;
      return tf.tensor(v, w.shape, w.dtype);
    }));
    if (layer.layers) randomizeWeights(layer, r);
  }
}

// Quantizes every float weight of `artifacts` like the tfjs converter (affine uint8/uint16 with scale and min, or
// float16) and returns new artifacts; tfjs dequantizes them again when loading, which gives the reference.
function quantize(artifacts, dtype) {
  const src = new Float32Array(artifacts.weightData);
  let off = 0;
  const parts = [];
  const specs = artifacts.weightSpecs.map((spec) => {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const vals = src.subarray(off, off + n);
    off += n;
    if (dtype === 'float16') {
      const h = new Uint16Array(n);
      for (let i = 0; i < n; ++i) h[i] = toHalf(vals[i]);
      parts.push(Buffer.from(h.buffer));
      return { ...spec, quantization: { dtype: 'float16' } };
    }
    let min = Infinity, max = -Infinity;
    for (const x of vals) { min = Math.min(min, x); max = Math.max(max, x); }
    const levels = dtype === 'uint8' ? 255 : 65535;
    const scale = max > min ? (max - min) / levels : 1;
    const q = dtype === 'uint8' ? new Uint8Array(n) : new Uint16Array(n);
    for (let i = 0; i < n; ++i) q[i] = Math.round((vals[i] - min) / scale);
    parts.push(Buffer.from(q.buffer));
    return { ...spec, quantization: { dtype, scale, min } };
  });
  const buf = Buffer.concat(parts);
  return { ...artifacts, weightSpecs: specs, weightData: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length) };
}

function toHalf(f) {
  const b = new DataView(new ArrayBuffer(4)); b.setFloat32(0, f);
  const x = b.getUint32(0);
  const sign = (x >>> 16) & 0x8000, exp = ((x >>> 23) & 0xff) - 127 + 15, mant = x & 0x7fffff;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7c00;
  let h = sign | (exp << 10) | (mant >>> 13);
  if ((mant & 0x1fff) > 0x1000 || ((mant & 0x1fff) === 0x1000 && (h & 1))) h += 1;
  return h;
}

async function save(name, model, opts = {}) {
  const r = rng(1234 + name.length * 7919 + name.charCodeAt(0));
  randomizeWeights(model, r);
  let artifacts;
  await model.save(tf.io.withSaveHandler(async (a) => { artifacts = a; return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } }; }));
  if (opts.quantize) {
    artifacts = quantize(artifacts, opts.quantize);
    model = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
  }
  const dir = path.join(outRoot, name);
  fs.mkdirSync(dir, { recursive: true });
  const modelJson = {
    format: 'layers-model', generatedBy: artifacts.generatedBy, convertedBy: null,
    modelTopology: artifacts.modelTopology,
    weightsManifest: [{ paths: ['group1-shard1of1.bin'], weights: artifacts.weightSpecs }],
  };
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
  fs.writeFileSync(path.join(dir, 'group1-shard1of1.bin'), Buffer.from(artifacts.weightData));
  // Inputs: floats in [-1, 1) (or integer ids for int32 inputs), batch 2.
  const ri = rng(99 + name.length);
  const inputs = model.inputs.map((sym, i) => {
    const shape = sym.shape.map((d, k) => (k === 0 ? 2 : d));
    const n = shape.reduce((a, b) => a * b, 1);
    if (sym.dtype === 'int32') {
      const hi = opts.intRange || 10;
      return tf.tensor(Int32Array.from({ length: n }, () => Math.floor(ri() * hi)), shape, 'int32');
    }
    const v = Float32Array.from({ length: n }, () => ri() * 2 - 1);
    if (opts.maskSteps) for (let b = 0; b < shape[0]; ++b) for (let k = 0; k < shape[2]; ++k) v[b * shape[1] * shape[2] + 1 * shape[2] + k] = 0;
    return tf.tensor(v, shape);
  });
  let outputs = model.predict(inputs.length === 1 ? inputs[0] : inputs);
  if (!Array.isArray(outputs)) outputs = [outputs];
  const meta = { inputs: [], outputs: [], skip: opts.skip || [] };
  inputs.forEach((t, i) => {
    fs.writeFileSync(path.join(dir, `input_${i}.npy`), npy(t));
    meta.inputs.push({ name: model.inputNames[i], file: `input_${i}.npy` });
  });
  outputs.forEach((t, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.npy`), npy(t));
    meta.outputs.push({ name: model.outputNames[i], file: `output_${i}.npy`, shape: t.shape });
  });
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 1));
  console.log(`${name}: ${model.layers.length} layers, ${model.countParams()} params`);
}

const input = (shape, name, dtype) => tf.input({ shape, name, dtype });

// ---- the models ----
const models = {};

models.dense_activations = () => {
  const x = input([7], 'x');
  const h = L.dense({ units: 6, name: 'hidden', activation: 'linear' }).apply(x);
  const acts = ['relu', 'relu6', 'elu', 'selu', 'gelu', 'gelu_new', 'swish', 'mish', 'softmax', 'sigmoid',
                'tanh', 'softplus', 'softsign', 'logSoftmax'];
  const outs = acts.map((a) => L.activation({ activation: a, name: `act_${a.toLowerCase()}` }).apply(
      L.dense({ units: 5, name: `scale_${a.toLowerCase()}` }).apply(h)));
  outs.push(L.dense({ units: 3, activation: 'relu', useBias: false, name: 'dense_nobias' }).apply(h));
  return tf.model({ inputs: x, outputs: outs, name: 'dense_activations' });
};
// hard_sigmoid is 0.2x+0.5 in Keras 2 and TF.js but relu6(x+3)/6 in Keras 3: not re-wrapped as .keras.
models.hard_sigmoid = () => tf.sequential({ name: 'hard_sigmoid', layers: [
  L.dense({ inputShape: [5], units: 4, activation: 'hardSigmoid', name: 'dense_hs' })] });
models.activation_layers = () => tf.sequential({ name: 'activation_layers', layers: [
  L.dense({ inputShape: [6], units: 8, name: 'd0' }),
  L.reLU({ maxValue: 0.3, name: 'relu_max' }),
  L.dense({ units: 8, name: 'd1' }),
  L.leakyReLU({ alpha: 0.17, name: 'leaky' }),
  L.dense({ units: 8, name: 'd2' }),
  L.prelu({ name: 'prelu' }),
  L.elu({ name: 'elu_layer' }),
  L.thresholdedReLU({ theta: 0.05, name: 'thresholded' }),
  L.dense({ units: 5, name: 'd3' }),
  L.softmax({ name: 'softmax_layer' })] });
models.conv2d = () => tf.sequential({ name: 'conv2d', layers: [
  L.conv2d({ inputShape: [11, 13, 3], filters: 4, kernelSize: 3, strides: 2, padding: 'valid', activation: 'relu', name: 'conv_valid_s2' }),
  L.conv2d({ filters: 5, kernelSize: [2, 3], padding: 'same', dilationRate: 2, name: 'conv_same_d2' }),
  L.conv2d({ filters: 3, kernelSize: 3, strides: [2, 1], padding: 'same', activation: 'tanh', name: 'conv_same_s21' }),
  L.maxPooling2d({ poolSize: 2, padding: 'same', name: 'maxpool_same' }),
  L.flatten({ name: 'flatten' }),
  L.dense({ units: 4, activation: 'sigmoid', name: 'out' })] });
models.pooling2d = () => {
  const x = input([9, 10, 3], 'image');
  const a = L.maxPooling2d({ poolSize: 3, strides: 2, padding: 'valid', name: 'max_valid' }).apply(x);
  const b = L.averagePooling2d({ poolSize: 3, strides: 2, padding: 'same', name: 'avg_same' }).apply(x);
  const c = L.averagePooling2d({ poolSize: [2, 3], padding: 'valid', name: 'avg_valid' }).apply(x);
  const d = L.globalAveragePooling2d({ name: 'gap' }).apply(x);
  const e = L.globalMaxPooling2d({ name: 'gmp' }).apply(x);
  return tf.model({ inputs: x, outputs: [a, b, c, d, e], name: 'pooling2d' });
};
models.conv1d = () => tf.sequential({ name: 'conv1d', layers: [
  L.conv1d({ inputShape: [13, 4], filters: 5, kernelSize: 3, padding: 'same', dilationRate: 2, activation: 'relu', name: 'c1' }),
  L.conv1d({ filters: 6, kernelSize: 2, strides: 2, padding: 'valid', name: 'c2' }),
  L.maxPooling1d({ poolSize: 2, padding: 'same', name: 'mp1' }),
  L.averagePooling1d({ poolSize: 2, strides: 1, padding: 'valid', name: 'ap1' }),
  L.conv1d({ filters: 3, kernelSize: 1, padding: 'same', name: 'c3' }),
  L.globalMaxPooling1d({ name: 'gmp1' })] });
models.conv1d_gap = () => tf.sequential({ name: 'conv1d_gap', layers: [
  L.conv1d({ inputShape: [9, 3], filters: 4, kernelSize: 3, padding: 'valid', dilationRate: 2, name: 'c_dil' }),
  L.globalAveragePooling1d({ name: 'gap1' })] });
models.conv3d = () => tf.sequential({ name: 'conv3d', layers: [
  L.conv3d({ inputShape: [5, 6, 7, 2], filters: 3, kernelSize: 2, strides: [1, 2, 1], padding: 'valid', name: 'c3d' }),
  L.maxPooling3d({ poolSize: 2, padding: 'same', name: 'mp3d' }),
  L.conv3dTranspose({ filters: 2, kernelSize: 3, strides: 2, padding: 'same', name: 'c3dt' }),
  L.averagePooling3d({ poolSize: [1, 2, 2], padding: 'valid', name: 'ap3d' })] });
models.conv2d_transpose = () => {
  const x = input([5, 6, 3], 'x');
  const a = L.conv2dTranspose({ filters: 4, kernelSize: 3, strides: 2, padding: 'same', name: 'ct_same' }).apply(x);
  const b = L.conv2dTranspose({ filters: 2, kernelSize: [3, 2], strides: [2, 3], padding: 'valid', activation: 'relu', name: 'ct_valid' }).apply(x);
  const c = L.conv2dTranspose({ filters: 3, kernelSize: 4, strides: 2, padding: 'same', name: 'ct_same_k4' }).apply(x);
  return tf.model({ inputs: x, outputs: [a, b, c], name: 'conv2d_transpose' });
};
models.depthwise_separable = () => tf.sequential({ name: 'depthwise_separable', layers: [
  L.depthwiseConv2d({ inputShape: [9, 8, 3], kernelSize: 3, depthMultiplier: 2, strides: 2, padding: 'same', name: 'dw' }),
  L.batchNormalization({ name: 'bn', epsilon: 0.001 }),
  L.separableConv2d({ filters: 5, kernelSize: 3, padding: 'valid', name: 'sep' }),
  L.depthwiseConv2d({ kernelSize: 2, padding: 'valid', dilationRate: 1, useBias: false, name: 'dw_nobias' }),
  L.separableConv2d({ filters: 4, kernelSize: 2, depthMultiplier: 2, padding: 'same', activation: 'relu', name: 'sep_dm2' })] });
function mobileBlock(x, name, filters, stride) {
  let h = L.conv2d({ filters: filters * 2, kernelSize: 1, useBias: false, name: `${name}_expand` }).apply(x);
  h = L.batchNormalization({ name: `${name}_expand_bn` }).apply(h);
  h = L.reLU({ maxValue: 6, name: `${name}_expand_relu` }).apply(h);
  if (stride === 2) h = L.zeroPadding2d({ padding: [[0, 1], [0, 1]], name: `${name}_pad` }).apply(h);
  h = L.depthwiseConv2d({ kernelSize: 3, strides: stride, padding: stride === 2 ? 'valid' : 'same', useBias: false, name: `${name}_depthwise` }).apply(h);
  h = L.batchNormalization({ name: `${name}_depthwise_bn` }).apply(h);
  h = L.reLU({ maxValue: 6, name: `${name}_depthwise_relu` }).apply(h);
  h = L.conv2d({ filters, kernelSize: 1, useBias: false, name: `${name}_project` }).apply(h);
  h = L.batchNormalization({ name: `${name}_project_bn` }).apply(h);
  return stride === 1 && x.shape[3] === filters ? L.add({ name: `${name}_add` }).apply([x, h]) : h;
}
function mobile(name) {
  const x = input([16, 16, 3], 'input_1');
  let h = L.zeroPadding2d({ padding: 1, name: 'pad0' }).apply(x);
  h = L.conv2d({ filters: 8, kernelSize: 3, strides: 2, useBias: false, name: 'conv0' }).apply(h);
  h = L.batchNormalization({ name: 'conv0_bn' }).apply(h);
  h = L.reLU({ maxValue: 6, name: 'conv0_relu' }).apply(h);
  h = mobileBlock(h, 'block1', 8, 1);
  h = mobileBlock(h, 'block2', 12, 2);
  h = mobileBlock(h, 'block3', 12, 1);
  h = L.globalAveragePooling2d({ name: 'gap' }).apply(h);
  h = L.dropout({ rate: 0.3, name: 'dropout' }).apply(h);
  h = L.dense({ units: 5, activation: 'softmax', name: 'predictions' }).apply(h);
  return tf.model({ inputs: x, outputs: h, name });
}
models.mobilenet_like = () => mobile('mobilenet_like');
models.mobilenet_uint8 = () => mobile('mobilenet_uint8');
models.mobilenet_uint16 = () => mobile('mobilenet_uint16');
models.mobilenet_float16 = () => mobile('mobilenet_float16');
models.merge = () => {
  const a = input([4, 5], 'a');
  const b = input([4, 5], 'b');
  const shared = L.dense({ units: 5, name: 'shared_dense' });
  const sa = shared.apply(a), sb = shared.apply(b);
  const outs = [
    L.add({ name: 'add3' }).apply([sa, sb, a]),
    L.multiply({ name: 'mul' }).apply([sa, b]),
    L.average({ name: 'avg' }).apply([a, b, sb]),
    L.maximum({ name: 'max' }).apply([sa, sb]),
    L.minimum({ name: 'min' }).apply([a, sb]),
    L.concatenate({ axis: -1, name: 'cat_last' }).apply([sa, b]),
    L.concatenate({ axis: 1, name: 'cat_1' }).apply([a, sb, b]),
    L.dot({ axes: 2, name: 'dot_22' }).apply([a, b]),
    L.dot({ axes: [1, 1], name: 'dot_11' }).apply([sa, b]),
    L.dot({ axes: 2, normalize: true, name: 'dot_norm' }).apply([a, sb]),
  ];
  const fa = L.flatten({ name: 'flat_a' }).apply(a), fb = L.flatten({ name: 'flat_b' }).apply(sb);
  outs.push(L.dot({ axes: -1, name: 'dot_flat' }).apply([fa, fb]));
  return tf.model({ inputs: [a, b], outputs: outs, name: 'merge' });
};
models.reshape_family = () => {
  const x = input([6, 4], 'x');
  const r = L.reshape({ targetShape: [3, 8], name: 'reshape' }).apply(x);
  const p = L.permute({ dims: [2, 1], name: 'permute' }).apply(r);
  const f = L.flatten({ name: 'flatten' }).apply(p);
  const rv = L.repeatVector({ n: 3, name: 'repeat' }).apply(L.dense({ units: 2, name: 'd' }).apply(f));
  const r4 = L.reshape({ targetShape: [4, 3, -1], name: 'reshape4d' }).apply(x);
  const cr = L.cropping2D({ cropping: [[1, 0], [0, 1]], name: 'crop' }).apply(r4);
  const up = L.upSampling2d({ size: [2, 3], name: 'upsample' }).apply(cr);
  const zp = L.zeroPadding2d({ padding: [[1, 2], [0, 1]], name: 'zpad' }).apply(up);
  const pm = L.permute({ dims: [3, 1, 2], name: 'permute3' }).apply(zp);
  return tf.model({ inputs: x, outputs: [rv, pm], name: 'reshape_family' });
};
// TF.js resizes without half-pixel centers, Keras with them: TF.js files only.
models.upsampling_bilinear = () => tf.sequential({ name: 'upsampling_bilinear', layers: [
  L.upSampling2d({ inputShape: [3, 4, 2], size: [2, 3], interpolation: 'bilinear', name: 'upsample_bilinear' })] });
models.norm_misc = () => tf.sequential({ name: 'norm_misc', layers: [
  L.rescaling({ inputShape: [5, 6], scale: 0.5, offset: 0.25, name: 'rescale' }),
  L.gaussianNoise({ stddev: 0.3, name: 'noise' }),
  L.layerNormalization({ name: 'ln', epsilon: 1e-3 }),
  L.gaussianDropout({ rate: 0.2, name: 'gdrop' }),
  L.alphaDropout({ rate: 0.2, name: 'adrop' }),
  L.spatialDropout1d({ rate: 0.2, name: 'sdrop' }),
  L.batchNormalization({ name: 'bn_seq', center: false, epsilon: 0.01 }),
  L.dense({ units: 3, name: 'd' }),
  L.batchNormalization({ name: 'bn_2d', scale: false })] });
models.embedding_lstm = () => {
  const ids = input([6], 'tokens', 'int32');
  let h = L.embedding({ inputDim: 11, outputDim: 4, name: 'emb' }).apply(ids);
  h = L.lstm({ units: 5, returnSequences: true, name: 'lstm_seq' }).apply(h);
  h = L.lstm({ units: 3, recurrentActivation: 'sigmoid', name: 'lstm_last' }).apply(h);
  return tf.model({ inputs: ids, outputs: h, name: 'embedding_lstm' });
};
models.rnns = () => {
  const x = input([5, 3], 'seq');
  const s = L.simpleRNN({ units: 4, returnSequences: true, name: 'simple' }).apply(x);
  const s2 = L.simpleRNN({ units: 3, activation: 'relu', name: 'simple_relu' }).apply(x);
  const g = L.gru({ units: 4, returnSequences: true, recurrentActivation: 'sigmoid', name: 'gru_seq' }).apply(s);
  const g2 = L.gru({ units: 2, recurrentActivation: 'sigmoid', name: 'gru_last' }).apply(g);
  const bl = L.bidirectional({ layer: L.lstm({ units: 3, returnSequences: true, recurrentActivation: 'sigmoid' }), name: 'bi_lstm' }).apply(x);
  const bg = L.bidirectional({ layer: L.gru({ units: 2, recurrentActivation: 'sigmoid' }), mergeMode: 'sum', name: 'bi_gru' }).apply(x);
  const bm = L.bidirectional({ layer: L.simpleRNN({ units: 2, returnSequences: true }), mergeMode: 'ave', name: 'bi_rnn_ave' }).apply(x);
  const bmul = L.bidirectional({ layer: L.lstm({ units: 2, recurrentActivation: 'sigmoid' }), mergeMode: 'mul', name: 'bi_lstm_mul' }).apply(x);
  const td = L.timeDistributed({ layer: L.dense({ units: 2 }), name: 'td_dense' }).apply(bl);
  const lb = L.lstm({ units: 3, goBackwards: true, returnSequences: true, recurrentActivation: 'sigmoid', name: 'lstm_back' }).apply(x);
  const gb = L.gru({ units: 3, goBackwards: true, recurrentActivation: 'sigmoid', name: 'gru_back' }).apply(x);
  return tf.model({ inputs: x, outputs: [s2, g2, td, bg, bm, bmul, lb, gb], name: 'rnns' });
};
models.rnn_states = () => {
  const x = input([4, 3], 'seq');
  const [o, h, c] = L.lstm({ units: 3, returnState: true, name: 'lstm_state' }).apply(x);
  const [o2, h2] = L.gru({ units: 3, returnState: true, returnSequences: true, name: 'gru_state' }).apply(x, { initialState: [h] });
  const o3 = L.lstm({ units: 3, name: 'lstm_init' }).apply(x, { initialState: [h, c] });
  return tf.model({ inputs: x, outputs: [o, h2, o2, o3], name: 'rnn_states' });
};
models.time_distributed_conv = () => tf.sequential({ name: 'time_distributed_conv', layers: [
  L.timeDistributed({ inputShape: [3, 6, 5, 2], layer: L.conv2d({ filters: 3, kernelSize: 3, padding: 'same' }), name: 'td_conv' }),
  L.timeDistributed({ layer: L.flatten(), name: 'td_flat' }),
  L.gru({ units: 3, recurrentActivation: 'sigmoid', name: 'gru' })] });
models.nested = () => {
  const inner = tf.sequential({ name: 'inner_seq', layers: [
    L.dense({ inputShape: [6], units: 5, activation: 'relu', name: 'inner_d1' }),
    L.dense({ units: 4, name: 'inner_d2' })] });
  const ix = input([4], 'ia'); const iy = input([6], 'ib');
  const innerFn = tf.model({ inputs: [ix, iy], outputs: L.concatenate({ name: 'inner_cat' }).apply([ix, L.dense({ units: 3, name: 'inner_fn_d' }).apply(iy)]), name: 'inner_fn' });
  const x = input([6], 'x');
  const y = input([4], 'y');
  const a = inner.apply(x);
  const b = inner.apply(L.dense({ units: 6, name: 'pre' }).apply(y));
  const c = innerFn.apply([a, x]);
  const out = L.add({ name: 'sum_ab' }).apply([a, b]);
  return tf.model({ inputs: [x, y], outputs: [out, c], name: 'nested' });
};
models.masking = () => tf.sequential({ name: 'masking', layers: [
  L.masking({ inputShape: [4, 3], maskValue: 0, name: 'mask' }),
  L.dense({ units: 2, name: 'd' })] });

const only = process.argv.slice(3);
for (const [name, build] of Object.entries(models)) {
  if (only.length && !only.includes(name)) continue;
  const quant = name.endsWith('_uint8') ? 'uint8' : name.endsWith('_uint16') ? 'uint16' : name.endsWith('_float16') ? 'float16' : null;
  const opts = { quantize: quant };
  if (name === 'hard_sigmoid') opts.skip = ['keras'];
  if (name === 'upsampling_bilinear') opts.skip = ['keras', 'h5'];
  if (name === 'embedding_lstm') opts.intRange = 11;
  if (name === 'masking') opts.maskSteps = true;
  await save(name, build(), opts);
}
