// com.microsoft activations of transformer feed-forward blocks: FastGelu (tanh approximation, optional bias),
// BiasGelu (erf form of A + B), QuickGelu (x * sigmoid(alpha x), alpha 1.702 by default) and Gelu (erf form).
// float32 through kernels/vector_math. (BiasAdd and BiasSplitGelu are left out: ONNX Runtime has them on CUDA
// only, so there is no CPU reference to test them against.)
#include <string>
#include <vector>

#include "kernels/ort_order_math.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/contrib/contrib_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::contrib {
namespace {

enum class Act { kGeluTanh, kGeluErf, kGeluErfOrt, kQuick };  // kGeluErfOrt: ONNX Runtime's kernel, bit for bit

// Y = act(X + bias); bias (optional) broadcasts over X's last dim.
Status BiasActivation(KernelContext& ctx, int bias_input, Act act, float alpha) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  ONYX_RETURN_IF_ERROR(RequireFloat("X", 0, *x));
  const Tensor* bias = bias_input >= 0 && ctx.has_input(static_cast<size_t>(bias_input))
                           ? &ctx.input(static_cast<size_t>(bias_input))
                           : nullptr;
  const int64_t width = x->rank() == 0 ? 1 : x->dim(x->rank() - 1);
  if (bias != nullptr) {
    ONYX_RETURN_IF_ERROR(RequireFloat("bias", bias_input, *bias));
    if (bias->rank() != 1 || bias->dim(0) != width) {
      return InvalidArgument(DescribeInput("bias", bias_input, *bias) + ", expected [" + std::to_string(width) + "]");
    }
  }
  Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x->shape());
  const float* in = x->data<float>();
  float* out = y.data<float>();
  const int64_t rows = width == 0 ? 0 : x->size() / width;
  ParallelFor(rows, width * 4, [&](int64_t begin, int64_t end) {
    std::vector<float> tmp(static_cast<size_t>(width));
    for (int64_t r = begin; r < end; ++r) {
      const float* src = in + r * width;
      float* dst = out + r * width;
      for (int64_t i = 0; i < width; ++i) {
        float v = src[i];
        if (bias != nullptr) v += bias->data<float>()[i];
        dst[i] = v;
      }
      switch (act) {
        case Act::kGeluTanh:
          kernels::GeluTanh(dst, dst, width);
          break;
        case Act::kGeluErf:
          kernels::Gelu(dst, dst, width);
          break;
        case Act::kGeluErfOrt:
          kernels::OrtGelu(dst, dst, width, kernels::OrtMlasFlavor());
          break;
        case Act::kQuick:
          for (int64_t i = 0; i < width; ++i) tmp[static_cast<size_t>(i)] = alpha * dst[i];
          kernels::Sigmoid(tmp.data(), tmp.data(), width);
          for (int64_t i = 0; i < width; ++i) dst[i] *= tmp[static_cast<size_t>(i)];
          break;
      }
    }
  });
  return Status::Ok();
}

class QuickGeluKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    alpha_ = info.GetFloat("alpha", 1.702f);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override { return BiasActivation(ctx, -1, Act::kQuick, alpha_); }

 private:
  float alpha_ = 1.702f;
};

}  // namespace

void RegisterActivationOps(KernelRegistry& registry) {
  registry.AddFn(kMsDomain, "FastGelu", 1, kLatestVersion,
                 [](const KernelInfo&, KernelContext& ctx) { return BiasActivation(ctx, 1, Act::kGeluTanh, 0.0f); });
  // Under KernelInfo::ort_summation_order: ONNX Runtime's erf GELU (x + bias rounded first, as its BiasGelu does).
  registry.AddFn(kMsDomain, "BiasGelu", 1, kLatestVersion, [](const KernelInfo& info, KernelContext& ctx) {
    return BiasActivation(ctx, 1, info.ort_summation_order() ? Act::kGeluErfOrt : Act::kGeluErf, 0.0f);
  });
  registry.AddFn(kMsDomain, "Gelu", 1, kLatestVersion, [](const KernelInfo& info, KernelContext& ctx) {
    return BiasActivation(ctx, -1, info.ort_summation_order() ? Act::kGeluErfOrt : Act::kGeluErf, 0.0f);
  });
  registry.Add(kMsDomain, "QuickGelu", 1, kLatestVersion, MakeFactory<QuickGeluKernel>());
}

}  // namespace onyx::ops::contrib
