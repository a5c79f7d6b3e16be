// Transpose pairs: Transpose(Transpose(x, p1), p2) is one Transpose(x, p) with p[i] = p1[p2[i]], and disappears
// when p is the identity. The first Transpose stays while something else reads it (dead-code elimination takes
// it otherwise). Transposes without a `perm` (reverse the dimensions) need the rank and are left alone.
#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Result<int> RunFuseTransposePair(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    ir::Node& n = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(n, "Transpose") || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
    const ir::Node* first = index.ProducerOp(n.inputs[0], "Transpose");
    if (first == nullptr || first->inputs.size() != 1) return false;
    auto p1 = AttrInts(*first, "perm");
    auto p2 = AttrInts(n, "perm");
    if (!p1 || !p2 || p1->size() != p2->size()) return false;
    const size_t rank = p1->size();
    std::vector<int64_t> p(rank);
    bool identity = true;
    for (size_t k = 0; k < rank; ++k) {
      const int64_t j = (*p2)[k];
      if (j < 0 || static_cast<size_t>(j) >= rank) return false;
      p[k] = (*p1)[static_cast<size_t>(j)];
      if (p[k] < 0 || static_cast<size_t>(p[k]) >= rank) return false;
      identity = identity && p[k] == static_cast<int64_t>(k);
    }
    const std::string x = first->inputs[0];
    if (identity) {
      const std::string out = n.outputs[0];
      if (!RedirectValue(graph, index, out, x)) return false;
      EraseNodes(graph, {i});
      return true;
    }
    n.inputs[0] = x;
    SetAttrInts(n, "perm", std::move(p));
    return true;
  });
}

}  // namespace onyx::optimizer
