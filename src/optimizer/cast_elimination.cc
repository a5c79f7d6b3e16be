// Cast elimination: a Cast to the type its input already has is bypassed. Only types the graph guarantees count
// (GraphIndex::ElemType), never the unchecked value_info annotations. One index for the whole pass (the types do not
// change by dropping such Casts) and one renaming walk at the end: rebuilding the index after each Cast took a second
// on a Swin export's 200 shape-computation Casts. A Cast writing a graph output keeps its name through
// RedirectValue, one at a time (rare).
#include <unordered_map>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

bool IsNoOpCast(const GraphIndex& index, const ir::Node& n) {
  if (!IsOnnxOp(n, "Cast") || n.inputs.size() != 1 || n.outputs.size() != 1 || n.inputs[0].empty()) return false;
  const ir::Attribute* to = n.FindAttribute("to");
  if (to == nullptr || to->type != ir::AttrType::kInt) return false;
  auto from_type = index.ElemType(n.inputs[0]);
  return from_type && static_cast<int64_t>(*from_type) == to->i;
}

}  // namespace

Result<int> RunEliminateCast(ir::Graph& graph, const PassContext& ctx) {
  int removed = 0;
  {
    const GraphIndex index(graph, ctx);
    std::unordered_map<std::string, std::string> renames;
    std::vector<bool> erased(graph.nodes.size(), false);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& n = graph.nodes[i];
      if (index.IsGraphOutput(n.outputs.empty() ? std::string() : n.outputs[0]) || !IsNoOpCast(index, n)) continue;
      renames[n.outputs[0]] = n.inputs[0];
      erased[i] = true;
      ++removed;
    }
    if (removed > 0) EraseNodesAndRename(graph, erased, std::move(renames));  // Cast(Cast(x)) chains resolved
  }
  // Casts that write a graph output.
  ONYX_ASSIGN_OR_RETURN(int outputs, RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
                          const ir::Node& n = graph.nodes[static_cast<size_t>(i)];
                          if (!IsNoOpCast(index, n) || !index.IsGraphOutput(n.outputs[0])) return false;
                          const std::string in = n.inputs[0], out = n.outputs[0];
                          if (!RedirectValue(graph, index, out, in)) return false;
                          EraseNodes(graph, {i});
                          return true;
                        }));
  return removed + outputs;
}

}  // namespace onyx::optimizer
