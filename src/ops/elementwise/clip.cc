// Clip: y = min(max(x, min), max). Before opset 11 the bounds are float attributes; from 11 on they are
// optional scalar inputs of x's type. When min > max every element becomes max (the order of the two steps).
#include <limits>

#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

class ClipKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    bounds_as_inputs_ = info.since_version() >= 11;
    if (bounds_as_inputs_) return Status::Ok();
    // Opset 6 gives the attributes defaults at float's limits; opset 1 leaves them unset (no bound).
    const bool has_defaults = info.since_version() >= 6;
    if (info.HasAttribute("min")) {
      min_attr_ = info.GetFloat("min", 0.0f);
    } else if (has_defaults) {
      min_attr_ = std::numeric_limits<float>::lowest();
    }
    if (info.HasAttribute("max")) {
      max_attr_ = info.GetFloat("max", 0.0f);
    } else if (has_defaults) {
      max_attr_ = std::numeric_limits<float>::max();
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    return Dispatch<NumericTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      using C = ComputeType<T>;
      std::optional<C> lo, hi;
      if (bounds_as_inputs_) {
        ONYX_RETURN_IF_ERROR(ReadBound<T>(ctx, *x, 1, "min", &lo));
        ONYX_RETURN_IF_ERROR(ReadBound<T>(ctx, *x, 2, "max", &hi));
      } else {
        if (min_attr_) lo = AttrBound<C>(*min_attr_);
        if (max_attr_) hi = AttrBound<C>(*max_attr_);
      }
      Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
      const T* px = x->data<T>();
      T* py = y.data<T>();
      for (int64_t i = 0; i < x->size(); ++i) {
        C v = ToCompute(px[i]);
        if (lo && v < *lo) v = *lo;
        if (hi && v > *hi) v = *hi;
        py[i] = static_cast<T>(v);
      }
      return Status::Ok();
    });
  }

 private:
  template <typename C>
  static C AttrBound(float v) {
    if constexpr (std::is_integral_v<C>) {
      return SaturatingCast<C>(v);
    } else {
      return static_cast<C>(v);
    }
  }

  template <typename T>
  static Status ReadBound(const KernelContext& ctx, const Tensor& x, size_t index, const char* name,
                          std::optional<ComputeType<T>>* bound) {
    if (!ctx.has_input(index)) return Status::Ok();
    ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(index));
    if (t->type() != x.type()) {
      return InvalidArgument("input '" + std::string(name) + "' (" + std::to_string(index) + ") has element type " +
                             std::string(DataTypeName(t->type())) + ", expected " +
                             std::string(DataTypeName(x.type())) + " like 'input'");
    }
    if (t->size() != 1) {
      return InvalidArgument("input '" + std::string(name) + "' (" + std::to_string(index) + ") has shape " +
                             ShapeToString(t->shape()) + ", expected a scalar");
    }
    *bound = ToCompute(t->data<T>()[0]);
    return Status::Ok();
  }

  bool bounds_as_inputs_ = false;
  std::optional<float> min_attr_, max_attr_;
};

}  // namespace

void RegisterClipOp(KernelRegistry& registry) {
  registry.Add("", "Clip", 1, kLatestVersion, MakeFactory<ClipKernel>());
}

}  // namespace onyx::ops::elementwise
