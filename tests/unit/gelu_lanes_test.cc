// kernels::Gelu gives an element the same bits whatever the other lanes of its vector hold (vectors without NaN or
// tiny lanes skip those lanes' fix-ups: src/kernels/vector_math.cc GeluArray) and wherever it lies in the array (the
// tail runs as one more whole vector), within the documented error of the exact GELU (tests/unit/vector_math_test.cc
// sweeps the whole range).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/vector_math.h"

namespace onyx {
namespace {

TEST(GeluLanes, FixUpPathGivesTheCommonPathsBits) {
  std::mt19937_64 rng(5);
  std::normal_distribution<float> normal(0.0f, 2.0f);  // both signs, past the clamp at 4 sqrt 2 now and then
  const size_t n = 4099;                               // odd: the scalar tail too
  std::vector<float> x(n);
  for (auto& v : x) v = normal(rng);
  x[7] = 0.0f;
  x[9] = -0.0f;
  x[13] = 9.0f;
  x[14] = -9.0f;
  // Every fourth value NaN or below 2^-40 in magnitude: every vector of 4 or more lanes then holds one and takes the
  // fix-up path for all its lanes.
  std::vector<float> mixed = x;
  for (size_t i = 0; i < n; i += 4) {
    mixed[i] = (i % 8 == 0) ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::denorm_min();
  }
  std::vector<float> alone(n), mixed_out(n);
  kernels::Gelu(x.data(), alone.data(), static_cast<int64_t>(n));
  kernels::Gelu(mixed.data(), mixed_out.data(), static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    if (i % 4 == 0) {
      if (i % 8 == 0) {
        EXPECT_TRUE(std::isnan(mixed_out[i])) << i;
      } else {
        EXPECT_EQ(mixed_out[i], 0.5f * std::numeric_limits<float>::denorm_min()) << i;
      }
      continue;
    }
    uint32_t a, b;
    std::memcpy(&a, &alone[i], 4);
    std::memcpy(&b, &mixed_out[i], 4);
    ASSERT_EQ(a, b) << "x = " << x[i] << ": " << alone[i] << " vs " << mixed_out[i];
  }
  for (size_t i = 0; i < n; ++i) {
    const double exact = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
    ASSERT_NEAR(alone[i], exact, 5e-8 + 5e-7 * std::abs(exact)) << "x = " << x[i];
  }
  EXPECT_TRUE(std::signbit(alone[9])) << "GELU(-0) is -0";
}

// An element of the array's tail (fewer values left than a vector holds) gets the bits the vector body gives it.
TEST(GeluLanes, TailSameBitsAsTheVectorBody) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> dist(-7.0f, 7.0f);
  std::vector<float> x(1024);
  for (auto& v : x) v = dist(rng);
  std::vector<float> body(x.size());
  kernels::Gelu(x.data(), body.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    for (int64_t len : {1, 3}) {
      if (i + static_cast<size_t>(len) > x.size()) continue;
      float y[3];
      kernels::Gelu(&x[i], y, len);
      uint32_t a, b;
      std::memcpy(&a, &body[i], 4);
      std::memcpy(&b, &y[0], 4);
      ASSERT_EQ(a, b) << "x = " << x[i] << ", length " << len;
    }
  }
}

TEST(GeluLanes, NaNLanesTakeTheFixUpPath) {
  std::vector<float> x(64, 0.5f);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> y(64);
  kernels::Gelu(x.data(), y.data(), 64);
  EXPECT_TRUE(std::isnan(y[3]));
  const float want = static_cast<float>(0.5 * 0.5 * (1.0 + std::erf(0.5 / std::sqrt(2.0))));
  for (size_t i = 0; i < 64; ++i) {
    if (i != 3) {
      EXPECT_NEAR(y[i], want, 1e-7) << i;
    }
  }
}

}  // namespace
}  // namespace onyx
