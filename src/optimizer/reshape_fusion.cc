// Reshape chains: a reshape-like node (Reshape, Squeeze, Unsqueeze, Flatten) feeding another is skipped where the
// second's result does not depend on the first's output shape:
//  - Reshape to a constant shape without 0 entries (or with allowzero=1) reads the first node's input directly;
//  - Unsqueeze(Unsqueeze(x)) and Squeeze(Squeeze(x)) with explicit non-negative axes become one node;
//  - Squeeze(Unsqueeze(x, a), a) is x.
// The first node stays while something else reads it (dead-code elimination takes it otherwise).
#include <algorithm>
#include <set>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// No tensor has this many dimensions.
constexpr int64_t kMaxAxis = 1024;

bool IsReshapeLike(const ir::Node& n) {
  return IsOnnxOp(n, "Reshape") || IsOnnxOp(n, "Squeeze") || IsOnnxOp(n, "Unsqueeze") || IsOnnxOp(n, "Flatten");
}

// Axes of a Squeeze/Unsqueeze (an attribute before opset 13, a constant input from 13), when all are given and
// non-negative.
std::optional<std::vector<int64_t>> AxesOf(const ir::Node& n, const GraphIndex& index, const PassContext& ctx) {
  auto since = NodeSinceVersion(ctx.model, n);
  if (!since) return std::nullopt;
  std::optional<std::vector<int64_t>> axes;
  if (*since < 13) {
    axes = AttrInts(n, "axes");
  } else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* t = index.Constant(n.inputs[1]);
    if (t != nullptr && t->type() == DataType::kInt64) axes = t->ToInt64Vector();
  }
  if (!axes || axes->empty()) return std::nullopt;
  for (int64_t a : *axes) {
    if (a < 0 || a > kMaxAxis) return std::nullopt;  // the bound keeps NthFree's walk short on hostile axes
  }
  std::set<int64_t> unique(axes->begin(), axes->end());
  if (unique.size() != axes->size()) return std::nullopt;
  return axes;
}

void SetAxes(ir::Graph& graph, ir::Node& n, std::vector<int64_t> axes, const PassContext& ctx) {
  std::sort(axes.begin(), axes.end());
  if (NodeSinceVersion(ctx.model, n).value_or(13) < 13) {
    SetAttrInts(n, "axes", std::move(axes));
    return;
  }
  const auto count = static_cast<int64_t>(axes.size());
  std::string name = AddInitializer(graph, n.outputs[0] + "_axes", Tensor::FromVector<int64_t>(axes, {count}));
  n.inputs.resize(2);
  n.inputs[1] = name;
}

// The position in the outer coordinates of the q-th position not in `taken` (outer coordinates).
int64_t NthFree(const std::set<int64_t>& taken, int64_t q) {
  for (int64_t p = 0;; ++p) {
    if (taken.count(p)) continue;
    if (q-- == 0) return p;
  }
}

}  // namespace

Result<int> RunFuseReshapeChain(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    ir::Node& n = graph.nodes[static_cast<size_t>(i)];
    if (!IsReshapeLike(n) || n.inputs.empty() || n.outputs.size() != 1) return false;
    const int p = index.Producer(n.inputs[0]);
    if (p < 0) return false;
    const ir::Node& first = graph.nodes[static_cast<size_t>(p)];
    if (!IsReshapeLike(first) || first.inputs.empty() || first.outputs.size() != 1) return false;
    const std::string x = first.inputs[0];

    if (IsOnnxOp(n, "Reshape")) {
      if (n.inputs.size() < 2) return false;
      const Tensor* shape = index.Constant(n.inputs[1]);
      if (shape == nullptr || shape->type() != DataType::kInt64) return false;
      auto dims = shape->ToInt64Vector();
      const bool copies_input_dims = std::find(dims.begin(), dims.end(), 0) != dims.end();
      if (copies_input_dims && AttrInt(n, "allowzero", 0) == 0) return false;
      n.inputs[0] = x;
      return true;
    }
    if (IsOnnxOp(n, "Flatten")) return false;  // its result depends on its input's shape
    auto a2 = AxesOf(n, index, ctx);
    auto a1 = AxesOf(first, index, ctx);
    if (!a1 || !a2) return false;
    if (IsOnnxOp(n, "Squeeze") && IsOnnxOp(first, "Unsqueeze")) {
      if (std::set<int64_t>(a1->begin(), a1->end()) != std::set<int64_t>(a2->begin(), a2->end())) return false;
      const std::string out = n.outputs[0];
      if (!RedirectValue(graph, index, out, x)) return false;
      EraseNodes(graph, {i});
      return true;
    }
    if (n.op_type != first.op_type) return false;
    std::vector<int64_t> merged;
    if (IsOnnxOp(n, "Unsqueeze")) {
      // a2 are final positions; a1 are positions among the final ones a2 leaves free.
      std::set<int64_t> taken(a2->begin(), a2->end());
      merged = *a2;
      for (int64_t q : *a1) merged.push_back(NthFree(taken, q));
    } else {
      // a1 are input positions; a2 are positions among the input ones a1 leaves.
      std::set<int64_t> taken(a1->begin(), a1->end());
      merged = *a1;
      for (int64_t q : *a2) merged.push_back(NthFree(taken, q));
    }
    n.inputs[0] = x;
    SetAxes(graph, n, std::move(merged), ctx);
    return true;
  });
}

}  // namespace onyx::optimizer
