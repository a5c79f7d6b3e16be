// com.microsoft MultiHeadAttention: attention over already projected Q, K, V. Layouts (as ORT's CPU kernel):
// query (B, S, D) with key/value (B, L, D)/(B, L, Dv) or already split per head (B, N, L, H) (cross attention,
// no bias added to them); the packed QKV/KV forms are rejected, as ORT's CPU kernel does. bias (D + D + Dv) is
// added to Q, K, V; key_padding_mask in the mask_index forms hides keys by adding mask_filter_value, as does
// `unidirectional`; attention_bias is added; past_key/past_value (B, N, P, H) are extended into
// present_key/present_value.
#include <cmath>
#include <string>
#include <vector>

#include "ops/contrib/contrib_ops.h"
#include "ops/contrib/kv_cache.h"
#include "ops/contrib/sdpa.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

class MultiHeadAttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(num_heads_, info.GetRequiredInt("num_heads"));
    if (num_heads_ <= 0) return info.Error("attribute 'num_heads' must be positive");
    unidirectional_ = info.GetInt("unidirectional", 0) != 0;
    scale_ = info.GetFloat("scale", 0.0f);
    filter_ = info.GetFloat("mask_filter_value", -10000.0f);
    if (info.has_input(8) || info.has_input(9)) {
      return info.UnsupportedError("inputs 'past_sequence_length'/'cache_indirection' are not implemented");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* query, ctx.TensorInput(0));
    ONYX_RETURN_IF_ERROR(RequireFloat("query", 0, *query));
    const Tensor* key = ctx.has_input(1) ? &ctx.input(1) : nullptr;
    const Tensor* value = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* mask = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    const Tensor* attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    const Tensor* past_key = ctx.has_input(6) ? &ctx.input(6) : nullptr;
    const Tensor* past_value = ctx.has_input(7) ? &ctx.input(7) : nullptr;
    for (const auto& [t, name, i] : {std::tuple{key, "key", 1},
                                     {value, "value", 2},
                                     {bias, "bias", 3},
                                     {past_key, "past_key", 6},
                                     {past_value, "past_value", 7}}) {
      if (t != nullptr) ONYX_RETURN_IF_ERROR(RequireFloat(name, i, *t));
    }
    if ((past_key == nullptr) != (past_value == nullptr)) {
      return InvalidArgument("past_key and past_value must be given together");
    }
    const int64_t n = num_heads_;
    const int64_t batch = query->rank() >= 1 ? query->dim(0) : 0, seq = query->rank() >= 2 ? query->dim(1) : 0;
    int64_t hs = 0, vhs = 0, kv_len = 0;
    StridedRows q, k_new, v_new;
    bool kv_split = false;  // key/value given per head (B, N, L, H): no bias, no cache
    if (query->rank() == 5 || (key != nullptr && key->rank() == 5)) {
      // ORT's CPU kernel has no packed QKV / packed KV path either.
      return Unsupported("packed QKV (B, S, N, 3, H) and packed KV (B, L, N, 2, H) inputs are not implemented");
    }
    if (query->rank() == 3 && key != nullptr) {
      if (query->dim(2) % n != 0) {
        return InvalidArgument(DescribeInput("query", 0, *query) + ", hidden size not divisible by num_heads " +
                               std::to_string(n));
      }
      hs = query->dim(2) / n;
      q = {query->data<float>(), seq * n * hs, hs, n * hs};
      if (value != nullptr && key->rank() == 3 && value->rank() == 3 && key->dim(0) == batch &&
          value->dim(0) == batch && key->dim(1) == value->dim(1) && key->dim(2) == n * hs && value->dim(2) % n == 0) {
        kv_len = key->dim(1);
        vhs = value->dim(2) / n;
        k_new = {key->data<float>(), kv_len * n * hs, hs, n * hs};
        v_new = {value->data<float>(), kv_len * n * vhs, vhs, n * vhs};
      } else if (value != nullptr && key->rank() == 4 && value->rank() == 4 && key->dim(0) == batch &&
                 key->dim(1) == n && key->dim(3) == hs && value->dim(0) == batch && value->dim(1) == n &&
                 value->dim(2) == key->dim(2)) {
        kv_split = true;
        kv_len = key->dim(2);
        vhs = value->dim(3);
        k_new = BnshRows(key->data<float>(), n, kv_len, hs);
        v_new = BnshRows(value->data<float>(), n, kv_len, vhs);
      } else {
        return InvalidArgument("inputs 'key' " + ShapeToString(key->shape()) + " and 'value' " +
                               (value ? ShapeToString(value->shape()) : std::string("(absent)")) +
                               " match neither (B, L, D) nor (B, N, L, H) for query " + ShapeToString(query->shape()));
      }
    } else {
      return InvalidArgument(DescribeInput("query", 0, *query) + ", expected (B, S, D) with key and value");
    }
    const int64_t dv = n * vhs;
    std::vector<float> q_biased;
    if (bias != nullptr) {
      if (bias->size() != 2 * n * hs + dv) {
        return InvalidArgument(DescribeInput("bias", 3, *bias) + ", expected [" + std::to_string(2 * n * hs + dv) +
                               "]");
      }
      // Q + bias, as (B, S, N, H).
      const float* qb = bias->data<float>();
      q_biased.resize(static_cast<size_t>(batch * seq * n * hs));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t h = 0; h < n; ++h) {
          for (int64_t s = 0; s < seq; ++s) {
            const float* src = q.Row(b, h, s);
            float* dst = q_biased.data() + ((b * seq + s) * n + h) * hs;
            for (int64_t e = 0; e < hs; ++e) dst[e] = src[e] + qb[h * hs + e];
          }
        }
      }
      q = {q_biased.data(), seq * n * hs, hs, n * hs};
    }
    const float* k_bias = bias != nullptr && !kv_split ? bias->data<float>() + n * hs : nullptr;
    const float* v_bias = bias != nullptr && !kv_split ? bias->data<float>() + 2 * n * hs : nullptr;

    int64_t past_len = 0;
    if (past_key != nullptr) {
      if (kv_split)
        return InvalidArgument("past_key/past_value cannot be combined with per-head (B, N, L, H) key/value");
      if (past_key->rank() != 4 || past_key->dim(0) != batch || past_key->dim(1) != n || past_key->dim(3) != hs ||
          past_value->rank() != 4 || past_value->dim(0) != batch || past_value->dim(1) != n ||
          past_value->dim(2) != past_key->dim(2) || past_value->dim(3) != vhs) {
        return InvalidArgument(DescribeInput("past_key", 6, *past_key) + " and past_value " +
                               ShapeToString(past_value->shape()) + ", expected (" + std::to_string(batch) + ", " +
                               std::to_string(n) + ", P, head size)");
      }
      past_len = past_key->dim(2);
    }
    Tensor present_k =
        BuildPresent(past_key ? past_key->data<float>() : nullptr, k_new, k_bias, batch, n, past_len, kv_len, hs);
    Tensor present_v =
        BuildPresent(past_value ? past_value->data<float>() : nullptr, v_new, v_bias, batch, n, past_len, kv_len, vhs);

    AttentionOverPresent a;
    a.mask = mask;
    a.mask_name = "key_padding_mask";
    a.mask_index = 4;
    a.attn_bias = attn_bias;
    a.batch = batch;
    a.heads = n;
    a.q_len = seq;
    a.past_len = past_len;
    a.head_size = hs;
    a.v_head_size = vhs;
    a.causal = unidirectional_ && seq > 1;
    a.mask_filter = filter_;
    a.scale = scale_;
    a.q = q;
    a.present_k = &present_k;
    a.present_v = &present_v;
    ONYX_RETURN_IF_ERROR(AttendOverPresent(a, ctx));
    if (ctx.num_outputs() > 1) ctx.SetOutput(1, Value(std::move(present_k)));
    if (ctx.num_outputs() > 2) ctx.SetOutput(2, Value(std::move(present_v)));
    return Status::Ok();
  }

 private:
  int64_t num_heads_ = 0;
  bool unidirectional_ = false;
  float scale_ = 0.0f;
  float filter_ = -10000.0f;
};

}  // namespace

void RegisterMultiHeadAttentionOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "MultiHeadAttention", 1, kLatestVersion, MakeFactory<MultiHeadAttentionKernel>());
}

}  // namespace onyx::ops::contrib
