// LayerNormalization: the decomposed form exporters write,
//   m = ReduceMean(x), d = Sub(x, m), v = ReduceMean(Pow(d, 2)) (or Mul(d, d)), n = Div(d, Sqrt(Add(v, eps))),
//   y = Add(Mul(n, gamma), beta),
// over the same trailing axes (negative, contiguous, keepdims) with constant gamma and beta, becomes one
// LayerNormalization (ONNX opset 17; before that onyx's private ai.onyx.internal.LayerNormalization, the same
// kernel). Every intermediate must have no reader outside the pattern.
#include <algorithm>
#include <cmath>

#include "ir/gradient.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// The reduced axes of a ReduceMean that keeps dimensions, when they are negative and contiguous up to -1
// ([-1], [-2, -1], ...), as the first normalized axis; nullopt otherwise.
std::optional<int64_t> TrailingAxis(const ir::Node& n, const GraphIndex& index, const PassContext& ctx) {
  if (AttrInt(n, "keepdims", 1) != 1) return std::nullopt;
  auto since = NodeSinceVersion(ctx.model, n);
  if (!since) return std::nullopt;
  std::optional<std::vector<int64_t>> axes;
  if (*since < 18) {
    if (n.inputs.size() != 1) return std::nullopt;
    axes = AttrInts(n, "axes");
  } else if (n.inputs.size() == 2) {
    const Tensor* t = index.Constant(n.inputs[1]);
    if (t != nullptr && t->type() == DataType::kInt64) axes = t->ToInt64Vector();
  }
  if (!axes || axes->empty()) return std::nullopt;
  std::sort(axes->begin(), axes->end());
  for (size_t k = 0; k < axes->size(); ++k) {
    if ((*axes)[k] != -static_cast<int64_t>(axes->size() - k)) return std::nullopt;
  }
  return (*axes)[0];
}

// A single-reader node of `op_type` producing `value` with one constant input; returns (node, other input).
std::optional<std::pair<const ir::Node*, std::string>> WithConstant(const GraphIndex& index, const std::string& value,
                                                                    std::string_view op_type, const Tensor** constant,
                                                                    bool constant_second_only = false) {
  const ir::Node* n = index.ProducerOp(value, op_type);
  if (n == nullptr || n->inputs.size() != 2 || !index.HasSingleReader(value)) return std::nullopt;
  for (int k = constant_second_only ? 1 : 0; k < 2; ++k) {
    const Tensor* c = index.Constant(n->inputs[static_cast<size_t>(k)]);
    if (c != nullptr) {
      *constant = c;
      return std::make_pair(n, n->inputs[static_cast<size_t>(1 - k)]);
    }
  }
  return std::nullopt;
}

struct LayerNormMatch {
  std::string x, gamma, beta;
  int64_t axis = -1;
  float epsilon = 1e-5f;
};

std::optional<LayerNormMatch> MatchLayerNorm(const GraphIndex& index, const ir::Node& y, const PassContext& ctx) {
  const Tensor* beta = nullptr;
  const Tensor* gamma = nullptr;
  const Tensor* eps = nullptr;
  if (y.inputs.size() != 2) return std::nullopt;
  // y = Add(scaled, beta)
  std::string scaled;
  for (int k = 0; k < 2 && !beta; ++k) {
    beta = index.Constant(y.inputs[static_cast<size_t>(k)]);
    scaled = y.inputs[static_cast<size_t>(1 - k)];
  }
  if (beta == nullptr) return std::nullopt;
  auto mul = WithConstant(index, scaled, "Mul", &gamma);
  if (!mul) return std::nullopt;
  const ir::Node* div = index.ProducerOp(mul->second, "Div");
  if (div == nullptr || div->inputs.size() != 2 || !index.HasSingleReader(mul->second)) return std::nullopt;
  const std::string& d = div->inputs[0];
  const std::string& s = div->inputs[1];
  const ir::Node* sqrt = index.ProducerOp(s, "Sqrt");
  if (sqrt == nullptr || sqrt->inputs.size() != 1 || !index.HasSingleReader(s)) return std::nullopt;
  auto add_eps = WithConstant(index, sqrt->inputs[0], "Add", &eps);
  if (!add_eps || !ScalarOf(eps)) return std::nullopt;
  const ir::Node* var = index.ProducerOp(add_eps->second, "ReduceMean");
  if (var == nullptr || var->inputs.empty() || !index.HasSingleReader(add_eps->second)) return std::nullopt;
  const std::string& sq = var->inputs[0];
  if (!index.HasSingleReader(sq)) return std::nullopt;
  const int sq_producer = index.Producer(sq);
  if (sq_producer < 0) return std::nullopt;
  const ir::Node& square = index.graph().nodes[static_cast<size_t>(sq_producer)];
  if (IsOnnxOp(square, "Pow") && square.inputs.size() == 2 && square.inputs[0] == d) {
    const Tensor* two = index.Constant(square.inputs[1]);
    if (two == nullptr || two->size() != 1 || two->DoubleAt(0) != 2.0) return std::nullopt;
  } else if (!(IsOnnxOp(square, "Mul") && square.inputs.size() == 2 && square.inputs[0] == d &&
               square.inputs[1] == d)) {
    return std::nullopt;
  }
  // d = Sub(x, mean), read by the square and the Div only.
  const ir::Node* sub = index.ProducerOp(d, "Sub");
  if (sub == nullptr || sub->inputs.size() != 2 || index.IsGraphOutput(d) || index.Consumers(d).size() != 2) {
    return std::nullopt;
  }
  const std::string& x = sub->inputs[0];
  const ir::Node* mean = index.ProducerOp(sub->inputs[1], "ReduceMean");
  if (mean == nullptr || mean->inputs.empty() || mean->inputs[0] != x || !index.HasSingleReader(sub->inputs[1])) {
    return std::nullopt;
  }
  auto axis = TrailingAxis(*mean, index, ctx);
  if (!axis || TrailingAxis(*var, index, ctx) != axis) return std::nullopt;
  // gamma and beta must vary along the normalized axes only.
  const int64_t normalized = -*axis;
  if (gamma->rank() > normalized || beta->rank() > normalized) return std::nullopt;
  if (!IsFloatingPoint(gamma->type()) || gamma->type() != beta->type()) return std::nullopt;
  LayerNormMatch m;
  m.x = x;
  m.gamma = mul->first->inputs[0] == mul->second ? mul->first->inputs[1] : mul->first->inputs[0];
  m.beta = y.inputs[0] == scaled ? y.inputs[1] : y.inputs[0];
  m.axis = *axis;
  m.epsilon = static_cast<float>(*ScalarOf(eps));
  return m;
}

}  // namespace

Result<int> RunFuseLayerNorm(ir::Graph& graph, const PassContext& ctx) {
  const bool standard = ctx.model.OpsetVersion("").value_or(0) >= 17;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& y = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(y, "Add") || y.outputs.size() != 1) return false;
    auto m = MatchLayerNorm(index, y, ctx);
    if (!m) return false;
    auto type = index.ElemType(m->x);
    if (type && !IsFloatingPoint(*type)) return false;
    ir::Node ln;
    ln.name = y.name;
    ln.op_type = "LayerNormalization";
    ln.domain = standard ? "" : ir::kInternalDomain;
    ln.inputs = {m->x, m->gamma, m->beta};
    ln.outputs = {y.outputs[0]};
    SetAttrInt(ln, "axis", m->axis);
    SetAttrFloat(ln, "epsilon", m->epsilon);
    graph.nodes[static_cast<size_t>(i)] = std::move(ln);  // the pattern's other nodes are left to dead-code elimination
    return true;
  });
}

}  // namespace onyx::optimizer
