// LSTMBlockCell and GRUBlockCell. TF.js cannot run them: each case's reference is the same cell written out with
// MatMul, Sigmoid and Tanh from TensorFlow's documented equations (tensorflow/core/kernels/rnn/lstm_ops.h and
// gru_ops.h), which TF.js runs; onyx's converter is not involved in it.
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const I = A.type('int32');
const B = 2, IN = 3, H = 4;

const seq = (n, a, b) => Array.from({ length: n }, (_, k) => Math.round(100 * Math.sin(a * k + b)) / 100);

function lstmInputs(g) {
  return {
    x: g.input('x', 'float32', [B, IN]),
    cs: g.input('cs_prev', 'float32', [B, H]),
    h: g.input('h_prev', 'float32', [B, H]),
    w: g.const('w', 'float32', [IN + H, 4 * H], seq((IN + H) * 4 * H, 0.7, 0.1)),
    wci: g.const('wci', 'float32', [H], seq(H, 1.3, 0.2)),
    wcf: g.const('wcf', 'float32', [H], seq(H, 0.9, 0.4)),
    wco: g.const('wco', 'float32', [H], seq(H, 1.7, 0.3)),
    b: g.const('b', 'float32', [4 * H], seq(4 * H, 0.5, 0.5)),
  };
}

const OUT = ['i', 'cs', 'f', 'o', 'ci', 'co', 'h'];

function lstm(name, attrs) {
  const forgetBias = attrs.forget_bias ?? 1;
  const clip = attrs.cell_clip ?? 3;
  const peep = attrs.use_peephole ?? false;
  return {
    name,
    build(g) {
      const v = lstmInputs(g);
      const cell = g.op('LSTMBlockCell', [v.x, v.cs, v.h, v.w, v.wci, v.wcf, v.wco, v.b],
        { ...f32, forget_bias: A.f(forgetBias), cell_clip: A.f(clip), use_peephole: A.b(peep) });
      OUT.forEach((_, k) => g.output(`${cell}:${k}`));
    },
    reference(g) {
      const v = lstmInputs(g);
      const op = (o, ins, extra = {}) => g.op(o, ins, { ...f32, ...extra });
      const xh = op('ConcatV2', [v.x, v.h, g.const('axis', 'int32', [], [1])], { N: A.i(2), Tidx: I });
      const gates = op('BiasAdd', [op('MatMul', [xh, v.w], { transpose_a: A.b(false), transpose_b: A.b(false) }), v.b]);
      const split = op('Split', [g.const('split_axis', 'int32', [], [1]), gates], { num_split: A.i(4) });
      let [i, ci, f, o] = [0, 1, 2, 3].map((k) => `${split}:${k}`);
      if (peep) {
        i = op('AddV2', [i, op('Mul', [v.cs, v.wci])]);
        f = op('AddV2', [f, op('Mul', [v.cs, v.wcf])]);
      }
      i = op('Sigmoid', [i]);
      f = op('Sigmoid', [op('AddV2', [f, g.const('forget_bias', 'float32', [], [forgetBias])])]);
      ci = op('Tanh', [ci]);
      let cs = op('AddV2', [op('Mul', [ci, i]), op('Mul', [v.cs, f])]);
      if (clip > 0) cs = op('ClipByValue', [cs, g.const('lo', 'float32', [], [-clip]), g.const('hi', 'float32', [], [clip])]);
      if (peep) o = op('AddV2', [o, op('Mul', [cs, v.wco])]);
      o = op('Sigmoid', [o]);
      const co = op('Tanh', [cs]);
      const h = op('Mul', [co, o]);
      [i, cs, f, o, ci, co, h].forEach((t) => g.output(t));
    },
  };
}

function gruInputs(g) {
  return {
    x: g.input('x', 'float32', [B, IN]),
    h: g.input('h_prev', 'float32', [B, H]),
    wru: g.const('w_ru', 'float32', [IN + H, 2 * H], seq((IN + H) * 2 * H, 0.8, 0.3)),
    wc: g.const('w_c', 'float32', [IN + H, H], seq((IN + H) * H, 1.1, 0.6)),
    bru: g.const('b_ru', 'float32', [2 * H], seq(2 * H, 0.4, 0.2)),
    bc: g.const('b_c', 'float32', [H], seq(H, 0.6, 0.9)),
  };
}

export const cases = [
  lstm('LSTMBlockCell_default', {}),
  lstm('LSTMBlockCell_peephole_no_clip', { use_peephole: true, cell_clip: -1, forget_bias: 0.5 }),
  lstm('LSTMBlockCell_tight_clip', { cell_clip: 0.3 }),
  {
    name: 'GRUBlockCell_float32',
    build(g) {
      const v = gruInputs(g);
      const cell = g.op('GRUBlockCell', [v.x, v.h, v.wru, v.wc, v.bru, v.bc], f32);
      for (let k = 0; k < 4; ++k) g.output(`${cell}:${k}`);
    },
    reference(g) {
      const v = gruInputs(g);
      const op = (o, ins, extra = {}) => g.op(o, ins, { ...f32, ...extra });
      const cat = (a, b) => op('ConcatV2', [a, b, g.const('axis', 'int32', [], [1])], { N: A.i(2), Tidx: I });
      const mm = (a, w) => op('MatMul', [a, w], { transpose_a: A.b(false), transpose_b: A.b(false) });
      const ru = op('Sigmoid', [op('BiasAdd', [mm(cat(v.x, v.h), v.wru), v.bru])]);
      const split = op('Split', [g.const('split_axis', 'int32', [], [1]), ru], { num_split: A.i(2) });
      const r = `${split}:0`, u = `${split}:1`;
      const c = op('Tanh', [op('BiasAdd', [mm(cat(v.x, op('Mul', [r, v.h])), v.wc), v.bc])]);
      const h = op('AddV2', [op('Mul', [u, v.h]), op('Mul', [op('Sub', [g.const('one', 'float32', [], [1]), u]), c])]);
      [r, u, c, h].forEach((t) => g.output(t));
    },
  },
];
