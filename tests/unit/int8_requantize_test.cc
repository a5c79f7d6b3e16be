// The requantization step (kernels/int8_requantize.h) on its edge cases, against values worked out by hand from the
// definition ONNX Runtime's MLAS uses (float(acc) * scale in float32, round half to even, + zero point, saturate):
// exact ties, saturation at both ends, negative and large zero points, accumulators near the int32 limits (whose
// float conversion rounds), wrapping bias addition, and the tiled channels-last to channels-first pass.
#include "kernels/int8_requantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace onyx::kernels {
namespace {

TEST(Int8Requantize, TiesRoundHalfToEven) {
  // scale 0.5: odd accumulators land exactly on k + 0.5.
  EXPECT_EQ(RequantizeValue<uint8_t>(1, 0.5f, 0), 0);   // 0.5 -> 0
  EXPECT_EQ(RequantizeValue<uint8_t>(3, 0.5f, 0), 2);   // 1.5 -> 2
  EXPECT_EQ(RequantizeValue<uint8_t>(5, 0.5f, 0), 2);   // 2.5 -> 2
  EXPECT_EQ(RequantizeValue<int8_t>(-1, 0.5f, 0), 0);   // -0.5 -> -0
  EXPECT_EQ(RequantizeValue<int8_t>(-3, 0.5f, 0), -2);  // -1.5 -> -2
  EXPECT_EQ(RequantizeValue<int8_t>(-5, 0.5f, 0), -2);  // -2.5 -> -2
  // The zero point is added after rounding: 2.5 + 1 gives 3, not round(3.5) = 4.
  EXPECT_EQ(RequantizeValue<uint8_t>(5, 0.5f, 1), 3);
  EXPECT_EQ(RequantizeValue<int8_t>(5, 0.5f, -1), 1);
}

TEST(Int8Requantize, FloatProductNotDouble) {
  // 3 * 0.16666667f is 0.5 in float32 (a tie, rounds to 0) but 0.50000001 in double (would round to 1).
  const float s = 1.0f / 6.0f;
  ASSERT_EQ(3.0f * s, 0.5f);
  EXPECT_EQ(RequantizeValue<uint8_t>(3, s, 0), 0);
}

TEST(Int8Requantize, SaturatesAtBothEnds) {
  EXPECT_EQ(RequantizeValue<uint8_t>(1000, 1.0f, 0), 255);
  EXPECT_EQ(RequantizeValue<uint8_t>(-1000, 1.0f, 0), 0);
  EXPECT_EQ(RequantizeValue<uint8_t>(200, 1.0f, 100), 255);
  EXPECT_EQ(RequantizeValue<uint8_t>(-60, 1.0f, 100), 40);
  EXPECT_EQ(RequantizeValue<int8_t>(1000, 1.0f, 0), 127);
  EXPECT_EQ(RequantizeValue<int8_t>(-1000, 1.0f, 0), -128);
  // Negative zero points.
  EXPECT_EQ(RequantizeValue<int8_t>(-100, 1.0f, -100), -128);
  EXPECT_EQ(RequantizeValue<int8_t>(227, 1.0f, -100), 127);
  EXPECT_EQ(RequantizeValue<int8_t>(226, 1.0f, -100), 126);
  EXPECT_EQ(RequantizeValue<int8_t>(-27, 1.0f, -100), -127);
  // Zero points at the ends of the range.
  EXPECT_EQ(RequantizeValue<uint8_t>(-1, 1.0f, 255), 254);
  EXPECT_EQ(RequantizeValue<uint8_t>(1, 1.0f, 255), 255);
  EXPECT_EQ(RequantizeValue<int8_t>(1, 1.0f, -128), -127);
}

TEST(Int8Requantize, HugeAccumulators) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();
  // float(2^31 - 1) rounds to 2^31; times 2^-24 is exactly 128.
  EXPECT_EQ(RequantizeValue<uint8_t>(kMax, 1.0f / 16777216.0f, 0), 128);
  EXPECT_EQ(RequantizeValue<int8_t>(kMin, 1.0f / 16777216.0f, 0), -128);
  EXPECT_EQ(RequantizeValue<int8_t>(kMin, 1.0f / 33554432.0f, 0), -64);
  // 2^24 + 1 is not a float: it converts to 2^24 (ties to even); times 2^-25 that is the tie 0.5, which gives 0.
  EXPECT_EQ(RequantizeValue<uint8_t>(16777217, 1.0f / 33554432.0f, 0), 0);
  EXPECT_EQ(RequantizeValue<uint8_t>(kMax, 1.0f, 0), 255);
  EXPECT_EQ(RequantizeValue<uint8_t>(kMin, 1.0f, 0), 0);
}

TEST(Int8Requantize, NhwcToNchwWithBiasAndPerChannelScales) {
  // 70 pixels (a 64-pixel tile and a tail) x 3 channels.
  const int64_t pixels = 70, channels = 3;
  std::vector<int32_t> acc(static_cast<size_t>(pixels * channels));
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t c = 0; c < channels; ++c)
      acc[static_cast<size_t>(p * channels + c)] = static_cast<int32_t>(p * 10 + c);
  }
  const int32_t bias[3] = {1, -700, std::numeric_limits<int32_t>::max()};
  const float scales[3] = {0.5f, 1.0f, 1.0f / 16777216.0f};
  std::vector<int8_t> out(acc.size());
  RequantizeNhwcToNchw<int8_t>(acc.data(), pixels, channels, bias, scales, -3, out.data());
  for (int64_t p = 0; p < pixels; ++p) {
    // channel 0: (10p + 1) * 0.5 = 5p + 0.5, a tie, rounds to the even one of 5p and 5p + 1.
    const int32_t even = (5 * p) % 2 == 0 ? static_cast<int32_t>(5 * p) : static_cast<int32_t>(5 * p + 1);
    const int32_t want0 = std::min(127, even - 3);
    EXPECT_EQ(out[static_cast<size_t>(p)], want0) << "pixel " << p;
    // channel 1: 10p + 1 - 700, saturating below.
    const int32_t want1 = std::max(-128, std::min(127, static_cast<int32_t>(10 * p + 1 - 700 - 3)));
    EXPECT_EQ(out[static_cast<size_t>(pixels + p)], want1) << "pixel " << p;
    // channel 2: the bias addition wraps (int32, as MLAS): 10p + 2 + INT32_MAX is negative; times 2^-24 about -128.
    const int32_t wrapped = static_cast<int32_t>(static_cast<uint32_t>(10 * p + 2) + 0x7fffffffu);
    const float v = static_cast<float>(wrapped) / 16777216.0f;
    EXPECT_EQ(out[static_cast<size_t>(2 * pixels + p)], std::max(-128, static_cast<int32_t>(std::nearbyint(v)) - 3))
        << "pixel " << p;
  }
}

// The AVX2 blocks (8 pixels x 8 channels, transposed in registers) and the scalar remainders agree with
// RequantizeValue element by element: 19 channels (two blocks and 3 left over), 77 pixels (9 blocks and 5 left over),
// accumulators from ties to the int32 limits, wrapping biases, uint8 and int8 with several zero points.
template <typename Q>
void CheckBlocksAgainstScalar(int32_t zero_point, unsigned seed) {
  const int64_t pixels = 77, channels = 19;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> small(-3000, 3000);
  std::vector<int32_t> acc(static_cast<size_t>(pixels * channels)), bias(static_cast<size_t>(channels));
  std::vector<float> scales(static_cast<size_t>(channels));
  for (size_t i = 0; i < acc.size(); ++i) {
    acc[i] = i % 13 == 0 ? static_cast<int32_t>(rng()) : small(rng);  // some anywhere in int32
  }
  for (int64_t c = 0; c < channels; ++c) {
    bias[static_cast<size_t>(c)] = c == 5 ? std::numeric_limits<int32_t>::max() : small(rng);
    scales[static_cast<size_t>(c)] = c % 3 == 0 ? 0.5f : std::ldexp(static_cast<float>(rng() % 1000 + 1), -12);
  }
  std::vector<Q> out(acc.size());
  RequantizeNhwcToNchw<Q>(acc.data(), pixels, channels, bias.data(), scales.data(), zero_point, out.data());
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t c = 0; c < channels; ++c) {
      const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(acc[static_cast<size_t>(p * channels + c)]) +
                                             static_cast<uint32_t>(bias[static_cast<size_t>(c)]));
      ASSERT_EQ(out[static_cast<size_t>(c * pixels + p)],
                RequantizeValue<Q>(v, scales[static_cast<size_t>(c)], zero_point))
          << "pixel " << p << " channel " << c;
    }
  }
}

TEST(Int8Requantize, VectorBlocksMatchTheScalarFormula) {
  CheckBlocksAgainstScalar<uint8_t>(0, 1);
  CheckBlocksAgainstScalar<uint8_t>(131, 2);
  CheckBlocksAgainstScalar<int8_t>(-100, 3);
  CheckBlocksAgainstScalar<int8_t>(0, 4);
}

TEST(Int8Requantize, Int32Transpose) {
  const int64_t pixels = 131, channels = 5;
  std::vector<int32_t> in(static_cast<size_t>(pixels * channels)), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(i * 7919);
  Int32NhwcToNchw(in.data(), pixels, channels, out.data());
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t c = 0; c < channels; ++c) {
      ASSERT_EQ(out[static_cast<size_t>(c * pixels + p)], in[static_cast<size_t>(p * channels + c)]);
    }
  }
}

}  // namespace
}  // namespace onyx::kernels
