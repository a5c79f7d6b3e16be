// Reference outputs of MediaPipe's custom TFLite operators (mediapipe/util/tflite/operations), which LiteRT.js
// cannot run, computed with TF.js 4.22 ops that do the same thing. Reads a JSON spec on stdin:
//   {kind, inputs: [{shape, data}, ...], ...kind's parameters}
// and prints {outputs: [{shape, data}, ...]}.
//   max_pool_argmax {filter: [h, w], strides: [h, w], pad: 'same' | 'valid'}: tf.maxPoolWithArgmax; its indices
//       (flat positions in the input) become MediaPipe's: the position inside the window, y * filter_w + x, plus 0.1.
//   max_unpool {filter: [h, w]} (strides = filter): tf.scatterND of each input element to the window position its
//       index names.
//   transform_landmarks: [x, y, 1] @ the matrix's affine rows (tf.matMul), z kept.
//   transform_landmarks_v1 {dims, scale}: the same on [1, H, W, N * dims] landmarks, the translation times scale.
//   transform_tensor {output: [h, w], half_pixel}: tf.image.transform with the matrix's affine rows, bilinear,
//       constant fill 0 (half_pixel: version 2's pixel-centre correction folded into the translation), times
//       MediaPipe's mask of the pixels whose source point lies inside the image.
//   landmarks_to_matrix {version, options}: Landmarks2TransformMatrix, MediaPipe's kernel step by step (its 3x3 /
//       4x4 matrices built from scalars and multiplied in its order with tf.matMul): version 1 measures the rotation
//       with tf.atan of the slope, version 2 with tf.atan2; options are the FlexBuffers map's keys.
// usage: NODE_PATH=~/.cache/onyx-keras/node_modules node tfjs_mediapipe_refs.js < spec.json
const tf = require('@tensorflow/tfjs');

async function run(spec) {
  const ins = spec.inputs.map((t) => tf.tensor(t.data, t.shape, 'float32'));
  if (spec.kind === 'max_pool_argmax') {
    const x = ins[0];
    const [, h, w, ch] = x.shape;
    const [fh, fw] = spec.filter, [sh, sw] = spec.strides;
    const r = tf.maxPoolWithArgmax(x, spec.filter, spec.strides, spec.pad, true);
    const [, oh, ow] = r.result.shape;
    // TF's SAME padding: the odd pixel at the end.
    const top = spec.pad === 'same' ? Math.floor(Math.max((oh - 1) * sh + fh - h, 0) / 2) : 0;
    const left = spec.pad === 'same' ? Math.floor(Math.max((ow - 1) * sw + fw - w, 0) / 2) : 0;
    const flat = await r.indexes.data();
    const local = new Float32Array(flat.length);
    for (let i = 0; i < flat.length; ++i) {
      const oc = Math.floor(i / ch), ox = oc % ow, oy = Math.floor(oc / ow) % oh;
      const pix = Math.floor(flat[i] / ch), ix = pix % w, iy = Math.floor(pix / w) % h;
      local[i] = (iy - (oy * sh - top)) * fw + (ix - (ox * sw - left)) + 0.1;
    }
    return [r.result, tf.tensor(local, r.result.shape)];
  }
  if (spec.kind === 'max_unpool') {
    const [x, idx] = ins;
    const [n, h, w, ch] = x.shape;
    const [fh, fw] = spec.filter;
    const k = await idx.data();
    const coords = [];
    for (let i = 0; i < k.length; ++i) {
      const c = i % ch, px = Math.floor(i / ch) % w, py = Math.floor(i / ch / w) % h, b = Math.floor(i / ch / w / h);
      const pos = Math.trunc(k[i]);
      coords.push([b, py * fh + Math.floor(pos / fw), px * fw + (pos % fw), c]);
    }
    const y = tf.scatterND(tf.tensor2d(coords, [coords.length, 4], 'int32'), x.reshape([-1]), [n, h * fh, w * fw, ch]);
    return [y];
  }
  if (spec.kind === 'landmarks_to_matrix') return [landmarksToMatrix(ins[0], spec.version, spec.options)];
  const m = ins[1].reshape([4, 4]);
  // B [3, 2]: [x, y, 1] @ B = (m00 x + m01 y + m03, m10 x + m11 y + m13).
  const b = tf.gather(m.slice([0, 0], [2, 4]).transpose(), [0, 1, 3]);
  if (spec.kind === 'transform_landmarks_v1') {
    // Version 1: [1, H, W, N * dims] landmarks, the translation scaled by the `scale` option.
    const lm = ins[0], dims = spec.dims;
    const pts = lm.reshape([-1, dims]);
    const n = pts.shape[0];
    const bs = b.mul(tf.tensor2d([[1, 1], [1, 1], [spec.scale, spec.scale]]));
    let y = tf.matMul(tf.concat([pts.slice([0, 0], [n, 2]), tf.ones([n, 1])], 1), bs);
    if (dims === 3) y = tf.concat([y, pts.slice([0, 2], [n, 1])], 1);
    return [y.reshape(lm.shape)];
  }
  if (spec.kind === 'transform_landmarks') {
    const lm = ins[0];
    const [one, n, d] = lm.shape;
    const xy = lm.slice([0, 0, 0], [one, n, 2]).reshape([n, 2]);
    let y = tf.matMul(tf.concat([xy, tf.ones([n, 1])], 1), b).reshape([one, n, 2]);
    if (d === 3) y = tf.concat([y, lm.slice([0, 0, 2], [one, n, 1])], 2);
    return [y];
  }
  if (spec.kind === 'transform_tensor') {
    const bv = await b.data();  // rows: x coefficient, y coefficient, translation; columns: x', y'
    const half = spec.half_pixel ? 0.5 : 0;
    const tx = bv[4] + half * (bv[0] + bv[2]) - half, ty = bv[5] + half * (bv[1] + bv[3]) - half;
    const transforms = tf.tensor2d([[bv[0], bv[2], tx, bv[1], bv[3], ty, 0, 0]]);
    const y = tf.image.transform(ins[0], transforms, 'bilinear', 'constant', 0, spec.output);
    // MediaPipe zeroes the whole pixel when its source point is outside [0, W-1] x [0, H-1] (TF.js's constant
    // fill only zeroes the corners outside the image): the same mask from the source points.
    const [oh, ow] = spec.output, [, h, w] = ins[0].shape;
    const grid = tf.stack(tf.meshgrid(tf.range(0, ow), tf.range(0, oh)), 2).reshape([oh * ow, 2]);
    const src = tf.matMul(grid, tf.tensor2d([[bv[0], bv[1]], [bv[2], bv[3]]])).add(tf.tensor1d([tx, ty]));
    const inside = src.greaterEqual(0).logicalAnd(src.lessEqual(tf.tensor1d([w - 1, h - 1]))).all(1);
    return [y.mul(inside.cast('float32').reshape([1, oh, ow, 1]))];
  }
  throw new Error('unknown kind ' + spec.kind);
}

// An n x n matrix from row-major entries, numbers or scalar tensors.
function mat(n, entries) {
  return tf.stack(entries.map((v) => (typeof v === 'number' ? tf.scalar(v) : v.reshape([])))).reshape([n, n]);
}

// Landmarks2TransformMatrix (mediapipe/util/tflite/operations/landmarks_to_transform_matrix.cc). Landmarks are
// read as (x, y, z) triples; the subset's points are taken as homogeneous column vectors [x, y, 1].
function landmarksToMatrix(landmarks, version, o) {
  const pts = landmarks.reshape([-1, 3]);
  const xOf = (i) => pts.slice([i, 0], [1, 1]).reshape([]), yOf = (i) => pts.slice([i, 1], [1, 1]).reshape([]);
  const subsetKey = version === 1 ? o.subset : o.subset_idxs;
  const k = subsetKey.length;
  const cols = tf.concat([pts.gather(subsetKey).slice([0, 0], [k, 2]).transpose(), tf.ones([1, k])], 0);  // [3, k]
  const dy = yOf(o.right_rotation_idx).sub(yOf(o.left_rotation_idx));
  const dx = xOf(o.right_rotation_idx).sub(xOf(o.left_rotation_idx));
  if (version === 1) {
    const alpha = tf.atan(dy.div(dx)).neg();
    const c = tf.cos(alpha), s = tf.sin(alpha);
    const rotated = tf.matMul(mat(3, [c, s.neg(), 0, s, c, 0, 0, 0, 1]), cols);
    const max = tf.maximum(rotated.slice([0, 0], [2, k]).max(1), -100000);
    const min = tf.minimum(rotated.slice([0, 0], [2, k]).min(1), 100000);
    const box = max.sub(min).mul(o.bbox_size_multiplier);
    const range = o.landmarks_range;
    const scale = mat(3, [box.slice([0], [1]).div(range), 0, 0, 0, box.slice([1], [1]).div(range), 0, 0, 0, 1]);
    const middle = max.add(min).div(2);
    const mx = middle.slice([0], [1]), my = middle.slice([1], [1]);
    const cn = tf.cos(alpha.neg()), sn = tf.sin(alpha.neg());
    const rmx = mx.mul(cn).sub(my.mul(sn)), rmy = mx.mul(sn).add(my.mul(cn));
    const ux = rmx.div(range).mul(2).sub(1), uy = rmy.div(range).mul(2).sub(1);
    const rotation = mat(3, [cn, sn.neg(), ux, sn, cn, uy, 0, 0, 1]);
    const [ih, iw] = o.input_hw, [oh, ow] = o.output_hw;
    const toRelative = mat(3, [2 / (ow - 1), 0, -1, 0, 2 / (oh - 1), -1, 0, 0, 1]);
    const toAbsolute = mat(3, [(iw - 1) / 2, 0, (iw - 1) / 2, 0, (ih - 1) / 2, (ih - 1) / 2, 0, 0, 1]);
    const itm = tf.matMul(tf.matMul(tf.matMul(toAbsolute, rotation), scale), toRelative);
    const e = (r, c2) => itm.slice([r, c2], [1, 1]);
    return mat(4, [e(0, 0), e(0, 1), 0, e(0, 2), e(1, 0), e(1, 1), 0, e(1, 2), e(2, 0), e(2, 1), e(2, 2), 0,
                   0, 0, 0, 1]).reshape([1, 4, 4]);
  }
  const r = tf.scalar(o.target_rotation_radians).sub(tf.atan2(dy, dx));
  const c = tf.cos(r), s = tf.sin(r);
  const rotated = tf.matMul(mat(3, [c, s.neg(), 0, s, c, 0, 0, 0, 1]), cols);
  const max = rotated.max(1), min = rotated.min(1);  // row 2 stays 1
  const width = max.slice([0], [1]).sub(min.slice([0], [1])), height = max.slice([1], [1]).sub(min.slice([1], [1]));
  const crop = tf.matMul(mat(3, [tf.cos(r.neg()), tf.sin(r.neg()).neg(), 0, tf.sin(r.neg()), tf.cos(r.neg()), 0,
                                 0, 0, 1]), min.add(max).div(2).reshape([3, 1]));
  const cropX = crop.slice([0, 0], [1, 1]), cropY = crop.slice([1, 0], [1, 1]);
  const rn = r.neg();
  const sx = width.mul(o.scale_x).div(o.output_width), sy = height.mul(o.scale_y).div(o.output_height);
  let t = mat(4, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  t = tf.matMul(t, mat(4, [1, 0, 0, cropX, 0, 1, 0, cropY, 0, 0, 1, 0, 0, 0, 0, 1]));
  t = tf.matMul(t, mat(4, [tf.cos(rn), tf.sin(rn).neg(), 0, 0, tf.sin(rn), tf.cos(rn), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]));
  t = tf.matMul(t, mat(4, [sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]));
  t = tf.matMul(t, mat(4, [1, 0, 0, -o.output_width / 2, 0, 1, 0, -o.output_height / 2, 0, 0, 1, 0, 0, 0, 0, 1]));
  return t.reshape([1, 4, 4]);
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const spec = JSON.parse(Buffer.concat(chunks).toString());
  await tf.setBackend('cpu');
  const outs = await run(spec);
  const res = [];
  for (const t of outs) res.push({shape: t.shape, data: Array.from(await t.data())});
  process.stdout.write(JSON.stringify({outputs: res}));
}
main();
