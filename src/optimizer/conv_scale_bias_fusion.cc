// Conv followed by Add or Mul of a per-channel (or single) constant: Add(Conv(X, W, B), C) = Conv(X, W, B + C)
// and Mul(Conv(X, W, B), C) = Conv(X, W * C, B * C), where C broadcasts as [1, M, 1, ...] (or holds one value).
// The Conv output must have no other reader. New weights are new initializers.
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// Per-channel values of C against a Conv output of rank `rank` with `m` channels, or nullopt when C broadcasts
// along anything else (or would enlarge the output).
std::optional<std::vector<double>> PerChannel(const Tensor& c, int64_t rank, int64_t m) {
  if (c.rank() > rank || !IsFloatingPoint(c.type())) return std::nullopt;
  Shape padded(static_cast<size_t>(rank - c.rank()), 1);
  padded.insert(padded.end(), c.shape().begin(), c.shape().end());
  for (int64_t d = 0; d < rank; ++d) {
    if (d != 1 && padded[static_cast<size_t>(d)] != 1) return std::nullopt;
  }
  const int64_t cm = padded[1];
  if (cm != 1 && cm != m) return std::nullopt;
  std::vector<double> v(static_cast<size_t>(m));
  for (int64_t k = 0; k < m; ++k) v[static_cast<size_t>(k)] = c.DoubleAt(cm == 1 ? 0 : k);
  return v;
}

}  // namespace

Result<int> RunFuseConvScaleBias(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    for (const ScaleOrBiasOf& match : MatchScaleOrBias(graph, index, i, "Conv")) {
      const bool is_add = match.is_add;
      const Tensor* c = match.constant;
      const int p = match.producer;
      const ir::Node& conv = graph.nodes[static_cast<size_t>(p)];
      const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
      const Tensor* w = index.Constant(conv.inputs[1]);
      const Tensor* b = has_bias ? index.Constant(conv.inputs[2]) : nullptr;
      if (w == nullptr || w->rank() < 3 || !IsFusableFloat(w->type()) || c->type() != w->type()) continue;
      const int64_t m = w->dim(0);
      if (has_bias && (b == nullptr || b->size() != m || b->type() != w->type())) continue;
      auto cv = PerChannel(*c, w->rank(), m);
      if (!cv) continue;
      std::vector<double> bias(static_cast<size_t>(m), 0.0);
      for (int64_t k = 0; k < m && b != nullptr; ++k) bias[static_cast<size_t>(k)] = b->DoubleAt(k);
      // AddInitializer below may move the initializers c and w point into: read them first.
      const DataType type = c->type();
      std::string w_name = conv.inputs[1];
      if (is_add) {
        for (int64_t k = 0; k < m; ++k) bias[static_cast<size_t>(k)] += (*cv)[static_cast<size_t>(k)];
      } else {
        for (int64_t k = 0; k < m; ++k) bias[static_cast<size_t>(k)] *= (*cv)[static_cast<size_t>(k)];
        w_name =
            AddInitializer(graph, w_name + "_scaled", FloatTensor(type, w->shape(), ScaledPerOutputChannel(*w, *cv)));
      }
      FoldIntoConv(graph, p, i, w_name, type, bias);
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
