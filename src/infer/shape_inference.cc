#include "infer/shape_inference.h"

#include <map>
#include <memory>
#include <unordered_set>

#include "infer/op_registry.h"
#include "schema/op_versions.h"

namespace onyx::infer {
namespace {

// What is known about the values visible in one graph; lookups fall through to the enclosing graph.
struct Scope {
  const Scope* parent = nullptr;
  std::unordered_map<std::string, ir::TypeInfo> types;
  std::unordered_map<std::string, KnownInts> ints;
  std::unordered_map<std::string, Tensor> constants;

  template <typename Map>
  static auto Lookup(const Scope* s, Map Scope::*member, const std::string& name) -> const typename Map::mapped_type* {
    for (; s != nullptr; s = s->parent) {
      auto it = (s->*member).find(name);
      if (it != (s->*member).end()) return &it->second;
    }
    return nullptr;
  }
  const ir::TypeInfo* Type(const std::string& n) const { return Lookup(this, &Scope::types, n); }
  const KnownInts* Ints(const std::string& n) const { return Lookup(this, &Scope::ints, n); }
  const Tensor* Constant(const std::string& n) const { return Lookup(this, &Scope::constants, n); }
};

std::optional<std::vector<ir::Dim>> MergeShapes(const std::vector<ir::Dim>& declared,
                                                const std::vector<ir::Dim>& inferred, std::string* conflict) {
  if (declared.size() != inferred.size()) {
    *conflict = "rank " + std::to_string(inferred.size()) + " vs declared rank " + std::to_string(declared.size());
    return std::nullopt;
  }
  std::vector<ir::Dim> out = declared;
  for (size_t i = 0; i < declared.size(); ++i) {
    const ir::Dim& d = declared[i];
    const ir::Dim& n = inferred[i];
    if (d.is_value() && n.is_value() && d.value != n.value) {
      *conflict =
          "dim " + std::to_string(i) + " is " + std::to_string(n.value) + " vs declared " + std::to_string(d.value);
      return std::nullopt;
    }
    if (n.is_value() || (d.kind == ir::Dim::Kind::kUnknown && n.is_param())) {
      out[i].kind = n.kind;
      out[i].value = n.value;
      out[i].param = n.param;
    }
  }
  return out;
}

// Binds each model-local function's attribute references to the calling node's attributes (or defaults).
std::vector<ir::Node> InstantiateFunctionBody(const ir::Function& f, const ir::Node& call) {
  std::vector<ir::Node> nodes = f.nodes;
  for (auto& n : nodes) {
    std::vector<ir::Attribute> bound;
    for (auto& a : n.attributes) {
      if (a.ref_attr_name.empty()) {
        bound.push_back(std::move(a));
        continue;
      }
      const ir::Attribute* src = call.FindAttribute(a.ref_attr_name);
      if (src == nullptr) {
        for (const auto& d : f.attribute_defaults) {
          if (d.name == a.ref_attr_name) src = &d;
        }
      }
      if (src == nullptr) continue;  // an unset optional attribute: the operator's default applies
      ir::Attribute copy = *src;
      copy.name = a.name;
      copy.ref_attr_name.clear();
      bound.push_back(std::move(copy));
    }
    n.attributes = std::move(bound);
  }
  return nodes;
}

class GraphInferencer {
 public:
  GraphInferencer(const std::vector<ir::OpsetId>& opsets, const std::vector<ir::Function>& functions,
                  const InferOptions& options)
      : functions_(functions), options_(options) {
    for (const auto& o : opsets) opsets_[std::string(ir::CanonicalDomain(o.domain))] = o.version;
  }

  // Infers `graph` whose enclosing scope is `parent`; `input_types` binds its inputs (may be empty).
  // `types_out` (optional) receives the graph's own values.
  Result<std::vector<std::optional<ir::TypeInfo>>> InferGraph(
      ir::Graph& graph, const Scope* parent, const std::vector<std::optional<ir::TypeInfo>>& input_types,
      bool write_value_info, std::unordered_map<std::string, ir::TypeInfo>* types_out = nullptr) {
    Scope scope;
    scope.parent = parent;
    for (const auto& init : graph.initializers) {
      std::vector<ir::Dim> dims;
      for (int64_t d : init.tensor.shape()) dims.push_back(ir::Dim::Value(d));
      scope.types[init.name] = ir::TypeInfo::Tensor(init.tensor.type(), std::move(dims));
      if (init.tensor.raw() != nullptr && init.tensor.size() <= kMaxTrackedElements) {
        scope.constants[init.name] = init.tensor;
        if (options_.data_propagation) {
          if (auto k = KnownIntsFromTensor(init.tensor)) scope.ints[init.name] = std::move(*k);
        }
      }
    }
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      auto& in = graph.inputs[i];
      std::optional<ir::TypeInfo> bound;
      if (i < input_types.size()) bound = input_types[i];
      if (in.type && bound) {
        std::string conflict;
        auto merged = MergeTypes(*in.type, *bound, &conflict);
        if (!merged) {
          ONYX_RETURN_IF_ERROR(Report("graph '" + graph.name + "': input '" + in.name + "' is bound to " +
                                      bound->ToShortString() + ", which conflicts with its declared type " +
                                      in.type->ToShortString() + " (" + conflict + ")"));
        } else {
          in.type = *merged;
        }
      } else if (bound) {
        in.type = bound;
      }
      if (in.type) {
        auto it = scope.types.find(in.name);
        if (it == scope.types.end()) {
          scope.types[in.name] = *in.type;
        } else {
          // An initializer that a caller may override: its declared input type is what is guaranteed.
          std::string conflict;
          auto merged = MergeTypes(*in.type, it->second, &conflict);
          it->second = merged ? *merged : *in.type;
        }
      }
    }
    std::unordered_map<std::string, const ir::TypeInfo*> declared;
    for (const auto& vi : graph.value_info) {
      if (vi.type) declared[vi.name] = &*vi.type;
    }
    for (const auto& out : graph.outputs) {
      if (out.type) declared[out.name] = &*out.type;
    }

    for (auto& node : graph.nodes) ONYX_RETURN_IF_ERROR(InferNode(node, scope, declared));

    // Write back: outputs first (their declared types merged), then value_info for every other value.
    std::vector<std::optional<ir::TypeInfo>> outputs;
    std::unordered_set<std::string> output_names;
    for (auto& out : graph.outputs) {
      output_names.insert(out.name);
      const ir::TypeInfo* t = scope.Type(out.name);
      if (t != nullptr && write_value_info) out.type = *t;
      outputs.push_back(t != nullptr ? std::optional<ir::TypeInfo>(*t) : out.type);
    }
    if (write_value_info) {
      std::unordered_map<std::string, size_t> existing;
      for (size_t i = 0; i < graph.value_info.size(); ++i) existing[graph.value_info[i].name] = i;
      for (const auto& node : graph.nodes) {
        for (const auto& name : node.outputs) {
          if (name.empty() || output_names.count(name) != 0) continue;
          auto it = scope.types.find(name);
          if (it == scope.types.end()) continue;
          auto e = existing.find(name);
          if (e != existing.end()) {
            graph.value_info[e->second].type = it->second;
          } else {
            existing[name] = graph.value_info.size();
            graph.value_info.push_back(ir::ValueInfo{name, it->second, {}, {}});
          }
        }
      }
    }
    if (types_out != nullptr) *types_out = scope.types;
    return outputs;
  }

 private:
  Status Report(const std::string& message) {
    // Inside a subgraph that never runs, a problem only tells the caller to drop that subgraph's result.
    if (options_.strict || never_runs_depth_ > 0) return InvalidArgument(message);
    if (options_.diagnostics != nullptr) options_.diagnostics->push_back(message);
    return Status::Ok();
  }

  static std::string NodeLabel(const ir::Node& node, std::optional<int> since_version) {
    std::string who = !node.name.empty()      ? "node '" + node.name + "'"
                      : !node.outputs.empty() ? "node producing '" + node.outputs[0] + "'"
                                              : "unnamed node";
    std::string op = node.domain.empty() || node.domain == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
    if (since_version) op += ", opset " + std::to_string(*since_version);
    return who + " (" + op + ")";
  }

  Status InferNode(ir::Node& node, Scope& scope, const std::unordered_map<std::string, const ir::TypeInfo*>& declared) {
    std::vector<OutputInfo> results(node.outputs.size());
    std::optional<int> since;
    std::string domain(ir::CanonicalDomain(node.domain));
    auto opset_it = opsets_.find(domain);
    const ir::Function* function = nullptr;
    for (const auto& f : functions_) {
      if (f.name == node.op_type && ir::CanonicalDomain(f.domain) == domain) function = &f;
    }
    Status status;
    if (function != nullptr) {
      status = InferFunctionCall(node, *function, scope, &results);
    } else if (opset_it != opsets_.end()) {
      since = ResolveSinceVersion(domain, node.op_type, opset_it->second);
      // Operators outside ONNX's tables with an inference function (ops_contrib.cc) have one version.
      if (!since && OpInferenceRegistry::Get().Find(domain, node.op_type) != nullptr) since = 1;
      InferenceFn fn = since ? OpInferenceRegistry::Get().Find(domain, node.op_type) : nullptr;
      if (fn != nullptr) {
        std::vector<InferenceContext::InputInfo> inputs(node.inputs.size());
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          if (node.inputs[i].empty()) continue;
          inputs[i].type = scope.Type(node.inputs[i]);
          inputs[i].ints = options_.data_propagation ? scope.Ints(node.inputs[i]) : nullptr;
          inputs[i].constant = scope.Constant(node.inputs[i]);
        }
        SubgraphInferrer subgraphs = [this, &scope](ir::Graph& g, const std::vector<std::optional<ir::TypeInfo>>& types,
                                                    bool never_runs) {
          if (never_runs) ++never_runs_depth_;
          auto r = InferGraph(g, &scope, types, true);
          if (never_runs) --never_runs_depth_;
          return r;
        };
        InferenceContext ctx(node, *since, opset_it->second, std::move(inputs), subgraphs, options_.data_propagation);
        status = fn(ctx);
        results = std::move(ctx.outputs());
      }
    }
    if (!status.ok()) {
      ONYX_RETURN_IF_ERROR(Report(NodeLabel(node, since) + ": " + status.message()));
      return Status::Ok();  // outputs stay unknown
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& name = node.outputs[i];
      if (name.empty()) continue;
      auto d = declared.find(name);
      std::optional<ir::TypeInfo> type = results[i].type;
      if (type && type->kind == ir::TypeInfo::Kind::kUndefined) type.reset();
      if (type) NameUnknownDims(*type);
      if (d != declared.end()) {
        if (type) {
          std::string conflict;
          auto merged = MergeTypes(*d->second, *type, &conflict);
          if (!merged) {
            ONYX_RETURN_IF_ERROR(Report(NodeLabel(node, since) + ": output '" + name + "' is inferred as " +
                                        type->ToShortString() + " but declared as " + d->second->ToShortString() +
                                        " (" + conflict + ")"));
            type = *d->second;
          } else {
            type = std::move(merged);
          }
        } else {
          type = *d->second;
        }
      }
      if (type) scope.types[name] = *type;
      if (results[i].ints) scope.ints[name] = std::move(*results[i].ints);
      if (results[i].constant) scope.constants[name] = std::move(*results[i].constant);
    }
    return Status::Ok();
  }

  // A call of a model-local function: its body is inferred with the caller's input types and attributes.
  Status InferFunctionCall(const ir::Node& node, const ir::Function& f, const Scope& scope,
                           std::vector<OutputInfo>* results) {
    if (++function_depth_ > 32) {
      --function_depth_;
      return InvalidArgument("function calls nest deeper than 32 (recursion?)");
    }
    ir::Graph body;
    body.name = f.name;
    body.nodes = InstantiateFunctionBody(f, node);
    std::vector<std::optional<ir::TypeInfo>> types;
    for (size_t i = 0; i < f.inputs.size(); ++i) {
      ir::ValueInfo vi;
      vi.name = f.inputs[i];
      const ir::TypeInfo* t = i < node.inputs.size() && !node.inputs[i].empty() ? scope.Type(node.inputs[i]) : nullptr;
      if (t != nullptr) vi.type = *t;
      body.inputs.push_back(std::move(vi));
    }
    for (const auto& o : f.outputs) body.outputs.push_back(ir::ValueInfo{o, std::nullopt, {}, {}});
    std::vector<ir::OpsetId> opsets = f.opset_import;
    for (const auto& [domain, version] : opsets_) {
      bool present = false;
      for (const auto& o : opsets) present = present || ir::CanonicalDomain(o.domain) == domain;
      if (!present) opsets.push_back(ir::OpsetId{domain, version});
    }
    GraphInferencer inner(opsets, functions_, options_);
    inner.function_depth_ = function_depth_;
    inner.never_runs_depth_ = never_runs_depth_;
    inner.symbol_counter_ = symbol_counter_;
    // Constants known at the call site stay known inside (a shape passed to a function).
    Scope bound;
    for (size_t i = 0; i < f.inputs.size() && i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty()) continue;
      if (const KnownInts* k = scope.Ints(node.inputs[i])) bound.ints[f.inputs[i]] = *k;
      if (const Tensor* c = scope.Constant(node.inputs[i])) bound.constants[f.inputs[i]] = *c;
    }
    auto outs = inner.InferGraph(body, &bound, types, false);
    --function_depth_;
    if (!outs.ok()) return outs.status();
    for (size_t i = 0; i < results->size() && i < outs->size(); ++i) (*results)[i].type = (*outs)[i];
    return Status::Ok();
  }

  // Gives each unknown dim of a node's output a fresh symbol ("unk__3", as ONNX names them), so that
  // later operators can tell that two values share it (e.g. Range's length flowing into Add).
  void NameUnknownDims(ir::TypeInfo& t) {
    if (t.elem) {
      auto e = std::make_shared<ir::TypeInfo>(*t.elem);
      NameUnknownDims(*e);
      t.elem = std::move(e);
    }
    if (!t.shape) return;
    for (auto& d : *t.shape) {
      if (d.kind == ir::Dim::Kind::kUnknown) d = ir::Dim::Param("unk__" + std::to_string((*symbol_counter_)++));
    }
  }

  std::map<std::string, int64_t> opsets_;
  int64_t own_symbol_counter_ = 0;
  int64_t* symbol_counter_ = &own_symbol_counter_;
  const std::vector<ir::Function>& functions_;
  const InferOptions& options_;
  int function_depth_ = 0;
  int never_runs_depth_ = 0;  // > 0 while inferring a subgraph that is known not to run
};

}  // namespace

std::optional<ir::TypeInfo> MergeTypes(const ir::TypeInfo& declared, const ir::TypeInfo& inferred,
                                       std::string* conflict) {
  using K = ir::TypeInfo::Kind;
  if (declared.kind == K::kUndefined) return inferred;
  if (inferred.kind == K::kUndefined) return declared;
  if (declared.kind != inferred.kind) {
    *conflict = "a " + inferred.ToString() + " vs declared " + declared.ToString();
    return std::nullopt;
  }
  ir::TypeInfo out = declared;
  switch (declared.kind) {
    case K::kTensor:
    case K::kSparseTensor:
      if (declared.elem_type == DataType::kUndefined) {
        out.elem_type = inferred.elem_type;
      } else if (inferred.elem_type != DataType::kUndefined && inferred.elem_type != declared.elem_type) {
        *conflict = "element type " + std::string(DataTypeName(inferred.elem_type)) + " vs declared " +
                    std::string(DataTypeName(declared.elem_type));
        return std::nullopt;
      }
      if (!declared.shape) {
        out.shape = inferred.shape;
      } else if (inferred.shape) {
        out.shape = MergeShapes(*declared.shape, *inferred.shape, conflict);
        if (!out.shape) return std::nullopt;
      }
      return out;
    case K::kSequence:
    case K::kOptional:
      if (!declared.elem) {
        out.elem = inferred.elem;
      } else if (inferred.elem) {
        auto e = MergeTypes(*declared.elem, *inferred.elem, conflict);
        if (!e) return std::nullopt;
        out.elem = std::make_shared<ir::TypeInfo>(std::move(*e));
      }
      return out;
    default:
      return out;
  }
}

Status InferShapes(ir::Model& model, const InferOptions& options) {
  auto r = InferGraphShapes(model.graph, model.opset_import, model.functions, options);
  return r.ok() ? Status::Ok() : r.status();
}

Result<GraphTypes> InferGraphShapes(ir::Graph& graph, const std::vector<ir::OpsetId>& opset_import,
                                    const std::vector<ir::Function>& functions, const InferOptions& options,
                                    const std::vector<std::optional<ir::TypeInfo>>& input_types) {
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(graph));  // stable: keeps an order that is already valid
  GraphInferencer inferencer(opset_import, functions, options);
  GraphTypes result;
  ONYX_ASSIGN_OR_RETURN(result.outputs, inferencer.InferGraph(graph, nullptr, input_types, true, &result.values));
  return result;
}

}  // namespace onyx::infer
