// data_format NCHW / NCDHW forms of the layout-sensitive operators (frozen graphs trained on GPUs hold them) and
// MaxPoolV2 (ksize and strides as inputs). TF.js runs channels-last only; TensorFlow defines the channels-first op
// as the channels-last one on transposed data, so each reference graph is that: Transpose, the NHWC op with its
// per-dimension attributes permuted, Transpose back (MaxPoolV2's: MaxPool with the attributes).
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };

function vals(n, seed = 1) {
  const out = [];
  let s = seed * 7919 + 17;
  for (let i = 0; i < n; ++i) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(Math.round(((s / 2147483648) * 2 - 1) * 1000) / 1000);
  }
  return out;
}
const size = (shape) => shape.reduce((a, b) => a * b, 1);

// channels-first dim k is channels-last dim toLast[k]'s source: NCHW [n, c, h, w] -> NHWC [n, h, w, c].
const toLast = (rank) => (rank === 4 ? [0, 2, 3, 1] : [0, 2, 3, 4, 1]);
const toFirst = (rank) => (rank === 4 ? [0, 3, 1, 2] : [0, 4, 1, 2, 3]);
const permList = (list, rank) => toLast(rank).map((k) => list[k]);
const permPairs = (list, rank) => toLast(rank).flatMap((k) => [list[2 * k], list[2 * k + 1]]);

// op(x, ...consts) with data_format NCHW (NCDHW for rank 5). attrs: the op's attributes with channels-first
// lists (strides, ksize, dilations, explicit_paddings); consts: [name, shape] of constant inputs after x.
function channelsFirst(name, op, xShape, attrs, consts = [], opts = {}) {
  const rank = xShape.length;
  const format = rank === 4 ? 'NCHW' : 'NCDHW';
  const addConsts = (g) => consts.map(([n, shape, values], k) => g.const(n, 'float32', shape, values || vals(size(shape), k + 2)));
  const outputs = opts.outputs || 1;
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape, opts.fill, opts.dims);
      const y = g.op(op, [x, ...addConsts(g)], { ...f32, ...attrs, data_format: A.s(format) });
      for (let k = 0; k < outputs; ++k) g.output(`${y}:${k}`);
    },
    reference(g) {
      const x = g.input('x', 'float32', xShape, opts.fill, opts.dims);
      const perm = (p, n) => g.const(n, 'int32', [rank], p);
      const xl = g.op('Transpose', [x, perm(toLast(rank), 'to_last')], { ...f32, Tperm: A.type('int32') });
      const last = { ...attrs, data_format: A.s(rank === 4 ? 'NHWC' : 'NDHWC') };
      for (const key of ['strides', 'ksize', 'dilations']) {
        if (attrs[key]) last[key] = A.ints(permList(attrs[key].list.i.map(Number), rank));
      }
      if (attrs.explicit_paddings) last.explicit_paddings = A.ints(permPairs(attrs.explicit_paddings.list.i.map(Number), rank));
      const y = g.op(op, [xl, ...addConsts(g)], { ...f32, ...last });
      const back = perm(toFirst(rank), 'to_first');
      g.output(g.op('Transpose', [`${y}:0`, back], { ...f32, Tperm: A.type('int32') }));
      for (let k = 1; k < outputs; ++k) g.output(`${y}:${k}`);
    },
  };
}

const win = (strides, padding, extra = {}) => ({ strides: A.ints(strides), padding: A.s(padding), ...extra });

function maxPoolV2(name, xShape, ksize, strides, padding, format = 'NHWC') {
  const attrs = (g) => ({ ...f32, padding: A.s(padding), data_format: A.s(format) });
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape);
      const k = g.const('ksize', 'int32', [4], ksize);
      const s = g.const('strides', 'int32', [4], strides);
      g.output(g.op('MaxPoolV2', [x, k, s], attrs(g)));
    },
    reference(g) {
      const x = g.input('x', 'float32', xShape);
      if (format === 'NHWC') {
        g.output(g.op('MaxPool', [x], { ...attrs(g), ksize: A.ints(ksize), strides: A.ints(strides) }));
        return;
      }
      const xl = g.op('Transpose', [x, g.const('to_last', 'int32', [4], toLast(4))], { ...f32, Tperm: A.type('int32') });
      const y = g.op('MaxPool', [xl], { ...f32, padding: A.s(padding), data_format: A.s('NHWC'),
                                        ksize: A.ints(permList(ksize, 4)), strides: A.ints(permList(strides, 4)) });
      g.output(g.op('Transpose', [y, g.const('to_first', 'int32', [4], toFirst(4))], { ...f32, Tperm: A.type('int32') }));
    },
  };
}

// SpaceToDepth(x, block_size b), which TF.js lacks, spelled out as TensorFlow defines it: the b x b blocks become
// channels, output channel (by * b + bx) * C + c. NHWC: [n, H, W, C] -> [n, H/b, b, W/b, b, C] -> [n, H/b, W/b,
// b, b, C]; NCHW: [n, C, H, W] -> [n, C, H/b, b, W/b, b] -> [n, b, b, C, H/b, W/b].
function spaceToDepth(name, xShape, b, format, dims = undefined) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape, undefined, dims);
      g.output(g.op('SpaceToDepth', [x], { ...f32, block_size: A.i(b), data_format: A.s(format) }));
    },
    reference(g) {
      const x = g.input('x', 'float32', xShape, undefined, dims);
      const [n, d1, d2, d3] = xShape;
      const nhwc = format === 'NHWC';
      const split = nhwc ? [n, d1 / b, b, d2 / b, b, d3] : [n, d1, d2 / b, b, d3 / b, b];
      const perm = nhwc ? [0, 1, 3, 2, 4, 5] : [0, 3, 5, 1, 2, 4];
      const out = nhwc ? [n, d1 / b, d2 / b, b * b * d3] : [n, b * b * d1, d2 / b, d3 / b];
      const r = g.op('Reshape', [x, g.const('split', 'int32', [6], split)], { ...f32, Tshape: A.type('int32') });
      const t = g.op('Transpose', [r, g.const('perm', 'int32', [6], perm)], { ...f32, Tperm: A.type('int32') });
      g.output(g.op('Reshape', [t, g.const('out', 'int32', [4], out)], { ...f32, Tshape: A.type('int32') }));
    },
  };
}

export const cases = [
  channelsFirst('Conv2D_nchw_same_stride2', 'Conv2D', [1, 3, 7, 6], win([1, 1, 2, 2], 'SAME', { dilations: A.ints([1, 1, 1, 1]) }),
    [['filter', [3, 3, 3, 4]]]),
  channelsFirst('Conv2D_nchw_valid_dilation_unknown_dims', 'Conv2D', [2, 2, 9, 8],
    win([1, 1, 1, 1], 'VALID', { dilations: A.ints([1, 1, 2, 3]) }), [['filter', [2, 3, 2, 3]]], { dims: [-1, 2, -1, -1] }),
  channelsFirst('Conv2D_nchw_explicit', 'Conv2D', [1, 2, 6, 5],
    win([1, 1, 2, 1], 'EXPLICIT', { dilations: A.ints([1, 1, 1, 1]), explicit_paddings: A.ints([0, 0, 0, 0, 1, 2, 0, 1]) }),
    [['filter', [3, 3, 2, 2]]]),
  channelsFirst('DepthwiseConv2dNative_nchw', 'DepthwiseConv2dNative', [1, 3, 6, 7],
    win([1, 1, 2, 2], 'SAME', { dilations: A.ints([1, 1, 1, 1]) }), [['filter', [3, 3, 3, 2]]]),
  channelsFirst('Conv3D_ncdhw', 'Conv3D', [1, 2, 5, 4, 6], win([1, 1, 2, 1, 2], 'SAME', { dilations: A.ints([1, 1, 1, 1, 1]) }),
    [['filter', [2, 3, 2, 2, 3]]]),
  channelsFirst('MaxPool_nchw_same', 'MaxPool', [2, 3, 7, 6], win([1, 1, 2, 2], 'SAME', { ksize: A.ints([1, 1, 3, 3]) })),
  channelsFirst('AvgPool_nchw_valid', 'AvgPool', [1, 2, 7, 8], win([1, 1, 2, 3], 'VALID', { ksize: A.ints([1, 1, 2, 3]) })),
  channelsFirst('MaxPool3D_ncdhw', 'MaxPool3D', [1, 2, 5, 4, 6], win([1, 1, 2, 2, 2], 'SAME', { ksize: A.ints([1, 1, 2, 3, 2]) })),
  channelsFirst('AvgPool3D_ncdhw', 'AvgPool3D', [1, 2, 5, 4, 5], win([1, 1, 1, 2, 2], 'VALID', { ksize: A.ints([1, 1, 3, 2, 2]) })),
  channelsFirst('BiasAdd_nchw', 'BiasAdd', [2, 3, 4, 5], {}, [['bias', [3]]]),
  channelsFirst('FusedBatchNormV3_nchw', 'FusedBatchNormV3', [2, 3, 4, 5],
    { U: A.type('float32'), epsilon: A.f(0.001), is_training: A.b(false) },
    [['scale', [3]], ['offset', [3]], ['mean', [3]], ['variance', [3], [0.5, 1.5, 2]]]),
  channelsFirst('DepthToSpace_nchw', 'DepthToSpace', [1, 8, 2, 3], { block_size: A.i(2) }),
  spaceToDepth('SpaceToDepth_nhwc', [2, 4, 6, 3], 2, 'NHWC'),
  spaceToDepth('SpaceToDepth_nhwc_block3_unknown_dims', [1, 6, 3, 2], 3, 'NHWC', [-1, -1, -1, 2]),
  spaceToDepth('SpaceToDepth_nchw', [1, 2, 4, 6], 2, 'NCHW'),
  maxPoolV2('MaxPoolV2_same', [1, 7, 6, 3], [1, 3, 3, 1], [1, 2, 2, 1], 'SAME'),
  maxPoolV2('MaxPoolV2_nchw_valid', [1, 2, 7, 6], [1, 1, 2, 3], [1, 1, 2, 1], 'VALID', 'NCHW'),
];
