// Replaces calls of model-local functions (ModelProto.functions) by the functions' bodies, so the runtime only
// sees built-in operators.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::ir {

// Expands every node that calls one of model.functions, in the main graph and in subgraphs, repeatedly (calls
// inside function bodies too, up to a nesting depth that catches recursion).
Status InlineModelFunctions(Model& model);

}  // namespace onyx::ir
