// If, Loop and Scan: their bodies are inferred as subgraphs (which also writes the bodies' value_info).
// Loop-carried values whose shape changes between iterations are generalized (differing dims unknown) and
// the body is inferred again with the general types.
#include <memory>

#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

using Types = std::vector<std::optional<ir::TypeInfo>>;

// The If condition's value when data propagation knows it (a constant, or computed from shapes).
std::optional<bool> KnownCondition(const InferenceContext& ctx) {
  const KnownInts* k = ctx.input_ints(0);
  if (k == nullptr || k->elems.size() != 1 || !k->elems[0].is_value()) return std::nullopt;
  return k->elems[0].value != 0;
}

Status CheckBranchOutputs(const InferenceContext& ctx, const Types& then_out, const Types& else_out) {
  if (then_out.size() != ctx.num_outputs() || else_out.size() != ctx.num_outputs()) {
    return ctx.Error("branches have " + std::to_string(then_out.size()) + " and " + std::to_string(else_out.size()) +
                     " outputs for " + std::to_string(ctx.num_outputs()) + " node outputs");
  }
  return Status::Ok();
}

Status If(InferenceContext& ctx) {
  if (std::optional<bool> cond = KnownCondition(ctx)) {
    // Only the taken branch runs, so the outputs are its outputs. Exporters guard shape-dependent code
    // this way (`if x.shape[1] == 1: x = x.squeeze(1)`): the branches then differ in rank, and their union
    // would lose the shape for everything downstream. The other branch is still inferred for its
    // value_info, but what it would compute cannot happen (its Squeeze may not even apply), so its errors
    // are not this node's.
    const char* taken = *cond ? "then_branch" : "else_branch";
    const char* skipped = *cond ? "else_branch" : "then_branch";
    ONYX_ASSIGN_OR_RETURN(Types out, ctx.InferSubgraph(taken, {}));
    auto other = ctx.InferSubgraph(skipped, {}, /*never_runs=*/true);
    if (other.ok()) {
      // The branches must still agree in structure (output count, kinds, element types).
      ONYX_RETURN_IF_ERROR(*cond ? CheckBranchOutputs(ctx, out, *other) : CheckBranchOutputs(ctx, *other, out));
      for (size_t i = 0; i < ctx.num_outputs(); ++i) {
        if (out[i] && (*other)[i] && !UnionTypes(*out[i], *(*other)[i]))
          return ctx.Error("output " + std::to_string(i) + " is " + out[i]->ToShortString() + " in " + taken + " but " +
                           (*other)[i]->ToShortString() + " in " + skipped);
      }
    } else if (out.size() != ctx.num_outputs()) {
      return ctx.Error(std::string(taken) + " has " + std::to_string(out.size()) + " outputs for " +
                       std::to_string(ctx.num_outputs()) + " node outputs");
    }
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      if (out[i]) ctx.set_output(i, std::move(*out[i]));
    }
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(Types then_out, ctx.InferSubgraph("then_branch", {}));
  ONYX_ASSIGN_OR_RETURN(Types else_out, ctx.InferSubgraph("else_branch", {}));
  ONYX_RETURN_IF_ERROR(CheckBranchOutputs(ctx, then_out, else_out));
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    const auto& a = then_out[i];
    const auto& b = else_out[i];
    if (a && b) {
      auto u = UnionTypes(*a, *b);
      if (!u)
        return ctx.Error("output " + std::to_string(i) + " is " + a->ToShortString() + " in then_branch but " +
                         b->ToShortString() + " in else_branch");
      ctx.set_output(i, std::move(*u));
    } else if (a || b) {
      ctx.set_output(i, a ? *a : *b);
    }
  }
  return Status::Ok();
}

// Infers a body whose first `fixed` inputs are fixed and whose next inputs are loop-carried states that feed
// back from body outputs [state_out_begin, ...): re-runs with generalized state types until they are stable.
Result<Types> InferWithStates(InferenceContext& ctx, Types inputs, size_t state_in_begin, size_t state_out_begin,
                              size_t num_states) {
  Types outs;
  for (int round = 0; round < 3; ++round) {
    ONYX_ASSIGN_OR_RETURN(outs, ctx.InferSubgraph("body", inputs));
    bool stable = true;
    for (size_t s = 0; s < num_states; ++s) {
      auto& in = inputs[state_in_begin + s];
      size_t o = state_out_begin + s;
      if (!in || o >= outs.size() || !outs[o]) continue;
      auto u = UnionTypes(*in, *outs[o]);
      if (!u) continue;  // e.g. optional(seq) in, seq out (Loop-16 allows it): the output takes the body's type
      if (u->ToShortString() != in->ToShortString() || u->ToString() != in->ToString()) {
        in = std::move(*u);
        stable = false;
      }
    }
    if (stable) return outs;
  }
  // Still changing: drop the shapes of the states.
  for (size_t s = 0; s < num_states; ++s) {
    auto& in = inputs[state_in_begin + s];
    if (in && in->is_tensor()) in->shape.reset();
  }
  return ctx.InferSubgraph("body", inputs);
}

Status Loop(InferenceContext& ctx) {
  size_t num_states = ctx.num_inputs() >= 2 ? ctx.num_inputs() - 2 : 0;
  Types inputs{ir::TypeInfo::Tensor(DataType::kInt64, Dims{}), ir::TypeInfo::Tensor(DataType::kBool, Dims{})};
  for (size_t i = 0; i < num_states; ++i) {
    const ir::TypeInfo* t = ctx.input_type(2 + i);
    inputs.push_back(t ? std::optional<ir::TypeInfo>(*t) : std::nullopt);
  }
  ONYX_ASSIGN_OR_RETURN(Types outs, InferWithStates(ctx, inputs, 2, 1, num_states));
  if (outs.size() < 1 + num_states)
    return ctx.Error("body has " + std::to_string(outs.size()) + " outputs, expected at least " +
                     std::to_string(1 + num_states));
  for (size_t s = 0; s < num_states && s < ctx.num_outputs(); ++s) {
    const auto& body = outs[1 + s];
    const ir::TypeInfo* init = ctx.input_type(2 + s);
    if (body && init && UnionTypes(*init, *body)) {
      ctx.set_output(s, *UnionTypes(*init, *body));
    } else if (body || init) {
      ir::TypeInfo t = body ? *body : *init;
      if (t.is_tensor()) t.shape.reset();  // only one side known: its shape may not hold after iterations
      ctx.set_output(s, std::move(t));
    }
  }
  // Scan outputs: the body's per-iteration values stacked along a new first axis (the trip count).
  ir::Dim trips;
  if (const KnownInts* m = ctx.input_ints(0); m != nullptr && m->elems.size() == 1 && !ctx.has_input(1))
    trips = m->elems[0];
  for (size_t k = 1 + num_states; k < outs.size(); ++k) {
    size_t o = k - 1;
    if (o >= ctx.num_outputs() || !outs[k]) continue;
    ir::TypeInfo t = *outs[k];
    if (t.is_tensor()) {
      if (t.shape) t.shape->insert(t.shape->begin(), trips);
      ctx.set_output(o, std::move(t));
    } else {
      ctx.set_output(o, ir::TypeInfo{});  // a sequence scan output is not stacked (unknown)
    }
  }
  return Status::Ok();
}

// Scan-9+: N states then M scan inputs (scan_input_axes), outputs: N states then K scan outputs
// (scan_output_axes). Scan-8 has a leading sequence_lens input and a batch axis 0 everywhere.
Status Scan(InferenceContext& ctx) {
  int64_t m = ctx.GetInt("num_scan_inputs", 0);
  bool v8 = ctx.since_version() < 9;
  size_t first = v8 ? 1 : 0;
  if (m <= 0 || ctx.num_inputs() < first + static_cast<size_t>(m))
    return ctx.Error("'num_scan_inputs' is missing or too large");
  size_t n = ctx.num_inputs() - first - static_cast<size_t>(m);
  auto in_axes = v8 ? std::nullopt : ctx.GetInts("scan_input_axes");
  Types inputs;
  ir::Dim batch;
  for (size_t i = 0; i < n; ++i) {
    const ir::TypeInfo* t = ctx.input_type(first + i);
    std::optional<ir::TypeInfo> bt = t ? std::optional<ir::TypeInfo>(*t) : std::nullopt;
    if (v8 && bt && bt->is_tensor() && bt->shape && !bt->shape->empty()) {
      batch = (*bt->shape)[0];
      bt->shape->erase(bt->shape->begin());
    }
    inputs.push_back(bt);
  }
  ir::Dim seq_len;
  for (size_t j = 0; j < static_cast<size_t>(m); ++j) {
    const ir::TypeInfo* t = ctx.input_type(first + n + j);
    if (t == nullptr || !t->is_tensor()) {
      inputs.push_back(std::nullopt);
      continue;
    }
    ir::TypeInfo e = *t;
    if (e.shape) {
      int64_t rank = static_cast<int64_t>(e.shape->size());
      int64_t axis = v8 ? 1 : (in_axes && j < in_axes->size() ? (*in_axes)[j] : 0);
      ONYX_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank, "scan input axis"));
      if (j == 0) seq_len = (*e.shape)[static_cast<size_t>(axis)];
      e.shape->erase(e.shape->begin() + axis);
      if (v8 && !e.shape->empty()) {
        batch = (*e.shape)[0];
        e.shape->erase(e.shape->begin());
      }
    }
    inputs.push_back(std::move(e));
  }
  ONYX_ASSIGN_OR_RETURN(Types outs, InferWithStates(ctx, inputs, 0, 0, n));
  auto out_axes = v8 ? std::nullopt : ctx.GetInts("scan_output_axes");
  for (size_t k = 0; k < outs.size() && k < ctx.num_outputs(); ++k) {
    if (!outs[k]) continue;
    ir::TypeInfo t = *outs[k];
    if (k < n) {
      if (const ir::TypeInfo* init = ctx.input_type(first + k)) {
        if (!v8) {
          if (auto u = UnionTypes(*init, t)) t = std::move(*u);
        } else if (t.shape) {
          t.shape->insert(t.shape->begin(), batch);
        }
      }
    } else if (t.is_tensor() && t.shape) {
      int64_t rank = static_cast<int64_t>(t.shape->size()) + 1;
      size_t j = k - n;
      int64_t axis = v8 ? 0 : (out_axes && j < out_axes->size() ? (*out_axes)[j] : 0);
      ONYX_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank, "scan output axis"));
      t.shape->insert(t.shape->begin() + axis, seq_len);
      if (v8) t.shape->insert(t.shape->begin(), batch);
    }
    ctx.set_output(k, std::move(t));
  }
  return Status::Ok();
}

}  // namespace

void RegisterControlFlowInference(OpInferenceRegistry& r) {
  r.Add("", "If", If);
  r.Add("", "Loop", Loop);
  r.Add("", "Scan", Scan);
}

}  // namespace onyx::infer
