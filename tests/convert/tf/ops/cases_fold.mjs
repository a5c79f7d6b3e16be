// Dilated convolutions as TensorFlow writes them (tf.nn.atrous_conv2d, Keras dilation_rate in TF1 graphs):
// SpaceToBatchND -> convolution -> BatchToSpaceND, which the converter folds into one dilated convolution
// (src/convert/tf/fold_dilated_conv.h), and chains it must leave alone (a stride, a second reader, crops larger than
// the paddings), which convert as written. Either way the outputs must be TF.js's.
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };
const i32s = { Tblock_shape: A.type('int32'), Tpaddings: A.type('int32') };
const i32c = { Tblock_shape: A.type('int32'), Tcrops: A.type('int32') };

function weights(n, seed) {
  const out = [];
  let s = seed * 7919 + 17;
  for (let i = 0; i < n; ++i) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(Math.round(((s / 2147483648) * 2 - 1) * 1000) / 1000);
  }
  return out;
}

// x [xShape] -> SpaceToBatchND(block, paddings) -> op(filter, strides) -> BatchToSpaceND(block, crops).
function atrous(name, { op = 'Conv2D', xShape, fShape, block, paddings, crops, strides = [1, 1, 1, 1], extraReader = false,
                        dims = undefined }) {
  return {
    name,
    build(g) {
      const x = g.input('x', 'float32', xShape, undefined, dims);
      const blockConst = g.const('block_shape', 'int32', [2], block);
      const s2b = g.op('SpaceToBatchND', [x, blockConst, g.const('paddings', 'int32', [2, 2], paddings)], { ...f32, ...i32s });
      const filter = g.const('filter', 'float32', fShape, weights(fShape.reduce((a, b) => a * b, 1), 5));
      const conv = g.op(op, [s2b, filter], {
        ...f32, strides: A.ints(strides), padding: A.s('VALID'), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]),
      });
      const out = g.op('BatchToSpaceND', [conv, blockConst, g.const('crops', 'int32', [2, 2], crops)], { ...f32, ...i32c });
      g.output(out);
      if (extraReader) g.output(g.op('Relu', [s2b], f32));
    },
  };
}

export const cases = [
  // Folded: paddings - crops are the pads of one dilated convolution.
  atrous('SpaceToBatchND_fold_conv_rate2', { xShape: [1, 9, 10, 3], fShape: [3, 3, 3, 4], block: [2, 2],
                                             paddings: [2, 3, 2, 2], crops: [0, 1, 0, 0] }),
  atrous('SpaceToBatchND_fold_conv_rate2x3_batch2', { xShape: [2, 8, 9, 2], fShape: [3, 2, 2, 3], block: [2, 3],
                                                      paddings: [2, 2, 3, 3], crops: [0, 0, 0, 0] }),
  atrous('SpaceToBatchND_fold_depthwise_rate4', { op: 'DepthwiseConv2dNative', xShape: [1, 12, 12, 3],
                                                  fShape: [3, 3, 3, 2], block: [4, 4], paddings: [4, 4, 4, 4],
                                                  crops: [0, 0, 0, 0] }),
  atrous('SpaceToBatchND_fold_unknown_dims', { xShape: [1, 8, 8, 2], fShape: [3, 3, 2, 2], block: [2, 2],
                                               paddings: [2, 2, 2, 2], crops: [0, 0, 0, 0], dims: [-1, -1, -1, 2] }),
  // Left as written: a strided convolution, a second reader of SpaceToBatchND, crops larger than the paddings.
  atrous('SpaceToBatchND_nofold_strided', { xShape: [1, 8, 8, 2], fShape: [3, 3, 2, 2], block: [2, 2],
                                            paddings: [0, 0, 0, 0], crops: [0, 0, 0, 0], strides: [1, 2, 2, 1] }),
  atrous('SpaceToBatchND_nofold_second_reader', { xShape: [1, 8, 8, 2], fShape: [3, 3, 2, 2], block: [2, 2],
                                                  paddings: [2, 2, 2, 2], crops: [0, 0, 0, 0], extraReader: true }),
  atrous('SpaceToBatchND_nofold_crops_exceed_paddings', { xShape: [1, 8, 8, 2], fShape: [1, 1, 2, 2], block: [2, 2],
                                                          paddings: [0, 0, 0, 0], crops: [1, 1, 0, 0] }),
];
