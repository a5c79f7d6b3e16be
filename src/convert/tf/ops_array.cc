// Shape and indexing operators. Axes, shapes and permutations that ONNX takes as attributes must be TF constants;
// int32 shape and index tensors are cast to the int64 ONNX wants.
#include <limits>

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

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();
constexpr int64_t kToStart = std::numeric_limits<int64_t>::min();

// StridedSlice(input, begin, end, strides) with TF's masks: begin/end_mask bit i ignores begin[i]/end[i],
// shrink_axis_mask takes one element and drops the axis, new_axis_mask inserts a size-1 axis, ellipsis_mask stands for
// every axis not named. Without the input's rank, the specs after an ellipsis address axes from the end; a new axis
// together with an ellipsis needs the rank and is refused.
Status StridedSlice(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ctx.ConstInts(1, "begin"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> end, ctx.ConstInts(2, "end"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.ConstInts(3, "strides"));
  const size_t k = begin.size();
  if (end.size() != k || strides.size() != k) {
    return InvalidArgument(ctx.node.Where() + ": begin, end and strides differ in length");
  }
  const int64_t begin_mask = ctx.node.IntOr("begin_mask", 0), end_mask = ctx.node.IntOr("end_mask", 0);
  const int64_t ellipsis_mask = ctx.node.IntOr("ellipsis_mask", 0), new_axis_mask = ctx.node.IntOr("new_axis_mask", 0);
  const int64_t shrink_mask = ctx.node.IntOr("shrink_axis_mask", 0);
  auto bit = [](int64_t mask, size_t i) { return ((mask >> i) & 1) != 0; };
  size_t ellipsis = k;
  for (size_t i = 0; i < k; ++i) {
    if (!bit(ellipsis_mask, i)) continue;
    if (ellipsis != k) return InvalidArgument(ctx.node.Where() + ": more than one ellipsis");
    ellipsis = i;
  }
  if (ellipsis != k && new_axis_mask != 0) {
    return Unsupported(ctx.node.Where() + ": new_axis_mask together with an ellipsis");
  }
  // Input axis of each spec: counted from the front before the ellipsis, from the back after it.
  size_t consuming_after = 0;
  for (size_t i = ellipsis + 1; i < k; ++i) consuming_after += bit(new_axis_mask, i) ? 0 : 1;
  std::vector<int64_t> starts, ends, axes, steps, squeeze, unsqueeze;
  int64_t front = 0, back = -static_cast<int64_t>(consuming_after), out_dim = 0;
  for (size_t i = 0; i < k; ++i) {
    if (i == ellipsis) continue;
    if (bit(new_axis_mask, i)) {
      unsqueeze.push_back(out_dim++);
      continue;
    }
    const int64_t axis = i < ellipsis ? front++ : back++;
    const int64_t step = strides[i];
    if (step == 0) return InvalidArgument(ctx.node.Where() + ": a stride of 0");
    if (bit(shrink_mask, i)) {
      // One element: [b, b + 1), where b = -1 means the last.
      starts.push_back(begin[i]);
      ends.push_back(begin[i] == -1 ? kToEnd : begin[i] + 1);
      steps.push_back(1);
      axes.push_back(axis);
      squeeze.push_back(axis);
      continue;
    }
    starts.push_back(bit(begin_mask, i) ? (step > 0 ? 0 : kToEnd) : begin[i]);
    ends.push_back(bit(end_mask, i) ? (step > 0 ? kToEnd : kToStart) : end[i]);
    steps.push_back(step);
    axes.push_back(axis);
    ++out_dim;
  }
  std::string y = x.name;
  if (!axes.empty()) {
    y = ctx.b.Op1("Slice",
                  {y, ctx.b.ConstInts(ctx.Name("starts"), starts), ctx.b.ConstInts(ctx.Name("ends"), ends),
                   ctx.b.ConstInts(ctx.Name("axes"), axes), ctx.b.ConstInts(ctx.Name("steps"), steps)},
                  ctx.Name("slice"));
  }
  if (!squeeze.empty()) y = ctx.b.Op1("Squeeze", {y, ctx.b.ConstInts(ctx.Name("squeeze_axes"), squeeze)}, ctx.Name("squeeze"));
  if (!unsqueeze.empty()) {
    y = ctx.b.Op1("Unsqueeze", {y, ctx.b.ConstInts(ctx.Name("new_axes"), unsqueeze)}, ctx.Name("new_axis"));
  }
  if (y == x.name) y = ctx.b.Op1("Identity", {y}, ctx.Name());
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

// Slice(input, begin, size): size -1 takes the rest of the axis.
Status Slice(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ctx.ConstInts(1, "begin"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.ConstInts(2, "size"));
  if (begin.size() != size.size()) return InvalidArgument(ctx.node.Where() + ": begin and size differ in length");
  std::vector<int64_t> ends(begin.size()), axes(begin.size());
  for (size_t i = 0; i < begin.size(); ++i) {
    ends[i] = size[i] < 0 ? kToEnd : begin[i] + size[i];
    axes[i] = static_cast<int64_t>(i);
  }
  ctx.SetOutput(0,
                ctx.b.Op1("Slice",
                          {x.name, ctx.b.ConstInts(ctx.Name("starts"), begin), ctx.b.ConstInts(ctx.Name("ends"), ends),
                           ctx.b.ConstInts(ctx.Name("axes"), axes)},
                          ctx.Name()),
                x.type);
  return Status::Ok();
}

Status Tile(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue multiples, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Tile", {x.name, AsInt64(ctx, multiples, "multiples64")}, ctx.Name()), x.type);
  return Status::Ok();
}

// Split(axis, value) into num_split equal parts; SplitV(value, size_splits, axis).
Status ConvertSplit(OpContext& ctx, bool sized) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(sized ? 0 : 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(sized ? 2 : 0, "axis"));
  ONYX_ASSIGN_OR_RETURN(int64_t num, ctx.node.Int("num_split"));
  if (axis.size() != 1 || num < 1) return InvalidArgument(ctx.node.Where() + ": one axis and num_split >= 1");
  std::vector<std::string> ins = {x.name};
  if (sized) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(1, "size_splits"));
    if (static_cast<int64_t>(sizes.size()) != num) {
      return InvalidArgument(ctx.node.Where() + ": size_splits has " + std::to_string(sizes.size()) + " entries");
    }
    for (int64_t s : sizes) {
      if (s < 0) return Unsupported(ctx.node.Where() + ": an inferred (-1) split size");
    }
    ins.push_back(ctx.b.ConstInts(ctx.Name("split"), sizes));
  }
  // Opset 17's Split divides equally into as many parts as it has outputs when given no sizes.
  std::vector<ir::Attribute> attrs = {ir::IntAttr("axis", axis[0])};
  auto parts = num == 1 ? std::vector<std::string>{ctx.b.Op1("Identity", {x.name}, ctx.Name())}
                        : ctx.b.Op("Split", ins, ctx.Name(), std::move(attrs), static_cast<int>(num));
  for (int64_t i = 0; i < num; ++i) ctx.SetOutput(static_cast<int>(i), parts[static_cast<size_t>(i)], x.type);
  return Status::Ok();
}

Status Split(OpContext& ctx) { return ConvertSplit(ctx, false); }
Status SplitV(OpContext& ctx) { return ConvertSplit(ctx, true); }

}  // namespace

void AddArrayOps(std::map<std::string, OpFn>& t) {
  t["StridedSlice"] = StridedSlice;
  t["Slice"] = Slice;
  t["Tile"] = Tile;
  t["Split"] = Split;
  t["SplitV"] = SplitV;
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
