// Static shapes for the passes whose conditions need them (SkipLayerNormalization's rank-3 activations, the kernel
// taps a dilated Conv's input size leaves unused): shape inference over a copy of the graph.
#pragma once

#include <optional>
#include <string>

#include "infer/shape_inference.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {

// The types of `graph`'s values as shape inference finds them: lenient (a node it cannot infer leaves its outputs
// unknown), on a copy (the graph's value_info stays as it was), with the fusions' own domains imported as the
// optimizer imports them once it finishes (optimizer.cc). nullopt where inference fails.
std::optional<infer::GraphTypes> InferOnCopy(const ir::Graph& graph, const PassContext& ctx);

// The inferred type of value `name`, or null where inference does not know it.
const ir::TypeInfo* FindType(const infer::GraphTypes& types, const std::string& name);

}  // namespace onyx::optimizer
