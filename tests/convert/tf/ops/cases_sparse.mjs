// Segment reductions, TensorScatter*, diagonal matrices, permutations, and TF's elementwise ops beyond ONNX's
// (bitwise, truncating division, Xlogy...). TF.js runs only SparseSegmentSum/Mean of these: every other case gives
// a `reference` graph that spells the op's TensorFlow definition with ops TF.js runs (OneHot masks and MatMul for
// segments, GatherNd with index tables computed here for reorderings, arithmetic identities for bitwise ops).
import { A } from './lib.mjs';

const T = (t) => ({ T: A.type(t) });
const I = A.type('int32');
const F = A.type('float32');

// ---- segments ---------------------------------------------------------------------------------------------------

// The reference of a segment reduction: rows [N, D] (float32 or int32), ids [N] int32 (a tensor), S segments.
// kind: Sum Mean SqrtN Prod Max Min; empty: the value of empty segments ('zero' or 'identity').
function segRef(g, dtype, rows, ids, S, kind, empty, fill) {
  const oh = g.op('OneHot', [ids, g.const('depth', 'int32', [], [S]), g.const('on', 'float32', [], [1]),
    g.const('off', 'float32', [], [0])], { ...T('float32'), TI: I, axis: A.i(-1) });  // [N, S]
  const count = g.op('ExpandDims', [g.op('Sum', [oh, g.const('axis0', 'int32', [], [0])], { ...T('float32'), Tidx: I, keep_dims: A.b(false) }),
    g.const('last', 'int32', [], [-1])], { ...T('float32'), Tdim: I });  // [S, 1]
  let out;
  if (dtype === 'float32' && ['Sum', 'Mean', 'SqrtN'].includes(kind)) {
    out = g.op('MatMul', [oh, rows], { ...T('float32'), transpose_a: A.b(true), transpose_b: A.b(false) });
    const one = g.const('one', 'float32', [], [1]);
    const n = g.op('Maximum', [count, one], T('float32'));
    if (kind === 'Mean') out = g.op('RealDiv', [out, n], T('float32'));
    if (kind === 'SqrtN') out = g.op('RealDiv', [out, g.op('Sqrt', [n], T('float32'))], T('float32'));
    return out;
  }
  const mask = g.op('ExpandDims', [g.op('Greater', [g.op('Transpose', [oh, g.const('perm', 'int32', [2], [1, 0])], { ...T('float32'), Tperm: I }),
    g.const('half', 'float32', [], [0.5])], T('float32')), g.const('m_last', 'int32', [], [-1])], { ...T('bool'), Tdim: I });  // [S, N, 1]
  const data = g.op('ExpandDims', [rows, g.const('first', 'int32', [], [0])], { ...T(dtype), Tdim: I });  // [1, N, D]
  const masked = g.op('SelectV2', [mask, data, g.const('fill', dtype, [], [fill])], T(dtype));
  const reducer = { Sum: 'Sum', Prod: 'Prod', Max: 'Max', Min: 'Min' }[kind];
  out = g.op(reducer, [masked, g.const('axis1', 'int32', [], [1])], { ...T(dtype), Tidx: I, keep_dims: A.b(false) });
  if (empty === 'zero') {
    const nonempty = g.op('Greater', [count, g.const('zero_count', 'float32', [], [0])], T('float32'));
    out = g.op('SelectV2', [nonempty, out, g.const('zero', dtype, [], [0])], T(dtype));
  }
  return out;
}

const identity = { Sum: 0, Mean: 0, SqrtN: 0, Prod: 1, Max: { float32: -3.4028234663852886e38, int32: -2147483648 },
                   Min: { float32: 3.4028234663852886e38, int32: 2147483647 } };
const fillOf = (kind, dtype) => (typeof identity[kind] === 'object' ? identity[kind][dtype] : identity[kind]);

// Segment<kind>(data [N, D], sorted ids): ids fed as an input (declared [-1] when `unknown`).
function segment(kind, dtype, ids, D, opts = {}) {
  const N = ids.length;
  const S = Math.max(...ids) + 1;
  const inputs = (g) => [g.input('data', dtype, [N, D], undefined, opts.unknown ? [-1, D] : undefined),
    g.input('ids', 'int32', [N], { values: ids }, opts.unknown ? [-1] : undefined)];
  return {
    name: `Segment${kind}_${dtype}${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const [data, idv] = inputs(g);
      g.output(g.op(`Segment${kind}`, [data, idv], { ...T(dtype), Tindices: I }));
    },
    reference(g) {
      const [data, idv] = inputs(g);
      // Sorted Segment*: empty segments are 0 (Prod: 1).
      g.output(segRef(g, dtype, data, idv, S, kind, kind === 'Max' || kind === 'Min' ? 'zero' : 'identity', fillOf(kind, dtype)));
    },
  };
}

// UnsortedSegment<kind>(data [..ids shape, D], ids, S): ids of any rank (flattened in the reference).
function unsorted(kind, dtype, ids, idsShape, D, S, suffix = '') {
  const N = ids.length;
  const inputs = (g) => [g.input('data', dtype, [...idsShape, D]), g.input('ids', 'int32', idsShape, { values: ids })];
  return {
    name: `UnsortedSegment${kind}_${dtype}${suffix}`,
    build(g) {
      const [data, idv] = inputs(g);
      g.output(g.op(`UnsortedSegment${kind}`, [data, idv, g.const('num_segments', 'int32', [], [S])],
        { ...T(dtype), Tindices: I, Tnumsegments: I }));
    },
    reference(g) {
      const [data, idv] = inputs(g);
      const rows = g.op('Reshape', [data, g.const('rows_shape', 'int32', [2], [N, D])], { ...T(dtype), Tshape: I });
      const flat = g.op('Reshape', [idv, g.const('ids_shape', 'int32', [1], [N])], { ...T('int32'), Tshape: I });
      g.output(segRef(g, dtype, rows, flat, S, kind, 'identity', fillOf(kind, dtype)));
    },
  };
}

// SparseSegment<kind>(data [R, D], indices, ids[, num_segments]).
function sparseSegment(kind, indices, ids, R, D, opts = {}) {
  const S = opts.numSegments || Math.max(...ids) + 1;
  const inputs = (g) => [g.input('data', 'float32', [R, D]), g.input('indices', 'int32', [indices.length], { values: indices }),
    g.input('ids', 'int32', [ids.length], { values: ids })];
  const op = `SparseSegment${kind}${opts.numSegments ? 'WithNumSegments' : ''}`;
  const c = {
    name: `${op}_float32${opts.suffix ? `_${opts.suffix}` : ''}`,
    build(g) {
      const [data, idx, idv] = inputs(g);
      const extra = opts.numSegments ? [g.const('num_segments', 'int32', [], [S])] : [];
      g.output(g.op(op, [data, idx, idv, ...extra], { ...T('float32'), Tidx: I, Tsegmentids: I,
        ...(opts.numSegments ? { Tnumsegments: I } : {}) }));
    },
  };
  if (opts.reference) {
    c.reference = (g) => {
      const [data, idx, idv] = inputs(g);
      const rows = g.op('GatherV2', [data, idx, g.const('axis', 'int32', [], [0])], { Tparams: F, Tindices: I, Taxis: I, batch_dims: A.i(0) });
      g.output(segRef(g, 'float32', rows, idv, S, kind, 'identity', 0));
    };
  }
  return c;
}

// ---- TensorScatter* ---------------------------------------------------------------------------------------------

// tensor [4, 3] updated at rows `rows` (indices [U, 1]) by updates [U, 3].
function scatter(op, rows, dtype = 'float32', suffix = '') {
  const U = rows.length;
  const inputs = (g) => [g.input('tensor', dtype, [4, 3]), g.input('updates', dtype, [U, 3])];
  return {
    name: `${op}_${dtype}${suffix}`,
    build(g) {
      const [t, u] = inputs(g);
      g.output(g.op(op, [t, g.const('indices', 'int32', [U, 1], rows), u], { ...T(dtype), Tindices: I }));
    },
    reference(g) {
      const [t, u] = inputs(g);
      const idx = g.const('indices', 'int32', [U, 1], rows);
      if (op === 'TensorScatterMax' || op === 'TensorScatterMin') {
        // Per row of the tensor, the max / min of its updates (duplicates included), then with the tensor's row.
        const ids = g.const('ids', 'int32', [U], rows);
        const fill = op === 'TensorScatterMax' ? fillOf('Max', dtype) : fillOf('Min', dtype);
        const per = segRef(g, dtype, u, ids, 4, op === 'TensorScatterMax' ? 'Max' : 'Min', 'identity', fill);
        const touched = [0, 1, 2, 3].map((r) => rows.includes(r));
        const combined = g.op(op === 'TensorScatterMax' ? 'Maximum' : 'Minimum', [t, per], T(dtype));
        g.output(g.op('SelectV2', [g.const('touched', 'bool', [4, 1], touched), combined, t], T(dtype)));
        return;
      }
      const dense = g.op('ScatterNd', [idx, u, g.const('shape', 'int32', [2], [4, 3])], { ...T(dtype), Tindices: I });
      g.output(g.op(op === 'TensorScatterSub' ? 'Sub' : 'AddV2', [t, dense], T(dtype)));
    },
  };
}

// ---- reorderings: references gather each output element from a source position computed here ---------------------

function gatherNdRef(g, x, dtype, outShape, source) {
  const positions = [];
  const walk = (prefix) => {
    if (prefix.length === outShape.length) { positions.push(...source(prefix)); return; }
    for (let i = 0; i < outShape[prefix.length]; ++i) walk([...prefix, i]);
  };
  walk([]);
  const depth = source(outShape.map(() => 0)).length;
  const idx = g.const('source', 'int32', [...outShape, depth], positions);
  return g.op('GatherNd', [x, idx], { Tparams: A.type(dtype), Tindices: I });
}

function reverseSequence(shape, lengths, seqDim, batchDim, dtype = 'float32') {
  return {
    name: `ReverseSequence_${dtype}_seq${seqDim}_batch${batchDim}`,
    build(g) {
      const x = g.input('x', dtype, shape);
      g.output(g.op('ReverseSequence', [x, g.const('lengths', 'int32', [lengths.length], lengths)],
        { ...T(dtype), Tlen: I, seq_dim: A.i(seqDim), batch_dim: A.i(batchDim) }));
    },
    reference(g) {
      const x = g.input('x', dtype, shape);
      g.output(gatherNdRef(g, x, dtype, shape, (p) => {
        const q = [...p];
        const len = lengths[p[batchDim]];
        if (p[seqDim] < len) q[seqDim] = len - 1 - p[seqDim];
        return q;
      }));
    },
  };
}

function roll(shape, shifts, axes, suffix) {
  const mod = (a, n) => ((a % n) + n) % n;
  return {
    name: `Roll_${suffix}`,
    build(g) {
      const x = g.input('x', 'float32', shape);
      g.output(g.op('Roll', [x, g.const('shift', 'int32', [shifts.length], shifts), g.const('axis', 'int32', [axes.length], axes)],
        { ...T('float32'), Tshift: I, Taxis: I }));
    },
    reference(g) {
      const x = g.input('x', 'float32', shape);
      g.output(gatherNdRef(g, x, 'float32', shape, (p) => {
        const q = [...p];
        axes.forEach((a, k) => { const ax = a < 0 ? a + shape.length : a; q[ax] = mod(q[ax] - shifts[k], shape[ax]); });
        return q;
      }));
    },
  };
}

// ---- diagonals --------------------------------------------------------------------------------------------------

const eye = (m, n) => Array.from({ length: m * n }, (_, k) => Math.floor(k / n) === k % n);

function matrixDiag(op, dtype, dshape, pad = 0) {
  const n = dshape[dshape.length - 1];
  return {
    name: `${op}_${dtype}_${dshape.join('x')}`,
    build(g) {
      const d = g.input('d', dtype, dshape);
      if (op === 'MatrixDiag') {
        g.output(g.op(op, [d], T(dtype)));
      } else {
        g.output(g.op(op, [d, g.const('k', 'int32', [], [0]), g.const('rows', 'int32', [], [-1]), g.const('cols', 'int32', [], [-1]),
          g.const('pad', dtype, [], [pad])], { ...T(dtype), ...(op === 'MatrixDiagV3' ? { align: A.s('RIGHT_LEFT') } : {}) }));
      }
    },
    reference(g) {
      const d = g.input('d', dtype, dshape);
      const col = g.op('ExpandDims', [d, g.const('last', 'int32', [], [-1])], { ...T(dtype), Tdim: I });
      g.output(g.op('SelectV2', [g.const('eye', 'bool', [n, n], eye(n, n)), col, g.const('pad', dtype, [], [pad])], T(dtype)));
    },
  };
}

function matrixSetDiag(op, dtype, xshape) {
  const [m, n] = xshape.slice(-2);
  const k = Math.min(m, n);
  const dshape = [...xshape.slice(0, -2), k];
  const inputs = (g) => [g.input('x', dtype, xshape), g.input('d', dtype, dshape)];
  return {
    name: `${op}_${dtype}_${xshape.join('x')}`,
    build(g) {
      const [x, d] = inputs(g);
      const extra = op === 'MatrixSetDiag' ? [] : [g.const('k', 'int32', [], [0])];
      g.output(g.op(op, [x, d, ...extra], { ...T(dtype), ...(op === 'MatrixSetDiagV3' ? { align: A.s('RIGHT_LEFT') } : {}) }));
    },
    reference(g) {
      const [x, d] = inputs(g);
      const pads = [...dshape.slice(0, -1).flatMap(() => [0, 0]), 0, m - k];
      const padded = g.op('Pad', [d, g.const('pads', 'int32', [dshape.length, 2], pads)], { ...T(dtype), Tpaddings: I });
      const col = g.op('ExpandDims', [padded, g.const('last', 'int32', [], [-1])], { ...T(dtype), Tdim: I });
      g.output(g.op('SelectV2', [g.const('eye', 'bool', [m, n], eye(m, n)), col, x], T(dtype)));
    },
  };
}

function matrixDiagPart(op, dtype, xshape) {
  const [m, n] = xshape.slice(-2);
  const k = Math.min(m, n);
  return {
    name: `${op}_${dtype}_${xshape.join('x')}`,
    build(g) {
      const x = g.input('x', dtype, xshape);
      const extra = op === 'MatrixDiagPart' ? [] : [g.const('k', 'int32', [], [0]), g.const('pad', dtype, [], [0])];
      g.output(g.op(op, [x, ...extra], { ...T(dtype), ...(op === 'MatrixDiagPartV3' ? { align: A.s('RIGHT_LEFT') } : {}) }));
    },
    reference(g) {
      const x = g.input('x', dtype, xshape);
      const band = g.op('MatrixBandPart', [x, g.const('lower', 'int32', [], [0]), g.const('upper', 'int32', [], [0])], { ...T(dtype), Tindex: I });
      const rows = g.op('Sum', [band, g.const('last', 'int32', [], [-1])], { ...T(dtype), Tidx: I, keep_dims: A.b(false) });
      const b = xshape.slice(0, -2);
      g.output(g.op('Slice', [rows, g.const('begin', 'int32', [b.length + 1], [...b.map(() => 0), 0]),
        g.const('size', 'int32', [b.length + 1], [...b, k])], { ...T(dtype), Index: I }));
    },
  };
}

// ---- elementwise ------------------------------------------------------------------------------------------------

// A binary op whose reference is `ref(g, a, b)`.
function binaryRef(op, dtype, shapes, fills, ref, suffix = '') {
  const inputs = (g) => [g.input('a', dtype, shapes[0], fills[0]), g.input('b', dtype, shapes[1], fills[1])];
  return {
    name: `${op}_${dtype}${suffix}`,
    build(g) {
      const [a, b] = inputs(g);
      g.output(g.op(op, [a, b], T(dtype)));
    },
    reference(g) {
      const [a, b] = inputs(g);
      g.output(ref(g, a, b));
    },
  };
}

function unaryRef(op, dtype, shape, fill, ref, attr = {}) {
  return {
    name: `${op}_${dtype}`,
    build(g) { g.output(g.op(op, [g.input('x', dtype, shape, fill)], { ...T(dtype), ...attr })); },
    reference(g) { g.output(ref(g, g.input('x', dtype, shape, fill))); },
  };
}

const f32 = T('float32');
const i32 = T('int32');
const nonzero = { values: [3, -2, 5, -7, 1, 4, -1, 2, -3, 6, 9, -4] };

// trunc(q) = sign(q) * floor(|q|).
const truncRef = (g, q, t) => g.op('Mul', [g.op('Sign', [q], t), g.op('Floor', [g.op('Abs', [q], t)], t)], t);
// Integer truncating division: sign(a) sign(b) floor(|a| / |b|).
const truncDivInt = (g, a, b) => g.op('Mul', [g.op('Mul', [g.op('Sign', [a], i32), g.op('Sign', [b], i32)], i32),
  g.op('FloorDiv', [g.op('Abs', [a], i32), g.op('Abs', [b], i32)], i32)], i32);
const zeroIfXZero = (g, a, v) => g.op('SelectV2', [g.op('Equal', [a, g.const('zero', 'float32', [], [0])], f32),
  g.const('zero_out', 'float32', [], [0]), v], f32);
const pow2 = (g, y) => g.op('Cast', [g.op('Pow', [g.const('two', 'float32', [], [2]), g.op('Cast', [y], { SrcT: I, DstT: F })], f32)], { SrcT: F, DstT: I });
// Bitwise ops from the bits of two's complement: bit k < 31 of v is floor(v / 2^k) mod 2, bit 31 is v < 0 (its
// weight -2^31); `combine` maps two bit tensors to the result's. (TF.js's own BitwiseAnd cannot run: see
// cases_logical.mjs.)
const powers = Array.from({ length: 31 }, (_, k) => 2 ** k);
function bitwise(g, a, b, combine) {
  const pw = g.const('powers', 'int32', [31], powers);
  const two = g.const('two_bits', 'int32', [], [2]);
  const last = g.const('bit_axis', 'int32', [], [-1]);
  const low = (v) => g.op('FloorMod', [g.op('FloorDiv', [g.op('ExpandDims', [v, last], { ...i32, Tdim: I }), pw], i32), two], i32);
  const sign = (v) => g.op('Cast', [g.op('Less', [v, g.const('zero_v', 'int32', [], [0])], i32)], { SrcT: A.type('bool'), DstT: I });
  const sum = g.op('Sum', [g.op('Mul', [combine(low(a), low(b)), pw], i32), last], { ...i32, Tidx: I, keep_dims: A.b(false) });
  const top = g.op('Mul', [combine(sign(a), sign(b)), g.const('top_weight', 'int32', [], [-2147483648])], i32);
  return g.op('AddV2', [top, sum], i32);
}
const orBits = (g) => (x, y) => g.op('Maximum', [x, y], i32);
const xorBits = (g) => (x, y) => g.op('FloorMod', [g.op('AddV2', [x, y], i32), g.const('two_x', 'int32', [], [2])], i32);

const withZeros = { values: [0, 1.5, -2, 0, 0.25, 3, -0.5, 0, 2, -1, 0.75, 0] };
const positive = { uniform: [0.1, 3] };

export const cases = [
  segment('Sum', 'float32', [0, 0, 1, 3, 3, 3], 3),
  segment('Sum', 'int32', [0, 1, 1, 2, 4], 2, { unknown: true, suffix: 'unknown_dims' }),
  segment('Mean', 'float32', [0, 0, 1, 3, 3, 3], 3),
  segment('Max', 'float32', [0, 0, 1, 3, 3, 3], 3),
  segment('Min', 'int32', [1, 1, 2, 2, 4], 2),
  segment('Prod', 'float32', [0, 2, 2, 3], 3),
  unsorted('Sum', 'float32', [0, 2, -1, 2, 0, 4], [6], 3, 5, '_negative_ids'),
  unsorted('Sum', 'float32', [1, 0, 2, 1, 1, 0], [2, 3], 2, 4, '_2d_ids'),
  unsorted('Max', 'float32', [0, 2, -1, 2, 0, 4], [6], 3, 5),
  unsorted('Max', 'int32', [3, 0, 3, 1], [4], 2, 5),
  unsorted('Min', 'float32', [1, 1, 0, 4], [4], 2, 5),
  unsorted('Min', 'int32', [0, 2, 2, -3], [4], 3, 4),
  unsorted('Prod', 'float32', [2, 0, 2, 2, 1], [5], 2, 4),
  unsorted('Prod', 'int32', [2, 0, 2, 1], [4], 2, 3),
  sparseSegment('Sum', [0, 3, 1, 3, 2], [0, 0, 1, 2, 2], 4, 3),
  sparseSegment('Sum', [4, 0, 2], [0, 2, 2], 5, 2, { suffix: 'empty_segment' }),
  sparseSegment('Mean', [0, 3, 1, 3, 2], [0, 0, 1, 3, 3], 4, 3),
  sparseSegment('SqrtN', [0, 3, 1, 3, 2], [0, 0, 1, 3, 3], 4, 3, { reference: true }),
  sparseSegment('Sum', [1, 2, 0], [0, 0, 2], 3, 2, { numSegments: 5, reference: true }),
  sparseSegment('Mean', [1, 2, 0], [1, 1, 2], 3, 2, { numSegments: 4, reference: true }),
  sparseSegment('SqrtN', [1, 2, 0, 2], [0, 0, 0, 3], 3, 2, { numSegments: 5, reference: true }),

  scatter('TensorScatterAdd', [1, 3, 1]),
  scatter('TensorScatterAdd', [0, 2], 'int32'),
  scatter('TensorScatterSub', [2, 2, 0]),
  scatter('ScatterNdNonAliasingAdd', [3, 0, 3]),
  scatter('TensorScatterMax', [1, 3, 1, 1]),
  scatter('TensorScatterMin', [0, 2, 0], 'float32'),
  scatter('TensorScatterMax', [2, 0, 2], 'int32'),

  // ---- diagonals and reorderings
  matrixDiag('MatrixDiag', 'float32', [2, 3]),
  matrixDiag('MatrixDiag', 'int32', [4]),
  matrixDiag('MatrixDiagV2', 'float32', [3]),
  matrixDiag('MatrixDiagV3', 'float32', [2, 4], 9),
  matrixSetDiag('MatrixSetDiag', 'float32', [2, 3, 4]),
  matrixSetDiag('MatrixSetDiagV2', 'int32', [3, 3]),
  matrixSetDiag('MatrixSetDiagV3', 'float32', [5, 3]),
  matrixDiagPart('MatrixDiagPart', 'float32', [2, 4, 3]),
  matrixDiagPart('MatrixDiagPartV2', 'int32', [3, 5]),
  matrixDiagPart('MatrixDiagPartV3', 'float32', [2, 2, 3]),
  {
    name: 'InvertPermutation_int32',
    build(g) {
      g.output(g.op('InvertPermutation', [g.input('x', 'int32', [6], { values: [2, 0, 5, 3, 1, 4] })], i32));
    },
    reference(g) {
      const x = g.input('x', 'int32', [6], { values: [2, 0, 5, 3, 1, 4] });
      const oh = g.op('OneHot', [x, g.const('depth', 'int32', [], [6]), g.const('on', 'int32', [], [1]), g.const('off', 'int32', [], [0])],
        { ...i32, TI: I, axis: A.i(-1) });
      g.output(g.op('ArgMax', [oh, g.const('axis', 'int32', [], [0])], { ...i32, Tidx: I, output_type: I }));
    },
  },
  reverseSequence([3, 5, 2], [2, 5, 1], 1, 0),
  reverseSequence([4, 3], [3, 1, 4], 0, 1, 'int32'),
  roll([3, 4], [1, -2], [0, 1], '2d'),
  roll([2, 3, 4], [1, 4], [2, -1], 'same_axis_twice'),
  roll([5], [-7], [0], 'negative_large'),

  // ---- elementwise
  binaryRef('TruncateDiv', 'int32', [[2, 6], [6]], [{ int: [-20, 20] }, nonzero], truncDivInt),
  binaryRef('TruncateDiv', 'float32', [[3, 4], [3, 4]], [undefined, nonzero],
    (g, a, b) => truncRef(g, g.op('RealDiv', [a, b], f32), f32)),
  binaryRef('TruncateMod', 'int32', [[2, 6], [6]], [{ int: [-20, 20] }, nonzero],
    (g, a, b) => g.op('Sub', [a, g.op('Mul', [b, truncDivInt(g, a, b)], i32)], i32)),
  binaryRef('TruncateMod', 'float32', [[3, 4], [3, 4]], [{ uniform: [-9, 9] }, nonzero],
    (g, a, b) => g.op('Mul', [g.op('Sign', [a], f32), g.op('Mod', [g.op('Abs', [a], f32), g.op('Abs', [b], f32)], f32)], f32)),
  binaryRef('Xdivy', 'float32', [[3, 4], [3, 4]], [withZeros, { values: [0, 2, -1, 0.5, 0, 3] }],
    (g, a, b) => zeroIfXZero(g, a, g.op('RealDiv', [a, b], f32))),
  binaryRef('Xlogy', 'float32', [[3, 4], [4]], [withZeros, { values: [0, 2, 0.5, 3] }],
    (g, a, b) => zeroIfXZero(g, a, g.op('Mul', [a, g.op('Log', [b], f32)], f32))),
  binaryRef('Xlog1py', 'float32', [[3, 4], [3, 4]], [withZeros, { values: [-1, 2, 1e-6, 0.5, -0.5, 3] }],
    (g, a, b) => zeroIfXZero(g, a, g.op('Mul', [a, g.op('Log1p', [b], f32)], f32))),
  unaryRef('Erfc', 'float32', [3, 4], { uniform: [-3, 3] },
    (g, x) => g.op('Sub', [g.const('one', 'float32', [], [1]), g.op('Erf', [x], f32)], f32)),
  unaryRef('Inv', 'float32', [3, 4], nonzero, (g, x) => g.op('Reciprocal', [x], f32)),
  {
    name: 'BiasAddV1_float32',
    build(g) {
      g.output(g.op('BiasAddV1', [g.input('x', 'float32', [2, 3, 4]), g.const('b', 'float32', [4], [1, -2, 0.5, 3])], f32));
    },
    reference(g) {
      g.output(g.op('BiasAdd', [g.input('x', 'float32', [2, 3, 4]), g.const('b', 'float32', [4], [1, -2, 0.5, 3])],
        { ...f32, data_format: A.s('NHWC') }));
    },
  },
  unaryRef('Invert', 'int32', [3, 4], { int: [-1000, 1000] }, (g, x) => g.op('Sub', [g.const('m1', 'int32', [], [-1]), x], i32)),
  binaryRef('LeftShift', 'int32', [[3, 4], [3, 4]], [{ int: [-500, 500] }, { int: [0, 12] }],
    (g, a, b) => g.op('Mul', [a, pow2(g, b)], i32)),
  binaryRef('RightShift', 'int32', [[3, 4], [3, 4]], [{ int: [-5000, 5000] }, { int: [0, 9] }],
    (g, a, b) => g.op('FloorDiv', [a, pow2(g, b)], i32)),
  binaryRef('BitwiseOr', 'int32', [[3, 4], [4]], [{ int: [-300, 300] }, { int: [-50, 300] }],
    (g, a, b) => bitwise(g, a, b, orBits(g))),
  binaryRef('BitwiseXor', 'int32', [[3, 4], [3, 4]], [{ int: [-300, 300] }, { int: [-50, 300] }],
    (g, a, b) => bitwise(g, a, b, xorBits(g))),
  // ---- sparse tensors (TF.js runs SparseReshape, int64 outputs computed as int32 there)
  ...[[[2, 3, 4], [4, -1], 'infer'], [[6, 4], [2, 3, 2, 2], 'split'], [[3, 8], [-1], 'flatten']].map(([from, to, tag]) => ({
    name: `SparseReshape_${tag}`,
    build(g) {
      const total = from.reduce((a, b) => a * b, 1);
      const picks = [0, 5, 7, total - 1, 11];
      const idx = picks.flatMap((o) => { const q = []; for (let k = from.length - 1; k >= 0; --k) { q.unshift(o % from[k]); o = Math.floor(o / from[k]); } return q; });
      const y = g.op('SparseReshape', [g.input('indices', 'int64', [picks.length, from.length], { values: idx }),
        g.const('shape', 'int64', [from.length], from), g.const('new_shape', 'int64', [to.length], to)]);
      g.output(`${y}:0`, { dtype: 'int64' });
      g.output(`${y}:1`, { dtype: 'int64' });
    },
  })),
  ...[[false, false], [true, false], [false, true]].map(([ta, tb]) => {
    const inputs = (g) => [g.input('values', 'float32', [4]), g.input('b', 'float32', tb ? [2, 3] : [3, 2])];
    const idx = ta ? [0, 0, 2, 1, 1, 2, 0, 1] : [0, 0, 1, 2, 2, 1, 1, 0];
    return {
      name: `SparseTensorDenseMatMul${ta ? '_adjoint_a' : ''}${tb ? '_adjoint_b' : ''}`,
      build(g) {
        const [v, b] = inputs(g);
        g.output(g.op('SparseTensorDenseMatMul', [g.const('indices', 'int64', [4, 2], idx), v,
          g.const('shape', 'int64', [2], ta ? [3, 3] : [3, 3]), b], { T: F, Tindices: A.type('int64'), adjoint_a: A.b(ta), adjoint_b: A.b(tb) }));
      },
      reference(g) {
        const [v, b] = inputs(g);
        const dense = g.op('SparseToDense', [g.const('indices', 'int32', [4, 2], idx), g.const('shape', 'int32', [2], [3, 3]), v,
          g.const('zero', 'float32', [], [0])], { T: F, Tindices: I, validate_indices: A.b(true) });
        g.output(g.op('MatMul', [dense, b], { T: F, transpose_a: A.b(ta), transpose_b: A.b(tb) }));
      },
    };
  }),
];
