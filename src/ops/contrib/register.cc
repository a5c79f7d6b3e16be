#include <cmath>

#include "ops/contrib/contrib_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

namespace contrib {

std::string DescribeInput(const char* name, int index, const Tensor& t) {
  return std::string("input '") + name + "' (" + std::to_string(index) + ") has shape " + ShapeToString(t.shape());
}

Status RequireFloat(const char* name, int index, const Tensor& t) {
  if (t.type() == DataType::kFloat) return Status::Ok();
  return Unsupported(std::string("input '") + name + "' (" + std::to_string(index) + ") has element type " +
                     std::string(DataTypeName(t.type())) + "; only float32 is implemented");
}

void ApplyRotary(float* x, const float* cos_row, const float* sin_row, int64_t half, bool interleaved) {
  for (int64_t i = 0; i < half; ++i) {
    float* a = interleaved ? x + 2 * i : x + i;
    float* b = interleaved ? x + 2 * i + 1 : x + i + half;
    const float x1 = *a;
    const float x2 = *b;
    *a = x1 * cos_row[i] - x2 * sin_row[i];
    *b = x2 * cos_row[i] + x1 * sin_row[i];
  }
}

Result<std::vector<float>> BuildAttentionMask(const Tensor* mask, const char* name, int index, int64_t batch,
                                              int64_t q_len, int64_t total_len, int64_t past_len, bool causal,
                                              float filter) {
  if (mask == nullptr && !causal) return std::vector<float>{};
  std::vector<float> out(static_cast<size_t>(batch * q_len * total_len), 0.0f);
  auto at = [&](int64_t b, int64_t i, int64_t j) -> float& {
    return out[static_cast<size_t>((b * q_len + i) * total_len + j)];
  };
  if (mask != nullptr) {
    if (mask->type() != DataType::kInt32) {
      return InvalidArgument(std::string("input '") + name + "' (" + std::to_string(index) + ") has element type " +
                             std::string(DataTypeName(mask->type())) + ", expected int32");
    }
    const int32_t* m = mask->data<int32_t>();
    const Shape& s = mask->shape();
    const std::string bad = DescribeInput(name, index, *mask) + ", expected [" + std::to_string(batch) + "], [" +
                            std::to_string(2 * batch) + "], [B, " + std::to_string(total_len) +
                            "] or [B, S, T] (ORT's CPU kernel has no 4-D form either)";
    if (s.size() == 1 && (s[0] == batch || s[0] == 2 * batch)) {
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t end = m[b];
        const int64_t start = s[0] == 2 * batch ? m[batch + b] : 0;
        for (int64_t i = 0; i < q_len; ++i) {
          for (int64_t j = 0; j < total_len; ++j) {
            if (j >= end || j < start) at(b, i, j) = filter;
          }
        }
      }
    } else if (s.size() == 2 && s[0] == batch && s[1] == total_len) {
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 0; i < q_len; ++i) {
          for (int64_t j = 0; j < total_len; ++j) {
            if (m[b * total_len + j] == 0) at(b, i, j) = filter;
          }
        }
      }
    } else if (s.size() == 3 && s[0] == batch && s[1] == q_len && s[2] == total_len) {
      for (int64_t k = 0; k < batch * q_len * total_len; ++k) {
        if (m[k] == 0) out[static_cast<size_t>(k)] = filter;
      }
    } else {
      return InvalidArgument(bad);
    }
  }
  if (causal) {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < q_len; ++i) {
        for (int64_t j = past_len + i + 1; j < total_len; ++j) at(b, i, j) = filter;
      }
    }
  }
  return out;
}

}  // namespace contrib

void RegisterContribOps(KernelRegistry& registry) {
  contrib::RegisterAttentionOps(registry);
  contrib::RegisterQAttentionOps(registry);
  contrib::RegisterQEmbedLayerNormOps(registry);
  contrib::RegisterMultiHeadAttentionOps(registry);
  contrib::RegisterGroupQueryAttentionOps(registry);
  contrib::RegisterFusedAttentionOps(registry);
  contrib::RegisterNormalizationOps(registry);
  contrib::RegisterActivationOps(registry);
  contrib::RegisterRotaryEmbeddingOps(registry);
  contrib::RegisterMatMulNBitsOps(registry);
  contrib::RegisterFusedMatMulOps(registry);
}

}  // namespace onyx::ops
