// Shape, slicing, joining, gathering, scattering and padding operators (ops_array.cc).
import { A } from './lib.mjs';

const T = (dtype) => ({ T: A.type(dtype) });
const I32 = { Tidx: A.type('int32') };

// One node over a fed input `x` and constant (or fed) extra inputs; `extra(g)` returns the other input names.
function unary(name, op, shape, { dtype = 'float32', dims, fill, extra = () => [], attr = {}, outputs = 1 } = {}) {
  return {
    name,
    build(g) {
      const x = g.input('x', dtype, shape, fill, dims);
      const y = g.op(op, [x, ...extra(g)], { ...T(dtype), ...attr });
      for (let k = 0; k < outputs; ++k) g.output(k === 0 ? y : `${y}:${k}`);
    },
  };
}

// StridedSlice over x with constant begin/end/strides and masks.
function strided(name, shape, begin, end, strides, masks = {}, { dtype = 'float32', dims } = {}) {
  const attr = { Index: A.type('int32') };
  for (const [k, v] of Object.entries(masks)) attr[`${k}_mask`] = A.i(v);
  return unary(name, 'StridedSlice', shape, {
    dtype,
    dims,
    attr,
    extra: (g) => [
      g.const('begin', 'int32', [begin.length], begin),
      g.const('end', 'int32', [end.length], end),
      g.const('strides', 'int32', [strides.length], strides),
    ],
  });
}

const shapeConst = (g, name, values, dtype = 'int32') => g.const(name, dtype, [values.length], values);
const pairs = (g, name, values) => g.const(name, 'int32', [values.length / 2, 2], values);

export const cases = [
  // ---- joining and splitting
  {
    name: 'ConcatV2_float32_axis1',
    build(g) {
      const a = g.input('a', 'float32', [2, 3]);
      const b = g.input('b', 'float32', [2, 2]);
      g.output(g.op('ConcatV2', [a, b, g.const('axis', 'int32', [], [1])], { ...T('float32'), ...I32, N: A.i(2) }));
    },
  },
  {
    name: 'ConcatV2_int32_negaxis_unknown_dims',
    build(g) {
      const xs = [1, 3, 2].map((r, k) => g.input(`x${k}`, 'int32', [r, 2, 3], undefined, [-1, 2, -1]));
      g.output(g.op('ConcatV2', [...xs, g.const('axis', 'int32', [], [-3])], { ...T('int32'), ...I32, N: A.i(3) }));
    },
  },
  {
    name: 'Concat_axis_first',
    build(g) {
      const a = g.input('a', 'float32', [2, 2]);
      const b = g.input('b', 'float32', [2, 3]);
      g.output(g.op('Concat', [g.const('axis', 'int32', [], [1]), a, b], { ...T('float32'), N: A.i(2) }));
    },
  },
  {
    name: 'Pack_axis0_float32',
    build(g) {
      const xs = [0, 1, 2].map((k) => g.input(`x${k}`, 'float32', [2, 3]));
      g.output(g.op('Pack', xs, { ...T('float32'), N: A.i(3), axis: A.i(0) }));
    },
  },
  {
    name: 'Pack_negaxis_int32',
    build(g) {
      const xs = [0, 1].map((k) => g.input(`x${k}`, 'int32', [2, 3], undefined, [-1, 3]));
      g.output(g.op('Pack', xs, { ...T('int32'), N: A.i(2), axis: A.i(-1) }));
    },
  },
  unary('Unpack_axis1', 'Unpack', [2, 3, 4], { attr: { num: A.i(3), axis: A.i(1) }, outputs: 3 }),
  unary('Unpack_negaxis_int32', 'Unpack', [2, 4], { dtype: 'int32', attr: { num: A.i(4), axis: A.i(-1) }, outputs: 4 }),
  unary('Tile_const', 'Tile', [2, 3], { extra: (g) => [shapeConst(g, 'multiples', [2, 1])] }),
  {
    name: 'Tile_computed_multiples_int32',
    build(g) {
      const x = g.input('x', 'int32', [2, 1, 3]);
      const m = g.input('m', 'int32', [3], { values: [1, 3, 2] });
      g.output(g.op('Tile', [x, m], { ...T('int32'), Tmultiples: A.type('int32') }));
    },
  },
  {
    name: 'Split_axis1',
    build(g) {
      const x = g.input('x', 'float32', [2, 6]);
      const y = g.op('Split', [g.const('axis', 'int32', [], [1]), x], { ...T('float32'), num_split: A.i(3) });
      [0, 1, 2].forEach((k) => g.output(`${y}:${k}`));
    },
  },
  {
    name: 'Split_negaxis_unknown_dims',
    build(g) {
      const x = g.input('x', 'int32', [4, 3], undefined, [-1, -1]);
      const y = g.op('Split', [g.const('axis', 'int32', [], [-2]), x], { ...T('int32'), num_split: A.i(2) });
      [0, 1].forEach((k) => g.output(`${y}:${k}`));
    },
  },
  {
    name: 'SplitV_sizes',
    build(g) {
      const x = g.input('x', 'float32', [2, 7]);
      const y = g.op('SplitV', [x, shapeConst(g, 'sizes', [2, 4, 1]), g.const('axis', 'int32', [], [1])],
        { ...T('float32'), Tlen: A.type('int32'), num_split: A.i(3) });
      [0, 1, 2].forEach((k) => g.output(`${y}:${k}`));
    },
  },
  {
    name: 'SplitV_inferred_size_unknown_dims',
    build(g) {
      const x = g.input('x', 'float32', [2, 7], undefined, [-1, -1]);
      const y = g.op('SplitV', [x, shapeConst(g, 'sizes', [2, -1, 1]), g.const('axis', 'int32', [], [-1])],
        { ...T('float32'), Tlen: A.type('int32'), num_split: A.i(3) });
      [0, 1, 2].forEach((k) => g.output(`${y}:${k}`));
    },
  },

  // ---- slicing
  unary('Slice_const', 'Slice', [3, 4, 5], {
    extra: (g) => [shapeConst(g, 'begin', [1, 0, 2]), shapeConst(g, 'size', [2, -1, 3])],
    attr: { Index: A.type('int32') },
  }),
  {
    name: 'Slice_computed_begin_int32',
    build(g) {
      const x = g.input('x', 'int32', [4, 5]);
      const begin = g.input('begin', 'int32', [2], { values: [1, 2] });
      g.output(g.op('Slice', [x, begin, shapeConst(g, 'size', [-1, 2])], { ...T('int32'), Index: A.type('int32') }));
    },
  },
  strided('StridedSlice_basic', [4, 6], [1, 0], [3, 6], [1, 2]),
  strided('StridedSlice_masks_negative_stride', [3, 5], [0, -1], [2, 0], [1, -1], { begin: 1, end: 2 }),
  strided('StridedSlice_negative_stride_bounds', [7], [5], [0], [-2]),
  strided('StridedSlice_negative_begin_end', [6, 4], [-4, 1], [-1, -1], [1, 1]),
  strided('StridedSlice_shrink', [3, 4, 5], [1, 0, -1], [2, 4, 0], [1, 1, 1], { shrink_axis: 5 }),
  strided('StridedSlice_shrink_negative_begin', [3, 4], [-2], [-1], [1], { shrink_axis: 1 }),
  strided('StridedSlice_ellipsis', [2, 3, 4, 5], [0, 1], [0, 4], [1, 2], { ellipsis: 1 }),
  strided('StridedSlice_ellipsis_shrink', [2, 3, 4], [1, 0, -1], [2, 0, 0], [1, 1, 1], { ellipsis: 2, shrink_axis: 5 }),
  strided('StridedSlice_new_axis', [3, 4], [0, 0, 1], [0, 0, 3], [1, 1, 1], { begin: 1, end: 1, new_axis: 2 }),
  strided('StridedSlice_int32_unknown_dims', [4, 6], [1, 4], [0, 0], [1, -2], { end: 1 },
    { dtype: 'int32', dims: [-1, -1] }),
  strided('StridedSlice_fewer_specs', [3, 4, 2], [1], [3], [1]),
  unary('ReverseV2_axes_0_2', 'ReverseV2', [2, 3, 4], { extra: (g) => [shapeConst(g, 'axis', [0, 2])] }),
  unary('ReverseV2_negaxis_int32', 'ReverseV2', [3, 4], { dtype: 'int32', extra: (g) => [shapeConst(g, 'axis', [-1])] }),
  {
    name: 'ReverseV2_computed_axis',
    build(g) {
      const x = g.input('x', 'float32', [3, 4, 2]);
      const axis = g.input('axis', 'int32', [2], { values: [1, 2] });
      g.output(g.op('ReverseV2', [x, axis], { ...T('float32'), Tidx: A.type('int32') }));
    },
  },
  unary('Reverse_bool_dims', 'Reverse', [2, 3, 4], { extra: (g) => [g.const('dims', 'bool', [3], [false, true, true])] }),

  // ---- gathering and scattering
  unary('GatherV2_axis0', 'GatherV2', [4, 3], {
    extra: (g) => [shapeConst(g, 'indices', [3, 0, 2, 3]), g.const('axis', 'int32', [], [0])],
    attr: { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32') },
  }),
  {
    name: 'GatherV2_axis1_int32_fed_indices',
    build(g) {
      const x = g.input('x', 'int32', [2, 5]);
      const idx = g.input('idx', 'int32', [2, 3], { int: [0, 4] });
      g.output(g.op('GatherV2', [x, idx, g.const('axis', 'int32', [], [1])],
        { Tparams: A.type('int32'), Tindices: A.type('int32'), Taxis: A.type('int32') }));
    },
  },
  unary('GatherV2_negaxis', 'GatherV2', [2, 3, 4], {
    extra: (g) => [shapeConst(g, 'indices', [3, 1]), g.const('axis', 'int32', [], [-1])],
    attr: { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32') },
  }),
  {
    name: 'GatherV2_batch_dims1',
    build(g) {
      const x = g.input('x', 'float32', [2, 4, 3]);
      const idx = g.input('idx', 'int32', [2, 3], { int: [0, 3] });
      g.output(g.op('GatherV2', [x, idx, g.const('axis', 'int32', [], [1])],
        { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32'), batch_dims: A.i(1) }));
    },
  },
  unary('Gather_v1', 'Gather', [5, 2], {
    extra: (g) => [g.const('indices', 'int32', [2, 2], [4, 0, 1, 1])],
    attr: { Tparams: A.type('float32'), Tindices: A.type('int32') },
  }),
  unary('GatherNd_elements', 'GatherNd', [3, 4], {
    extra: (g) => [g.const('indices', 'int32', [3, 2], [0, 1, 2, 3, 1, 0])],
    attr: { Tparams: A.type('float32'), Tindices: A.type('int32') },
  }),
  unary('GatherNd_batch_of_slices_int32', 'GatherNd', [3, 4, 2], {
    dtype: 'int32',
    extra: (g) => [g.const('indices', 'int32', [2, 2, 1], [2, 0, 1, 1])],
    attr: { Tparams: A.type('int32'), Tindices: A.type('int32') },
  }),
  {
    name: 'ScatterNd_duplicates_add',
    build(g) {
      const upd = g.input('upd', 'float32', [3, 4]);
      g.output(g.op('ScatterNd', [g.const('indices', 'int32', [3, 1], [0, 2, 0]), upd, shapeConst(g, 'shape', [4, 4])],
        { ...T('float32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'ScatterNd_int32_elements',
    build(g) {
      const upd = g.input('upd', 'int32', [2]);
      g.output(g.op('ScatterNd', [g.const('indices', 'int32', [2, 2], [0, 1, 2, 3]), upd, shapeConst(g, 'shape', [3, 4])],
        { ...T('int32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'TensorScatterUpdate_rows',
    build(g) {
      const x = g.input('x', 'float32', [4, 3]);
      const upd = g.input('upd', 'float32', [2, 3]);
      g.output(g.op('TensorScatterUpdate', [x, g.const('indices', 'int32', [2, 1], [3, 1]), upd],
        { ...T('float32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'SparseToDense_2d',
    build(g) {
      const vals = g.input('vals', 'float32', [3]);
      g.output(g.op('SparseToDense', [g.const('indices', 'int32', [3, 2], [0, 1, 1, 3, 2, 0]), shapeConst(g, 'shape', [3, 4]),
        vals, g.const('default', 'float32', [], [0.5])], { ...T('float32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'SparseToDense_1d_scalar_value_int32',
    build(g) {
      const dflt = g.input('dflt', 'int32', [], { values: [-1] });
      g.output(g.op('SparseToDense', [shapeConst(g, 'indices', [1, 3, 4]), shapeConst(g, 'shape', [6]),
        g.const('value', 'int32', [], [7]), dflt], { ...T('int32'), Tindices: A.type('int32') }));
    },
  },

  // ---- shapes
  unary('Reshape_const', 'Reshape', [2, 3, 4], { extra: (g) => [shapeConst(g, 'shape', [4, -1])] }),
  {
    name: 'Reshape_computed_shape_int32',
    build(g) {
      const x = g.input('x', 'int32', [2, 6], undefined, [-1, 6]);
      const s = g.input('s', 'int32', [3], { values: [3, 2, 2] });
      g.output(g.op('Reshape', [x, s], { ...T('int32'), Tshape: A.type('int32') }));
    },
  },
  unary('Squeeze_dims', 'Squeeze', [2, 1, 3, 1], { attr: { squeeze_dims: A.ints([1]) } }),
  unary('Squeeze_all', 'Squeeze', [1, 3, 1], { dtype: 'int32', attr: { squeeze_dims: A.ints([]) } }),
  unary('ExpandDims_axis1', 'ExpandDims', [2, 3], { extra: (g) => [g.const('axis', 'int32', [], [1])], attr: I32 }),
  unary('ExpandDims_negaxis_int32', 'ExpandDims', [2, 3], {
    dtype: 'int32', extra: (g) => [g.const('axis', 'int32', [1], [-1])], attr: I32,
  }),
  {
    name: 'ExpandDims_computed_axis',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const axis = g.input('axis', 'int32', [], { values: [0] });
      g.output(g.op('ExpandDims', [x, axis], { ...T('float32'), ...I32 }));
    },
  },
  unary('Transpose_perm', 'Transpose', [2, 3, 4], { extra: (g) => [shapeConst(g, 'perm', [2, 0, 1])], attr: { Tperm: A.type('int32') } }),
  unary('BroadcastTo_const', 'BroadcastTo', [3, 1], { extra: (g) => [shapeConst(g, 'shape', [2, 3, 4])], attr: I32 }),
  {
    name: 'BroadcastTo_computed_shape_int32',
    build(g) {
      const x = g.input('x', 'int32', [1, 3]);
      const s = g.input('s', 'int32', [2], { values: [4, 3] });
      g.output(g.op('BroadcastTo', [x, s], { ...T('int32'), ...I32 }));
    },
  },
  {
    name: 'BroadcastArgs_fed',
    build(g) {
      const s0 = g.input('s0', 'int32', [3], { values: [2, 1, 3] });
      const s1 = g.input('s1', 'int32', [2], { values: [4, 1] });
      g.output(g.op('BroadcastArgs', [s0, s1], T('int32')));
    },
  },
  {
    name: 'BroadcastArgs_zero_dim',
    build(g) {
      const s0 = g.input('s0', 'int32', [2], { values: [1, 5] });
      const s1 = g.input('s1', 'int32', [3], { values: [3, 0, 1] });
      g.output(g.op('BroadcastArgs', [s0, s1], T('int32')));
    },
  },

  // ---- padding
  unary('Pad_const', 'Pad', [2, 3], { extra: (g) => [pairs(g, 'paddings', [1, 0, 2, 1])], attr: { Tpaddings: A.type('int32') } }),
  unary('Pad_int32_rank3', 'Pad', [2, 2, 2], {
    dtype: 'int32', extra: (g) => [pairs(g, 'paddings', [0, 1, 1, 0, 2, 2])], attr: { Tpaddings: A.type('int32') },
  }),
  unary('PadV2_value', 'PadV2', [2, 3], {
    extra: (g) => [pairs(g, 'paddings', [0, 2, 1, 1]), g.const('value', 'float32', [], [1.5])],
    attr: { Tpaddings: A.type('int32') },
  }),
  {
    name: 'Pad_computed_paddings',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const p = g.input('p', 'int32', [2, 2], { values: [1, 2, 0, 1] });
      g.output(g.op('Pad', [x, p], { ...T('float32'), Tpaddings: A.type('int32') }));
    },
  },
  unary('MirrorPad_reflect', 'MirrorPad', [3, 4], {
    extra: (g) => [pairs(g, 'paddings', [1, 2, 2, 1])], attr: { Tpaddings: A.type('int32'), mode: A.s('REFLECT') },
  }),
  unary('MirrorPad_symmetric', 'MirrorPad', [3, 4], {
    extra: (g) => [pairs(g, 'paddings', [2, 1, 0, 3])], attr: { Tpaddings: A.type('int32'), mode: A.s('SYMMETRIC') },
  }),
  unary('MirrorPad_symmetric_int32_rank3', 'MirrorPad', [2, 3, 2], {
    dtype: 'int32', dims: [-1, -1, 2],
    extra: (g) => [pairs(g, 'paddings', [1, 1, 3, 0, 0, 2])], attr: { Tpaddings: A.type('int32'), mode: A.s('SYMMETRIC') },
  }),

  // ---- space <-> batch and depth
  unary('SpaceToBatchND_2x2', 'SpaceToBatchND', [1, 4, 4, 2], {
    extra: (g) => [shapeConst(g, 'block', [2, 2]), pairs(g, 'paddings', [0, 0, 0, 0])],
    attr: { Tblock_shape: A.type('int32'), Tpaddings: A.type('int32') },
  }),
  unary('SpaceToBatchND_padded_2x3', 'SpaceToBatchND', [2, 3, 5, 1], {
    dims: [-1, 3, 5, 1],
    extra: (g) => [shapeConst(g, 'block', [2, 3]), pairs(g, 'paddings', [1, 0, 0, 1])],
    attr: { Tblock_shape: A.type('int32'), Tpaddings: A.type('int32') },
  }),
  unary('SpaceToBatchND_1d_rest_dims', 'SpaceToBatchND', [2, 6, 2, 2], {
    extra: (g) => [shapeConst(g, 'block', [3]), pairs(g, 'paddings', [0, 0])],
    attr: { Tblock_shape: A.type('int32'), Tpaddings: A.type('int32') },
  }),
  unary('BatchToSpaceND_2x2', 'BatchToSpaceND', [4, 2, 2, 1], {
    extra: (g) => [shapeConst(g, 'block', [2, 2]), pairs(g, 'crops', [0, 0, 0, 0])],
    attr: { Tblock_shape: A.type('int32'), Tcrops: A.type('int32') },
  }),
  unary('BatchToSpaceND_cropped_2x3', 'BatchToSpaceND', [12, 2, 2, 3], {
    dims: [-1, 2, 2, 3],
    extra: (g) => [shapeConst(g, 'block', [2, 3]), pairs(g, 'crops', [1, 0, 0, 2])],
    attr: { Tblock_shape: A.type('int32'), Tcrops: A.type('int32') },
  }),
  unary('DepthToSpace_nhwc', 'DepthToSpace', [1, 2, 3, 8], {
    attr: { block_size: A.i(2), data_format: A.s('NHWC') },
  }),
  unary('DepthToSpace_block3_unknown_batch', 'DepthToSpace', [2, 2, 2, 9], {
    dims: [-1, 2, 2, 9], attr: { block_size: A.i(3), data_format: A.s('NHWC') },
  }),

  // ---- more element types and edge forms
  {
    name: 'ConcatV2_bool',
    build(g) {
      const a = g.input('a', 'bool', [2, 1]);
      const b = g.input('b', 'bool', [2, 2]);
      g.output(g.op('ConcatV2', [a, b, g.const('axis', 'int32', [], [-1])], { ...T('bool'), ...I32, N: A.i(2) }));
    },
  },
  {
    name: 'Pack_bool_single',
    build(g) {
      const a = g.input('a', 'bool', [3]);
      g.output(g.op('Pack', [a], { ...T('bool'), N: A.i(1), axis: A.i(1) }));
    },
  },
  unary('Tile_bool', 'Tile', [2, 2], { dtype: 'bool', extra: (g) => [shapeConst(g, 'multiples', [1, 3])] }),
  unary('Transpose_bool', 'Transpose', [2, 3], {
    dtype: 'bool', extra: (g) => [shapeConst(g, 'perm', [1, 0])], attr: { Tperm: A.type('int32') },
  }),
  unary('ReverseV2_bool', 'ReverseV2', [2, 3], { dtype: 'bool', extra: (g) => [shapeConst(g, 'axis', [1])] }),
  unary('GatherV2_bool', 'GatherV2', [4], {
    dtype: 'bool',
    extra: (g) => [shapeConst(g, 'indices', [3, 3, 0]), g.const('axis', 'int32', [], [0])],
    attr: { Tparams: A.type('bool'), Tindices: A.type('int32'), Taxis: A.type('int32') },
  }),
  {
    name: 'GatherV2_batch_dims_negative_const_indices',
    build(g) {
      const x = g.input('x', 'float32', [3, 5]);
      g.output(g.op('GatherV2', [x, g.const('idx', 'int32', [3, 2], [4, 0, 1, 1, 3, 2]), g.const('axis', 'int32', [], [1])],
        { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32'), batch_dims: A.i(-1) }));
    },
  },
  {
    name: 'GatherNd_fed_indices_int32',
    build(g) {
      const x = g.input('x', 'int32', [2, 3, 2]);
      const idx = g.input('idx', 'int32', [4, 3], { values: [0, 2, 1, 1, 0, 0, 1, 1, 1, 0, 2, 0] });
      g.output(g.op('GatherNd', [x, idx], { Tparams: A.type('int32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'ScatterNd_slices_rank3',
    build(g) {
      const upd = g.input('upd', 'float32', [2, 3, 2]);
      g.output(g.op('ScatterNd', [g.const('indices', 'int32', [2, 1], [1, 3]), upd, shapeConst(g, 'shape', [4, 3, 2])],
        { ...T('float32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'TensorScatterUpdate_int32_elements',
    build(g) {
      const x = g.input('x', 'int32', [3, 3]);
      const upd = g.input('upd', 'int32', [3]);
      g.output(g.op('TensorScatterUpdate', [x, g.const('indices', 'int32', [3, 2], [0, 0, 2, 1, 1, 2]), upd],
        { ...T('int32'), Tindices: A.type('int32') }));
    },
  },
  {
    name: 'Slice_computed_begin_and_size',
    build(g) {
      const x = g.input('x', 'float32', [3, 4, 2], undefined, [-1, -1, 2]);
      const begin = g.input('begin', 'int32', [3], { values: [1, 0, 1] });
      const size = g.input('size', 'int32', [3], { values: [-1, 3, 1] });
      g.output(g.op('Slice', [x, begin, size], { ...T('float32'), Index: A.type('int32') }));
    },
  },
  strided('StridedSlice_shrink_first_ellipsis_last', [3, 2, 4], [2, 0], [3, 0], [1, 1], { shrink_axis: 1, ellipsis: 2 }),
  strided('StridedSlice_ellipsis_only', [2, 3], [0], [0], [1], { ellipsis: 1 }),
  strided('StridedSlice_reverse_all', [2, 5], [0, 0], [0, 0], [-1, -1], { begin: 3, end: 3 }),
  unary('Unpack_single', 'Unpack', [1, 3], { attr: { num: A.i(1), axis: A.i(0) } }),
  {
    name: 'Split_one_part',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      g.output(g.op('Split', [g.const('axis', 'int32', [], [0]), x], { ...T('float32'), num_split: A.i(1) }));
    },
  },
  unary('BroadcastTo_scalar', 'BroadcastTo', [], { extra: (g) => [shapeConst(g, 'shape', [2, 3])], attr: I32 }),
  {
    name: 'MirrorPad_reflect_computed_paddings',
    build(g) {
      const x = g.input('x', 'float32', [3, 4]);
      const p = g.input('p', 'int32', [2, 2], { values: [2, 0, 1, 3] });
      g.output(g.op('MirrorPad', [x, p], { ...T('float32'), Tpaddings: A.type('int32'), mode: A.s('REFLECT') }));
    },
  },
  unary('BatchToSpaceND_1d_rest_dims', 'BatchToSpaceND', [6, 2, 3], {
    extra: (g) => [shapeConst(g, 'block', [3]), pairs(g, 'crops', [1, 2])],
    attr: { Tblock_shape: A.type('int32'), Tcrops: A.type('int32') },
  }),
  unary('Reshape_zero_dim', 'Reshape', [2, 0, 3], { extra: (g) => [shapeConst(g, 'shape', [0, 4])] }),
  {
    name: 'Reverse_computed_dims',
    build(g) {
      const x = g.input('x', 'int32', [2, 3, 2]);
      const dims = g.input('dims', 'bool', [3], { values: [true, false, true] });
      g.output(g.op('Reverse', [x, dims], T('int32')));
    },
  },
];
