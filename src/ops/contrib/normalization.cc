// Normalizations of ONNX Runtime's transformer graphs:
//  - com.microsoft SkipLayerNormalization: x = input + skip (+ bias), LayerNorm over the last dim with gamma (and
//    beta); optional outputs mean, inv_std_var and the sum x (input_skip_bias_sum);
//  - com.microsoft SkipSimplifiedLayerNormalization: the same with RMS normalization (no mean, no beta);
//  - SimplifiedLayerNormalization (ORT registers it in the default ONNX domain, version 1): RMS normalization
//    over [axis, rank) times scale; optional inv_std_var;
//  - com.microsoft EmbedLayerNormalization: word + position (+ segment) embeddings, then LayerNorm; mask_index is
//    the number of ones of each mask row.
// Rows on kernels/vector_math.h's LayerNormRow / RmsNormRow (ONNX Runtime's MLAS arithmetic on AVX2 CPUs, as its
// SimplifiedLayerNormalization computes); under ONNX Runtime's summation order (KernelInfo::ort_summation_order) the
// Skip* operators restate its scalar loops instead. float32 tensors.
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/contrib/contrib_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

// ONNX Runtime 1.30's float SkipLayerNormalization row (its scalar loop, found by matching its outputs bit for bit:
// tests/data/ort_order/skip_norms): Welford's running mean and sum of squared deviations in float, then
// (x - mean) / sqrt(m2 / n + epsilon) * gamma (+ beta), each step rounded (no fused multiply-add: its generic code is
// built without FMA). Slow (a dependent division per element): only where the session asks for ONNX Runtime's
// arithmetic. Normalizes `x` in place; returns (mean, inv_std).
std::pair<float, float> SkipLayerNormRowOrtOrder(float* x, int64_t n, const float* gamma, const float* beta,
                                                 float epsilon) {
  float mean = 0.0f, m2 = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float before = x[i] - mean;
    mean += before / static_cast<float>(i + 1);
    m2 += before * (x[i] - mean);
  }
  const float std_dev = std::sqrt(m2 / static_cast<float>(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    const float scaled = (x[i] - mean) / std_dev * gamma[i];
    x[i] = beta != nullptr ? scaled + beta[i] : scaled;
  }
  return {mean, 1.0f / std_dev};
}

// ONNX Runtime 1.30's SkipSimplifiedLayerNormalization row: squares summed in sequence, each rounded, then
// x / sqrt(sum / n + epsilon) * gamma. Returns inv_std.
float SkipRmsNormRowOrtOrder(float* x, int64_t n, const float* gamma, float epsilon) {
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += x[i] * x[i];
  const float rms = std::sqrt(sum / static_cast<float>(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] / rms * gamma[i];
  return 1.0f / rms;
}

template <bool kSimplified>
class SkipLayerNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    epsilon_ = info.GetFloat("epsilon", 1e-12f);
    ort_order_ = info.ort_summation_order();
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* skip, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* gamma, ctx.TensorInput(2));
    // SkipLayerNormalization: (input, skip, gamma, beta, bias); the simplified one: (input, skip, gamma, bias).
    const size_t bias_index = simplified_ ? 3 : 4;
    const Tensor* beta = !simplified_ && ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* bias = ctx.has_input(bias_index) ? &ctx.input(bias_index) : nullptr;
    ONYX_RETURN_IF_ERROR(RequireFloat("input", 0, *x));
    ONYX_RETURN_IF_ERROR(RequireFloat("skip", 1, *skip));
    ONYX_RETURN_IF_ERROR(RequireFloat("gamma", 2, *gamma));
    if (x->rank() < 2) return InvalidArgument(DescribeInput("input", 0, *x) + ", expected rank 2 or 3");
    const int64_t h = x->dim(x->rank() - 1);
    const int64_t rows = h == 0 ? 0 : x->size() / h;
    // skip has input's shape, or broadcasts over the batch ((1, S, H) or (S, H)).
    if (skip->size() == 0 || skip->dim(skip->rank() - 1) != h || x->size() % skip->size() != 0) {
      return InvalidArgument(DescribeInput("skip", 1, *skip) + ", expected input's shape " + ShapeToString(x->shape()) +
                             " or one broadcasting over its batch");
    }
    for (const auto& [t, name, i] :
         {std::tuple{gamma, "gamma", 2}, {beta, "beta", 3}, {bias, "bias", static_cast<int>(bias_index)}}) {
      if (t == nullptr) continue;
      ONYX_RETURN_IF_ERROR(RequireFloat(name, i, *t));
      if (t->size() != h) return InvalidArgument(DescribeInput(name, i, *t) + ", expected [" + std::to_string(h) + "]");
    }
    const int64_t skip_rows = skip->size() / h;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x->shape());
    Shape stat_shape = x->shape();
    stat_shape.back() = 1;
    float* mean_out = ctx.num_outputs() > 1 && !simplified_
                          ? ctx.AllocateOutput(1, DataType::kFloat, stat_shape).data<float>()
                          : nullptr;
    const size_t inv_index = 2;
    float* inv_out = ctx.num_outputs() > inv_index
                         ? ctx.AllocateOutput(inv_index, DataType::kFloat, stat_shape).data<float>()
                         : nullptr;
    if (simplified_ && ctx.num_outputs() > 1) {
      // Output 1 (mean) of the simplified variant is declared but never meaningful: zeros.
      std::fill_n(ctx.AllocateOutput(1, DataType::kFloat, stat_shape).data<float>(), rows, 0.0f);
    }
    float* sum_out =
        ctx.num_outputs() > 3 ? ctx.AllocateOutput(3, DataType::kFloat, x->shape()).data<float>() : nullptr;
    const float* in = x->data<float>();
    const float* sk = skip->data<float>();
    const float* bi = bias ? bias->data<float>() : nullptr;
    float* out = y.data<float>();
    ParallelFor(rows, h * 4, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float* row = out + r * h;
        const float* s = sk + (r % skip_rows) * h;
        for (int64_t i = 0; i < h; ++i) row[i] = in[r * h + i] + s[i] + (bi ? bi[i] : 0.0f);
        if (sum_out != nullptr) std::copy_n(row, h, sum_out + r * h);
        const float* g = gamma->data<float>();
        const float* b = beta ? beta->data<float>() : nullptr;
        float m = 0.0f, inv = 0.0f;
        if (simplified_) {
          if (ort_order_) {
            inv = SkipRmsNormRowOrtOrder(row, h, g, epsilon_);
          } else {
            kernels::RmsNormRow(row, g, epsilon_, row, h, &inv);
          }
        } else if (ort_order_) {
          std::tie(m, inv) = SkipLayerNormRowOrtOrder(row, h, g, b, epsilon_);
        } else {
          double mean = 0.0, inv_std = 0.0;
          kernels::LayerNormRow(row, g, b, epsilon_, row, h, &mean, &inv_std);
          m = static_cast<float>(mean);
          inv = static_cast<float>(inv_std);
        }
        if (mean_out != nullptr) mean_out[r] = m;
        if (inv_out != nullptr) inv_out[r] = inv;
      }
    });
    return Status::Ok();
  }

 private:
  static constexpr bool simplified_ = kSimplified;
  float epsilon_ = 1e-12f;
  bool ort_order_ = false;  // ONNX Runtime's arithmetic (KernelInfo::ort_summation_order), else the vectorized rows
};

class SimplifiedLayerNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", -1);
    epsilon_ = info.GetFloat("epsilon", 1e-5f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(RequireFloat("X", 0, *x));
    ONYX_RETURN_IF_ERROR(RequireFloat("scale", 1, *scale));
    const int64_t axis = axis_ < 0 ? axis_ + x->rank() : axis_;
    if (axis < 0 || axis >= x->rank()) {
      return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for " +
                             DescribeInput("X", 0, *x));
    }
    int64_t len = 1;
    for (int64_t i = axis; i < x->rank(); ++i) len *= x->dim(i);
    if (scale->size() != len) {
      return InvalidArgument(DescribeInput("scale", 1, *scale) + ", expected " + std::to_string(len) + " values");
    }
    const int64_t rows = len == 0 ? 0 : x->size() / len;
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x->shape());
    float* inv_out = nullptr;
    if (ctx.num_outputs() > 1) {
      Shape s = x->shape();
      for (int64_t i = axis; i < x->rank(); ++i) s[static_cast<size_t>(i)] = 1;
      inv_out = ctx.AllocateOutput(1, DataType::kFloat, s).data<float>();
    }
    ParallelFor(rows, len * 4, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float inv = 0.0f;
        kernels::RmsNormRow(x->data<float>() + r * len, scale->data<float>(), epsilon_, y.data<float>() + r * len, len,
                            &inv);
        if (inv_out != nullptr) inv_out[r] = inv;
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

class EmbedLayerNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    epsilon_ = info.GetFloat("epsilon", 1e-12f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* ids, ctx.TensorInput(0));
    const Tensor* seg_ids = ctx.has_input(1) ? &ctx.input(1) : nullptr;
    ONYX_ASSIGN_OR_RETURN(const Tensor* word, ctx.TensorInput(2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* pos, ctx.TensorInput(3));
    const Tensor* seg = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    ONYX_ASSIGN_OR_RETURN(const Tensor* gamma, ctx.TensorInput(5));
    ONYX_ASSIGN_OR_RETURN(const Tensor* beta, ctx.TensorInput(6));
    const Tensor* mask = ctx.has_input(7) ? &ctx.input(7) : nullptr;
    const Tensor* pos_ids = ctx.has_input(8) ? &ctx.input(8) : nullptr;
    if (ids->rank() != 2 || ids->type() != DataType::kInt32) {
      return InvalidArgument(DescribeInput("input_ids", 0, *ids) + ", expected int32 (B, S)");
    }
    for (const auto& [t, name, i] : {std::tuple{word, "word_embedding", 2},
                                     {pos, "position_embedding", 3},
                                     {seg, "segment_embedding", 4},
                                     {gamma, "gamma", 5},
                                     {beta, "beta", 6}}) {
      if (t != nullptr) ONYX_RETURN_IF_ERROR(RequireFloat(name, i, *t));
    }
    if (word->rank() != 2 || pos->rank() != 2 || pos->dim(1) != word->dim(1) ||
        (seg != nullptr && (seg->rank() != 2 || seg->dim(1) != word->dim(1))) || gamma->size() != word->dim(1) ||
        beta->size() != word->dim(1)) {
      return InvalidArgument("embedding tables word " + ShapeToString(word->shape()) + ", position " +
                             ShapeToString(pos->shape()) + ", gamma " + ShapeToString(gamma->shape()) + ", beta " +
                             ShapeToString(beta->shape()) + " disagree on the hidden size");
    }
    if ((seg_ids == nullptr) != (seg == nullptr)) {
      return InvalidArgument("segment_ids and segment_embedding must be given together");
    }
    const int64_t batch = ids->dim(0), seq = ids->dim(1), h = word->dim(1);
    for (const auto& [t, name, i] : {std::tuple{seg_ids, "segment_ids", 1}, {mask, "mask", 7}}) {
      if (t != nullptr && (t->shape() != ids->shape() || t->type() != DataType::kInt32)) {
        return InvalidArgument(DescribeInput(name, i, *t) + ", expected int32 " + ShapeToString(ids->shape()));
      }
    }
    if (pos_ids != nullptr && pos_ids->size() != batch * seq && pos_ids->size() != seq) {
      return InvalidArgument(DescribeInput("position_ids", 8, *pos_ids) + ", expected (B, S) or (1, S)");
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, {batch, seq, h});
    float* sum_out =
        ctx.num_outputs() > 2 ? ctx.AllocateOutput(2, DataType::kFloat, {batch, seq, h}).data<float>() : nullptr;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t r = b * seq + s;
        const int64_t w = ids->data<int32_t>()[r];
        const int64_t p = pos_ids == nullptr ? s : pos_ids->IntAt(pos_ids->size() == seq ? s : r);
        const int64_t g = seg_ids != nullptr ? seg_ids->data<int32_t>()[r] : 0;
        if (w < 0 || w >= word->dim(0) || p < 0 || p >= pos->dim(0) ||
            (seg != nullptr && (g < 0 || g >= seg->dim(0)))) {
          return InvalidArgument("token (" + std::to_string(b) + ", " + std::to_string(s) + "): word id " +
                                 std::to_string(w) + ", position " + std::to_string(p) + " or segment " +
                                 std::to_string(g) + " is outside its embedding table");
        }
        float* row = y.data<float>() + r * h;
        for (int64_t i = 0; i < h; ++i) {
          row[i] = word->data<float>()[w * h + i] + pos->data<float>()[p * h + i] +
                   (seg != nullptr ? seg->data<float>()[g * h + i] : 0.0f);
        }
        if (sum_out != nullptr) std::copy_n(row, h, sum_out + r * h);
        kernels::LayerNormRow(row, gamma->data<float>(), beta->data<float>(), epsilon_, row, h, nullptr, nullptr);
      }
    }
    if (ctx.num_outputs() > 1) {
      int32_t* mi = ctx.AllocateOutput(1, DataType::kInt32, {batch}).data<int32_t>();
      for (int64_t b = 0; b < batch; ++b) {
        int32_t count = 0;
        for (int64_t s = 0; mask != nullptr && s < seq; ++s) count += mask->data<int32_t>()[b * seq + s] != 0;
        mi[b] = count;
      }
    }
    return Status::Ok();
  }

 private:
  float epsilon_ = 1e-12f;
};

}  // namespace

void RegisterNormalizationOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "SkipLayerNormalization", 1, kLatestVersion, MakeFactory<SkipLayerNormKernel<false>>());
  registry.Add(kMsDomain, "SkipSimplifiedLayerNormalization", 1, kLatestVersion,
               MakeFactory<SkipLayerNormKernel<true>>());
  registry.Add("", "SimplifiedLayerNormalization", 1, kLatestVersion, MakeFactory<SimplifiedLayerNormKernel>());
  registry.Add(kMsDomain, "EmbedLayerNormalization", 1, kLatestVersion, MakeFactory<EmbedLayerNormKernel>());
}

}  // namespace onyx::ops::contrib
