// Gelu: the exact-erf form exporters write, x * 0.5 * (1 + erf(x / sqrt(2))), as Div(x, sqrt2) (or Mul by
// 1/sqrt2), Erf, Add 1, and two Muls in any of their orders, becomes one Gelu (ONNX opset 20; before that onyx's
// private ai.onyx.internal.Gelu, the same kernel). Every intermediate must have no other reader.
#include <cmath>

#include "ir/gradient.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// Constants as exporters round them to float (sqrt(2) and its inverse among them).
bool IsNear(const Tensor* t, double target) { return IsScalarNear(t, target, 1e-5); }

// The other input of a two-input node, given one of them (nullopt when `one` is not an input).
std::optional<std::string> OtherInput(const ir::Node& n, const std::string& one) {
  if (n.inputs.size() != 2) return std::nullopt;
  if (n.inputs[0] == one) return n.inputs[1];
  if (n.inputs[1] == one) return n.inputs[0];
  return std::nullopt;
}

// If `a` is 1 + erf(x / sqrt2) (each step read only by the next), returns x.
std::optional<std::string> ErfPart(const GraphIndex& index, const std::string& a) {
  const ir::Node* add = index.ProducerOp(a, "Add");
  if (add == nullptr || add->inputs.size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const std::string& e = add->inputs[static_cast<size_t>(side)];
    if (!IsNear(index.Constant(add->inputs[static_cast<size_t>(1 - side)]), 1.0)) continue;
    const ir::Node* erf = index.ProducerOp(e, "Erf");
    if (erf == nullptr || erf->inputs.size() != 1 || !index.HasSingleReader(e)) continue;
    const std::string& d = erf->inputs[0];
    if (!index.HasSingleReader(d)) continue;
    const ir::Node* div = index.ProducerOp(d, "Div");
    if (div != nullptr && div->inputs.size() == 2 && IsNear(index.Constant(div->inputs[1]), std::sqrt(2.0))) {
      return div->inputs[0];
    }
    const ir::Node* mul = index.ProducerOp(d, "Mul");
    if (mul != nullptr && mul->inputs.size() == 2) {
      for (int k = 0; k < 2; ++k) {
        if (IsNear(index.Constant(mul->inputs[static_cast<size_t>(1 - k)]), std::sqrt(0.5))) {
          return mul->inputs[static_cast<size_t>(k)];
        }
      }
    }
  }
  return std::nullopt;
}

// If `v` is Mul(w, 0.5) (read only by the final Mul), returns w.
std::optional<std::string> HalfOf(const GraphIndex& index, const std::string& v) {
  const ir::Node* mul = index.ProducerOp(v, "Mul");
  if (mul == nullptr || mul->inputs.size() != 2 || !index.HasSingleReader(v)) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    if (IsNear(index.Constant(mul->inputs[static_cast<size_t>(1 - k)]), 0.5))
      return mul->inputs[static_cast<size_t>(k)];
  }
  return std::nullopt;
}

// If the final Mul `y` computes gelu(x), returns x.
std::optional<std::string> MatchGelu(const GraphIndex& index, const ir::Node& y) {
  if (y.inputs.size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const std::string& u = y.inputs[static_cast<size_t>(side)];
    const std::string& v = y.inputs[static_cast<size_t>(1 - side)];
    // (x * (1 + erf)) * 0.5
    if (IsNear(index.Constant(v), 0.5)) {
      const ir::Node* m = index.ProducerOp(u, "Mul");
      if (m == nullptr || !index.HasSingleReader(u) || m->inputs.size() != 2) continue;
      for (int k = 0; k < 2; ++k) {
        const std::string& a = m->inputs[static_cast<size_t>(k)];
        auto x = ErfPart(index, a);
        if (x && index.HasSingleReader(a) && OtherInput(*m, a) == x) return x;
      }
      continue;
    }
    // (x * 0.5) * (1 + erf)  and  x * ((1 + erf) * 0.5)
    if (auto x = ErfPart(index, u); x && index.HasSingleReader(u)) {
      if (HalfOf(index, v) == x) return x;
    }
    if (auto a = HalfOf(index, u); a && index.HasSingleReader(*a)) {
      if (auto x = ErfPart(index, *a); x && v == *x) return x;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<int> RunFuseGelu(ir::Graph& graph, const PassContext& ctx) {
  const bool standard = ctx.model.OpsetVersion("").value_or(0) >= 20;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& y = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(y, "Mul") || y.outputs.size() != 1) return false;
    auto x = MatchGelu(index, y);
    if (!x) return false;
    auto type = index.ElemType(*x);
    if (type && !IsFloatingPoint(*type)) return false;
    ir::Node gelu;
    gelu.name = y.name;
    gelu.op_type = "Gelu";
    gelu.domain = standard ? "" : ir::kInternalDomain;
    gelu.inputs = {*x};
    gelu.outputs = {y.outputs[0]};
    graph.nodes[static_cast<size_t>(i)] =
        std::move(gelu);  // the pattern's other nodes are left to dead-code elimination
    return true;
  });
}

}  // namespace onyx::optimizer
