// Complex numbers and FFTs (TF.js op list spectral.js, plus Complex/Real/Imag/ComplexAbs). Complex tensors cannot be
// graph outputs here (the generator writes no complex files): every graph ends in Real, Imag or ComplexAbs. TF.js
// runs the 1-D transforms; the 2-D ones and Conj have reference graphs made of those (a 2-D FFT is a 1-D FFT of
// each axis in turn: the outer axis through Transposes of the real and imaginary parts).
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const C = { T: A.type('float32'), Tout: A.type('complex64') };
const toReal = { T: A.type('complex64'), Tout: A.type('float32') };
const cx = { Tcomplex: A.type('complex64') };
const I = A.type('int32');

function complexIn(g, shapeRe, shapeIm = shapeRe) {
  return g.op('Complex', [g.input('re', 'float32', shapeRe), g.input('im', 'float32', shapeIm)], C);
}
function parts(g, c) {
  g.output(g.op('Real', [c], toReal));
  g.output(g.op('Imag', [c], toReal));
}

function transform(op, shape) {
  return {
    name: `${op}_${shape.join('x')}`,
    build(g) { parts(g, g.op(op, [complexIn(g, shape)], cx)); },
  };
}

// The complex tensor c with its last two axes swapped (Transposes of its parts).
function swapLast(g, c, rank) {
  const perm = g.const('perm', 'int32', [rank], [...Array(rank - 2).keys(), rank - 1, rank - 2]);
  const t = (v) => g.op('Transpose', [v, perm], { ...f32, Tperm: I });
  return g.op('Complex', [t(g.op('Real', [c], toReal)), t(g.op('Imag', [c], toReal))], C);
}

export const cases = [
  {
    // TF's Complex broadcasts its operands (onyx does too), TF.js's requires one shape: the case keeps one shape.
    name: 'Complex_Real_Imag',
    build(g) { parts(g, complexIn(g, [2, 3])); },
  },
  {
    name: 'ComplexAbs_float32',
    build(g) { g.output(g.op('ComplexAbs', [complexIn(g, [3, 4])], toReal)); },
  },
  transform('FFT', [8]),
  transform('FFT', [2, 6]),
  transform('FFT', [2, 2, 5]),
  transform('IFFT', [3, 8]),
  transform('IFFT', [7]),
  {
    name: 'RFFT_2x8',
    build(g) {
      const y = g.op('RFFT', [g.input('x', 'float32', [2, 8]), g.const('fft_length', 'int32', [1], [8])], { Treal: A.type('float32'), Tcomplex: A.type('complex64') });
      parts(g, y);
    },
  },
  {
    name: 'RFFT_odd_length_abs',
    build(g) {
      const y = g.op('RFFT', [g.input('x', 'float32', [3, 7]), g.const('fft_length', 'int32', [1], [7])], { Treal: A.type('float32'), Tcomplex: A.type('complex64') });
      g.output(g.op('ComplexAbs', [y], toReal));
    },
  },
  {
    name: 'IRFFT_2x5_to_8',
    build(g) {
      g.output(g.op('IRFFT', [complexIn(g, [2, 5]), g.const('fft_length', 'int32', [1], [8])], { Treal: A.type('float32'), Tcomplex: A.type('complex64') }));
    },
  },
  {
    // RFFT then IRFFT gives the signal back.
    name: 'IRFFT_of_RFFT_6',
    build(g) {
      const x = g.input('x', 'float32', [3, 6]);
      const n = g.const('fft_length', 'int32', [1], [6]);
      const types = { Treal: A.type('float32'), Tcomplex: A.type('complex64') };
      g.output(g.op('IRFFT', [g.op('RFFT', [x, n], types), g.const('n2', 'int32', [1], [6])], types));
    },
  },
  {
    name: 'Conj_float32',
    build(g) { parts(g, g.op('Conj', [complexIn(g, [2, 3])], { T: A.type('complex64') })); },
    reference(g) {
      const c = complexIn(g, [2, 3]);
      g.output(g.op('Real', [c], toReal));
      g.output(g.op('Neg', [g.op('Imag', [c], toReal)], f32));
    },
  },
  {
    name: 'FFT2D_3x4',
    build(g) { parts(g, g.op('FFT2D', [complexIn(g, [2, 3, 4])], cx)); },
    reference(g) {
      const inner = g.op('FFT', [complexIn(g, [2, 3, 4])], cx);
      parts(g, swapLast(g, g.op('FFT', [swapLast(g, inner, 3)], cx), 3));
    },
  },
  {
    name: 'IFFT2D_4x4',
    build(g) { parts(g, g.op('IFFT2D', [complexIn(g, [4, 4])], cx)); },
    reference(g) {
      const inner = g.op('IFFT', [complexIn(g, [4, 4])], cx);
      parts(g, swapLast(g, g.op('IFFT', [swapLast(g, inner, 2)], cx), 2));
    },
  },
];
