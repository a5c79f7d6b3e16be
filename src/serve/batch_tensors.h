// Stacking requests' tensors along the first (batch) dim and splitting a batched output back, for the dynamic
// batcher. Pure functions over tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::serve {

// Whether two tensors can share a batch: same element type, rank >= 1 and equal dims after the first.
bool SameBatchShape(const Tensor& a, const Tensor& b);

// Concatenates `parts` (SameBatchShape with each other) along dim 0.
Result<Tensor> StackBatch(const std::vector<const Tensor*>& parts);

// The rows [begin, begin + count) of `batched` along dim 0, as a tensor of their own.
Result<Tensor> SliceBatch(const Tensor& batched, int64_t begin, int64_t count);

}  // namespace onyx::serve
