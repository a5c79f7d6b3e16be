// A quantized TFLite convolution as onyx's converter writes it: ConvInteger, then its float requantization in four
// operators: Add of the int32 bias -> Cast to float -> Mul by the multiplier (one value or one per channel) ->
// QuantizeLinear with one-value parameters. The last four become ai.onyx.internal.RequantizeInt32
// (ops/quant/requantize_int32.cc), one pass over the accumulators with the same operations per element, so the same
// bytes. A converted MobileNet-v1 (uint8, 28 convolutions) spent ~0.15 ms of its 0.8 in those passes.
#include "optimizer/byte_table.h"
#include "optimizer/graph_index.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// Whether constant `t` holds one value, or one per channel of a rank-`rank` tensor of NCHW order (shapes [C], [C,1,1],
// [1,C,1,1] against a rank-4 one: right-aligned, every dimension 1 but the one on axis 1). It must not widen the
// result's shape: at most `rank` dimensions.
bool OneOrPerChannel(const Tensor& t, int64_t rank) {
  if (t.rank() > rank) return false;
  if (t.size() == 1) return true;
  const int64_t channel_at = 1 - (rank - t.rank());  // axis 1 of the tensor, in t's dimensions
  if (channel_at < 0) return false;
  for (int64_t d = 0; d < t.rank(); ++d) {
    if (d != channel_at && t.dim(d) != 1) return false;
  }
  return true;
}

// The operand of binary `n` that is a constant of `type` (its index), the other being a computed value; -1 if none.
int ConstantOperand(const GraphIndex& index, const ir::Node& n, DataType type) {
  if (n.inputs.size() != 2) return -1;
  for (int k = 0; k < 2; ++k) {
    const Tensor* c = index.Constant(n.inputs[static_cast<size_t>(k)]);
    if (c != nullptr && c->type() == type && index.Constant(n.inputs[static_cast<size_t>(1 - k)]) == nullptr) return k;
  }
  return -1;
}

}  // namespace

Result<int> RunFuseIntegerRequantize(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& q = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(q, "QuantizeLinear") || q.inputs.size() < 2 || q.outputs.size() != 1) return false;
    if (q.FindAttribute("block_size") != nullptr || q.FindAttribute("output_dtype") != nullptr) return false;
    if (!ScalarConstantInputs(index, q)) return false;
    const Tensor* scale = index.Constant(q.inputs[1]);
    if (scale->type() != DataType::kFloat) return false;
    if (q.inputs.size() > 2 && !q.inputs[2].empty()) {
      const DataType zp = index.Constant(q.inputs[2])->type();
      if (zp != DataType::kUint8 && zp != DataType::kInt8) return false;
    }
    // Mul(Cast(Add(acc, bias)), multiplier), each value read once.
    const ir::Node* mul = index.ProducerOp(q.inputs[0], "Mul");
    if (mul == nullptr || !index.HasSingleReader(q.inputs[0])) return false;
    const int m_at = ConstantOperand(index, *mul, DataType::kFloat);
    if (m_at < 0) return false;
    const std::string& scaled_from = mul->inputs[static_cast<size_t>(1 - m_at)];
    const ir::Node* cast = index.ProducerOp(scaled_from, "Cast");
    if (cast == nullptr || !index.HasSingleReader(scaled_from) || cast->inputs.size() != 1) return false;
    if (AttrInt(*cast, "to", 0) != static_cast<int64_t>(DataType::kFloat)) return false;
    const ir::Node* add = index.ProducerOp(cast->inputs[0], "Add");
    if (add == nullptr || !index.HasSingleReader(cast->inputs[0])) return false;
    const int b_at = ConstantOperand(index, *add, DataType::kInt32);
    if (b_at < 0) return false;
    const std::string& acc = add->inputs[static_cast<size_t>(1 - b_at)];
    const std::optional<int64_t> rank = index.Rank(acc);
    const Tensor* bias = index.Constant(add->inputs[static_cast<size_t>(b_at)]);
    const Tensor* multiplier = index.Constant(mul->inputs[static_cast<size_t>(m_at)]);
    if (!rank || !OneOrPerChannel(*bias, *rank) || !OneOrPerChannel(*multiplier, *rank)) return false;
    if (bias->size() != 1 && multiplier->size() != 1 && bias->size() != multiplier->size()) return false;
    ir::Node fused;
    fused.name = q.name.empty() ? mul->name : q.name;
    fused.op_type = "RequantizeInt32";
    fused.domain = ir::kInternalDomain;
    fused.inputs = {acc, add->inputs[static_cast<size_t>(b_at)], mul->inputs[static_cast<size_t>(m_at)], q.inputs[1]};
    if (q.inputs.size() > 2 && !q.inputs[2].empty()) fused.inputs.push_back(q.inputs[2]);
    fused.outputs = q.outputs;
    // The Add, Cast and Mul go to dead-code elimination.
    graph.nodes[static_cast<size_t>(i)] = std::move(fused);
    return true;
  });
}

}  // namespace onyx::optimizer
