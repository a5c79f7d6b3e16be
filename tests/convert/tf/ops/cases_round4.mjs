// TensorFlow operators, round 4 (issue 15): IRFFT2D on rank-2 inputs, the remaining TensorList ops, and image/
// matrix/recurrent ops TF.js lacks (reference graphs of TF.js-runnable ops, or `expected` from TF's definition).
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const C = { T: A.type('float32'), Tout: A.type('complex64') };
const toReal = { T: A.type('complex64'), Tout: A.type('float32') };
const cx = { Tcomplex: A.type('complex64') };
const rc = { Treal: A.type('float32'), Tcomplex: A.type('complex64') };
const I = A.type('int32');

function complexIn(g, shape) {
  return g.op('Complex', [g.input('re', 'float32', shape), g.input('im', 'float32', shape)], C);
}

// The complex tensor c with its last two axes swapped (Transposes of its parts).
function swapLast(g, c, rank) {
  const perm = g.const('perm', 'int32', [rank], [...Array(rank - 2).keys(), rank - 1, rank - 2]);
  const t = (v) => g.op('Transpose', [v, perm], { ...f32, Tperm: I });
  return g.op('Complex', [t(g.op('Real', [c], toReal)), t(g.op('Imag', [c], toReal))], C);
}

// IRFFT2D(x, [m, n]) is IRFFT (length n) of the inner axis after an IFFT of the outer one; the reference graph
// builds it from TF.js's 1-D transforms (x's outer axis already has length m).
function irfft2d(shape, m, n) {
  const rank = shape.length;
  return {
    name: `IRFFT2D_${shape.join('x')}_to_${m}x${n}`,
    build(g) {
      g.output(g.op('IRFFT2D', [complexIn(g, shape), g.const('fft_length', 'int32', [2], [m, n])], rc));
    },
    reference(g) {
      const outer = swapLast(g, g.op('IFFT', [swapLast(g, complexIn(g, shape), rank)], cx), rank);
      g.output(g.op('IRFFT', [outer, g.const('fft_length', 'int32', [1], [n])], rc));
    },
  };
}

// TensorLists outside loops: a list made by TensorListFromTensor (or the op under test), read back by
// TensorListStack. TF.js runs every op but TensorListScatterIntoExistingList and TensorListElementShape; its
// TensorListSplit deviates from TF (it reshapes each piece to the element shape without its rows, so pieces of more
// than one row fail): the Split cases compute their outputs from TF's definition.
const el = (dtype) => ({ element_dtype: A.type(dtype) });
const fromTensor = (g, x, dtype, elementShape) =>
  g.op('TensorListFromTensor', [x, g.const('element_shape', 'int32', [elementShape.length], elementShape)],
       { ...el(dtype), shape_type: I });
const stack = (g, list, dtype, elementShape) =>
  g.op('TensorListStack', [list, g.const('stack_shape', 'int32', [elementShape.length], elementShape)],
       { ...el(dtype), num_elements: A.i(-1) });
const unknownShape = (g) => g.const('unknown_shape', 'int32', [], [-1]);

const tensorListCases = [
  {
    name: 'TensorListConcat_float32',
    build(g) {
      const list = fromTensor(g, g.input('x', 'float32', [3, 2, 4]), 'float32', [2, 4]);
      g.output(g.op('TensorListConcat', [list], { ...el('float32'), element_shape: A.shape([2, 4]) }));
    },
  },
  {
    name: 'TensorListConcatV2_int32_unknown_dims',
    build(g) {
      const list = fromTensor(g, g.input('x', 'int32', [4, 3], undefined, [-1, 3]), 'int32', [3]);
      g.output(g.op('TensorListConcatV2', [list, g.const('es', 'int32', [1], [3]), g.const('lead', 'int64', [0], [])],
                    { ...el('int32'), shape_type: I, element_shape: A.shape([3]) }));
    },
  },
  {
    // The lengths output (TF.js gives only the tensor): each element's rows, from TF's definition.
    name: 'TensorListConcat_lengths_of_split',
    build(g) {
      const x = g.input('x', 'float32', [5, 2]);
      const list = g.op('TensorListSplit', [x, g.const('es', 'int32', [2], [-1, 2]), g.const('lengths', 'int64', [3], [2, 0, 3])],
                        { ...el('float32'), shape_type: I });
      const c = g.op('TensorListConcat', [list], { ...el('float32'), element_shape: A.shape([-1, 2]) });
      g.output(c);
      g.output(`${c}:1`, { dtype: 'int64' });
    },
    expected(t) { return [t.x, { dtype: 'int64', shape: [3], values: [2, 0, 3] }]; },
  },
  {
    name: 'TensorListSplit_then_GetItem',
    build(g) {
      const x = g.input('x', 'float32', [5, 3]);
      const list = g.op('TensorListSplit', [x, unknownShape(g), g.const('lengths', 'int64', [2], [2, 3])],
                        { ...el('float32'), shape_type: I });
      g.output(g.op('TensorListGetItem', [list, g.const('i', 'int32', [], [1]), unknownShape(g)], el('float32')));
      g.output(g.op('TensorListLength', [list]));
    },
    expected(t) { return [t.x.slice([2, 0], [3, 3]), { dtype: 'int32', shape: [], values: [2] }]; },
  },
  {
    name: 'TensorListSplit_int32_concat',
    build(g) {
      const x = g.input('x', 'int32', [6, 2], undefined, [-1, 2]);
      const list = g.op('TensorListSplit', [x, unknownShape(g), g.const('lengths', 'int64', [3], [1, 4, 1])],
                        { ...el('int32'), shape_type: I });
      g.output(g.op('TensorListConcat', [list], { ...el('int32'), element_shape: A.shape(null) }));
    },
    expected(t) { return [t.x]; },
  },
  {
    name: 'TensorListScatter_permutation',
    build(g) {
      const x = g.input('x', 'float32', [3, 2, 2]);
      const list = g.op('TensorListScatter', [x, g.const('indices', 'int32', [3], [2, 0, 1]), g.const('es', 'int32', [2], [2, 2])],
                        { ...el('float32'), shape_type: I });
      g.output(stack(g, list, 'float32', [2, 2]));
    },
  },
  {
    name: 'TensorListScatterV2_num_elements_int32',
    build(g) {
      const x = g.input('x', 'int32', [2, 3]);
      const list = g.op('TensorListScatterV2',
                        [x, g.const('indices', 'int32', [2], [1, 0]), g.const('es', 'int32', [1], [3]), g.const('n', 'int32', [], [2])],
                        { ...el('int32'), shape_type: I });
      g.output(stack(g, list, 'int32', [3]));
      g.output(g.op('TensorListLength', [list]));
    },
  },
  {
    name: 'TensorListScatterV2_computed_indices',
    build(g) {
      const x = g.input('x', 'float32', [3, 2]);
      const idx = g.input('indices', 'int32', [3], { values: [1, 2, 0] }, [-1]);
      const list = g.op('TensorListScatterV2', [x, idx, g.const('es', 'int32', [1], [2]), g.const('n', 'int32', [], [-1])],
                        { ...el('float32'), shape_type: I });
      g.output(g.op('TensorListGetItem', [list, g.const('i', 'int32', [], [2]), g.const('gs', 'int32', [1], [2])], el('float32')));
      g.output(g.op('TensorListLength', [list]));
    },
  },
  {
    // Not in TF.js: the reference sets the same elements one by one.
    name: 'TensorListScatterIntoExistingList_float32',
    build(g) {
      const list = fromTensor(g, g.input('x', 'float32', [4, 3]), 'float32', [3]);
      const u = g.input('u', 'float32', [2, 3]);
      const scattered = g.op('TensorListScatterIntoExistingList', [list, u, g.const('indices', 'int32', [2], [3, 1])], el('float32'));
      g.output(stack(g, scattered, 'float32', [3]));
    },
    reference(g) {
      let list = fromTensor(g, g.input('x', 'float32', [4, 3]), 'float32', [3]);
      const u = g.input('u', 'float32', [2, 3]);
      [3, 1].forEach((at, k) => {
        const row = g.op('Gather', [u, g.const('k', 'int32', [], [k])], { Tparams: A.type('float32'), Tindices: I });
        list = g.op('TensorListSetItem', [list, g.const('at', 'int32', [], [at]), row], el('float32'));
      });
      g.output(stack(g, list, 'float32', [3]));
    },
  },
  {
    // Three indices for three elements: TF.js drops the indices past the list's size (TF gathers them all).
    name: 'TensorListGather_repeats',
    build(g) {
      const list = fromTensor(g, g.input('x', 'float32', [3, 2, 2]), 'float32', [2, 2]);
      g.output(g.op('TensorListGather', [list, g.const('indices', 'int32', [3], [2, 0, 2]), g.const('gs', 'int32', [2], [2, 2])],
                    el('float32')));
    },
  },
  {
    name: 'TensorListGather_int32_computed_indices',
    build(g) {
      const list = fromTensor(g, g.input('x', 'int32', [4, 3]), 'int32', [3]);
      const idx = g.input('indices', 'int32', [2], { values: [3, 1] }, [-1]);
      g.output(g.op('TensorListGather', [list, idx, g.const('gs', 'int32', [1], [3])], el('int32')));
    },
  },
  {
    name: 'TensorListResize_shrink',
    build(g) {
      const list = fromTensor(g, g.input('x', 'float32', [4, 2]), 'float32', [2]);
      const r = g.op('TensorListResize', [list, g.const('size', 'int32', [], [2])]);
      g.output(stack(g, r, 'float32', [2]));
      g.output(g.op('TensorListLength', [r]));
    },
  },
  {
    // Grown, then the new elements set (TF.js cannot stack unset elements; TF reads them as zeros).
    name: 'TensorListResize_grow',
    build(g) {
      const list = fromTensor(g, g.input('x', 'float32', [2, 3]), 'float32', [3]);
      let r = g.op('TensorListResize', [list, g.const('size', 'int32', [], [4])]);
      const y = g.input('y', 'float32', [3]);
      r = g.op('TensorListSetItem', [r, g.const('i2', 'int32', [], [2]), y], el('float32'));
      r = g.op('TensorListSetItem', [r, g.const('i3', 'int32', [], [3]), y], el('float32'));
      g.output(stack(g, r, 'float32', [3]));
    },
  },
  {
    // Not in TF.js: the shape TF gives for a list declared with a fully defined element shape.
    name: 'TensorListElementShape_int32',
    build(g) {
      const list = fromTensor(g, g.input('x', 'float32', [3, 2, 5]), 'float32', [2, 5]);
      g.output(g.op('TensorListElementShape', [list], { shape_type: I }));
    },
    expected() { return [{ dtype: 'int32', shape: [2], values: [2, 5] }]; },
  },
  {
    name: 'TensorListElementShape_int64',
    build(g) {
      const list = fromTensor(g, g.input('x', 'int32', [2, 4]), 'int32', [4]);
      g.output(g.op('TensorListElementShape', [list], { shape_type: A.type('int64') }), { dtype: 'int64' });
    },
    expected() { return [{ dtype: 'int64', shape: [1], values: [4] }]; },
  },
];

// Bucketize (not in TF.js): TF's std::upper_bound, the first boundary the value is below (NaN: none).
function upperBound(values, bounds) {
  return values.map((v) => { const i = bounds.findIndex((b) => v < b); return i < 0 ? bounds.length : i; });
}
const bucketize = (name, dtype, shape, fill, dims, bounds) => ({
  name,
  build(g) {
    g.output(g.op('Bucketize', [g.input('x', dtype, shape, fill, dims)], { T: A.type(dtype), boundaries: A.floats(bounds) }));
  },
  expected(t) { return [{ dtype: 'int32', shape, values: upperBound(Array.from(t.x.dataSync()), bounds) }]; },
});

// MatrixDeterminant (not in TF.js): Gaussian elimination with partial pivoting, in doubles.
function determinants(values, shape) {
  const m = shape[shape.length - 1];
  const out = [];
  for (let base = 0; base < values.length; base += m * m) {
    const a = [];
    for (let r = 0; r < m; ++r) a.push(Array.from(values.slice(base + r * m, base + (r + 1) * m)));
    let det = 1;
    for (let c = 0; c < m; ++c) {
      let p = c;
      for (let r = c + 1; r < m; ++r) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
      if (a[p][c] === 0) { det = 0; break; }
      if (p !== c) { [a[p], a[c]] = [a[c], a[p]]; det = -det; }
      det *= a[c][c];
      for (let r = c + 1; r < m; ++r) {
        const f = a[r][c] / a[c][c];
        for (let k = c; k < m; ++k) a[r][k] -= f * a[c][k];
      }
    }
    out.push(det);
  }
  return out;
}
const determinant = (name, shape, fill, dims) => ({
  name,
  build(g) { g.output(g.op('MatrixDeterminant', [g.input('x', 'float32', shape, fill, dims)], f32)); },
  expected(t) {
    return [{ dtype: 'float32', shape: shape.slice(0, -2), values: determinants(Array.from(t.x.dataSync()), shape) }];
  },
});

// AdjustContrastv2 (not in TF.js): the reference is TF's definition in TF.js ops, mean over H and W.
function adjustContrast(name, shape, factorInput) {
  const make = (g) => [g.input('images', 'float32', shape),
                       factorInput ? g.input('factor', 'float32', [], { uniform: [0, 3] }) : g.const('factor', 'float32', [], [1.7])];
  return {
    name,
    build(g) { g.output(g.op('AdjustContrastv2', make(g), f32)); },
    reference(g) {
      const [x, f] = make(g);
      const rank = shape.length;
      const mean = g.op('Mean', [x, g.const('hw', 'int32', [2], [rank - 3, rank - 2])], { ...f32, Tidx: I, keep_dims: A.b(true) });
      const centered = g.op('Sub', [x, mean], f32);
      g.output(g.op('AddV2', [g.op('Mul', [centered, f], f32), mean], f32));
    },
  };
}

const numericCases = [
  bucketize('Bucketize_float32_ties', 'float32', [2, 5], { values: [-1, 0, 0.5, 1, 1.5, -3, 0.25, 7, -1.0001, 0.9999] }, undefined,
            [-1, 0, 0.5, 1]),
  bucketize('Bucketize_float32_unknown_dims', 'float32', [3, 4], { uniform: [-3, 3] }, [-1, 4], [-2, -0.5, 0, 2.5]),
  bucketize('Bucketize_int32', 'int32', [6], { values: [-3, -2, 0, 1, 3, 4] }, undefined, [-2.5, 0, 3]),
  bucketize('Bucketize_duplicate_boundaries', 'float32', [4], { values: [0, 1, 2, -1] }, undefined, [0, 1, 1, 2]),
  determinant('MatrixDeterminant_3x3_batch', [2, 3, 3]),
  determinant('MatrixDeterminant_4x4_unknown_batch', [3, 4, 4], undefined, [-1, 4, 4]),
  determinant('MatrixDeterminant_singular', [2, 2], { values: [1, 2, 2, 4] }),
  determinant('MatrixDeterminant_1x1', [1, 1]),
  adjustContrast('AdjustContrastv2_const_factor', [1, 4, 4, 3], false),
  adjustContrast('AdjustContrastv2_batch_factor_input', [2, 3, 5, 2], true),
];

export const cases = [
  irfft2d([4, 4], 4, 6),
  irfft2d([3, 5], 3, 8),
  irfft2d([2, 4, 3], 4, 4),
  ...tensorListCases,
  ...numericCases,
];
