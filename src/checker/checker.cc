#include "checker/checker.h"

#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "checker/node_check.h"
#include "schema/op_schema.h"

namespace onyx::checker {
namespace {

constexpr int64_t kMaxIrVersion = 13;

FullCheckPass& RegisteredFullCheckPass() {
  static FullCheckPass pass;
  return pass;
}

bool IsStandardDomain(std::string_view domain) {
  auto d = ir::CanonicalDomain(domain);
  return d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.preview.training" || d == "ai.onnx.preview";
}

// The first IR version that has this element type (ONNX docs/IR.md, "Tensor element types").
int64_t FirstIrVersionOf(DataType t) {
  switch (t) {
    case DataType::kBFloat16:
      return 4;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return 9;
    case DataType::kUint4:
    case DataType::kInt4:
      return 10;
    case DataType::kFloat4E2M1:
      return 11;
    case DataType::kFloat8E8M0:
      return 12;
    case DataType::kUint2:
    case DataType::kInt2:
      return 13;
    default:
      return 1;
  }
}

// One lexical scope: the names and declared types a graph (or function body) defines, chained to its parent.
struct Scope {
  const Scope* parent = nullptr;
  std::unordered_set<std::string> names;
  std::unordered_map<std::string, const ir::TypeInfo*> types;
  std::vector<ir::TypeInfo> owned_types;  // initializer types (reserved up front so pointers stay valid)

  bool HasHereOrAbove(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      if (s->names.count(name)) return true;
    }
    return false;
  }
  const ir::TypeInfo* TypeOf(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->types.find(name);
      if (it != s->types.end()) return it->second;
      if (s->names.count(name)) return nullptr;  // defined here without a declared type: shadows outer types
    }
    return nullptr;
  }
};

class Checker {
 public:
  Checker(const ir::Model& m, const CheckOptions& o) : model_(m), options_(o) {}

  std::vector<Problem> Run() {
    CheckModelHeader();
    Scope root;
    CheckGraph(model_.graph, "graph '" + model_.graph.name + "'", root, /*is_main=*/true, OpsetOfModel());
    CheckFunctions();
    return std::move(problems_);
  }

 private:
  using OpsetLookup = std::function<std::optional<int64_t>(std::string_view domain)>;

  void Add(const std::string& where, const std::string& rule, const std::string& message) {
    problems_.push_back({where, rule, message});
  }

  OpsetLookup OpsetOfModel() const {
    return [this](std::string_view d) { return model_.OpsetVersion(d); };
  }

  void CheckModelHeader() {
    const int64_t ir = model_.ir_version;
    if (ir < 1) Add("model", "ir-version", "ir_version is missing or invalid (" + std::to_string(ir) + ")");
    if (ir > kMaxIrVersion) {
      Add("model", "ir-version",
          "ir_version " + std::to_string(ir) + " is newer than the newest known (" + std::to_string(kMaxIrVersion) +
              ")");
    }
    if (ir >= 3 && model_.opset_import.empty()) {
      Add("model", "opset-import-missing", "opset_import is empty (required from IR version 3)");
    }
    if (ir >= 1 && ir < 3 && !model_.opset_import.empty()) {
      Add("model", "opset-import-before-ir3",
          "opset_import is set, but IR version " + std::to_string(ir) + " predates it (IR 3)");
    }
    std::set<std::string> domains;
    for (const auto& o : model_.opset_import) {
      std::string d(ir::CanonicalDomain(o.domain));
      if (!domains.insert(d).second) Add("model", "opset-import-duplicate", "domain '" + d + "' is imported twice");
      if (o.version < 1) {
        Add("model", "opset-import-version",
            "domain '" + d + "' is imported at invalid version " + std::to_string(o.version));
      }
    }
  }

  void CheckElementType(const std::string& where, const std::string& what, const ir::TypeInfo& type) {
    if ((type.kind == ir::TypeInfo::Kind::kTensor || type.kind == ir::TypeInfo::Kind::kSparseTensor)) {
      CheckElementType(where, what, type.elem_type);
    } else if (type.elem) {
      CheckElementType(where, what, *type.elem);
    }
  }
  void CheckElementType(const std::string& where, const std::string& what, DataType t) {
    int64_t need = FirstIrVersionOf(t);
    if (model_.ir_version >= 1 && need > model_.ir_version) {
      Add(where, "element-type-ir-version",
          what + " has element type " + std::string(DataTypeName(t)) + ", which needs IR version " +
              std::to_string(need) + " (the model has " + std::to_string(model_.ir_version) + ")");
    }
  }

  void CheckValueInfo(const ir::ValueInfo& vi, const std::string& where, const std::string& what, bool needs_type) {
    if (!vi.type) {
      if (needs_type) Add(where, "value-type-missing", what + " '" + vi.name + "' has no type");
      return;
    }
    if (vi.type->kind == ir::TypeInfo::Kind::kUndefined) {
      if (needs_type) Add(where, "value-type-missing", what + " '" + vi.name + "' has no type");
      return;
    }
    if (vi.type->kind == ir::TypeInfo::Kind::kTensor && vi.type->elem_type == DataType::kUndefined && needs_type) {
      Add(where, "value-type-missing", what + " '" + vi.name + "' is a tensor without element type");
    }
    CheckElementType(where, what + " '" + vi.name + "'", *vi.type);
  }

  void CheckExternalData(const ir::NamedTensor& t, const std::string& where) {
    if (t.external_data.empty()) return;
    std::string location;
    for (const auto& [k, v] : t.external_data) {
      if (k == "location") location = v;
    }
    std::string what = "tensor '" + t.name + "'";
    if (location.empty()) {
      Add(where, "external-data-location", what + " is stored externally but names no location");
      return;
    }
    std::filesystem::path p(location);
    if (p.is_absolute()) {
      Add(where, "external-data-location", what + ": external data location '" + location + "' is absolute");
      return;
    }
    for (const auto& part : p) {
      if (part == "..") {
        Add(where, "external-data-location",
            what + ": external data location '" + location + "' leaves the model's folder");
        return;
      }
    }
    if (!options_.model_dir.empty()) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(std::filesystem::path(options_.model_dir) / p, ec)) {
        Add(where, "external-data-missing", what + ": external data file '" + location + "' does not exist");
      }
    }
  }

  void CheckInitializer(const ir::NamedTensor& t, const std::string& where) {
    if (!t.tensor.defined()) {
      Add(where, "tensor-type-missing", "initializer '" + t.name + "' has no element type");
    } else {
      CheckElementType(where, "initializer '" + t.name + "'", t.tensor.type());
    }
    CheckExternalData(t, where);
  }

  void CheckGraph(const ir::Graph& g, const std::string& where, Scope& scope, bool is_main, const OpsetLookup& opset) {
    if (g.name.empty()) Add(where, "graph-name-missing", "the graph has no name");
    scope.owned_types.reserve(g.initializers.size());

    std::unordered_set<std::string> input_names;
    for (const auto& in : g.inputs) {
      if (in.name.empty()) {
        Add(where, "name-missing", "a graph input has an empty name");
        continue;
      }
      if (!input_names.insert(in.name).second) {
        Add(where, "ssa", "graph input '" + in.name + "' is declared more than once");
      }
      scope.names.insert(in.name);
      if (in.type) scope.types[in.name] = &*in.type;
      CheckValueInfo(in, where, "graph input", is_main);
    }
    std::unordered_set<std::string> initializer_names;
    for (const auto& t : g.initializers) {
      if (t.name.empty()) {
        Add(where, "name-missing", "an initializer has an empty name");
        continue;
      }
      if (!initializer_names.insert(t.name).second) {
        Add(where, "ssa", "initializer '" + t.name + "' is given more than once");
      }
      bool is_input = input_names.count(t.name) > 0;
      // Before IR 4 every initializer had to be a graph input (it was the input's default value).
      if (!is_input && model_.ir_version >= 1 && model_.ir_version < 4) {
        Add(where, "initializer-not-input",
            "initializer '" + t.name + "' is not a graph input (required before IR version 4)");
      }
      scope.names.insert(t.name);
      if (!is_input && t.tensor.defined()) {
        scope.owned_types.push_back(ir::TypeInfo::Tensor(t.tensor.type()));
        scope.types[t.name] = &scope.owned_types.back();
      }
      CheckInitializer(t, where);
    }
    // Declared types of intermediate values and outputs: used for type checks, never as definitions.
    for (const auto& vi : g.value_info) {
      if (vi.type && !scope.types.count(vi.name)) scope.types[vi.name] = &*vi.type;
    }
    for (const auto& out : g.outputs) {
      if (out.type && !scope.types.count(out.name)) scope.types[out.name] = &*out.type;
    }
    // value_info types describe values defined later; TypeOf must still see them, so keep a separate set of
    // defined names (scope.names) for order and SSA checks.

    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
      const ir::Node& node = g.nodes[ni];
      CheckNode(node, NodeWhere(where, node, ni, opset), scope, opset, nullptr);
      for (const auto& out : node.outputs) {
        if (out.empty()) continue;
        if (scope.HasHereOrAbove(out)) {
          Add(NodeWhere(where, node, ni, opset), "ssa",
              "output '" + out + "' reuses a name already defined in this graph or an enclosing one (SSA)");
        }
        scope.names.insert(out);
      }
    }

    if (is_main && g.outputs.empty()) Add(where, "graph-outputs-missing", "the graph has no outputs");
    std::unordered_set<std::string> output_names;
    for (const auto& out : g.outputs) {
      if (out.name.empty()) {
        Add(where, "name-missing", "a graph output has an empty name");
        continue;
      }
      if (!output_names.insert(out.name).second) {
        Add(where, "ssa", "graph output '" + out.name + "' is declared more than once");
      }
      if (!scope.HasHereOrAbove(out.name)) {
        Add(where, "output-not-computed", "graph output '" + out.name + "' is never computed");
      }
      CheckValueInfo(out, where, "graph output", is_main);
    }
  }

  std::string NodeWhere(const std::string& graph_where, const ir::Node& node, size_t index,
                        const OpsetLookup& opset) const {
    std::string op = node.domain.empty() || node.domain == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
    auto v = opset(node.domain);
    std::string suffix = " (" + op + (v ? ", opset " + std::to_string(*v) : "") + ")";
    if (!node.name.empty()) return graph_where + ", node '" + node.name + "'" + suffix;
    return graph_where + ", node #" + std::to_string(index) + suffix;
  }

  // Checks a node of a graph or function body: its inputs are defined, its attributes (subgraphs included) are
  // well formed, and it matches its operator's schema.
  void CheckNode(const ir::Node& node, const std::string& nwhere, Scope& scope, const OpsetLookup& opset,
                 const std::unordered_set<std::string>* function_attributes) {
    if (node.op_type.empty()) Add(nwhere, "op-type-missing", "op_type is empty");
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const auto& in = node.inputs[i];
      if (in.empty()) continue;
      if (!scope.HasHereOrAbove(in)) {
        Add(nwhere, "not-topological",
            "input " + std::to_string(i) + " '" + in +
                "' is not defined before this node (graph input, initializer, earlier node or enclosing scope)");
      }
    }
    std::set<std::string> attr_names;
    for (const auto& a : node.attributes) {
      if (a.name.empty()) Add(nwhere, "attribute-name-missing", "an attribute has no name");
      if (!a.name.empty() && !attr_names.insert(a.name).second) {
        Add(nwhere, "attribute-duplicate", "attribute '" + a.name + "' is given twice");
      }
      if (a.type == ir::AttrType::kUndefined && a.ref_attr_name.empty()) {
        Add(nwhere, "attribute-type-missing", "attribute '" + a.name + "' has no type");
      }
      if (a.type == ir::AttrType::kTensor) CheckInitializer(a.t, nwhere + ", attribute '" + a.name + "'");
      for (const auto& t : a.tensors) CheckInitializer(t, nwhere + ", attribute '" + a.name + "'");
      auto check_subgraph = [&](const ir::Graph& sg) {
        Scope child;
        child.parent = &scope;
        CheckGraph(sg, nwhere + ", attribute '" + a.name + "', graph '" + sg.name + "'", child, false, opset);
      };
      if (a.g) check_subgraph(*a.g);
      for (const auto& sg : a.graphs) check_subgraph(*sg);
    }

    if (node.op_type.empty()) return;
    auto version = opset(node.domain);
    std::string domain(ir::CanonicalDomain(node.domain));
    if (!version) {
      Add(nwhere, "domain-not-imported", "domain '" + domain + "' is not imported (opset_import)");
      return;
    }
    const schema::OpSchema* s = schema::ResolveSchema(node.domain, node.op_type, *version);
    if (s == nullptr) {
      if (model_.FindFunction(node.domain, node.op_type) != nullptr) return;  // a model-local function
      if (!IsStandardDomain(node.domain)) return;  // custom operators: nothing to check against
      const schema::OpSchema* first = schema::ResolveSchema(node.domain, node.op_type, 1 << 30);
      if (first != nullptr) {
        Add(nwhere, "operator-not-in-opset",
            node.op_type + " does not exist at " + domain + " opset " + std::to_string(*version) +
                " (it was added in opset " + std::to_string(FirstVersion(node.domain, node.op_type)) + ")");
      } else {
        Add(nwhere, "unknown-operator", "'" + node.op_type + "' is not an operator of domain " + domain);
      }
      return;
    }
    if (s->deprecated) {
      Add(nwhere, "deprecated-operator",
          s->VersionedName() + " is deprecated: it may not be used at " + domain + " opset " +
              std::to_string(*version));
      return;
    }
    NodeContext ctx{node, *s, nwhere, [&scope](const std::string& name) { return scope.TypeOf(name); },
                    function_attributes};
    CheckNodeAgainstSchema(ctx, problems_);
  }

  static int FirstVersion(std::string_view domain, std::string_view op_type) {
    for (int v = 1; v < 64; ++v) {
      if (schema::FindSchema(domain, op_type, v) != nullptr) return v;
    }
    return 0;
  }

  void CheckFunctions() {
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const auto& f : model_.functions) {
      std::string where = "function '" + f.domain + "." + f.name + "'";
      if (f.name.empty()) Add(where, "function-name-missing", "a function has no name");
      if (!seen.insert({f.domain, f.name, f.overload}).second) {
        Add(where, "function-duplicate", "the function is defined more than once");
      }
      // The function's own opset imports; a domain it does not import is looked up in the model's.
      auto opset = [&f, this](std::string_view d) -> std::optional<int64_t> {
        for (const auto& o : f.opset_import) {
          if (ir::CanonicalDomain(o.domain) == ir::CanonicalDomain(d)) return o.version;
        }
        return model_.OpsetVersion(d);
      };
      CheckFunctionOpsets(f, where);
      std::unordered_set<std::string> attrs(f.attributes.begin(), f.attributes.end());
      for (const auto& a : f.attribute_defaults) attrs.insert(a.name);

      Scope scope;
      for (const auto& in : f.inputs) {
        if (in.empty()) {
          Add(where, "name-missing", "a function input has an empty name");
          continue;
        }
        if (!scope.names.insert(in).second) Add(where, "ssa", "function input '" + in + "' is declared twice");
      }
      for (const auto& vi : f.value_info) {
        if (vi.type) scope.types[vi.name] = &*vi.type;
      }
      for (size_t ni = 0; ni < f.nodes.size(); ++ni) {
        const ir::Node& node = f.nodes[ni];
        std::string nwhere = NodeWhere(where, node, ni, opset);
        CheckNode(node, nwhere, scope, opset, &attrs);
        for (const auto& out : node.outputs) {
          if (out.empty()) continue;
          if (!scope.names.insert(out).second) {
            Add(nwhere, "ssa", "output '" + out + "' reuses a name already defined in the function (SSA)");
          }
        }
      }
      for (const auto& out : f.outputs) {
        if (!scope.names.count(out))
          Add(where, "output-not-computed", "function output '" + out + "' is never computed");
      }
    }
  }

  // A function imports its own opsets; where it imports a domain the model imports too, every operator it uses
  // must resolve to the same schema under both versions (ONNX's compatibility rule for model-local functions).
  void CheckFunctionOpsets(const ir::Function& f, const std::string& where) {
    for (const auto& o : f.opset_import) {
      auto model_version = model_.OpsetVersion(o.domain);
      if (!model_version || *model_version == o.version) continue;
      for (const auto& node : f.nodes) {
        if (ir::CanonicalDomain(node.domain) != ir::CanonicalDomain(o.domain)) continue;
        const auto* in_fn = schema::ResolveSchema(node.domain, node.op_type, o.version);
        const auto* in_model = schema::ResolveSchema(node.domain, node.op_type, *model_version);
        if (in_fn != in_model) {
          Add(where, "function-opset-incompatible",
              "uses " + node.op_type + " at " + std::string(ir::CanonicalDomain(o.domain)) + " opset " +
                  std::to_string(o.version) + ", which differs from the model's opset " +
                  std::to_string(*model_version) + " for this operator");
        }
      }
    }
  }

  const ir::Model& model_;
  const CheckOptions& options_;
  std::vector<Problem> problems_;
};

}  // namespace

std::string Problem::ToString() const {
  std::string s = where.empty() ? message : where + ": " + message;
  if (!rule.empty()) s += " [" + rule + "]";
  return s;
}

void SetFullCheckPass(FullCheckPass pass) { RegisteredFullCheckPass() = std::move(pass); }

std::vector<Problem> CheckModel(const ir::Model& model, const CheckOptions& options) {
  std::vector<Problem> problems = Checker(model, options).Run();
  // The full check adds shape inference; its pass is registered by the inference library (SetFullCheckPass).
  if (options.full && RegisteredFullCheckPass()) RegisteredFullCheckPass()(model, problems);
  return problems;
}

}  // namespace onyx::checker
