// Attention (opsets 23, 24, 25): scaled dot-product attention over 3-D (B, S, H*D) or 4-D (B, H, S, D) inputs,
// with grouped-query heads, a bool or additive mask, causal masking, a past key/value cache, soft capping and,
// from 24 on, per-batch valid KV lengths (nonpad_kv_seqlen).
//
// The semantics follow the operator's function body, which is what the reference outputs come from:
//  - query head h reads kv head h / (q_heads / kv_heads) (contiguous groups);
//  - sqrt(scale) is applied to Q and to K separately before their product;
//  - soft capping is applied to the raw scores, the mask bias is added after it;
//  - a mask whose last dim is shorter than the total KV length is padded with -inf;
//  - the causal diagonal is offset by the past length (or by nonpad_kv_seqlen - q_len per batch);
//  - a row whose bias is -inf everywhere gets all-zero probabilities instead of NaNs;
//  - qk_matmul_output is the scaled product (mode 0), after soft capping (1), after adding the bias (2) or the
//    probabilities (3).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct AttentionDims {
  int64_t batch = 0;
  int64_t q_heads = 0;
  int64_t kv_heads = 0;
  int64_t q_len = 0;
  int64_t kv_len = 0;    // new keys/values in this call
  int64_t past_len = 0;  // keys/values from past_key/past_value
  int64_t total_len = 0;
  int64_t head_size = 0;    // Q and K
  int64_t v_head_size = 0;  // V
  bool packed = false;      // 3-D inputs
};

// Rounds a value as the given softmax_precision type would hold it.
double RoundToType(DataType t, double v) {
  switch (t) {
    case DataType::kFloat:
      return static_cast<double>(static_cast<float>(v));
    case DataType::kFloat16:
      return RoundThrough<Float16>(v);
    case DataType::kBFloat16:
      return RoundThrough<BFloat16>(v);
    default:
      return v;
  }
}

class AttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    is_causal_ = info.GetInt("is_causal", 0) != 0;
    q_num_heads_ = info.GetInt("q_num_heads", 0);
    kv_num_heads_ = info.GetInt("kv_num_heads", 0);
    mode_ = info.GetInt("qk_matmul_output_mode", 0);
    has_scale_ = info.HasAttribute("scale");
    scale_ = info.GetFloat("scale", 1.0f);
    softcap_ = info.GetFloat("softcap", 0.0f);
    if (info.HasAttribute("softmax_precision")) {
      const int64_t p = info.GetInt("softmax_precision", 1);
      if (p != static_cast<int64_t>(DataType::kFloat) && p != static_cast<int64_t>(DataType::kDouble) &&
          p != static_cast<int64_t>(DataType::kFloat16) && p != static_cast<int64_t>(DataType::kBFloat16)) {
        return info.Error("attribute 'softmax_precision' is " + std::to_string(p) +
                          ", expected a float type (1, 10, 11 or 16)");
      }
      softmax_precision_ = static_cast<DataType>(p);
    }
    if (mode_ < 0 || mode_ > 3) {
      return info.Error("attribute 'qk_matmul_output_mode' is " + std::to_string(mode_) + ", expected 0, 1, 2 or 3");
    }
    if (q_num_heads_ < 0 || kv_num_heads_ < 0)
      return info.Error("attributes 'q_num_heads'/'kv_num_heads' must be >= 0");
    if (softcap_ < 0 || std::isnan(softcap_)) return info.Error("attribute 'softcap' must be >= 0");
    if (info.has_input(4) != info.has_input(5)) {
      return info.Error("past_key and past_value must be given together");
    }
    auto wanted = [&](size_t i) { return info.num_outputs() > i && !info.node().outputs[i].empty(); };
    want_present_key_ = wanted(1);
    want_present_value_ = wanted(2);
    want_qk_ = wanted(3);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* q, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* k, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* v, ctx.TensorInput(2));
    if (!IsFloatingPoint(q->type())) {
      return Unsupported("input 'Q' (0) has element type " + std::string(DataTypeName(q->type())) +
                         ", expected a float type");
    }
    if (k->type() != q->type() || v->type() != q->type()) {
      return InvalidArgument("inputs 'Q', 'K' and 'V' must have the same element type");
    }
    const Tensor* mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* past_key = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    const Tensor* past_value = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    const Tensor* nonpad = ctx.has_input(6) ? &ctx.input(6) : nullptr;

    AttentionDims d;
    ONYX_RETURN_IF_ERROR(ResolveDims(*q, *k, *v, past_key, past_value, &d));
    std::vector<int64_t> nonpad_len;
    if (nonpad != nullptr) {
      if (!IsInteger(nonpad->type()) || nonpad->rank() != 1 || nonpad->dim(0) != d.batch) {
        return InvalidArgument(DescribeInput("nonpad_kv_seqlen", 6, *nonpad) + ", expected an integer tensor [" +
                               std::to_string(d.batch) + "]");
      }
      if (past_key != nullptr) return InvalidArgument("nonpad_kv_seqlen cannot be combined with past_key/past_value");
      nonpad_len = nonpad->ToInt64Vector();
    }
    std::vector<double> mask_values;
    std::vector<int64_t> mask_strides(3, 0);
    int64_t mask_len = -1;  // -1: no mask
    if (mask != nullptr) ONYX_RETURN_IF_ERROR(PrepareMask(*mask, d, &mask_values, &mask_strides, &mask_len));

    return Dispatch<FloatTypes>(q->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      return Run<T>(ctx, *q, *k, *v, past_key, past_value, d, mask_values, mask_strides, mask_len, nonpad_len);
    });
  }

 private:
  Status ResolveDims(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* past_key,
                     const Tensor* past_value, AttentionDims* d) const {
    if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4)) {
      return InvalidArgument("inputs 'Q', 'K', 'V' have shapes " + ShapeToString(q.shape()) + ", " +
                             ShapeToString(k.shape()) + ", " + ShapeToString(v.shape()) +
                             "; expected all 3-D or all 4-D");
    }
    d->batch = q.dim(0);
    if (k.dim(0) != d->batch || v.dim(0) != d->batch) {
      return InvalidArgument("inputs 'Q', 'K', 'V' disagree on the batch size");
    }
    if (q.rank() == 3) {
      d->packed = true;
      if (q_num_heads_ <= 0 || kv_num_heads_ <= 0) {
        return InvalidArgument("3-D inputs need the attributes 'q_num_heads' and 'kv_num_heads'");
      }
      d->q_heads = q_num_heads_;
      d->kv_heads = kv_num_heads_;
      if (q.dim(2) % d->q_heads != 0 || k.dim(2) % d->kv_heads != 0 || v.dim(2) % d->kv_heads != 0) {
        return InvalidArgument("hidden sizes of Q " + ShapeToString(q.shape()) + ", K " + ShapeToString(k.shape()) +
                               ", V " + ShapeToString(v.shape()) + " are not multiples of the head counts " +
                               std::to_string(d->q_heads) + "/" + std::to_string(d->kv_heads));
      }
      d->q_len = q.dim(1);
      d->kv_len = k.dim(1);
      if (v.dim(1) != d->kv_len) return InvalidArgument("inputs 'K' and 'V' disagree on the sequence length");
      d->head_size = q.dim(2) / d->q_heads;
      if (k.dim(2) / d->kv_heads != d->head_size) {
        return InvalidArgument("head size of K (" + std::to_string(k.dim(2) / d->kv_heads) +
                               ") differs from that of Q (" + std::to_string(d->head_size) + ")");
      }
      d->v_head_size = v.dim(2) / d->kv_heads;
    } else {
      d->q_heads = q.dim(1);
      d->kv_heads = k.dim(1);
      d->q_len = q.dim(2);
      d->kv_len = k.dim(2);
      d->head_size = q.dim(3);
      d->v_head_size = v.dim(3);
      if (v.dim(1) != d->kv_heads || v.dim(2) != d->kv_len) {
        return InvalidArgument("inputs 'K' " + ShapeToString(k.shape()) + " and 'V' " + ShapeToString(v.shape()) +
                               " disagree on heads or sequence length");
      }
      if (k.dim(3) != d->head_size) {
        return InvalidArgument("inputs 'Q' " + ShapeToString(q.shape()) + " and 'K' " + ShapeToString(k.shape()) +
                               " disagree on the head size");
      }
    }
    if (d->kv_heads <= 0 || d->q_heads % d->kv_heads != 0) {
      return InvalidArgument("the number of query heads (" + std::to_string(d->q_heads) +
                             ") is not a multiple of the number of key/value heads (" + std::to_string(d->kv_heads) +
                             ")");
    }
    if (past_key != nullptr) {
      const Shape want_k = {d->batch, d->kv_heads, past_key->rank() == 4 ? past_key->dim(2) : -1, d->head_size};
      if (past_key->rank() != 4 || past_key->shape() != want_k || past_key->type() != q.type()) {
        return InvalidArgument(DescribeInput("past_key", 4, *past_key) + ", expected [" + std::to_string(d->batch) +
                               ", " + std::to_string(d->kv_heads) + ", past_len, " + std::to_string(d->head_size) +
                               "] of Q's type");
      }
      d->past_len = past_key->dim(2);
      const Shape want_v = {d->batch, d->kv_heads, d->past_len, d->v_head_size};
      if (past_value->shape() != want_v || past_value->type() != q.type()) {
        return InvalidArgument(DescribeInput("past_value", 5, *past_value) + ", expected " + ShapeToString(want_v));
      }
    }
    d->total_len = d->past_len + d->kv_len;
    return Status::Ok();
  }

  // Turns the mask into additive bias values with broadcast strides over (batch, q_head, q_pos); its last dim
  // (mask_len) may be shorter than the total KV length, the rest counts as -inf.
  static Status PrepareMask(const Tensor& mask, const AttentionDims& d, std::vector<double>* values,
                            std::vector<int64_t>* strides, int64_t* mask_len) {
    if (mask.rank() < 1 || mask.rank() > 4) {
      return InvalidArgument(DescribeInput("attn_mask", 3, mask) + ", expected rank 2 to 4");
    }
    if (mask.type() == DataType::kBool) {
      const bool* p = mask.data<bool>();
      values->resize(static_cast<size_t>(mask.size()));
      for (int64_t i = 0; i < mask.size(); ++i) (*values)[static_cast<size_t>(i)] = p[i] ? 0.0 : kNegInf;
    } else if (IsFloatingPoint(mask.type())) {
      *values = FloatTensorToDoubles(mask);
    } else {
      return InvalidArgument("input 'attn_mask' (3) has element type " + std::string(DataTypeName(mask.type())) +
                             ", expected bool or a float type");
    }
    *mask_len = mask.dim(mask.rank() - 1);
    if (*mask_len > d.total_len) {
      return InvalidArgument(DescribeInput("attn_mask", 3, mask) + ", its last dim exceeds the total sequence length " +
                             std::to_string(d.total_len));
    }
    // Leading dims aligned to (batch, q_heads, q_len), numpy style.
    const int64_t target[3] = {d.batch, d.q_heads, d.q_len};
    int64_t stride = *mask_len;
    for (int64_t axis = mask.rank() - 2, t = 2; t >= 0; --t, --axis) {
      if (axis < 0) {
        (*strides)[static_cast<size_t>(t)] = 0;
        continue;
      }
      const int64_t dim = mask.dim(axis);
      if (dim != 1 && dim != target[t]) {
        return InvalidArgument(DescribeInput("attn_mask", 3, mask) + ", which does not broadcast to [" +
                               std::to_string(d.batch) + ", " + std::to_string(d.q_heads) + ", " +
                               std::to_string(d.q_len) + ", " + std::to_string(d.total_len) + "]");
      }
      (*strides)[static_cast<size_t>(t)] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
    return Status::Ok();
  }

  template <typename T>
  Status Run(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* past_key,
             const Tensor* past_value, const AttentionDims& d, const std::vector<double>& mask_values,
             const std::vector<int64_t>& mask_strides, int64_t mask_len, const std::vector<int64_t>& nonpad_len) {
    using CT = ComputeType<T>;
    const DataType type = q.type();
    const DataType precision = softmax_precision_ == DataType::kUndefined ? type : softmax_precision_;

    // present_key / present_value: the past followed by the new keys/values, always 4-D.
    Tensor present_k = BuildPresent<T>(k, past_key, d, d.head_size, type);
    Tensor present_v = BuildPresent<T>(v, past_value, d, d.v_head_size, type);

    const double scale = has_scale_ ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(d.head_size));
    const double sqrt_scale = RoundThrough<T>(std::sqrt(scale));
    const int64_t group = d.q_heads / d.kv_heads;
    const int64_t total = d.total_len;

    Shape y_shape = d.packed ? Shape{d.batch, d.q_len, d.q_heads * d.v_head_size}
                             : Shape{d.batch, d.q_heads, d.q_len, d.v_head_size};
    Tensor& y = ctx.AllocateOutput(0, type, y_shape);
    T* y_data = y.data<T>();
    T* qk_out = nullptr;
    if (want_qk_) {
      qk_out = ctx.AllocateOutput(3, type, {d.batch, d.q_heads, d.q_len, total}).template data<T>();
    }

    if constexpr (std::is_same_v<T, float>) {
      if (precision == DataType::kFloat && !(softcap_ > 0) && qk_out == nullptr) {
        RunFloat(q.data<float>(), present_k.data<float>(), present_v.data<float>(), d, static_cast<float>(sqrt_scale),
                 mask_values, mask_strides, mask_len, nonpad_len, y_data);
        if (want_present_key_) ctx.SetOutput(1, Value(std::move(present_k)));
        if (want_present_value_) ctx.SetOutput(2, Value(std::move(present_v)));
        return Status::Ok();
      }
    }
    const T* q_data = q.data<T>();
    const T* pk = present_k.data<T>();
    const T* pv = present_v.data<T>();
    std::vector<CT> qbuf(static_cast<size_t>(d.q_len * d.head_size));
    std::vector<CT> kbuf(static_cast<size_t>(total * d.head_size));
    std::vector<CT> vbuf(static_cast<size_t>(total * d.v_head_size));
    std::vector<CT> scores(static_cast<size_t>(d.q_len * total));
    std::vector<CT> probs(static_cast<size_t>(d.q_len * total));
    std::vector<CT> out(static_cast<size_t>(d.q_len * d.v_head_size));
    std::vector<double> row(static_cast<size_t>(total));
    std::vector<double> bias(static_cast<size_t>(total));

    for (int64_t b = 0; b < d.batch; ++b) {
      const int64_t causal_offset = nonpad_len.empty() ? d.past_len : nonpad_len[static_cast<size_t>(b)] - d.q_len;
      for (int64_t h = 0; h < d.q_heads; ++h) {
        const int64_t kvh = h / group;
        for (int64_t s = 0; s < d.q_len; ++s) {
          for (int64_t e = 0; e < d.head_size; ++e) {
            const int64_t src = d.packed ? ((b * d.q_len + s) * d.q_heads + h) * d.head_size + e
                                         : ((b * d.q_heads + h) * d.q_len + s) * d.head_size + e;
            qbuf[static_cast<size_t>(s * d.head_size + e)] =
                static_cast<CT>(RoundThrough<T>(Load(q_data, src) * sqrt_scale));
          }
        }
        const int64_t kv_base = (b * d.kv_heads + kvh) * total;
        for (int64_t j = 0; j < total * d.head_size; ++j) {
          kbuf[static_cast<size_t>(j)] =
              static_cast<CT>(RoundThrough<T>(Load(pk, kv_base * d.head_size + j) * sqrt_scale));
        }
        for (int64_t j = 0; j < total * d.v_head_size; ++j) {
          vbuf[static_cast<size_t>(j)] = static_cast<CT>(Load(pv, kv_base * d.v_head_size + j));
        }
        nn::Gemm<CT>(false, true, d.q_len, total, d.head_size, CT(1), qbuf.data(), d.head_size, kbuf.data(),
                     d.head_size, CT(0), scores.data(), total);

        for (int64_t i = 0; i < d.q_len; ++i) {
          // The additive bias of this row: mask (padded with -inf), causal diagonal, valid KV length.
          bool all_masked = total > 0;
          const int64_t mask_base = b * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2];
          for (int64_t j = 0; j < total; ++j) {
            const double bj =
                RoundThrough<T>(KeyBias(mask_values, mask_base, mask_len, i, j, causal_offset, nonpad_len, b));
            bias[static_cast<size_t>(j)] = bj;
            if (!(bj == kNegInf)) all_masked = false;
          }
          const int64_t qk_base = ((b * d.q_heads + h) * d.q_len + i) * total;
          for (int64_t j = 0; j < total; ++j) {
            const double raw = RoundThrough<T>(static_cast<double>(scores[static_cast<size_t>(i * total + j)]));
            double capped = raw;
            if (softcap_ > 0) {
              const double cap = RoundThrough<T>(softcap_);
              capped = RoundThrough<T>(RoundThrough<T>(std::tanh(RoundThrough<T>(raw / cap))) * cap);
            }
            const double biased = RoundThrough<T>(capped + bias[static_cast<size_t>(j)]);
            row[static_cast<size_t>(j)] = RoundToType(precision, biased);
            if (qk_out != nullptr && mode_ != 3) {
              const double value = mode_ == 0 ? raw : mode_ == 1 ? capped : biased;
              qk_out[qk_base + j] = FromDouble<T>(value);
            }
          }
          // Softmax in the requested precision; a fully masked row attends to nothing.
          double mx = kNegInf;
          for (int64_t j = 0; j < total; ++j) mx = std::max(mx, row[static_cast<size_t>(j)]);
          double sum = 0.0;
          for (int64_t j = 0; j < total; ++j) {
            row[static_cast<size_t>(j)] = RoundToType(precision, std::exp(row[static_cast<size_t>(j)] - mx));
            sum += row[static_cast<size_t>(j)];
          }
          for (int64_t j = 0; j < total; ++j) {
            const double p =
                all_masked ? 0.0 : RoundThrough<T>(RoundToType(precision, row[static_cast<size_t>(j)] / sum));
            probs[static_cast<size_t>(i * total + j)] = static_cast<CT>(p);
            if (qk_out != nullptr && mode_ == 3) qk_out[qk_base + j] = FromDouble<T>(p);
          }
        }
        nn::Gemm<CT>(false, false, d.q_len, d.v_head_size, total, CT(1), probs.data(), total, vbuf.data(),
                     d.v_head_size, CT(0), out.data(), d.v_head_size);
        for (int64_t s = 0; s < d.q_len; ++s) {
          for (int64_t e = 0; e < d.v_head_size; ++e) {
            const int64_t dst = d.packed ? ((b * d.q_len + s) * d.q_heads + h) * d.v_head_size + e
                                         : ((b * d.q_heads + h) * d.q_len + s) * d.v_head_size + e;
            y_data[dst] = FromDouble<T>(static_cast<double>(out[static_cast<size_t>(s * d.v_head_size + e)]));
          }
        }
      }
    }
    if (want_present_key_) ctx.SetOutput(1, Value(std::move(present_k)));
    if (want_present_value_) ctx.SetOutput(2, Value(std::move(present_v)));
    return Status::Ok();
  }

  // The additive bias of key j for query row i of batch entry b: the mask (padded with -inf past mask_len, none when
  // mask_len < 0; its row starts at mask_base), the causal diagonal, the valid KV length.
  double KeyBias(const std::vector<double>& mask_values, int64_t mask_base, int64_t mask_len, int64_t i, int64_t j,
                 int64_t causal_offset, const std::vector<int64_t>& nonpad_len, int64_t b) const {
    double bias = 0.0;
    if (mask_len >= 0) bias += j < mask_len ? mask_values[static_cast<size_t>(mask_base + j)] : kNegInf;
    if (is_causal_ && i + causal_offset < j) bias += kNegInf;
    if (!nonpad_len.empty() && j >= nonpad_len[static_cast<size_t>(b)]) bias += kNegInf;
    return bias;
  }

  // Float inputs with a float softmax, no soft capping and no qk_matmul_output (the usual case): the same steps as
  // Run's loop, but each (batch, head) on its own thread, the scaling, bias and product outputs in float (the values
  // Run rounds its doubles to) and each row's softmax through vector_math's SoftmaxRow (rel ~4e-7 from Run's double
  // exponentials); a fully masked row still attends to nothing.
  void RunFloat(const float* q_data, const float* pk, const float* pv, const AttentionDims& d, float sqrt_scale,
                const std::vector<double>& mask_values, const std::vector<int64_t>& mask_strides, int64_t mask_len,
                const std::vector<int64_t>& nonpad_len, float* y_data) const {
    const int64_t group = d.q_heads / d.kv_heads;
    const int64_t total = d.total_len;
    const int64_t work = d.q_len * total * (d.head_size + d.v_head_size) * 2;
    const bool unbiased = mask_len < 0 && !is_causal_ && nonpad_len.empty();    // KeyBias is 0 everywhere
    const bool causal_only = mask_len < 0 && is_causal_ && nonpad_len.empty();  // KeyBias is 0 or -inf
    ParallelFor(d.batch * d.q_heads, work, [&](int64_t lo, int64_t hi) {
      std::vector<float> qbuf(static_cast<size_t>(d.q_len * d.head_size));
      std::vector<float> kbuf(static_cast<size_t>(total * d.head_size));
      std::vector<float> scores(static_cast<size_t>(d.q_len * total));
      std::vector<float> out(static_cast<size_t>(d.q_len * d.v_head_size));
      for (int64_t bh = lo; bh < hi; ++bh) {
        const int64_t b = bh / d.q_heads, h = bh % d.q_heads, kvh = h / group;
        const int64_t causal_offset = nonpad_len.empty() ? d.past_len : nonpad_len[static_cast<size_t>(b)] - d.q_len;
        for (int64_t s = 0; s < d.q_len; ++s) {
          const int64_t src = d.packed ? ((b * d.q_len + s) * d.q_heads + h) * d.head_size
                                       : ((b * d.q_heads + h) * d.q_len + s) * d.head_size;
          for (int64_t e = 0; e < d.head_size; ++e)
            qbuf[static_cast<size_t>(s * d.head_size + e)] = q_data[src + e] * sqrt_scale;
        }
        const int64_t kv_base = (b * d.kv_heads + kvh) * total;
        for (int64_t j = 0; j < total * d.head_size; ++j) {
          kbuf[static_cast<size_t>(j)] = pk[kv_base * d.head_size + j] * sqrt_scale;
        }
        nn::Gemm<float>(false, true, d.q_len, total, d.head_size, 1.0f, qbuf.data(), d.head_size, kbuf.data(),
                        d.head_size, 0.0f, scores.data(), total);
        for (int64_t i = 0; i < d.q_len; ++i) {
          float* row = scores.data() + i * total;
          if (unbiased) {  // every key biased by 0: nothing to add, no row fully masked
            kernels::SoftmaxRow(row, row, total);
            continue;
          }
          if (causal_only) {  // the keys past the diagonal get weight 0, the others no bias
            const int64_t keys = std::clamp<int64_t>(i + causal_offset + 1, 0, total);
            if (keys > 0) kernels::SoftmaxRow(row, row, keys);
            std::fill(row + keys, row + total, 0.0f);
            continue;
          }
          bool all_masked = total > 0;
          const int64_t mask_base = b * mask_strides[0] + h * mask_strides[1] + i * mask_strides[2];
          for (int64_t j = 0; j < total; ++j) {
            const auto bf =
                static_cast<float>(KeyBias(mask_values, mask_base, mask_len, i, j, causal_offset, nonpad_len, b));
            if (!(bf == -std::numeric_limits<float>::infinity())) all_masked = false;
            row[j] = row[j] + bf;
          }
          if (all_masked) {
            std::fill(row, row + total, 0.0f);
          } else {
            kernels::SoftmaxRow(row, row, total);
          }
        }
        nn::Gemm<float>(false, false, d.q_len, d.v_head_size, total, 1.0f, scores.data(), total,
                        pv + kv_base * d.v_head_size, d.v_head_size, 0.0f, out.data(), d.v_head_size);
        for (int64_t s = 0; s < d.q_len; ++s) {
          const int64_t dst = d.packed ? ((b * d.q_len + s) * d.q_heads + h) * d.v_head_size
                                       : ((b * d.q_heads + h) * d.q_len + s) * d.v_head_size;
          std::copy_n(out.data() + s * d.v_head_size, d.v_head_size, y_data + dst);
        }
      }
    });
  }

  // (B, kv_heads, past_len + kv_len, size): past rows then the new ones (unpacked from 3-D when needed).
  template <typename T>
  static Tensor BuildPresent(const Tensor& cur, const Tensor* past, const AttentionDims& d, int64_t size,
                             DataType type) {
    Tensor out = Tensor::Allocate(type, {d.batch, d.kv_heads, d.total_len, size});
    T* dst = out.data<T>();
    const T* src = cur.data<T>();
    const T* old = past != nullptr ? past->data<T>() : nullptr;
    for (int64_t b = 0; b < d.batch; ++b) {
      for (int64_t h = 0; h < d.kv_heads; ++h) {
        T* base = dst + (b * d.kv_heads + h) * d.total_len * size;
        for (int64_t s = 0; s < d.past_len; ++s) {
          for (int64_t e = 0; e < size; ++e) {
            base[s * size + e] = old[((b * d.kv_heads + h) * d.past_len + s) * size + e];
          }
        }
        for (int64_t s = 0; s < d.kv_len; ++s) {
          for (int64_t e = 0; e < size; ++e) {
            const int64_t from = d.packed ? ((b * d.kv_len + s) * d.kv_heads + h) * size + e
                                          : ((b * d.kv_heads + h) * d.kv_len + s) * size + e;
            base[(d.past_len + s) * size + e] = src[from];
          }
        }
      }
    }
    return out;
  }

  bool is_causal_ = false;
  int64_t q_num_heads_ = 0;
  int64_t kv_num_heads_ = 0;
  int64_t mode_ = 0;
  bool has_scale_ = false;
  float scale_ = 1.0f;
  float softcap_ = 0.0f;
  DataType softmax_precision_ = DataType::kUndefined;
  bool want_present_key_ = false;
  bool want_present_value_ = false;
  bool want_qk_ = false;
};

}  // namespace

void RegisterAttentionOps(KernelRegistry& registry) {
  registry.Add("", "Attention", 23, kLatestVersion, MakeFactory<AttentionKernel>());
}

}  // namespace onyx::ops::transformer
