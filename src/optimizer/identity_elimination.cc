// Identity elimination: Identity, and Dropout in inference (its output equals its input), are bypassed; their
// readers read the input directly. A graph output keeps its name (see RedirectValue); a Dropout whose mask is read
// stays.
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// Whether this Dropout passes its input through unchanged.
bool IsInferenceDropout(const ir::Node& n, const GraphIndex& index, const PassContext& ctx) {
  if (n.outputs.size() > 1 && !n.outputs[1].empty() &&
      (!index.Consumers(n.outputs[1]).empty() || index.IsGraphOutput(n.outputs[1]))) {
    return false;  // the mask is used
  }
  auto since = NodeSinceVersion(ctx.model, n);
  if (!since) return false;
  if (*since < 7) return AttrInt(n, "is_test", 0) != 0;  // before 7, is_test=0 meant training
  if (*since >= 12 && n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* training = index.Constant(n.inputs[2]);
    return training != nullptr && training->size() == 1 && training->type() == DataType::kBool &&
           training->data<bool>()[0] == false;
  }
  return true;
}

}  // namespace

Result<int> RunEliminateIdentity(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& n = graph.nodes[static_cast<size_t>(i)];
    const bool identity = IsOnnxOp(n, "Identity") && n.inputs.size() == 1 && n.outputs.size() == 1;
    const bool dropout =
        IsOnnxOp(n, "Dropout") && !n.inputs.empty() && !n.outputs.empty() && IsInferenceDropout(n, index, ctx);
    if (!identity && !dropout) return false;
    const std::string in = n.inputs[0], out = n.outputs[0];
    if (in.empty() || out.empty()) return false;
    if (!RedirectValue(graph, index, out, in)) return false;
    EraseNodes(graph, {i});
    return true;
  });
}

}  // namespace onyx::optimizer
