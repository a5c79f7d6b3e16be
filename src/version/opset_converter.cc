// The conversion walk: one opset step at a time, every graph (subgraphs inside their enclosing scopes) and every
// model-local function; at each step the nodes whose operator's schema changes there are adapted.
#include "version/opset_converter.h"

#include <algorithm>
#include <set>

#include "schema/op_schema.h"
#include "version/adapter.h"

namespace onyx::version {

namespace {

constexpr const char* kDefaultDomain = "ai.onnx";

bool IsDefaultDomain(const std::string& domain) { return ir::CanonicalDomain(domain) == kDefaultDomain; }

void CollectNames(const ir::Graph& g, std::set<std::string>& names) {
  for (const auto& vi : g.inputs) names.insert(vi.name);
  for (const auto& init : g.initializers) names.insert(init.name);
  for (const auto& n : g.nodes) {
    names.insert(n.name);
    for (const auto& o : n.outputs) names.insert(o);
    for (const auto& a : n.attributes) {
      if (a.g) CollectNames(*a.g, names);
      for (const auto& sg : a.graphs) CollectNames(*sg, names);
    }
  }
}

// Checks a node against the schema it lands on at `ctx.to_opset()`: it exists, is not deprecated, and takes the node's
// attributes, inputs and outputs.
Status StructureCheck(const AdaptContext& ctx, ir::Node& node) {
  const std::string& op = node.op_type;
  const schema::OpSchema* target = schema::ResolveSchema(kDefaultDomain, op, ctx.to_opset());
  if (!target) return ctx.Fail(node, op + " does not exist at opset " + std::to_string(ctx.to_opset()));
  if (target->deprecated) {
    return ctx.Fail(node, target->VersionedName() + " is deprecated and no adapter replaces it");
  }
  for (const auto& a : node.attributes) {
    if (!target->FindAttribute(a.name)) {
      return ctx.Fail(node, "attribute '" + a.name + "' does not exist in " + target->VersionedName());
    }
  }
  for (const auto& spec : target->attributes) {
    if (spec.required && !node.FindAttribute(spec.name)) {
      return ctx.Fail(node, target->VersionedName() + " requires attribute '" + spec.name + "'");
    }
  }
  // Trailing omitted inputs do not count against the maximum (but keep Loop's omitted 'cond' in place).
  size_t given = node.inputs.size();
  while (given > 0 && node.inputs[given - 1].empty()) --given;
  if (static_cast<int>(given) > target->max_inputs) {
    return ctx.Fail(node, "has " + std::to_string(given) + " inputs, " + target->VersionedName() + " takes at most " +
                              std::to_string(target->max_inputs));
  }
  // (Not for a variadic tail: the table counts one value for it where ONNX allows none, e.g. Loop's v_initial.)
  const bool variadic_tail =
      !target->inputs.empty() && target->inputs.back().option == schema::FormalParameter::Option::kVariadic;
  if (!variadic_tail && static_cast<int>(node.inputs.size()) < target->min_inputs) {
    return ctx.Fail(node, "has " + std::to_string(node.inputs.size()) + " inputs, " + target->VersionedName() +
                              " needs at least " + std::to_string(target->min_inputs));
  }
  while (!node.outputs.empty() && node.outputs.back().empty()) node.outputs.pop_back();
  if (static_cast<int>(node.outputs.size()) > target->max_outputs) {
    return ctx.Fail(node, "output '" + node.outputs[static_cast<size_t>(target->max_outputs)] + "' has no place in " +
                              target->VersionedName());
  }
  return Status::Ok();
}

// Type restrictions (e.g. older versions without integer or bfloat16 support), where the type is known. Checked at
// the final opset of a conversion only: a node may be typed for its destination in ways an intermediate schema
// does not allow (int16 QuantizeLinear of opset 21 passing through 19 and 20 on the way up from 17).
Status TypeCheck(const AdaptContext& ctx, const ir::Node& node) {
  const schema::OpSchema* target = schema::ResolveSchema(kDefaultDomain, node.op_type, ctx.to_opset());
  if (!target) return ctx.Fail(node, node.op_type + " does not exist at opset " + std::to_string(ctx.to_opset()));
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) continue;
    const schema::FormalParameter* formal = target->InputFormal(i);
    std::optional<DataType> t = ctx.scope().ElemType(node.inputs[i]);
    if (!formal || !t) continue;
    const std::string type = TensorTypeString(*t);
    const schema::TypeConstraint* c = target->FindConstraint(formal->type_str);
    bool allowed = c ? c->Allows(type) : (formal->type_str == type || !formal->type_str.starts_with("tensor("));
    if (!allowed) {
      return ctx.Fail(node, "input '" + node.inputs[i] + "' has type " + type + ", which " + target->VersionedName() +
                                " does not allow");
    }
  }
  return Status::Ok();
}

class StepWalker {
 public:
  // `final_opset` is the conversion's destination (this step's `to` on the last step).
  StepWalker(std::set<std::string>* names, int64_t from, int64_t to, int64_t final_opset)
      : names_(names), from_(from), to_(to), final_(final_opset) {}

  // Converts the nodes of `graph` (and its subgraphs) across this step. `function` is set when `graph` holds a
  // function body (constants then become Constant nodes).
  Status Walk(ir::Graph& graph, const ValueScope* parent, ir::Function* function) {
    ValueScope scope(&graph, parent, from_);
    std::vector<ir::Node> out;
    out.reserve(graph.nodes.size());
    for (const ir::Node& original : graph.nodes) {
      ir::Node node = original;
      for (auto& a : node.attributes) {
        // Subgraphs are shared with the input model: copy before changing.
        if (a.g) {
          a.g = std::make_shared<ir::Graph>(*a.g);
          ONYX_RETURN_IF_ERROR(Walk(*a.g, &scope, nullptr));
        }
        for (auto& sg : a.graphs) {
          sg = std::make_shared<ir::Graph>(*sg);
          ONYX_RETURN_IF_ERROR(Walk(*sg, &scope, nullptr));
        }
      }
      if (!IsDefaultDomain(node.domain)) {
        out.push_back(std::move(node));
        continue;
      }
      const bool up = to_ > from_;
      // The schema version whose beginning this step crosses.
      const int boundary = static_cast<int>(up ? to_ : from_);
      if (!schema::ResolveSchema(kDefaultDomain, node.op_type, from_)) {
        return Unsupported(node.Describe() + ": unknown operator at opset " + std::to_string(from_));
      }
      AdaptContext ctx(&graph, function, &scope, names_, from_, to_, final_);
      if (!schema::FindSchema(kDefaultDomain, node.op_type, boundary)) {
        // Its schema does not change here; on the last step its types still meet the destination's (they were
        // not checked where it crossed an earlier boundary).
        if (to_ == final_) ONYX_RETURN_IF_ERROR(TypeCheck(ctx, node));
        out.push_back(std::move(node));
        continue;
      }
      if (const Adapter* adapter = FindAdapter(node.op_type, boundary, up)) {
        ONYX_RETURN_IF_ERROR((*adapter)(ctx, std::move(node)));
      } else {
        ctx.Emit(std::move(node));
      }
      // What an adapter made must fit the target schemas too (this catches attributes it does not handle).
      for (auto& n : ctx.emitted()) {
        if (IsDefaultDomain(n.domain)) {
          ONYX_RETURN_IF_ERROR(StructureCheck(ctx, n));
          if (to_ == final_) ONYX_RETURN_IF_ERROR(TypeCheck(ctx, n));
        }
        out.push_back(std::move(n));
      }
    }
    graph.nodes = std::move(out);
    return Status::Ok();
  }

 private:
  std::set<std::string>* names_;
  int64_t from_, to_, final_;
};

// The IR version that ONNX releases pair with an opset (the lowest a model at that opset should declare).
int64_t IrVersionForOpset(int64_t opset) {
  if (opset >= 23) return 11;
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  if (opset >= 15) return 8;
  if (opset >= 12) return 7;
  if (opset >= 11) return 6;
  if (opset >= 10) return 5;
  if (opset >= 9) return 4;
  return 3;
}

void SetDefaultOpset(std::vector<ir::OpsetId>& imports, int64_t version) {
  for (auto& id : imports) {
    if (IsDefaultDomain(id.domain)) id.version = version;
  }
}

}  // namespace

int64_t LatestKnownOpset() {
  static const int64_t latest = [] {
    int64_t v = 1;
    for (const auto& s : schema::AllSchemas()) {
      if (s.domain == kDefaultDomain) v = std::max<int64_t>(v, s.since_version);
    }
    return v;
  }();
  return latest;
}

Result<ir::Model> ConvertOpset(const ir::Model& model, int64_t target_opset) {
  std::optional<int64_t> current = model.OpsetVersion(kDefaultDomain);
  if (!current) {
    // Nothing of the default domain to adapt (a valid model has no such node without the import): import it.
    ir::Model out = model;
    out.opset_import.push_back(ir::OpsetId{"", target_opset});
    return out;
  }
  if (target_opset < 1 || target_opset > LatestKnownOpset()) {
    return InvalidArgument("target opset " + std::to_string(target_opset) + " is outside 1.." +
                           std::to_string(LatestKnownOpset()));
  }
  ir::Model out = model;
  std::set<std::string> names;
  CollectNames(out.graph, names);
  for (const auto& f : out.functions) {
    for (const auto& n : f.nodes) {
      names.insert(n.name);
      for (const auto& o : n.outputs) names.insert(o);
    }
  }
  const int64_t step = target_opset > *current ? 1 : -1;
  for (int64_t v = *current; v != target_opset; v += step) {
    StepWalker walker(&names, v, v + step, target_opset);
    ONYX_RETURN_IF_ERROR(walker.Walk(out.graph, nullptr, nullptr));
    for (auto& f : out.functions) {
      auto fv = std::find_if(f.opset_import.begin(), f.opset_import.end(),
                             [](const ir::OpsetId& id) { return IsDefaultDomain(id.domain); });
      if (fv == f.opset_import.end() || fv->version != v) continue;
      // A function body walks as a graph whose inputs are the function's (types unknown).
      ir::Graph body;
      body.name = f.name;
      for (const auto& in : f.inputs) body.inputs.push_back(ir::ValueInfo{in, std::nullopt, {}, {}});
      body.nodes = std::move(f.nodes);
      Status s = walker.Walk(body, nullptr, &f);
      f.nodes = std::move(body.nodes);
      if (!s.ok()) return s.WithContext("function '" + f.name + "'");
      fv->version = v + step;
    }
  }
  SetDefaultOpset(out.opset_import, target_opset);
  if (step > 0) out.ir_version = std::max(out.ir_version, IrVersionForOpset(target_opset));
  return out;
}

}  // namespace onyx::version
