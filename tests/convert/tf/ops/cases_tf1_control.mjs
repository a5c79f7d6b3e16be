// TF1 control flow cases: tf.cond as Switch/Merge (-> ONNX If), tf.while_loop as frames of Enter / Merge /
// Switch / LoopCond / NextIteration / Exit (-> ONNX Loop), TensorArrayV3 in loops (-> ONNX sequences), and
// tf.map_fn as TF.js's converter writes it. TF.js runs TF1 frames itself (executeAsync): it is the reference.
//
// The graphs are laid out as TensorFlow 1 writes them: a loop's constants carry a control input from its pivot
// (the first Merge for the condition, the first Identity for the body), a branch's from its switch_t/switch_f
// Identity; the branches switch their inputs on Identity(pred) (cond/pred_id); Merge takes (false, true).
import { A, DT } from './lib.mjs';

const F = A.type('float32');
const I = A.type('int32');
const T = (dtype) => A.type(dtype);

// A Const tied to `pivot` by a control input (it then lives in the pivot's frame or branch).
function pinnedConst(g, name, dtype, shape, values, pivot) {
  const c = g.const(name, dtype, shape, values);
  g.nodes.find((n) => n.name === c).input = [`^${pivot}`];
  return c;
}

// tf.while_loop in TF1 form. vars: [{init, dtype}]; invariants: [{value, dtype}] (Enter is_constant).
// cond(ctx) -> bool tensor and body(ctx) -> next values get ctx = {vars, inv, k(name, dtype, shape, values)}:
// vars are the Merge outputs (cond) or the Identity(Switch:1) outputs (body); k makes a constant of the loop.
// Returns the Exit tensors.
function tf1While(g, prefix, vars, invariants, cond, body, opts = {}) {
  const frame = `${prefix}/while_context`;
  const enterAttr = (dtype, isConstant) => ({ T: T(dtype), frame_name: A.s(frame), is_constant: A.b(isConstant),
                                              parallel_iterations: A.i(opts.parallel || 10) });
  const enters = vars.map((v, k) => g.op('Enter', [v.init], enterAttr(v.dtype, false), `${prefix}/Enter${k ? `_${k}` : ''}`));
  // Merge reads its NextIteration, named ahead (TF writes the back edge so too).
  const nextNames = vars.map((v, k) => `${prefix}/NextIteration${k ? `_${k}` : ''}`);
  const merges = vars.map((v, k) => g.op('Merge', [enters[k], nextNames[k]], { T: T(v.dtype), N: A.i(2) },
                                         `${prefix}/Merge${k ? `_${k}` : ''}`));
  const inv = invariants.map((v, k) => g.op('Enter', [v.value], enterAttr(v.dtype, true), `${prefix}/inv${k}/Enter`));
  const pred = cond({ vars: merges, inv, k: (n, dt, sh, vals) => pinnedConst(g, `${prefix}/${n}`, dt, sh, vals, merges[0]) });
  const loopCond = g.op('LoopCond', [pred], {}, `${prefix}/LoopCond`);
  const switches = vars.map((v, k) => g.op('Switch', [merges[k], loopCond], { T: T(v.dtype) },
                                           `${prefix}/Switch${k ? `_${k}` : ''}`));
  const ids = vars.map((v, k) => g.op('Identity', [`${switches[k]}:1`], { T: T(v.dtype) },
                                      `${prefix}/Identity${k ? `_${k}` : ''}`));
  const next = body({ vars: ids, inv, k: (n, dt, sh, vals) => pinnedConst(g, `${prefix}/${n}`, dt, sh, vals, ids[0]) });
  vars.forEach((v, k) => {
    g.used.add(nextNames[k]);
    g.nodes.push({ name: nextNames[k], op: 'NextIteration', input: [next[k]], attr: { T: T(v.dtype) } });
  });
  return vars.map((v, k) => g.op('Exit', [switches[k]], { T: T(v.dtype) }, `${prefix}/Exit${k ? `_${k}` : ''}`));
}

// tf.cond in TF1 form: inputs [{value, dtype}] switched on Identity(pred); then/else(ctx) -> results get
// ctx = {ins, k(...)}. Returns the Merge tensors.
function tf1Cond(g, prefix, pred, inputs, results, thenFn, elseFn) {
  const pivotSwitch = g.op('Switch', [pred, pred], { T: A.type('bool') }, `${prefix}/Switch`);
  const switchT = g.op('Identity', [`${pivotSwitch}:1`], { T: A.type('bool') }, `${prefix}/switch_t`);
  const switchF = g.op('Identity', [pivotSwitch], { T: A.type('bool') }, `${prefix}/switch_f`);
  const predId = g.op('Identity', [pred], { T: A.type('bool') }, `${prefix}/pred_id`);
  const switched = inputs.map((v, k) => g.op('Switch', [v.value, predId], { T: T(v.dtype) }, `${prefix}/Switch_${k + 1}`));
  const side = (port, pivot, fn, tag) => fn({
    ins: switched.map((s) => `${s}:${port}`),
    k: (n, dt, sh, vals) => pinnedConst(g, `${prefix}/${tag}/${n}`, dt, sh, vals, pivot),
  });
  const t = side(1, switchT, thenFn, 'then');
  const f = side(0, switchF, elseFn, 'else');
  return results.map((dtype, k) => g.op('Merge', [f[k], t[k]], { T: T(dtype), N: A.i(2) },
                                        `${prefix}/Merge${k ? `_${k}` : ''}`));
}

// ---- conditionals ------------------------------------------------------------------------------------------------

// then: (x * 2 + 1, x + y); else: (x - y, -y).
function condCase(name, predFill, dims) {
  return {
    name,
    build(g) {
      const p = g.input('p', 'bool', [], predFill);
      const x = g.input('x', 'float32', [2, 3], undefined, dims);
      const y = g.input('y', 'float32', [2, 3], undefined, dims);
      const [a, b] = tf1Cond(g, 'cond', p, [{ value: x, dtype: 'float32' }, { value: y, dtype: 'float32' }],
                             ['float32', 'float32'],
                             ({ ins: [xi, yi], k }) => [
                               g.op('AddV2', [g.op('Mul', [xi, k('two', 'float32', [], [2])], { T: F }),
                                              k('one', 'float32', [], [1])], { T: F }),
                               g.op('AddV2', [xi, yi], { T: F })],
                             ({ ins: [xi, yi] }) => [g.op('Sub', [xi, yi], { T: F }), g.op('Neg', [yi], { T: F })]);
      g.output(a);
      g.output(b);
    },
  };
}

export const cases = [
  condCase('Merge_cond_true', { values: [true] }),
  condCase('Merge_cond_false', { values: [false] }),
  condCase('Merge_cond_unknown_dims', { values: [true] }, [-1, -1]),
  // The predicate computed from int32 data; int32 branches.
  {
    name: 'Merge_cond_int32_computed_pred',
    build(g) {
      const x = g.input('x', 'int32', [4]);
      const axis = g.const('axis', 'int32', [1], [0]);
      const p = g.op('Greater', [g.op('Sum', [x, axis], { T: I, Tidx: I, keep_dims: A.b(false) }),
                                 g.const('zero', 'int32', [], [0])], { T: I });
      const [r] = tf1Cond(g, 'cond', p, [{ value: x, dtype: 'int32' }], ['int32'],
                          ({ ins: [xi] }) => [g.op('Square', [xi], { T: I })],
                          ({ ins: [xi], k }) => [g.op('Mul', [xi, k('m3', 'int32', [], [-3])], { T: I })]);
      g.output(r);
    },
  },
  // The branches give different shapes: [2, 3] and [3, 2].
  {
    name: 'Merge_cond_shapes_differ',
    build(g) {
      const p = g.input('p', 'bool', [], { values: [false] });
      const x = g.input('x', 'float32', [2, 3]);
      const [r] = tf1Cond(g, 'cond', p, [{ value: x, dtype: 'float32' }], ['float32'],
                          ({ ins: [xi] }) => [g.op('Exp', [xi], { T: F })],
                          ({ ins: [xi], k }) => [g.op('Transpose', [xi, k('perm', 'int32', [2], [1, 0])], { T: F, Tperm: I })]);
      g.output(r);
    },
  },
  // The true branch only a constant (tied to the branch by a control input), taken. TF.js keeps weights alive in
  // dead branches and runs a Merge as soon as one input is there, so it takes such a constant even when the
  // predicate is false (TensorFlow takes the live branch): the false case has no reference and is left out.
  ...[[-2, 0]].map(([lo, hi]) => ({
    name: 'Merge_cond_constant_branch_taken',
    build(g) {
      const x = g.input('x', 'float32', [3], { uniform: [lo, hi] });
      const p = g.op('Less', [g.op('Max', [x, g.const('axis', 'int32', [1], [0])], { T: F, Tidx: I, keep_dims: A.b(false) }),
                              g.const('zero', 'float32', [], [0])], { T: F });
      const [r] = tf1Cond(g, 'cond', p, [{ value: x, dtype: 'float32' }], ['float32'],
                          ({ k }) => [k('c', 'float32', [3], [10, 20, 30])],
                          ({ ins: [xi] }) => [g.op('Neg', [xi], { T: F })]);
      g.output(r);
    },
  })),
  // A conditional inside the true branch of another.
  ...[[true, true], [true, false], [false, true]].map(([p1, p2]) => ({
    name: `Merge_cond_nested_${p1}_${p2}`,
    build(g) {
      const p = g.input('p', 'bool', [], { values: [p1] });
      const q = g.input('q', 'bool', [], { values: [p2] });
      const x = g.input('x', 'float32', [2, 2]);
      const [r] = tf1Cond(g, 'outer', p, [{ value: x, dtype: 'float32' }, { value: q, dtype: 'bool' }], ['float32'],
                          ({ ins: [xi, qi] }) => tf1Cond(g, 'outer/inner', qi, [{ value: xi, dtype: 'float32' }], ['float32'],
                                                         ({ ins: [xj] }) => [g.op('Relu', [xj], { T: F })],
                                                         ({ ins: [xj], k }) => [g.op('AddV2', [xj, k('ten', 'float32', [], [10])], { T: F })]),
                          ({ ins: [xi] }) => [g.op('Abs', [xi], { T: F })]);
      g.output(r);
    },
  })),

  // ---- loops --------------------------------------------------------------------------------------------------
  countedLoop('LoopCond_counted', 3),
  countedLoop('LoopCond_zero_iterations', 0),
  countedLoop('LoopCond_unknown_dims', 4, [-1, -1]),
  // Data-dependent: while sum(v) < 50, v = v * 2 + 1 (how often depends on the input).
  {
    name: 'LoopCond_data_dependent',
    build(g) {
      const x = g.input('x', 'float32', [4], { uniform: [0.1, 2] });
      const [v] = tf1While(g, 'while', [{ init: x, dtype: 'float32' }], [],
        ({ vars: [v], k }) => g.op('Less', [g.op('Sum', [v, k('axis', 'int32', [1], [0])], { T: F, Tidx: I, keep_dims: A.b(false) }),
                                            k('limit', 'float32', [], [50])], { T: F }),
        ({ vars: [v], k }) => [g.op('AddV2', [g.op('Mul', [v, k('two', 'float32', [], [2])], { T: F }), k('one', 'float32', [], [1])], { T: F })]);
      g.output(v);
    },
  },
  // Several variables (int32, float32, a growing float32 row list), one passed on unchanged.
  {
    name: 'LoopCond_several_values',
    build(g) {
      const x = g.input('x', 'float32', [1, 3]);
      const n = g.input('n', 'int32', [], { values: [3] });
      const i0 = g.const('i0', 'int32', [], [0]);
      const s0 = g.const('s0', 'float32', [], [0]);
      const [i, rows, total, same] = tf1While(g, 'while',
        [{ init: i0, dtype: 'int32' }, { init: x, dtype: 'float32' }, { init: s0, dtype: 'float32' }, { init: n, dtype: 'int32' }], [],
        ({ vars: [iv, , , nv] }) => g.op('Less', [iv, nv], { T: I }),
        ({ vars: [iv, rv, sv, nv], k }) => {
          const last = g.op('Slice', [rv, g.op('Pack', [g.op('Sub', [g.op('Squeeze', [g.op('Slice', [g.op('Shape', [rv], { T: F, out_type: I }),
            k('b0', 'int32', [1], [0]), k('s1', 'int32', [1], [1])], { T: I, Index: I })], { T: I, squeeze_dims: A.ints([0]) }),
            k('one', 'int32', [], [1])], { T: I }), k('zero', 'int32', [], [0])], { T: I, N: A.i(2), axis: A.i(0) }),
            k('size', 'int32', [2], [1, -1])], { T: F, Index: I });
          const grown = g.op('ConcatV2', [rv, g.op('Mul', [last, k('half', 'float32', [], [-0.5])], { T: F }), k('axis', 'int32', [], [0])],
                             { T: F, N: A.i(2), Tidx: I });
          const sum = g.op('AddV2', [sv, g.op('Sum', [last, k('axes', 'int32', [2], [0, 1])], { T: F, Tidx: I, keep_dims: A.b(false) })], { T: F });
          return [g.op('AddV2', [iv, k('step', 'int32', [], [1])], { T: I }), grown, sum, g.op('Identity', [nv], { T: I })];
        });
      g.output(i);
      g.output(rows);
      g.output(total);
      g.output(same);
    },
  },
  // A conditional in the body: odd i adds x, even i multiplies by 2.
  {
    name: 'LoopCond_cond_in_body',
    build(g) {
      const x = g.input('x', 'float32', [3]);
      const i0 = g.const('i0', 'int32', [], [0]);
      const [, v] = tf1While(g, 'while', [{ init: i0, dtype: 'int32' }, { init: x, dtype: 'float32' }], [{ value: x, dtype: 'float32' }],
        ({ vars: [iv], k }) => g.op('Less', [iv, k('five', 'int32', [], [5])], { T: I }),
        ({ vars: [iv, vv], inv: [xv], k }) => {
          const odd = g.op('Equal', [g.op('FloorMod', [iv, k('two', 'int32', [], [2])], { T: I }), k('one', 'int32', [], [1])], { T: I });
          const [r] = tf1Cond(g, 'while/cond', odd, [{ value: vv, dtype: 'float32' }, { value: xv, dtype: 'float32' }], ['float32'],
            ({ ins: [a, b] }) => [g.op('AddV2', [a, b], { T: F })],
            ({ ins: [a], k: k2 }) => [g.op('Mul', [a, k2('two', 'float32', [], [2])], { T: F })]);
          return [g.op('AddV2', [iv, k('step', 'int32', [], [1])], { T: I }), r];
        });
      g.output(v);
    },
  },
  // ---- TensorArrays ---------------------------------------------------------------------------------------------
  mapFn('TensorArrayV3_map_fn', [4, 3], undefined, [3]),
  mapFn('TensorArrayV3_map_fn_unknown_dims', [5, 2], [-1, -1], null),
  mapFn('TensorArrayV3_map_fn_int32', [3, 2], undefined, [2], 'int32'),
  // A growing array (dynamic_size, size 0): i*i appended for i < n; its size and the stacked values after the loop.
  {
    name: 'TensorArrayV3_dynamic_size',
    build(g) {
      const n = g.input('n', 'int32', [], { values: [4] });
      const ta = g.op('TensorArrayV3', [g.const('zero', 'int32', [], [0])], {
        dtype: I, element_shape: A.shape([]), dynamic_size: A.b(true), clear_after_read: A.b(true),
        identical_element_shapes: A.b(true), tensor_array_name: A.s('') }, 'TensorArray');
      const [, flow] = tf1While(g, 'while', [{ init: g.const('i0', 'int32', [], [0]), dtype: 'int32' }, { init: `${ta}:1`, dtype: 'float32' }],
        [{ value: n, dtype: 'int32' }, { value: ta, dtype: 'resource' }],
        ({ vars: [iv], inv: [nv] }) => g.op('Less', [iv, nv], { T: I }),
        ({ vars: [iv, fv], inv: [, hv], k }) => [
          g.op('AddV2', [iv, k('one', 'int32', [], [1])], { T: I }),
          g.op('TensorArrayWriteV3', [hv, iv, g.op('Mul', [iv, iv], { T: I }), fv], { T: I }, 'while/TensorArrayWrite')]);
      const size = g.op('TensorArraySizeV3', [ta, flow], {}, 'TensorArraySize');
      const range = g.op('Range', [g.const('start', 'int32', [], [0]), size, g.const('delta', 'int32', [], [1])], { Tidx: I });
      g.output(g.op('TensorArrayGatherV3', [ta, range, flow], { dtype: I, element_shape: A.shape([]) }, 'TensorArrayGather'));
      g.output(size);
    },
  },
  // Outside a loop: split into pieces of 1, 2 and 3 rows, read one back, concatenate them all.
  {
    name: 'TensorArrayV3_split_read_concat',
    build(g) {
      const x = g.input('x', 'float32', [6, 2]);
      const ta = g.op('TensorArrayV3', [g.const('three', 'int32', [], [3])], {
        dtype: F, element_shape: A.shape([-1, 2]), dynamic_size: A.b(false), clear_after_read: A.b(false),
        identical_element_shapes: A.b(false), tensor_array_name: A.s('') }, 'TensorArray');
      const flow = g.op('TensorArraySplitV3', [ta, x, g.const('lengths', 'int64', [3], [1, 2, 3]), `${ta}:1`], { T: F }, 'TensorArraySplit');
      g.output(g.op('TensorArrayReadV3', [ta, g.const('two', 'int32', [], [2]), flow], { dtype: F }, 'TensorArrayRead'));
      g.output(g.op('TensorArrayConcatV3', [ta, flow], { dtype: F, element_shape_except0: A.shape([2]) }, 'TensorArrayConcat'));
    },
  },
  // tf.map_fn of a TF2 model as TF.js's converter writes it: the While lowered to a frame whose every input is a loop
  // variable (the element list and n passed on unchanged), TensorLists for the elements and the results.
  {
    name: 'TensorListSetItem_lowered_map_fn',
    build(g) {
      const x = g.input('x', 'float32', [3, 2]);
      const shape = g.const('element_shape', 'int32', [1], [2]);
      const n = g.const('n', 'int32', [], [3]);
      const fl = { element_dtype: F, shape_type: I };
      const reserved = g.op('TensorListReserve', [shape, n], fl, 'map/TensorArrayV2');
      const xs = g.op('TensorListFromTensor', [x, shape], fl, 'map/TensorArrayUnstack/TensorListFromTensor');
      const V = 'variant';
      const [, , acc] = tf1While(g, 'map/while',
        [{ init: g.const('map/while/loop_counter', 'int32', [], [0]), dtype: 'int32' }, { init: n, dtype: 'int32' },
         { init: reserved, dtype: V }, { init: xs, dtype: V }],
        [],
        ({ vars: [iv, nv] }) => g.op('Less', [iv, nv], { T: I }, 'map/while/Less'),
        ({ vars: [iv, nv, av, xv], k }) => {
          const e = g.op('TensorListGetItem', [xv, iv, k('es', 'int32', [1], [2])], { element_dtype: F }, 'map/while/TensorListGetItem');
          const y = g.op('AddV2', [g.op('Mul', [e, e], { T: F }), k('one', 'float32', [], [1])], { T: F });
          return [g.op('AddV2', [iv, k('step', 'int32', [], [1])], { T: I }), g.op('Identity', [nv], { T: I }),
                  g.op('TensorListSetItem', [av, iv, y], { element_dtype: F }, 'map/while/TensorListSetItem'),
                  g.op('Identity', [xv], { T: A.type(V) })];
        });
      g.output(g.op('TensorListStack', [acc, shape], { element_dtype: F, num_elements: A.i(3) }, 'map/TensorArrayV2Stack/TensorListStack'));
    },
  },
];

// tf.map_fn as TF1 writes it (and TF.js's converter keeps it): the elements unstacked into a TensorArray
// (TensorArrayScatterV3 over range(n)), a while loop reading element i and writing f(x) = x * x + 1 into a second
// TensorArray, stacked after the loop (TensorArrayGatherV3 over range(size)).
function mapFn(name, shape, dims, elementShape, dtype = 'float32') {
  const D = T(dtype);
  return {
    name,
    build(g) {
      const x = g.input('elems', dtype, shape, dtype === 'int32' ? { int: [-4, 4] } : undefined, dims);
      const n = g.op('StridedSlice', [g.op('Shape', [x], { T: D, out_type: I }, 'map/Shape'), g.const('map/b', 'int32', [1], [0]),
                                      g.const('map/e', 'int32', [1], [1]), g.const('map/s', 'int32', [1], [1])],
                     { T: I, Index: I, shrink_axis_mask: A.i(1), begin_mask: A.i(0), end_mask: A.i(0), ellipsis_mask: A.i(0),
                       new_axis_mask: A.i(0) }, 'map/strided_slice');
      const taAttr = { dtype: D, element_shape: A.shape(elementShape), dynamic_size: A.b(false), clear_after_read: A.b(true),
                       identical_element_shapes: A.b(true), tensor_array_name: A.s('') };
      const acc = g.op('TensorArrayV3', [n], taAttr, 'map/TensorArray');
      const elems = g.op('TensorArrayV3', [n], taAttr, 'map/TensorArray_1');
      const range = g.op('Range', [g.const('map/TensorArrayUnstack/range/start', 'int32', [], [0]), n,
                                   g.const('map/TensorArrayUnstack/range/delta', 'int32', [], [1])], { Tidx: I },
                         'map/TensorArrayUnstack/range');
      const scattered = g.op('TensorArrayScatterV3', [elems, range, x, `${elems}:1`], { T: D },
                             'map/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3');
      const [, flow] = tf1While(g, 'map/while',
        [{ init: g.const('map/Const', 'int32', [], [0]), dtype: 'int32' }, { init: `${acc}:1`, dtype: 'float32' }],
        [{ value: n, dtype: 'int32' }, { value: elems, dtype: 'resource' }, { value: scattered, dtype: 'float32' },
         { value: acc, dtype: 'resource' }],
        ({ vars: [iv], inv: [nv] }) => g.op('Less', [iv, nv], { T: I }, 'map/while/Less'),
        ({ vars: [iv, fv], inv: [, ev, sv, av], k }) => {
          const e = g.op('TensorArrayReadV3', [ev, iv, sv], { dtype: D }, 'map/while/TensorArrayReadV3');
          const y = g.op('AddV2', [g.op('Mul', [e, e], { T: D }, 'map/while/mul'), k('one', dtype, [], [1])], { T: D }, 'map/while/add');
          const w = g.op('TensorArrayWriteV3', [av, iv, y, fv], { T: D }, 'map/while/TensorArrayWrite/TensorArrayWriteV3');
          return [g.op('AddV2', [iv, k('step', 'int32', [], [1])], { T: I }, 'map/while/add_1'), w];
        });
      const size = g.op('TensorArraySizeV3', [acc, flow], {}, 'map/TensorArrayStack/TensorArraySizeV3');
      const all = g.op('Range', [g.const('map/TensorArrayStack/range/start', 'int32', [], [0]), size,
                                 g.const('map/TensorArrayStack/range/delta', 'int32', [], [1])], { Tidx: I },
                       'map/TensorArrayStack/range');
      g.output(g.op('TensorArrayGatherV3', [acc, all, flow], { dtype: D, element_shape: A.shape(elementShape) },
                    'map/TensorArrayStack/TensorArrayGatherV3'));
    },
  };
}

// Not in `cases`: TF.js 4.22 loses the inner loop's Exit in nested frames ("Cannot read properties of undefined
// (reading 'id')" for the output), so there is no reference; tests/unit/tf_frames_test.cc checks onyx's Loop in Loop.
export const unrunnable = [
// Nested frames: for i < 3: for j < i + 1: acc = acc * 1.5 + x (x an invariant of both loops).
  {
    name: 'LoopCond_nested',
    build(g) {
      const x = g.input('x', 'float32', [2]);
      const i0 = g.const('i0', 'int32', [], [0]);
      const acc0 = g.const('acc0', 'float32', [2], [0]);
      const [, acc] = tf1While(g, 'outer', [{ init: i0, dtype: 'int32' }, { init: acc0, dtype: 'float32' }], [{ value: x, dtype: 'float32' }],
        ({ vars: [iv], k }) => g.op('Less', [iv, k('three', 'int32', [], [3])], { T: I }),
        ({ vars: [iv, av], inv: [xv], k }) => {
          const j0 = k('j0', 'int32', [], [0]);
          const limit = g.op('AddV2', [iv, k('one', 'int32', [], [1])], { T: I });
          const [, inner] = tf1While(g, 'outer/inner', [{ init: j0, dtype: 'int32' }, { init: av, dtype: 'float32' }],
            [{ value: limit, dtype: 'int32' }, { value: xv, dtype: 'float32' }],
            ({ vars: [jv], inv: [lv] }) => g.op('Less', [jv, lv], { T: I }),
            ({ vars: [jv, bv], inv: [, xw], k: k2 }) => [
              g.op('AddV2', [jv, k2('one', 'int32', [], [1])], { T: I }),
              g.op('AddV2', [g.op('Mul', [bv, k2('f', 'float32', [], [1.5])], { T: F }), xw], { T: F })]);
          return [g.op('AddV2', [iv, k('step', 'int32', [], [1])], { T: I }), inner];
        });
      g.output(acc);
    },
  },
];

// i from 0 while i < n: acc = acc * 0.5 + x; x an invariant (Enter is_constant), n a loop variable passed on.
function countedLoop(name, n, dims) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [2, 3], undefined, dims);
      const limit = g.input('n', 'int32', [], { values: [n] });
      const i0 = g.const('i0', 'int32', [], [0]);
      const acc0 = g.const('acc0', 'float32', [2, 3], [1]);
      const [i, acc] = tf1While(g, 'while', [{ init: i0, dtype: 'int32' }, { init: acc0, dtype: 'float32' }],
        [{ value: x, dtype: 'float32' }, { value: limit, dtype: 'int32' }],
        ({ vars: [iv], inv: [, nv] }) => g.op('Less', [iv, nv], { T: I }),
        ({ vars: [iv, av], inv: [xv], k }) => [
          g.op('AddV2', [iv, k('one', 'int32', [], [1])], { T: I }),
          g.op('AddV2', [g.op('Mul', [av, k('half', 'float32', [], [0.5])], { T: F }), xv], { T: F })]);
      g.output(acc);
      g.output(i);
    },
  };
}
