// Comparisons, logical ops, Select/SelectV2 and BitwiseAnd (TF.js op list logical.js).
import { A } from './lib.mjs';

const shapeName = (s) => s.join('x') || 'scalar';
// Small integers (also as floats) so that comparisons meet ties.
const smallInts = { int: [-2, 2] };
const smallFloats = { values: [-1, 0.5, 2, 0.5, -1, 3, 0, 2, 1.5, -1, 0, 3] };

function compare(op, dtype, shapes, fills = [undefined, undefined], dims = [undefined, undefined]) {
  return {
    name: `${op}_${dtype}_${shapes.map(shapeName).join('_')}`,
    build(g) {
      const a = g.input('a', dtype, shapes[0], fills[0], dims[0]);
      const b = g.input('b', dtype, shapes[1], fills[1], dims[1]);
      const attr = dtype === 'bool' ? {} : { T: A.type(dtype) };
      g.output(g.op(op, [a, b], attr));
    },
  };
}

function select(op, shapes, dtype = 'float32', dims = [undefined, undefined, undefined], suffix = '') {
  return {
    name: `${op}_${dtype}_${shapes.map(shapeName).join('_')}${suffix}`,
    build(g) {
      const c = g.input('cond', 'bool', shapes[0], undefined, dims[0]);
      const t = g.input('t', dtype, shapes[1], undefined, dims[1]);
      const e = g.input('e', dtype, shapes[2], undefined, dims[2]);
      g.output(g.op(op, [c, t, e], { T: A.type(dtype) }));
    },
  };
}

export const cases = [
  compare('Equal', 'float32', [[3, 4], [3, 4]], [smallFloats, { values: [0.5, -1, 2, 0, 3] }]),
  compare('Equal', 'int32', [[3, 4], [4]], [smallInts, smallInts]),
  compare('Equal', 'bool', [[2, 3], [2, 3]]),
  compare('NotEqual', 'float32', [[3, 4], []], [smallFloats, { values: [0.5] }]),
  compare('NotEqual', 'int32', [[3, 1], [1, 4]], [smallInts, smallInts]),
  compare('NotEqual', 'bool', [[2, 3], [3]]),
  compare('Greater', 'float32', [[3, 4], [3, 4]], [smallFloats, { values: [0.5, -1, 2, 0, 3] }]),
  compare('Greater', 'int32', [[2, 3], [3]], [smallInts, smallInts], [[-1, 3], [3]]),
  compare('GreaterEqual', 'float32', [[3, 4], [4]], [smallFloats, { values: [0.5, -1, 2, 0] }]),
  compare('GreaterEqual', 'int32', [[3, 4], [3, 4]], [smallInts, smallInts]),
  compare('Less', 'float32', [[3, 4], [3, 1]], [smallFloats, { values: [0.5, -1, 2] }]),
  compare('Less', 'int32', [[3, 4], []], [smallInts, { values: [0] }]),
  compare('LessEqual', 'float32', [[3, 4], [3, 4]], [smallFloats, { values: [0.5, -1, 2, 0, 3] }]),
  compare('LessEqual', 'int32', [[2, 1, 3], [4, 1]], [smallInts, smallInts]),
  compare('LogicalAnd', 'bool', [[3, 4], [3, 4]]),
  compare('LogicalAnd', 'bool', [[3, 4], [4]]),
  compare('LogicalOr', 'bool', [[3, 4], [3, 4]]),
  compare('LogicalOr', 'bool', [[3, 1], [1, 4]], undefined, [[-1, 1], [1, -1]]),
  {
    name: 'LogicalNot_bool',
    build(g) {
      const x = g.input('x', 'bool', [3, 4]);
      g.output(g.op('LogicalNot', [x]));
    },
  },
  // TF1 Select: a condition of the values' shape, or a scalar. (A vector condition picking rows of a matrix is TF's
  // third form; TF.js broadcasts it like SelectV2 instead, so it has no reference here.)
  select('Select', [[3, 4], [3, 4], [3, 4]]),
  select('Select', [[3, 4], [3, 4], [3, 4]], 'int32', [[-1, 4], [-1, 4], [-1, 4]]),
  select('Select', [[3, 4], [3, 4], [3, 4]], 'float32', [null, null, null], '_unknown_rank'),
  select('Select', [[], [2, 3], [2, 3]]),
  select('Select', [[4], [4], [4]], 'int32'),
  select('SelectV2', [[3, 4], [3, 4], [3, 4]]),
  select('SelectV2', [[3, 1], [4], [3, 4]]),
  select('SelectV2', [[3, 1], [4], [3, 4]], 'float32', [[-1, 1], [-1], null], '_unknown_dims'),
  select('SelectV2', [[2, 1, 3], [4, 1], []], 'int32'),
  select('SelectV2', [[], [2, 3], [2, 3]], 'bool'),
  // BitwiseAnd has no case: TF.js 4.22 lists its inputs as x, y but its executor reads a, b, so every BitwiseAnd
  // node fails there ("Argument 'x' passed to 'bitwiseAnd' must be a Tensor... got 'null'").
];
