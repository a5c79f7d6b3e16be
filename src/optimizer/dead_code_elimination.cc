// Dead-code elimination: nodes none of whose outputs is read (by a node, a subgraph or a graph output) and
// initializers nothing reads go. Rewrites leave their replaced nodes to this pass.
#include "ir/graph_edit.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {

Result<int> RunDeadCodeElimination(ir::Graph& graph, const PassContext& /*ctx*/) {
  const size_t initializers_before = graph.initializers.size();
  const int nodes = ir::RemoveDeadNodes(graph);
  // Dropped initializers count as rewrites too, so that the driver's rounds see the change.
  return nodes + static_cast<int>(initializers_before - graph.initializers.size());
}

}  // namespace onyx::optimizer
