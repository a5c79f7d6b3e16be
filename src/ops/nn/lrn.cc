// LRN: local response normalization across channels,
// y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta.
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

class LrnKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    alpha_ = info.GetFloat("alpha", 1e-4f);
    beta_ = info.GetFloat("beta", 0.75f);
    bias_ = info.GetFloat("bias", 1.0f);
    ONYX_ASSIGN_OR_RETURN(size_, info.GetRequiredInt("size"));
    if (size_ < 1) return info.Error("attribute 'size' must be >= 1, got " + std::to_string(size_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() < 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [N, C, ...]");
    }
    const int64_t batch = x->dim(0), channels = x->dim(1);
    const int64_t inner = ShapeProduct(x->shape(), 2, x->shape().size());
    // The window of channel c is [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)].
    const int64_t before = (size_ - 1) / 2;
    const int64_t after = size_ - 1 - before;
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      auto val = [&](int64_t n, int64_t c, int64_t i) {
        return static_cast<double>(static_cast<ComputeType<T>>(in[(n * channels + c) * inner + i]));
      };
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t lo = std::max<int64_t>(0, c - before);
          const int64_t hi = std::min<int64_t>(channels - 1, c + after);
          for (int64_t i = 0; i < inner; ++i) {
            double sq = 0;
            for (int64_t k = lo; k <= hi; ++k) {
              const double v = val(n, k, i);
              sq += v * v;
            }
            const double denom = std::pow(bias_ + alpha_ / static_cast<double>(size_) * sq, beta_);
            out[(n * channels + c) * inner + i] = FromDouble<T>(val(n, c, i) / denom);
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  double alpha_ = 1e-4;
  double beta_ = 0.75;
  double bias_ = 1.0;
  int64_t size_ = 1;
};

}  // namespace

void RegisterLrnOps(KernelRegistry& registry) { registry.Add("", "LRN", 1, kLatestVersion, MakeFactory<LrnKernel>()); }

}  // namespace onyx::ops::nn
