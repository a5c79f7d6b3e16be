// DQ -> unary float operator -> Q on 8-bit data as one byte table (a float activation between two 8-bit layers:
// MobileNet-v3's HardSwish, a quantized transformer's GELU): DequantizeLinear and QuantizeLinear with one-element
// constant parameters, one unary activation between them (its other inputs constants), each value read only by the
// next, become ai.onyx.internal.ByteLookup (optimizer/byte_table.h). Their kernels compute each element alone, with
// the same operations wherever it lies (DequantizeToFloat, QuantizeFloat and the activations' vector loops:
// docs/kernels.md), so the table gives the bytes the chain gives.
#include "optimizer/byte_table.h"

namespace onyx::optimizer {

Result<int> RunFuseQdqUnaryTable(ir::Graph& graph, const PassContext& ctx) {
  if (!ctx.options.run_constant_model) return 0;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& q = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(q, "QuantizeLinear") || q.inputs.size() < 2 || q.outputs.size() != 1) return false;
    if (q.FindAttribute("block_size") != nullptr || !ScalarConstantInputs(index, q)) return false;
    const int u_index = index.Producer(q.inputs[0]);
    if (u_index < 0 || !index.HasSingleReader(q.inputs[0])) return false;
    const ir::Node& u = graph.nodes[static_cast<size_t>(u_index)];
    if (!IsUnaryActivation(u) || !ScalarConstantInputs(index, u)) return false;
    const ir::Node* dq = index.ProducerOp(u.inputs[0], "DequantizeLinear");
    if (dq == nullptr || dq->inputs.size() < 2 || !index.HasSingleReader(u.inputs[0])) return false;
    if (dq->FindAttribute("block_size") != nullptr || !ScalarConstantInputs(index, *dq)) return false;
    // The 8-bit type of X: the DQ's zero point's, or uint8 without one.
    DataType x_type = DataType::kUint8;
    if (dq->inputs.size() > 2 && !dq->inputs[2].empty()) x_type = index.Constant(dq->inputs[2])->type();
    if (auto declared = index.ElemType(dq->inputs[0]); declared && *declared != x_type) return false;
    std::optional<Tensor> table = EvaluateOnEveryByte({dq, &u, &q}, dq->inputs[0], x_type, q.outputs[0], index, ctx);
    if (!table) return false;
    // The DQ and the activation go to dead-code elimination.
    graph.nodes[static_cast<size_t>(i)] =
        ByteLookupNode(graph, q.name.empty() ? u.name : q.name, dq->inputs[0], std::move(*table), q.outputs[0]);
    return true;
  });
}

}  // namespace onyx::optimizer
