// Conv + BatchNormalization (inference) folding: BN(Conv(X, W, B)) = Conv(X, W', B') with, per output channel m,
// s = scale / sqrt(var + epsilon), W'[m] = W[m] * s, B'[m] = (B[m] - mean) * s + bias. New weights are new
// initializers (W may be shared with other nodes); computed in double, rounded once to W's type.
#include <cmath>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Result<int> RunFuseConvBatchNorm(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& bn = graph.nodes[static_cast<size_t>(i)];
    auto stats = InferenceBatchNormParams(index, ctx.model, bn);
    if (!stats) return false;
    const int p = index.Producer(bn.inputs[0]);
    if (p < 0 || !index.HasSingleReader(bn.inputs[0])) return false;
    const ir::Node& conv = graph.nodes[static_cast<size_t>(p)];
    if (!IsOnnxOp(conv, "Conv") || conv.inputs.size() < 2 || conv.outputs.size() != 1) return false;
    const Tensor* w = index.Constant(conv.inputs[1]);
    if (w == nullptr || w->rank() < 3 || !IsFusableFloat(w->type())) return false;
    const int64_t m = w->dim(0);
    const Tensor* b = conv.inputs.size() > 2 && !conv.inputs[2].empty() ? index.Constant(conv.inputs[2]) : nullptr;
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty() && (b == nullptr || b->size() != m || b->type() != w->type()))
      return false;
    const auto& params = *stats;
    if (params[0]->size() != m) return false;
    const double eps = AttrFloat(bn, "epsilon", 1e-5f);
    std::vector<double> s(static_cast<size_t>(m)), bias(static_cast<size_t>(m));
    for (int64_t c = 0; c < m; ++c) {
      s[static_cast<size_t>(c)] = params[0]->DoubleAt(c) / std::sqrt(params[3]->DoubleAt(c) + eps);
      const double b0 = b != nullptr ? b->DoubleAt(c) : 0.0;
      bias[static_cast<size_t>(c)] = (b0 - params[2]->DoubleAt(c)) * s[static_cast<size_t>(c)] + params[1]->DoubleAt(c);
    }
    const DataType type = w->type();
    const std::string w_name =
        AddInitializer(graph, conv.inputs[1] + "_bn", FloatTensor(type, w->shape(), ScaledPerOutputChannel(*w, s)));
    FoldIntoConv(graph, p, i, w_name, type, bias);
    return true;
  });
}

}  // namespace onyx::optimizer
