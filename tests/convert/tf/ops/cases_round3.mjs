// Round 3 of the TensorFlow operator cases: ragged tensors (RaggedRange, RaggedGather, RaggedTensorToTensor),
// SparseFillEmptyRows. TF.js 4.22 has the ragged ops (tf.raggedRange...) but its graph-model loader does not map
// them ("Unknown op"): their cases' expected() calls the TF.js ops directly on the case's inputs and Consts.
import { A } from './lib.mjs';

const T = (t) => A.type(t);
const i64 = { dtype: 'int64' };

// RaggedRange(starts, limits, deltas): opts.scalarDelta feeds delta as a scalar Const (broadcast).
function raggedRange(name, dtype, starts, limits, deltas, opts = {}) {
  return {
    name,
    build(g) {
      const n = starts.length;
      const s = g.input('starts', dtype, [n], { values: starts }, opts.dims ? [-1] : undefined);
      const l = g.input('limits', dtype, [limits.length], { values: limits });
      const d = opts.scalarDelta ? g.const('delta', dtype, [], deltas) : g.input('deltas', dtype, [deltas.length], { values: deltas });
      const tsplits = opts.tsplits || 'int64';
      const r = g.op('RaggedRange', [s, l, d], { T: T(dtype), Tsplits: T(tsplits) });
      g.output(`${r}:0`, tsplits === 'int64' ? i64 : {});
      g.output(`${r}:1`);
    },
    expected(t, tf) {
      const r = tf.raggedRange(t.starts, t.limits, opts.scalarDelta ? t.delta : t.deltas);
      return [r.rtNestedSplits, r.rtDenseValues];
    },
  };
}

// RaggedGather of params with the given row splits (one vector per ragged level) and values [n, ...inner].
function raggedGather(name, splits, valueShape, indexShape, indexValues, opts = {}) {
  return {
    name,
    build(g) {
      const sp = splits.map((s, k) => g.const(`splits${k}`, 'int64', [s.length], s));
      const v = g.input('values', opts.dtype || 'float32', valueShape);
      const idx = g.input('indices', 'int32', indexShape, { values: indexValues });
      const outRank = splits.length + indexShape.length - 1;
      const r = g.op('RaggedGather', [...sp, v, idx], {
        Tvalues: T(opts.dtype || 'float32'), Tindices: T('int32'), Tsplits: T('int64'),
        PARAMS_RAGGED_RANK: A.i(splits.length), OUTPUT_RAGGED_RANK: A.i(outRank),
      });
      for (let k = 0; k < outRank; ++k) g.output(`${r}:${k}`, i64);
      g.output(`${r}:${outRank}`);
    },
    expected(t, tf) {
      const r = tf.raggedGather(splits.map((_, k) => t[`splits${k}`]), t.values, t.indices,
        splits.length + indexShape.length - 1);
      return [...r.outputNestedSplits, r.outputDenseValues];
    },
  };
}

// RaggedTensorToTensor(shape, values, default, partitions...): partitions [type, dtype, values] in order.
function raggedToTensor(name, shape, valueShape, partitions, opts = {}) {
  return {
    name,
    build(g) {
      const sh = shape === null ? g.const('shape', 'int64', [], [-1]) : g.const('shape', 'int64', [shape.length], shape);
      const dtype = opts.dtype || 'float32';
      const v = g.input('values', dtype, valueShape, opts.fill, opts.dims);
      const def = opts.defaultShape
        ? g.const('default', dtype, opts.defaultShape, opts.defaultValues)
        : g.const('default', dtype, [], [opts.defaultValue ?? 7]);
      const parts = partitions.map(([, pdtype, vals], k) =>
        g.const(`partition${k}`, pdtype, vals.length === 1 && k === 0 && partitions[0][0] === 'FIRST_DIM_SIZE' ? [] : [vals.length], vals));
      const r = g.op('RaggedTensorToTensor', [sh, v, def, ...parts], {
        T: T(dtype), Tindex: T(partitions[partitions.length - 1][1]), Tshape: T('int64'),
        num_row_partition_tensors: A.i(partitions.length), row_partition_types: A.strings(partitions.map((p) => p[0])),
      });
      g.output(r);
    },
    expected(t, tf) {
      return [tf.raggedTensorToTensor(t.shape, t.values, t.default, partitions.map((_, k) => t[`partition${k}`]),
        partitions.map((p) => p[0]))];
    },
  };
}

function fillEmptyRows(name, indices, rank, denseShape, opts = {}) {
  return {
    name,
    build(g) {
      const n = indices.length / rank;
      const idx = g.input('indices', 'int64', [n, rank], { values: indices }, opts.dims);
      const dtype = opts.dtype || 'float32';
      const v = g.input('values', dtype, [n], opts.fill);
      const shape = g.const('dense_shape', 'int64', [rank], denseShape);
      const def = g.const('default', dtype, [], [opts.defaultValue ?? -1]);
      const r = g.op('SparseFillEmptyRows', [idx, v, shape, def], { T: T(dtype) });
      g.output(`${r}:0`, i64);
      g.output(`${r}:1`);
      g.output(`${r}:2`);
      g.output(`${r}:3`, i64);
    },
  };
}

export const cases = [
  raggedRange('RaggedRange_int32', 'int32', [0, 5, -2, 3], [3, 1, 4, 3], [1, -2, 3, 2]),
  raggedRange('RaggedRange_int32_away_from_limit', 'int32', [0, 5, 2], [-3, 9, 2], [1, -1, 4], { tsplits: 'int32' }),
  raggedRange('RaggedRange_float_scalar_delta', 'float32', [0, 1.5, -1], [2, -1, 0.25], [0.5], { scalarDelta: true }),
  raggedRange('RaggedRange_float_unknown_dims', 'float32', [0.25, 3], [1.5, -0.5], [0.25, -0.75], { dims: true }),
  raggedGather('RaggedGather_rank1', [[0, 2, 2, 5, 6]], [6], [5], [2, 0, 1, 3, 2]),
  raggedGather('RaggedGather_inner_dims_int32', [[0, 3, 4, 4]], [4, 2], [3], [0, 2, 1], { dtype: 'int32' }),
  raggedGather('RaggedGather_two_levels', [[0, 2, 3], [0, 1, 4, 6]], [6], [3], [1, 0, 1]),
  raggedGather('RaggedGather_2d_indices', [[0, 2, 2, 5]], [5], [2, 2], [2, 0, 1, 2]),
  raggedToTensor('RaggedTensorToTensor_row_splits', [-1, -1], [6], [['ROW_SPLITS', 'int64', [0, 2, 2, 5, 6]]]),
  raggedToTensor('RaggedTensorToTensor_row_splits_cut_pad', [3, 2], [6], [['ROW_SPLITS', 'int32', [0, 2, 2, 5, 6]]],
    { defaultValue: -1 }),
  raggedToTensor('RaggedTensorToTensor_pad_wider', [6, 4], [6], [['ROW_SPLITS', 'int64', [0, 2, 2, 5, 6]]]),
  raggedToTensor('RaggedTensorToTensor_inner_dims', [-1, -1, 2], [5, 2], [['ROW_SPLITS', 'int64', [0, 1, 4, 5]]],
    { defaultValue: 8 }),
  // (A default_value of the values' inner shape, e.g. [8, 9] here, broadcasts in TensorFlow; TF.js 4.22 pads with
  // zeros instead, so that form has no case.)
  raggedToTensor('RaggedTensorToTensor_two_levels_int32', [-1, -1, -1], [6], [['ROW_SPLITS', 'int64', [0, 2, 3]],
    ['ROW_SPLITS', 'int64', [0, 1, 4, 6]]], { dtype: 'int32', defaultValue: 0 }),
  raggedToTensor('RaggedTensorToTensor_value_rowids', [-1, -1], [6], [['FIRST_DIM_SIZE', 'int64', [5]],
    ['VALUE_ROWIDS', 'int64', [0, 0, 2, 2, 2, 3]]]),
  raggedToTensor('RaggedTensorToTensor_value_rowids_two_levels', [-1, 3, -1], [5], [['FIRST_DIM_SIZE', 'int32', [3]],
    ['VALUE_ROWIDS', 'int32', [0, 0, 2, 2]], ['VALUE_ROWIDS', 'int32', [0, 1, 1, 3, 3]]]),
  fillEmptyRows('SparseFillEmptyRows_unordered', [2, 1, 0, 0, 2, 0, 4, 3], 2, [6, 5]),
  fillEmptyRows('SparseFillEmptyRows_none_empty_int32', [0, 1, 1, 0, 1, 2], 2, [2, 3], { dtype: 'int32', defaultValue: 9 }),
  fillEmptyRows('SparseFillEmptyRows_rank3_unknown_dims', [3, 1, 1, 1, 0, 2, 3, 0, 0], 3, [5, 2, 3],
    { dims: [-1, 3] }),
];
