// com.microsoft GroupQueryAttention: causal attention of num_heads query heads over kv_num_heads key/value heads
// (query head h reads kv head h / (num_heads / kv_num_heads)), with a key/value cache in (B, kv_N, P, H) and
// per-batch lengths: seqlens_k[b] + 1 keys are valid for batch b, the new tokens sit at the end of them (the first
// prompt, total_sequence_length == S, starts at 0). Hidden keys are left out of the softmax (not added a filter
// value), as ORT's CPU kernel does. do_rotary rotates Q and the new K by cos_cache/sin_cache at each token's
// position (position_ids when given); local_window_size limits how far back a query looks; softcap caps scores.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/contrib/contrib_ops.h"
#include "ops/contrib/kv_cache.h"
#include "ops/contrib/sdpa.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

class GroupQueryAttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(num_heads_, info.GetRequiredInt("num_heads"));
    ONYX_ASSIGN_OR_RETURN(kv_heads_, info.GetRequiredInt("kv_num_heads"));
    if (num_heads_ <= 0 || kv_heads_ <= 0 || num_heads_ % kv_heads_ != 0) {
      return info.Error("attributes 'num_heads' (" + std::to_string(num_heads_) + ") and 'kv_num_heads' (" +
                        std::to_string(kv_heads_) + ") must be positive, num_heads a multiple of kv_num_heads");
    }
    scale_ = info.GetFloat("scale", 0.0f);
    softcap_ = info.GetFloat("softcap", 0.0f);
    do_rotary_ = info.GetInt("do_rotary", 0) != 0;
    interleaved_ = info.GetInt("rotary_interleaved", 0) != 0;
    local_window_ = info.GetInt("local_window_size", -1);
    if (info.GetInt("smooth_softmax", 0) != 0) return info.UnsupportedError("smooth_softmax is not implemented");
    if (info.has_input(10) || info.has_input(11)) {
      return info.UnsupportedError("inputs 'attention_bias'/'head_sink' are not implemented");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* query, ctx.TensorInput(0));
    ONYX_RETURN_IF_ERROR(RequireFloat("query", 0, *query));
    const Tensor* key = ctx.has_input(1) ? &ctx.input(1) : nullptr;
    const Tensor* value = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor* past_key = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* past_value = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    ONYX_ASSIGN_OR_RETURN(const Tensor* seqlens, ctx.TensorInput(5));
    ONYX_ASSIGN_OR_RETURN(const Tensor* total_t, ctx.TensorInput(6));
    if (query->rank() != 3) return InvalidArgument(DescribeInput("query", 0, *query) + ", expected (B, S, D)");
    const int64_t batch = query->dim(0), seq = query->dim(1);
    const int64_t n = num_heads_, kvn = kv_heads_;
    int64_t hs = 0;
    StridedRows q, k_new, v_new;
    if (key == nullptr && value == nullptr) {  // packed (B, S, (N + 2 kvN) H)
      if (query->dim(2) % (n + 2 * kvn) != 0) {
        return InvalidArgument(DescribeInput("query", 0, *query) + ", a packed QKV width must be (num_heads + 2 * " +
                               "kv_num_heads) * head_size");
      }
      hs = query->dim(2) / (n + 2 * kvn);
      const int64_t w = query->dim(2);
      const float* d = query->data<float>();
      q = {d, seq * w, hs, w};
      k_new = {d + n * hs, seq * w, hs, w};
      v_new = {d + (n + kvn) * hs, seq * w, hs, w};
    } else {
      if (key == nullptr || value == nullptr) return InvalidArgument("key and value must be given together");
      ONYX_RETURN_IF_ERROR(RequireFloat("key", 1, *key));
      ONYX_RETURN_IF_ERROR(RequireFloat("value", 2, *value));
      if (query->dim(2) % n != 0) return InvalidArgument(DescribeInput("query", 0, *query) + ", D % num_heads != 0");
      hs = query->dim(2) / n;
      const Shape want = {batch, seq, kvn * hs};
      if (key->shape() != want || value->shape() != want) {
        return InvalidArgument("inputs 'key' " + ShapeToString(key->shape()) + " and 'value' " +
                               ShapeToString(value->shape()) + ", expected " + ShapeToString(want));
      }
      q = {query->data<float>(), seq * n * hs, hs, n * hs};
      k_new = {key->data<float>(), seq * kvn * hs, hs, kvn * hs};
      v_new = {value->data<float>(), seq * kvn * hs, hs, kvn * hs};
    }
    int64_t past_len = 0;
    if ((past_key == nullptr) != (past_value == nullptr)) {
      return InvalidArgument("past_key and past_value must be given together");
    }
    if (past_key != nullptr) {
      ONYX_RETURN_IF_ERROR(RequireFloat("past_key", 3, *past_key));
      ONYX_RETURN_IF_ERROR(RequireFloat("past_value", 4, *past_value));
      if (past_key->rank() != 4 || past_key->dim(0) != batch || past_key->dim(1) != kvn || past_key->dim(3) != hs ||
          past_value->shape() != past_key->shape()) {
        return InvalidArgument(DescribeInput("past_key", 3, *past_key) + ", expected (" + std::to_string(batch) + ", " +
                               std::to_string(kvn) + ", P, " + std::to_string(hs) + ") like past_value");
      }
      past_len = past_key->dim(2);
    }
    if (seqlens->type() != DataType::kInt32 || seqlens->size() != batch) {
      return InvalidArgument(DescribeInput("seqlens_k", 5, *seqlens) + ", expected int32 [" + std::to_string(batch) +
                             "]");
    }
    if (total_t->type() != DataType::kInt32 || total_t->size() != 1) {
      return InvalidArgument(DescribeInput("total_sequence_length", 6, *total_t) + ", expected one int32");
    }
    const int64_t total_seq = total_t->data<int32_t>()[0];
    const bool first_prompt = total_seq == seq;
    const int64_t present_len = std::max(past_len, total_seq);

    // Where each batch's new tokens go: after its past (seqlens_k + 1 - S), or at 0 for the first prompt.
    std::vector<int64_t> start(static_cast<size_t>(batch)), valid(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t total_b = static_cast<int64_t>(seqlens->data<int32_t>()[b]) + 1;
      start[static_cast<size_t>(b)] = first_prompt ? 0 : total_b - seq;
      valid[static_cast<size_t>(b)] = total_b;
      if (start[static_cast<size_t>(b)] < 0 || total_b > present_len || (!first_prompt && total_b - seq > past_len)) {
        return InvalidArgument("seqlens_k[" + std::to_string(b) + "] = " + std::to_string(total_b - 1) +
                               " does not fit sequence length " + std::to_string(seq) + ", past length " +
                               std::to_string(past_len) + " and total_sequence_length " + std::to_string(total_seq));
      }
    }

    // Q (and new K) rotated copies when do_rotary.
    std::vector<float> q_rot, k_rot;
    if (do_rotary_) {
      const Tensor* cos_t = ctx.has_input(7) ? &ctx.input(7) : nullptr;
      const Tensor* sin_t = ctx.has_input(8) ? &ctx.input(8) : nullptr;
      if (cos_t == nullptr || sin_t == nullptr) return InvalidArgument("do_rotary needs cos_cache and sin_cache");
      ONYX_RETURN_IF_ERROR(RequireFloat("cos_cache", 7, *cos_t));
      ONYX_RETURN_IF_ERROR(RequireFloat("sin_cache", 8, *sin_t));
      if (cos_t->rank() != 2 || sin_t->shape() != cos_t->shape() || 2 * cos_t->dim(1) > hs) {
        return InvalidArgument(DescribeInput("cos_cache", 7, *cos_t) + ", expected (max_position, rotary_dim / 2) " +
                               "like sin_cache with rotary_dim <= head size " + std::to_string(hs));
      }
      const Tensor* pos_ids = ctx.has_input(9) ? &ctx.input(9) : nullptr;
      const int64_t half = cos_t->dim(1), max_pos = cos_t->dim(0);
      auto position = [&](int64_t b, int64_t s) -> int64_t {
        if (pos_ids != nullptr) return pos_ids->IntAt(b * seq + s);
        return start[static_cast<size_t>(b)] + s;
      };
      auto rotate = [&](const StridedRows& src, int64_t heads, std::vector<float>* dst) -> Status {
        dst->resize(static_cast<size_t>(batch * seq * heads * hs));
        for (int64_t b = 0; b < batch; ++b) {
          for (int64_t s = 0; s < seq; ++s) {
            const int64_t pos = position(b, s);
            if (pos < 0 || pos >= max_pos) {
              return InvalidArgument("position " + std::to_string(pos) + " is outside cos_cache's " +
                                     std::to_string(max_pos) + " rows");
            }
            for (int64_t h = 0; h < heads; ++h) {
              float* d = dst->data() + ((b * seq + s) * heads + h) * hs;
              std::copy_n(src.Row(b, h, s), hs, d);
              ApplyRotary(d, cos_t->data<float>() + pos * half, sin_t->data<float>() + pos * half, half, interleaved_);
            }
          }
        }
        return Status::Ok();
      };
      ONYX_RETURN_IF_ERROR(rotate(q, n, &q_rot));
      ONYX_RETURN_IF_ERROR(rotate(k_new, kvn, &k_rot));
      q = {q_rot.data(), seq * n * hs, hs, n * hs};
      k_new = {k_rot.data(), seq * kvn * hs, hs, kvn * hs};
    }

    // present = past with the new rows written at each batch's start.
    Tensor present_k = Tensor::Allocate(DataType::kFloat, {batch, kvn, present_len, hs}, true);
    Tensor present_v = Tensor::Allocate(DataType::kFloat, {batch, kvn, present_len, hs}, true);
    for (auto [present, past, rows] :
         {std::tuple{&present_k, past_key, &k_new}, std::tuple{&present_v, past_value, &v_new}}) {
      float* dst = present->data<float>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t h = 0; h < kvn; ++h) {
          float* base = dst + (b * kvn + h) * present_len * hs;
          if (past != nullptr) {
            const float* src = past->data<float>() + (b * kvn + h) * past_len * hs;
            std::copy_n(src, std::min(past_len, start[static_cast<size_t>(b)]) * hs, base);
          }
          for (int64_t s = 0; s < seq; ++s) {
            std::copy_n(rows->Row(b, h, s), hs, base + (start[static_cast<size_t>(b)] + s) * hs);
          }
        }
      }
    }

    SdpaProblem p;
    p.batch = batch;
    p.q_heads = n;
    p.kv_heads = kvn;
    p.q_len = seq;
    p.kv_len = present_len;
    p.head_size = hs;
    p.v_head_size = hs;
    p.scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(hs));
    p.q = q;
    p.k = BnshRows(present_k.data<float>(), kvn, present_len, hs);
    p.v = BnshRows(present_v.data<float>(), kvn, present_len, hs);
    p.causal = true;
    p.causal_exclude = true;
    p.causal_offset = start;
    p.valid_len = valid;
    p.local_window = local_window_;
    p.softcap = softcap_;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {batch, seq, n * hs});
    p.out = MutableRows{y.data<float>(), seq * n * hs, hs, n * hs};
    RunSdpa(p);
    if (ctx.num_outputs() > 1) ctx.SetOutput(1, Value(std::move(present_k)));
    if (ctx.num_outputs() > 2) ctx.SetOutput(2, Value(std::move(present_v)));
    return Status::Ok();
  }

 private:
  int64_t num_heads_ = 0;
  int64_t kv_heads_ = 0;
  float scale_ = 0.0f;
  float softcap_ = 0.0f;
  bool do_rotary_ = false;
  bool interleaved_ = false;
  int64_t local_window_ = -1;
};

}  // namespace

void RegisterGroupQueryAttentionOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "GroupQueryAttention", 1, kLatestVersion, MakeFactory<GroupQueryAttentionKernel>());
}

}  // namespace onyx::ops::contrib
