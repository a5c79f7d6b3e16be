// Building present key/value caches (batch, heads, past + new, head_size) from a past cache and new rows, shared by
// the com.microsoft attention kernels.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/contrib/sdpa.h"

namespace onyx::ops::contrib {

// (batch, heads, past_len + new_len, size): the past rows (contiguous [batch, heads, past_len, size], may be null
// when past_len is 0) followed by the new ones read through `rows`, plus `bias` (size values per head, may be null).
inline Tensor BuildPresent(const float* past, const StridedRows& rows, const float* bias, int64_t batch, int64_t heads,
                           int64_t past_len, int64_t new_len, int64_t size) {
  const int64_t total = past_len + new_len;
  Tensor out = Tensor::Allocate(DataType::kFloat, {batch, heads, total, size});
  float* dst = out.data<float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      float* base = dst + (b * heads + h) * total * size;
      if (past_len > 0) {
        const float* src = past + (b * heads + h) * past_len * size;
        std::copy(src, src + past_len * size, base);
      }
      for (int64_t s = 0; s < new_len; ++s) {
        const float* src = rows.Row(b, h, s);
        float* d = base + (past_len + s) * size;
        if (bias != nullptr) {
          for (int64_t e = 0; e < size; ++e) d[e] = src[e] + bias[h * size + e];
        } else {
          std::copy(src, src + size, d);
        }
      }
    }
  }
  return out;
}

// The rows of a contiguous (batch, heads, len, size) tensor.
inline StridedRows BnshRows(const float* data, int64_t heads, int64_t len, int64_t size) {
  return {data, heads * len * size, len * size, size};
}

}  // namespace onyx::ops::contrib
