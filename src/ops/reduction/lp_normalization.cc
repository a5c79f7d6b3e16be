// LpNormalization (1, 22): x divided by its L1 or L2 norm along `axis`. A slice whose norm is 0 (all zeros)
// stays 0 rather than becoming 0/0 = NaN, as onnxruntime does.
#include <cmath>
#include <string>

#include "ops/common/op_util.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

class LpNormalizationKernel final : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", -1);
    p_ = info.GetInt("p", 2);
    if (p_ != 1 && p_ != 2) return info.Error("attribute 'p' is " + std::to_string(p_) + ", expected 1 or 2");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const int64_t rank = x->rank();
    if (axis_ < -rank || axis_ >= rank) {
      return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for input of rank " +
                             std::to_string(rank));
    }
    const reduction::AxisSplit s = reduction::SplitAt(x->shape(), axis_ < 0 ? axis_ + rank : axis_);
    Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x->data<T>();
      T* dst = out.data<T>();
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t j = 0; j < s.inner; ++j) {
          const int64_t base = o * s.n * s.inner + j;
          double acc = 0;
          for (int64_t i = 0; i < s.n; ++i) {
            const double v = ToDouble(src[base + i * s.inner]);
            acc += p_ == 1 ? std::fabs(v) : v * v;
          }
          const double norm = p_ == 1 ? acc : std::sqrt(acc);
          for (int64_t i = 0; i < s.n; ++i) {
            const int64_t at = base + i * s.inner;
            dst[at] = FromDouble<T>(norm == 0 ? 0.0 : ToDouble(src[at]) / norm);
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
  int64_t p_ = 2;
};

}  // namespace

void RegisterLpNormalizationOps(KernelRegistry& registry) {
  registry.Add("", "LpNormalization", 1, kLatestVersion, MakeFactory<LpNormalizationKernel>());
}

}  // namespace onyx::ops
