// Pow: base ^ exponent with broadcasting. From opset 12 the exponent may have another element type; the
// result has the base's type (a float power of an integer base is computed in double and truncated).
#include <cmath>

#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

template <typename TB, typename TE>
TB PowValue(TB base, TE exponent) {
  if constexpr (std::is_integral_v<TB> && std::is_integral_v<TE>) {
    // Exact (wrapping) integer power by squaring: double loses precision past 2^53.
    if constexpr (std::is_signed_v<TE>) {
      if (exponent < 0) {
        if (base == TB(1)) return TB(1);
        if constexpr (std::is_signed_v<TB>) {
          if (base == TB(-1)) return (exponent % 2 == 0) ? TB(1) : TB(-1);
        }
        return TB(0);  // |1 / base^n| < 1 truncates to 0 (and 0^-n has no integer value)
      }
    }
    WideUnsigned<TB> result = 1;
    WideUnsigned<TB> b = static_cast<WideUnsigned<TB>>(base);
    auto e = static_cast<uint64_t>(exponent);
    while (e != 0) {
      if (e & 1u) result = static_cast<WideUnsigned<TB>>(result * b);
      b = static_cast<WideUnsigned<TB>>(b * b);
      e >>= 1;
    }
    return static_cast<TB>(result);
  } else {
    const double r = std::pow(ToDouble(base), ToDouble(exponent));
    if constexpr (std::is_integral_v<TB>) {
      return SaturatingCast<TB>(r);
    } else {
      return FromDouble<TB>(r);
    }
  }
}

class PowKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override { return broadcast_.Init(info); }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y, ctx.TensorInput(1));
    Tensor yv;
    Shape out_shape;
    ONYX_RETURN_IF_ERROR(broadcast_.Resolve(*x, *y, &yv, &out_shape));
    return Dispatch<NumericTypes>(x->type(), [&](auto base_tag) -> Status {
      using TB = typename decltype(base_tag)::type;
      return Dispatch<NumericTypes>(y->type(), [&](auto exp_tag) -> Status {
        using TE = typename decltype(exp_tag)::type;
        Tensor& z = ctx.AllocateOutput(0, x->type(), out_shape);
        if constexpr (std::is_same_v<TB, float>) {
          // x ^ 2 (LayerNormalization written out, as exporters do): x * x in float is the correctly rounded
          // square, exactly what the double pow rounds to, at a fraction of the cost.
          if (yv.size() == 1 && ToDouble(yv.data<TE>()[0]) == 2.0) {
            BroadcastBinary<TB, TE, TB>(*x, yv, z, [](const TB& a, const TE&) { return a * a; });
            return Status::Ok();
          }
        }
        if constexpr (std::is_same_v<TB, float> && std::is_floating_point_v<TE>) {
          // One float or double exponent over a float base: vector_math (double exp and log in vector lanes).
          if (yv.size() == 1 && z.size() == x->size()) {
            const double e = static_cast<double>(yv.data<TE>()[0]);
            const float* in = x->data<float>();
            float* out = z.data<float>();
            ParallelFor(x->size(), 40,
                        [&](int64_t lo, int64_t hi) { kernels::PowScalarExponent(in + lo, out + lo, hi - lo, e); });
            return Status::Ok();
          }
        }
        BroadcastBinary<TB, TE, TB>(*x, yv, z, [](const TB& a, const TE& b) { return PowValue(a, b); });
        return Status::Ok();
      });
    });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

void RegisterPowOp(KernelRegistry& registry) { registry.Add("", "Pow", 1, kLatestVersion, MakeFactory<PowKernel>()); }

}  // namespace onyx::ops::elementwise
