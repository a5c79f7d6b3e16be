// Activation functions: Relu, LeakyRelu, PRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Elu, Selu, Celu,
// ThresholdedRelu, Softplus, Softsign, Mish, Gelu, Shrink, Swish.
#include <cmath>

#include "kernels/ort_order_math.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

template <typename C>
C StableSigmoid(C x) {
  if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
  const C e = std::exp(x);
  return e / (C(1) + e);
}

// Clamps to [0, 1], keeping NaN.
template <typename C>
C Clamp01(C v) {
  return v < C(0) ? C(0) : (v > C(1) ? C(1) : v);
}

// log(1 + exp(x)) without overflow for large x.
template <typename C>
C StableSoftplus(C x) {
  if (x > C(0)) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

struct ReluFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      return x < C(0) ? C(0) : x;  // keeps NaN
    }
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Relu(in, out, n); }
};

struct LeakyReluFn {
  float alpha = 0.01f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", 0.01f);
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x < C(0) ? static_cast<C>(alpha) * x : x;
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::LeakyRelu(in, out, n, alpha); }
};

struct ThresholdedReluFn {
  float alpha = 1.0f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", 1.0f);
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x > static_cast<C>(alpha) ? x : C(0);
  }
};

struct SigmoidFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return StableSigmoid(x);
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Sigmoid(in, out, n); }
};

struct HardSigmoidFn {
  float alpha = 0.2f;
  float beta = 0.5f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", 0.2f);
    beta = info.GetFloat("beta", 0.5f);
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    return Clamp01(static_cast<C>(alpha) * x + static_cast<C>(beta));
  }
};

struct HardSwishFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return x * Clamp01(x / C(6) + C(0.5));
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::HardSwish(in, out, n); }
};

struct TanhFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return std::tanh(x);
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Tanh(in, out, n); }
};

struct EluFn {
  float alpha = 1.0f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", 1.0f);
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x < C(0) ? static_cast<C>(alpha) * std::expm1(x) : x;
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const {
    kernels::ExpLinear(in, out, n, 1.0f, alpha, 1.0f);
  }
};

struct SeluFn {
  float alpha = 1.67326319217681884765625f;
  float gamma = 1.05070102214813232421875f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", alpha);
    gamma = info.GetFloat("gamma", gamma);
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    const C g = static_cast<C>(gamma);
    return x > C(0) ? g * x : g * static_cast<C>(alpha) * std::expm1(x);
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const {
    kernels::ExpLinear(in, out, n, gamma, gamma * alpha, 1.0f);
  }
};

struct CeluFn {
  float alpha = 1.0f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", 1.0f);
    if (alpha == 0.0f) return info.Error("attribute 'alpha' must not be 0");
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    const C a = static_cast<C>(alpha);
    return x > C(0) ? x : a * std::expm1(x / a);
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const {
    kernels::ExpLinear(in, out, n, 1.0f, alpha, alpha);
  }
};

struct SoftplusFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return StableSoftplus(x);
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Softplus(in, out, n); }
};

struct SoftsignFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return x / (C(1) + std::fabs(x));
  }
};

struct MishFn : NoAttributes {
  template <typename C>
  C operator()(C x) const {
    return x * std::tanh(StableSoftplus(x));
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Mish(in, out, n); }
};

struct GeluFn {
  bool tanh_approximation = false;
  bool ort_order = false;  // KernelInfo::ort_summation_order
  Status Init(const KernelInfo& info) {
    const std::string approximate = info.GetString("approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
      return info.Error("attribute 'approximate' is '" + approximate + "', expected 'none' or 'tanh'");
    }
    tanh_approximation = approximate == "tanh";
    ort_order = info.ort_summation_order();
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    if (tanh_approximation) {
      const C k = static_cast<C>(0.79788456080286535587989211986876);  // sqrt(2 / pi)
      return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
    }
    return C(0.5) * x * (C(1) + std::erf(x * static_cast<C>(0.70710678118654752440084436210485)));
  }
  void ApplyFloatArray(const float* in, float* out, int64_t n) const {
    if (tanh_approximation) {
      kernels::GeluTanh(in, out, n);
    } else if (ort_order) {
      kernels::OrtGelu(in, out, n, kernels::OrtMlasFlavor());  // ONNX Runtime's Gelu kernel, bit for bit
    } else {
      kernels::Gelu(in, out, n);
    }
  }
};

struct ShrinkFn {
  float lambd = 0.5f;
  float bias = 0.0f;
  Status Init(const KernelInfo& info) {
    lambd = info.GetFloat("lambd", 0.5f);
    bias = info.GetFloat("bias", 0.0f);
    return Status::Ok();
  }
  // float32: the same select, vectorized (bit-exact: one rounding of x +- bias either way).
  void ApplyFloatArray(const float* in, float* out, int64_t n) const { kernels::Shrink(in, out, n, lambd, bias); }
  // Integers too: computed in double and truncated back, as the reference casts its float result.
  template <typename C>
  C operator()(C x) const {
    const double v = static_cast<double>(x);
    const double r = v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0);
    if constexpr (std::is_integral_v<C>) {
      return SaturatingCast<C>(r);
    } else {
      return static_cast<C>(r);
    }
  }
};

struct SwishFn {
  float alpha = 1.0f;
  Status Init(const KernelInfo& info) {
    alpha = info.GetFloat("alpha", 1.0f);
    return Status::Ok();
  }
  template <typename C>
  C operator()(C x) const {
    return x * StableSigmoid(static_cast<C>(alpha) * x);
  }
};

// PRelu: y = x < 0 ? slope * x : x, with slope broadcasting to x's shape (unidirectionally). Before opset 7
// the slope could also be one value per channel (dimension 1), which numpy broadcasting does not express.
class PReluKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    legacy_ = info.since_version() < 7;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* slope, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(CheckSameType(*x, *slope, "X", "slope"));
    Tensor sv = *slope;
    auto shape = BroadcastShapes(x->shape(), slope->shape());
    if (!shape.ok() || *shape != x->shape()) {
      if (legacy_ && slope->rank() == 1 && x->rank() >= 2 && slope->dim(0) == x->dim(1)) {
        Shape s(static_cast<size_t>(x->rank()), 1);
        s[1] = slope->dim(0);
        ONYX_ASSIGN_OR_RETURN(sv, slope->Reshaped(std::move(s)));
      } else {
        return InvalidArgument("input 'slope' " + ShapeToString(slope->shape()) +
                               " does not broadcast to the shape of 'X' " + ShapeToString(x->shape()));
      }
    }
    if (x->type() == DataType::kFloat && PerChannelFloat(*x, sv, ctx)) return Status::Ok();
    return Dispatch<NumericTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
      BroadcastBinary<T, T, T>(*x, sv, y, [](const T& a, const T& s) {
        const auto v = ToCompute(a);
        using C = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_unsigned_v<C>) {
          return a;
        } else {
          return v < C(0) ? static_cast<T>(WrapMul(v, static_cast<C>(ToCompute(s)))) : a;
        }
      });
      return Status::Ok();
    });
  }

 private:
  // The common float case, one slope per channel ([C, 1, ..., 1] or [1, C, 1, ..., 1] against [N, C, ...]) or one
  // slope for all: each contiguous plane shares one slope, so the inner loop vectorizes. False for other shapes.
  static bool PerChannelFloat(const Tensor& x, const Tensor& slope, KernelContext& ctx) {
    if (x.rank() < 2) return false;
    if (BlockedFloat(x, slope, ctx)) return true;
    const int64_t channels = x.dim(1);
    int64_t plane = 1;
    for (int64_t d = 2; d < x.rank(); ++d) plane *= x.dim(d);
    const bool scalar = slope.size() == 1;
    if (!scalar) {
      // Right-aligned to x, the slope must be C at axis 1 and 1 everywhere else.
      const int64_t offset = x.rank() - slope.rank();
      if (offset < 0 || slope.size() != channels) return false;
      for (int64_t d = 0; d < slope.rank(); ++d) {
        const int64_t axis = d + offset;
        if (slope.dim(d) != (axis == 1 ? channels : 1)) return false;
      }
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x.shape());
    const float* in = x.data<float>();
    const float* s = slope.data<float>();
    float* out = y.data<float>();
    const int64_t planes = x.size() / std::max<int64_t>(plane, 1);
    ParallelFor(planes, plane, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const float k = s[scalar ? 0 : p % channels];
        const float* a = in + p * plane;
        float* b = out + p * plane;
        kernels::LeakyRelu(a, b, plane, k);  // a < 0 ? k a : a, bit for bit, vectorized (the branch was not)
      }
    });
    return true;
  }

  // The blocked layout's PRelu: x [N, blocks, H, W, B] with slope [1, blocks, 1, 1, B] (one slope per channel,
  // laid out by the blocked-layout pass): every plane of H * W pixels repeats its block's B slopes.
  static bool BlockedFloat(const Tensor& x, const Tensor& slope, KernelContext& ctx) {
    if (x.rank() != 5 || slope.rank() != 5 || slope.dim(0) != 1 || slope.dim(1) != x.dim(1) || slope.dim(2) != 1 ||
        slope.dim(3) != 1 || slope.dim(4) != x.dim(4)) {
      return false;
    }
    const int64_t blocks = x.dim(1), block = x.dim(4), pixels = x.dim(2) * x.dim(3);
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x.shape());
    const float* in = x.data<float>();
    const float* s = slope.data<float>();
    float* out = y.data<float>();
    auto planes = [&](auto fixed_block) {
      // A compile-time block (16, the blocked layout's) lets the inner loop become one vector operation.
      constexpr int64_t kFixed = decltype(fixed_block)::value;
      const int64_t bl = kFixed > 0 ? kFixed : block;
      ParallelFor(x.dim(0) * blocks, pixels * bl, [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const float* k = s + (p % blocks) * bl;
          const float* a = in + p * pixels * bl;
          float* b = out + p * pixels * bl;
          for (int64_t i = 0; i < pixels; ++i, a += bl, b += bl) {
            for (int64_t j = 0; j < bl; ++j) b[j] = a[j] < 0.0f ? a[j] * k[j] : a[j];
          }
        }
      });
    };
    if (block == 16) {
      planes(std::integral_constant<int64_t, 16>{});
    } else {
      planes(std::integral_constant<int64_t, 0>{});
    }
    return true;
  }

  bool legacy_ = false;
};

}  // namespace

void RegisterActivationOps(KernelRegistry& registry) {
  using SignedNumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;
  AddUnary<SignedNumericTypes, ReluFn>(registry, "Relu", 1);
  AddUnary<FloatTypes, LeakyReluFn>(registry, "LeakyRelu", 1);
  AddUnary<FloatTypes, ThresholdedReluFn>(registry, "ThresholdedRelu", 10);
  AddUnary<FloatTypes, SigmoidFn>(registry, "Sigmoid", 1);
  AddUnary<FloatTypes, HardSigmoidFn>(registry, "HardSigmoid", 1);
  AddUnary<FloatTypes, HardSwishFn>(registry, "HardSwish", 14);
  AddUnary<FloatTypes, TanhFn>(registry, "Tanh", 1);
  AddUnary<FloatTypes, EluFn>(registry, "Elu", 1);
  AddUnary<FloatTypes, SeluFn>(registry, "Selu", 1);
  AddUnary<FloatTypes, CeluFn>(registry, "Celu", 12);
  AddUnary<FloatTypes, SoftplusFn>(registry, "Softplus", 1);
  AddUnary<FloatTypes, SoftsignFn>(registry, "Softsign", 1);
  AddUnary<FloatTypes, MishFn>(registry, "Mish", 18);
  AddUnary<FloatTypes, GeluFn>(registry, "Gelu", 20);
  AddUnary<NumericTypes, ShrinkFn>(registry, "Shrink", 9);
  AddUnary<FloatTypes, SwishFn>(registry, "Swish", 24);
  registry.Add("", "PRelu", 1, kLatestVersion, MakeFactory<PReluKernel>());
}

}  // namespace onyx::ops::elementwise
