// What an optimization pass is: a function that rewrites one graph (the driver calls it on the main graph and on
// every subgraph) and returns how many rewrites it made. Passes are listed in pass_list.h.
#pragma once

#include "core/status.h"
#include "ir/model.h"
#include "optimizer/optimizer.h"

namespace onyx::optimizer {

struct PassContext {
  const ir::Model& model;  // opset imports; the graph being rewritten belongs to it
  const OptimizerOptions& options;
  bool is_main_graph = true;  // false inside If/Loop/Scan bodies (their inputs' declared types are not enforced)
  // Constant folding may fold a DequantizeLinear of constants that only convolutions read as weights or bias: set
  // once the rounds are over, when the QDQ groups that fuse have fused (optimizer.cc).
  bool fold_weight_dequantize = false;
};

using PassFn = Result<int> (*)(ir::Graph& graph, const PassContext& ctx);

}  // namespace onyx::optimizer
