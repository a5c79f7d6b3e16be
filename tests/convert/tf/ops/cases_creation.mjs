// Tensor creation and graph-level operators (ops_creation.cc).
import { A } from './lib.mjs';

const T = (dtype) => ({ T: A.type(dtype) });

function rangeCase(name, dtype, start, limit, delta) {
  return {
    name,
    build(g) {
      const s = g.const('start', dtype, [], [start]);
      const l = g.input('limit', dtype, [], { values: [limit] });
      const d = g.const('delta', dtype, [], [delta]);
      g.output(g.op('Range', [s, l, d], { Tidx: A.type(dtype) }));
    },
  };
}

function linspace(name, start, stop, num) {
  return {
    name,
    build(g) {
      const a = g.input('start', 'float32', [], { values: [start] });
      const b = g.const('stop', 'float32', [], [stop]);
      const n = g.const('num', 'int32', [], [num]);
      g.output(g.op('LinSpace', [a, b, n], { ...T('float32'), Tidx: A.type('int32') }));
    },
  };
}

// FakeQuantWithMinMaxVars' reference: TF.js runs this op as an identity, so the fed values are points of TF's
// quantization grid inside the nudged range, where TF's result equals its input. A wrong scale or nudge moves them.
function fakeQuantGrid(name, min, max, numBits, narrow) {
  const qmin = narrow ? 1 : 0;
  const qmax = 2 ** numBits - 1;
  const scale = (max - min) / (qmax - qmin);
  const zeroFromMin = qmin - min / scale;
  const zero = zeroFromMin < qmin ? qmin : zeroFromMin > qmax ? qmax : Math.round(zeroFromMin);
  const levels = [qmin, qmin + 1, zero - 1, zero, zero + 3, qmax - 2, qmax];
  const values = levels.map((q) => (q - zero) * scale);
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [values.length], { values });
      const lo = g.const('min', 'float32', [], [min]);
      const hi = g.const('max', 'float32', [], [max]);
      g.output(g.op('FakeQuantWithMinMaxVars', [x, lo, hi], { num_bits: A.i(numBits), narrow_range: A.b(narrow) }));
    },
  };
}

export const cases = [
  {
    name: 'Fill_const_dims',
    build(g) {
      const v = g.input('v', 'float32', []);
      g.output(g.op('Fill', [g.const('dims', 'int32', [2], [2, 3]), v], { ...T('float32'), index_type: A.type('int32') }));
    },
  },
  {
    name: 'Fill_computed_dims_int32',
    build(g) {
      const x = g.input('x', 'float32', [3, 2], undefined, [-1, 2]);
      const dims = g.op('Shape', [x], { ...T('float32'), out_type: A.type('int32') });
      g.output(g.op('Fill', [dims, g.const('v', 'int32', [], [7])], { ...T('int32'), index_type: A.type('int32') }));
    },
  },
  {
    name: 'Zeros_float32',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      g.output(g.op('AddV2', [x, g.op('Zeros', [g.const('shape', 'int32', [2], [2, 3])], T('float32'))], T('float32')));
    },
  },
  {
    name: 'Ones_int32',
    build(g) {
      const x = g.input('x', 'int32', [3, 2]);
      g.output(g.op('AddV2', [x, g.op('Ones', [g.const('shape', 'int32', [2], [3, 2])], T('int32'))], T('int32')));
    },
  },
  {
    name: 'ZerosLike_int32_unknown_dims',
    build(g) {
      const x = g.input('x', 'int32', [2, 3], undefined, [-1, -1]);
      g.output(g.op('ZerosLike', [x], T('int32')));
    },
  },
  {
    name: 'OnesLike_float32',
    build(g) {
      const x = g.input('x', 'float32', [4]);
      g.output(g.op('OnesLike', [x], T('float32')));
    },
  },
  {
    name: 'OnesLike_bool',
    build(g) {
      const x = g.input('x', 'bool', [2, 2]);
      g.output(g.op('OnesLike', [x], T('bool')));
    },
  },
  rangeCase('Range_int32', 'int32', 0, 10, 3),
  rangeCase('Range_int32_negative_delta', 'int32', 10, 2, -3),
  rangeCase('Range_float32_negative_delta', 'float32', 1, -2, -0.75),
  rangeCase('Range_float32_fractional', 'float32', 0.5, 3, 0.7),
  rangeCase('Range_int32_empty', 'int32', 5, 5, 1),
  linspace('LinSpace_5', 0, 1, 5),
  linspace('LinSpace_descending_7', 2, -1, 7),
  linspace('LinSpace_one', 3, 9, 1),
  {
    name: 'OneHot_float32_negative_and_out_of_range',
    build(g) {
      const idx = g.input('idx', 'int32', [6], { values: [0, 2, -1, 4, 1, 3] });
      g.output(g.op('OneHot', [idx, g.const('depth', 'int32', [], [4]), g.const('on', 'float32', [], [5]),
        g.const('off', 'float32', [], [-1])], { ...T('float32'), TI: A.type('int32'), axis: A.i(-1) }));
    },
  },
  {
    name: 'OneHot_int32_2d',
    build(g) {
      const idx = g.input('idx', 'int32', [2, 3], { int: [0, 2] });
      g.output(g.op('OneHot', [idx, g.const('depth', 'int32', [], [3]), g.const('on', 'int32', [], [1]),
        g.const('off', 'int32', [], [0])], { ...T('int32'), TI: A.type('int32'), axis: A.i(-1) }));
    },
  },

  // ---- graph-level
  {
    name: 'PlaceholderWithDefault_default',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const d = g.op('PlaceholderWithDefault', [g.const('default', 'float32', [3], [1, 2, 3])],
        { dtype: A.type('float32'), shape: A.shape([3]) });
      g.output(g.op('AddV2', [x, d], T('float32')));
    },
  },
  {
    name: 'IdentityN_two',
    build(g) {
      const a = g.input('a', 'float32', [2, 2]);
      const b = g.input('b', 'int32', [3]);
      const y = g.op('IdentityN', [a, b], { T: A.types(['float32', 'int32']) });
      g.output(`${y}:0`);
      g.output(`${y}:1`);
    },
  },
  ...['Snapshot', 'StopGradient'].map((op) => ({
    name: `${op}_float32`,
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      g.output(g.op('Neg', [g.op(op, [x], T('float32'))], T('float32')));
    },
  })),
  {
    name: 'Print_passes_input',
    build(g) {
      const x = g.input('x', 'float32', [3]);
      const y = g.op('Print', [x, x], { ...T('float32'), U: A.types(['float32']), message: A.s('x: '), summarize: A.i(3) });
      g.output(g.op('Neg', [y], T('float32')));
    },
  },
  {
    name: 'Rank_unknown_dims',
    build(g) {
      const x = g.input('x', 'float32', [2, 3, 1], undefined, [-1, -1, -1]);
      g.output(g.op('Rank', [x], T('float32')));
    },
  },
  {
    name: 'Size_int32',
    build(g) {
      const x = g.input('x', 'float32', [2, 3, 4], undefined, [-1, 3, 4]);
      g.output(g.op('Size', [x], { ...T('float32'), out_type: A.type('int32') }));
    },
  },
  {
    name: 'Shape_int32',
    build(g) {
      const x = g.input('x', 'float32', [2, 5], undefined, [-1, 5]);
      g.output(g.op('Shape', [x], { ...T('float32'), out_type: A.type('int32') }));
    },
  },
  {
    // TF.js computes every shape as int32; TF's out_type int64 only changes the element type.
    name: 'Shape_int64',
    build(g) {
      const x = g.input('x', 'int32', [3, 1, 2]);
      g.output(g.op('Shape', [x], { ...T('int32'), out_type: A.type('int64') }), { dtype: 'int64' });
    },
  },
  {
    // TF.js writes ShapeN's shapes as float32 whatever out_type says; the values are TF's.
    name: 'ShapeN_int32',
    build(g) {
      const a = g.input('a', 'float32', [2, 3]);
      const b = g.input('b', 'int32', [4], undefined, [-1]);
      const y = g.op('ShapeN', [a, b], { ...T('float32'), N: A.i(2), out_type: A.type('int32') });
      g.output(`${y}:0`, { dtype: 'int32' });
      g.output(`${y}:1`, { dtype: 'int32' });
    },
  },
  fakeQuantGrid('FakeQuantWithMinMaxVars_grid_nudged', -0.1, 1.0, 8, false),
  fakeQuantGrid('FakeQuantWithMinMaxVars_grid_narrow_4bit', -2.3, 1.7, 4, true),
  {
    // Draws cannot be compared; their floor (0 for every value in [0, 1)) and the shape can.
    name: 'RandomUniform_floor_is_zero',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const shape = g.op('Shape', [x], { ...T('float32'), out_type: A.type('int32') });
      const u = g.op('RandomUniform', [shape], { T: A.type('int32'), dtype: A.type('float32'), seed: A.i(0), seed2: A.i(0) });
      g.output(g.op('Floor', [u], T('float32')));
    },
  },

  {
    // TF.js computes int64 as int32; the values are TF's.
    name: 'Range_int64_tidx',
    build(g) {
      const s = g.const('start', 'int64', [], [-3]);
      const l = g.const('limit', 'int64', [], [8]);
      const d = g.const('delta', 'int64', [], [4]);
      g.output(g.op('Range', [s, l, d], { Tidx: A.type('int64') }), { dtype: 'int64' });
    },
  },
  {
    name: 'Size_int64_out_type',
    build(g) {
      const x = g.input('x', 'int32', [3, 2]);
      g.output(g.op('Size', [x], { ...T('int32'), out_type: A.type('int64') }), { dtype: 'int64' });
    },
  },
  {
    name: 'Fill_bool',
    build(g) {
      const v = g.input('v', 'bool', []);
      g.output(g.op('Fill', [g.const('dims', 'int32', [3], [2, 1, 2]), v], { ...T('bool'), index_type: A.type('int32') }));
    },
  },
  {
    name: 'LinSpace_computed_num',
    build(g) {
      const x = g.input('x', 'float32', [6, 2], undefined, [-1, 2]);
      const n = g.op('Size', [x], { ...T('float32'), out_type: A.type('int32') });
      g.output(g.op('LinSpace', [g.const('start', 'float32', [], [-1]), g.const('stop', 'float32', [], [2]), n],
        { ...T('float32'), Tidx: A.type('int32') }));
    },
  },

  {
    // Draws are checked by type, shape and 0/1 support (see RandomUniform_floor_is_zero): normal draws times zero.
    name: 'RandomStandardNormal_times_zero',
    build(g) {
      const x = g.input('x', 'float32', [3, 2], undefined, [-1, 2]);
      const shape = g.op('Shape', [x], { ...T('float32'), out_type: A.type('int32') });
      const n = g.op('RandomStandardNormal', [shape], { T: A.type('int32'), dtype: A.type('float32'), seed: A.i(7), seed2: A.i(1) });
      g.output(g.op('Mul', [n, g.const('zero', 'float32', [], [0])], T('float32')));
    },
  },
];
