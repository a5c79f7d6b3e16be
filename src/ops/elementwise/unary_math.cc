// Elementwise math functions of one input: Abs, Neg, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round, Sign,
// trigonometric and hyperbolic functions, Erf, IsNaN, IsInf, Not, BitwiseNot.
#include <cmath>

#include "kernels/ort_order_math.h"
#include "kernels/vector_math.h"
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

using SignedNumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;

struct AbsFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else if constexpr (std::is_integral_v<C>) {
      return x < 0 ? WrapNeg(x) : x;  // abs(INT_MIN) wraps to itself, as two's complement hardware does
    } else {
      return std::fabs(x);
    }
  }
};

struct NegFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return WrapNeg(x);
  }
};

struct SignFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    if (x > C(0)) return C(1);
    if constexpr (std::is_signed_v<C> || std::is_floating_point_v<C>) {
      if (x < C(0)) return C(-1);
    }
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
    }
    return C(0);
  }
};

struct ErfFn {
  // Under KernelInfo::ort_summation_order float32 takes ONNX Runtime's own erf (MLAS's polynomial, bit for bit):
  // Erf feeds Gelu in exported transformers, and a quantized model re-quantizes right after it.
  Status Init(const KernelInfo& info) {
    ort_order = info.ort_summation_order();
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::erf(x);
    } else {
      return static_cast<C>(std::erf(static_cast<double>(x)));  // -1, 0 or 1 once truncated
    }
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const {
    if (ort_order) {
      kernels::OrtErf(in, out, n);
    } else {
      kernels::Erf(in, out, n);
    }
  }
  bool ort_order = false;
};

struct ExpFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::exp(x);
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Exp(in, out, n); }
};

// Functions defined only for floating point inputs whose float arrays go through a vector_math kernel: Sin and Cos
// (Highway's 3-ulp polynomials where |x| <= 39000), Asin, Acos and Atan (Highway's polynomials), Tan (double lanes),
// the hyperbolic functions and their inverses and Log (Highway's, std:: at the domain's edges), Sqrt, Floor, Ceil
// and Round (exact vector instructions).
#define ONYX_FLOAT_UNARY_ARRAY_FN(Name, expr, array_fn)                                          \
  struct Name : NoAttributes {                                                                   \
    template <typename C>                                                                        \
    C operator()(C x) const {                                                                    \
      return expr;                                                                               \
    }                                                                                            \
    void ApplyFloatArray(const float* in, float* out, int64_t n) const { array_fn(in, out, n); } \
  };
ONYX_FLOAT_UNARY_ARRAY_FN(SinFn, std::sin(x), kernels::Sin)
ONYX_FLOAT_UNARY_ARRAY_FN(CosFn, std::cos(x), kernels::Cos)
ONYX_FLOAT_UNARY_ARRAY_FN(AsinFn, std::asin(x), kernels::Asin)
ONYX_FLOAT_UNARY_ARRAY_FN(AcosFn, std::acos(x), kernels::Acos)
ONYX_FLOAT_UNARY_ARRAY_FN(AtanFn, std::atan(x), kernels::Atan)
ONYX_FLOAT_UNARY_ARRAY_FN(TanFn, std::tan(x), kernels::Tan)
ONYX_FLOAT_UNARY_ARRAY_FN(SinhFn, std::sinh(x), kernels::Sinh)
ONYX_FLOAT_UNARY_ARRAY_FN(CoshFn, std::cosh(x), kernels::Cosh)
ONYX_FLOAT_UNARY_ARRAY_FN(AsinhFn, std::asinh(x), kernels::Asinh)
ONYX_FLOAT_UNARY_ARRAY_FN(AcoshFn, std::acosh(x), kernels::Acosh)
ONYX_FLOAT_UNARY_ARRAY_FN(AtanhFn, std::atanh(x), kernels::Atanh)
ONYX_FLOAT_UNARY_ARRAY_FN(LogFn, std::log(x), kernels::Log)
ONYX_FLOAT_UNARY_ARRAY_FN(SqrtFn, std::sqrt(x), kernels::Sqrt)
ONYX_FLOAT_UNARY_ARRAY_FN(FloorFn, std::floor(x), kernels::Floor)
ONYX_FLOAT_UNARY_ARRAY_FN(CeilFn, std::ceil(x), kernels::Ceil)
ONYX_FLOAT_UNARY_ARRAY_FN(RoundFn, std::nearbyint(x), kernels::RoundHalfEven)  // the default mode: half to even
#undef ONYX_FLOAT_UNARY_ARRAY_FN

// Functions defined only for floating point inputs.
#define ONYX_FLOAT_UNARY_FN(Name, expr) \
  struct Name : NoAttributes {          \
    template <typename C>               \
    C operator()(C x) const {           \
      return expr;                      \
    }                                   \
  };
ONYX_FLOAT_UNARY_FN(ReciprocalFn, C(1) / x)
#undef ONYX_FLOAT_UNARY_FN

struct NotFn : NoAttributes {
  bool operator()(bool x) const { return !x; }
};

struct BitwiseNotFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(~x);
  }
};

// IsNaN and IsInf: float input, bool output.
class FloatClassKernel : public OpKernel {
 public:
  explicit FloatClassKernel(bool is_inf) : is_inf_(is_inf) {}
  Status Init(const KernelInfo& info) override {
    if (!is_inf_) return Status::Ok();
    detect_negative_ = info.GetInt("detect_negative", 1) != 0;
    detect_positive_ = info.GetInt("detect_positive", 1) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.AllocateOutput(0, DataType::kBool, x->shape());
      const T* px = x->data<T>();
      bool* py = y.data<bool>();
      for (int64_t i = 0; i < x->size(); ++i) {
        const auto v = ToCompute(px[i]);
        if (is_inf_) {
          py[i] = std::isinf(v) && (v > 0 ? detect_positive_ : detect_negative_);
        } else {
          py[i] = std::isnan(v);
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool is_inf_;
  bool detect_negative_ = true;
  bool detect_positive_ = true;
};

template <bool kIsInf>
class FloatClassKernelOf : public FloatClassKernel {
 public:
  FloatClassKernelOf() : FloatClassKernel(kIsInf) {}
};

}  // namespace

void RegisterUnaryMathOps(KernelRegistry& registry) {
  AddUnary<NumericTypes, AbsFn>(registry, "Abs", 1);
  AddUnary<SignedNumericTypes, NegFn>(registry, "Neg", 1);
  AddUnary<NumericTypes, SignFn>(registry, "Sign", 9);
  AddUnary<NumericTypes, ErfFn>(registry, "Erf", 9);
  AddUnary<FloatTypes, ExpFn>(registry, "Exp", 1);
  AddUnary<FloatTypes, LogFn>(registry, "Log", 1);
  AddUnary<FloatTypes, SqrtFn>(registry, "Sqrt", 1);
  AddUnary<FloatTypes, ReciprocalFn>(registry, "Reciprocal", 1);
  AddUnary<FloatTypes, FloorFn>(registry, "Floor", 1);
  AddUnary<FloatTypes, CeilFn>(registry, "Ceil", 1);
  AddUnary<FloatTypes, RoundFn>(registry, "Round", 11);
  AddUnary<FloatTypes, SinFn>(registry, "Sin", 7);
  AddUnary<FloatTypes, CosFn>(registry, "Cos", 7);
  AddUnary<FloatTypes, TanFn>(registry, "Tan", 7);
  AddUnary<FloatTypes, AsinFn>(registry, "Asin", 7);
  AddUnary<FloatTypes, AcosFn>(registry, "Acos", 7);
  AddUnary<FloatTypes, AtanFn>(registry, "Atan", 7);
  AddUnary<FloatTypes, SinhFn>(registry, "Sinh", 9);
  AddUnary<FloatTypes, CoshFn>(registry, "Cosh", 9);
  AddUnary<FloatTypes, AsinhFn>(registry, "Asinh", 9);
  AddUnary<FloatTypes, AcoshFn>(registry, "Acosh", 9);
  AddUnary<FloatTypes, AtanhFn>(registry, "Atanh", 9);
  AddUnary<TypeList<bool>, NotFn>(registry, "Not", 1);
  AddUnary<IntTypes, BitwiseNotFn>(registry, "BitwiseNot", 18);
  registry.Add("", "IsNaN", 9, kLatestVersion, MakeFactory<FloatClassKernelOf<false>>());
  registry.Add("", "IsInf", 10, kLatestVersion, MakeFactory<FloatClassKernelOf<true>>());
}

}  // namespace onyx::ops::elementwise
