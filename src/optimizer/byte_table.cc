// The byte-table helpers of optimizer/byte_table.h.
#include "optimizer/byte_table.h"

#include <unordered_set>

namespace onyx::optimizer {

bool IsUnaryActivation(const ir::Node& n) {
  static const std::unordered_set<std::string> kOps = {
      "HardSwish", "HardSigmoid", "Sigmoid", "Tanh", "Relu", "LeakyRelu", "Elu", "Selu", "Softplus",
      "Softsign",  "Mish",        "Gelu",    "Erf",  "Clip", "Swish",     "Abs", "Neg",  "Identity"};
  return (n.domain.empty() || n.domain == "ai.onnx") && kOps.count(n.op_type) > 0 && n.outputs.size() == 1 &&
         !n.inputs.empty();
}

bool ScalarConstantInputs(const GraphIndex& index, const ir::Node& n, size_t first) {
  for (size_t i = first; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    const Tensor* t = index.Constant(n.inputs[i]);
    if (t == nullptr || t->size() != 1) return false;
  }
  return true;
}

std::optional<Tensor> EvaluateOnEveryByte(const std::vector<const ir::Node*>& nodes, const std::string& x,
                                          DataType x_type, const std::string& y, const GraphIndex& index,
                                          const PassContext& ctx) {
  if (!ctx.options.run_constant_model || (x_type != DataType::kUint8 && x_type != DataType::kInt8)) {
    return std::nullopt;
  }
  ir::Model m;
  m.ir_version = ctx.model.ir_version;
  m.opset_import = ctx.model.opset_import;
  m.graph.name = "byte_table";
  std::unordered_set<std::string> added;
  auto add = [&](const std::string& name, Tensor t) {
    if (name.empty() || !added.insert(name).second) return;
    ir::NamedTensor nt;
    nt.name = name;
    nt.tensor = std::move(t);
    m.graph.initializers.push_back(std::move(nt));
  };
  Tensor bytes = Tensor::Allocate(x_type, {256});
  for (int v = 0; v < 256; ++v) static_cast<uint8_t*>(bytes.raw())[v] = static_cast<uint8_t>(v);
  add(x, std::move(bytes));
  std::unordered_set<std::string> produced;
  for (const ir::Node* n : nodes) {
    for (const auto& in : n->inputs) {
      if (in.empty() || in == x || produced.count(in)) continue;
      const Tensor* c = index.Constant(in);
      if (c == nullptr) return std::nullopt;
      add(in, *c);
    }
    produced.insert(n->outputs.begin(), n->outputs.end());
    m.graph.nodes.push_back(*n);
    // Domains a fusion introduced (com.microsoft, ai.onyx.internal) before the model imports them.
    if (!n->domain.empty() && n->domain != "ai.onnx" && !m.OpsetVersion(n->domain)) {
      m.opset_import.push_back({n->domain, 1});
    }
  }
  m.graph.outputs.push_back(ir::ValueInfo{y, std::nullopt, {}, {}});
  auto outs = ctx.options.run_constant_model(std::move(m));
  if (!outs.ok() || outs->size() != 1 || !(*outs)[0].is_tensor()) return std::nullopt;
  Tensor table = std::move((*outs)[0].tensor());
  if ((table.type() != DataType::kUint8 && table.type() != DataType::kInt8) || table.size() != 256) {
    return std::nullopt;
  }
  return table;
}

ir::Node ByteLookupNode(ir::Graph& graph, const std::string& name, const std::string& x, Tensor table,
                        const std::string& y) {
  ir::Node lookup;
  lookup.name = name;
  lookup.op_type = "ByteLookup";
  lookup.domain = ir::kInternalDomain;
  lookup.inputs = {x, AddInitializer(graph, y + "_table", std::move(table))};
  lookup.outputs = {y};
  return lookup;
}

}  // namespace onyx::optimizer
