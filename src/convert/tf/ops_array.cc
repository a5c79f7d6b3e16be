// Shape, slicing, joining, gathering, scattering and padding operators. Inputs that ONNX takes as tensors at opset 17
// (shapes, pads, slice bounds, repeats, Unsqueeze axes) may be computed at run time; those ONNX takes as attributes
// (Concat/Gather/Split axes, Transpose permutations) must be TF constants. int32 shape and index tensors are cast to
// the int64 ONNX wants; TF's int32 data stays int32.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "convert/common/checked_product.h"
#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();
constexpr int64_t kToStart = std::numeric_limits<int64_t>::min();

std::string ConstInt64(OpContext& ctx, const std::string& what, int64_t v) {
  return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<int64_t>(v));
}

// The one integer of a constant input (a scalar or a 1-element vector).
Result<int64_t> ConstAxis(OpContext& ctx, size_t i, const std::string& what) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.ConstInts(i, what));
  if (v.size() != 1) return InvalidArgument(ctx.node.Where() + ": the " + what + " must be one integer");
  return v[0];
}

// Slice of a 1-D int64 value [start, end).
std::string Part(OpContext& ctx, const std::string& v, int64_t start, int64_t end, const char* what) {
  return ctx.b.Op1("Slice", {v, ctx.b.ConstInts(ctx.Name(what), {start}), ctx.b.ConstInts(ctx.Name(what), {end})},
                   ctx.Name(what));
}

// Output 0 is input 0 itself: no ONNX node. EnsureShape's run-time shape check has no ONNX form (a model TF runs
// passes it); a reversal over no axis changes nothing.
Status PassThrough(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, x.name, x.type);
  return Status::Ok();
}

// ---- shapes --------------------------------------------------------------------------------------------------

// Reshape(tensor, shape): TF's 0 is a zero-size dim (allowzero=1, which needs opset 14: left out for a constant
// shape without 0s, where it makes no difference), -1 is inferred as in ONNX.
Status Reshape(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(1));
  bool may_hold_zero = true;
  if (shape.constant != nullptr) {
    const std::vector<int64_t> dims = shape.constant->ToInt64Vector();
    may_hold_zero = std::find(dims.begin(), dims.end(), 0) != dims.end();
  }
  std::vector<ir::Attribute> attrs;
  if (may_hold_zero) attrs.push_back(ir::IntAttr("allowzero", 1));
  ctx.SetOutput(0, ctx.b.Op1("Reshape", {x.name, AsInt64(ctx, shape, "shape64")}, ctx.Name(), std::move(attrs)),
                x.type);
  return Status::Ok();
}

// Squeeze(input) with squeeze_dims (TF's attribute name; "axis" in some writers); none: every size-1 dim, as in TF.
Status Squeeze(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  const std::string key = !ctx.node.Has("squeeze_dims") && ctx.node.Has("axis") ? "axis" : "squeeze_dims";
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.node.Ints(key));
  std::vector<std::string> ins = {x.name};
  if (!axes.empty()) ins.push_back(ctx.b.ConstInts(ctx.Name("axes"), axes));
  ctx.SetOutput(0, ctx.b.Op1("Squeeze", ins, ctx.Name()), x.type);
  return Status::Ok();
}

// ExpandDims(input, axis): a negative axis counts from the end of the output, as Unsqueeze's does.
Status ExpandDims(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue axis, ctx.Input(1));
  std::string axes;
  if (axis.constant != nullptr) {
    ONYX_ASSIGN_OR_RETURN(int64_t a, ConstAxis(ctx, 1, "axis"));
    axes = ctx.b.ConstInts(ctx.Name("axes"), {a});
  } else {
    axes =
        ctx.b.Op1("Reshape", {AsInt64(ctx, axis, "axis64"), ctx.b.ConstInts(ctx.Name("one"), {1})}, ctx.Name("axes"));
  }
  ctx.SetOutput(0, ctx.b.Op1("Unsqueeze", {x.name, axes}, ctx.Name()), x.type);
  return Status::Ok();
}

Status Transpose(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.ConstInts(1, "permutation"));
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(p)]) {
      return InvalidArgument(ctx.node.Where() + ": the permutation is not one of 0.." +
                             std::to_string(static_cast<int64_t>(perm.size()) - 1));
    }
    seen[static_cast<size_t>(p)] = true;
  }
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

// BroadcastTo(input, shape): ONNX Expand broadcasts both ways, which equals TF's one-way broadcast wherever TF accepts
// the shape.
Status BroadcastTo(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Expand", {x.name, AsInt64(ctx, shape, "shape64")}, ctx.Name()), x.type);
  return Status::Ok();
}

// BroadcastArgs(s0, s1): the broadcast of two shapes. The shorter is padded with leading 1s; each dim is then the
// other shape's where this one is 1 (so 1 against 0 gives 0, as in TF).
Status BroadcastArgs(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue s0, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue s1, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(Tensor one_t, ScalarTensor(s0.type, 1));
  const std::string one = ctx.b.Constant(ctx.Name("one"), one_t);
  const std::string n0 = ctx.b.Op1("Shape", {s0.name}, ctx.Name("len0"));
  const std::string n1 = ctx.b.Op1("Shape", {s1.name}, ctx.Name("len1"));
  const std::string n = ctx.b.Op1("Max", {n0, n1}, ctx.Name("len"));
  const std::string zero = ctx.b.ConstInts(ctx.Name("zero"), {0});
  auto pad_front = [&](const std::string& s, const std::string& len, const char* what) {
    const std::string pads = ctx.b.Op1("Concat", {ctx.b.Op1("Sub", {n, len}, ctx.Name(what)), zero}, ctx.Name(what),
                                       {ir::IntAttr("axis", 0)});
    return ctx.b.Op1("Pad", {s, pads, one}, ctx.Name(what));
  };
  const std::string p0 = pad_front(s0.name, n0, "pad0");
  const std::string p1 = pad_front(s1.name, n1, "pad1");
  const std::string is_one = ctx.b.Op1("Equal", {p0, one}, ctx.Name("is_one"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {is_one, p1, p0}, ctx.Name()), s0.type);
  return Status::Ok();
}

// ---- joining and splitting -------------------------------------------------------------------------------------

// ConcatV2(values..., axis) and Concat(axis, values...).
Status ConvertConcat(OpContext& ctx, size_t axis_input, size_t first, size_t end) {
  if (end <= first) return InvalidArgument(ctx.node.Where() + ": needs values and an axis");
  ONYX_ASSIGN_OR_RETURN(int64_t axis, ConstAxis(ctx, axis_input, "axis"));
  std::vector<std::string> ins;
  for (size_t i = first; i < end; ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(v.name);
  }
  ONYX_ASSIGN_OR_RETURN(TfValue v0, ctx.Input(first));
  ctx.SetOutput(0, ctx.b.Op1("Concat", ins, ctx.Name(), {ir::IntAttr("axis", axis)}), v0.type);
  return Status::Ok();
}

Status ConcatV2(OpContext& ctx) {
  if (ctx.num_inputs() < 2) return InvalidArgument(ctx.node.Where() + ": needs values and an axis");
  return ConvertConcat(ctx, ctx.num_inputs() - 1, 0, ctx.num_inputs() - 1);
}
Status Concat(OpContext& ctx) { return ConvertConcat(ctx, 0, 1, ctx.num_inputs()); }

// Pack (tf.stack): each input gains the axis, then they are concatenated along it. A negative axis counts from the
// end of the output's rank in both TF and ONNX's Unsqueeze/Concat.
Status Pack(OpContext& ctx) {
  const int64_t axis = ctx.node.IntOr("axis", 0);
  if (ctx.num_inputs() == 0) return InvalidArgument(ctx.node.Where() + ": no inputs");
  std::vector<std::string> ins;
  const std::string axes = ctx.b.ConstInts(ctx.Name("axes"), {axis});
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(ctx.b.Op1("Unsqueeze", {v.name, axes}, ctx.Name("expand")));
  }
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
    parts = ctx.b.Op("Split",
                     {x.name, ctx.b.ConstInts(ctx.Name("split"), std::vector<int64_t>(static_cast<size_t>(num), 1))},
                     ctx.Name("split"), {ir::IntAttr("axis", axis)}, static_cast<int>(num));
  }
  for (int64_t i = 0; i < num; ++i) {
    ctx.SetOutput(static_cast<int>(i), ctx.b.Op1("Squeeze", {parts[static_cast<size_t>(i)], axes}, ctx.Name("squeeze")),
                  x.type);
  }
  return Status::Ok();
}

Status Tile(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue multiples, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Tile", {x.name, AsInt64(ctx, multiples, "multiples64")}, ctx.Name()), x.type);
  return Status::Ok();
}

// Split(axis, value) into num_split equal parts; SplitV(value, size_splits, axis), where one size may be -1: the
// rest of the axis, computed at run time from the input's shape.
Status ConvertSplit(OpContext& ctx, bool sized) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(sized ? 0 : 1));
  ONYX_ASSIGN_OR_RETURN(int64_t axis, ConstAxis(ctx, sized ? 2 : 0, "axis"));
  ONYX_ASSIGN_OR_RETURN(int64_t num, ctx.node.Int("num_split"));
  if (num < 1) return InvalidArgument(ctx.node.Where() + ": num_split must be at least 1");
  std::vector<std::string> ins = {x.name};
  if (sized) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(1, "size_splits"));
    if (static_cast<int64_t>(sizes.size()) != num) {
      return InvalidArgument(ctx.node.Where() + ": size_splits has " + std::to_string(sizes.size()) +
                             " entries, num_split is " + std::to_string(num));
    }
    int64_t known = 0;
    size_t inferred = sizes.size();
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] >= 0) {
        known += sizes[i];
      } else if (sizes[i] == -1 && inferred == sizes.size()) {
        inferred = i;
      } else {
        return InvalidArgument(ctx.node.Where() + ": size_splits may hold one -1 and otherwise sizes >= 0");
      }
    }
    if (inferred == sizes.size()) {
      ins.push_back(ctx.b.ConstInts(ctx.Name("split"), sizes));
    } else {
      const std::string dim = ctx.b.Op1(
          "Gather", {ctx.b.Op1("Shape", {x.name}, ctx.Name("shape")), ctx.b.ConstInts(ctx.Name("axis"), {axis})},
          ctx.Name("dim"), {ir::IntAttr("axis", 0)});
      const std::string rest = ctx.b.Op1("Sub", {dim, ctx.b.ConstInts(ctx.Name("known"), {known})}, ctx.Name("rest"));
      std::vector<int64_t> before(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(inferred));
      std::vector<int64_t> after(sizes.begin() + static_cast<std::ptrdiff_t>(inferred) + 1, sizes.end());
      std::vector<std::string> pieces;
      if (!before.empty()) pieces.push_back(ctx.b.ConstInts(ctx.Name("before"), before));
      pieces.push_back(rest);
      if (!after.empty()) pieces.push_back(ctx.b.ConstInts(ctx.Name("after"), after));
      ins.push_back(pieces.size() == 1 ? rest
                                       : ctx.b.Op1("Concat", pieces, ctx.Name("split"), {ir::IntAttr("axis", 0)}));
    }
  }
  // Opset 17's Split divides equally into as many parts as it has outputs when given no sizes.
  auto parts = num == 1 ? std::vector<std::string>{ctx.b.Op1("Identity", {x.name}, ctx.Name())}
                        : ctx.b.Op("Split", ins, ctx.Name(), {ir::IntAttr("axis", axis)}, static_cast<int>(num));
  for (int64_t i = 0; i < num; ++i) ctx.SetOutput(static_cast<int>(i), parts[static_cast<size_t>(i)], x.type);
  return Status::Ok();
}

Status Split(OpContext& ctx) { return ConvertSplit(ctx, false); }
Status SplitV(OpContext& ctx) { return ConvertSplit(ctx, true); }

// ---- slicing -----------------------------------------------------------------------------------------------------

// Slice(input, begin, size): size -1 takes the rest of the axis. Constant bounds become constant Slice inputs;
// computed ones are turned into ends at run time (end = begin + size, or the end of the axis where size < 0).
Status Slice(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue begin_v, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue size_v, ctx.Input(2));
  if (begin_v.constant == nullptr || size_v.constant == nullptr) {
    const std::string begin = AsInt64(ctx, begin_v, "begin64");
    const std::string size = AsInt64(ctx, size_v, "size64");
    const std::string to_end = ctx.b.Op1("Less", {size, ConstInt64(ctx, "zero", 0)}, ctx.Name("to_end"));
    const std::string ends =
        ctx.b.Op1("Where", {to_end, ConstInt64(ctx, "max", kToEnd), ctx.b.Op1("Add", {begin, size}, ctx.Name("end"))},
                  ctx.Name("ends"));
    ctx.SetOutput(0, ctx.b.Op1("Slice", {x.name, begin, ends}, ctx.Name()), x.type);
    return Status::Ok();
  }
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

// StridedSlice(input, begin, end, strides) with TF's masks: begin/end_mask bit i ignores begin[i]/end[i],
// shrink_axis_mask takes one element and drops the axis (begin_mask does not apply to it, as in TF), new_axis_mask
// inserts a size-1 axis (and wins over shrink on the same spec), ellipsis_mask stands for every axis not named.
// Without the input's rank, the specs after an ellipsis address axes from the end; a new axis together with an
// ellipsis needs the rank and is refused.
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
  if (!squeeze.empty()) {
    y = ctx.b.Op1("Squeeze", {y, ctx.b.ConstInts(ctx.Name("squeeze_axes"), squeeze)}, ctx.Name("squeeze"));
  }
  if (!unsqueeze.empty()) {
    y = ctx.b.Op1("Unsqueeze", {y, ctx.b.ConstInts(ctx.Name("new_axes"), unsqueeze)}, ctx.Name("new_axis"));
  }
  if (y == x.name) y = ctx.b.Op1("Identity", {y}, ctx.Name());
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

// Reverses x along `axes` (an int64 1-D value) with a step -1 Slice over the whole of each axis.
std::string ReverseAlong(OpContext& ctx, const std::string& x, const std::string& axes) {
  const std::string count = ctx.b.Op1("Shape", {axes}, ctx.Name("count"));
  auto filled = [&](const char* what, int64_t v) {
    return ctx.b.Op1("Expand", {ctx.b.ConstInts(ctx.Name(what), {v}), count}, ctx.Name(what));
  };
  const std::string minus_one = filled("starts", -1);
  return ctx.b.Op1("Slice", {x, minus_one, filled("ends", kToStart), axes, minus_one}, ctx.Name());
}

// ReverseV2(tensor, axis): constant axes give constant Slice inputs; computed ones are expanded at run time.
Status ReverseV2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue axis, ctx.Input(1));
  if (axis.constant == nullptr) {
    const std::string axes =
        ctx.b.Op1("Reshape", {AsInt64(ctx, axis, "axis64"), ctx.b.ConstInts(ctx.Name("flat"), {-1})}, ctx.Name("axes"));
    ctx.SetOutput(0, ReverseAlong(ctx, x.name, axes), x.type);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(1, "axis"));
  if (axes.empty()) return PassThrough(ctx);
  const size_t n = axes.size();
  const std::string minus_one = ctx.b.ConstInts(ctx.Name("steps"), std::vector<int64_t>(n, -1));
  ctx.SetOutput(0,
                ctx.b.Op1("Slice",
                          {x.name, minus_one, ctx.b.ConstInts(ctx.Name("ends"), std::vector<int64_t>(n, kToStart)),
                           ctx.b.ConstInts(ctx.Name("axes"), axes), minus_one},
                          ctx.Name()),
                x.type);
  return Status::Ok();
}

// Reverse(tensor, dims): dims is one bool per axis; the axes are where it is true (NonZero when computed).
Status Reverse(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue dims, ctx.Input(1));
  if (dims.constant == nullptr) {
    const std::string axes = ctx.b.Op1(
        "Reshape", {ctx.b.Op1("NonZero", {dims.name}, ctx.Name("nonzero")), ctx.b.ConstInts(ctx.Name("flat"), {-1})},
        ctx.Name("axes"));
    ctx.SetOutput(0, ReverseAlong(ctx, x.name, axes), x.type);
    return Status::Ok();
  }
  const Tensor& d = *dims.constant;
  if (d.type() != DataType::kBool || d.rank() != 1) {
    return InvalidArgument(ctx.node.Where() + ": dims must be a 1-D bool tensor");
  }
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < d.size(); ++i) {
    if (d.data<bool>()[i]) axes.push_back(i);
  }
  if (axes.empty()) return PassThrough(ctx);
  const size_t n = axes.size();
  const std::string minus_one = ctx.b.ConstInts(ctx.Name("steps"), std::vector<int64_t>(n, -1));
  ctx.SetOutput(0,
                ctx.b.Op1("Slice",
                          {x.name, minus_one, ctx.b.ConstInts(ctx.Name("ends"), std::vector<int64_t>(n, kToStart)),
                           ctx.b.ConstInts(ctx.Name("axes"), axes), minus_one},
                          ctx.Name()),
                x.type);
  return Status::Ok();
}

// ---- gathering and scattering ------------------------------------------------------------------------------------
// TF rejects out-of-range indices at run time (CPU) where ONNX reads negative ones from the end; valid models never
// hold them, so the difference only shows on inputs TF refuses.

Status GatherNd(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue params, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("GatherND", {params.name, AsInt64(ctx, indices, "indices64")}, ctx.Name()), params.type);
  return Status::Ok();
}

// GatherV2(params, indices, axis) with batch_dims; Gather(params, indices) is axis 0. batch_dims > 0 with the axis
// right after the batch dims (tf.gather's default) is GatherND over indices with a trailing 1; other axes would need
// the ranks, which are not known here.
Status ConvertGather(OpContext& ctx, bool v2) {
  ONYX_ASSIGN_OR_RETURN(TfValue params, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  int64_t axis = 0;
  if (v2) {
    ONYX_ASSIGN_OR_RETURN(axis, ConstAxis(ctx, 2, "axis"));
  }
  int64_t batch_dims = v2 ? ctx.node.IntOr("batch_dims", 0) : 0;
  if (batch_dims < 0 && indices.constant != nullptr) batch_dims += indices.constant->rank();
  const std::string idx = AsInt64(ctx, indices, "indices64");
  if (batch_dims == 0) {
    ctx.SetOutput(0, ctx.b.Op1("Gather", {params.name, idx}, ctx.Name(), {ir::IntAttr("axis", axis)}), params.type);
    return Status::Ok();
  }
  if (batch_dims < 0 || axis != batch_dims) {
    return Unsupported(ctx.node.Where() + ": batch_dims " + std::to_string(batch_dims) + " with axis " +
                       std::to_string(axis) + " (only a non-negative batch_dims equal to the axis)");
  }
  const std::string idx1 = ctx.b.Op1("Unsqueeze", {idx, ctx.b.ConstInts(ctx.Name("last"), {-1})}, ctx.Name("index"));
  ctx.SetOutput(0, ctx.b.Op1("GatherND", {params.name, idx1}, ctx.Name(), {ir::IntAttr("batch_dims", batch_dims)}),
                params.type);
  return Status::Ok();
}

Status GatherV2(OpContext& ctx) { return ConvertGather(ctx, true); }
Status Gather(OpContext& ctx) { return ConvertGather(ctx, false); }

// A ConstantOfShape value attribute: one element of `type`.
Result<ir::Attribute> FillValue(DataType type, double v) {
  ONYX_ASSIGN_OR_RETURN(Tensor t, ScalarTensor(type, v));
  ONYX_ASSIGN_OR_RETURN(Tensor t1, t.Reshaped({1}));
  ir::Attribute a;
  a.name = "value";
  a.type = ir::AttrType::kTensor;
  a.t.tensor = std::move(t1);
  return a;
}

// ScatterNd(indices, updates, shape): updates summed into zeros; repeated indices add up, as in TF.
Status ScatterNd(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue updates, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(ir::Attribute zero, FillValue(updates.type, 0));
  const std::string zeros = ctx.b.Op1("ConstantOfShape", {AsInt64(ctx, shape, "shape64")}, ctx.Name("zeros"), {zero});
  // Constant indices without repeats need no reduction (which ONNX only has from opset 16).
  bool repeats = indices.constant == nullptr || indices.constant->rank() < 1;
  if (!repeats) {
    const Tensor& t = *indices.constant;
    const int64_t depth = t.dim(t.rank() - 1);
    std::set<std::vector<int64_t>> seen;
    for (int64_t row = 0; depth > 0 && row < t.size() / depth && !repeats; ++row) {
      std::vector<int64_t> index(static_cast<size_t>(depth));
      for (int64_t j = 0; j < depth; ++j) index[static_cast<size_t>(j)] = t.IntAt(row * depth + j);
      repeats = !seen.insert(std::move(index)).second;
    }
  }
  const char* reduction = repeats && updates.type != DataType::kBool ? "add" : "none";
  ctx.SetOutput(0,
                ctx.b.Op1("ScatterND", {zeros, AsInt64(ctx, indices, "indices64"), updates.name}, ctx.Name(),
                          {ir::StringAttr("reduction", reduction)}),
                updates.type);
  return Status::Ok();
}

// TensorScatterUpdate(tensor, indices, updates): ONNX ScatterND without reduction.
Status TensorScatterUpdate(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue tensor, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue updates, ctx.Input(2));
  ctx.SetOutput(0, ctx.b.Op1("ScatterND", {tensor.name, AsInt64(ctx, indices, "indices64"), updates.name}, ctx.Name()),
                tensor.type);
  return Status::Ok();
}

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value): the default broadcast to the shape,
// then the values scattered in. Indices may be a scalar or a vector (each one index of a 1-D output) or [N, rank]:
// reshaping them to [-1, rank] covers the three; a scalar value is broadcast to every index.
Status SparseToDense(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue values, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(TfValue fill, ctx.Input(3));
  const std::string shape64 = AsInt64(ctx, shape, "shape64");
  const std::string dense = ctx.b.Op1("Expand", {fill.name, shape64}, ctx.Name("dense"));
  const std::string rank = ctx.b.Op1("Shape", {shape64}, ctx.Name("rank"));
  const std::string idx_shape = ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("all"), {-1}), rank},
                                          ctx.Name("index_shape"), {ir::IntAttr("axis", 0)});
  const std::string idx = ctx.b.Op1("Reshape", {AsInt64(ctx, indices, "indices64"), idx_shape}, ctx.Name("indices"));
  const std::string count = Part(ctx, ctx.b.Op1("Shape", {idx}, ctx.Name("index_dims")), 0, 1, "count");
  const std::string vals = ctx.b.Op1("Expand", {values.name, count}, ctx.Name("values"));
  ctx.SetOutput(0, ctx.b.Op1("ScatterND", {dense, idx, vals}, ctx.Name()), values.type);
  return Status::Ok();
}

// ---- padding -------------------------------------------------------------------------------------------------------

// TF's paddings [rank, 2] as ONNX pads [begins..., ends...]: folded when constant, transposed at run time otherwise.
Result<std::string> OnnxPads(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue paddings, ctx.Input(1));
  if (paddings.constant == nullptr) {
    const std::string t = ctx.b.Op1("Transpose", {AsInt64(ctx, paddings, "paddings64")}, ctx.Name("pads_t"),
                                    {ir::IntsAttr("perm", {1, 0})});
    return ctx.b.Op1("Reshape", {t, ctx.b.ConstInts(ctx.Name("flat"), {-1})}, ctx.Name("pads"));
  }
  const Tensor& p = *paddings.constant;
  if (p.rank() != 2 || p.dim(1) != 2) return InvalidArgument(ctx.node.Where() + ": paddings must be [rank, 2]");
  const int64_t rank = p.dim(0);
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank));
  for (int64_t d = 0; d < rank; ++d) {
    pads[static_cast<size_t>(d)] = p.IntAt(2 * d);
    pads[static_cast<size_t>(rank + d)] = p.IntAt(2 * d + 1);
  }
  return ctx.b.ConstInts(ctx.Name("pads"), pads);
}

// Pad(input, paddings) and PadV2(input, paddings, constant_values).
Status Pad(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string pads, OnnxPads(ctx));
  std::vector<std::string> ins = {x.name, pads};
  if (ctx.num_inputs() > 2) {
    ONYX_ASSIGN_OR_RETURN(TfValue value, ctx.Input(2));
    ins.push_back(value.name);
  }
  ctx.SetOutput(0, ctx.b.Op1("Pad", ins, ctx.Name(), {ir::StringAttr("mode", "constant")}), x.type);
  return Status::Ok();
}

// MirrorPad(input, paddings, mode): REFLECT (the edge not repeated) is ONNX's reflect. SYMMETRIC repeats the edge,
// which ONNX's Pad has no mode for: each padded axis is concatenated with its reversed first and last slices.
Status MirrorPad(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string mode, ctx.node.String("mode"));
  if (mode == "REFLECT") {
    ONYX_ASSIGN_OR_RETURN(std::string pads, OnnxPads(ctx));
    ctx.SetOutput(0, ctx.b.Op1("Pad", {x.name, pads}, ctx.Name(), {ir::StringAttr("mode", "reflect")}), x.type);
    return Status::Ok();
  }
  if (mode != "SYMMETRIC") return InvalidArgument(ctx.node.Where() + ": mode '" + mode + "' (REFLECT or SYMMETRIC)");
  ONYX_ASSIGN_OR_RETURN(Tensor p, ctx.ConstInput(1, "paddings"));
  if (p.rank() != 2 || p.dim(1) != 2) return InvalidArgument(ctx.node.Where() + ": paddings must be [rank, 2]");
  std::string y = x.name;
  for (int64_t d = 0; d < p.dim(0); ++d) {
    const int64_t before = p.IntAt(2 * d), after = p.IntAt(2 * d + 1);
    if (before < 0 || after < 0) return InvalidArgument(ctx.node.Where() + ": negative paddings");
    if (before == 0 && after == 0) continue;
    const std::string axes = ctx.b.ConstInts(ctx.Name("axis"), {d});
    const std::string back = ctx.b.ConstInts(ctx.Name("step"), {-1});
    std::vector<std::string> parts;
    if (before > 0) {  // elements before-1 .. 0
      parts.push_back(ctx.b.Op1("Slice",
                                {y, ctx.b.ConstInts(ctx.Name("start"), {before - 1}),
                                 ctx.b.ConstInts(ctx.Name("end"), {kToStart}), axes, back},
                                ctx.Name("before")));
    }
    parts.push_back(y);
    if (after > 0) {  // elements n-1 .. n-after
      parts.push_back(ctx.b.Op1(
          "Slice",
          {y, ctx.b.ConstInts(ctx.Name("start"), {-1}), ctx.b.ConstInts(ctx.Name("end"), {-1 - after}), axes, back},
          ctx.Name("after")));
    }
    y = ctx.b.Op1("Concat", parts, ctx.Name("padded"), {ir::IntAttr("axis", d)});
  }
  if (y == x.name) y = ctx.b.Op1("Identity", {y}, ctx.Name());
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

// ---- space <-> batch and depth -------------------------------------------------------------------------------------
// The block shape (and the paddings/crops) must be constants: they fix the ranks of the intermediate reshapes. The
// dims after the M spatial ones are folded into one, so the input's rank need not be known.

Result<std::vector<int64_t>> BlockShape(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.ConstInts(1, "block_shape"));
  if (block.empty()) return Unsupported(ctx.node.Where() + ": an empty block_shape");
  for (int64_t b : block) {
    if (b < 1) return InvalidArgument(ctx.node.Where() + ": block sizes must be positive");
  }
  if (!CheckedProduct(block)) return InvalidArgument(ctx.node.Where() + ": the block sizes multiply past 2^63");
  return block;
}

// SpaceToBatchND(input [B, S1..SM, rest], block_shape [M], paddings [M, 2]): pad the spatial dims, split each into
// (S/b, b), move the block offsets in front of the batch (TF's batch order: offset major, then the original batch).
Status SpaceToBatchND(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> block, BlockShape(ctx));
  ONYX_ASSIGN_OR_RETURN(Tensor paddings, ctx.ConstInput(2, "paddings"));
  const int64_t m = static_cast<int64_t>(block.size());
  if (paddings.rank() != 2 || paddings.dim(0) != m || paddings.dim(1) != 2) {
    return InvalidArgument(ctx.node.Where() + ": paddings must be [M, 2] for a block_shape of M");
  }
  // Pads for the batch, the M spatial dims and the folded rest: [B, S1..SM, R].
  std::vector<int64_t> pads(static_cast<size_t>(2 * (m + 2)), 0);
  bool padded = false;
  for (int64_t i = 0; i < m; ++i) {
    pads[static_cast<size_t>(1 + i)] = paddings.IntAt(2 * i);
    pads[static_cast<size_t>(m + 2 + 1 + i)] = paddings.IntAt(2 * i + 1);
    padded = padded || paddings.IntAt(2 * i) != 0 || paddings.IntAt(2 * i + 1) != 0;
  }
  const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  const std::string batch = Part(ctx, shape, 0, 1, "batch");
  const std::string rest = Part(ctx, shape, 1 + m, kToEnd, "rest");
  // [B, S1..SM, R]
  std::string y = ctx.b.Op1(
      "Reshape",
      {x.name, ctx.b.Op1("Concat", {batch, Part(ctx, shape, 1, 1 + m, "spatial"), ctx.b.ConstInts(ctx.Name("r"), {-1})},
                         ctx.Name("folded_shape"), {ir::IntAttr("axis", 0)})},
      ctx.Name("folded"));
  if (padded) y = ctx.b.Op1("Pad", {y, ctx.b.ConstInts(ctx.Name("pads"), pads)}, ctx.Name("pad"));
  // [B, S1/b1, b1, ..., SM/bM, bM, R]
  const std::string blocks = ctx.b.ConstInts(ctx.Name("block"), block);
  const std::string padded_shape = ctx.b.Op1("Shape", {y}, ctx.Name("padded_shape"));
  const std::string outer =
      ctx.b.Op1("Div", {Part(ctx, padded_shape, 1, 1 + m, "padded_spatial"), blocks}, ctx.Name("outer"));
  const std::string column = ctx.b.ConstInts(ctx.Name("column"), {m, 1});
  const std::string pairs = ctx.b.Op1("Reshape",
                                      {ctx.b.Op1("Concat",
                                                 {ctx.b.Op1("Reshape", {outer, column}, ctx.Name("outer_col")),
                                                  ctx.b.Op1("Reshape", {blocks, column}, ctx.Name("block_col"))},
                                                 ctx.Name("pairs"), {ir::IntAttr("axis", 1)}),
                                       ctx.b.ConstInts(ctx.Name("flat"), {-1})},
                                      ctx.Name("pairs_flat"));
  y = ctx.b.Op1("Reshape",
                {y, ctx.b.Op1("Concat", {batch, pairs, ctx.b.ConstInts(ctx.Name("r"), {-1})}, ctx.Name("split_shape"),
                              {ir::IntAttr("axis", 0)})},
                ctx.Name("split"));
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < m; ++i) perm.push_back(2 + 2 * i);
  perm.push_back(0);
  for (int64_t i = 0; i < m; ++i) perm.push_back(1 + 2 * i);
  perm.push_back(2 * m + 1);
  y = ctx.b.Op1("Transpose", {y}, ctx.Name("move_blocks"), {ir::IntsAttr("perm", perm)});
  // [prod(b) * B, S1/b1..SM/bM, rest]
  const std::string out_shape = ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("all"), {-1}), outer, rest},
                                          ctx.Name("out_shape"), {ir::IntAttr("axis", 0)});
  ctx.SetOutput(0, ctx.b.Op1("Reshape", {y, out_shape}, ctx.Name()), x.type);
  return Status::Ok();
}

// BatchToSpaceND(input [prod(b) * B, S1..SM, rest], block_shape [M], crops [M, 2]): the inverse of SpaceToBatchND,
// then the crops sliced off.
Status BatchToSpaceND(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> block, BlockShape(ctx));
  ONYX_ASSIGN_OR_RETURN(Tensor crops, ctx.ConstInput(2, "crops"));
  const int64_t m = static_cast<int64_t>(block.size());
  if (crops.rank() != 2 || crops.dim(0) != m || crops.dim(1) != 2) {
    return InvalidArgument(ctx.node.Where() + ": crops must be [M, 2] for a block_shape of M");
  }
  int64_t prod = 1;
  for (int64_t b : block) prod *= b;
  const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  const std::string batch = ctx.b.Op1(
      "Div", {Part(ctx, shape, 0, 1, "batch_in"), ctx.b.ConstInts(ctx.Name("prod"), {prod})}, ctx.Name("batch"));
  const std::string spatial = Part(ctx, shape, 1, 1 + m, "spatial");
  const std::string rest = Part(ctx, shape, 1 + m, kToEnd, "rest");
  const std::string blocks = ctx.b.ConstInts(ctx.Name("block"), block);
  // [b1..bM, B, S1..SM, R]
  std::string y = ctx.b.Op1("Reshape",
                            {x.name, ctx.b.Op1("Concat", {blocks, batch, spatial, ctx.b.ConstInts(ctx.Name("r"), {-1})},
                                               ctx.Name("split_shape"), {ir::IntAttr("axis", 0)})},
                            ctx.Name("split"));
  // [B, S1, b1, ..., SM, bM, R]
  std::vector<int64_t> perm = {m};
  for (int64_t i = 0; i < m; ++i) {
    perm.push_back(m + 1 + i);
    perm.push_back(i);
  }
  perm.push_back(2 * m + 1);
  y = ctx.b.Op1("Transpose", {y}, ctx.Name("move_blocks"), {ir::IntsAttr("perm", perm)});
  const std::string full = ctx.b.Op1("Mul", {spatial, blocks}, ctx.Name("full"));
  y = ctx.b.Op1("Reshape",
                {y, ctx.b.Op1("Concat", {batch, full, rest}, ctx.Name("merged_shape"), {ir::IntAttr("axis", 0)})},
                ctx.Name("merged"));
  std::vector<int64_t> starts, ends, axes;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t lo = crops.IntAt(2 * i), hi = crops.IntAt(2 * i + 1);
    if (lo < 0 || hi < 0) return InvalidArgument(ctx.node.Where() + ": negative crops");
    if (lo == 0 && hi == 0) continue;
    starts.push_back(lo);
    ends.push_back(hi == 0 ? kToEnd : -hi);
    axes.push_back(1 + i);
  }
  if (!axes.empty()) {
    y = ctx.b.Op1("Slice",
                  {y, ctx.b.ConstInts(ctx.Name("starts"), starts), ctx.b.ConstInts(ctx.Name("ends"), ends),
                   ctx.b.ConstInts(ctx.Name("axes"), axes)},
                  ctx.Name("crop"));
  }
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

// DepthToSpace / SpaceToDepth with block_size: TF's channel order (block row, block column, channel) is ONNX's DCR
// (the only order SpaceToDepth has). NHWC goes through NCHW between Transposes.
Status ConvertDepthSpace(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(int64_t block, ctx.node.Int("block_size"));
  const std::string format = ctx.node.StringOr("data_format", "NHWC");
  if (block < 2) return InvalidArgument(ctx.node.Where() + ": block_size must be at least 2");
  if (format != "NHWC" && format != "NCHW") {
    return Unsupported(ctx.node.Where() + ": data_format " + format + " (NHWC or NCHW)");
  }
  std::vector<ir::Attribute> attrs = {ir::IntAttr("blocksize", block)};
  if (std::string(onnx_op) == "DepthToSpace") attrs.push_back(ir::StringAttr("mode", "DCR"));
  if (format == "NCHW") {
    ctx.SetOutput(0, ctx.b.Op1(onnx_op, {x.name}, ctx.Name(), std::move(attrs)), x.type);
    return Status::Ok();
  }
  const std::string nchw = ctx.b.Op1("Transpose", {x.name}, ctx.Name("nchw"), {ir::IntsAttr("perm", {0, 3, 1, 2})});
  const std::string y = ctx.b.Op1(onnx_op, {nchw}, ctx.Name("op"), std::move(attrs));
  ctx.SetOutput(0, ctx.b.Op1("Transpose", {y}, ctx.Name(), {ir::IntsAttr("perm", {0, 2, 3, 1})}), x.type);
  return Status::Ok();
}

Status DepthToSpace(OpContext& ctx) { return ConvertDepthSpace(ctx, "DepthToSpace"); }
Status SpaceToDepth(OpContext& ctx) { return ConvertDepthSpace(ctx, "SpaceToDepth"); }

}  // namespace

void AddArrayOps(std::map<std::string, OpFn>& t) {
  t["Reshape"] = Reshape;
  t["EnsureShape"] = PassThrough;
  t["Squeeze"] = Squeeze;
  t["ExpandDims"] = ExpandDims;
  t["Transpose"] = Transpose;
  t["Shape"] = Shape;
  t["BroadcastTo"] = BroadcastTo;
  t["BroadcastArgs"] = BroadcastArgs;
  t["ConcatV2"] = ConcatV2;
  t["Concat"] = Concat;
  t["Pack"] = Pack;
  t["Unpack"] = Unpack;
  t["Tile"] = Tile;
  t["Split"] = Split;
  t["SplitV"] = SplitV;
  t["Slice"] = Slice;
  t["StridedSlice"] = StridedSlice;
  t["Reverse"] = Reverse;
  t["ReverseV2"] = ReverseV2;
  t["GatherNd"] = GatherNd;
  t["GatherV2"] = GatherV2;
  t["Gather"] = Gather;
  t["ScatterNd"] = ScatterNd;
  t["TensorScatterUpdate"] = TensorScatterUpdate;
  t["SparseToDense"] = SparseToDense;
  t["Pad"] = Pad;
  t["PadV2"] = Pad;
  t["MirrorPad"] = MirrorPad;
  t["SpaceToBatchND"] = SpaceToBatchND;
  t["BatchToSpaceND"] = BatchToSpaceND;
  t["DepthToSpace"] = DepthToSpace;
  t["SpaceToDepth"] = SpaceToDepth;
}

}  // namespace onyx::convert::tf
