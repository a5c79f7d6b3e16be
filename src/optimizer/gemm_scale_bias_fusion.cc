// Gemm followed by Add or Mul of a constant: Add(Gemm(A, B, C), D) = Gemm(A, B, beta*C + D) with beta = 1, when D
// broadcasts along rows only ([N], [1, N], or one value); Mul(Gemm(A, B, C), s) with one value s = Gemm with
// alpha*s and beta*s. The Gemm output must have no other reader.
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// Shape of `t` as rank 2 (left-padded with 1s), or nullopt when its rank is above 2.
std::optional<std::pair<int64_t, int64_t>> As2D(const Tensor& t) {
  if (t.rank() > 2) return std::nullopt;
  if (t.rank() == 2) return std::make_pair(t.dim(0), t.dim(1));
  return std::make_pair(int64_t{1}, t.rank() == 1 ? t.dim(0) : int64_t{1});
}

// beta * C + D over the broadcast of their 2-D shapes, or nullopt when they do not broadcast.
std::optional<Tensor> CombineBias(const Tensor* c, double beta, const Tensor& d) {
  auto ds = As2D(d);
  auto cs = c != nullptr ? As2D(*c) : std::make_optional(std::make_pair(int64_t{1}, int64_t{1}));
  if (!ds || !cs) return std::nullopt;
  auto join = [](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (a == b || b == 1) return a;
    if (a == 1) return b;
    return std::nullopt;
  };
  auto rows = join(cs->first, ds->first), cols = join(cs->second, ds->second);
  if (!rows || !cols) return std::nullopt;
  std::vector<double> v(static_cast<size_t>(*rows * *cols));
  for (int64_t r = 0; r < *rows; ++r) {
    for (int64_t k = 0; k < *cols; ++k) {
      double x = d.DoubleAt((ds->first == 1 ? 0 : r) * ds->second + (ds->second == 1 ? 0 : k));
      if (c != nullptr) x += beta * c->DoubleAt((cs->first == 1 ? 0 : r) * cs->second + (cs->second == 1 ? 0 : k));
      v[static_cast<size_t>(r * *cols + k)] = x;
    }
  }
  Shape shape = (c != nullptr && c->rank() == 2) || d.rank() == 2 ? Shape{*rows, *cols} : Shape{*cols};
  return FloatTensor(d.type(), shape, v);
}

}  // namespace

Result<int> RunFuseGemmScaleBias(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& op = graph.nodes[static_cast<size_t>(i)];
    for (const ScaleOrBiasOf& match : MatchScaleOrBias(graph, index, i, "Gemm")) {
      const bool is_add = match.is_add;
      const Tensor* d = match.constant;
      const int p = match.producer;
      if (!IsFusableFloat(d->type())) continue;
      const ir::Node& gemm = graph.nodes[static_cast<size_t>(p)];
      if (NodeSinceVersion(ctx.model, gemm).value_or(0) < 7) continue;  // older Gemm needs broadcast=1 for C
      const bool has_c = gemm.inputs.size() > 2 && !gemm.inputs[2].empty();
      const Tensor* c = has_c ? index.Constant(gemm.inputs[2]) : nullptr;
      const double alpha = AttrFloat(gemm, "alpha", 1.0f), beta = AttrFloat(gemm, "beta", 1.0f);
      if (is_add) {
        if (has_c && c == nullptr) continue;
        auto ds = As2D(*d);
        if (!ds || ds->first != 1) continue;  // must not broadcast along (or add) rows
        if (ds->second != 1) {
          // D's columns must be Gemm's N, known from a constant B.
          const Tensor* b = index.Constant(gemm.inputs[1]);
          if (b == nullptr || b->rank() != 2) continue;
          const int64_t n = AttrInt(gemm, "transB", 0) != 0 ? b->dim(0) : b->dim(1);
          if (ds->second != n) continue;
        }
        auto bias = CombineBias(c, beta, *d);
        if (!bias) continue;
        const std::string out = op.outputs[0];
        const std::string c_name = AddInitializer(graph, out + "_bias", std::move(*bias));
        ir::Node& fused = graph.nodes[static_cast<size_t>(p)];
        fused.inputs.resize(3);
        fused.inputs[2] = c_name;
        SetAttrFloat(fused, "beta", 1.0f);
        fused.outputs[0] = out;
      } else {
        auto s = ScalarOf(d);
        if (!s || d->rank() > 2) continue;
        ir::Node& fused = graph.nodes[static_cast<size_t>(p)];
        SetAttrFloat(fused, "alpha", static_cast<float>(alpha * *s));
        if (has_c) SetAttrFloat(fused, "beta", static_cast<float>(beta * *s));
        fused.outputs[0] = op.outputs[0];
      }
      EraseNodes(graph, {i});
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
