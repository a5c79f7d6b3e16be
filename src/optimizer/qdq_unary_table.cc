// DQ -> unary float operator -> Q on 8-bit data as one byte table (a float activation between two 8-bit layers:
// MobileNet-v3's HardSwish, a quantized transformer's GELU): DequantizeLinear and QuantizeLinear with one-element
// constant parameters, one unary elementwise operator between them (its other inputs constants), each value read only
// by the next. The three nodes run once on the 256 byte values through the runtime's own kernels (the constant-model
// runner constant folding uses) and become ai.onyx.internal.ByteLookup(X, table). Their kernels compute each element
// alone, with the same operations wherever it lies (DequantizeToFloat, QuantizeFloat and the activations' vector
// loops: docs/kernels.md), so the table gives the bytes the chain gives.
#include <string>
#include <unordered_set>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// Inputs 1.. of `n` absent or one-element constants.
bool ScalarConstantParams(const GraphIndex& index, const ir::Node& n) {
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    const Tensor* t = index.Constant(n.inputs[i]);
    if (t == nullptr || t->size() != 1) return false;
  }
  return true;
}

bool IsUnaryActivation(const ir::Node& n) {
  static const std::unordered_set<std::string> kOps = {"HardSwish", "HardSigmoid", "Sigmoid", "Tanh",     "Relu",
                                                       "LeakyRelu", "Elu",         "Selu",    "Softplus", "Softsign",
                                                       "Mish",      "Gelu",        "Erf",     "Clip",     "Swish"};
  return (n.domain.empty() || n.domain == "ai.onnx") && kOps.count(n.op_type) > 0 && n.outputs.size() == 1 &&
         !n.inputs.empty();
}

}  // namespace

Result<int> RunFuseQdqUnaryTable(ir::Graph& graph, const PassContext& ctx) {
  if (!ctx.options.run_constant_model) return 0;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& q = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(q, "QuantizeLinear") || q.inputs.size() < 2 || q.outputs.size() != 1) return false;
    if (q.FindAttribute("block_size") != nullptr || !ScalarConstantParams(index, q)) return false;
    const int u_index = index.Producer(q.inputs[0]);
    if (u_index < 0 || !index.HasSingleReader(q.inputs[0])) return false;
    const ir::Node& u = graph.nodes[static_cast<size_t>(u_index)];
    if (!IsUnaryActivation(u) || !ScalarConstantParams(index, u)) return false;
    const ir::Node* dq = index.ProducerOp(u.inputs[0], "DequantizeLinear");
    if (dq == nullptr || dq->inputs.size() < 2 || !index.HasSingleReader(u.inputs[0])) return false;
    if (dq->FindAttribute("block_size") != nullptr || !ScalarConstantParams(index, *dq)) return false;
    // The 8-bit type of X: the DQ's zero point's, or uint8 without one.
    DataType x_type = DataType::kUint8;
    if (dq->inputs.size() > 2 && !dq->inputs[2].empty()) x_type = index.Constant(dq->inputs[2])->type();
    if (!Is8Bit(x_type)) return false;
    if (auto declared = index.ElemType(dq->inputs[0]); declared && *declared != x_type) return false;
    // The chain on the 256 byte values, as a model of its own.
    ir::Model m;
    m.ir_version = ctx.model.ir_version;
    m.opset_import = ctx.model.opset_import;
    m.graph.name = "byte_table";
    ir::Node dq_node = *dq, u_node = u, q_node = q;
    const std::string x_name = "byte_table_x";
    dq_node.inputs[0] = x_name;
    m.graph.nodes = {dq_node, u_node, q_node};
    Tensor bytes = Tensor::Allocate(x_type, {256});
    for (int v = 0; v < 256; ++v) static_cast<uint8_t*>(bytes.raw())[v] = static_cast<uint8_t>(v);
    std::unordered_set<std::string> added;
    auto add = [&](const std::string& name, Tensor t) {
      if (name.empty() || !added.insert(name).second) return;
      ir::NamedTensor nt;
      nt.name = name;
      nt.tensor = std::move(t);
      m.graph.initializers.push_back(std::move(nt));
    };
    add(x_name, std::move(bytes));
    for (const ir::Node* n : {dq, &u, &q}) {
      for (size_t k = 1; k < n->inputs.size(); ++k) {
        if (!n->inputs[k].empty()) add(n->inputs[k], *index.Constant(n->inputs[k]));
      }
    }
    m.graph.outputs.push_back(ir::ValueInfo{q.outputs[0], std::nullopt, {}, {}});
    auto outs = ctx.options.run_constant_model(std::move(m));
    if (!outs.ok() || outs->size() != 1 || !(*outs)[0].is_tensor()) return false;
    Tensor table = std::move((*outs)[0].tensor());
    if (!Is8Bit(table.type()) || table.size() != 256) return false;
    ir::Node lookup;
    lookup.name = q.name.empty() ? u.name : q.name;
    lookup.op_type = "ByteLookup";
    lookup.domain = ir::kInternalDomain;
    lookup.inputs = {dq->inputs[0], AddInitializer(graph, q.outputs[0] + "_table", std::move(table))};
    lookup.outputs = q.outputs;
    graph.nodes[static_cast<size_t>(i)] = std::move(lookup);  // the DQ and the activation go to dead-code elimination
    return true;
  });
}

}  // namespace onyx::optimizer
