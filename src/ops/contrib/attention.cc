// com.microsoft Attention: the BERT/GPT-2 self-attention block of ONNX Runtime's transformer optimizer. One
// product input x weights (+ bias) gives Q, K, V (qkv_hidden_sizes, default three equal parts); the mask_index
// forms and the unidirectional (causal) mask hide keys by adding mask_filter_value (default -10000) to their
// scores, as ORT's CPU kernel does; attention_bias (B or 1, N or 1, S, T) is added too. `past` (2, B, N, P, H)
// and `present` (2, B, N, P + S, H) carry the key/value cache.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ops/contrib/contrib_ops.h"
#include "ops/contrib/kv_cache.h"
#include "ops/contrib/sdpa.h"
#include "ops/nn/constant_product.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

class AttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(num_heads_, info.GetRequiredInt("num_heads"));
    if (num_heads_ <= 0) return info.Error("attribute 'num_heads' must be positive");
    unidirectional_ = info.GetInt("unidirectional", 0) != 0;
    qkv_sizes_ = info.GetInts("qkv_hidden_sizes");
    if (!qkv_sizes_.empty() && qkv_sizes_.size() != 3) return info.Error("attribute 'qkv_hidden_sizes' needs 3 values");
    scale_ = info.GetFloat("scale", 0.0f);
    filter_ = info.GetFloat("mask_filter_value", -10000.0f);
    if (info.GetInt("do_rotary", 0) != 0) return info.UnsupportedError("do_rotary is not implemented for Attention");
    if (info.GetInt("past_present_share_buffer", 0) != 0) {
      return info.UnsupportedError("past_present_share_buffer is not implemented");
    }
    if (info.has_input(6)) return info.UnsupportedError("input 'past_sequence_length' is not implemented");
    // Constant float weights (and bias): the QKV product packed once per row count (nn::ConstantFloatProduct, as
    // MatMulBias), which drops the original weights once it holds its own copy.
    const Tensor* w = info.ConstantInput(1);
    if (w != nullptr && w->type() == DataType::kFloat && w->rank() == 2 &&
        (!info.has_input(2) || info.ConstantInput(2) != nullptr)) {
      product_ = std::make_unique<nn::ConstantFloatProduct>(*w, kernels::MatMulActivation::kNone);
      info.AdoptConstantInput(1);
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(RequireFloat("input", 0, *x));
    ONYX_RETURN_IF_ERROR(RequireFloat("weights", 1, *w));
    if (x->rank() != 3 || w->rank() != 2 || w->dim(0) != x->dim(2)) {
      return InvalidArgument("inputs 'input' " + ShapeToString(x->shape()) + " and 'weights' " +
                             ShapeToString(w->shape()) + " do not match: expected (B, S, D) and (D, Dq + Dk + Dv)");
    }
    const int64_t batch = x->dim(0), seq = x->dim(1), din = x->dim(2), width = w->dim(1);
    int64_t dq = width / 3, dk = width / 3, dv = width / 3;
    if (!qkv_sizes_.empty()) {
      dq = qkv_sizes_[0];
      dk = qkv_sizes_[1];
      dv = qkv_sizes_[2];
    }
    if (dq + dk + dv != width || dq != dk || dq % num_heads_ != 0 || dv % num_heads_ != 0) {
      return InvalidArgument("weights " + ShapeToString(w->shape()) + " do not split into Q, K, V hidden sizes " +
                             std::to_string(dq) + ", " + std::to_string(dk) + ", " + std::to_string(dv) +
                             " divisible by num_heads " + std::to_string(num_heads_));
    }
    const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (bias != nullptr) {
      ONYX_RETURN_IF_ERROR(RequireFloat("bias", 2, *bias));
      if (bias->size() != width) {
        return InvalidArgument(DescribeInput("bias", 2, *bias) + ", expected [" + std::to_string(width) + "]");
      }
    }
    // QKV = input x weights + bias, [B*S, width], in a buffer of the calling thread (no allocation per run).
    thread_local std::vector<float> thread_qkv;
    std::vector<float>& qkv = thread_qkv;
    if (qkv.size() < static_cast<size_t>(batch * seq * width)) qkv.resize(static_cast<size_t>(batch * seq * width));
    const float* bias_data = bias != nullptr ? bias->data<float>() : nullptr;
    if (product_ != nullptr) {
      ONYX_RETURN_IF_ERROR(product_->Run(batch * seq, x->data<float>(), bias_data, qkv.data(), ctx.num_threads()));
    } else {
      nn::PlainFloatProduct(batch * seq, din, width, x->data<float>(), w->data<float>(), bias_data,
                            kernels::MatMulActivation::kNone, qkv.data());
    }
    AttentionFromQkv a;
    a.qkv = qkv.data();
    a.batch = batch;
    a.seq = seq;
    a.heads = num_heads_;
    a.dq = dq;
    a.dk = dk;
    a.dv = dv;
    a.mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    a.mask_index = 3;
    a.past = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    a.past_index = 4;
    a.attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    a.causal = unidirectional_;
    a.mask_filter = filter_;
    a.scale = scale_;
    return AttendFromQkv(a, ctx);
  }

 private:
  int64_t num_heads_ = 0;
  bool unidirectional_ = false;
  std::vector<int64_t> qkv_sizes_;
  float scale_ = 0.0f;
  float filter_ = -10000.0f;
  std::unique_ptr<nn::ConstantFloatProduct> product_;  // constant weights: the packed QKV product; else null
};

}  // namespace

// The additive bias of every (b, h, i) row: the converted mask plus attention_bias, in one buffer when both are
// given (strides in the returned view).
Result<StridedRows> CombineBias(const std::vector<float>& mask, const Tensor* attn_bias, int64_t batch, int64_t heads,
                                int64_t q_len, int64_t total, std::vector<float>* storage) {
  StridedRows view;
  if (attn_bias == nullptr) {
    if (mask.empty()) return view;
    return StridedRows{mask.data(), q_len * total, 0, total};
  }
  ONYX_RETURN_IF_ERROR(RequireFloat("attention_bias", 5, *attn_bias));
  const Shape& s = attn_bias->shape();
  if (s.size() != 4 || (s[0] != 1 && s[0] != batch) || (s[1] != 1 && s[1] != heads) || s[2] != q_len || s[3] != total) {
    return InvalidArgument(DescribeInput("attention_bias", 5, *attn_bias) + ", expected [" + std::to_string(batch) +
                           " or 1, " + std::to_string(heads) + " or 1, " + std::to_string(q_len) + ", " +
                           std::to_string(total) + "]");
  }
  const int64_t bs = s[0] == 1 ? 0 : s[1] * q_len * total;
  const int64_t hs = s[1] == 1 ? 0 : q_len * total;
  if (mask.empty()) return StridedRows{attn_bias->data<float>(), bs, hs, total};
  storage->resize(static_cast<size_t>(batch * heads * q_len * total));
  const float* ab = attn_bias->data<float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t k = 0; k < q_len * total; ++k) {
        (*storage)[static_cast<size_t>((b * heads + h) * q_len * total + k)] =
            ab[b * bs + h * hs + k] + mask[static_cast<size_t>(b * q_len * total + k)];
      }
    }
  }
  return StridedRows{storage->data(), heads * q_len * total, q_len * total, total};
}

Status AttendOverPresent(const AttentionOverPresent& a, KernelContext& ctx) {
  const int64_t total = a.present_k->dim(2);  // the caches hold the past rows and the new ones
  ONYX_ASSIGN_OR_RETURN(std::vector<float> mask3d,
                        BuildAttentionMask(a.mask, a.mask_name, a.mask_index, a.batch, a.q_len, total, a.past_len,
                                           a.causal, a.mask_filter));
  std::vector<float> combined;
  SdpaProblem p;
  ONYX_ASSIGN_OR_RETURN(p.bias, CombineBias(mask3d, a.attn_bias, a.batch, a.heads, a.q_len, total, &combined));
  p.batch = a.batch;
  p.q_heads = p.kv_heads = a.heads;
  p.q_len = a.q_len;
  p.kv_len = total;
  p.head_size = a.head_size;
  p.v_head_size = a.v_head_size;
  p.scale = a.scale != 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(a.head_size));
  p.q = a.q;
  p.k = BnshRows(a.present_k->data<float>(), a.heads, total, a.head_size);
  p.v = BnshRows(a.present_v->data<float>(), a.heads, total, a.v_head_size);
  const int64_t dv = a.heads * a.v_head_size;
  Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {a.batch, a.q_len, dv});
  p.out = MutableRows{y.data<float>(), a.q_len * dv, a.v_head_size, dv};
  RunSdpa(p);
  return Status::Ok();
}

Status AttendFromQkv(const AttentionFromQkv& f, KernelContext& ctx) {
  const int64_t batch = f.batch, seq = f.seq, heads = f.heads, width = f.dq + f.dk + f.dv;
  const int64_t hs = f.dq / heads, vhs = f.dv / heads;
  int64_t past_len = 0;
  if (f.past != nullptr) {
    ONYX_RETURN_IF_ERROR(RequireFloat("past", f.past_index, *f.past));
    if (f.past->rank() != 5 || f.past->dim(0) != 2 || f.past->dim(1) != batch || f.past->dim(2) != heads ||
        f.past->dim(4) != hs || hs != vhs) {
      return InvalidArgument(DescribeInput("past", f.past_index, *f.past) + ", expected [2, " + std::to_string(batch) +
                             ", " + std::to_string(heads) + ", P, " + std::to_string(hs) + "]");
    }
    past_len = f.past->dim(3);
  }
  const int64_t total = past_len + seq;
  const StridedRows q{f.qkv, seq * width, hs, width};
  const StridedRows k_new{f.qkv + f.dq, seq * width, hs, width};
  const StridedRows v_new{f.qkv + f.dq + f.dk, seq * width, vhs, width};
  const float* past_data = f.past != nullptr ? f.past->data<float>() : nullptr;
  const int64_t past_half = batch * heads * past_len * hs;
  Tensor present_k = BuildPresent(past_data, k_new, nullptr, batch, heads, past_len, seq, hs);
  Tensor present_v = BuildPresent(past_data != nullptr ? past_data + past_half : nullptr, v_new, nullptr, batch, heads,
                                  past_len, seq, vhs);
  AttentionOverPresent a;
  a.mask = f.mask;
  a.mask_name = "mask_index";
  a.mask_index = f.mask_index;
  a.attn_bias = f.attn_bias;
  a.batch = batch;
  a.heads = heads;
  a.q_len = seq;
  a.past_len = past_len;
  a.head_size = hs;
  a.v_head_size = vhs;
  a.causal = f.causal && seq > 1;
  a.mask_filter = f.mask_filter;
  a.scale = f.scale;
  a.q = q;
  a.present_k = &present_k;
  a.present_v = &present_v;
  ONYX_RETURN_IF_ERROR(AttendOverPresent(a, ctx));
  if (ctx.num_outputs() > 1) {
    Tensor& present = ctx.AllocateOutput(1, DataType::kFloat, {2, batch, heads, total, hs});
    std::copy_n(present_k.data<float>(), present_k.size(), present.data<float>());
    std::copy_n(present_v.data<float>(), present_v.size(), present.data<float>() + present_k.size());
  }
  return Status::Ok();
}

void RegisterAttentionOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "Attention", 1, kLatestVersion, MakeFactory<AttentionKernel>());
}

}  // namespace onyx::ops::contrib
