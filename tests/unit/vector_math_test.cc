// kernels/vector_math against double-precision std:: references: a sweep of every 1021st float bit pattern (all
// magnitudes, both signs, denormals), a dense linear sweep of [-12, 12], and the special values; on every
// instruction set Highway compiled in that this CPU supports, so the SSE4/AVX2 paths are checked on an AVX-512
// machine too. The bounds are the ones vector_math.h documents.
#include "kernels/vector_math.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/float16.h"
#include "op_test_helpers.h"

namespace onyx::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kFltMin = std::numeric_limits<float>::min();
constexpr double kFltMax = std::numeric_limits<float>::max();

using ArrayFn = void (*)(const float*, float*, int64_t);

std::vector<float> SweepInputs() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 1021) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (!std::isnan(x)) xs.push_back(x);
  }
  for (int i = -1200000; i <= 1200000; ++i) xs.push_back(static_cast<float>(i) * 1e-5f);
  for (float x :
       {0.0f,        -0.0f, kInf,      -kInf,    kNaN,  -kNaN,  1e-45f,  -1e-45f, 1e-38f,  -1e-38f, 0.921875f,
        0.92187494f, 4.0f,  88.72283f, 88.7229f, 89.0f, -87.3f, -103.9f, -104.1f, -150.0f, 3.4e38f, -3.4e38f}) {
    xs.push_back(x);
  }
  return xs;
}

// Error statistics of one function against its reference.
struct ErrorStats {
  double max_abs = 0;
  double max_rel = 0;  // over references of magnitude >= min_rel_magnitude
  float worst_x = 0;
  int64_t failures = 0;
  std::string first_failure;
};

// Checks got against ref for every x: equal NaN-ness, infinities matching (or a finite result at the float
// overflow threshold), and |got - ref| <= abs_tol + rel_tol |ref|.
ErrorStats Compare(const std::vector<float>& xs, const std::vector<float>& got, const std::vector<double>& refs,
                   double abs_tol, double rel_tol, double min_rel_magnitude = kFltMin) {
  ErrorStats s;
  auto fail = [&](size_t i, double r) {
    if (s.failures++ == 0) {
      s.first_failure = "x=" + std::to_string(xs[i]) + " (bits " + std::to_string(std::bit_cast<uint32_t>(xs[i])) +
                        ") got " + std::to_string(got[i]) + " expected " + std::to_string(r);
    }
  };
  for (size_t i = 0; i < xs.size(); ++i) {
    const double r = refs[i];
    const double g = got[i];
    if (std::isnan(r) || std::isnan(g)) {
      if (std::isnan(r) != std::isnan(g)) fail(i, r);
      continue;
    }
    if (std::isinf(g) || std::fabs(r) > kFltMax) {
      // Either side overflowing: the other must overflow too, or sit within rel_tol of the largest float.
      const bool same =
          std::signbit(g) == std::signbit(r) && std::min(std::fabs(g), std::fabs(r)) >= kFltMax * (1 - rel_tol);
      if (!same) fail(i, r);
      continue;
    }
    const double err = std::fabs(g - r);
    if (err > s.max_abs) s.max_abs = err;
    if (std::fabs(r) >= min_rel_magnitude) {
      const double rel = err / std::fabs(r);
      if (rel > s.max_rel) {
        s.max_rel = rel;
        s.worst_x = xs[i];
      }
    }
    if (!(err <= abs_tol + rel_tol * std::fabs(r))) fail(i, r);
  }
  return s;
}

std::vector<double> Reference(const std::function<double(double)>& ref, const std::vector<float>& xs) {
  std::vector<double> refs(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) refs[i] = ref(static_cast<double>(xs[i]));
  return refs;
}

std::vector<float> Apply(ArrayFn fn, const std::vector<float>& xs) {
  std::vector<float> out(xs.size());
  fn(xs.data(), out.data(), static_cast<int64_t>(xs.size()));
  return out;
}

// Runs body once per instruction set compiled in and supported here, then restores the normal dispatch.
void ForEachTarget(const std::function<void(const std::string&)>& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ASSERT_STREQ(ActiveTargetName(), hwy::TargetName(target));
    body(hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

struct Case {
  const char* name;
  ArrayFn fn;
  std::function<double(double)> ref;
  double abs_tol;
  double rel_tol;
  double min_rel_magnitude;
  double max_rel;  // bound on the worst relative error over results of magnitude >= min_rel_magnitude
};

double GeluRef(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double GeluTanhRef(double x) {
  // 0.5 x (1 + tanh(w)) = x / (1 + exp(-2w)), without the cancellation for negative x.
  const double w = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * w));
}
double SigmoidRef(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double SoftplusRef(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

// The exponential linear units through ExpLinear, with ONNX's default attributes (Celu with alpha 2, so that the
// divisor is not 1), against double references.
constexpr float kSeluAlpha = 1.67326319217681884765625f, kSeluGamma = 1.05070102214813232421875f;
void EluArray(const float* in, float* out, int64_t n) { ExpLinear(in, out, n, 1.0f, 1.0f, 1.0f); }
void SeluArray(const float* in, float* out, int64_t n) {
  ExpLinear(in, out, n, kSeluGamma, kSeluGamma * kSeluAlpha, 1.0f);
}
void Celu2Array(const float* in, float* out, int64_t n) { ExpLinear(in, out, n, 1.0f, 2.0f, 2.0f); }

std::vector<Case> Cases() {
  return {
      // Exp: relative on normal results; results in the subnormal range flush to zero (vector_math.h).
      {"Exp", Exp, [](double x) { return std::exp(x); }, kFltMin, 2e-7, kFltMin, 2e-7},
      {"Tanh", Tanh, [](double x) { return std::tanh(x); }, 1e-45, 5e-7, kFltMin, 5e-7},
      {"Sigmoid", Sigmoid, SigmoidRef, kFltMin, 3e-7, kFltMin, 3e-7},
      // Swish: x * sigmoid(x); where sigmoid flushes to 0 (x < -87.34) the result is 0 against ~-1e-36.
      {"Swish", Swish, [](double x) { return x * SigmoidRef(x); }, 1.1e-36, 4e-7, 1.1e-36, 4e-7},
      // Erf: absolute 2e-7 overall; relative 3e-7 where |x| < 0.92 (erf < 0.81) is checked separately below.
      {"Erf", Erf, [](double x) { return std::erf(x); }, 2e-7, 0, 1.0, 0},
      // The GELUs: within 5e-8 + 5e-7 |ref| everywhere (results below 5e-8 in magnitude, x < -5.6, may flush to
      // zero), and within a relative 1.5e-6 (erf form) / 2.5e-6 (tanh form) where |ref| >= 1e-6: for negative x
      // the float rounding of the exponent's argument becomes a relative error of the small result.
      {"Gelu", Gelu, GeluRef, 5e-8, 5e-7, 1e-6, 1.5e-6},
      {"GeluTanh", GeluTanh, GeluTanhRef, 5e-8, 5e-7, 1e-6, 2.5e-6},
      // The exponential linear units: Highway's expm1 (4 ulp) and one rounding more; measured 2.1e-7 at worst.
      {"Elu", EluArray, [](double x) { return x < 0 ? std::expm1(x) : x; }, 1e-45, 3e-7, kFltMin, 3e-7},
      {"Selu", SeluArray,
       [](double x) {
         return x > 0 ? double{kSeluGamma} * x : double{kSeluGamma} * double{kSeluAlpha} * std::expm1(x);
       },
       1e-45, 3e-7, kFltMin, 3e-7},
      // Celu: a subnormal x / alpha loses its last bits (one subnormal step, 1.4e-45, in the result).
      {"Celu", Celu2Array, [](double x) { return x > 0 ? x : 2.0 * std::expm1(x / 2.0); }, 3e-45, 3e-7, kFltMin, 3e-7},
      // Softplus: relative on normal results; below x = -87.3 (results under FLT_MIN) 0.
      {"Softplus", Softplus, SoftplusRef, kFltMin, 4e-7, kFltMin, 4e-7},
      // Mish: relative where e^x is normal; below (|result| < 1.1e-36) 0.
      {"Mish", Mish, [](double x) { return x * std::tanh(SoftplusRef(x)); }, 1.1e-36, 5e-7, 1.1e-36, 5e-7},
      // Sin, Cos: Highway's within |x| <= 39000 (3 ulp of the result, absolute near the zeros), std:: beyond.
      {"Sin", Sin, [](double x) { return std::sin(x); }, 1.2e-7, 4e-7, 1.0, 0},
      {"Cos", Cos, [](double x) { return std::cos(x); }, 1.2e-7, 4e-7, 1.0, 0},
      // The inverse functions: Highway's, measured below.
      {"Atan", Atan, [](double x) { return std::atan(x); }, 1e-45, 4e-7, kFltMin, 4e-7},
      {"Asin", Asin, [](double x) { return std::asin(x); }, 1e-45, 4e-7, kFltMin, 4e-7},
      {"Acos", Acos, [](double x) { return std::acos(x); }, 1e-45, 4e-7, kFltMin, 4e-7},
      // The hyperbolic functions and their inverses (Highway's; cosh from e^|x|), tan from double sin / cos: measured
      // 2.5e-7, 1.5e-7, 2.2e-7, 1.9e-7, 2.2e-7 and 8.5e-8 at worst.
      {"Sinh", Sinh, [](double x) { return std::sinh(x); }, 1e-45, 3e-7, kFltMin, 3e-7},
      {"Cosh", Cosh, [](double x) { return std::cosh(x); }, 1e-45, 2e-7, kFltMin, 2e-7},
      {"Asinh", Asinh, [](double x) { return std::asinh(x); }, 1e-45, 3e-7, kFltMin, 3e-7},
      {"Acosh", Acosh, [](double x) { return std::acosh(x); }, 1e-45, 3e-7, kFltMin, 3e-7},
      {"Atanh", Atanh, [](double x) { return std::atanh(x); }, 1e-45, 3e-7, kFltMin, 3e-7},
      {"Tan", Tan, [](double x) { return std::tan(x); }, 1e-45, 1.5e-7, kFltMin, 1.5e-7},
      {"Log", Log, [](double x) { return std::log(x); }, 1e-45, 1.5e-7, kFltMin, 1.5e-7},  // measured 8.4e-8
  };
}

TEST(VectorMath, ReportsItsTarget) {
  const std::string name = ActiveTargetName();
  EXPECT_FALSE(name.empty());
  std::cout << "vector_math dispatches to " << name << "\n";
}

TEST(VectorMath, AccurateOnDenseSweepEveryTarget) {
  const std::vector<float> xs = SweepInputs();
  for (const Case& c : Cases()) {
    const std::vector<double> refs = Reference(c.ref, xs);
    ForEachTarget([&](const std::string& target) {
      const std::vector<float> got = Apply(c.fn, xs);
      const ErrorStats s = Compare(xs, got, refs, c.abs_tol, c.rel_tol, c.min_rel_magnitude);
      std::cout << c.name << " on " << target << ": max abs " << s.max_abs << ", max rel " << s.max_rel
                << " at x=" << s.worst_x << "\n";
      EXPECT_EQ(s.failures, 0) << c.name << " on " << target << ": " << s.failures << " values out of bounds, first "
                               << s.first_failure;
      EXPECT_LE(s.max_rel, c.max_rel) << c.name << " on " << target << " at x=" << s.worst_x;
    });
  }
}

// LeakyRelu is exact: bit for bit the scalar x < 0 ? alpha x : x, on every target, including -0, infinities, NaN and
// a length that leaves a tail after the full vectors.
TEST(VectorMath, LeakyReluIsTheScalarExpressionBitForBit) {
  std::vector<float> xs = SweepInputs();
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1e-40f, -1e-40f}) xs.push_back(v);
  xs.push_back(-3.0f);  // odd length
  for (const float alpha : {0.01f, 0.2f, 0.0f, -1.5f}) {
    ForEachTarget([&](const std::string& target) {
      std::vector<float> got(xs.size());
      LeakyRelu(xs.data(), got.data(), static_cast<int64_t>(xs.size()), alpha);
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = xs[i] < 0.0f ? alpha * xs[i] : xs[i];
        ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want))
            << "LeakyRelu(" << xs[i] << ", alpha " << alpha << ") on " << target;
      }
    });
  }
}

// Shrink: bit for bit the operator's double computation rounded to float, for negative, zero and positive lambd.
TEST(VectorMath, ShrinkIsTheDoubleExpressionRoundedBitForBit) {
  std::vector<float> xs = SweepInputs();
  xs.push_back(0.5f);  // at lambd, and an odd length
  for (const auto& [lambd, bias] :
       {std::pair{0.5f, 0.0f}, std::pair{1.5f, 0.3f}, std::pair{0.0f, -2.0f}, std::pair{-1.0f, 1e-3f}}) {
    ForEachTarget([&](const std::string& target) {
      std::vector<float> got(xs.size());
      Shrink(xs.data(), got.data(), static_cast<int64_t>(xs.size()), lambd, bias);
      for (size_t i = 0; i < xs.size(); ++i) {
        const double v = xs[i];
        const auto want = static_cast<float>(v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0));
        ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want))
            << "Shrink(" << xs[i] << ", " << lambd << ", " << bias << ") on " << target;
      }
    });
  }
}

// Floor, Ceil, RoundHalfEven and Sqrt: the scalar functions' bits on every target (NaN stays NaN).
TEST(VectorMath, RoundingsAndSqrtAreTheScalarFunctionsBitForBit) {
  std::vector<float> xs = SweepInputs();
  for (float v : {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 8388607.5f, -0.0f}) xs.push_back(v);
  const std::vector<std::tuple<const char*, ArrayFn, float (*)(float)>> fns = {
      {"Floor", Floor, [](float x) { return std::floor(x); }},
      {"Ceil", Ceil, [](float x) { return std::ceil(x); }},
      {"RoundHalfEven", RoundHalfEven, [](float x) { return std::nearbyint(x); }},
      {"Sqrt", Sqrt, [](float x) { return std::sqrt(x); }}};
  for (const auto& [name, fn, scalar] : fns) {
    ForEachTarget([&](const std::string& target) {
      const std::vector<float> got = Apply(fn, xs);
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = scalar(xs[i]);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got[i])) << name << "(" << xs[i] << ") on " << target;
        } else {
          ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want))
              << name << "(" << xs[i] << ") on " << target;
        }
      }
    });
  }
}

// Max pooling's accumulations: the scalar (x > acc || x is NaN) ? x : acc bit for bit, NaNs and -inf included, for
// every tap count and lengths around the vector width (the stride-2 loads must stay inside 2(n - 1) + taps values).
TEST(VectorMath, NanMaxAccumulationsAreTheScalarRule) {
  std::vector<float> xs = SweepInputs();
  for (size_t i = 0; i < xs.size(); i += 101) xs[i] = i % 2 ? kNaN : -kInf;
  auto scalar = [](float acc, float x) { return (x > acc || x != x) ? x : acc; };
  ForEachTarget([&](const std::string& target) {
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{16}, int64_t{17}, int64_t{33}, int64_t{1000}}) {
      for (int64_t taps = 1; taps <= 3; ++taps) {
        const size_t need = static_cast<size_t>(2 * (n - 1) + taps);
        // The taps end exactly at the end of an allocation of their own size (a read past it is caught by ASan).
        for (size_t start = 0; start + need <= xs.size() && start < 40000; start += 9973) {
          std::vector<float> in(xs.begin() + static_cast<std::ptrdiff_t>(start),
                                xs.begin() + static_cast<std::ptrdiff_t>(start + need));
          std::vector<float> acc(static_cast<size_t>(n), std::numeric_limits<float>::lowest());
          std::vector<float> want = acc;
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t t = 0; t < taps; ++t) want[i] = scalar(want[i], in[2 * i + t]);
          }
          NanMaxTapsStride2(acc.data(), in.data(), n, taps, static_cast<int64_t>(need));
          std::vector<float> acc_more(static_cast<size_t>(n), std::numeric_limits<float>::lowest());
          std::vector<float> in_more(in);
          in_more.push_back(kNaN);  // readable one past the taps: never taken
          NanMaxTapsStride2(acc_more.data(), in_more.data(), n, taps, static_cast<int64_t>(need + 1));
          ASSERT_EQ(std::memcmp(acc_more.data(), acc.data(), acc.size() * sizeof(float)), 0) << n << " on " << target;
          for (int64_t i = 0; i < n; ++i) {
            ASSERT_EQ(std::bit_cast<uint32_t>(acc[i]), std::bit_cast<uint32_t>(want[i]))
                << "stride 2, " << taps << " taps, n " << n << ", i " << i << " on " << target;
          }
          std::vector<float> run(in.begin(), in.begin() + n), acc2(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) acc2[i] = in[need - 1 - i];
          std::vector<float> want2 = acc2;
          for (int64_t i = 0; i < n; ++i) want2[i] = scalar(want2[i], run[i]);
          NanMaxInto(acc2.data(), run.data(), n);
          for (int64_t i = 0; i < n; ++i) {
            ASSERT_EQ(std::bit_cast<uint32_t>(acc2[i]), std::bit_cast<uint32_t>(want2[i])) << i << " on " << target;
          }
        }
      }
    }
  });
}

// Relu likewise: x < 0 ? 0 : x bit for bit (-0 stays -0, NaN stays NaN).
TEST(VectorMath, ReluIsTheScalarExpressionBitForBit) {
  std::vector<float> xs = SweepInputs();
  xs.push_back(-3.0f);  // odd length
  ForEachTarget([&](const std::string& target) {
    std::vector<float> got(xs.size());
    Relu(xs.data(), got.data(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i) {
      const float want = xs[i] < 0.0f ? 0.0f : xs[i];
      ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want))
          << "Relu(" << xs[i] << ") on " << target;
    }
  });
}

// Half conversions: every half bit pattern to float, and floats of every magnitude (both signs, NaNs with payloads,
// the rounding ties and the subnormal halves) to half, bit for bit against core/float16.h, on every target.
TEST(VectorMath, HalfConversionsMatchTheScalarBits) {
  std::vector<uint16_t> halves(65536);
  for (uint32_t h = 0; h < 65536; ++h) halves[h] = static_cast<uint16_t>(h);
  std::vector<float> floats;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4093) floats.push_back(std::bit_cast<float>(uint32_t(bits)));
  for (uint32_t h = 0; h < 65536; ++h) {  // each half, and the midpoints to its neighbour (ties to even)
    const float f = onyx::HalfBitsToFloat(static_cast<uint16_t>(h));
    floats.push_back(f);
    floats.push_back(std::bit_cast<float>(std::bit_cast<uint32_t>(f) + 0x1000u));
    floats.push_back(std::bit_cast<float>(std::bit_cast<uint32_t>(f) + 0x0FFFu));
  }
  floats.push_back(std::bit_cast<float>(0x7f800001u));  // a signalling NaN
  floats.push_back(std::bit_cast<float>(0xffc12345u));
  ForEachTarget([&](const std::string& target) {
    std::vector<float> f(halves.size());
    HalfToFloat(halves.data(), f.data(), static_cast<int64_t>(halves.size()));
    for (size_t i = 0; i < halves.size(); ++i) {
      const float want = onyx::HalfBitsToFloat(halves[i]);
      if (std::isnan(want)) {  // F16C quiets a signalling NaN: the sign and the payload's top bits must stay
        ASSERT_EQ(std::bit_cast<uint32_t>(f[i]) | 0x00400000u, std::bit_cast<uint32_t>(want) | 0x00400000u)
            << "half bits " << halves[i] << " on " << target;
        continue;
      }
      ASSERT_EQ(std::bit_cast<uint32_t>(f[i]), std::bit_cast<uint32_t>(want))
          << "half bits " << halves[i] << " on " << target;
    }
    std::vector<uint16_t> h(floats.size());
    FloatToHalf(floats.data(), h.data(), static_cast<int64_t>(floats.size()));
    for (size_t i = 0; i < floats.size(); ++i) {
      ASSERT_EQ(h[i], onyx::FloatToHalfBits(floats[i]))
          << "float bits " << std::bit_cast<uint32_t>(floats[i]) << " on " << target;
    }
  });
}

// PowScalarExponent against std::pow in double rounded to float (the correctly rounded power): over every
// magnitude, both signs, zeros, infinities and NaN, for exponents of both signs, integral or not, on every target;
// never more than one float ulp apart, and that for at most 10 values per million.
TEST(VectorMath, PowScalarExponentIsTheRoundedDoublePow) {
  const std::vector<float> xs = SweepInputs();
  for (double e : {1.7, -0.5, 1.0 / 3, 2.5, -3.2, 10.0, 3.0, 0.0}) {
    ForEachTarget([&](const std::string& target) {
      std::vector<float> got(xs.size());
      PowScalarExponent(xs.data(), got.data(), static_cast<int64_t>(xs.size()), e);
      int64_t differ = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = static_cast<float>(std::pow(static_cast<double>(xs[i]), e));
        if (std::isnan(want) || std::isnan(got[i])) {
          ASSERT_EQ(std::isnan(want), std::isnan(got[i])) << xs[i] << "^" << e << " on " << target;
          continue;
        }
        if (got[i] == want) continue;
        ++differ;
        const int64_t gap = std::llabs(static_cast<int64_t>(std::bit_cast<int32_t>(got[i])) -
                                       static_cast<int64_t>(std::bit_cast<int32_t>(want)));
        ASSERT_LE(gap, 1) << xs[i] << "^" << e << " on " << target << ": " << got[i] << " vs " << want;
      }
      EXPECT_LE(differ, static_cast<int64_t>(xs.size() / 100000)) << "^" << e << " on " << target;
      std::cout << "Pow ^" << e << " on " << target << ": " << differ << " of " << xs.size() << " 1 ulp off\n";
    });
  }
}

// Fmod: std::fmod bit for bit (and the divisor-sign rule of Mod fmod=0), against divisors of every magnitude:
// quotients next to integers, at and above 2^24, zeros of both signs, infinities, NaNs, denormals; one divisor for all
// and one per dividend.
TEST(VectorMath, FmodIsStdFmodBitForBit) {
  std::vector<float> a = SweepInputs();
  std::mt19937 rng(7);
  std::vector<float> b(a.size());
  for (size_t i = 0; i < a.size(); ++i) b[i] = a[(i * 7919 + 13) % a.size()];
  // Quotients next to an integer: a = k b (rounded), nudged by an ulp either way.
  for (size_t i = 0; i + 3 < a.size(); i += 97) {
    const float d = std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000.0f, static_cast<int>(rng() % 40) - 20);
    const float k = static_cast<float>(rng() % 20000000);
    b[i] = b[i + 1] = b[i + 2] = d;
    a[i] = k * d;
    a[i + 1] = std::nextafter(a[i], kInf);
    a[i + 2] = -std::nextafter(a[i], 0.0f);
  }
  const std::vector<std::pair<float, float>> special = {
      {0.0f, 0.7f}, {-0.0f, 0.7f}, {-4.0f, 2.0f}, {4.0f, -2.0f}, {1.0f, 0.0f},     {1.0f, -0.0f},   {kInf, 1.0f},
      {1.0f, kInf}, {-1.0f, kInf}, {kNaN, 1.0f},  {1.0f, kNaN},  {1e-45f, 3e-45f}, {3e38f, 1e-38f}, {-7.5f, 0.7f}};
  for (size_t j = 0; j < special.size(); ++j) std::tie(a[j], b[j]) = special[j];
  auto check = [&](const std::vector<float>& got, const std::vector<float>& divisors, int64_t b_step, bool sign,
                   const std::string& target) {
    for (size_t i = 0; i < a.size(); ++i) {
      const float d = divisors[b_step * i];
      float want = std::fmod(a[i], d);
      if (sign && want != 0.0f && ((want < 0.0f) != (d < 0.0f))) want += d;
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got[i])) << a[i] << " mod " << d << " on " << target;
      } else {
        ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want))
            << a[i] << " mod " << d << " on " << target << ": " << got[i] << " vs " << want;
      }
    }
  };
  ForEachTarget([&](const std::string& target) {
    std::vector<float> got(a.size());
    for (bool sign : {false, true}) {
      Fmod(a.data(), b.data(), 1, got.data(), static_cast<int64_t>(a.size()), sign);
      check(got, b, 1, sign, target);
      for (float d : {0.7f, -3.0f, 1e-30f, 2.5e30f}) {
        const std::vector<float> one{d};
        Fmod(a.data(), one.data(), 0, got.data(), static_cast<int64_t>(a.size()), sign);
        check(got, one, 0, sign, target);
      }
    }
  });
}

// MaxPair / MinPair: the Max and Min operators' scalar rule bit for bit (NaN operands, signed zeros, infinities).
TEST(VectorMath, MaxMinPairsAreTheScalarRule) {
  std::vector<float> a = SweepInputs();
  std::vector<float> b(a.rbegin(), a.rend());
  for (size_t i = 0; i < a.size(); i += 7) b[i] = a[i];  // ties
  a[3] = kNaN;
  b[5] = -kNaN;
  a[11] = 0.0f;
  b[11] = -0.0f;
  ForEachTarget([&](const std::string& target) {
    std::vector<float> mx(a.size()), mn(a.size());
    MaxPair(a.data(), b.data(), mx.data(), static_cast<int64_t>(a.size()));
    MinPair(a.data(), b.data(), mn.data(), static_cast<int64_t>(a.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      const bool nan = std::isnan(a[i]) || std::isnan(b[i]);
      const float want_max = nan ? (std::isnan(a[i]) ? a[i] : b[i]) : (a[i] < b[i] ? b[i] : a[i]);
      const float want_min = nan ? (std::isnan(a[i]) ? a[i] : b[i]) : (b[i] < a[i] ? b[i] : a[i]);
      ASSERT_EQ(std::bit_cast<uint32_t>(mx[i]), std::bit_cast<uint32_t>(want_max)) << i << " on " << target;
      ASSERT_EQ(std::bit_cast<uint32_t>(mn[i]), std::bit_cast<uint32_t>(want_min)) << i << " on " << target;
    }
  });
}

TEST(VectorMath, ErfRelativeNearZero) {
  std::vector<float> xs;
  for (uint32_t bits = 0; bits < 0x3F6C0000u; bits += 401) {  // [0, 0.921875)
    xs.push_back(std::bit_cast<float>(bits));
    xs.push_back(-std::bit_cast<float>(bits));
  }
  const std::vector<double> refs = Reference([](double x) { return std::erf(x); }, xs);
  ForEachTarget([&](const std::string& target) {
    const std::vector<float> got = Apply(Erf, xs);
    const ErrorStats s = Compare(xs, got, refs, 1e-45, 3e-7);
    std::cout << "Erf (|x| < 0.92) on " << target << ": max rel " << s.max_rel << "\n";
    EXPECT_EQ(s.failures, 0) << target << ": " << s.first_failure;
  });
}

TEST(VectorMath, SpecialValues) {
  const std::vector<float> xs = {kNaN, kInf, -kInf, 0.0f, -0.0f, 1e30f, -1e30f};
  auto run = [&](ArrayFn fn) { return Apply(fn, xs); };
  for (ArrayFn fn : {Exp, Tanh, Sigmoid, Erf, Gelu, GeluTanh}) EXPECT_TRUE(std::isnan(run(fn)[0]));
  const auto e = run(Exp);
  EXPECT_EQ(e[1], kInf);
  EXPECT_EQ(e[2], 0.0f);
  EXPECT_EQ(e[3], 1.0f);
  EXPECT_EQ(e[5], kInf);
  EXPECT_EQ(e[6], 0.0f);
  const auto t = run(Tanh);
  EXPECT_EQ(t[1], 1.0f);
  EXPECT_EQ(t[2], -1.0f);
  EXPECT_TRUE(t[4] == 0.0f && std::signbit(t[4]));
  const auto s = run(Sigmoid);
  EXPECT_EQ(s[1], 1.0f);
  EXPECT_EQ(s[2], 0.0f);
  EXPECT_EQ(s[3], 0.5f);
  EXPECT_EQ(s[6], 0.0f);
  const auto r = run(Erf);
  EXPECT_EQ(r[1], 1.0f);
  EXPECT_EQ(r[2], -1.0f);
  EXPECT_TRUE(r[4] == 0.0f && std::signbit(r[4]));
  EXPECT_EQ(r[5], 1.0f);
  const auto g = run(Gelu);
  EXPECT_EQ(g[1], kInf);
  EXPECT_TRUE(std::isnan(g[2]));  // -inf * 0, as the formula (and the scalar kernels) give
  EXPECT_EQ(g[5], 1e30f);
  EXPECT_EQ(g[6], 0.0f);
  const auto gt = run(GeluTanh);
  EXPECT_EQ(gt[1], kInf);
  EXPECT_EQ(gt[5], 1e30f);
  EXPECT_EQ(gt[6], 0.0f);
}

#if defined(__x86_64__)
// Inputs of large magnitude never make a function consume or produce a subnormal float (each such lane costs a
// microcode assist, several times the lane's cost): the MXCSR's sticky denormal-operand (DE) and underflow (UE) flags
// stay clear. Sweeps |x| in [30, 1e4] and [1e-37, 1e-3] (Exp over its finite range) on every target; the Softmax
// row spans 200 and has nearly equal values.
TEST(VectorMath, NoSubnormalsOnLargeInputs) {
  constexpr unsigned kDenormalFlag = 0x0002, kUnderflowFlag = 0x0010;
  std::vector<float> big;  // and tiny: |x| in [1e-37, 1e-3] (a network's vanishing activations)
  for (float a = 30.0f; a < 1e4f; a *= 1.0007f) {
    big.push_back(a);
    big.push_back(-a);
  }
  for (float a = 1e-37f; a < 1e-3f; a *= 1.01f) {
    big.push_back(a);
    big.push_back(-a);
  }
  std::vector<float> exp_in;  // Exp below its overflow: [-1e4, 88]
  for (float v : big) {
    if (v < 88.0f) exp_in.push_back(v);
  }
  std::vector<float> row(4096);
  for (size_t i = 0; i < row.size(); ++i) row[i] = -100.0f + 200.0f * static_cast<float>(i) / row.size();
  std::vector<float> near_equal(256);  // e^(x - max) of tiny arguments (x - max down to 1 ulp of 1e-3)
  for (size_t i = 0; i < near_equal.size(); ++i) near_equal[i] = 1e-3f + 1.2e-10f * static_cast<float>(i);
  // The MXCSR's subnormal flags that `run` raises.
  auto flags_raised = [&](const auto& run) {
    _mm_setcsr(_mm_getcsr() & ~(kDenormalFlag | kUnderflowFlag));
    run();
    return _mm_getcsr() & (kDenormalFlag | kUnderflowFlag);
  };
  ForEachTarget([&](const std::string& target) {
    for (auto [name, fn, xs] : {std::tuple<const char*, ArrayFn, const std::vector<float>*>{"Exp", Exp, &exp_in},
                                {"Sigmoid", Sigmoid, &big},
                                {"Swish", Swish, &big},
                                {"Tanh", Tanh, &big},
                                {"Gelu", Gelu, &big},
                                {"GeluTanh", GeluTanh, &big},
                                {"Elu", EluArray, &big},
                                {"Selu", SeluArray, &big},
                                {"Softplus", Softplus, &big},
                                {"Mish", Mish, &big}}) {
      std::vector<float> out(xs->size());
      EXPECT_EQ(flags_raised([&] { fn(xs->data(), out.data(), static_cast<int64_t>(xs->size())); }), 0u)
          << name << " on " << target;
      for (float y : out) EXPECT_TRUE(y == 0.0f || std::fabs(y) >= kFltMin) << name << " on " << target << ": " << y;
    }
    for (const std::vector<float>* r : {&row, &near_equal}) {
      std::vector<float> out(r->size());
      EXPECT_EQ(flags_raised([&] { SoftmaxRow(r->data(), out.data(), static_cast<int64_t>(r->size())); }), 0u)
          << "SoftmaxRow on " << target;
    }
  });
}
#endif

// Odd lengths exercise the vector body and the one-lane tail; in place must equal out of place.
TEST(VectorMath, OddLengthsAndInPlace) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-9.0f, 9.0f);
  for (int64_t n : {0, 1, 7, 17, 1000003}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = dist(rng);
    for (ArrayFn fn : {Exp, Tanh, Sigmoid, Erf, Gelu, GeluTanh}) {
      // Sentinels after the end must stay untouched.
      std::vector<float> out(x.size() + 3, 42.0f);
      fn(x.data(), out.data(), n);
      for (size_t k = 0; k < 3; ++k) EXPECT_EQ(out[x.size() + k], 42.0f) << "n=" << n;
      std::vector<float> in_place = x;
      fn(in_place.data(), in_place.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(std::bit_cast<uint32_t>(in_place[i]), std::bit_cast<uint32_t>(out[i]));
      // Each element is computed on its own: the tail (one lane) agrees with the vector body within rounding.
      if (n > 0) {
        float last = 0;
        fn(&x[n - 1], &last, 1);
        EXPECT_NEAR(last, out[n - 1], 1e-6f * (1 + std::fabs(last))) << "n=" << n;
      }
    }
  }
}

// Softmax rows against a double reference.
std::vector<double> SoftmaxRef(const std::vector<float>& x, bool log) {
  double max = -INFINITY;
  for (float v : x) max = std::max(max, static_cast<double>(v));
  double sum = 0;
  for (float v : x) sum += std::exp(v - max);
  std::vector<double> y;
  for (float v : x) y.push_back(log ? v - max - std::log(sum) : std::exp(v - max) / sum);
  return y;
}

TEST(VectorMath, SoftmaxRowsMatchDouble) {
  std::mt19937 rng(11);
  ForEachTarget([&](const std::string& target) {
    for (int64_t n : {1, 2, 7, 17, 64, 1000, 4099, 1000003}) {
      for (float spread : {1.0f, 30.0f, 200.0f}) {
        std::uniform_real_distribution<float> dist(-spread, spread);
        std::vector<float> x(static_cast<size_t>(n));
        for (float& v : x) v = dist(rng);
        if (n > 3) x[2] = -kInf;  // contributes exp(-inf) = 0
        const auto ref = SoftmaxRef(x, false);
        const auto log_ref = SoftmaxRef(x, true);
        std::vector<float> y(x.size());
        SoftmaxRow(x.data(), y.data(), n);
        const double max = *std::max_element(x.begin(), x.end());
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          sum += y[i];
          // exp(x - max) in float: x - max rounds to half an ulp of itself, which exp turns into a relative
          // error of |x - max| 2^-24; the exponential and the scaling add a few more roundings.
          const double shift = max - x[i];
          if (ref[i] == 0) {
            ASSERT_EQ(y[i], 0.0f) << target << " n=" << n << " i=" << i;
            continue;
          }
          // Results in the subnormal range (and those rounding to its edge) may flush to zero (vector_math.h).
          const double flush = ref[i] < kFltMin * 1.00001 ? kFltMin : 1e-44;
          const double tol = ref[i] * (4e-7 + shift * 6e-8) + flush;
          ASSERT_NEAR(y[i], ref[i], tol) << target << " n=" << n << " i=" << i;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << target << " n=" << n;
        std::vector<float> ly = x;  // in place
        LogSoftmaxRow(ly.data(), ly.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          if (std::isinf(log_ref[i])) {
            ASSERT_EQ(ly[i], -kInf);
          } else {
            ASSERT_NEAR(ly[i], log_ref[i], 2e-7 * std::fabs(log_ref[i]) + 2e-7) << target << " n=" << n << " i=" << i;
          }
        }
      }
    }
  });
}

TEST(VectorMath, SoftmaxRowsWithoutFiniteMaximumAreNaN) {
  const std::vector<std::vector<float>> rows = {{1.0f, kNaN, 2.0f},
                                                {kNaN},
                                                {1.0f, kInf, 2.0f},
                                                {-kInf, -kInf},
                                                {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, kNaN}};
  for (const auto& x : rows) {
    std::vector<float> y(x.size()), ly(x.size());
    SoftmaxRow(x.data(), y.data(), static_cast<int64_t>(x.size()));
    LogSoftmaxRow(x.data(), ly.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(std::isnan(y[i]));
      EXPECT_TRUE(std::isnan(ly[i]));
    }
  }
  // Large finite values do not overflow.
  const std::vector<float> big = {3e38f, 3e38f, -3e38f};
  std::vector<float> y(3);
  SoftmaxRow(big.data(), y.data(), 3);
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 0.0f);
}

// The operators route float32 through these kernels, split across threads: every element must match the double
// reference within the kernels' bounds, whichever chunk (vector body or one-lane tail) computed it.
TEST(VectorMath, OperatorsUseTheKernelsOnLargeTensors) {
  const int64_t n = 300007;  // odd, and far above the threading threshold
  std::vector<float> x(static_cast<size_t>(n));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  for (float& v : x) v = dist(rng);
  struct OpCase {
    const char* op;
    int64_t opset;
    std::string approximate;
    std::function<double(double)> ref;
    double rel;
  };
  const std::vector<OpCase> cases = {
      {"Sigmoid", 13, "", SigmoidRef, 3e-7},
      {"Tanh", 13, "", [](double v) { return std::tanh(v); }, 5e-7},
      {"Exp", 13, "", [](double v) { return std::exp(v); }, 2e-7},
      {"Erf", 13, "", [](double v) { return std::erf(v); }, 2e-7},
      {"Gelu", 20, "none", GeluRef, 5e-7},
      {"Gelu", 20, "tanh", GeluTanhRef, 5e-7},
  };
  for (const OpCase& c : cases) {
    testing::OpTest t = testing::Op(c.op, c.opset);
    if (!c.approximate.empty()) t.Attr("approximate", c.approximate);
    t.Input(testing::F(x, {n}));
    const Tensor y = testing::RunOk(t);
    ASSERT_EQ(y.size(), n) << c.op;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double r = c.ref(x[i]);
      // Erf's bound is absolute; the others' relative (plus the GELUs' 5e-8 flush).
      const double tol = std::string(c.op) == "Erf" ? c.rel : 5e-8 + c.rel * std::fabs(r);
      if (!(std::fabs(y.data<float>()[i] - r) <= tol)) ++bad;
    }
    EXPECT_EQ(bad, 0) << c.op << " " << c.approximate;
  }
}

// Softmax and LogSoftmax along the last axis and along a strided axis (rows gathered in blocks of 16, 513 of them:
// a partial block) go through the same row kernels: bit for bit the same values.
TEST(VectorMath, SoftmaxOperatorRowsMatchStridedAxis) {
  const int64_t rows = 513, cols = 77;
  std::vector<float> x(static_cast<size_t>(rows * cols)), xt(x.size());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  for (float& v : x) v = dist(rng);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) xt[c * rows + r] = x[r * cols + c];
  }
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const Tensor last =
        testing::RunOk(testing::Op(op, 13).Attr("axis", int64_t{-1}).Input(testing::F(x, {rows, cols})));
    const Tensor first =
        testing::RunOk(testing::Op(op, 13).Attr("axis", int64_t{0}).Input(testing::F(xt, {cols, rows})));
    ASSERT_EQ(last.size(), rows * cols);
    ASSERT_EQ(first.size(), rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const float a = last.data<float>()[r * cols + c];
        const float b = first.data<float>()[c * rows + r];
        ASSERT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b)) << op << " row " << r << " col " << c;
      }
    }
  }
}

}  // namespace
}  // namespace onyx::kernels
