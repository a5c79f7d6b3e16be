// Sequences and optionals: seq(T) and optional(T) types, element types unioned across inserted tensors.
#include <memory>

#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

std::optional<ir::TypeInfo> ElemOf(const ir::TypeInfo* t) {
  if (t == nullptr || !t->elem) return std::nullopt;
  if (t->kind != ir::TypeInfo::Kind::kSequence && t->kind != ir::TypeInfo::Kind::kOptional) return std::nullopt;
  return *t->elem;
}

Status SequenceConstruct(InferenceContext& ctx) {
  std::optional<ir::TypeInfo> elem;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const ir::TypeInfo* t = ctx.input_type(i);
    if (t == nullptr) return Status::Ok();
    if (!elem) {
      elem = *t;
      continue;
    }
    auto u = UnionTypes(*elem, *t);
    if (!u)
      return ctx.Error("input " + std::to_string(i) + " is " + t->ToShortString() + ", the others " +
                       elem->ToShortString());
    elem = std::move(u);
  }
  if (elem) ctx.set_output(0, ir::TypeInfo::Sequence(std::move(*elem)));
  return Status::Ok();
}

Status SequenceEmpty(InferenceContext& ctx) {
  ctx.set_output(0, ir::TypeInfo::Sequence(ir::TypeInfo::Tensor(ElemTypeAttr(ctx, "dtype", DataType::kFloat))));
  return Status::Ok();
}

Status SequenceAt(InferenceContext& ctx) {
  if (auto e = ElemOf(ctx.input_type(0))) ctx.set_output(0, std::move(*e));
  return Status::Ok();
}

Status SequenceInsert(InferenceContext& ctx) {
  auto e = ElemOf(ctx.input_type(0));
  const ir::TypeInfo* t = ctx.input_type(1);
  if (e && t) {
    auto u = UnionTypes(*e, *t);
    if (!u) return ctx.Error("inserts " + t->ToShortString() + " into a sequence of " + e->ToShortString());
    ctx.set_output(0, ir::TypeInfo::Sequence(std::move(*u)));
  } else if (e) {
    // The inserted tensor's shape is unknown: keep the element type only.
    e->shape.reset();
    ctx.set_output(0, ir::TypeInfo::Sequence(std::move(*e)));
  }
  return Status::Ok();
}

Status SequenceLength(InferenceContext& ctx) {
  ctx.set_output_tensor(0, DataType::kInt64, Dims{});
  return Status::Ok();
}

Status SplitToSequence(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  if (t == nullptr) return Status::Ok();
  ir::TypeInfo elem = ir::TypeInfo::Tensor(t->elem_type);
  if (t->shape) {
    int64_t rank = static_cast<int64_t>(t->shape->size());
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", 0), rank, "axis"));
    Dims d = *t->shape;
    if (!ctx.has_input(1)) {
      if (ctx.GetInt("keepdims", 1) != 0)
        d[static_cast<size_t>(axis)] = DimOf(1);
      else
        d.erase(d.begin() + axis);
    } else {
      const ir::Dim& total = d[static_cast<size_t>(axis)];
      auto split = ctx.input_int_values(1);
      const Dims* split_shape = ctx.input_shape(1);
      ir::Dim part;
      if (split && split_shape != nullptr && split_shape->empty() && total.is_value() && (*split)[0] > 0 &&
          total.value % (*split)[0] == 0) {
        part = DimOf((*split)[0]);
      } else if (split && !split->empty()) {
        bool equal = true;
        for (int64_t s : *split) equal = equal && s == (*split)[0];
        if (equal && split_shape != nullptr && !split_shape->empty()) part = DimOf((*split)[0]);
      }
      d[static_cast<size_t>(axis)] = part;
    }
    elem.shape = d;
  }
  ctx.set_output(0, ir::TypeInfo::Sequence(std::move(elem)));
  return Status::Ok();
}

Status ConcatFromSequence(InferenceContext& ctx) {
  auto e = ElemOf(ctx.input_type(0));
  if (!e) return Status::Ok();
  ir::TypeInfo out = ir::TypeInfo::Tensor(e->elem_type);
  if (e->shape) {
    bool new_axis = ctx.GetInt("new_axis", 0) != 0;
    int64_t rank = static_cast<int64_t>(e->shape->size()) + (new_axis ? 1 : 0);
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", 0), rank, "axis"));
    Dims d = *e->shape;
    if (new_axis)
      d.insert(d.begin() + axis, UnknownDim());
    else
      d[static_cast<size_t>(axis)] = UnknownDim();
    out.shape = d;
  }
  ctx.set_output(0, std::move(out));
  return Status::Ok();
}

Status SequenceMap(InferenceContext& ctx) {
  std::vector<std::optional<ir::TypeInfo>> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const ir::TypeInfo* t = ctx.input_type(i);
    if (t != nullptr && t->kind == ir::TypeInfo::Kind::kSequence)
      inputs.push_back(ElemOf(t));
    else
      inputs.push_back(t ? std::optional<ir::TypeInfo>(*t) : std::nullopt);
  }
  ONYX_ASSIGN_OR_RETURN(auto outs, ctx.InferSubgraph("body", inputs));
  for (size_t i = 0; i < outs.size() && i < ctx.num_outputs(); ++i) {
    if (!outs[i]) continue;
    ir::TypeInfo e = *outs[i];
    ctx.set_output(i, ir::TypeInfo::Sequence(std::move(e)));
  }
  return Status::Ok();
}

Status Optional(InferenceContext& ctx) {
  if (const ir::Attribute* a = ctx.attr("type"); a != nullptr && a->tp) {
    ctx.set_output(0, ir::TypeInfo::Optional(*a->tp));
  } else if (const ir::TypeInfo* t = ctx.input_type(0)) {
    ctx.set_output(0, ir::TypeInfo::Optional(*t));
  }
  return Status::Ok();
}

Status OptionalGetElement(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_type(0);
  if (t == nullptr) return Status::Ok();
  if (t->kind == ir::TypeInfo::Kind::kOptional) {
    if (t->elem) ctx.set_output(0, *t->elem);
  } else {
    ctx.set_output(0, *t);
  }
  return Status::Ok();
}

Status OptionalHasElement(InferenceContext& ctx) {
  ctx.set_output_tensor(0, DataType::kBool, Dims{});
  return Status::Ok();
}

}  // namespace

void RegisterSequenceInference(OpInferenceRegistry& r) {
  r.Add("", "SequenceConstruct", SequenceConstruct);
  r.Add("", "SequenceEmpty", SequenceEmpty);
  r.Add("", "SequenceAt", SequenceAt);
  r.Add("", "SequenceInsert", SequenceInsert);
  r.Add("", "SequenceErase", [](InferenceContext& ctx) {
    PassThrough(ctx, 0, 0);
    return Status::Ok();
  });
  r.Add("", "SequenceLength", SequenceLength);
  r.Add("", "SplitToSequence", SplitToSequence);
  r.Add("", "ConcatFromSequence", ConcatFromSequence);
  r.Add("", "SequenceMap", SequenceMap);
  r.Add("", "Optional", Optional);
  r.Add("", "OptionalGetElement", OptionalGetElement);
  r.Add("", "OptionalHasElement", OptionalHasElement);
}

}  // namespace onyx::infer
