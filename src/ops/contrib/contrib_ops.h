// Registration functions of the com.microsoft operator family (ONNX Runtime's contrib operators, semantics as
// its docs/ContribOperators.md and CPU kernels define them) and the helpers its files share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ops/contrib/sdpa.h"

namespace onyx {
class KernelContext;
class KernelRegistry;
}

namespace onyx::ops::contrib {

inline constexpr const char* kMsDomain = "com.microsoft";

void RegisterAttentionOps(KernelRegistry& registry);            // attention.cc: Attention
void RegisterQAttentionOps(KernelRegistry& registry);           // qattention.cc: QAttention
void RegisterQEmbedLayerNormOps(KernelRegistry& registry);      // qembed_layer_norm.cc: QEmbedLayerNormalization
void RegisterMultiHeadAttentionOps(KernelRegistry& registry);   // multihead_attention.cc: MultiHeadAttention
void RegisterGroupQueryAttentionOps(KernelRegistry& registry);  // group_query_attention.cc: GroupQueryAttention
void RegisterFusedAttentionOps(KernelRegistry& registry);       // fused_attention.cc: ai.onyx.internal.FusedAttention
void RegisterNormalizationOps(KernelRegistry& registry);        // normalization.cc: Skip(Simplified)LayerNormalization,
                                                                // SimplifiedLayerNormalization, EmbedLayerNormalization
void RegisterActivationOps(KernelRegistry& registry);           // activations.cc: FastGelu, BiasGelu, QuickGelu, Gelu
void RegisterRotaryEmbeddingOps(KernelRegistry& registry);      // rotary_embedding.cc: RotaryEmbedding
void RegisterMatMulNBitsOps(KernelRegistry& registry);          // matmul_nbits.cc: MatMulNBits
void RegisterFusedMatMulOps(KernelRegistry& registry);          // fused_matmul.cc: FusedMatMul

// "input 'x' (0) has shape [2, 3]" for error messages.
std::string DescribeInput(const char* name, int index, const Tensor& t);

// Fails unless the tensor is float32 (the element type the CPU kernels of this family implement).
Status RequireFloat(const char* name, int index, const Tensor& t);

// Rotates one head vector in place by the angle table row of `pos`: rotary_dim = 2 * half, cos/sin rows of `half`
// values. Interleaved: pairs (x[2i], x[2i+1]); otherwise halves (x[i], x[i + half]).
void ApplyRotary(float* x, const float* cos_row, const float* sin_row, int64_t half, bool interleaved);

// ORT's attention masks (mask_index / key_padding_mask) as additive values in [batch, q_len, total_len]:
// 0 where visible, `filter` where hidden; forms: [B] end lengths, [2B] end and start, [B, T] 0/1, [B, S, T] 0/1
// (not the 4-D GPT-2 form, which ORT's CPU kernel rejects too), merged with the causal mask when `causal`. Empty
// when there is nothing to mask.
// `name`/`index` name the mask input in errors.
Result<std::vector<float>> BuildAttentionMask(const Tensor* mask, const char* name, int index, int64_t batch,
                                              int64_t q_len, int64_t total_len, int64_t past_len, bool causal,
                                              float filter);

// The additive bias of every (b, h, i) row of an attention: a converted mask ([B, S, T], may be empty) plus
// attention_bias (B or 1, N or 1, S, T; may be null), summed into *storage when both are given. (attention.cc)
Result<StridedRows> CombineBias(const std::vector<float>& mask, const Tensor* attn_bias, int64_t batch, int64_t heads,
                                int64_t q_len, int64_t total, std::vector<float>* storage);

// What Attention and MultiHeadAttention do once their present keys and values are built: the mask (in ORT's forms,
// BuildAttentionMask) and attention_bias combined into one additive bias, then one attention of `q` over the present
// caches ([batch, heads, total, size]) into output 0, [batch, q_len, heads * v_head_size]. (attention.cc)
struct AttentionOverPresent {
  const Tensor* mask = nullptr;  // may be null
  const char* mask_name = "";    // the mask input's name and index, for errors
  int mask_index = 0;
  const Tensor* attn_bias = nullptr;  // may be null
  int64_t batch = 0, heads = 0, q_len = 0, past_len = 0, head_size = 0, v_head_size = 0;
  bool causal = false;
  float mask_filter = -10000.0f;
  float scale = 0.0f;  // 0: 1 / sqrt(head_size)
  StridedRows q;
  const Tensor* present_k = nullptr;
  const Tensor* present_v = nullptr;
};
Status AttendOverPresent(const AttentionOverPresent& a, KernelContext& ctx);

// The rest of an Attention node (com.microsoft Attention, QAttention) from its projection: qkv [batch * seq,
// dq + dk + dv] (bias included), split into heads; `past` (2, B, N, P, H) prepended to K and V; output 0 the
// attention, output 1 (when the node has it) `present`. (attention.cc)
struct AttentionFromQkv {
  const float* qkv = nullptr;
  int64_t batch = 0, seq = 0, heads = 0, dq = 0, dk = 0, dv = 0;
  const Tensor* mask = nullptr;  // mask_index, may be null
  int mask_index = 3;
  const Tensor* past = nullptr;  // may be null
  int past_index = 4;
  const Tensor* attn_bias = nullptr;  // may be null
  bool causal = false;                // unidirectional
  float mask_filter = -10000.0f;
  float scale = 0.0f;  // 0: 1 / sqrt(head_size)
};
Status AttendFromQkv(const AttentionFromQkv& a, KernelContext& ctx);

}  // namespace onyx::ops::contrib
