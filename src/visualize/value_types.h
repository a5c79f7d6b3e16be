// The types of a model's values for labelling edges: from shape inference over a copy of the model, falling back
// to what the model declares (inputs, outputs, value_info, initializers) when inference fails.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/model.h"

namespace onyx::visualize {

// Value name -> "float[N,3,224,224]" style type, over the main graph and every subgraph. ONNX keeps names unique
// across nested scopes, so one map serves them all. Values whose type stays unknown are absent. Problems go to
// `warnings` (may be null); they never make the call fail.
std::unordered_map<std::string, std::string> CollectValueTypes(const ir::Model& model,
                                                               std::vector<std::string>* warnings);

}  // namespace onyx::visualize
