// The scaled dot-product attention core shared by the com.microsoft attention operators (Attention,
// MultiHeadAttention, GroupQueryAttention) and the optimizer's fused attention (ai.onyx.internal.FusedAttention):
// per (batch, head), scores = scale * Q K^T + bias, softmax over the keys, times V. float32 only. The heads run in
// parallel, each head's two products through the shared sgemm (nn::Gemm) and its rows through
// kernels::SoftmaxRow.
#pragma once

#include <cstdint>
#include <vector>

namespace onyx::ops::contrib {

// A 4-D float array addressed as (batch, head, row, column) with the column contiguous; a stride of 0
// broadcasts. Lets Q/K/V be read straight out of packed (B, S, N, H), (B, N, S, H) or fused QKV buffers.
struct StridedRows {
  const float* data = nullptr;
  int64_t batch_stride = 0;
  int64_t head_stride = 0;
  int64_t row_stride = 0;
  const float* Row(int64_t b, int64_t h, int64_t r) const {
    return data + b * batch_stride + h * head_stride + r * row_stride;
  }
};

struct MutableRows {
  float* data = nullptr;
  int64_t batch_stride = 0;
  int64_t head_stride = 0;
  int64_t row_stride = 0;
  float* Row(int64_t b, int64_t h, int64_t r) const {
    return data + b * batch_stride + h * head_stride + r * row_stride;
  }
};

struct SdpaProblem {
  int64_t batch = 0;
  int64_t q_heads = 0;
  int64_t kv_heads = 0;  // query head h reads key/value head h / (q_heads / kv_heads)
  int64_t q_len = 0;
  int64_t kv_len = 0;  // keys/values visible (past + new)
  int64_t head_size = 0;
  int64_t v_head_size = 0;
  float scale = 1.0f;  // multiplies Q K^T
  // K as stored: (b, kv_head, key) rows of head_size, or transposed (b, kv_head, dim) rows of kv_len (torch's
  // MatMul(Q, K^T) reads a K^T tensor).
  bool k_transposed = false;
  StridedRows q, k, v;
  MutableRows out;
  // Additive bias with (b, q_head, q_row) strides and a contiguous key axis; data null: none.
  StridedRows bias;
  // Additive per-key bias per batch ([batch, kv_len] contiguous), e.g. a converted padding mask; empty: none.
  std::vector<float> key_bias;
  // Causal masking: key j is hidden from query row i when j > i + causal_offset[b] (offset = past length).
  bool causal = false;
  std::vector<int64_t> causal_offset;  // per batch
  // What a causally hidden key gets: added to its score (ORT's Attention/MHA mask_filter_value), or, when
  // `causal_exclude`, excluded from the softmax altogether (probability exactly 0).
  float causal_filter = -10000.0f;
  bool causal_exclude = false;
  // Keys at or past valid_len[b] are excluded (GQA's seqlens_k); empty: all kv_len keys valid.
  std::vector<int64_t> valid_len;
  // Keys before window_start(i) = i + causal_offset - (local_window - 1) are excluded when local_window > 0.
  int64_t local_window = -1;
  float softcap = 0.0f;  // > 0: scores become softcap * tanh(scores / softcap) before the bias
};

// Runs the problem; every pointer must cover the strided extents the dims imply.
void RunSdpa(const SdpaProblem& p);

}  // namespace onyx::ops::contrib
