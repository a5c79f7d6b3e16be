// Reference outputs of TFLite's full LSTM and SVDF kernels, which LiteRT.js cannot run (it refuses their variable
// state tensors), computed with TF.js 4.22 ops that spell out the float kernels' equations (TensorFlow Lite's
// lstm_eval.cc and svdf's reference EvalFloatSVDF), from zero states (the first invocation). Reads a JSON spec on
// stdin and prints {outputs: [{shape, data}, ...]}:
//   {kind: "lstm", x: {shape: [time, batch, n_input], data}, activation (schema.fbs ActivationFunctionType),
//    cell_clip, proj_clip, weights: {w: [i, f, c, o], r: [i, f, c, o], p: [i, f, o], b: [i, f, c, o],
//    ln: [i, f, c, o], proj, proj_bias}, each {shape, data} or null (CIFG: w.i, r.i, p.i, b.i and ln.i are null)}
//     -> h_t for every step, [time, batch, n_output] (time-major; the caller reverses / transposes)
//   {kind: "svdf", x: {shape: [batch, n_input]}, rank, activation, feature [F, I], time [F, M], bias [U] or null}
//     -> [batch, U], with the state [batch, F, M] shifted left and the new column written as the kernel does.
// usage: NODE_PATH=~/.cache/onyx-keras/node_modules node tfjs_tflite_cells.js < spec.json
const tf = require('@tensorflow/tfjs');

const T = (t) => (t ? tf.tensor(t.data, t.shape, 'float32') : null);

function activate(kind, v) {
  switch (kind) {
    case 0: return v;
    case 1: return tf.relu(v);
    case 3: return tf.relu6(v);
    case 4: return tf.tanh(v);
    case 6: return tf.sigmoid(v);
    default: throw new Error('activation ' + kind);
  }
}

// TFLite's MeanStddevNormalization over each batch row.
function normalize(v) {
  const mean = tf.mean(v, -1, true);
  const d = tf.sub(v, mean);
  const variance = tf.mean(tf.square(d), -1, true);
  return tf.div(d, tf.sqrt(tf.add(variance, 1e-8)));
}

function lstm(spec) {
  const x = T(spec.x);
  const [time, batch] = x.shape;
  const w = spec.weights;
  const W = w.w.map(T), R = w.r.map(T), P = w.p.map(T), B = w.b.map(T), LN = (w.ln || [null, null, null, null]).map(T);
  const proj = T(w.proj), projBias = T(w.proj_bias);
  const cifg = W[0] === null;
  const nCell = W[1].shape[0], nOut = proj ? proj.shape[0] : nCell;
  let h = tf.zeros([batch, nOut]), c = tf.zeros([batch, nCell]);
  const clip = (v, bound) => (bound > 0 ? tf.clipByValue(v, -bound, bound) : v);
  // gate k (0 i, 1 f, 2 c, 3 o): W x + R h (+ peephole * cell), then layer norm and bias, or bias.
  const gate = (k, xt, cell, peephole) => {
    let v = tf.add(tf.matMul(xt, W[k], false, true), tf.matMul(h, R[k], false, true));
    if (peephole) v = tf.add(v, tf.mul(peephole, cell));
    if (LN[k]) v = tf.mul(normalize(v), LN[k]);
    if (B[k]) v = tf.add(v, B[k]);
    return v;
  };
  const outs = [];
  for (let t = 0; t < time; ++t) {
    const xt = x.slice([t, 0, 0], [1, batch, x.shape[2]]).reshape([batch, x.shape[2]]);
    const f = tf.sigmoid(gate(1, xt, c, P[1]));
    const i = cifg ? tf.sub(1, f) : tf.sigmoid(gate(0, xt, c, P[0]));
    const g = activate(spec.activation, gate(2, xt, c, null));
    c = clip(tf.add(tf.mul(f, c), tf.mul(i, g)), spec.cell_clip);
    const o = tf.sigmoid(gate(3, xt, c, P[2]));
    let m = tf.mul(o, activate(spec.activation, c));
    if (proj) {
      m = tf.matMul(m, proj, false, true);
      if (projBias) m = tf.add(m, projBias);
      m = clip(m, spec.proj_clip);
    }
    h = m;
    outs.push(h);
  }
  return [tf.stack(outs, 0)];
}

function svdf(spec) {
  const x = T(spec.x), feature = T(spec.feature), time = T(spec.time), bias = T(spec.bias);
  const batch = x.shape[0], [filters, memory] = time.shape, units = filters / spec.rank;
  // The state [batch, filters, memory] starts at zeros; shifted left by one, its last column takes x Wf^T.
  let state = tf.zeros([batch, filters, memory]);
  const shifted = state.slice([0, 0, 1], [batch, filters, memory - 1]);
  const column = tf.matMul(x, feature, false, true).reshape([batch, filters, 1]);
  state = tf.concat([shifted, column], 2);
  // Time weights over the memory, then the rank's filters of each unit summed.
  const scratch = tf.sum(tf.mul(state, time.reshape([1, filters, memory])), 2);
  let y = tf.sum(scratch.reshape([batch, units, spec.rank]), 2);
  if (bias) y = tf.add(y, bias);
  return [activate(spec.activation, y)];
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const spec = JSON.parse(Buffer.concat(chunks).toString());
  await tf.setBackend('cpu');
  const outs = spec.kind === 'lstm' ? lstm(spec) : svdf(spec);
  const res = [];
  for (const t of outs) res.push({shape: t.shape, data: Array.from(await t.data())});
  process.stdout.write(JSON.stringify({outputs: res}));
}
main();
