// Reductions (ReduceX: axes an attribute until ReduceSum-13 / the others' version 18, an input after) and
// ArgMax/ArgMin.
#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

Status Reduce(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  bool axes_as_input = ctx.node().op_type == "ReduceSum" ? ctx.since_version() >= 13 : ctx.since_version() >= 18;
  bool keepdims = ctx.GetInt("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> axes;
  bool axes_known = true;
  if (axes_as_input) {
    if (ctx.has_input(1)) {
      axes = ctx.input_int_values(1);
      axes_known = axes.has_value();
    }
  } else {
    axes = ctx.GetInts("axes");
  }
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  if (!axes_known) {
    // Which axes are reduced is unknown: with keepdims the rank stays.
    SetLike(ctx, 0, 0, keepdims ? std::optional<Dims>(UnknownDims(rank)) : std::nullopt);
    return Status::Ok();
  }
  std::vector<bool> reduced(in->size(), false);
  if (!axes || axes->empty()) {
    bool noop = axes_as_input && ctx.GetInt("noop_with_empty_axes", 0) != 0;
    if (noop) {
      SetLike(ctx, 0, 0, *in);
      return Status::Ok();
    }
    reduced.assign(in->size(), true);
  } else {
    for (int64_t a : *axes) {
      ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank, "axis"));
      reduced[static_cast<size_t>(ax)] = true;
    }
  }
  Dims out;
  for (size_t i = 0; i < in->size(); ++i) {
    if (!reduced[i])
      out.push_back((*in)[i]);
    else if (keepdims)
      out.push_back(DimOf(1));
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status ArgReduce(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    ctx.set_output_tensor(0, DataType::kInt64, std::nullopt);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int64_t>(in->size()), "axis"));
  Dims out = *in;
  if (ctx.GetInt("keepdims", 1) != 0)
    out[static_cast<size_t>(axis)] = DimOf(1);
  else
    out.erase(out.begin() + axis);
  ctx.set_output_tensor(0, DataType::kInt64, out);
  return Status::Ok();
}

constexpr const char* kReductions[] = {"ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
                                       "ReduceMean", "ReduceMin", "ReduceProd",   "ReduceSum",       "ReduceSumSquare"};

}  // namespace

void RegisterReductionInference(OpInferenceRegistry& r) {
  for (const char* op : kReductions) r.Add("", op, Reduce);
  r.Add("", "ArgMax", ArgReduce);
  r.Add("", "ArgMin", ArgReduce);
}

}  // namespace onyx::infer
