// RMSNormalization (opset 23): each run of elements over the axes [axis, rank) is divided by its root mean square
// (plus epsilon under the root), computed in the stash_type precision, then multiplied by `scale`, which
// broadcasts against the input.
#include <cmath>
#include <string>

#include "ops/common/op_util.h"
#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class RmsNormalizationKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", -1);
    epsilon_ = info.GetFloat("epsilon", 1e-5f);
    const int64_t stash = info.GetInt("stash_type", 1);
    if (stash != static_cast<int64_t>(DataType::kFloat) && stash != static_cast<int64_t>(DataType::kDouble)) {
      return info.Error("attribute 'stash_type' is " + std::to_string(stash) + ", expected 1 (float) or 11 (double)");
    }
    stash_double_ = stash == static_cast<int64_t>(DataType::kDouble);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    if (scale->type() != x->type()) {
      return InvalidArgument("input 'scale' (1) has element type " + std::string(DataTypeName(scale->type())) +
                             ", expected that of 'X' (" + std::string(DataTypeName(x->type())) + ")");
    }
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(axis_, x->rank()));
    ONYX_ASSIGN_OR_RETURN(const Shape out_shape, BroadcastShapes(x->shape(), scale->shape()));
    if (out_shape != x->shape()) {
      return InvalidArgument(DescribeInput("scale", 1, *scale) + ", which does not broadcast to 'X' " +
                             ShapeToString(x->shape()));
    }
    int64_t len = 1;
    for (int64_t i = axis; i < x->rank(); ++i) len *= x->dim(i);
    const int64_t rows = len == 0 ? 0 : x->size() / len;
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      Tensor normalized = Tensor::Allocate(x->type(), x->shape());
      T* norm = normalized.data<T>();
      auto stash = [&](double v) { return stash_double_ ? v : static_cast<double>(static_cast<float>(v)); };
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = in + r * len;
        double sum = 0;
        for (int64_t i = 0; i < len; ++i) {
          const double v = stash(Load(row, i));
          sum += stash(v * v);
        }
        const double rms = stash(std::sqrt(stash(stash(sum / static_cast<double>(len)) + epsilon_)));
        for (int64_t i = 0; i < len; ++i) norm[r * len + i] = FromDouble<T>(stash(stash(Load(row, i)) / rms));
      }
      Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
      BroadcastBinary<T, T, T>(normalized, *scale, y, [](T a, T b) {
        return FromDouble<T>(static_cast<double>(static_cast<ComputeType<T>>(a)) *
                             static_cast<double>(static_cast<ComputeType<T>>(b)));
      });
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
  double epsilon_ = 1e-5;
  bool stash_double_ = false;
};

}  // namespace

void RegisterRmsNormalizationOps(KernelRegistry& registry) {
  registry.Add("", "RMSNormalization", 23, kLatestVersion, MakeFactory<RmsNormalizationKernel>());
}

}  // namespace onyx::ops::transformer
