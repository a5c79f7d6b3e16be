#include "ir/function_inliner.h"

#include <unordered_map>

namespace onyx::ir {
namespace {

constexpr int kMaxDepth = 64;

using NameMap = std::unordered_map<std::string, std::string>;

void RenameInGraph(Graph& g, const NameMap& names) {
  auto rename = [&](std::string& n) {
    auto it = names.find(n);
    if (it != names.end()) n = it->second;
  };
  for (auto& node : g.nodes) {
    for (auto& i : node.inputs) rename(i);
    for (auto& a : node.attributes) {
      if (a.g) RenameInGraph(*a.g, names);
      for (auto& sg : a.graphs) RenameInGraph(*sg, names);
    }
  }
  for (auto& o : g.outputs) rename(o.name);
}

// Deep-copies the subgraphs of an attribute so that renaming one call's copy leaves the function body intact.
void CloneSubgraphs(Attribute& a) {
  if (a.g) a.g = std::make_shared<Graph>(*a.g);
  for (auto& sg : a.graphs) sg = std::make_shared<Graph>(*sg);
}

Result<std::vector<Node>> ExpandCall(const Node& call, const Function& fn, int64_t& counter) {
  NameMap names;
  for (size_t i = 0; i < fn.inputs.size(); ++i) names[fn.inputs[i]] = i < call.inputs.size() ? call.inputs[i] : "";
  for (size_t i = 0; i < fn.outputs.size(); ++i) names[fn.outputs[i]] = i < call.outputs.size() ? call.outputs[i] : "";
  const std::string prefix = "__" + fn.name + "_" + std::to_string(counter++) + "__";
  auto mapped = [&](const std::string& n) -> std::string {
    if (n.empty()) return n;
    auto it = names.find(n);
    if (it != names.end()) return it->second;
    return names[n] = prefix + n;
  };
  std::vector<Node> out;
  for (const Node& body : fn.nodes) {
    Node n = body;
    if (!n.name.empty()) n.name = prefix + n.name;
    for (auto& o : n.outputs) o = mapped(o);
    for (auto& i : n.inputs) i = mapped(i);
    std::vector<Attribute> attrs;
    for (const Attribute& a : body.attributes) {
      if (a.ref_attr_name.empty()) {
        attrs.push_back(a);
        CloneSubgraphs(attrs.back());
        continue;
      }
      const Attribute* given = call.FindAttribute(a.ref_attr_name);
      if (given == nullptr) {
        for (const auto& d : fn.attribute_defaults) {
          if (d.name == a.ref_attr_name) given = &d;
        }
      }
      if (given == nullptr) continue;  // optional attribute left unset
      Attribute copy = *given;
      copy.name = a.name;
      CloneSubgraphs(copy);
      attrs.push_back(std::move(copy));
    }
    n.attributes = std::move(attrs);
    out.push_back(std::move(n));
  }
  // Subgraphs of body nodes may read the function's inputs and intermediate values.
  for (auto& n : out) {
    for (auto& a : n.attributes) {
      if (a.g) RenameInGraph(*a.g, names);
      for (auto& sg : a.graphs) RenameInGraph(*sg, names);
    }
  }
  return out;
}

Status InlineGraph(Graph& g, const Model& model, int64_t& counter, int depth) {
  if (depth > kMaxDepth) return InvalidArgument("model functions nest deeper than " + std::to_string(kMaxDepth) + " levels (recursion?)");
  bool expanded = false;
  std::vector<Node> nodes;
  for (auto& node : g.nodes) {
    const Function* fn = model.FindFunction(node.domain, node.op_type);
    if (fn == nullptr) {
      for (auto& a : node.attributes) {
        if (a.g) ONYX_RETURN_IF_ERROR(InlineGraph(*a.g, model, counter, depth));
        for (auto& sg : a.graphs) ONYX_RETURN_IF_ERROR(InlineGraph(*sg, model, counter, depth));
      }
      nodes.push_back(std::move(node));
      continue;
    }
    auto body = ExpandCall(node, *fn, counter);
    if (!body.ok()) return body.status().WithContext(node.Describe());
    for (auto& n : *body) nodes.push_back(std::move(n));
    expanded = true;
  }
  g.nodes = std::move(nodes);
  if (expanded) return InlineGraph(g, model, counter, depth + 1);
  return Status::Ok();
}

}  // namespace

Status InlineModelFunctions(Model& model) {
  if (model.functions.empty()) return Status::Ok();
  // Domains the bodies use must be visible to the runtime's operator resolution.
  for (const auto& fn : model.functions) {
    for (const auto& o : fn.opset_import) {
      if (!model.OpsetVersion(o.domain)) model.opset_import.push_back(o);
    }
  }
  int64_t counter = 0;
  ONYX_RETURN_IF_ERROR(InlineGraph(model.graph, model, counter, 0));
  return TopologicalSort(model.graph);
}

}  // namespace onyx::ir
