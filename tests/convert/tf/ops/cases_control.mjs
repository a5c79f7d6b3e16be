// Control flow cases: TF2 functions (StatelessIf/If -> ONNX If, StatelessWhile/While -> ONNX Loop, PartitionedCall
// inlined), checked against TF.js (which runs the functions itself; for calls, the inlined graph is the reference).
import { A } from './lib.mjs';

const F = A.type('float32');
const I = A.type('int32');

// then: (x * 2, x + y); else: (x - y, -y).
function ifBranches(g, prefix) {
  const then = g.func(`${prefix}_then`, [['x', 'float32'], ['y', 'float32']], [['a', 'float32'], ['b', 'float32']], (f) => {
    const two = f.const('two', 'float32', [], [2]);
    return [f.op('Mul', ['x', two], { T: F }), f.op('AddV2', ['x', 'y'], { T: F })];
  });
  const other = g.func(`${prefix}_else`, [['x', 'float32'], ['y', 'float32']], [['a', 'float32'], ['b', 'float32']], (f) => [
    f.op('Sub', ['x', 'y'], { T: F }),
    f.op('Neg', ['y'], { T: F }),
  ]);
  return { then_branch: A.func(then), else_branch: A.func(other) };
}

function ifCase(name, op, condFill, dims) {
  return {
    name,
    build(g) {
      const c = g.input('c', 'bool', [], condFill);
      const x = g.input('x', 'float32', [2, 3], undefined, dims);
      const y = g.input('y', 'float32', [2, 3], undefined, dims);
      const r = g.op(op, [c, x, y], { Tcond: A.type('bool'), Tin: A.types(['float32', 'float32']),
                                     Tout: A.types(['float32', 'float32']), ...ifBranches(g, name) });
      g.output(r);
      g.output(`${r}:1`);
    },
  };
}

// A counting loop: i from 0 while i < n: acc = acc * 0.5 + x (x and n are loop variables the body returns
// unchanged, as TF2 passes captured tensors).
function whileCase(name, op, n, dims) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [2, 3], undefined, dims);
      const limit = g.input('n', 'int32', [], { values: [n] });
      const i0 = g.const('i0', 'int32', [], [0]);
      const acc0 = g.const('acc0', 'float32', [2, 3], [1]);
      const types = A.types(['int32', 'float32', 'float32', 'int32']);
      const args = [['i', 'int32'], ['acc', 'float32'], ['x', 'float32'], ['n', 'int32']];
      const cond = g.func(`${name}_cond`, args, [['keep_going', 'bool']], (f) => [f.op('Less', ['i', 'n'], { T: I })]);
      const body = g.func(`${name}_body`, args, args, (f) => {
        const one = f.const('one', 'int32', [], [1]);
        const half = f.const('half', 'float32', [], [0.5]);
        const next = f.op('AddV2', ['i', one], { T: I });
        const acc = f.op('AddV2', [f.op('Mul', ['acc', half], { T: F }), 'x'], { T: F });
        return [next, acc, f.op('Identity', ['x'], { T: F }), f.op('Identity', ['n'], { T: I })];
      });
      const w = g.op(op, [i0, acc0, x, limit], { T: types, cond: A.func(cond), body: A.func(body),
                                                 parallel_iterations: A.i(10) });
      g.output(`${w}:1`);
      g.output(w, { dtype: 'int32' });
    },
  };
}

// f(x, y) = (relu(x) * y + 1, x - y): called through the call op; the reference is the same graph inlined.
function callCase(name, op) {
  const inlined = (g, x, y) => {
    const one = g.const('one', 'float32', [], [1]);
    const r = g.op('AddV2', [g.op('Mul', [g.op('Relu', [x], { T: F }), y], { T: F }), one], { T: F });
    return [r, g.op('Sub', [x, y], { T: F })];
  };
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const y = g.input('y', 'float32', [2, 3]);
      const fn = g.func(`${name}_f`, [['x', 'float32'], ['y', 'float32']], [['r', 'float32'], ['d', 'float32']], (f) => {
        const one = f.const('one', 'float32', [], [1]);
        const relu = f.op('Relu', ['x'], { T: F });
        return [f.op('AddV2', [f.op('Mul', [relu, 'y'], { T: F }), one], { T: F }), f.op('Sub', ['x', 'y'], { T: F })];
      });
      const call = g.op(op, [x, y], { Tin: A.types(['float32', 'float32']), Tout: A.types(['float32', 'float32']),
                                      f: A.func(fn) });
      g.output(call);
      g.output(`${call}:1`);
    },
    reference(g) {
      const x = g.input('x', 'float32', [2, 3]);
      const y = g.input('y', 'float32', [2, 3]);
      const [r, d] = inlined(g, x, y);
      g.output(r);
      g.output(d);
    },
  };
}

// Not in `cases` yet: TF.js 4.22 (cpu) fails on these graphs ("Cannot read properties of undefined (reading
// 'backend')" from a disposed tensor inside StatelessWhile with a TensorListReserve loop variable), so there is no
// reference. onyx converts them (tensor_lists.cc); add them back when a reference runtime runs them:
//   mapCase('TensorListSetItem_map_fn', undefined, true), mapCase('TensorListSetItem_gather_loop', undefined, true, false)
// tf.map_fn as TF2 writes it: a While over i < n reading element i of a TensorList made from x and writing f(x[i])
// into a reserved TensorList, stacked after the loop. The input list and n pass through the body unchanged.
function mapCase(name, dims, withLength, fromTensor = true) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [3, 2], undefined, dims);
      const shape = g.const('element_shape', 'int32', [1], [2]);
      const n = g.const('n', 'int32', [], [3]);
      const fl = { element_dtype: F, shape_type: I };
      const reserved = g.op('TensorListReserve', [shape, n], fl);
      const xs = fromTensor ? g.op('TensorListFromTensor', [x, shape], fl) : x;
      const i0 = g.const('i0', 'int32', [], [0]);
      const args = [['i', 'int32'], ['acc', 'variant'], ['xs', fromTensor ? 'variant' : 'float32'], ['n', 'int32']];
      const cond = g.func(`${name}_cond`, args, [['c', 'bool']], (f) => [f.op('Less', ['i', 'n'], { T: I })]);
      const body = g.func(`${name}_body`, args, args, (f) => {
        const e = fromTensor ? f.op('TensorListGetItem', ['xs', 'i', f.const('es', 'int32', [1], [2])], { element_dtype: F })
                             : f.op('GatherV2', ['xs', 'i', f.const('axis', 'int32', [], [0])], { Tparams: F, Tindices: I, Taxis: I });
        const y = f.op('AddV2', [f.op('Mul', [e, e], { T: F }), f.const('one', 'float32', [], [1])], { T: F });
        const set = f.op('TensorListSetItem', ['acc', 'i', y], { element_dtype: F });
        return [f.op('AddV2', ['i', f.const('step', 'int32', [], [1])], { T: I }), set,
                f.op('Identity', ['xs'], { T: A.type(fromTensor ? 'variant' : 'float32') }), f.op('Identity', ['n'], { T: I })];
      });
      const w = g.op('StatelessWhile', [i0, reserved, xs, n], {
        T: A.types(['int32', 'variant', fromTensor ? 'variant' : 'float32', 'int32']), cond: A.func(cond), body: A.func(body) });
      g.output(g.op('TensorListStack', [`${w}:1`, shape], { element_dtype: F, num_elements: A.i(-1) }));
      if (withLength) g.output(g.op('TensorListLength', [`${w}:1`]));
    },
  };
}

// eslint-disable-next-line no-unused-vars
export const unrunnable = [mapCase];

export const cases = [
  ifCase('StatelessIf_true', 'StatelessIf', { values: [true] }),
  ifCase('StatelessIf_false', 'StatelessIf', { values: [false] }),
  ifCase('StatelessIf_unknown_dims', 'StatelessIf', { values: [true] }, [-1, -1]),
  ifCase('If_false', 'If', { values: [false] }),
  // The condition computed from the data, an int32 branch result, and a constant condition (the branch inlined).
  {
    name: 'StatelessIf_computed_cond_int32',
    build(g) {
      const x = g.input('x', 'int32', [4]);
      const axis = g.const('axis', 'int32', [1], [0]);
      const zero = g.const('zero', 'int32', [], [0]);
      const c = g.op('Greater', [g.op('Sum', [x, axis], { T: I, Tidx: I, keep_dims: A.b(false) }), zero], { T: I });
      const then = g.func('cc_then', [['x', 'int32']], [['y', 'int32']], (f) => [f.op('Square', ['x'], { T: I })]);
      const other = g.func('cc_else', [['x', 'int32']], [['y', 'int32']], (f) => [f.op('Neg', ['x'], { T: I })]);
      const r = g.op('StatelessIf', [c, x], { Tcond: A.type('bool'), Tin: A.types(['int32']), Tout: A.types(['int32']),
                                             then_branch: A.func(then), else_branch: A.func(other) });
      g.output(r);
    },
  },
  {
    name: 'StatelessIf_const_cond',
    build(g) {
      const x = g.input('x', 'float32', [3]);
      const c = g.const('c', 'bool', [], [false]);
      const then = g.func('kc_then', [['x', 'float32']], [['y', 'float32']], (f) => [f.op('Exp', ['x'], { T: F })]);
      const other = g.func('kc_else', [['x', 'float32']], [['y', 'float32']], (f) => [f.op('Abs', ['x'], { T: F })]);
      const r = g.op('StatelessIf', [c, x], { Tcond: A.type('bool'), Tin: A.types(['float32']),
                                             Tout: A.types(['float32']), then_branch: A.func(then),
                                             else_branch: A.func(other) });
      g.output(r);
    },
  },
  whileCase('StatelessWhile_count3', 'StatelessWhile', 3),
  whileCase('StatelessWhile_zero_iterations', 'StatelessWhile', 0),
  whileCase('StatelessWhile_unknown_dims', 'StatelessWhile', 4, [-1, 3]),
  whileCase('While_count5', 'While', 5),
  // A loop whose carried value changes shape (a row appended each iteration).
  {
    name: 'StatelessWhile_growing',
    build(g) {
      const x = g.input('x', 'float32', [1, 2]);
      const i0 = g.const('i0', 'int32', [], [0]);
      const args = [['i', 'int32'], ['acc', 'float32']];
      const cond = g.func('grow_cond', args, [['c', 'bool']], (f) => {
        const three = f.const('three', 'int32', [], [3]);
        return [f.op('Less', ['i', three], { T: I })];
      });
      const body = g.func('grow_body', args, args, (f) => {
        const one = f.const('one', 'int32', [], [1]);
        const axis = f.const('axis', 'int32', [], [0]);
        const row = f.op('Slice', ['acc', f.const('b', 'int32', [2], [0, 0]), f.const('s', 'int32', [2], [1, -1])],
                         { T: F, Index: I });
        const doubled = f.op('Mul', [row, f.const('two', 'float32', [], [2])], { T: F });
        return [f.op('AddV2', ['i', one], { T: I }), f.op('ConcatV2', ['acc', doubled, axis], { T: F, N: A.i(2), Tidx: I })];
      });
      const w = g.op('StatelessWhile', [i0, x], { T: A.types(['int32', 'float32']), cond: A.func(cond),
                                                 body: A.func(body), output_shapes: { list: { shape: [{}, { unknownRank: true }] } } });
      g.output(`${w}:1`);
    },
  },
  callCase('PartitionedCall_two_results', 'PartitionedCall'),
  callCase('StatefulPartitionedCall_two_results', 'StatefulPartitionedCall'),
  // Nested functions: a While whose body calls an If (its branches functions too).
  {
    name: 'StatelessWhile_nested_if',
    build(g) {
      const x = g.input('x', 'float32', [3]);
      const i0 = g.const('i0', 'int32', [], [0]);
      const args = [['i', 'int32'], ['v', 'float32']];
      const even = g.func('nest_even', [['v', 'float32']], [['r', 'float32']], (f) => [
        f.op('AddV2', ['v', f.const('one', 'float32', [], [1])], { T: F })]);
      const odd = g.func('nest_odd', [['v', 'float32']], [['r', 'float32']], (f) => [
        f.op('Mul', ['v', f.const('three', 'float32', [], [3])], { T: F })]);
      const cond = g.func('nest_cond', args, [['c', 'bool']], (f) => [
        f.op('Less', ['i', f.const('four', 'int32', [], [4])], { T: I })]);
      const body = g.func('nest_body', args, args, (f) => {
        const isEven = f.op('Equal', [f.op('FloorMod', ['i', f.const('two', 'int32', [], [2])], { T: I }),
                                      f.const('zero', 'int32', [], [0])], { T: I });
        const r = f.op('StatelessIf', [isEven, 'v'], { Tcond: A.type('bool'), Tin: A.types(['float32']),
                                                      Tout: A.types(['float32']), then_branch: A.func(even),
                                                      else_branch: A.func(odd) });
        return [f.op('AddV2', ['i', f.const('step', 'int32', [], [1])], { T: I }), r];
      });
      const w = g.op('StatelessWhile', [i0, x], { T: A.types(['int32', 'float32']), cond: A.func(cond),
                                                 body: A.func(body) });
      g.output(`${w}:1`);
    },
  },
];
