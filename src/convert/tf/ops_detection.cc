// TensorFlow detection, sorting, set and search operators (registered from AddImageOps): NonMaxSuppression
// V2..V5, TopKV2, Where (coordinates of true elements), ListDiff, Unique / UniqueV2, LowerBound / UpperBound.
// Their outputs are data-dependent in size; each maps onto ONNX's own data-dependent ops (NonMaxSuppression,
// NonZero, Unique, TopK).
#include "convert/common/tensor_layout.h"
#include "convert/tf/emit.h"
#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

// A scalar (or 1-element) input as a 1-element tensor of `type`.
Result<std::string> AsVector1(OpContext& ctx, size_t i, DataType type, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
  const std::string cast = v.type == type ? v.name : CastTo(ctx, v.name, type, what + "_cast");
  return ctx.b.Op1("Reshape", {cast, ctx.b.ConstInts(ctx.Name(what + "_shape"), {1})}, ctx.Name(what));
}

// The output index type attribute `key` (int32 unless it says int64).
Result<DataType> IndexType(const OpContext& ctx, const std::string& key) {
  if (!ctx.node.Has(key)) return DataType::kInt32;
  ONYX_ASSIGN_OR_RETURN(DataType t, ctx.node.Type(key));
  if (t != DataType::kInt32 && t != DataType::kInt64) {
    return Unsupported(ctx.node.Where() + ": " + key + " " + std::string(DataTypeName(t)) + " (int32 or int64)");
  }
  return t;
}

// NonMaxSuppressionV2..V5(boxes [n, 4], scores [n], max_output_size, iou_threshold[, score_threshold
// [, soft_nms_sigma]]) -> selected_indices int32 [m] (V4: , valid_outputs; V5: , selected_scores, valid_outputs).
// TF keeps a candidate when its IoU with every kept box is <= iou_threshold and its score > score_threshold, in
// decreasing score order (ties: lower index first), as ONNX NonMaxSuppression does for one batch and one class;
// ONNX's [m, 3] (batch, class, box) triples give the box indices. Boxes are corner pairs in either order in both.
// pad_to_max_output_size (V4, V5) pads the indices (and scores) with zeros to max_output_size. Soft-NMS (V5 with
// soft_nms_sigma > 0) rescores instead of suppressing, which ONNX cannot express: only sigma 0 converts.
Status NonMaxSuppression(OpContext& ctx, int version) {
  ONYX_ASSIGN_OR_RETURN(TfValue boxes, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue scores, ctx.Input(1));
  if (version == 5) {
    ONYX_ASSIGN_OR_RETURN(Tensor sigma, ctx.ConstInput(5, "soft_nms_sigma"));
    ONYX_ASSIGN_OR_RETURN(sigma, ToFloat32(sigma));
    if (sigma.size() != 1 || sigma.data<float>()[0] != 0.0f) {
      return Unsupported(ctx.node.Where() + ": soft-NMS (soft_nms_sigma other than 0) has no ONNX form");
    }
  }
  const std::string box_f =
      boxes.type == DataType::kFloat ? boxes.name : CastTo(ctx, boxes.name, DataType::kFloat, "boxes_f");
  const std::string score_f =
      scores.type == DataType::kFloat ? scores.name : CastTo(ctx, scores.name, DataType::kFloat, "scores_f");
  std::vector<std::string> inputs = {
      ctx.b.Op1("Unsqueeze", {box_f, ctx.b.ConstInts(ctx.Name("batch_axis"), {0})}, ctx.Name("boxes")),
      ctx.b.Op1("Unsqueeze", {score_f, ctx.b.ConstInts(ctx.Name("batch_class_axes"), {0, 1})}, ctx.Name("scores"))};
  ONYX_ASSIGN_OR_RETURN(std::string max_size, AsVector1(ctx, 2, DataType::kInt64, "max_output_size"));
  inputs.push_back(max_size);
  ONYX_ASSIGN_OR_RETURN(std::string iou, AsVector1(ctx, 3, DataType::kFloat, "iou_threshold"));
  inputs.push_back(iou);
  if (version >= 3) {
    ONYX_ASSIGN_OR_RETURN(std::string score_threshold, AsVector1(ctx, 4, DataType::kFloat, "score_threshold"));
    inputs.push_back(score_threshold);
  }
  const std::string triples = ctx.b.Op1("NonMaxSuppression", inputs, ctx.Name("nms"));
  const std::string selected =
      ctx.b.Op1("Gather", {triples, ctx.b.Constant(ctx.Name("box_column"), Tensor::Scalar<int64_t>(2))},
                ctx.Name("selected"), {ir::IntAttr("axis", 1)});
  std::string indices = CastTo(ctx, selected, DataType::kInt32, "selected_indices");
  std::string selected_scores;
  if (version == 5) selected_scores = ctx.b.Op1("Gather", {score_f, selected}, ctx.Name("selected_scores"));
  const std::string count = ctx.b.Op1("Shape", {selected}, ctx.Name("count"));
  if (version >= 4 && ctx.node.BoolOr("pad_to_max_output_size", false)) {
    const std::string missing = ctx.b.Op1(
        "Max", {ctx.b.Op1("Sub", {max_size, count}, ctx.Name("shortfall")), ctx.b.ConstInts(ctx.Name("zero"), {0})},
        ctx.Name("missing"));
    const std::string pads = ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("no_pad"), {0}), missing}, ctx.Name("pads"),
                                       {ir::IntAttr("axis", 0)});
    indices = ctx.b.Op1("Pad", {indices, pads}, ctx.Name("padded_indices"));
    if (!selected_scores.empty())
      selected_scores = ctx.b.Op1("Pad", {selected_scores, pads}, ctx.Name("padded_scores"));
  }
  ctx.SetOutput(0, indices, DataType::kInt32);
  const std::string valid =
      CastTo(ctx, ctx.b.Op1("Reshape", {count, ctx.b.ConstInts(ctx.Name("scalar"), {})}, ctx.Name("valid64")),
             DataType::kInt32, "valid_outputs");
  if (version == 4) ctx.SetOutput(1, valid, DataType::kInt32);
  if (version == 5) {
    ctx.SetOutput(1, selected_scores, DataType::kFloat);
    ctx.SetOutput(2, valid, DataType::kInt32);
  }
  return Status::Ok();
}

Status NonMaxSuppressionV2(OpContext& ctx) { return NonMaxSuppression(ctx, 2); }
Status NonMaxSuppressionV3(OpContext& ctx) { return NonMaxSuppression(ctx, 3); }
Status NonMaxSuppressionV4(OpContext& ctx) { return NonMaxSuppression(ctx, 4); }
Status NonMaxSuppressionV5(OpContext& ctx) { return NonMaxSuppression(ctx, 5); }

// TopKV2(input, k) -> values, indices along the last axis, largest first; equal values keep their order (lower
// index first), as ONNX TopK specifies. TF leaves the order of sorted=false unspecified: sorted is one valid order.
Status TopKV2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string k, AsVector1(ctx, 1, DataType::kInt64, "k"));
  ONYX_ASSIGN_OR_RETURN(DataType index_type, IndexType(ctx, "index_type"));
  const std::vector<std::string> out =
      ctx.b.Op("TopK", {x.name, k}, ctx.Name("top_k"),
               {ir::IntAttr("axis", -1), ir::IntAttr("largest", 1), ir::IntAttr("sorted", 1)}, 2);
  ctx.SetOutput(0, out[0], x.type);
  ctx.SetOutput(1, CastTo(ctx, out[1], index_type, "indices"), index_type);
  return Status::Ok();
}

// Where(condition) with one input: the coordinates of the true (non-zero) elements, [m, rank] int64 in row-major
// order: ONNX NonZero's [rank, m], transposed.
Status WhereCoordinates(OpContext& ctx) {
  if (ctx.num_inputs() != 1) {
    return Unsupported(ctx.node.Where() + ": Where with " + std::to_string(ctx.num_inputs()) +
                       " inputs (Select's form)");
  }
  ONYX_ASSIGN_OR_RETURN(TfValue c, ctx.Input(0));
  const std::string nz = ctx.b.Op1("NonZero", {c.name}, ctx.Name("non_zero"));
  ctx.SetOutput(0, ctx.b.Op1("Transpose", {nz}, ctx.Name("coordinates"), {ir::IntsAttr("perm", {1, 0})}),
                DataType::kInt64);
  return Status::Ok();
}

// ListDiff(x, y) -> out, idx: the elements of 1-D x that are not in y, in x's order (duplicates kept), and their
// positions in x. An [nx, ny] equality table says which are found.
Status ListDiff(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(DataType index_type, IndexType(ctx, "out_idx"));
  const std::string equal =
      ctx.b.Op1("Equal",
                {ctx.b.Op1("Unsqueeze", {x.name, ctx.b.ConstInts(ctx.Name("axis1"), {1})}, ctx.Name("x_column")),
                 ctx.b.Op1("Unsqueeze", {y.name, ctx.b.ConstInts(ctx.Name("axis0"), {0})}, ctx.Name("y_row"))},
                ctx.Name("equal"));
  const std::string matches =
      ctx.b.Op1("ReduceSum", {CastTo(ctx, equal, DataType::kInt32, "equal_i"), ctx.b.ConstInts(ctx.Name("axes"), {1})},
                ctx.Name("matches"), {ir::IntAttr("keepdims", 0)});
  const std::string absent =
      ctx.b.Op1("Equal", {matches, ctx.b.Constant(ctx.Name("none"), Tensor::Scalar<int32_t>(0))}, ctx.Name("absent"));
  const std::string positions =
      ctx.b.Op1("Squeeze", {ctx.b.Op1("NonZero", {absent}, ctx.Name("kept")), ctx.b.ConstInts(ctx.Name("axis0b"), {0})},
                ctx.Name("positions"));
  ctx.SetOutput(0, ctx.b.Op1("Gather", {x.name, positions}, ctx.Name("out"), {ir::IntAttr("axis", 0)}), x.type);
  ctx.SetOutput(1, CastTo(ctx, positions, index_type, "idx"), index_type);
  return Status::Ok();
}

// Unique(x) / UniqueV2(x, axis) -> y, idx: the distinct elements (or slices along the axis) in order of first
// occurrence, and for each element (slice) of x the position of its value in y: ONNX Unique with sorted=0 and its
// inverse_indices. UniqueV2's axis must be a constant (an empty axis flattens, as Unique).
Status ConvertUnique(OpContext& ctx, bool v2) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(DataType index_type, IndexType(ctx, "out_idx"));
  std::vector<ir::Attribute> attrs = {ir::IntAttr("sorted", 0)};
  if (v2) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(1, "axis"));
    if (axis.size() > 1) return InvalidArgument(ctx.node.Where() + ": the axis has more than one entry");
    if (axis.size() == 1) attrs.push_back(ir::IntAttr("axis", axis[0]));
  }
  const std::vector<std::string> out = ctx.b.Op("Unique", {x.name}, ctx.Name("unique"), std::move(attrs), 4);
  ctx.SetOutput(0, out[0], x.type);
  ctx.SetOutput(1, CastTo(ctx, out[2], index_type, "idx"), index_type);
  return Status::Ok();
}

Status Unique(OpContext& ctx) { return ConvertUnique(ctx, false); }
Status UniqueV2(OpContext& ctx) { return ConvertUnique(ctx, true); }

// LowerBound / UpperBound(sorted_inputs [B, N], values [B, M]) -> [B, M]: per row, the first position whose
// element is >= (lower) or > (upper) the value, i.e. for sorted rows the count of elements < (<=) the value.
Status SearchSorted(OpContext& ctx, bool upper) {
  ONYX_ASSIGN_OR_RETURN(TfValue sorted, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue values, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(DataType index_type, IndexType(ctx, "out_type"));
  const std::string before = ctx.b.Op1(
      upper ? "LessOrEqual" : "Less",
      {ctx.b.Op1("Unsqueeze", {sorted.name, ctx.b.ConstInts(ctx.Name("axis1"), {1})}, ctx.Name("sorted_b1n")),
       ctx.b.Op1("Unsqueeze", {values.name, ctx.b.ConstInts(ctx.Name("axis2"), {2})}, ctx.Name("values_bm1"))},
      ctx.Name("before"));
  ctx.SetOutput(
      0,
      ctx.b.Op1("ReduceSum", {CastTo(ctx, before, index_type, "before_i"), ctx.b.ConstInts(ctx.Name("axes"), {2})},
                ctx.Name("position"), {ir::IntAttr("keepdims", 0)}),
      index_type);
  return Status::Ok();
}

Status LowerBound(OpContext& ctx) { return SearchSorted(ctx, false); }
Status UpperBound(OpContext& ctx) { return SearchSorted(ctx, true); }

}  // namespace

void AddDetectionOps(std::map<std::string, OpFn>& t) {
  t["NonMaxSuppressionV2"] = NonMaxSuppressionV2;
  t["NonMaxSuppressionV3"] = NonMaxSuppressionV3;
  t["NonMaxSuppressionV4"] = NonMaxSuppressionV4;
  t["NonMaxSuppressionV5"] = NonMaxSuppressionV5;
  t["TopKV2"] = TopKV2;
  t["Where"] = WhereCoordinates;
  t["ListDiff"] = ListDiff;
  t["Unique"] = Unique;
  t["UniqueV2"] = UniqueV2;
  t["LowerBound"] = LowerBound;
  t["UpperBound"] = UpperBound;
}

}  // namespace onyx::convert::tf
