#include "quantize/graph_util.h"

#include <utility>

namespace onyx::quantize {

namespace {

void CollectNames(const ir::Graph& g, std::unordered_set<std::string>& values, std::unordered_set<std::string>& nodes) {
  for (const auto& in : g.inputs) values.insert(in.name);
  for (const auto& init : g.initializers) values.insert(init.name);
  for (const auto& n : g.nodes) {
    nodes.insert(n.name);
    for (const auto& o : n.outputs) values.insert(o);
    for (const auto& a : n.attributes) {
      if (a.g) CollectNames(*a.g, values, nodes);
      for (const auto& sub : a.graphs) CollectNames(*sub, values, nodes);
    }
  }
}

std::string Fresh(std::unordered_set<std::string>& used, const std::string& base) {
  std::string name = base;
  for (int i = 1; used.count(name) > 0; ++i) name = base + "_" + std::to_string(i);
  used.insert(name);
  return name;
}

}  // namespace

Namer::Namer(const ir::Graph& graph) { CollectNames(graph, values_, nodes_); }
std::string Namer::Value(const std::string& base) { return Fresh(values_, base); }
std::string Namer::Node(const std::string& base) { return Fresh(nodes_, base); }

const Tensor* ConstantTensor(const ir::Graph& graph, const std::string& name) {
  if (name.empty()) return nullptr;
  const ir::NamedTensor* t = graph.FindInitializer(name);
  if (t == nullptr) {
    // Exporters (torch among them) also write constants as Constant nodes.
    for (const auto& n : graph.nodes) {
      if (n.op_type != "Constant" || (!n.domain.empty() && n.domain != "ai.onnx") || n.outputs.size() != 1 ||
          n.outputs[0] != name) {
        continue;
      }
      const ir::Attribute* value = n.FindAttribute("value");
      return value != nullptr && value->type == ir::AttrType::kTensor ? &value->t.tensor : nullptr;
    }
    return nullptr;
  }
  for (const auto& in : graph.inputs) {
    if (in.name == name) return nullptr;  // a default the caller may replace
  }
  return &t->tensor;
}

std::string AddInitializer(ir::Graph& graph, Namer& namer, const std::string& base, Tensor tensor) {
  ir::NamedTensor t;
  t.name = namer.Value(base);
  t.tensor = std::move(tensor);
  graph.initializers.push_back(std::move(t));
  return graph.initializers.back().name;
}

ir::Node MakeNode(std::string op_type, std::string name, std::vector<std::string> inputs,
                  std::vector<std::string> outputs, std::vector<ir::Attribute> attributes) {
  ir::Node n;
  n.op_type = std::move(op_type);
  n.name = std::move(name);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attributes = std::move(attributes);
  return n;
}

int64_t IntAttribute(const ir::Node& node, const char* name, int64_t fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kInt ? a->i : fallback;
}

float FloatAttribute(const ir::Node& node, const char* name, float fallback) {
  const ir::Attribute* a = node.FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kFloat ? a->f : fallback;
}

}  // namespace onyx::quantize
