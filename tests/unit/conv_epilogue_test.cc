// kernels/conv_epilogue.h's activations in registers (those of onyx's own direct and Winograd convolutions) against
// their definitions computed in double: Swish (x * sigmoid(x), through ExpApprox) across the whole float range, its
// extremes and NaN, and HardSwish.
#include "kernels/conv_epilogue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace onyx::kernels {
namespace {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
// e's activation on 8 values, through memory (no vector crosses a call).
void Apply8(const float* in, float* out, const ConvEpilogue& e) {
  _mm256_storeu_ps(out, ApplyActivation(_mm256_loadu_ps(in), e));
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
// e's activation on 16 values (the AVX-512 kernels' form).
void Apply16(const float* in, float* out, const ConvEpilogue& e) {
  _mm512_storeu_ps(out, ApplyActivation16(_mm512_loadu_ps(in), e));
}
#pragma GCC pop_options

bool Avx2Here() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

// `values` through e's activation, 8 at a time (the tail padded with zeros).
std::vector<float> Apply(std::vector<float> values, const ConvEpilogue& e) {
  const size_t n = values.size();
  values.resize((n + 7) / 8 * 8, 0.0f);
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); i += 8) Apply8(values.data() + i, out.data() + i, e);
  out.resize(n);
  return out;
}

TEST(ConvEpilogue, SwishMatchesItsDefinition) {
  if (!Avx2Here()) GTEST_SKIP() << "needs AVX2 + FMA";
  std::vector<float> x;
  for (float v = -120.0f; v <= 120.0f; v += 0.013f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-6f, -1e-6f, 87.0f, 88.5f, 89.0f, -87.0f, -88.0f, -89.0f}) {
    x.push_back(v);
  }
  const std::vector<float> y = Apply(x, {false, ConvEpilogue::Activation::kSwish, 0, 0});
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double expected = v / (1.0 + std::exp(-v));
    // Relative within a few ulp where the result is a normal float; below that (x < -80: sigmoid underflows) the
    // result only has to be as tiny.
    const double tolerance = std::max(4e-7 * std::fabs(expected), 1e-30);
    ASSERT_NEAR(y[i], expected, tolerance) << "Swish(" << x[i] << ")";
  }
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special =
      Apply({inf, std::numeric_limits<float>::quiet_NaN()}, {false, ConvEpilogue::Activation::kSwish, 0, 0});
  EXPECT_EQ(special[0], inf);
  EXPECT_TRUE(std::isnan(special[1]));
}

// The 16-lane form (AVX-512 kernels) gives the 8-lane one's bits, so that a choice between kernels of either width
// never changes a value: Swish (its own 16-lane code) and HardSwish, over the sweep and the special values.
TEST(ConvEpilogue, SixteenLanesGiveTheEightLaneBits) {
  if (!Avx2Here() || !__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "needs AVX-512F";
  std::vector<float> x;
  for (float v = -120.0f; v <= 120.0f; v += 0.0137f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 88.5f, -88.5f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    x.push_back(v);
  }
  x.resize((x.size() + 15) / 16 * 16, 1.0f);
  for (auto act : {ConvEpilogue::Activation::kSwish, ConvEpilogue::Activation::kHardSwish}) {
    const ConvEpilogue e{false, act, 0, 0};
    const std::vector<float> eight = Apply(x, e);
    std::vector<float> sixteen(x.size());
    for (size_t i = 0; i < x.size(); i += 16) Apply16(x.data() + i, sixteen.data() + i, e);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(eight[i])) {
        EXPECT_TRUE(std::isnan(sixteen[i])) << x[i];
      } else {
        EXPECT_EQ(std::bit_cast<uint32_t>(eight[i]), std::bit_cast<uint32_t>(sixteen[i])) << x[i];
      }
    }
  }
}

TEST(ConvEpilogue, HardSwishMatchesOnnx) {
  if (!Avx2Here()) GTEST_SKIP() << "needs AVX2 + FMA";
  std::vector<float> x;
  for (float v = -8.0f; v <= 8.0f; v += 0.01f) x.push_back(v);
  const std::vector<float> y = Apply(x, {false, ConvEpilogue::Activation::kHardSwish, 0, 0});
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double expected = v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0);
    ASSERT_NEAR(y[i], expected, 2e-7 * std::fabs(expected) + 1e-7) << "HardSwish(" << x[i] << ")";
  }
}

}  // namespace
}  // namespace onyx::kernels
