// Random draws: TruncatedNormal, RandomUniformInt, Multinomial. The runner compares draws by type and shape only
// (src/testing/compare.h), so each case also maps the draws to a property every correct sampler gives (0 or 1
// everywhere): the truncation to [-2, 2], the range [minval, maxval), class indices below the class count.
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const I = A.type('int32');

export const cases = [
  {
    // |x| <= 2, so floor(|x| * 0.4999) is 0 (it would be 1 from |x| >= 2.0004).
    name: 'TruncatedNormal_within_two',
    build(g) {
      const n = g.op('TruncatedNormal', [g.const('shape', 'int32', [2], [40, 50])], { T: I, dtype: A.type('float32'), seed: A.i(3), seed2: A.i(4) });
      g.output(g.op('Floor', [g.op('Mul', [g.op('Abs', [n], f32), g.const('k', 'float32', [], [0.4999])], f32)], f32));
    },
  },
  {
    // Draws in [minval, maxval): (x >= 3) and (x < 7) is 1 everywhere.
    name: 'RandomUniformInt_in_range',
    build(g) {
      const x = g.input('x', 'float32', [6, 5], undefined, [-1, 5]);
      const shape = g.op('Shape', [x], { ...f32, out_type: I });
      const r = g.op('RandomUniformInt', [shape, g.const('lo', 'int32', [], [3]), g.const('hi', 'int32', [], [7])],
        { T: I, Tout: I, seed: A.i(0), seed2: A.i(0) });
      const inside = g.op('LogicalAnd', [g.op('GreaterEqual', [r, g.const('lo2', 'int32', [], [3])], { T: I }),
        g.op('Less', [r, g.const('hi2', 'int32', [], [7])], { T: I })]);
      g.output(g.op('Cast', [inside], { SrcT: A.type('bool'), DstT: A.type('float32') }));
    },
  },
  {
    // Sampled classes are below the class count (4).
    name: 'Multinomial_class_range',
    build(g) {
      const logits = g.input('logits', 'float32', [3, 4]);
      const s = g.op('Multinomial', [logits, g.const('n', 'int32', [], [10])], { ...f32, output_dtype: A.type('int32'), seed: A.i(0), seed2: A.i(0) });
      const ok = g.op('Less', [s, g.const('classes', 'int32', [], [4])], { T: I });
      g.output(g.op('Cast', [ok, ], { SrcT: A.type('bool'), DstT: A.type('float32') }));
    },
  },
];
