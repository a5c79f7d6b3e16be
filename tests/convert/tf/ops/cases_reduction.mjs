// Reductions, arg-reductions, cumulative ops, Bincount (TF.js op list reduction.js) and EuclideanNorm.
import { A } from './lib.mjs';

// A reduction over constant axes (`axes` a number is a scalar axis, an array a vector; [] reduces nothing).
// opts: dtype, shape, fill, keep, dims, suffix.
function reduce(op, axes, opts = {}) {
  const dtype = opts.dtype || 'float32';
  const axesName = Array.isArray(axes) ? `axes${axes.join('_') || 'none'}` : `axis${axes}`;
  return {
    name: `${op}_${dtype}_${axesName}${opts.keep ? '_keep' : ''}${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const x = g.input('x', dtype, opts.shape || [2, 3, 4], opts.fill, opts.dims);
      const a = Array.isArray(axes) ? g.const('axes', 'int32', [axes.length], axes) : g.const('axes', 'int32', [], [axes]);
      const attr = { Tidx: A.type('int32'), keep_dims: A.b(!!opts.keep) };
      if (dtype !== 'bool') attr.T = A.type(dtype);
      g.output(g.op(op, [x, a], attr));
    },
  };
}

// The axes fed at run time (a Placeholder), not a Const.
function reduceComputedAxes(op, axes, dtype, keep = false) {
  return {
    name: `${op}_${dtype}_computed_axes${axes.join('_')}${keep ? '_keep' : ''}`,
    build(g) {
      const x = g.input('x', dtype, [2, 3, 4]);
      const a = g.input('axes', 'int32', [axes.length], { values: axes });
      const attr = { Tidx: A.type('int32'), keep_dims: A.b(keep) };
      if (dtype !== 'bool') attr.T = A.type(dtype);
      g.output(g.op(op, [x, a], attr));
    },
  };
}

// opts: dtype, outType (int32 / int64), fill, shape.
function arg(op, axis, opts = {}) {
  const dtype = opts.dtype || 'float32';
  const outType = opts.outType || 'int64';
  return {
    name: `${op}_${dtype}_axis${axis}_${outType}${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const x = g.input('x', dtype, opts.shape || [3, 4, 5], opts.fill);
      const a = g.const('dimension', 'int32', [], [axis]);
      // TF.js computes indices as int32 whatever output_type says; the reference keeps the declared type.
      g.output(g.op(op, [x, a], { T: A.type(dtype), Tidx: A.type('int32'), output_type: A.type(outType) }),
               { dtype: outType });
    },
  };
}

function cumulative(op, axis, exclusive, reverse, opts = {}) {
  const dtype = opts.dtype || 'float32';
  const flags = `${exclusive ? '_exclusive' : ''}${reverse ? '_reverse' : ''}`;
  return {
    name: `${op}_${dtype}_axis${axis}${flags}${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const x = g.input('x', dtype, opts.shape || [2, 3, 4], opts.fill, opts.dims);
      const a = g.const('axis', 'int32', [], [axis]);
      g.output(g.op(op, [x, a], { T: A.type(dtype), Tidx: A.type('int32'), exclusive: A.b(exclusive),
                                  reverse: A.b(reverse) }));
    },
  };
}

const nearOne = { uniform: [0.5, 1.5] };
const smallInts = { int: [-3, 3] };

export const cases = [
  reduce('Sum', [0, 2]),
  reduce('Sum', [1], { keep: true }),
  reduce('Sum', -1),
  reduce('Sum', [-3, -1], { keep: true }),
  reduce('Sum', []),
  reduce('Sum', [1, -1], { dims: null, suffix: 'unknown_rank' }),
  reduce('Sum', [0, 1, 2], { dtype: 'int32' }),
  reduce('Sum', 1, { dtype: 'int32', keep: true, shape: [2, 3, 4], dims: [-1, 3, 4], suffix: 'unknown_batch' }),
  reduceComputedAxes('Sum', [0, 2], 'float32'),
  reduceComputedAxes('Sum', [-1], 'int32', true),
  reduce('Mean', [1, 2]),
  reduce('Mean', -2, { keep: true }),
  reduce('Mean', [0], { dims: [-1, -1, 4], suffix: 'unknown_dims' }),
  reduce('Mean', []),
  reduceComputedAxes('Mean', [1], 'float32', true),
  reduceComputedAxes('Mean', [0, -1], 'float32'),
  reduce('Max', [0, 2]),
  reduce('Max', -1, { keep: true }),
  reduce('Max', [1], { dtype: 'int32' }),
  reduce('Max', []),
  reduce('Min', [1]),
  reduce('Min', [0, -1], { keep: true }),
  reduce('Min', 2, { dtype: 'int32' }),
  reduce('Prod', [1], { fill: nearOne }),
  reduce('Prod', [0, 2], { fill: nearOne, keep: true }),
  reduce('Prod', -1, { dtype: 'int32', fill: smallInts }),
  reduce('All', [1], { dtype: 'bool' }),
  reduce('All', [0, 2], { dtype: 'bool', keep: true }),
  reduce('All', -1, { dtype: 'bool', shape: [3, 2], fill: { values: [true, true, true, false, false, false] } }),
  reduce('All', [], { dtype: 'bool' }),
  reduceComputedAxes('All', [1, 2], 'bool'),
  reduce('Any', [1], { dtype: 'bool' }),
  reduce('Any', [-1], { dtype: 'bool', keep: true }),
  reduce('Any', 0, { dtype: 'bool', shape: [2, 3], fill: { values: [false, true, false, false, true, false] } }),
  reduceComputedAxes('Any', [0], 'bool', true),
  reduce('EuclideanNorm', [1]),
  reduce('EuclideanNorm', [0, 2], { keep: true }),
  reduce('EuclideanNorm', -1),
  arg('ArgMax', 1, { outType: 'int32' }),
  arg('ArgMax', -1),
  arg('ArgMax', 0, { dtype: 'int32', fill: { int: [-2, 2] }, suffix: 'ties' }),
  arg('ArgMin', 2, { outType: 'int32' }),
  arg('ArgMin', -3),
  arg('ArgMin', 1, { dtype: 'int32', fill: { int: [-2, 2] }, suffix: 'ties' }),
  // TF.js's cumulative kernels reject negative axes (they only handle 0..rank-1), so the cases use positive ones.
  cumulative('Cumsum', 0, false, false),
  cumulative('Cumsum', 1, true, false),
  cumulative('Cumsum', 2, false, true),
  cumulative('Cumsum', 2, true, true),
  cumulative('Cumsum', 1, false, false, { dtype: 'int32', dims: [-1, 3, 4], suffix: 'unknown_batch' }),
  cumulative('Cumprod', 0, false, false, { fill: nearOne }),
  cumulative('Cumprod', 1, true, false, { fill: nearOne }),
  cumulative('Cumprod', 2, false, true, { fill: nearOne }),
  cumulative('Cumprod', 2, true, true, { fill: nearOne }),
  cumulative('Cumprod', 1, false, false, { fill: nearOne, dims: [-1, -1, 4], suffix: 'unknown_dims' }),
  cumulative('Cumprod', 1, false, true, { dtype: 'int32', fill: smallInts }),
  {
    name: 'Bincount_float32_weights',
    build(g) {
      const x = g.input('x', 'int32', [10], { values: [0, 3, 1, 3, 7, 4, 0, 3, 5, 2] });
      const size = g.const('size', 'int32', [], [5]);
      const w = g.input('w', 'float32', [10]);
      g.output(g.op('Bincount', [x, size, w], { T: A.type('float32') }));
    },
  },
  {
    name: 'Bincount_float32_computed_size',
    build(g) {
      const x = g.input('x', 'int32', [10], { values: [0, 3, 1, 3, 7, 4, 0, 3, 5, 2] }, [-1]);
      const size = g.input('size', 'int32', [], { values: [4] });
      const w = g.input('w', 'float32', [10], undefined, [-1]);
      g.output(g.op('Bincount', [x, size, w], { T: A.type('float32') }));
    },
  },
  {
    name: 'Bincount_int32_counts',
    build(g) {
      const x = g.input('x', 'int32', [10], { values: [0, 3, 1, 3, 7, 4, 0, 3, 5, 2] });
      const size = g.const('size', 'int32', [], [6]);
      const w = g.const('w', 'int32', [0], []);
      g.output(g.op('Bincount', [x, size, w], { T: A.type('int32') }));
    },
  },
  {
    name: 'DenseBincount_float32_rank2',
    build(g) {
      const x = g.input('x', 'int32', [2, 5], { values: [0, 3, 1, 3, 7, 4, 0, 3, 5, 2] });
      const size = g.const('size', 'int32', [], [6]);
      const w = g.input('w', 'float32', [2, 5]);
      g.output(g.op('DenseBincount', [x, size, w], { T: A.type('float32'), Tidx: A.type('int32'),
                                                     binary_output: A.b(false) }));
    },
  },
  {
    name: 'DenseBincount_int32_binary_output',
    build(g) {
      const x = g.input('x', 'int32', [2, 5], { values: [0, 3, 1, 3, 7, 4, 0, 4, 5, 2] });
      const size = g.const('size', 'int32', [], [5]);
      const w = g.const('w', 'int32', [0], []);
      g.output(g.op('DenseBincount', [x, size, w], { T: A.type('int32'), Tidx: A.type('int32'),
                                                     binary_output: A.b(true) }));
    },
  },
  {
    name: 'DenseBincount_float32_rank1_counts',
    build(g) {
      const x = g.input('x', 'int32', [8], { int: [0, 6] });
      const size = g.const('size', 'int32', [], [4]);
      const w = g.const('w', 'float32', [0], []);
      g.output(g.op('DenseBincount', [x, size, w], { T: A.type('float32'), Tidx: A.type('int32'),
                                                     binary_output: A.b(false) }));
    },
  },
];
