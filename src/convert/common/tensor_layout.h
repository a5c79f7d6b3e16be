// Constant-tensor layout helpers for converters: transposing and reshaping weights at conversion time, so that
// the converted graph carries weights in the layout ONNX operators expect instead of run-time Transposes.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::convert {

// out[i...] = in[perm-permuted index]: the numpy `transpose(perm)` of a tensor of any fixed-width type.
Result<Tensor> TransposeTensor(const Tensor& in, const std::vector<int64_t>& perm);
// A float32 copy of a float tensor (float16/double/float32 in).
Result<Tensor> ToFloat32(const Tensor& in);
// The inverse permutation.
std::vector<int64_t> InversePerm(const std::vector<int64_t>& perm);
// Whether perm is 0, 1, 2, ...
bool IsIdentityPerm(const std::vector<int64_t>& perm);
// Channels-last to channels-first for a rank-r tensor: (0, r-1, 1, ..., r-2); and back.
std::vector<int64_t> ToChannelsFirst(int64_t rank);
std::vector<int64_t> ToChannelsLast(int64_t rank);

}  // namespace onyx::convert
