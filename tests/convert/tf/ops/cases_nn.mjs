// Convolutions, pooling, normalization, matrix products (TF.js op lists convolution.js, normalization.js,
// matrices.js). Inputs channels-last with odd sizes and strides that do not divide them.
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const i32 = { T: A.type('int32') };

// Deterministic constant values in [-1, 1) (weights; inputs are seeded by gen_cases.mjs).
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
const constOf = (g, name, shape, seed) => g.const(name, 'float32', shape, vals(size(shape), seed));

function window(strides, padding, extra = {}) {
  return { strides: A.ints(strides), padding: A.s(padding), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]), ...extra };
}

// Conv2D / DepthwiseConv2dNative with a constant filter.
function conv(name, op, xShape, fShape, strides, padding, extra = {}, dims = undefined) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape, undefined, dims);
      const w = constOf(g, 'filter', fShape, 3);
      g.output(g.op(op, [x, w], { ...f32, ...window(strides, padding, extra) }));
    },
  };
}

// _FusedConv2D / FusedDepthwiseConv2dNative: BiasAdd then an optional activation (Prelu takes an alpha argument).
function fusedConv(name, op, fusedOps, outChannels, extra = {}) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [1, 6, 5, 3]);
      const w = constOf(g, 'filter', op === '_FusedConv2D' ? [3, 3, 3, outChannels] : [3, 3, 3, outChannels / 3], 5);
      const args = [constOf(g, 'bias', [outChannels], 6)];
      if (fusedOps.includes('Prelu')) args.push(constOf(g, 'alpha', [outChannels], 7));
      g.output(g.op(op, [x, w, ...args], {
        ...f32, ...window([1, 2, 1, 1], 'SAME'), dilations: A.ints([1, 1, 1, 1]), num_args: A.i(args.length),
        fused_ops: A.strings(fusedOps), ...extra,
      }));
    },
  };
}

function backprop(name, sizes, fShape, xShape, strides, padding, computedSizes = false) {
  return {
    name,
    build(g) {
      const s = computedSizes ? g.input('sizes', 'int32', [4], { values: sizes }) : g.const('sizes', 'int32', [4], sizes);
      const w = constOf(g, 'filter', fShape, 9);
      const x = g.input('dy', 'float32', xShape);
      g.output(g.op('Conv2DBackpropInput', [s, w, x], { ...f32, ...window(strides, padding), dilations: A.ints([1, 1, 1, 1]) }));
    },
  };
}

function pool(name, op, xShape, ksize, strides, padding, dtype = 'float32', dims = undefined) {
  return {
    name,
    build(g) {
      const x = g.input('x', dtype, xShape, dtype === 'int32' ? { int: [-50, 50] } : undefined, dims);
      const format = xShape.length === 5 ? 'NDHWC' : 'NHWC';
      g.output(g.op(op, [x], { T: A.type(dtype), ksize: A.ints(ksize), strides: A.ints(strides), padding: A.s(padding), data_format: A.s(format) }));
    },
  };
}

function argmax(name, xShape, ksize, strides, padding, includeBatch) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape);
      const y = g.op('MaxPoolWithArgmax', [x], {
        ...f32, Targmax: A.type('int64'), ksize: A.ints(ksize), strides: A.ints(strides), padding: A.s(padding),
        include_batch_in_index: A.b(includeBatch),
      });
      g.output(y);
      g.output(`${y}:1`, { dtype: 'int64' });
    },
  };
}

function dilation(name, xShape, fShape, strides, rates, padding) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape);
      const w = constOf(g, 'filter', fShape, 11);
      g.output(g.op('Dilation2D', [x, w], { ...f32, strides: A.ints(strides), rates: A.ints(rates), padding: A.s(padding) }));
    },
  };
}

function batchNorm(name, op, computedMean = false) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', [2, 3, 5, 4]);
      const scale = constOf(g, 'scale', [4], 12);
      const offset = constOf(g, 'offset', [4], 13);
      const mean = computedMean ? g.input('mean', 'float32', [4]) : constOf(g, 'mean', [4], 14);
      const variance = g.const('variance', 'float32', [4], [0.5, 1.5, 0.01, 2]);
      g.output(g.op(op, [x, scale, offset, mean, variance], {
        ...f32, U: A.type('float32'), epsilon: A.f(0.001), data_format: A.s('NHWC'), is_training: A.b(false),
      }));
    },
  };
}

function lrn(name, shape, radius, bias, alpha, beta) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', shape);
      g.output(g.op('LRN', [x], { ...f32, depth_radius: A.i(radius), bias: A.f(bias), alpha: A.f(alpha), beta: A.f(beta) }));
    },
  };
}

function matmul(name, op, aShape, bShape, attrs, dtype = 'float32') {
  return {
    name,
    build(g) {
      const a = g.input('a', dtype, aShape);
      const b = g.input('b', dtype, bShape);
      g.output(g.op(op, [a, b], { T: A.type(dtype), ...attrs }));
    },
  };
}

function fusedMatMul(name, fusedOps, attrs = {}) {
  return {
    name,
    build(g) {
      const a = g.input('a', 'float32', [3, 4]);
      const b = constOf(g, 'b', attrs.transpose_b ? [5, 4] : [4, 5], 15);
      const args = [constOf(g, 'bias', [5], 16)];
      if (fusedOps.includes('Prelu')) args.push(constOf(g, 'alpha', [5], 17));
      g.output(g.op('_FusedMatMul', [a, b, ...args], {
        ...f32, num_args: A.i(args.length), fused_ops: A.strings(fusedOps), epsilon: A.f(0.0001),
        transpose_a: A.b(false), transpose_b: A.b(!!attrs.transpose_b), leakyrelu_alpha: A.f(0.3),
      }));
    },
  };
}

function einsum(name, equation, shapes) {
  return {
    name,
    build(g) {
      const xs = shapes.map((s, k) => g.input(`x${k}`, 'float32', s));
      g.output(g.op('Einsum', xs, { ...f32, equation: A.s(equation), N: A.i(xs.length) }));
    },
  };
}

function bandPart(name, shape, lower, upper, dtype = 'float32', computed = false) {
  return {
    name,
    build(g) {
      const x = g.input('x', dtype, shape);
      const lo = computed ? g.input('lower', 'int32', [], { values: [lower] }) : g.const('lower', 'int32', [], [lower]);
      const up = computed ? g.input('upper', 'int32', [], { values: [upper] }) : g.const('upper', 'int32', [], [upper]);
      g.output(g.op('MatrixBandPart', [x, lo, up], { T: A.type(dtype), Tindex: A.type('int32') }));
    },
  };
}

export const cases = [
  // Conv2D: padding modes, strides that do not divide, dilations, unknown dims, a computed filter.
  conv('Conv2D_valid', 'Conv2D', [1, 5, 6, 3], [3, 3, 3, 4], [1, 1, 1, 1], 'VALID'),
  conv('Conv2D_same_stride2', 'Conv2D', [2, 7, 6, 3], [3, 2, 3, 2], [1, 2, 2, 1], 'SAME'),
  conv('Conv2D_same_stride3', 'Conv2D', [1, 8, 7, 2], [2, 4, 2, 3], [1, 3, 2, 1], 'SAME'),
  conv('Conv2D_valid_stride2x3', 'Conv2D', [1, 9, 8, 2], [3, 2, 2, 3], [1, 2, 3, 1], 'VALID'),
  conv('Conv2D_same_dilation2', 'Conv2D', [1, 9, 8, 2], [2, 3, 2, 3], [1, 1, 1, 1], 'SAME', { dilations: A.ints([1, 2, 2, 1]) }),
  conv('Conv2D_valid_dilation3x2', 'Conv2D', [1, 9, 8, 2], [3, 2, 2, 2], [1, 1, 1, 1], 'VALID', { dilations: A.ints([1, 3, 2, 1]) }),
  conv('Conv2D_explicit', 'Conv2D', [1, 6, 5, 2], [3, 3, 2, 2], [1, 2, 1, 1], 'EXPLICIT',
       { explicit_paddings: A.ints([0, 0, 1, 2, 0, 1, 0, 0]) }),
  conv('Conv2D_unknown_dims', 'Conv2D', [2, 7, 5, 3], [3, 3, 3, 2], [1, 2, 2, 1], 'SAME', {}, [-1, -1, -1, 3]),
  {
    name: 'Conv2D_computed_filter',
    build(g) {
      const x = g.input('x', 'float32', [1, 6, 5, 3]);
      const w = g.input('w', 'float32', [2, 3, 3, 2]);
      g.output(g.op('Conv2D', [x, w], { ...f32, ...window([1, 1, 2, 1], 'SAME') }));
    },
  },
  {
    // How TF writes a dilated convolution: SpaceToBatchND -> VALID Conv2D -> BatchToSpaceND (rate 2, SAME).
    name: 'Conv2D_dilated_as_space_to_batch',
    build(g) {
      const x = g.input('x', 'float32', [1, 7, 8, 2]);
      const block = g.const('block_shape', 'int32', [2], [2, 2]);
      const s2b = g.op('SpaceToBatchND', [x, block, g.const('paddings', 'int32', [2, 2], [2, 3, 2, 2])],
                       { ...f32, Tblock_shape: A.type('int32'), Tpaddings: A.type('int32') });
      const conv = g.op('Conv2D', [s2b, constOf(g, 'filter', [3, 3, 2, 3], 4)], { ...f32, ...window([1, 1, 1, 1], 'VALID') });
      g.output(g.op('BatchToSpaceND', [conv, block, g.const('crops', 'int32', [2, 2], [0, 1, 0, 0])],
                    { ...f32, Tblock_shape: A.type('int32'), Tcrops: A.type('int32') }));
    },
  },
  // _FusedConv2D: every fused_ops list TF.js runs (BiasAdd, then an optional activation).
  fusedConv('_FusedConv2D_BiasAdd', '_FusedConv2D', ['BiasAdd'], 4),
  fusedConv('_FusedConv2D_BiasAdd_Relu', '_FusedConv2D', ['BiasAdd', 'Relu'], 4),
  fusedConv('_FusedConv2D_BiasAdd_Relu6', '_FusedConv2D', ['BiasAdd', 'Relu6'], 4),
  fusedConv('_FusedConv2D_BiasAdd_Elu', '_FusedConv2D', ['BiasAdd', 'Elu'], 4),
  fusedConv('_FusedConv2D_BiasAdd_LeakyRelu', '_FusedConv2D', ['BiasAdd', 'LeakyRelu'], 4, { leakyrelu_alpha: A.f(0.3) }),
  fusedConv('_FusedConv2D_BiasAdd_Sigmoid', '_FusedConv2D', ['BiasAdd', 'Sigmoid'], 4),
  fusedConv('_FusedConv2D_BiasAdd_Prelu', '_FusedConv2D', ['BiasAdd', 'Prelu'], 4),
  // Depthwise: channel multipliers 1 and 2, strides, dilations; the legacy op name; fused forms.
  conv('DepthwiseConv2dNative_same_stride2', 'DepthwiseConv2dNative', [1, 7, 6, 3], [3, 3, 3, 2], [1, 2, 2, 1], 'SAME'),
  conv('DepthwiseConv2dNative_valid', 'DepthwiseConv2dNative', [2, 5, 6, 4], [2, 3, 4, 1], [1, 1, 1, 1], 'VALID'),
  conv('DepthwiseConv2dNative_same_dilation2', 'DepthwiseConv2dNative', [1, 8, 7, 2], [3, 2, 2, 2], [1, 1, 1, 1], 'SAME',
       { dilations: A.ints([1, 2, 2, 1]) }),
  conv('DepthwiseConv2dNative_explicit', 'DepthwiseConv2dNative', [1, 5, 6, 2], [3, 3, 2, 1], [1, 1, 2, 1], 'EXPLICIT',
       { explicit_paddings: A.ints([0, 0, 2, 1, 1, 0, 0, 0]) }),
  conv('DepthwiseConv2d_legacy_name', 'DepthwiseConv2d', [1, 6, 5, 3], [3, 3, 3, 1], [1, 2, 1, 1], 'SAME'),
  fusedConv('FusedDepthwiseConv2dNative_BiasAdd', 'FusedDepthwiseConv2dNative', ['BiasAdd'], 6),
  fusedConv('FusedDepthwiseConv2dNative_BiasAdd_Relu6', 'FusedDepthwiseConv2dNative', ['BiasAdd', 'Relu6'], 6),
  fusedConv('FusedDepthwiseConv2dNative_BiasAdd_Prelu', 'FusedDepthwiseConv2dNative', ['BiasAdd', 'Prelu'], 3),
  // Conv1D (a TF.js op: scalar stride and dilation, NWC) and Conv3D (NDHWC).
  {
    name: 'Conv1D_same_stride2',
    build(g) {
      const x = g.input('x', 'float32', [2, 9, 3]);
      const w = constOf(g, 'filter', [3, 3, 4], 18);
      g.output(g.op('Conv1D', [x, w], { ...f32, stride: A.i(2), padding: A.s('SAME'), data_format: A.s('NWC'), dilation: A.i(1) }));
    },
  },
  {
    name: 'Conv1D_valid_dilation2',
    build(g) {
      const x = g.input('x', 'float32', [1, 10, 2]);
      const w = constOf(g, 'filter', [3, 2, 3], 19);
      g.output(g.op('Conv1D', [x, w], { ...f32, stride: A.i(1), padding: A.s('VALID'), data_format: A.s('NWC'), dilation: A.i(2) }));
    },
  },
  {
    name: 'Conv3D_same_strides',
    build(g) {
      const x = g.input('x', 'float32', [1, 5, 6, 4, 2]);
      const w = constOf(g, 'filter', [2, 3, 2, 2, 3], 20);
      g.output(g.op('Conv3D', [x, w], { ...f32, strides: A.ints([1, 2, 1, 2, 1]), padding: A.s('SAME'), data_format: A.s('NDHWC'),
                                         dilations: A.ints([1, 1, 1, 1, 1]) }));
    },
  },
  {
    name: 'Conv3D_valid',
    build(g) {
      const x = g.input('x', 'float32', [2, 4, 5, 5, 2]);
      const w = constOf(g, 'filter', [2, 2, 3, 2, 2], 21);
      g.output(g.op('Conv3D', [x, w], { ...f32, strides: A.ints([1, 1, 2, 1, 1]), padding: A.s('VALID'), data_format: A.s('NDHWC'),
                                         dilations: A.ints([1, 1, 1, 1, 1]) }));
    },
  },
  // Conv2DBackpropInput: SAME / VALID, strides that leave trailing rows (output padding), computed input_sizes.
  backprop('Conv2DBackpropInput_same_stride2', [1, 7, 8, 2], [3, 3, 2, 4], [1, 4, 4, 4], [1, 2, 2, 1], 'SAME'),
  backprop('Conv2DBackpropInput_valid_stride2', [1, 7, 8, 2], [3, 3, 2, 4], [1, 3, 3, 4], [1, 2, 2, 1], 'VALID'),
  backprop('Conv2DBackpropInput_valid_stride3', [2, 8, 9, 3], [2, 2, 3, 2], [2, 3, 3, 2], [1, 3, 3, 1], 'VALID'),
  backprop('Conv2DBackpropInput_same_stride3_k2', [1, 7, 5, 2], [2, 2, 2, 3], [1, 3, 2, 3], [1, 3, 3, 1], 'SAME'),
  backprop('Conv2DBackpropInput_same_stride1', [1, 5, 6, 3], [3, 2, 3, 2], [1, 5, 6, 2], [1, 1, 1, 1], 'SAME'),
  {
    name: 'Conv2DBackpropInput_explicit',
    build(g) {
      const s = g.const('sizes', 'int32', [4], [1, 6, 7, 2]);
      const w = constOf(g, 'filter', [3, 2, 2, 3], 10);
      const x = g.input('dy', 'float32', [1, 3, 4, 3]);
      g.output(g.op('Conv2DBackpropInput', [s, w, x], {
        ...f32, ...window([1, 2, 2, 1], 'EXPLICIT'), explicit_paddings: A.ints([0, 0, 1, 0, 0, 1, 0, 0]),
      }));
    },
  },
  backprop('Conv2DBackpropInput_computed_sizes_same', [1, 7, 8, 2], [3, 3, 2, 4], [1, 4, 4, 4], [1, 2, 2, 1], 'SAME', true),
  backprop('Conv2DBackpropInput_computed_sizes_valid', [2, 8, 9, 3], [2, 2, 3, 2], [2, 3, 3, 2], [1, 3, 3, 1], 'VALID', true),
  // Pooling.
  pool('AvgPool_same_3x3_stride2', 'AvgPool', [1, 7, 6, 3], [1, 3, 3, 1], [1, 2, 2, 1], 'SAME'),
  pool('AvgPool_valid_2x3', 'AvgPool', [2, 7, 8, 2], [1, 2, 3, 1], [1, 2, 2, 1], 'VALID'),
  pool('MaxPool_same_3x3_stride2', 'MaxPool', [1, 7, 6, 3], [1, 3, 3, 1], [1, 2, 2, 1], 'SAME'),
  pool('MaxPool_valid_3x2_stride1x2', 'MaxPool', [2, 6, 7, 2], [1, 3, 2, 1], [1, 1, 2, 1], 'VALID'),
  pool('MaxPool_int32_same', 'MaxPool', [1, 5, 6, 2], [1, 2, 3, 1], [1, 2, 2, 1], 'SAME', 'int32'),
  pool('AvgPool_unknown_dims', 'AvgPool', [2, 7, 6, 3], [1, 3, 2, 1], [1, 2, 2, 1], 'SAME', 'float32', [-1, -1, -1, 3]),
  pool('AvgPool3D_same', 'AvgPool3D', [1, 5, 4, 6, 2], [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], 'SAME'),
  pool('AvgPool3D_valid', 'AvgPool3D', [2, 5, 4, 5, 1], [1, 3, 2, 2, 1], [1, 1, 2, 2, 1], 'VALID'),
  pool('MaxPool3D_same', 'MaxPool3D', [1, 5, 4, 6, 2], [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], 'SAME'),
  pool('MaxPool3D_valid', 'MaxPool3D', [1, 6, 5, 4, 2], [1, 3, 2, 2, 1], [1, 2, 1, 2, 1], 'VALID'),
  argmax('MaxPoolWithArgmax_same', [2, 5, 6, 3], [1, 3, 3, 1], [1, 2, 2, 1], 'SAME', false),
  argmax('MaxPoolWithArgmax_valid_batch_index', [2, 5, 7, 2], [1, 2, 2, 1], [1, 2, 3, 1], 'VALID', true),
  argmax('MaxPoolWithArgmax_same_batch_index', [3, 4, 5, 2], [1, 2, 3, 1], [1, 1, 2, 1], 'SAME', true),
  // Dilation2D: VALID / SAME, strides, rates.
  dilation('Dilation2D_valid', [1, 6, 7, 3], [2, 3, 3], [1, 1, 1, 1], [1, 1, 1, 1], 'VALID'),
  dilation('Dilation2D_same_stride2', [2, 7, 6, 2], [3, 2, 2], [1, 2, 2, 1], [1, 1, 1, 1], 'SAME'),
  dilation('Dilation2D_same_rate2', [1, 7, 8, 2], [2, 3, 2], [1, 1, 1, 1], [1, 2, 2, 1], 'SAME'),
  dilation('Dilation2D_valid_stride3_rate2', [1, 9, 8, 1], [2, 2, 1], [1, 3, 2, 1], [1, 2, 1, 1], 'VALID'),
  // BiasAdd, batch norms, LRN, Softmax.
  {
    name: 'BiasAdd_rank3',
    build(g) {
      const x = g.input('x', 'float32', [2, 3, 4]);
      g.output(g.op('BiasAdd', [x, constOf(g, 'bias', [4], 22)], { ...f32, data_format: A.s('NHWC') }));
    },
  },
  batchNorm('FusedBatchNorm_const', 'FusedBatchNorm'),
  batchNorm('FusedBatchNormV2_const', 'FusedBatchNormV2'),
  batchNorm('FusedBatchNormV3_const', 'FusedBatchNormV3'),
  batchNorm('FusedBatchNormV3_computed_mean', 'FusedBatchNormV3', true),
  lrn('LRN_radius2', [1, 3, 4, 10], 2, 1, 0.5, 0.75),
  lrn('LRN_radius5_narrow', [2, 2, 3, 7], 5, 2, 0.1, 0.5),
  lrn('LRN_radius0', [1, 2, 2, 4], 0, 0.5, 1.5, 0.25),
  {
    name: 'Softmax_rank2',
    build(g) { g.output(g.op('Softmax', [g.input('x', 'float32', [3, 5], { uniform: [-6, 6] })], f32)); },
  },
  {
    name: 'Softmax_rank4',
    build(g) { g.output(g.op('Softmax', [g.input('x', 'float32', [2, 3, 2, 4], { uniform: [-6, 6] })], f32)); },
  },
  {
    name: 'Softmax_rank1',
    build(g) { g.output(g.op('Softmax', [g.input('x', 'float32', [6], { uniform: [-6, 6] })], f32)); },
  },
  // Matrix products.
  matmul('MatMul_plain', 'MatMul', [3, 4], [4, 5], { transpose_a: A.b(false), transpose_b: A.b(false) }),
  matmul('MatMul_transpose_a', 'MatMul', [4, 3], [4, 5], { transpose_a: A.b(true), transpose_b: A.b(false) }),
  matmul('MatMul_transpose_b', 'MatMul', [3, 4], [5, 4], { transpose_a: A.b(false), transpose_b: A.b(true) }),
  matmul('MatMul_transpose_both', 'MatMul', [4, 3], [5, 4], { transpose_a: A.b(true), transpose_b: A.b(true) }),
  matmul('MatMul_int32', 'MatMul', [3, 4], [4, 2], { transpose_a: A.b(false), transpose_b: A.b(false) }, 'int32'),
  matmul('MatMul_int32_transpose_b', 'MatMul', [3, 4], [2, 4], { transpose_a: A.b(false), transpose_b: A.b(true) }, 'int32'),
  fusedMatMul('_FusedMatMul_BiasAdd', ['BiasAdd']),
  fusedMatMul('_FusedMatMul_BiasAdd_Relu', ['BiasAdd', 'Relu']),
  fusedMatMul('_FusedMatMul_BiasAdd_Relu6_transpose_b', ['BiasAdd', 'Relu6'], { transpose_b: true }),
  fusedMatMul('_FusedMatMul_BiasAdd_Elu', ['BiasAdd', 'Elu']),
  fusedMatMul('_FusedMatMul_BiasAdd_LeakyRelu', ['BiasAdd', 'LeakyRelu']),
  fusedMatMul('_FusedMatMul_BiasAdd_Sigmoid', ['BiasAdd', 'Sigmoid']),
  fusedMatMul('_FusedMatMul_BiasAdd_Prelu', ['BiasAdd', 'Prelu']),
  matmul('BatchMatMul_rank3', 'BatchMatMul', [2, 3, 4], [2, 4, 2], { adj_x: A.b(false), adj_y: A.b(false) }),
  matmul('BatchMatMul_adj_x_adj_y', 'BatchMatMul', [2, 4, 3], [2, 2, 4], { adj_x: A.b(true), adj_y: A.b(true) }),
  matmul('BatchMatMulV2_broadcast', 'BatchMatMulV2', [2, 2, 3, 4], [2, 4, 5], { adj_x: A.b(false), adj_y: A.b(false) }),
  matmul('BatchMatMulV2_adj_x_broadcast', 'BatchMatMulV2', [2, 4, 3], [1, 4, 2], { adj_x: A.b(true), adj_y: A.b(false) }),
  matmul('BatchMatMulV2_adj_y_rank4', 'BatchMatMulV2', [2, 2, 3, 4], [2, 2, 5, 4], { adj_x: A.b(false), adj_y: A.b(true) }),
  matmul('BatchMatMulV2_int32', 'BatchMatMulV2', [2, 3, 4], [4, 2], { adj_x: A.b(false), adj_y: A.b(false) }, 'int32'),
  einsum('Einsum_matmul', 'ij,jk->ik', [[3, 4], [4, 5]]),
  einsum('Einsum_batch_matmul', 'bij,bjk->bik', [[2, 3, 4], [2, 4, 2]]),
  einsum('Einsum_outer', 'i,j->ij', [[3], [4]]),
  einsum('Einsum_transpose', 'ij->ji', [[3, 5]]),
  einsum('Einsum_reduce', 'ijk->ik', [[2, 3, 4]]),
  einsum('Einsum_dot', 'i,i->', [[5], [5]]),
  // TF.js reads num_upper from input 1 (num_lower's) too, so only equal bounds have a TF.js reference; the
  // converter reads input 2 as TF does.
  bandPart('MatrixBandPart_1_1', [2, 4, 5], 1, 1),
  bandPart('MatrixBandPart_all', [5, 4], -1, -1),
  bandPart('MatrixBandPart_int32_0_0', [3, 3], 0, 0, 'int32'),
  bandPart('MatrixBandPart_computed_2_2', [2, 5, 4], 2, 2, 'float32', true),
  bandPart('MatrixBandPart_computed_all', [4, 6], -1, -1, 'float32', true),
];
