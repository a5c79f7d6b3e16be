// HardSwish: x * relu6(x + 3) / 6 as exporters write it (PaddlePaddle, TF, PyTorch before opset 14):
// Add(x, 3) -> Clip(0, 6) -> Mul with x -> Div by 6 (or Mul by 1/6, the division before or after the product),
// and Mul(x, HardSigmoid(x) with alpha 1/6, beta 0.5). Becomes one HardSwish (ONNX opset 14; before that onyx's
// private ai.onyx.internal.HardSwish, the same kernel), which the blocked-layout pass fuses into convolutions.
// Every intermediate must have no other reader.
#include <cmath>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// Constants as exporters round them to float (1/6 among them).
bool IsNear(const Tensor* t, double target) { return IsScalarNear(t, target, 1e-6); }

// If `v` is relu6(x + 3) (each step read only by the next), returns x.
std::optional<std::string> Relu6OfPlus3(const GraphIndex& index, const std::string& v, int64_t opset) {
  const ir::Node* clip = index.ProducerOp(v, "Clip");
  if (clip == nullptr || clip->inputs.empty() || !index.HasSingleReader(v)) return std::nullopt;
  auto bounds = ConstantClipBounds(index, *clip, opset);
  if (!bounds || bounds->lo != 0.0 || bounds->hi != 6.0) return std::nullopt;
  const std::string& a = clip->inputs[0];
  const ir::Node* add = index.ProducerOp(a, "Add");
  if (add == nullptr || add->inputs.size() != 2 || !index.HasSingleReader(a)) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    if (IsNear(index.Constant(add->inputs[static_cast<size_t>(1 - k)]), 3.0))
      return add->inputs[static_cast<size_t>(k)];
  }
  return std::nullopt;
}

// If `v` is w / 6 or w * (1/6) (read only by its consumer), returns w.
std::optional<std::string> SixthOf(const GraphIndex& index, const std::string& v) {
  if (!index.HasSingleReader(v)) return std::nullopt;
  if (const ir::Node* div = index.ProducerOp(v, "Div"); div != nullptr && div->inputs.size() == 2) {
    if (IsNear(index.Constant(div->inputs[1]), 6.0)) return div->inputs[0];
  }
  if (const ir::Node* mul = index.ProducerOp(v, "Mul"); mul != nullptr && mul->inputs.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      if (IsNear(index.Constant(mul->inputs[static_cast<size_t>(1 - k)]), 1.0 / 6.0)) {
        return mul->inputs[static_cast<size_t>(k)];
      }
    }
  }
  return std::nullopt;
}

// If Mul node `m` is x * g(x) with g(x) = relu6(x + 3) / 6 or HardSigmoid(x; 1/6, 0.5), returns x.
std::optional<std::string> XTimesHardSigmoid(const GraphIndex& index, const ir::Node& m, int64_t opset) {
  if (m.inputs.size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const std::string& x = m.inputs[static_cast<size_t>(side)];
    const std::string& g = m.inputs[static_cast<size_t>(1 - side)];
    if (auto inner = SixthOf(index, g)) {
      if (Relu6OfPlus3(index, *inner, opset) == x) return x;
    }
    if (Relu6OfPlus3(index, g, opset) == x) continue;  // x * relu6(x + 3) without the division: not this form
    if (const ir::Node* hs = index.ProducerOp(g, "HardSigmoid");
        hs != nullptr && hs->inputs.size() == 1 && hs->inputs[0] == x && index.HasSingleReader(g)) {
      if (std::abs(AttrFloat(*hs, "alpha", 0.2f) - 1.0 / 6.0) <= 1e-6 && AttrFloat(*hs, "beta", 0.5f) == 0.5f) return x;
    }
  }
  return std::nullopt;
}

// If the final node `y` computes hardswish(x), returns x.
std::optional<std::string> MatchHardSwish(const GraphIndex& index, const ir::Node& y, int64_t opset) {
  if (IsOnnxOp(y, "Mul")) {
    if (auto x = XTimesHardSigmoid(index, y, opset)) return x;
  }
  // (x * relu6(x + 3)) / 6, or * (1/6)
  if (y.inputs.size() != 2 || !(IsOnnxOp(y, "Div") || IsOnnxOp(y, "Mul"))) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    if (IsOnnxOp(y, "Div") && side == 1) break;
    const std::string& p = y.inputs[static_cast<size_t>(side)];
    const Tensor* c = index.Constant(y.inputs[static_cast<size_t>(1 - side)]);
    if (!(IsOnnxOp(y, "Div") ? IsNear(c, 6.0) : IsNear(c, 1.0 / 6.0))) continue;
    const ir::Node* m = index.ProducerOp(p, "Mul");
    if (m == nullptr || m->inputs.size() != 2 || !index.HasSingleReader(p)) continue;
    for (int k = 0; k < 2; ++k) {
      const std::string& x = m->inputs[static_cast<size_t>(k)];
      if (Relu6OfPlus3(index, m->inputs[static_cast<size_t>(1 - k)], opset) == x) return x;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<int> RunFuseHardSwish(ir::Graph& graph, const PassContext& ctx) {
  const int64_t opset = ctx.model.OpsetVersion("").value_or(0);
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& y = graph.nodes[static_cast<size_t>(i)];
    if (y.outputs.size() != 1) return false;
    auto x = MatchHardSwish(index, y, opset);
    if (!x) return false;
    // The constants matched are float (ScalarOf), so x is too where its type is not known here.
    auto type = index.ElemType(*x);
    if (type && !IsFloatingPoint(*type)) return false;
    ir::Node hs;
    hs.name = y.name;
    hs.op_type = "HardSwish";
    hs.domain = opset >= 14 ? "" : ir::kInternalDomain;
    hs.inputs = {*x};
    hs.outputs = {y.outputs[0]};
    graph.nodes[static_cast<size_t>(i)] = std::move(hs);  // the pattern's other nodes are left to dead-code elimination
    return true;
  });
}

}  // namespace onyx::optimizer
