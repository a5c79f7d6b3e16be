// Cast elimination: a Cast to the type its input already has is bypassed. Only types the graph guarantees count
// (GraphIndex::ElemType), never the unchecked value_info annotations.
#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Result<int> RunEliminateCast(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& n = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(n, "Cast") || n.inputs.size() != 1 || n.outputs.size() != 1 || n.inputs[0].empty()) return false;
    const ir::Attribute* to = n.FindAttribute("to");
    if (to == nullptr || to->type != ir::AttrType::kInt) return false;
    auto from_type = index.ElemType(n.inputs[0]);
    if (!from_type || static_cast<int64_t>(*from_type) != to->i) return false;
    const std::string in = n.inputs[0], out = n.outputs[0];
    if (!RedirectValue(graph, index, out, in)) return false;
    EraseNodes(graph, {i});
    return true;
  });
}

}  // namespace onyx::optimizer
