// com.microsoft QAttention: the Attention block of a model that ONNX Runtime's quantize_dynamic quantized (its
// AttentionQuant): input uint8 [B, S, D] with input_scale and input_zero_point, weights uint8 or int8 [D, 3 * H]
// with weight_scale and weight_zero_point per tensor or per column, bias float [3 * H]. The projection is computed as
// ONNX Runtime's kernel computes it: exact int32 sums of (input - input_zp) * (weight - weight_zp) (oneDNN's int8
// GEMM; kernels/int8_gemm.h, with ONNX Runtime's pair saturation on CPUs without VNNI), then
// float(sum) * (input_scale * weight_scale[j]) + bias[j]; the attention itself is the com.microsoft Attention
// kernel's (attention.cc: mask_index forms, unidirectional, past/present).
#include <string>
#include <vector>

#include "kernels/int8_gemm.h"
#include "ops/contrib/contrib_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

class QAttentionKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(num_heads_, info.GetRequiredInt("num_heads"));
    if (num_heads_ <= 0) return info.Error("attribute 'num_heads' must be positive");
    unidirectional_ = info.GetInt("unidirectional", 0) != 0;
    filter_ = info.GetFloat("mask_filter_value", -10000.0f);
    scale_ = info.GetFloat("scale", 0.0f);
    if (info.GetInt("do_rotary", 0) != 0) return info.UnsupportedError("do_rotary is not implemented for QAttention");
    if (info.GetInt("past_present_share_buffer", 0) != 0) {
      return info.UnsupportedError("past_present_share_buffer is not implemented");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, ctx.TensorInput(2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_scale, ctx.TensorInput(3));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w_scale, ctx.TensorInput(4));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_zp, nn::OptionalTensorInput(ctx, 6));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w_zp, nn::OptionalTensorInput(ctx, 7));
    if (x->type() != DataType::kUint8 || x->rank() != 3) {
      return InvalidArgument("input 'input' (0) must be uint8 [B, S, D], got " + std::string(DataTypeName(x->type())) +
                             " " + ShapeToString(x->shape()));
    }
    if ((w->type() != DataType::kUint8 && w->type() != DataType::kInt8) || w->rank() != 2 || w->dim(0) != x->dim(2) ||
        w->dim(1) % 3 != 0) {
      return InvalidArgument("input 'weight' (1) must be uint8 or int8 [" + std::to_string(x->dim(2)) +
                             ", 3 * hidden], got " + std::string(DataTypeName(w->type())) + " " +
                             ShapeToString(w->shape()));
    }
    const int64_t batch = x->dim(0), seq = x->dim(1), din = x->dim(2), width = w->dim(1), hidden = width / 3;
    if (hidden % num_heads_ != 0) {
      return InvalidArgument("hidden size " + std::to_string(hidden) + " is not divisible by num_heads " +
                             std::to_string(num_heads_));
    }
    ONYX_RETURN_IF_ERROR(RequireFloat("bias", 2, *bias));
    if (bias->size() != width) {
      return InvalidArgument(DescribeInput("bias", 2, *bias) + ", expected [" + std::to_string(width) + "]");
    }
    ONYX_RETURN_IF_ERROR(RequireFloat("input_scale", 3, *x_scale));
    ONYX_RETURN_IF_ERROR(RequireFloat("weight_scale", 4, *w_scale));
    if (x_scale->size() != 1)
      return InvalidArgument(DescribeInput("input_scale", 3, *x_scale) + ", expected one value");
    if (w_scale->size() != 1 && w_scale->size() != width) {
      return InvalidArgument(DescribeInput("weight_scale", 4, *w_scale) + ", expected one value or " +
                             std::to_string(width));
    }
    if (x_zp != nullptr && (x_zp->type() != DataType::kUint8 || x_zp->size() != 1)) {
      return InvalidArgument("input 'input_zero_point' (6) must be one uint8 value");
    }
    if (w_zp != nullptr && (w_zp->type() != w->type() || (w_zp->size() != 1 && w_zp->size() != width))) {
      return InvalidArgument("input 'weight_zero_point' (7) must be one value or " + std::to_string(width) +
                             " of the weights' type");
    }
    const uint8_t a_zp = x_zp != nullptr ? x_zp->data<uint8_t>()[0] : 0;
    const int64_t rows = batch * seq;

    // The int32 sums, written over the float buffer (same size), with a zero weight zero point; per-column (or
    // uint8) weight zero points are subtracted after: sum_p (a - a_zp) * (w - zw_j) = S_j - zw_j * sum_p (a - a_zp).
    std::vector<float> qkv(static_cast<size_t>(rows * width));
    auto* acc = reinterpret_cast<int32_t*>(qkv.data());
    const uint8_t* a = x->data<uint8_t>();
    kernels::GemmU8ByWeights(rows, width, din, a, a_zp, w->raw(), w->type() == DataType::kInt8, 0, acc,
                             ctx.num_threads());
    if (w_zp != nullptr) {
      for (int64_t i = 0; i < rows; ++i) {
        int32_t row_sum = 0;
        for (int64_t p = 0; p < din; ++p) row_sum += static_cast<int32_t>(a[i * din + p]) - a_zp;
        for (int64_t j = 0; j < width; ++j) {
          const int64_t z = w_zp->size() == 1 ? 0 : j;
          const int32_t zw = w->type() == DataType::kInt8 ? w_zp->data<int8_t>()[z] : w_zp->data<uint8_t>()[z];
          acc[i * width + j] -= zw * row_sum;
        }
      }
    }
    // float(sum) * (input_scale * weight_scale[j]) + bias[j]: the scale product formed once per column, as there.
    const float xs = x_scale->data<float>()[0];
    std::vector<float> scales(static_cast<size_t>(width));
    for (int64_t j = 0; j < width; ++j)
      scales[static_cast<size_t>(j)] = w_scale->data<float>()[w_scale->size() == 1 ? 0 : j] * xs;
    const float* b = bias->data<float>();
    for (int64_t i = 0; i < rows * width; ++i) {
      const int64_t j = i % width;
      qkv[static_cast<size_t>(i)] = static_cast<float>(acc[i]) * scales[static_cast<size_t>(j)] + b[j];
    }

    AttentionFromQkv f;
    f.qkv = qkv.data();
    f.batch = batch;
    f.seq = seq;
    f.heads = num_heads_;
    f.dq = f.dk = f.dv = hidden;
    f.mask = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    f.mask_index = 5;
    f.past = ctx.has_input(8) ? &ctx.input(8) : nullptr;
    f.past_index = 8;
    f.causal = unidirectional_;
    f.mask_filter = filter_;
    f.scale = scale_;
    return AttendFromQkv(f, ctx);
  }

 private:
  int64_t num_heads_ = 0;
  bool unidirectional_ = false;
  float filter_ = -10000.0f;
  float scale_ = 0.0f;
};

}  // namespace

void RegisterQAttentionOps(KernelRegistry& registry) {
  registry.Add(kMsDomain, "QAttention", 1, kLatestVersion, MakeFactory<QAttentionKernel>());
}

}  // namespace onyx::ops::contrib
