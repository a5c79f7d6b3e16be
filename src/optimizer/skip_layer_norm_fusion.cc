// ONNX Runtime's SkipLayerNormFusion, for OptimizerOptions::ort_fusions only (onyx's own graphs keep the Add and the
// LayerNormalization: its vectorized row kernel is faster than SkipLayerNormalization's ONNX Runtime order):
//
//   s = Add(a, b) [-> Add(s, bias) | a = Add(x, bias) first] -> LayerNormalization(s, gamma, beta, axis = last)
//   =>  com.microsoft SkipLayerNormalization(a, b, gamma, beta[, bias], epsilon)
//
// ONNX Runtime computes it differently from its LayerNormalization (a Welford loop: ops/contrib/normalization.cc), so
// a graph that it fuses this way has to be fused here too for its bytes. Its conditions: a and b activations of one
// shape, rank 3 (inferred: inferred_types.h), the sums read only by the next node of the pattern and not
// graph outputs, gamma and beta (and the bias) constant vectors of the hidden size, the normalization over the last
// axis. Its shape knowledge is its own: measured, it fused every residual LayerNormalization of a BERT-like encoder
// of fixed shapes ([1, 128, 768]) and none of a GPT-2-like decoder of symbolic ones ([batch, seq, 512]), so the dims
// must be numbers here (symbolic ones, even equal, do not fuse).
#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"
#include "optimizer/inferred_types.h"
#include "optimizer/pass_list.h"

namespace onyx::optimizer {
namespace {

bool IsLayerNorm(const ir::Node& n) {
  return n.op_type == "LayerNormalization" &&
         (n.domain.empty() || n.domain == "ai.onnx" || n.domain == ir::kInternalDomain);
}

bool SameKnownDims(const ir::TypeInfo* a, const ir::TypeInfo* b, size_t rank) {
  if (a == nullptr || b == nullptr || !a->shape || !b->shape) return false;
  if (a->shape->size() != rank || b->shape->size() != rank) return false;
  for (size_t i = 0; i < rank; ++i) {
    const ir::Dim& x = (*a->shape)[i];
    const ir::Dim& y = (*b->shape)[i];
    if (x.kind == ir::Dim::Kind::kValue && y.kind == ir::Dim::Kind::kValue && x.value == y.value) continue;
    return false;
  }
  return true;
}

// A constant float vector of `n` values.
bool IsVectorOf(const Tensor* t, int64_t n) {
  return t != nullptr && t->type() == DataType::kFloat && t->rank() == 1 && t->dim(0) == n;
}

}  // namespace

Result<int> RunFuseSkipLayerNorm(ir::Graph& graph, const PassContext& ctx) {
  if (!ctx.options.ort_fusions) return 0;
  bool candidate = false;
  for (const auto& n : graph.nodes) candidate = candidate || IsLayerNorm(n);
  if (!candidate) return 0;
  const std::optional<infer::GraphTypes> types = InferOnCopy(graph, ctx);
  if (!types) return 0;
  auto type_of = [&](const std::string& name) { return FindType(*types, name); };
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& ln = graph.nodes[static_cast<size_t>(i)];
    if (!IsLayerNorm(ln) || ln.inputs.size() != 3 || ln.outputs.size() != 1) return false;
    const ir::TypeInfo* sum_type = type_of(ln.inputs[0]);
    if (sum_type == nullptr || !sum_type->shape || sum_type->shape->size() != 3) return false;
    const int64_t axis = AttrInt(ln, "axis", -1);
    if (axis != -1 && axis != 2) return false;
    const ir::Dim& hidden_dim = (*sum_type->shape)[2];
    if (hidden_dim.kind != ir::Dim::Kind::kValue) return false;
    const int64_t hidden = hidden_dim.value;
    if (!IsVectorOf(index.Constant(ln.inputs[1]), hidden) || !IsVectorOf(index.Constant(ln.inputs[2]), hidden)) {
      return false;
    }
    // s = Add(p, q), read by the LayerNormalization alone.
    const ir::Node* add = index.ProducerOp(ln.inputs[0], "Add");
    if (add == nullptr || add->inputs.size() != 2 || !index.HasSingleReader(ln.inputs[0]) ||
        index.IsGraphOutput(ln.inputs[0])) {
      return false;
    }
    std::string a = add->inputs[0], b = add->inputs[1], bias;
    // A bias on either side: Add(Add(a, b), bias) or Add(Add(a, bias), b).
    for (int side = 0; side < 2 && bias.empty(); ++side) {
      const std::string& maybe_bias = add->inputs[static_cast<size_t>(side)];
      const std::string& other = add->inputs[static_cast<size_t>(1 - side)];
      if (!IsVectorOf(index.Constant(maybe_bias), hidden)) continue;
      const ir::Node* inner = index.ProducerOp(other, "Add");
      if (inner == nullptr || inner->inputs.size() != 2 || !index.HasSingleReader(other) ||
          index.IsGraphOutput(other)) {
        return false;
      }
      a = inner->inputs[0];
      b = inner->inputs[1];
      bias = maybe_bias;
    }
    if (index.Constant(a) != nullptr || index.Constant(b) != nullptr) return false;
    if (!SameKnownDims(type_of(a), type_of(b), 3) || type_of(a)->elem_type != DataType::kFloat) return false;
    ir::Node fused;
    fused.name = ln.name;
    fused.op_type = "SkipLayerNormalization";
    fused.domain = "com.microsoft";
    fused.inputs = {a, b, ln.inputs[1], ln.inputs[2]};
    if (!bias.empty()) fused.inputs.push_back(bias);
    fused.outputs = {ln.outputs[0]};
    SetAttrFloat(fused, "epsilon", AttrFloat(ln, "epsilon", 1e-5f));
    graph.nodes[static_cast<size_t>(i)] = std::move(fused);  // the Adds are left to dead-code elimination
    return true;
  });
}

}  // namespace onyx::optimizer
