#include "convert/common/graph_builder.h"

#include <utility>

namespace onyx::convert {

GraphBuilder::GraphBuilder(ir::Graph* graph) : graph_(graph) {
  for (const auto& in : graph->inputs) used_.insert(in.name);
  for (const auto& init : graph->initializers) used_.insert(init.name);
  for (const auto& n : graph->nodes) {
    for (const auto& o : n.outputs) used_.insert(o);
    used_.insert(n.name);
  }
}

std::string GraphBuilder::Fresh(const std::string& base) {
  std::string name = base.empty() ? "v" : base;
  if (used_.count(name)) {
    int64_t& k = next_suffix_.try_emplace(base, 1).first->second;
    do {
      name = base + "_" + std::to_string(k++);
    } while (used_.count(name));
  }
  used_.insert(name);
  return name;
}

std::string GraphBuilder::Constant(const std::string& base, Tensor tensor) {
  ir::NamedTensor t;
  t.name = Fresh(base);
  t.tensor = std::move(tensor);
  graph_->initializers.push_back(std::move(t));
  return graph_->initializers.back().name;
}

std::string GraphBuilder::ConstInts(const std::string& base, const std::vector<int64_t>& values) {
  return Constant(base, Tensor::FromVector<int64_t>(values, {static_cast<int64_t>(values.size())}));
}

std::string GraphBuilder::ConstFloat(const std::string& base, float value) {
  return Constant(base, Tensor::Scalar<float>(value));
}

std::vector<std::string> GraphBuilder::Op(const std::string& op_type, const std::vector<std::string>& inputs,
                                          const std::string& node_name, std::vector<ir::Attribute> attrs,
                                          int num_outputs) {
  std::vector<std::string> outs;
  for (int i = 0; i < num_outputs; ++i)
    outs.push_back(Fresh(node_name + (num_outputs > 1 ? ":" + std::to_string(i) : "")));
  OpTo(op_type, inputs, outs, node_name, std::move(attrs));
  return outs;
}

std::string GraphBuilder::Op1(const std::string& op_type, const std::vector<std::string>& inputs,
                              const std::string& node_name, std::vector<ir::Attribute> attrs) {
  return Op(op_type, inputs, node_name, std::move(attrs), 1)[0];
}

void GraphBuilder::OpTo(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& node_name,
                        std::vector<ir::Attribute> attrs) {
  ir::Node n;
  // Node names are unique too; the value names already are.
  n.name = used_.count(node_name) && !outputs.empty() && outputs[0] == node_name ? node_name : Fresh(node_name);
  n.op_type = op_type;
  n.inputs = inputs;
  n.outputs = outputs;
  n.attributes = std::move(attrs);
  n.doc_string = doc_;
  for (const auto& o : outputs) used_.insert(o);
  graph_->nodes.push_back(std::move(n));
}

std::string GraphBuilder::Input(const std::string& base, ir::TypeInfo type) {
  ir::ValueInfo vi;
  vi.name = Fresh(base);
  vi.type = std::move(type);
  graph_->inputs.push_back(vi);
  return vi.name;
}

}  // namespace onyx::convert
