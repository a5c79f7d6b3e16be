#include "ir/session_constants.h"

namespace onyx::ir {

std::unordered_map<std::string, const Tensor*> SessionConstants(const Graph& graph) {
  std::unordered_map<std::string, const Tensor*> constants;
  for (const auto& init : graph.initializers) constants.emplace(init.name, &init.tensor);
  for (const auto& in : graph.inputs) constants.erase(in.name);
  for (const auto& n : graph.nodes) {
    const bool onnx = n.domain.empty() || n.domain == "ai.onnx";
    if (!onnx || n.outputs.size() != 1) continue;
    if (n.op_type == "Constant") {
      const auto* v = n.FindAttribute("value");
      if (v != nullptr && v->type == AttrType::kTensor) constants.emplace(n.outputs[0], &v->t.tensor);
    } else if (n.op_type == "Identity" && n.inputs.size() == 1) {
      auto it = constants.find(n.inputs[0]);
      if (it != constants.end()) constants.emplace(n.outputs[0], it->second);
    }
  }
  return constants;
}

}  // namespace onyx::ir
