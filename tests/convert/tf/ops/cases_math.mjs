// Elementwise arithmetic, activations, casts (TF.js op lists arithmetic.js and basic_math.js, plus Cast, Identity,
// LogSoftmax). Where TF.js departs from TensorFlow the cases stay where both agree (see the notes at Div and Mod).
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const shapeName = (s) => s.join('x') || 'scalar';

// opts: dims [a, b] (declared Placeholder dims, -1 unknown), suffix for the name, outDtype (the reference's type).
function binary(op, dtype = 'float32', shapes = [[2, 3], [2, 3]], fills = [undefined, undefined], opts = {}) {
  return {
    name: `${op}_${dtype}_${shapes.map(shapeName).join('_')}${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const dims = opts.dims || [undefined, undefined];
      const a = g.input('a', dtype, shapes[0], fills[0], dims[0]);
      const b = g.input('b', dtype, shapes[1], fills[1], dims[1]);
      g.output(g.op(op, [a, b], { T: A.type(dtype) }), opts.outDtype ? { dtype: opts.outDtype } : {});
    },
  };
}

// opts: dtype, attr, shape, dims, suffix.
function unary(op, fill = undefined, opts = {}) {
  const dtype = opts.dtype || 'float32';
  return {
    name: `${op}_${dtype}${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const x = g.input('x', dtype, opts.shape || [3, 4], fill, opts.dims);
      g.output(g.op(op, [x], { T: A.type(dtype), ...(opts.attr || {}) }));
    },
  };
}

function cast(from, to, fill) {
  return {
    name: `Cast_${from}_${to}`,
    build(g) {
      const x = g.input('x', from, [2, 4], fill);
      // TF.js has no int64: it computes int64 as int32; the reference keeps the declared type.
      g.output(g.op('Cast', [x], { SrcT: A.type(from), DstT: A.type(to), Truncate: A.b(false) }),
               to === 'int64' ? { dtype: 'int64' } : {});
    },
  };
}

const divisors = { values: [2, -3, 4, -1, 5, 7] };
const positive = { int: [1, 9] };
const special = { values: [NaN, Infinity, -Infinity, 0, -0, 1.5, -2, 3e38, -1e-30, NaN, 7, -Infinity] };

export const cases = [
  // ---- arithmetic
  binary('AddV2'),
  binary('AddV2', 'float32', [[2, 1, 3], [4, 1]]),
  binary('AddV2', 'int32'),
  binary('AddV2', 'float32', [[2, 3], [3]], undefined, { dims: [[-1, 3], [-1]], suffix: 'unknown_dims' }),
  binary('Add', 'float32', [[2, 3], []]),
  binary('Add', 'int32', [[3, 1], [1, 4]]),
  binary('Sub', 'float32', [[3], []]),
  binary('Sub', 'int32', [[2, 3], [3]]),
  binary('Mul', 'float32', [[2, 3], [3]]),
  binary('Mul', 'int32', [[2, 1], [2, 3]]),
  binary('RealDiv', 'float32', [[2, 3], [2, 3]], [undefined, { uniform: [0.5, 2] }]),
  binary('RealDiv', 'float32', [[2, 3], [1]], [undefined, { values: [-0.25] }]),
  binary('Div', 'float32', [[2, 3], [2, 3]], [undefined, { uniform: [-2, -0.5] }]),
  // TF truncates integer Div toward zero and TF.js floors it: they agree on nonnegative quotients only.
  binary('Div', 'int32', [[2, 3], [2, 3]], [{ int: [0, 20] }, positive], { suffix: 'nonnegative' }),
  binary('DivNoNan', 'float32', [[2, 3], [2, 3]], [undefined, { values: [0, 2, -0.5, 0, 1.5, 0] }]),
  binary('DivNoNan', 'float32', [[2, 3], [3]], [undefined, { values: [0, 4, -1] }]),
  binary('FloorDiv', 'int32', [[2, 3], [2, 3]], [{ int: [-9, 9] }, divisors]),
  binary('FloorDiv', 'int32', [[2, 3], []], [{ int: [-9, 9] }, { values: [-4] }]),
  // TF.js returns FloorDiv of floats as int32 (TF: float32); the floored values are small integers, the same in both.
  binary('FloorDiv', 'float32', [[2, 3], [2, 3]], [{ uniform: [-5, 5] }, { values: [0.7, -1.3, 2, -0.4, 1, 3] }],
         { outDtype: 'float32' }),
  binary('FloorMod', 'int32', [[2, 3], [2, 3]], [{ int: [-9, 9] }, divisors]),
  binary('FloorMod', 'int32', [[2, 3], [3]], [{ int: [-9, 9] }, { values: [3, -2, 5] }]),
  binary('FloorMod', 'float32', [[2, 3], [2, 3]], [undefined, { values: [0.7, -1.3, 2, -0.4, 1, 3] }]),
  binary('FloorMod', 'float32', [[2, 4], [2, 4]], [{ values: [-6, 6, -4.5, 4.5, 0, -0, 3, -3] }, { values: [3, -3, 1.5, 1.5, 2, 2, -1, 1] }],
         { suffix: 'exact_multiples' }),
  // TF's Mod is the truncating remainder (the dividend's sign), TF.js's the flooring one: they agree when both
  // operands are positive.
  binary('Mod', 'int32', [[2, 3], [2, 3]], [{ int: [0, 20] }, positive]),
  binary('Mod', 'float32', [[2, 3], [2, 3]], [{ uniform: [0, 6] }, { uniform: [0.5, 2] }]),
  binary('Maximum'),
  binary('Maximum', 'int32', [[2, 3], [3]]),
  binary('Maximum', 'float32', [[2, 3], [2, 3]], [{ values: [NaN, 1, NaN, -2, 0, 3] }, { values: [1, NaN, NaN, -3, -0, 3] }],
         { suffix: 'nan' }),
  binary('Minimum', 'float32', [[2, 3], [2, 3]], [{ values: [NaN, 1, NaN, -2, 0, 3] }, { values: [1, NaN, NaN, -3, -0, 3] }],
         { suffix: 'nan' }),
  binary('Minimum'),
  binary('Minimum', 'int32', [[2, 1], [2, 3]]),
  binary('SquaredDifference'),
  binary('SquaredDifference', 'int32', [[2, 3], [3]]),
  binary('Pow', 'float32', [[2, 3], [2, 3]], [{ uniform: [0.5, 2] }, undefined]),
  binary('Pow', 'float32', [[2, 3], []], [undefined, { values: [2] }], { suffix: 'square' }),
  binary('Pow', 'int32', [[2, 3], [2, 3]], [{ int: [-4, 4] }, { int: [0, 4] }]),
  {
    name: 'AddN_3',
    build(g) {
      const xs = [0, 1, 2].map((k) => g.input(`x${k}`, 'float32', [2, 2]));
      g.output(g.op('AddN', xs, { ...f32, N: A.i(3) }));
    },
  },
  {
    name: 'AddN_int32_4',
    build(g) {
      const xs = [0, 1, 2, 3].map((k) => g.input(`x${k}`, 'int32', [3]));
      g.output(g.op('AddN', xs, { T: A.type('int32'), N: A.i(4) }));
    },
  },
  // ---- basic math, float32
  unary('Abs'),
  unary('Acos', { uniform: [-0.99, 0.99] }),
  unary('Acosh', { uniform: [1, 5] }),
  unary('Asin', { uniform: [-0.99, 0.99] }),
  unary('Asinh', { uniform: [-5, 5] }),
  unary('Atan', { uniform: [-5, 5] }),
  unary('Atanh', { uniform: [-0.95, 0.95] }),
  unary('Ceil'),
  unary('Cos', { uniform: [-4, 4] }),
  unary('Cosh'),
  unary('Elu'),
  unary('Erf'),
  unary('Exp'),
  unary('Expm1'),
  unary('Expm1', { values: [1e-7, -3e-6, 2e-5, 0, -0.5, 1e-3, -1e-3, 5, -20, 30, 80, -1e-10] }, { suffix: 'small_and_large' }),
  unary('Floor'),
  unary('Log', { uniform: [0.1, 4] }),
  unary('Log1p', { uniform: [-0.9, 4] }),
  unary('Log1p', { values: [1e-7, -3e-6, 2e-5, 0, -0.5, 1e-3, -1e-3, 5, 1e6, 3e38, -1e-10, -1] }, { suffix: 'small_and_large' }),
  unary('Neg'),
  unary('Reciprocal', { uniform: [0.5, 2] }),
  unary('Relu'),
  unary('Relu', undefined, { shape: [2, 3], dims: [-1, 3], suffix: 'unknown_dims' }),
  unary('Relu6', { uniform: [-3, 9] }),
  unary('Round', { values: [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51, 3.7, -3.2, 1e6 + 0.5, 0] }),
  unary('Rsqrt', { uniform: [0.25, 4] }),
  unary('Selu'),
  unary('Sigmoid', { uniform: [-8, 8] }),
  unary('Sign', { values: [-2, 0, 3.5, -0.1, 1e-30, -1e-30] }),
  unary('Sin', { uniform: [-4, 4] }),
  unary('Sinh'),
  unary('Softplus', { uniform: [-5, 5] }),
  unary('Softplus', { values: [-100, -30, 0, 30, 100, 15] }, { shape: [6], suffix: 'large' }),
  unary('Sqrt', { uniform: [0, 4] }),
  unary('Square'),
  unary('Tan', { uniform: [-1.2, 1.2] }),
  unary('Tanh'),
  unary('LeakyRelu', undefined, { attr: { alpha: A.f(0.1) } }),
  unary('LeakyRelu', undefined, { suffix: 'default_alpha' }),
  unary('IsNan', special),
  unary('IsInf', special),
  unary('IsFinite', special),
  // ---- basic math, int32 (the integer forms TF defines)
  unary('Abs', undefined, { dtype: 'int32' }),
  unary('Neg', undefined, { dtype: 'int32' }),
  unary('Sign', undefined, { dtype: 'int32' }),
  unary('Square', undefined, { dtype: 'int32' }),
  unary('Relu', undefined, { dtype: 'int32' }),
  {
    name: 'Atan2_float32',
    build(g) {
      const y = g.input('y', 'float32', [12], { values: [1, 1, -1, -1, 0, 0, 0, 2, -2, 3, 0.5, -0.25] });
      const x = g.input('x', 'float32', [12], { values: [1, -1, 1, -1, 1, -1, 0, 0, 0, -0.5, 4, -4] });
      g.output(g.op('Atan2', [y, x], f32));
    },
  },
  {
    name: 'Atan2_float32_broadcast',
    build(g) {
      const y = g.input('y', 'float32', [3, 1]);
      const x = g.input('x', 'float32', [4]);
      g.output(g.op('Atan2', [y, x], f32));
    },
  },
  {
    name: 'ClipByValue_float32',
    build(g) {
      const x = g.input('x', 'float32', [3, 4], { uniform: [-4, 4] });
      const lo = g.const('lo', 'float32', [], [-1.5]);
      const hi = g.const('hi', 'float32', [], [2]);
      g.output(g.op('ClipByValue', [x, lo, hi], f32));
    },
  },
  {
    name: 'ClipByValue_int32',
    build(g) {
      const x = g.input('x', 'int32', [3, 4], { int: [-9, 9] });
      const lo = g.const('lo', 'int32', [], [-3]);
      const hi = g.const('hi', 'int32', [], [5]);
      g.output(g.op('ClipByValue', [x, lo, hi], { T: A.type('int32') }));
    },
  },
  {
    name: 'Prelu_float32',
    build(g) {
      const x = g.input('x', 'float32', [2, 3, 4]);
      const alpha = g.const('alpha', 'float32', [4], [0.1, -0.2, 0.5, 2]);
      g.output(g.op('Prelu', [x, alpha], f32));
    },
  },
  {
    name: 'LogSoftmax_float32',
    build(g) {
      const x = g.input('x', 'float32', [3, 5], { uniform: [-6, 6] });
      g.output(g.op('LogSoftmax', [x], f32));
    },
  },
  {
    name: 'Identity_float32',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      g.output(g.op('Identity', [g.op('Neg', [x], f32)], f32));
    },
  },
  {
    // An Identity between a Const and the op that needs its value (a reduction axis): still a constant.
    name: 'Identity_const_axis',
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const axis = g.op('Identity', [g.const('axis', 'int32', [1], [1])], { T: A.type('int32') });
      g.output(g.op('Max', [x, axis], { ...f32, Tidx: A.type('int32'), keep_dims: A.b(false) }));
    },
  },
  cast('float32', 'int32', { values: [-2.7, -0.5, 0, 0.5, 1.9, 3.2, -7.99, 100.5] }),
  cast('float32', 'bool', { values: [-2.7, 0, -0, 0.5, 1e-30, 3.2, 0, 1] }),
  cast('float32', 'int64', { values: [-2.7, -0.5, 0, 0.5, 1.9, 3.2, -7.99, 100.5] }),
  cast('int32', 'float32', { int: [-100, 100] }),
  cast('int32', 'bool', { int: [-2, 2] }),
  cast('int32', 'int64', { int: [-100, 100] }),
  cast('bool', 'float32'),
  cast('bool', 'int32'),
  cast('bool', 'int64'),
  cast('int64', 'float32', { int: [-1000, 1000] }),
  cast('int64', 'int32', { int: [-1000, 1000] }),
  cast('int64', 'bool', { int: [-2, 2] }),
];
