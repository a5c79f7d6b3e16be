// Image and block-rearrangement operators: resizing, depth <-> space, space <-> batch (all NHWC in TFLite).
#include <limits>

#include "convert/common/checked_product.h"
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR(input, size [2]); options: align_corners (bilinear: field 2, after two
// deprecated fields; nearest: 0), half_pixel_centers (bilinear 3, nearest 1).
Status Resize(OpContext& c, bool bilinear) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> hw, c.ConstInts(1, "size"));
  ONYX_ASSIGN_OR_RETURN(bool align_corners, c.OptBool(bilinear ? 2 : 0));
  ONYX_ASSIGN_OR_RETURN(bool half_pixel, c.OptBool(bilinear ? 3 : 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> in_shape, c.InShape(0));
  if (in_shape.size() != 4 || in_shape[0] < 0 || in_shape[3] < 0 || hw.size() != 2) {
    return c.Error("needs a 4-D input with known batch and channels, and a size of 2");
  }
  // Nearest: TFLite takes floor((x + offset) * scale), or rounds it with align_corners; offset 0.5 with half-pixel
  // centers, which is ONNX's half_pixel transform (x + 0.5) * scale - 0.5 rounded half up.
  std::string mode = align_corners ? "align_corners" : "asymmetric";
  if (half_pixel) mode = "half_pixel";
  std::vector<ir::Attribute> attrs = {ir::StringAttr("mode", bilinear ? "linear" : "nearest"),
                                      ir::StringAttr("coordinate_transformation_mode", mode)};
  if (!bilinear) {
    attrs.push_back(ir::StringAttr("nearest_mode", align_corners || half_pixel ? "round_prefer_ceil" : "floor"));
  }
  const std::string sizes = c.b.ConstInts(c.Name("sizes"), {in_shape[0], in_shape[3], hw[0], hw[1]});
  return c.SetOutput(c.ToNhwc(c.b.Op1("Resize", {c.ToNchw(x), "", "", sizes}, c.Name("resize"), std::move(attrs))));
}

// DEPTH_TO_SPACE (TF's channel order is ONNX's DCR) and SPACE_TO_DEPTH; options: block_size 0.
Status DepthSpace(OpContext& c, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(int32_t block, c.OptInt(0));
  if (block < 1) return c.Error("block size " + std::to_string(block));
  std::vector<ir::Attribute> attrs = {ir::IntAttr("blocksize", block)};
  if (std::string(onnx_op) == "DepthToSpace") attrs.push_back(ir::StringAttr("mode", "DCR"));
  return c.SetOutput(c.ToNhwc(c.b.Op1(onnx_op, {c.ToNchw(x)}, c.Name("rearranged"), std::move(attrs))));
}

// SPACE_TO_BATCH_ND(input, block_shape [M], paddings [M, 2]): pad the M spatial dims, split each into
// (size / block, block), move the block dims in front of the batch and fold them into it. Needs static shapes.
Status SpaceToBatch(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> block, c.ConstInts(1, "block_shape"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> pad, c.ConstInts(2, "paddings"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(0));
  const size_t m = block.size(), rank = shape.size();
  if (pad.size() != 2 * m || rank < m + 1) return c.Error("block_shape and paddings do not match the input");
  for (int64_t d : shape) {
    if (d < 0) return c.Unsupported("dynamic input shape");
  }
  std::vector<int64_t> pads(2 * rank, 0);
  std::vector<int64_t> split = {shape[0]}, perm, folded;
  for (size_t i = 0; i < m; ++i) {
    pads[1 + i] = pad[2 * i];
    pads[rank + 1 + i] = pad[2 * i + 1];
    const int64_t padded = shape[1 + i] + pad[2 * i] + pad[2 * i + 1];
    if (block[i] < 1 || padded % block[i] != 0) return c.Error("the padded size is not a multiple of the block");
    split.push_back(padded / block[i]);
    split.push_back(block[i]);
  }
  for (size_t d = m + 1; d < rank; ++d) split.push_back(shape[d]);
  // [N, S1/b1, b1, ..., SM/bM, bM, rest] -> [b1, ..., bM, N, S1/b1, ..., SM/bM, rest]
  for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int64_t>(2 + 2 * i));
  perm.push_back(0);
  for (size_t i = 0; i < m; ++i) perm.push_back(static_cast<int64_t>(1 + 2 * i));
  for (size_t d = m + 1; d < rank; ++d) perm.push_back(static_cast<int64_t>(m + d));
  const std::optional<int64_t> batch = CheckedProduct(block, shape[0]);
  if (!batch) return c.Error("the batch times the block sizes is past 2^63");
  folded.push_back(*batch);
  for (size_t i = 0; i < m; ++i) folded.push_back(split[1 + 2 * i]);
  for (size_t d = m + 1; d < rank; ++d) folded.push_back(shape[d]);
  std::string y = c.b.Op1("Pad", {x, c.b.ConstInts(c.Name("pads"), pads)}, c.Name("pad"));
  y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("split_shape"), split)}, c.Name("split"));
  y = c.b.Op1("Transpose", {y}, c.Name("blocks_first"), {ir::IntsAttr("perm", perm)});
  return c.SetOutput(c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("shape"), folded)}, c.Name("space_to_batch")));
}

// BATCH_TO_SPACE_ND(input, block_shape [M], crops [M, 2]): the inverse, then the crops are sliced off.
Status BatchToSpace(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> block, c.ConstInts(1, "block_shape"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> crops, c.ConstInts(2, "crops"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.InShape(0));
  const size_t m = block.size(), rank = shape.size();
  if (crops.size() != 2 * m || rank < m + 1) return c.Error("block_shape and crops do not match the input");
  for (int64_t d : shape) {
    if (d < 0) return c.Unsupported("dynamic input shape");
  }
  for (int64_t b : block) {
    if (b < 1) return c.Error("block_shape has a size below 1");
  }
  const std::optional<int64_t> block_product = CheckedProduct(block);
  if (!block_product) return c.Error("the block sizes multiply past 2^63");
  const int64_t prod = *block_product;
  if (shape[0] % prod != 0) return c.Error("the batch is not a multiple of the block");
  std::vector<int64_t> split(block.begin(), block.end()), perm = {static_cast<int64_t>(m)}, merged = {shape[0] / prod};
  split.push_back(shape[0] / prod);
  for (size_t d = 1; d < rank; ++d) split.push_back(shape[d]);
  // [b1..bM, N, S1..SM, rest] -> [N, S1, b1, ..., SM, bM, rest]
  for (size_t i = 0; i < m; ++i) {
    perm.push_back(static_cast<int64_t>(m + 1 + i));
    perm.push_back(static_cast<int64_t>(i));
    merged.push_back(shape[1 + i] * block[i]);
  }
  for (size_t d = m + 1; d < rank; ++d) {
    perm.push_back(static_cast<int64_t>(m + d));
    merged.push_back(shape[d]);
  }
  std::string y = c.b.Op1("Reshape", {x, c.b.ConstInts(c.Name("split_shape"), split)}, c.Name("split"));
  y = c.b.Op1("Transpose", {y}, c.Name("interleave"), {ir::IntsAttr("perm", perm)});
  y = c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("merged_shape"), merged)}, c.Name("merged"));
  std::vector<int64_t> starts, ends, axes;
  for (size_t i = 0; i < m; ++i) {
    starts.push_back(crops[2 * i]);
    ends.push_back(merged[1 + i] - crops[2 * i + 1]);
    axes.push_back(static_cast<int64_t>(1 + i));
  }
  return c.SetOutput(c.b.Op1("Slice",
                             {y, c.b.ConstInts(c.Name("starts"), starts), c.b.ConstInts(c.Name("ends"), ends),
                              c.b.ConstInts(c.Name("axes"), axes)},
                             c.Name("crop")));
}

// NON_MAX_SUPPRESSION_V4(boxes [N, 4], scores [N], max_output_size, iou_threshold, score_threshold) ->
// (selected_indices [max] int32 padded with zeros, valid_outputs); V5 adds soft_nms_sigma (0 only: hard NMS) and
// selected_scores. ONNX's NonMaxSuppression takes [batch, N, 4] / [batch, classes, N] and gives
// [selected, 3] int64 (batch, class, box); boxes are (y1, x1, y2, x2) in both.
Status NonMaxSuppression(OpContext& c, bool v5) {
  ONYX_ASSIGN_OR_RETURN(std::string boxes, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string scores, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> max_out, c.ConstInts(2, "max_output_size"));
  if (max_out.size() != 1 || max_out[0] < 0) return c.Error("max_output_size must be one count");
  ONYX_ASSIGN_OR_RETURN(std::string iou, c.Input(3));
  ONYX_ASSIGN_OR_RETURN(std::string score_threshold, c.Input(4));
  if (v5) {
    ONYX_ASSIGN_OR_RETURN(Tensor sigma, c.FloatConst(5, "soft_nms_sigma"));
    if (sigma.size() != 1 || sigma.data<float>()[0] != 0.0f) return c.Unsupported("soft NMS (soft_nms_sigma != 0)");
  }
  const std::string one = c.b.ConstInts(c.Name("one"), {1});
  boxes = c.b.Op1("Unsqueeze", {boxes, c.b.ConstInts(c.Name("batch_axis"), {0})}, c.Name("boxes"));
  scores = c.b.Op1("Reshape", {scores, c.b.ConstInts(c.Name("scores_shape"), {1, 1, -1})}, c.Name("scores"));
  iou = c.b.Op1("Reshape", {iou, one}, c.Name("iou"));
  score_threshold = c.b.Op1("Reshape", {score_threshold, one}, c.Name("score_threshold"));
  std::string selected = c.b.Op1(
      "NonMaxSuppression", {boxes, scores, c.b.ConstInts(c.Name("max"), max_out), iou, score_threshold}, c.Name("nms"));
  // Column 2 holds the box indices.
  std::string idx =
      c.b.Op1("Gather", {selected, c.b.ConstInts(c.Name("column"), {2})}, c.Name("column"), {ir::IntAttr("axis", 1)});
  idx = c.b.Op1("Reshape", {idx, c.b.ConstInts(c.Name("flat"), {-1})}, c.Name("indices64"));
  const std::string count = c.b.Op1("Shape", {idx}, c.Name("count"));
  // Padded to max_output_size with zeros: concatenate max zeros, keep the first max.
  const std::string pad =
      c.b.Constant(c.Name("zeros"),
                   Tensor::FromVector<int64_t>(std::vector<int64_t>(static_cast<size_t>(max_out[0]), 0), {max_out[0]}));
  const std::string starts = c.b.ConstInts(c.Name("start"), {0}), ends = c.b.ConstInts(c.Name("end"), max_out);
  std::string padded = c.b.Op1("Concat", {idx, pad}, c.Name("padded"), {ir::IntAttr("axis", 0)});
  padded = c.b.Op1("Slice", {padded, starts, ends}, c.Name("selected"));
  const auto to_int32 = ir::IntAttr("to", static_cast<int64_t>(DataType::kInt32));
  ONYX_RETURN_IF_ERROR(c.SetOutput(c.b.Op1("Cast", {padded}, c.Name("selected_indices"), {to_int32}), 0));
  size_t next = 1;
  if (v5) {
    // The selected boxes' scores, zeros in the padding.
    ONYX_ASSIGN_OR_RETURN(std::string flat_scores, c.Input(1));
    std::string s = c.b.Op1("Gather", {flat_scores, idx}, c.Name("scores_selected"), {ir::IntAttr("axis", 0)});
    // Expanded in the graph: max_output_size is the file's number, not an allocation the converter should make.
    const std::string zeros = c.b.Op1(
        "Expand", {c.b.ConstFloat(c.Name("zero"), 0), c.b.ConstInts(c.Name("count"), max_out)}, c.Name("score_zeros"));
    s = c.b.Op1("Concat", {s, zeros}, c.Name("scores_padded"), {ir::IntAttr("axis", 0)});
    ONYX_RETURN_IF_ERROR(c.SetOutput(c.b.Op1("Slice", {s, starts, ends}, c.Name("selected_scores")), next++));
  }
  std::string valid = c.b.Op1("Reshape", {count, c.b.ConstInts(c.Name("scalar"), {})}, c.Name("valid"));
  return c.SetOutput(c.b.Op1("Cast", {valid}, c.Name("valid_outputs"), {to_int32}), next);
}

}  // namespace

void AddImageOps(std::map<int32_t, OpFn>& t) {
  t[op::kResizeBilinear] = [](OpContext& c) { return Resize(c, true); };
  t[op::kResizeNearestNeighbor] = [](OpContext& c) { return Resize(c, false); };
  t[op::kDepthToSpace] = [](OpContext& c) { return DepthSpace(c, "DepthToSpace"); };
  t[op::kSpaceToDepth] = [](OpContext& c) { return DepthSpace(c, "SpaceToDepth"); };
  t[op::kSpaceToBatchNd] = SpaceToBatch;
  t[op::kBatchToSpaceNd] = BatchToSpace;
  t[op::kNonMaxSuppressionV4] = [](OpContext& c) { return NonMaxSuppression(c, false); };
  t[op::kNonMaxSuppressionV5] = [](OpContext& c) { return NonMaxSuppression(c, true); };
}

}  // namespace onyx::convert::tflite
