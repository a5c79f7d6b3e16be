// Adapters for attributes that became inputs (upward: the attribute's value becomes a constant input) and back
// (downward: the input must be a constant, whose value becomes the attribute).
#include <cmath>
#include <limits>

#include "version/adapter.h"

namespace onyx::version {

namespace {

// The constant value of optional input `index`; nullopt when omitted; an error naming the input when it is
// computed at run time.
Result<std::optional<Tensor>> ConstantInput(const AdaptContext& ctx, const ir::Node& node, size_t index,
                                            const std::string& becomes) {
  if (index >= node.inputs.size() || node.inputs[index].empty()) return std::optional<Tensor>();
  std::optional<Tensor> v = ctx.scope().ConstantValue(node.inputs[index]);
  if (!v) {
    return ctx.Fail(node,
                    "input '" + node.inputs[index] + "' must become attribute '" + becomes + "' but is not a constant");
  }
  return v;
}

Result<std::vector<int64_t>> Ints(const AdaptContext& ctx, const ir::Node& node, const Tensor& t,
                                  const std::string& what) {
  if (!IsInteger(t.type()) || t.rank() > 1) return ctx.Fail(node, what + " is not a 0-D or 1-D integer tensor");
  return t.ToInt64Vector();
}

// Upward: moves INTS attribute `attr` (when present) to input `index` as an int64 1-D constant.
void IntsAttrToInput(AdaptContext& ctx, ir::Node& node, const std::string& attr, size_t index) {
  if (auto a = TakeAttribute(node, attr)) SetInput(node, index, ctx.AddInt64s(a->ints, node.name + "_" + attr));
}

// Downward: moves constant input `index` (when present) to INTS attribute `attr`.
Status InputToIntsAttr(AdaptContext& ctx, ir::Node& node, size_t index, const std::string& attr) {
  ONYX_ASSIGN_OR_RETURN(std::optional<Tensor> v, ConstantInput(ctx, node, index, attr));
  if (v) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ints, Ints(ctx, node, *v, "input '" + node.inputs[index] + "'"));
    node.attributes.push_back(IntsAttr(attr, std::move(ints)));
  }
  if (index < node.inputs.size()) node.inputs[index].clear();
  TrimInputs(node);
  return Status::Ok();
}

// Downward: a constant float input (scalar or one element) as FLOAT attribute.
Status InputToFloatAttr(AdaptContext& ctx, ir::Node& node, size_t index, const std::string& attr) {
  ONYX_ASSIGN_OR_RETURN(std::optional<Tensor> v, ConstantInput(ctx, node, index, attr));
  if (v) {
    if (v->size() != 1 || v->type() == DataType::kString || v->type() == DataType::kBool) {
      return ctx.Fail(node,
                      "input '" + node.inputs[index] + "' must be a single number to become attribute '" + attr + "'");
    }
    node.attributes.push_back(FloatAttr(attr, static_cast<float>(v->DoubleAt(0))));
  }
  if (index < node.inputs.size()) node.inputs[index].clear();
  TrimInputs(node);
  return Status::Ok();
}

// Drops attribute `attr` when it holds its default (the older version's only behaviour); fails otherwise.
Status DropDefaultInt(AdaptContext& ctx, ir::Node& node, const std::string& attr, int64_t default_value) {
  if (auto a = TakeAttribute(node, attr); a && a->i != default_value) {
    return ctx.Fail(node, "attribute '" + attr + "' = " + std::to_string(a->i) + " has no equivalent at opset " +
                              std::to_string(ctx.to_opset()));
  }
  return Status::Ok();
}

Status AxesUp(AdaptContext& ctx, ir::Node node) {
  IntsAttrToInput(ctx, node, "axes", 1);
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status AxesDown(AdaptContext& ctx, ir::Node node) {
  ONYX_RETURN_IF_ERROR(InputToIntsAttr(ctx, node, 1, "axes"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ReduceDown(AdaptContext& ctx, ir::Node node) {
  // noop_with_empty_axes=1 with no axes means identity, which older versions cannot say (they reduce all axes).
  auto noop = TakeAttribute(node, "noop_with_empty_axes");
  ONYX_RETURN_IF_ERROR(InputToIntsAttr(ctx, node, 1, "axes"));
  const ir::Attribute* axes = node.FindAttribute("axes");
  if (noop && noop->i != 0 && (!axes || axes->ints.empty())) {
    return ctx.Fail(node,
                    "noop_with_empty_axes=1 without axes has no equivalent at opset " + std::to_string(ctx.to_opset()));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status SplitUp13(AdaptContext& ctx, ir::Node node) {
  IntsAttrToInput(ctx, node, "split", 1);
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status SplitDown13(AdaptContext& ctx, ir::Node node) {
  ONYX_RETURN_IF_ERROR(InputToIntsAttr(ctx, node, 1, "split"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Split-18 wants either the 'split' input or 'num_outputs'; without 'split' the outputs count is the number.
Status SplitUp18(AdaptContext& ctx, ir::Node node) {
  if ((node.inputs.size() < 2 || node.inputs[1].empty()) && !node.FindAttribute("num_outputs")) {
    node.attributes.push_back(IntAttr("num_outputs", static_cast<int64_t>(node.outputs.size())));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status SplitDown18(AdaptContext& ctx, ir::Node node) {
  if (auto n = TakeAttribute(node, "num_outputs"); n && n->i != static_cast<int64_t>(node.outputs.size())) {
    return ctx.Fail(node, "num_outputs differs from the number of outputs");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ReshapeUp5(AdaptContext& ctx, ir::Node node) {
  auto shape = TakeAttribute(node, "shape");
  if (!shape) return ctx.Fail(node, "Reshape-1 without a 'shape' attribute");
  TakeAttribute(node, "consumed_inputs");
  SetInput(node, 1, ctx.AddInt64s(shape->ints, node.name + "_shape"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ReshapeDown5(AdaptContext& ctx, ir::Node node) {
  if (node.inputs.size() < 2 || node.inputs[1].empty()) return ctx.Fail(node, "has no shape input");
  ONYX_RETURN_IF_ERROR(InputToIntsAttr(ctx, node, 1, "shape"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ReshapeDown14(AdaptContext& ctx, ir::Node node) {
  auto allowzero = TakeAttribute(node, "allowzero");
  if (allowzero && allowzero->i != 0) {
    // allowzero only matters when the shape holds a 0; a constant shape without one is safe.
    std::optional<Tensor> shape = node.inputs.size() > 1 ? ctx.scope().ConstantValue(node.inputs[1]) : std::nullopt;
    bool has_zero = true;
    if (shape && IsInteger(shape->type())) {
      has_zero = false;
      for (int64_t d : shape->ToInt64Vector()) has_zero |= d == 0;
    }
    if (has_zero) return ctx.Fail(node, "allowzero=1 with a shape that may hold 0 has no equivalent before opset 14");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status SliceUp10(AdaptContext& ctx, ir::Node node) {
  auto starts = TakeAttribute(node, "starts");
  auto ends = TakeAttribute(node, "ends");
  auto axes = TakeAttribute(node, "axes");
  if (!starts || !ends) return ctx.Fail(node, "Slice-1 without 'starts' and 'ends'");
  SetInput(node, 1, ctx.AddInt64s(starts->ints, node.name + "_starts"));
  SetInput(node, 2, ctx.AddInt64s(ends->ints, node.name + "_ends"));
  if (axes) SetInput(node, 3, ctx.AddInt64s(axes->ints, node.name + "_axes"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status SliceDown10(AdaptContext& ctx, ir::Node node) {
  ONYX_ASSIGN_OR_RETURN(std::optional<Tensor> steps, ConstantInput(ctx, node, 4, "steps"));
  if (steps) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, Ints(ctx, node, *steps, "steps"));
    for (int64_t v : s) {
      if (v != 1) return ctx.Fail(node, "steps other than 1 have no equivalent before opset 10");
    }
    node.inputs[4].clear();
  }
  for (auto [index, attr] : {std::pair<size_t, const char*>{3, "axes"}, {2, "ends"}, {1, "starts"}}) {
    ONYX_RETURN_IF_ERROR(InputToIntsAttr(ctx, node, index, attr));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status TopKUp10(AdaptContext& ctx, ir::Node node) {
  auto k = TakeAttribute(node, "k");
  if (!k) return ctx.Fail(node, "TopK-1 without 'k'");
  SetInput(node, 1, ctx.AddInt64s({k->i}, node.name + "_k"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status TopKDown10(AdaptContext& ctx, ir::Node node) {
  ONYX_ASSIGN_OR_RETURN(std::optional<Tensor> k, ConstantInput(ctx, node, 1, "k"));
  if (!k || k->size() != 1 || !IsInteger(k->type())) return ctx.Fail(node, "input 'K' must be a constant [1] tensor");
  node.attributes.push_back(IntAttr("k", k->IntAt(0)));
  node.inputs.resize(1);
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status TopKDown11(AdaptContext& ctx, ir::Node node) {
  ONYX_RETURN_IF_ERROR(DropDefaultInt(ctx, node, "largest", 1));
  // sorted=0 lets the order be anything, sorted output included.
  TakeAttribute(node, "sorted");
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Clip-11 takes min and max as inputs of the input's element type.
Status ClipUp11(AdaptContext& ctx, ir::Node node) {
  auto min = TakeAttribute(node, "min");
  auto max = TakeAttribute(node, "max");
  if (min || max) {
    std::optional<DataType> t = ctx.scope().ElemType(node.inputs[0]);
    if (!t) return ctx.Fail(node, "the element type of input '" + node.inputs[0] + "' is unknown");
    for (auto [attr, index, name] : {std::tuple{&min, 1u, "_min"}, std::tuple{&max, 2u, "_max"}}) {
      if (!*attr) continue;
      ONYX_ASSIGN_OR_RETURN(Tensor v, ScalarOf(*t, (*attr)->f));
      SetInput(node, index, ctx.AddConstant(std::move(v), node.name + name));
    }
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status ClipDown11(AdaptContext& ctx, ir::Node node) {
  ONYX_RETURN_IF_ERROR(InputToFloatAttr(ctx, node, 2, "max"));
  ONYX_RETURN_IF_ERROR(InputToFloatAttr(ctx, node, 1, "min"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status PadUp2(AdaptContext& ctx, ir::Node node) {
  for (auto& a : node.attributes) {
    if (a.name == "paddings") a.name = "pads";
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status PadDown2(AdaptContext& ctx, ir::Node node) {
  for (auto& a : node.attributes) {
    if (a.name == "pads") a.name = "paddings";
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status PadUp11(AdaptContext& ctx, ir::Node node) {
  auto pads = TakeAttribute(node, "pads");
  auto value = TakeAttribute(node, "value");
  if (!pads) return ctx.Fail(node, "Pad-2 without 'pads'");
  SetInput(node, 1, ctx.AddInt64s(pads->ints, node.name + "_pads"));
  if (value && value->f != 0) {
    std::optional<DataType> t = ctx.scope().ElemType(node.inputs[0]);
    if (!t) return ctx.Fail(node, "the element type of input '" + node.inputs[0] + "' is unknown");
    ONYX_ASSIGN_OR_RETURN(Tensor v, ScalarOf(*t, value->f));
    SetInput(node, 2, ctx.AddConstant(std::move(v), node.name + "_value"));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status PadDown11(AdaptContext& ctx, ir::Node node) {
  if (node.inputs.size() < 2 || node.inputs[1].empty()) return ctx.Fail(node, "has no pads input");
  ONYX_RETURN_IF_ERROR(InputToFloatAttr(ctx, node, 2, "value"));
  ONYX_RETURN_IF_ERROR(InputToIntsAttr(ctx, node, 1, "pads"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status PadDown18(AdaptContext& ctx, ir::Node node) {
  if (node.inputs.size() > 3 && !node.inputs[3].empty()) {
    return ctx.Fail(node, "the 'axes' input has no equivalent before opset 18 (pads must cover every axis)");
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// Dropout-12 takes ratio as an input and training_mode as an input (default: inference).
Status DropoutUp12(AdaptContext& ctx, ir::Node node) {
  if (auto ratio = TakeAttribute(node, "ratio")) {
    SetInput(node, 1, ctx.AddConstant(Tensor::Scalar<float>(ratio->f), node.name + "_ratio"));
  }
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status DropoutDown12(AdaptContext& ctx, ir::Node node) {
  ONYX_ASSIGN_OR_RETURN(std::optional<Tensor> training, ConstantInput(ctx, node, 2, "training_mode"));
  if (training && (training->size() != 1 || training->DoubleAt(0) != 0)) {
    return ctx.Fail(node, "training_mode=true has no equivalent before opset 12");
  }
  if (node.inputs.size() > 2) node.inputs[2].clear();
  ONYX_RETURN_IF_ERROR(InputToFloatAttr(ctx, node, 1, "ratio"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

// DFT-20 takes the axis as input 2 (its default changed from 1 to -2, so it is always given explicitly).
Status DftUp20(AdaptContext& ctx, ir::Node node) {
  auto axis = TakeAttribute(node, "axis");
  SetInput(node, 2, ctx.AddConstant(Tensor::Scalar<int64_t>(axis ? axis->i : 1), node.name + "_axis"));
  ctx.Emit(std::move(node));
  return Status::Ok();
}

Status DftDown20(AdaptContext& ctx, ir::Node node) {
  ONYX_ASSIGN_OR_RETURN(std::optional<Tensor> axis, ConstantInput(ctx, node, 2, "axis"));
  int64_t a = axis ? axis->IntAt(0) : -2;
  if (a < 0) {
    std::optional<int64_t> rank = ctx.scope().Rank(node.inputs[0]);
    if (!rank) return ctx.Fail(node, "a negative axis needs the input's rank, which is unknown");
    a += *rank;
  }
  node.attributes.push_back(IntAttr("axis", a));
  if (node.inputs.size() > 2) node.inputs[2].clear();
  TrimInputs(node);
  ctx.Emit(std::move(node));
  return Status::Ok();
}

}  // namespace

void RegisterInputAttributeAdapters(AdapterTable& t) {
  t[{"Reshape", 5, true}] = ReshapeUp5;
  t[{"Reshape", 5, false}] = ReshapeDown5;
  t[{"Reshape", 14, false}] = ReshapeDown14;
  t[{"Slice", 10, true}] = SliceUp10;
  t[{"Slice", 10, false}] = SliceDown10;
  t[{"Split", 13, true}] = SplitUp13;
  t[{"Split", 13, false}] = SplitDown13;
  t[{"Split", 18, true}] = SplitUp18;
  t[{"Split", 18, false}] = SplitDown18;
  for (const char* op : {"Squeeze", "Unsqueeze"}) {
    t[{op, 13, true}] = AxesUp;
    t[{op, 13, false}] = AxesDown;
  }
  t[{"ReduceSum", 13, true}] = AxesUp;
  t[{"ReduceSum", 13, false}] = ReduceDown;
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                         "ReduceMin", "ReduceProd", "ReduceSumSquare"}) {
    t[{op, 18, true}] = AxesUp;
    t[{op, 18, false}] = ReduceDown;
  }
  t[{"TopK", 10, true}] = TopKUp10;
  t[{"TopK", 10, false}] = TopKDown10;
  t[{"TopK", 11, false}] = TopKDown11;
  t[{"Clip", 11, true}] = ClipUp11;
  t[{"Clip", 11, false}] = ClipDown11;
  t[{"Pad", 2, true}] = PadUp2;
  t[{"Pad", 2, false}] = PadDown2;
  t[{"Pad", 11, true}] = PadUp11;
  t[{"Pad", 11, false}] = PadDown11;
  t[{"Pad", 18, false}] = PadDown18;
  t[{"Dropout", 12, true}] = DropoutUp12;
  t[{"Dropout", 12, false}] = DropoutDown12;
  t[{"DFT", 20, true}] = DftUp20;
  t[{"DFT", 20, false}] = DftDown20;
}

}  // namespace onyx::version
