// Which values of a graph are constant for a whole session: one rule shared by the runtime (kernels prepack such
// inputs, KernelInfo::ConstantInput) and the blocked-layout pass (which reorders convolution weights once).
#pragma once

#include <string>
#include <unordered_map>

#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::ir {

// Initializers that are not also graph inputs (no feed can override them), outputs of Constant nodes holding a
// tensor, and outputs of Identity nodes reading either (PyTorch shares equal weights through Identity). The
// pointers point into `graph`, which must outlive the map and stay unmodified.
std::unordered_map<std::string, const Tensor*> SessionConstants(const Graph& graph);

}  // namespace onyx::ir
