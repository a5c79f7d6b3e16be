// Cases for converted operators that had none. Reference graphs of ops TF.js runs, spelling out TensorFlow's
// definitions: EnsureShape (TF.js's graph loader fails on it; an identity), Softsign, the 2-D and 3-D FFTs.
// expected() in JS: BitwiseAnd (TF.js's graph loader passes it no inputs; tf.bitwiseAnd itself runs),
// FakeQuantWithMinMaxArgs (TensorFlow's kernel, FakeQuantWithMinMaxArgsFunctor with its Nudge, in float32), and
// the new QuantizeAndDequantizeV2/V3/V4 and FakeQuantWithMinMaxVarsPerChannel, which TF.js lacks.
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const C = { T: A.type('float32'), Tout: A.type('complex64') };
const toReal = { T: A.type('complex64'), Tout: A.type('float32') };
const cx = { Tcomplex: A.type('complex64') };
const rfftTypes = { Treal: A.type('float32'), Tcomplex: A.type('complex64') };
const I = A.type('int32');

function complexIn(g, shape) {
  return g.op('Complex', [g.input('re', 'float32', shape), g.input('im', 'float32', shape)], C);
}
function parts(g, c) {
  g.output(g.op('Real', [c], toReal));
  g.output(g.op('Imag', [c], toReal));
}
// The complex tensor c transposed by perm (Transposes of its parts).
function permute(g, c, perm) {
  const p = g.const('perm', 'int32', [perm.length], perm);
  const t = (v) => g.op('Transpose', [v, p], { ...f32, Tperm: I });
  return g.op('Complex', [t(g.op('Real', [c], toReal)), t(g.op('Imag', [c], toReal))], C);
}
// perm swapping axes a and b of a rank-r tensor.
const swap = (r, a, b) => {
  const p = [...Array(r).keys()];
  [p[a], p[b]] = [p[b], p[a]];
  return p;
};
// A 1-D transform `op` along axis `axis` (< 0 from the end) of complex c of rank r: moved last and back.
function along(g, op, c, r, axis) {
  const a = (axis + r) % r;
  if (a === r - 1) return g.op(op, [c], cx);
  const p = swap(r, a, r - 1);
  return permute(g, g.op(op, [permute(g, c, p)], cx), p);
}

function fft3d(name, op, shape) {
  const one = op === 'FFT3D' ? 'FFT' : 'IFFT';
  return {
    name,
    build(g) { parts(g, g.op(op, [complexIn(g, shape)], cx)); },
    reference(g) {
      const r = shape.length;
      let c = complexIn(g, shape);
      for (const axis of [-1, -2, -3]) c = along(g, one, c, r, axis);
      parts(g, c);
    },
  };
}

// TF's FakeQuantWithMinMaxArgs in float32 (tensorflow/core/kernels/fake_quant_ops_functor.h).
function fakeQuantArgs(x, min, max, numBits, narrow) {
  const f = Math.fround;
  const qmin = narrow ? 1 : 0;
  const qmax = 2 ** numBits - 1;
  if (min === 0 && max === 0) return x.map(() => 0);
  const scale = f(f(max - min) / f(qmax - qmin));
  const zeroFromMin = f(qmin - f(min / scale));
  // StdRound: half away from zero.
  const zero = zeroFromMin < qmin ? qmin : zeroFromMin > qmax ? qmax : Math.sign(zeroFromMin) * Math.round(Math.abs(zeroFromMin));
  const nudgedMin = f(f(qmin - zero) * scale);
  const nudgedMax = f(f(qmax - zero) * scale);
  const inv = f(1 / scale);
  return x.map((v) => {
    const clamped = Math.max(Math.min(v, nudgedMax), nudgedMin);
    return f(f(Math.floor(f(f(f(clamped - nudgedMin) * inv) + 0.5)) * scale) + nudgedMin);
  });
}

function fakeQuantArgsCase(name, min, max, numBits, narrow, fill = undefined) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [4, 6], fill);
      g.output(g.op('FakeQuantWithMinMaxArgs', [x], { min: A.f(min), max: A.f(max), num_bits: A.i(numBits), narrow_range: A.b(narrow) }));
    },
    async expected(t) {
      const x = Array.from(await t.x.data());
      return [{ dtype: 'float32', shape: [4, 6], values: fakeQuantArgs(x, min, max, numBits, narrow) }];
    },
  };
}

// TF's QuantizeAndDequantize (QuantizeAndDequantizeOneScaleImpl, quantize_and_dequantize_op.h) in float32.
function roundHalfEven(v) {
  const fl = Math.floor(v);
  const d = v - fl;
  if (d !== 0.5) return d > 0.5 ? fl + 1 : fl;
  return fl % 2 === 0 ? fl : fl + 1;
}
function quantizeAndDequantize(x, o) {
  const f = Math.fround;
  let lo = o.rangeGiven ? f(o.lo) : Math.min(...x);
  let hi = o.rangeGiven ? f(o.hi) : Math.max(...x);
  const half = 2 ** (o.bits - 1);
  const qmin = o.signed ? (o.narrow ? -half + 1 : -half) : 0;
  const qmax = o.signed ? half - 1 : 2 ** o.bits - 1;
  const FLT_MAX = 3.4028234663852886e38;
  const fromMin = qmin * lo > 0 ? f(qmin / lo) : FLT_MAX;
  const fromMax = qmax * hi > 0 ? f(qmax / hi) : FLT_MAX;
  let scale, inverse;
  if (fromMin < fromMax) {
    scale = fromMin; inverse = f(lo / qmin); hi = f(qmax * inverse);
  } else {
    scale = fromMax; inverse = f(hi / qmax); lo = f(qmin * inverse);
  }
  return x.map((v) => {
    if (o.rangeGiven) v = Math.max(Math.min(v, hi), lo);
    const s = f(v * scale);
    return f((o.halfUp ? Math.floor(f(s + 0.5)) : roundHalfEven(s)) * inverse);
  });
}

// op: V2, V3 (num_bits an input) or V4; o: {lo, hi, rangeGiven, signed, bits, narrow, halfUp}.
function qdqCase(name, op, shape, o, fill = undefined) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', shape, fill);
      const ins = [x, g.const('input_min', 'float32', [], [o.lo]), g.const('input_max', 'float32', [], [o.hi])];
      const attrs = { ...f32, signed_input: A.b(o.signed), range_given: A.b(o.rangeGiven), narrow_range: A.b(o.narrow),
                      axis: A.i(-1) };
      if (op === 'QuantizeAndDequantizeV3') ins.push(g.const('num_bits', 'int32', [], [o.bits]));
      else Object.assign(attrs, { num_bits: A.i(o.bits), round_mode: A.s(o.halfUp ? 'HALF_UP' : 'HALF_TO_EVEN') });
      g.output(g.op(op, ins, attrs));
    },
    async expected(t) {
      return [{ dtype: 'float32', shape, values: quantizeAndDequantize(Array.from(await t.x.data()), o) }];
    },
  };
}

// TF's FakeQuantWithMinMaxVarsPerChannel (Nudge per channel of the last axis, then floor(v / scale + 0.5)).
function fakeQuantPerChannel(x, depth, mins, maxs, bits, narrow) {
  const f = Math.fround;
  const qmin = narrow ? 1 : 0;
  const qmax = 2 ** bits - 1;
  const ch = mins.map((min, i) => {
    const max = maxs[i];
    const scale = f(f(max - min) / f(qmax - qmin));
    const zeroFromMin = f(qmin - f(min / scale));
    const zero = zeroFromMin < qmin ? qmin : zeroFromMin > qmax ? qmax : Math.round(zeroFromMin);
    return { scale, lo: f(f(qmin - zero) * scale), hi: f(f(qmax - zero) * scale) };
  });
  return x.map((v, k) => {
    const { scale, lo, hi } = ch[k % depth];
    const shifted = f(Math.max(Math.min(v, hi), lo) - lo);
    return f(f(Math.floor(f(f(shifted / scale) + 0.5)) * scale) + lo);
  });
}

function fakeQuantPerChannelCase(name, shape, mins, maxs, bits, narrow) {
  const d = mins.length;
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', shape, { uniform: [-3, 3] });
      const lo = g.const('min', 'float32', [d], mins);
      const hi = g.const('max', 'float32', [d], maxs);
      g.output(g.op('FakeQuantWithMinMaxVarsPerChannel', [x, lo, hi], { num_bits: A.i(bits), narrow_range: A.b(narrow) }));
    },
    async expected(t) {
      return [{ dtype: 'float32', shape, values: fakeQuantPerChannel(Array.from(await t.x.data()), d, mins, maxs, bits, narrow) }];
    },
  };
}

const ties = { values: [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -5, 0.25, -3.5] };

export const cases = [
  {
    name: 'EnsureShape_float32',
    build(g) {
      const x = g.input('x', 'float32', [2, 3], undefined, [-1, 3]);
      g.output(g.op('EnsureShape', [x], { ...f32, shape: A.shape([2, 3]) }));
    },
    reference(g) {
      const x = g.input('x', 'float32', [2, 3], undefined, [-1, 3]);
      g.output(g.op('Identity', [x], f32));
    },
  },
  {
    name: 'EnsureShape_int32_partial',
    build(g) {
      const x = g.input('x', 'int32', [4, 2, 2], undefined, [-1, -1, 2]);
      const y = g.op('EnsureShape', [x], { T: I, shape: A.shape([-1, 2, 2]) });
      g.output(g.op('AddV2', [y, y], { T: I }));
    },
    reference(g) {
      const x = g.input('x', 'int32', [4, 2, 2], undefined, [-1, -1, 2]);
      g.output(g.op('AddV2', [x, x], { T: I }));
    },
  },
  {
    name: 'BitwiseAnd_int32',
    build(g) {
      const a = g.input('a', 'int32', [2, 5], { int: [-100, 100] });
      const b = g.input('b', 'int32', [2, 5], { int: [-100, 100] });
      g.output(g.op('BitwiseAnd', [a, b], { T: I }));
    },
    expected: (t, tf) => [tf.bitwiseAnd(t.a, t.b)],
  },
  {
    name: 'BitwiseAnd_int32_broadcast',
    build(g) {
      const a = g.input('a', 'int32', [3, 4], { int: [-1000, 1000] });
      const b = g.const('mask', 'int32', [4], [0x0f, -16, 0x55, -1]);
      g.output(g.op('BitwiseAnd', [a, b], { T: I }));
    },
    expected: (t, tf) => [tf.bitwiseAnd(t.a, tf.broadcastTo(t.mask, [3, 4]))],
  },
  {
    // softsign(x) = x / (|x| + 1)
    name: 'Softsign_float32',
    build(g) { g.output(g.op('Softsign', [g.input('x', 'float32', [3, 5], { uniform: [-6, 6] })], f32)); },
    reference(g) {
      const x = g.input('x', 'float32', [3, 5], { uniform: [-6, 6] });
      const den = g.op('AddV2', [g.op('Abs', [x], f32), g.const('one', 'float32', [], [1])], f32);
      g.output(g.op('RealDiv', [x, den], f32));
    },
  },
  {
    // RFFT2D(x, [h, w]) = the FFT along axis -2 of the RFFT along axis -1.
    name: 'RFFT2D_3x8',
    build(g) {
      const x = g.input('x', 'float32', [2, 3, 8]);
      parts(g, g.op('RFFT2D', [x, g.const('fft_length', 'int32', [2], [3, 8])], rfftTypes));
    },
    reference(g) {
      const x = g.input('x', 'float32', [2, 3, 8]);
      const inner = g.op('RFFT', [x, g.const('fft_length', 'int32', [1], [8])], rfftTypes);
      parts(g, along(g, 'FFT', inner, 3, -2));
    },
  },
  {
    // IRFFT2D(c, [h, w]) = the IRFFT (length w) along axis -1 of the IFFT along axis -2.
    // (Without the batch dim, [4, 4], onyx's IRFFT2D fails: see the report.)
    name: 'IRFFT2D_4x6',
    build(g) {
      g.output(g.op('IRFFT2D', [complexIn(g, [2, 4, 4]), g.const('fft_length', 'int32', [2], [4, 6])], rfftTypes));
    },
    reference(g) {
      const outer = along(g, 'IFFT', complexIn(g, [2, 4, 4]), 3, -2);
      g.output(g.op('IRFFT', [outer, g.const('fft_length', 'int32', [1], [6])], rfftTypes));
    },
  },
  fft3d('FFT3D_2x3x4', 'FFT3D', [2, 3, 4]),
  fft3d('IFFT3D_2x2x3x4', 'IFFT3D', [2, 2, 3, 4]),
  qdqCase('QuantizeAndDequantizeV2_input_range', 'QuantizeAndDequantizeV2', [3, 5],
    { lo: 0, hi: 0, rangeGiven: false, signed: true, bits: 8, narrow: false }),
  qdqCase('QuantizeAndDequantizeV2_given_narrow_half_up', 'QuantizeAndDequantizeV2', [4, 4],
    { lo: -1, hi: 2, rangeGiven: true, signed: true, bits: 4, narrow: true, halfUp: true }, { uniform: [-3, 3] }),
  qdqCase('QuantizeAndDequantizeV3_unsigned', 'QuantizeAndDequantizeV3', [2, 6],
    { lo: 0, hi: 1.5, rangeGiven: true, signed: false, bits: 6, narrow: false }),
  qdqCase('QuantizeAndDequantizeV4_ties_half_even', 'QuantizeAndDequantizeV4', [10],
    { lo: -4, hi: 3, rangeGiven: true, signed: true, bits: 3, narrow: false }, ties),
  qdqCase('QuantizeAndDequantizeV4_ties_half_up', 'QuantizeAndDequantizeV4', [10],
    { lo: -4, hi: 3, rangeGiven: true, signed: true, bits: 3, narrow: false, halfUp: true }, ties),
  fakeQuantPerChannelCase('FakeQuantWithMinMaxVarsPerChannel_2d', [3, 4], [-1, -2, 0, -0.5], [1, 2, 3, 0.25], 8, false),
  fakeQuantPerChannelCase('FakeQuantWithMinMaxVarsPerChannel_4d_narrow', [1, 2, 2, 3], [-2.5, -1, -0.1], [2.5, 0.5, 1], 4, true),
  fakeQuantArgsCase('FakeQuantWithMinMaxArgs_default', -6, 6, 8, false, { uniform: [-8, 8] }),
  fakeQuantArgsCase('FakeQuantWithMinMaxArgs_4bit_narrow', -1, 1.5, 4, true),
  fakeQuantArgsCase('FakeQuantWithMinMaxArgs_positive_range', 0.5, 2, 6, false, { uniform: [-1, 3] }),
];
