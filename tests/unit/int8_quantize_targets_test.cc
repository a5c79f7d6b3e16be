// kernels::MinMaxWithZero and kernels::QuantizeFloat (kernels/int8_quantize.h) on every Highway target this CPU
// runs, against their scalar definitions: NaNs skipped (min/max) or mapped to the NaN value (quantize), signed zeros,
// infinities, ties and values next to them, saturation at both ends, lengths around the vector sizes. These are the
// loops DynamicQuantizeLinear and the fused DynamicQuantizeMatMul share, so they must agree byte for byte everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "hwy_test_targets.h"
#include "kernels/int8_quantize.h"

namespace onyx {
namespace {

// Values that stress the loops: a random body with NaNs, infinities and signed zeros sprinkled in.
std::vector<float> Data(size_t n, uint32_t seed, float spread) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> x(n);
  for (float& v : x) v = normal(rng);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (size_t i = 0; i < n; i += 7 + rng() % 13) x[i] = specials[rng() % 5];
  return x;
}

void ScalarMinMax(const float* x, int64_t n, float* lo, float* hi) {
  float l = 0.0f, h = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    l = x[i] < l ? x[i] : l;
    h = x[i] > h ? x[i] : h;
  }
  *lo = l;
  *hi = h;
}

TEST(Int8QuantizeTargets, MinMaxWithZeroMatchesTheScalarLoop) {
  for (int64_t target : HwyTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    for (size_t n : {0, 1, 3, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 4099}) {
      for (uint32_t seed : {1u, 2u, 3u}) {
        std::vector<float> x = Data(n, seed, 5.0f);
        if (seed == 2) {  // without infinities, so the finite extremes decide
          for (float& v : x) v = std::isinf(v) ? 1.0f : v;
        }
        if (seed == 3) {  // all positive: lo stays +0 (never -0), hi the largest
          for (float& v : x) v = std::fabs(v) + 0.5f;
        }
        float lo = 1, hi = -1, ref_lo, ref_hi;
        kernels::MinMaxWithZero(x.data(), static_cast<int64_t>(n), &lo, &hi);
        ScalarMinMax(x.data(), static_cast<int64_t>(n), &ref_lo, &ref_hi);
        EXPECT_EQ(std::memcmp(&lo, &ref_lo, sizeof lo), 0) << "n " << n << " seed " << seed << ": " << lo;
        EXPECT_EQ(std::memcmp(&hi, &ref_hi, sizeof hi), 0) << "n " << n << " seed " << seed << ": " << hi;
      }
    }
    // All NaN: the range is [0, 0].
    std::vector<float> nans(40, std::numeric_limits<float>::quiet_NaN());
    float lo = 1, hi = 1;
    kernels::MinMaxWithZero(nans.data(), 40, &lo, &hi);
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 0.0f);
    EXPECT_FALSE(std::signbit(lo));
  }
}

// QuantizeFloat's definition: saturate(round_half_even(x / scale) + zero_point), a NaN quotient giving nan_value.
template <typename Q>
Q ScalarQuantize(float x, float scale, int32_t zero_point, Q nan_value) {
  const float q = x / scale;
  if (std::isnan(q)) return nan_value;
  const double lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(std::clamp(std::nearbyint(static_cast<double>(q)) + zero_point, lo, hi));
}

template <typename Q>
void CheckQuantize(float scale, int32_t zero_point) {
  SCOPED_TRACE("scale " + std::to_string(scale) + " zero point " + std::to_string(zero_point));
  // Random values, the exact ties k + 0.5 (times the scale) and their float neighbours, within and past the range.
  std::vector<float> x = Data(3000, 11, 120.0f * scale);
  for (int k = -300; k <= 300; ++k) {
    const float tie = (static_cast<float>(k) + 0.5f) * scale;
    x.push_back(tie);
    x.push_back(std::nextafter(tie, 0.0f));
    x.push_back(std::nextafter(tie, 1e30f));
  }
  const Q nan_value = static_cast<Q>(zero_point);
  for (int64_t target : HwyTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    for (size_t offset : {0, 1, 5}) {  // shifts the vector body over the data: other tails
      const int64_t n = static_cast<int64_t>(x.size() - offset);
      std::vector<Q> y(static_cast<size_t>(n));
      kernels::QuantizeFloat<Q>(x.data() + offset, n, scale, zero_point, nan_value, y.data());
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        wrong += y[static_cast<size_t>(i)] !=
                 ScalarQuantize<Q>(x[static_cast<size_t>(i) + offset], scale, zero_point, nan_value);
      }
      EXPECT_EQ(wrong, 0) << "offset " << offset;
      // Channels last (3 channels: the image path; 5: the buffered one) against the same definition.
      for (int64_t channels : {3, 5}) {
        const int64_t pixels = n / channels;
        std::vector<Q> z(static_cast<size_t>(pixels * channels));
        kernels::QuantizeFloatToChannelsLast<Q>(x.data() + offset, channels, pixels, pixels, scale, zero_point,
                                                nan_value, z.data());
        int64_t wrong_cl = 0;
        for (int64_t p = 0; p < pixels; ++p) {
          for (int64_t c = 0; c < channels; ++c) {
            wrong_cl +=
                z[static_cast<size_t>(p * channels + c)] !=
                ScalarQuantize<Q>(x[static_cast<size_t>(c * pixels + p) + offset], scale, zero_point, nan_value);
          }
        }
        EXPECT_EQ(wrong_cl, 0) << "offset " << offset << " channels " << channels;
      }
    }
  }
}

TEST(Int8QuantizeTargets, QuantizeFloatMatchesTheScalarDefinition) {
  CheckQuantize<uint8_t>(0.5f, 0);
  CheckQuantize<uint8_t>(0.0173f, 128);
  CheckQuantize<uint8_t>(3.0f, 255);
  CheckQuantize<int8_t>(0.25f, 0);
  CheckQuantize<int8_t>(0.0311f, -128);
  CheckQuantize<int8_t>(1.0f, 127);
  CheckQuantize<int8_t>(0.07f, 13);
}

}  // namespace
}  // namespace onyx
