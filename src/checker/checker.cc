#include "checker/checker.h"

#include <set>
#include <unordered_set>

#include "schema/op_versions.h"

namespace onyx::checker {
namespace {

constexpr int64_t kMaxIrVersion = 13;

class Checker {
 public:
  explicit Checker(const ir::Model& m) : model_(m) {}

  std::vector<Problem> Run() {
    if (model_.ir_version < 1) Add("", "ir_version is missing or invalid (" + std::to_string(model_.ir_version) + ")");
    if (model_.ir_version > kMaxIrVersion) {
      Add("", "ir_version " + std::to_string(model_.ir_version) + " is newer than the newest known (" +
                  std::to_string(kMaxIrVersion) + ")");
    }
    if (model_.ir_version >= 3 && model_.opset_import.empty()) Add("", "opset_import is empty");
    std::set<std::string> domains;
    for (const auto& o : model_.opset_import) {
      std::string d(ir::CanonicalDomain(o.domain));
      if (!domains.insert(d).second) Add("", "domain '" + d + "' is imported twice");
      if (o.version < 1) Add("", "domain '" + d + "' is imported at invalid version " + std::to_string(o.version));
    }
    CheckGraph(model_.graph, "graph '" + model_.graph.name + "'", {}, true);
    return std::move(problems_);
  }

 private:
  void Add(const std::string& where, const std::string& message) { problems_.push_back({where, message}); }

  void CheckGraph(const ir::Graph& g, const std::string& where, const std::unordered_set<std::string>& outer,
                  bool is_main) {
    std::unordered_set<std::string> defined;
    auto define = [&](const std::string& name, const std::string& what) {
      if (name.empty()) {
        Add(where, what + " has an empty name");
        return;
      }
      if (!defined.insert(name).second) Add(where, what + " '" + name + "' is defined more than once (SSA)");
    };
    for (const auto& in : g.inputs) {
      define(in.name, "input");
      if (!in.type && is_main) Add(where, "input '" + in.name + "' has no type");
    }
    std::unordered_set<std::string> input_names;
    for (const auto& in : g.inputs) input_names.insert(in.name);
    for (const auto& t : g.initializers) {
      if (t.name.empty()) {
        Add(where, "an initializer has no name");
        continue;
      }
      // IR >= 4 allows initializers that are not inputs; those that are inputs give the input a default value.
      if (!input_names.count(t.name)) {
        if (model_.ir_version < 4 && is_main) Add(where, "initializer '" + t.name + "' is not a graph input (required before IR 4)");
        define(t.name, "initializer");
      }
    }
    for (const auto& node : g.nodes) {
      std::string nwhere = where + ", " + node.Describe();
      if (node.op_type.empty()) Add(nwhere, "op_type is empty");
      auto opset = model_.OpsetVersion(node.domain);
      if (!opset) {
        Add(nwhere, "domain '" + std::string(ir::CanonicalDomain(node.domain)) + "' is not imported");
      } else if (FindOpVersions(node.domain, node.op_type) != nullptr) {
        if (!ResolveSinceVersion(node.domain, node.op_type, *opset)) {
          Add(nwhere, "operator " + node.op_type + " does not exist at opset " + std::to_string(*opset));
        }
      } else if (model_.FindFunction(node.domain, node.op_type) == nullptr) {
        std::string d(ir::CanonicalDomain(node.domain));
        if (d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.preview.training") {
          Add(nwhere, "'" + node.op_type + "' is not an operator of domain " + d);
        }
      }
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const auto& in = node.inputs[i];
        if (in.empty()) continue;
        if (!defined.count(in) && !outer.count(in)) {
          Add(nwhere, "input " + std::to_string(i) + " '" + in + "' is not defined before this node");
        }
      }
      std::set<std::string> attr_names;
      for (const auto& a : node.attributes) {
        if (a.name.empty()) Add(nwhere, "an attribute has no name");
        if (!attr_names.insert(a.name).second) Add(nwhere, "attribute '" + a.name + "' is given twice");
        if (a.type == ir::AttrType::kUndefined && a.ref_attr_name.empty()) {
          Add(nwhere, "attribute '" + a.name + "' has no type");
        }
        std::unordered_set<std::string> scope = outer;
        scope.insert(defined.begin(), defined.end());
        if (a.g) CheckGraph(*a.g, nwhere + ", attribute '" + a.name + "'", scope, false);
        for (const auto& sg : a.graphs) CheckGraph(*sg, nwhere + ", attribute '" + a.name + "'", scope, false);
      }
      for (const auto& out : node.outputs) {
        if (!out.empty()) define(out, "output");
      }
    }
    if (g.outputs.empty() && is_main) Add(where, "the graph has no outputs");
    for (const auto& out : g.outputs) {
      if (!defined.count(out.name) && !outer.count(out.name)) Add(where, "output '" + out.name + "' is never computed");
    }
  }

  const ir::Model& model_;
  std::vector<Problem> problems_;
};

}  // namespace

std::vector<Problem> CheckModel(const ir::Model& model) { return Checker(model).Run(); }

}  // namespace onyx::checker
