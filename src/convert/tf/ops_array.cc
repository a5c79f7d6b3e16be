// Shape and indexing operators. Axes, shapes and permutations that ONNX takes as attributes must be TF constants;
// int32 shape and index tensors are cast to the int64 ONNX wants.
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

// An int32/int64 value as int64 (ONNX shape and index inputs).
std::string AsInt64(OpContext& ctx, const TfValue& v, const char* what) {
  if (v.type == DataType::kInt64) return v.name;
  return ctx.b.Op1("Cast", {v.name}, ctx.Name(what), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
}

// Reshape(tensor, shape): TF's 0 is a zero-size dim (allowzero=1), -1 is inferred as in ONNX.
Status Reshape(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Reshape", {x.name, AsInt64(ctx, shape, "shape64")}, ctx.Name(), {ir::IntAttr("allowzero", 1)}),
                x.type);
  return Status::Ok();
}

Status Squeeze(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.node.Ints("squeeze_dims"));
  std::vector<std::string> ins = {x.name};
  if (!axes.empty()) ins.push_back(ctx.b.ConstInts(ctx.Name("axes"), axes));  // none: every size-1 dim, as in TF
  ctx.SetOutput(0, ctx.b.Op1("Squeeze", ins, ctx.Name()), x.type);
  return Status::Ok();
}

Status ExpandDims(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(1, "axis"));
  if (axis.size() != 1) return InvalidArgument(ctx.node.Where() + ": the axis must be one integer");
  ctx.SetOutput(0, ctx.b.Op1("Unsqueeze", {x.name, ctx.b.ConstInts(ctx.Name("axes"), axis)}, ctx.Name()), x.type);
  return Status::Ok();
}

// ConcatV2(values..., axis).
Status ConcatV2(OpContext& ctx) {
  if (ctx.num_inputs() < 2) return InvalidArgument(ctx.node.Where() + ": needs values and an axis");
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(ctx.num_inputs() - 1, "axis"));
  if (axis.size() != 1) return InvalidArgument(ctx.node.Where() + ": the axis must be one integer");
  std::vector<std::string> ins;
  for (size_t i = 0; i + 1 < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(v.name);
  }
  ONYX_ASSIGN_OR_RETURN(TfValue first, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Concat", ins, ctx.Name(), {ir::IntAttr("axis", axis[0])}), first.type);
  return Status::Ok();
}

// Pack (tf.stack): each input gains the axis, then they are concatenated along it. A negative axis counts from the
// end of the output's rank in both TF and ONNX's Unsqueeze/Concat.
Status Pack(OpContext& ctx) {
  const int64_t axis = ctx.node.IntOr("axis", 0);
  std::vector<std::string> ins;
  const std::string axes = ctx.b.ConstInts(ctx.Name("axes"), {axis});
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(ctx.b.Op1("Unsqueeze", {v.name, axes}, ctx.Name("expand")));
  }
  if (ins.empty()) return InvalidArgument(ctx.node.Where() + ": no inputs");
  ONYX_ASSIGN_OR_RETURN(TfValue first, ctx.Input(0));
  ctx.SetOutput(0, ins.size() == 1 ? ins[0] : ctx.b.Op1("Concat", ins, ctx.Name(), {ir::IntAttr("axis", axis)}),
                first.type);
  return Status::Ok();
}

// Unpack (tf.unstack): num outputs, each a slice along the axis without it.
Status Unpack(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(int64_t num, ctx.node.Int("num"));
  const int64_t axis = ctx.node.IntOr("axis", 0);
  if (num < 1) return InvalidArgument(ctx.node.Where() + ": num must be positive");
  const std::string axes = ctx.b.ConstInts(ctx.Name("axes"), {axis});
  std::vector<std::string> parts = {x.name};
  if (num > 1) {
    parts = ctx.b.Op(
        "Split", {x.name, ctx.b.ConstInts(ctx.Name("split"), std::vector<int64_t>(static_cast<size_t>(num), 1))},
        ctx.Name("split"), {ir::IntAttr("axis", axis)}, static_cast<int>(num));
  }
  for (int64_t i = 0; i < num; ++i) {
    ctx.SetOutput(static_cast<int>(i), ctx.b.Op1("Squeeze", {parts[static_cast<size_t>(i)], axes}, ctx.Name("squeeze")),
                  x.type);
  }
  return Status::Ok();
}

Status GatherNd(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue params, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("GatherND", {params.name, AsInt64(ctx, indices, "indices64")}, ctx.Name()), params.type);
  return Status::Ok();
}

// GatherV2(params, indices, axis), batch_dims 0.
Status GatherV2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue params, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(2, "axis"));
  if (axis.size() != 1 || ctx.node.IntOr("batch_dims", 0) != 0) {
    return Unsupported(ctx.node.Where() + ": only one constant axis and batch_dims 0");
  }
  ctx.SetOutput(0,
                ctx.b.Op1("Gather", {params.name, AsInt64(ctx, indices, "indices64")}, ctx.Name(),
                          {ir::IntAttr("axis", axis[0])}),
                params.type);
  return Status::Ok();
}

// ArgMax/ArgMin(input, dimension): ONNX returns int64; TF's output_type may be int32. Ties: both take the first.
Status ArgReduce(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(1, "dimension"));
  if (axis.size() != 1) return InvalidArgument(ctx.node.Where() + ": the dimension must be one integer");
  DataType out_type = DataType::kInt64;
  if (ctx.node.Has("output_type")) {
    ONYX_ASSIGN_OR_RETURN(out_type, ctx.node.Type("output_type"));
  }
  std::string y = ctx.b.Op1(onnx_op, {x.name}, ctx.Name(onnx_op == std::string("ArgMax") ? "argmax" : "argmin"),
                            {ir::IntAttr("axis", axis[0]), ir::IntAttr("keepdims", 0)});
  if (out_type != DataType::kInt64) {
    y = ctx.b.Op1("Cast", {y}, ctx.Name(), {ir::IntAttr("to", static_cast<int64_t>(out_type))});
  }
  ctx.SetOutput(0, y, out_type);
  return Status::Ok();
}

Status ArgMax(OpContext& ctx) { return ArgReduce(ctx, "ArgMax"); }
Status ArgMin(OpContext& ctx) { return ArgReduce(ctx, "ArgMin"); }

Status Transpose(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.ConstInts(1, "permutation"));
  ctx.SetOutput(0, ctx.b.Op1("Transpose", {x.name}, ctx.Name(), {ir::IntsAttr("perm", perm)}), x.type);
  return Status::Ok();
}

Status Shape(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  DataType out_type = DataType::kInt32;
  if (ctx.node.Has("out_type")) {
    ONYX_ASSIGN_OR_RETURN(out_type, ctx.node.Type("out_type"));
  }
  std::string y = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  if (out_type != DataType::kInt64) {
    y = ctx.b.Op1("Cast", {y}, ctx.Name(), {ir::IntAttr("to", static_cast<int64_t>(out_type))});
  }
  ctx.SetOutput(0, y, out_type);
  return Status::Ok();
}

// Pad / PadV2 / MirrorPad(input, paddings [rank, 2] constant[, constant_values]).
Status ConvertPad(OpContext& ctx, const std::string& mode) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(Tensor paddings, ctx.ConstInput(1, "paddings"));
  if (paddings.rank() != 2 || paddings.dim(1) != 2) {
    return InvalidArgument(ctx.node.Where() + ": paddings must be [rank, 2]");
  }
  std::vector<int64_t> pads(static_cast<size_t>(paddings.size()));
  const int64_t rank = paddings.dim(0);
  for (int64_t d = 0; d < rank; ++d) {
    pads[static_cast<size_t>(d)] = paddings.IntAt(2 * d);
    pads[static_cast<size_t>(rank + d)] = paddings.IntAt(2 * d + 1);
  }
  std::vector<std::string> ins = {x.name, ctx.b.ConstInts(ctx.Name("pads"), pads)};
  if (ctx.num_inputs() > 2) {
    ONYX_ASSIGN_OR_RETURN(TfValue value, ctx.Input(2));
    ins.push_back(value.name);
  }
  ctx.SetOutput(0, ctx.b.Op1("Pad", ins, ctx.Name(), {ir::StringAttr("mode", mode)}), x.type);
  return Status::Ok();
}

Status Pad(OpContext& ctx) { return ConvertPad(ctx, "constant"); }
Status MirrorPad(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(std::string mode, ctx.node.String("mode"));
  if (mode != "REFLECT") return Unsupported(ctx.node.Where() + ": mode " + mode + " (only REFLECT)");
  return ConvertPad(ctx, "reflect");
}

// Mean/Sum/Max/Min(input, axes constant) with keep_dims.
Status Reduce(OpContext& ctx, const char* onnx_op, bool axes_as_input) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(1, "reduction axes"));
  const int64_t keepdims = ctx.node.BoolOr("keep_dims", false) ? 1 : 0;
  std::string y;
  if (axes_as_input) {
    y = ctx.b.Op1(onnx_op, {x.name, ctx.b.ConstInts(ctx.Name("axes"), axes)}, ctx.Name(),
                  {ir::IntAttr("keepdims", keepdims)});
  } else {
    y = ctx.b.Op1(onnx_op, {x.name}, ctx.Name(), {ir::IntsAttr("axes", axes), ir::IntAttr("keepdims", keepdims)});
  }
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

// Opset 13..17 take ReduceSum's axes as an input and the others' as an attribute; the converter emits opset-17
// forms (the default; --opset converts the finished model).
Status Mean(OpContext& ctx) { return Reduce(ctx, "ReduceMean", false); }
Status SumReduce(OpContext& ctx) { return Reduce(ctx, "ReduceSum", true); }
Status MaxReduce(OpContext& ctx) { return Reduce(ctx, "ReduceMax", false); }
Status MinReduce(OpContext& ctx) { return Reduce(ctx, "ReduceMin", false); }

}  // namespace

void AddArrayOps(std::map<std::string, OpFn>& t) {
  t["Reshape"] = Reshape;
  t["Squeeze"] = Squeeze;
  t["ExpandDims"] = ExpandDims;
  t["ConcatV2"] = ConcatV2;
  t["Pack"] = Pack;
  t["Unpack"] = Unpack;
  t["GatherNd"] = GatherNd;
  t["GatherV2"] = GatherV2;
  t["ArgMax"] = ArgMax;
  t["ArgMin"] = ArgMin;
  t["Transpose"] = Transpose;
  t["Shape"] = Shape;
  t["Pad"] = Pad;
  t["PadV2"] = Pad;
  t["MirrorPad"] = MirrorPad;
  t["Mean"] = Mean;
  t["Sum"] = SumReduce;
  t["Max"] = MaxReduce;
  t["Min"] = MinReduce;
}

}  // namespace onyx::convert::tf
