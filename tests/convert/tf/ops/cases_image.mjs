// Image, detection, sorting and set operators (TF.js op lists image.js, dynamic.js, evaluation.js).
import { A } from './lib.mjs';

const f32 = { T: A.type('float32') };

function resize(name, op, xShape, size, { align = false, half = false, dtype = 'float32', dims, computed = false } = {}) {
  return {
    name,
    build(g) {
      const x = g.input('x', dtype, xShape, undefined, dims);
      const s = computed ? g.input('size', 'int32', [2], { values: size }) : g.const('size', 'int32', [2], size);
      g.output(g.op(op, [x, s], { T: A.type(dtype), align_corners: A.b(align), half_pixel_centers: A.b(half) }));
    },
  };
}

// Boxes (y1, x1, y2, x2) partly outside [0, 1], one with flipped corners.
const kBoxes = [0.13, 0.21, 0.77, 0.93, -0.23, 0.31, 0.62, 1.27, 0.91, 0.83, 0.11, 0.07, 0.4, 0.4, 0.4, 0.6];
function cropAndResize(name, crop, method, extrapolation, imageShape = [2, 6, 7, 3], dtype = 'float32') {
  return {
    name,
    build(g) {
      const image = g.input('image', dtype, imageShape);
      const boxes = g.input('boxes', 'float32', [4, 4], { values: kBoxes });
      const ind = g.input('box_ind', 'int32', [4], { values: [0, 1, 1, 0].map((b) => Math.min(b, imageShape[0] - 1)) });
      const size = g.const('crop_size', 'int32', [2], crop);
      g.output(g.op('CropAndResize', [image, boxes, ind, size], {
        T: A.type(dtype), method: A.s(method), extrapolation_value: A.f(extrapolation),
      }));
    },
  };
}

// ImageProjectiveTransformV3 on one float32 image (TF.js's CPU kernel takes float32 only, and returns after the
// first image of a batch, leaving the others at fill_value, so batches are not compared).
function projective(name, interpolation, fillMode, transform, { outShape = [6, 7], fill = 0.25 } = {}) {
  const dtype = 'float32';
  return {
    name,
    build(g) {
      const images = g.input('images', dtype, [1, 5, 6, 2]);
      const transforms = g.input('transforms', 'float32', [1, 8], { values: transform });
      const shape = g.const('output_shape', 'int32', [2], outShape);
      const fillValue = g.const('fill_value', 'float32', [], [fill]);
      g.output(g.op('ImageProjectiveTransformV3', [images, transforms, shape, fillValue], {
        dtype: A.type(dtype), interpolation: A.s(interpolation), fill_mode: A.s(fillMode),
      }));
    },
  };
}
// A rotation by 0.3 rad about (2.1, 2.7) with a shift, a perspective warp, and a zoom that reaches far outside.
const kRotate = [0.9553365, -0.2955202, 0.9, 0.2955202, 0.9553365, -0.55, 0, 0];
const kPerspective = [1.1, 0.13, -0.7, -0.09, 0.93, 0.35, 0.021, -0.017];
const kZoom = [1.7312, 0.1093, -3.3171, 0.0719, 1.6087, -2.9123, 0, 0];

// Non-max suppression over 12 random boxes in [0, 1]^2 (many overlaps) with distinct random scores.
function nms(name, version, { maxSize = 5, iou = 0.5, scoreThreshold = 0.3, pad = undefined } = {}) {
  return {
    name,
    build(g) {
      const boxes = g.input('boxes', 'float32', [12, 4], { uniform: [0, 1] });
      const scores = g.input('scores', 'float32', [12], { uniform: [0, 1] });
      const inputs = [boxes, scores, g.const('max_output_size', 'int32', [], [maxSize]), g.const('iou_threshold', 'float32', [], [iou])];
      if (version >= 3) inputs.push(g.const('score_threshold', 'float32', [], [scoreThreshold]));
      if (version === 5) inputs.push(g.const('soft_nms_sigma', 'float32', [], [0]));
      const attr = { T: A.type('float32'), T_threshold: A.type('float32') };
      if (pad !== undefined) attr.pad_to_max_output_size = A.b(pad);
      const y = g.op(`NonMaxSuppressionV${version}`, inputs, attr);
      g.output(y);
      if (version === 4) g.output(`${y}:1`);
      if (version === 5) g.output(`${y}:1`);  // TF.js returns no valid_outputs for V5
    },
  };
}

function where(name, dtype, shape, fill) {
  return {
    name,
    build(g) {
      const c = g.input('c', dtype, shape, fill);
      g.output(g.op('Where', [c], { T: A.type(dtype) }), { dtype: 'int64' });
    },
  };
}

function topk(name, dtype, shape, k, fill) {
  return {
    name,
    build(g) {
      const x = g.input('x', dtype, shape, fill);
      const y = g.op('TopKV2', [x, g.const('k', 'int32', [], [k])], { T: A.type(dtype), sorted: A.b(true) });
      g.output(y);
      g.output(`${y}:1`);
    },
  };
}

function unique(name, dtype, shape, fill, axis = undefined) {
  return {
    name,
    build(g) {
      const x = g.input('x', dtype, shape, fill);
      const attr = { T: A.type(dtype), out_idx: A.type('int32') };
      const y = axis === undefined
        ? g.op('Unique', [x], attr)
        : g.op('UniqueV2', [x, g.const('axis', 'int32', [1], [axis])], { ...attr, Taxis: A.type('int32') });
      g.output(y);
      g.output(`${y}:1`);
    },
  };
}

function bound(name, op, dtype, sorted, values, sortedShape, valuesShape) {
  return {
    name,
    build(g) {
      const s = g.input('sorted', dtype, sortedShape, { values: sorted });
      const v = g.input('values', dtype, valuesShape, { values });
      g.output(g.op(op, [s, v], { T: A.type(dtype), out_type: A.type('int32') }));
    },
  };
}

export const cases = [
  // ResizeBilinear: the three coordinate rules, up and down, odd sizes; int32 input (float output).
  resize('ResizeBilinear_up', 'ResizeBilinear', [1, 5, 7, 2], [8, 11]),
  resize('ResizeBilinear_down', 'ResizeBilinear', [2, 9, 8, 3], [4, 5]),
  resize('ResizeBilinear_align_corners_up', 'ResizeBilinear', [1, 5, 7, 2], [9, 10], { align: true }),
  resize('ResizeBilinear_align_corners_down', 'ResizeBilinear', [1, 9, 8, 2], [4, 3], { align: true }),
  resize('ResizeBilinear_align_corners_to_1', 'ResizeBilinear', [1, 5, 4, 2], [1, 3], { align: true }),
  resize('ResizeBilinear_half_pixel_up', 'ResizeBilinear', [1, 5, 7, 2], [8, 11], { half: true }),
  resize('ResizeBilinear_half_pixel_down', 'ResizeBilinear', [2, 9, 8, 3], [4, 5], { half: true }),
  resize('ResizeBilinear_int32', 'ResizeBilinear', [1, 4, 5, 2], [7, 3], { dtype: 'int32' }),
  resize('ResizeBilinear_unknown_dims', 'ResizeBilinear', [2, 5, 6, 3], [7, 4], { dims: [-1, -1, -1, 3] }),
  resize('ResizeBilinear_computed_size', 'ResizeBilinear', [1, 5, 6, 2], [3, 8], { computed: true }),
  // ResizeNearestNeighbor: floor, round (align_corners), half-pixel centers; int32 keeps its type.
  resize('ResizeNearestNeighbor_up', 'ResizeNearestNeighbor', [1, 5, 7, 2], [8, 11]),
  resize('ResizeNearestNeighbor_down', 'ResizeNearestNeighbor', [2, 9, 8, 3], [4, 5]),
  resize('ResizeNearestNeighbor_align_corners_up', 'ResizeNearestNeighbor', [1, 5, 7, 2], [9, 10], { align: true }),
  resize('ResizeNearestNeighbor_align_corners_down', 'ResizeNearestNeighbor', [1, 9, 8, 2], [4, 3], { align: true }),
  resize('ResizeNearestNeighbor_align_corners_to_1', 'ResizeNearestNeighbor', [1, 5, 4, 2], [1, 3], { align: true }),
  resize('ResizeNearestNeighbor_half_pixel_up', 'ResizeNearestNeighbor', [1, 5, 7, 2], [8, 11], { half: true }),
  resize('ResizeNearestNeighbor_half_pixel_down', 'ResizeNearestNeighbor', [2, 9, 8, 3], [4, 5], { half: true }),
  resize('ResizeNearestNeighbor_int32', 'ResizeNearestNeighbor', [1, 4, 5, 2], [7, 3], { dtype: 'int32' }),
  resize('ResizeNearestNeighbor_unknown_dims', 'ResizeNearestNeighbor', [2, 5, 6, 3], [7, 4], { dims: [-1, -1, -1, 3] }),
  resize('ResizeNearestNeighbor_computed_size', 'ResizeNearestNeighbor', [1, 5, 6, 2], [3, 8], { computed: true, half: true }),
  // CropAndResize: bilinear / nearest, extrapolation outside the image, single-row and single-column crops.
  cropAndResize('CropAndResize_bilinear', [4, 5], 'bilinear', 0),
  cropAndResize('CropAndResize_bilinear_extrapolation', [5, 3], 'bilinear', -1.5),
  cropAndResize('CropAndResize_nearest', [4, 5], 'nearest', 0.5),
  cropAndResize('CropAndResize_bilinear_1xN', [1, 4], 'bilinear', 0),
  cropAndResize('CropAndResize_nearest_Nx1', [3, 1], 'nearest', 0),
  cropAndResize('CropAndResize_int32_image', [3, 4], 'bilinear', 0, [1, 5, 6, 2], 'int32'),
  projective('ImageProjectiveTransformV3_nearest_constant', 'NEAREST', 'CONSTANT', kRotate),
  projective('ImageProjectiveTransformV3_bilinear_constant', 'BILINEAR', 'CONSTANT', kRotate),
  projective('ImageProjectiveTransformV3_bilinear_perspective', 'BILINEAR', 'CONSTANT', kPerspective, { outShape: [4, 8] }),
  projective('ImageProjectiveTransformV3_nearest_reflect', 'NEAREST', 'REFLECT', kZoom),
  projective('ImageProjectiveTransformV3_bilinear_reflect', 'BILINEAR', 'REFLECT', kZoom),
  projective('ImageProjectiveTransformV3_nearest_wrap', 'NEAREST', 'WRAP', kZoom),
  projective('ImageProjectiveTransformV3_bilinear_wrap', 'BILINEAR', 'WRAP', kZoom),
  projective('ImageProjectiveTransformV3_bilinear_nearest', 'BILINEAR', 'NEAREST', kZoom, { outShape: [7, 5] }),
  projective('ImageProjectiveTransformV3_nearest_nearest', 'NEAREST', 'NEAREST', kPerspective, { fill: 3 }),
  // Non-max suppression.
  nms('NonMaxSuppressionV2_iou05', 2),
  nms('NonMaxSuppressionV3_score03', 3),
  nms('NonMaxSuppressionV3_iou07_max12', 3, { maxSize: 12, iou: 0.7, scoreThreshold: 0.1 }),
  nms('NonMaxSuppressionV4_padded', 4, { maxSize: 9, iou: 0.4, pad: true }),
  nms('NonMaxSuppressionV4_unpadded', 4, { maxSize: 9, iou: 0.4, pad: false }),
  nms('NonMaxSuppressionV5_hard', 5, { maxSize: 6, iou: 0.6, scoreThreshold: 0.2 }),
  nms('NonMaxSuppressionV3_none_selected', 3, { scoreThreshold: 1.5 }),
  nms('NonMaxSuppressionV4_padded_none_selected', 4, { maxSize: 3, scoreThreshold: 1.5, pad: true }),
  nms('NonMaxSuppressionV3_max0', 3, { maxSize: 0 }),
  // Where (coordinates), ListDiff, TopKV2, Unique, LowerBound / UpperBound.
  where('Where_bool', 'bool', [3, 4]),
  where('Where_float32', 'float32', [2, 3, 2], { values: [0, 1.5, 0, -2, 0, 0, 3, 0, 0.25, 0, 0, -1] }),
  where('Where_int32_rank1', 'int32', [7], { values: [0, 3, 0, 0, -1, 2, 0] }),
  where('Where_all_false', 'bool', [2, 3], { values: [false] }),
  {
    name: 'ListDiff_int32',
    build(g) {
      const x = g.input('x', 'int32', [9], { values: [1, 2, 3, 2, 5, 6, 1, 7, 9] });
      const y = g.input('y', 'int32', [3], { values: [2, 9, 4] });
      const d = g.op('ListDiff', [x, y], { T: A.type('int32'), out_idx: A.type('int32') });
      g.output(d);
      g.output(`${d}:1`);
    },
  },
  {
    name: 'ListDiff_float32',
    build(g) {
      const x = g.input('x', 'float32', [6], { values: [0.5, -1, 2.25, 0.5, 3, 8] });
      const y = g.input('y', 'float32', [4], { values: [3, 0.5, 7, 7] });
      const d = g.op('ListDiff', [x, y], { ...f32, out_idx: A.type('int32') });
      g.output(d);
      g.output(`${d}:1`);
    },
  },
  {
    name: 'ListDiff_everything_removed',
    build(g) {
      const x = g.input('x', 'int32', [4], { values: [3, 1, 3, 2] });
      const y = g.input('y', 'int32', [3], { values: [1, 2, 3] });
      const d = g.op('ListDiff', [x, y], { T: A.type('int32'), out_idx: A.type('int32') });
      g.output(d);
      g.output(`${d}:1`);
    },
  },
  topk('TopKV2_float32', 'float32', [3, 7], 3),
  topk('TopKV2_k0', 'float32', [2, 3], 0),
  topk('TopKV2_int32_ties', 'int32', [2, 6], 4, { int: [0, 3] }),
  topk('TopKV2_rank1_k1', 'float32', [5], 1),
  topk('TopKV2_k_all', 'float32', [2, 4], 4),
  unique('Unique_int32', 'int32', [10], { int: [0, 4] }),
  unique('Unique_float32', 'float32', [8], { values: [1.5, -2, 1.5, 0, 0, 7, -2, 3] }),
  unique('UniqueV2_axis0', 'int32', [5, 2], { values: [1, 2, 3, 4, 1, 2, 0, 0, 3, 4] }, 0),
  unique('UniqueV2_axis1', 'float32', [2, 5], { values: [1, 0, 1, 2, 0, 3, 5, 3, 4, 5] }, 1),
  bound('LowerBound_float32', 'LowerBound', 'float32', [1, 2, 2, 4, 5, 9, -1, 0, 0, 3, 3, 8], [2, 0, 10, 4.5, -3, 0, 3, 8.5],
        [2, 6], [2, 4]),
  bound('UpperBound_float32', 'UpperBound', 'float32', [1, 2, 2, 4, 5, 9, -1, 0, 0, 3, 3, 8], [2, 0, 10, 4.5, -3, 0, 3, 8.5],
        [2, 6], [2, 4]),
  bound('LowerBound_int32', 'LowerBound', 'int32', [0, 1, 1, 1, 4, 6, 6], [1, 6, 7, -1, 3], [1, 7], [1, 5]),
  bound('UpperBound_int32', 'UpperBound', 'int32', [0, 1, 1, 1, 4, 6, 6], [1, 6, 7, -1, 3], [1, 7], [1, 5]),
];
