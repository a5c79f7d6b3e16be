// The vectorized float32 <-> 8-bit loops of kernels/int8_quantize.h against the operators' definition computed
// here element by element in double (x / scale correctly rounded to float, round half to even, zero point,
// saturation, NaN to the zero point): every rounding tie, NaN, infinities, saturation and sizes that end in a vector
// tail, at unaligned addresses. A vectorization that rounds differently (ties away from zero, a reciprocal
// multiplication instead of the division, a clamp after the NaN test) fails here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/int8_quantize.h"

namespace onyx {
namespace {

template <typename Q>
Q Reference(float x, float scale, int32_t zp) {
  // A quotient of two floats computed in double and rounded once to float is the correctly rounded float quotient.
  const float q = static_cast<float>(static_cast<double>(x) / static_cast<double>(scale));
  if (std::isnan(q)) return static_cast<Q>(zp);
  const double v = std::nearbyint(static_cast<double>(q)) + zp;
  const double lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(v < lo ? lo : v > hi ? hi : v);
}

// Ties (k + 1/2) * scale for every quotient in and around the 8-bit range, NaN, infinities, signed zeros, huge and
// tiny values, then random ones.
std::vector<float> Inputs(float scale, size_t random_count) {
  std::vector<float> x;
  for (int k = -400; k <= 400; ++k) {
    x.push_back((static_cast<float>(k) + 0.5f) * scale);
    x.push_back(static_cast<float>(k) * scale);
    x.push_back(std::nextafter((static_cast<float>(k) + 0.5f) * scale, 0.0f));
  }
  const float inf = std::numeric_limits<float>::infinity();
  // The floats nearest to (k + 1/2) * scale and their neighbours up to 3 ulps away: quotients within a few ulps of
  // a tie on either side, where a product by the reciprocal may round differently from the quotient.
  for (int k = -300; k <= 300; ++k) {
    const float t = static_cast<float>((k + 0.5) * static_cast<double>(scale));
    float below = t, above = t;
    x.push_back(t);
    for (int u = 0; u < 3; ++u) {
      below = std::nextafter(below, -inf);
      above = std::nextafter(above, inf);
      x.push_back(below);
      x.push_back(above);
    }
  }
  for (float v : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.0f,
                  -0.0f, 3e38f, -3e38f, 1e-40f, -1e-40f, std::numeric_limits<float>::max()}) {
    x.push_back(v);
  }
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-300.0f * scale, 300.0f * scale);
  for (size_t i = 0; i < random_count; ++i) x.push_back(d(rng));
  return x;
}

template <typename Q>
void CheckQuantize(float scale, int32_t zp) {
  const std::vector<float> x = Inputs(scale, 1000);
  // Every length up to 70 at every start offset 0..3 (unaligned, vector tails), and the whole array.
  for (size_t offset = 0; offset < 4; ++offset) {
    for (size_t n = 0; n <= 70 && offset + n <= x.size(); ++n) {
      std::vector<Q> y(n + 1, Q{42});
      kernels::QuantizeFloat<Q>(x.data() + offset, static_cast<int64_t>(n), scale, zp, static_cast<Q>(zp), y.data());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(+y[i], +Reference<Q>(x[offset + i], scale, zp))
            << "x " << x[offset + i] << " scale " << scale << " zp " << zp << " n " << n << " i " << i;
      }
      EXPECT_EQ(+y[n], 42) << "wrote past the end, n " << n;
    }
  }
  std::vector<Q> y(x.size());
  kernels::QuantizeFloat<Q>(x.data(), static_cast<int64_t>(x.size()), scale, zp, static_cast<Q>(zp), y.data());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(+y[i], +Reference<Q>(x[i], scale, zp)) << "x " << x[i] << " scale " << scale << " zp " << zp;
  }
}

TEST(QuantizeFloatKernels, Uint8MatchesTheDefinitionOnTiesNaNAndSaturation) {
  for (float scale : {1.0f, 0.25f, 0.0078125f, 0.0186584f, 3.3f}) {
    for (int32_t zp : {0, 3, 128, 255}) CheckQuantize<uint8_t>(scale, zp);
  }
}

TEST(QuantizeFloatKernels, Int8MatchesTheDefinitionOnTiesNaNAndSaturation) {
  for (float scale : {1.0f, 0.25f, 0.0078125f, 0.0186584f, 3.3f}) {
    for (int32_t zp : {-128, -5, 0, 1, 127}) CheckQuantize<int8_t>(scale, zp);
  }
}

TEST(QuantizeFloatKernels, NearTiesOfManyScalesMatchTheDefinition) {
  // Scales spread over 2^-30 .. 2^30, and the extremes whose reciprocal is not a comfortable normal float.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> exponent(-30.0, 30.0);
  std::vector<float> scales{1e-38f, 1e-35f, 1e-30f, 1e30f, 1e35f, 3e38f};
  for (int i = 0; i < 40; ++i) scales.push_back(static_cast<float>(std::exp2(exponent(rng))));
  for (float scale : scales) {
    const std::vector<float> x = Inputs(scale, 200);
    std::vector<uint8_t> u8(x.size());
    std::vector<int8_t> s8(x.size());
    kernels::QuantizeFloat<uint8_t>(x.data(), static_cast<int64_t>(x.size()), scale, 128, 128, u8.data());
    kernels::QuantizeFloat<int8_t>(x.data(), static_cast<int64_t>(x.size()), scale, -1, -1, s8.data());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(+u8[i], +Reference<uint8_t>(x[i], scale, 128)) << "x " << x[i] << " scale " << scale;
      ASSERT_EQ(+s8[i], +Reference<int8_t>(x[i], scale, -1)) << "x " << x[i] << " scale " << scale;
    }
  }
}

TEST(QuantizeFloatKernels, RoundsHalfToEven) {
  // The definition's own examples of round half to even (ONNX QuantizeLinear), independent of Reference above.
  const float x[] = {0.5f,   1.5f,   2.5f,    -0.5f,   -1.5f,   -2.5f,   254.5f,
                     255.5f, 126.5f, -127.5f, -128.5f, 1000.0f, -1000.0f};
  const uint8_t want_u8[] = {0, 2, 2, 0, 0, 0, 254, 255, 126, 0, 0, 255, 0};
  const int8_t want_s8[] = {0, 2, 2, 0, -2, -2, 127, 127, 126, -128, -128, 127, -128};
  uint8_t u8[13];
  int8_t s8[13];
  kernels::QuantizeFloat<uint8_t>(x, 13, 1.0f, 0, 0, u8);
  kernels::QuantizeFloat<int8_t>(x, 13, 1.0f, 0, 0, s8);
  for (int i = 0; i < 13; ++i) {
    EXPECT_EQ(+u8[i], +want_u8[i]) << x[i];
    EXPECT_EQ(+s8[i], +want_s8[i]) << x[i];
  }
  // An odd zero point is added after rounding: 0.5 + 1 rounds to 0 + 1, not to round(1.5) = 2.
  kernels::QuantizeFloat<uint8_t>(x, 1, 1.0f, 1, 1, u8);
  EXPECT_EQ(u8[0], 1);
}

TEST(QuantizeFloatKernels, NaNGivesTheNaNValue) {
  const float x[17] = {std::numeric_limits<float>::quiet_NaN(),
                       1.0f,
                       std::numeric_limits<float>::quiet_NaN(),
                       2.0f,
                       3.0f,
                       4.0f,
                       5.0f,
                       6.0f,
                       7.0f,
                       8.0f,
                       9.0f,
                       10.0f,
                       11.0f,
                       12.0f,
                       13.0f,
                       14.0f,
                       std::numeric_limits<float>::quiet_NaN()};
  uint8_t y[17];
  kernels::QuantizeFloat<uint8_t>(x, 17, 1.0f, 100, 7, y);
  EXPECT_EQ(y[0], 7);
  EXPECT_EQ(y[1], 101);
  EXPECT_EQ(y[2], 7);
  EXPECT_EQ(y[15], 114);
  EXPECT_EQ(y[16], 7);
}

template <typename Q>
void CheckChannelsLast(int64_t channels, int64_t plane, float scale, int32_t zp) {
  std::mt19937 rng(static_cast<unsigned>(channels * 1000 + plane));
  const std::vector<float> pool = Inputs(scale, 500);
  std::vector<float> x(static_cast<size_t>(channels * plane));
  for (float& v : x) v = pool[rng() % pool.size()];
  // Quantized channels first, then transposed: what QuantizeLinear and Transpose(perm 0,2,3,1) give.
  std::vector<Q> first(x.size());
  kernels::QuantizeFloat<Q>(x.data(), static_cast<int64_t>(x.size()), scale, zp, static_cast<Q>(zp), first.data());
  // Slices of pixels [p0, p0 + count) as the operator's threads take them.
  for (int64_t p0 : {int64_t{0}, plane / 3}) {
    const int64_t count = plane - p0;
    std::vector<Q> y(static_cast<size_t>(count * channels + 1), Q{42});
    kernels::QuantizeFloatToChannelsLast<Q>(x.data() + p0, channels, plane, count, scale, zp, static_cast<Q>(zp),
                                            y.data());
    for (int64_t p = 0; p < count; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        ASSERT_EQ(+y[static_cast<size_t>(p * channels + c)], +first[static_cast<size_t>(c * plane + p0 + p)])
            << "channels " << channels << " plane " << plane << " pixel " << p0 + p << " channel " << c;
      }
    }
    EXPECT_EQ(+y.back(), 42) << "wrote past the end";
  }
}

TEST(QuantizeFloatKernels, ChannelsLastEqualsQuantizeThenTranspose) {
  for (int64_t channels : {1, 2, 3, 4, 5, 16, 64, 300}) {
    for (int64_t plane : {1, 7, 16, 17, 49, 100, 257}) {
      CheckChannelsLast<uint8_t>(channels, plane, 0.0186584f, 114);
      CheckChannelsLast<int8_t>(channels, plane, 0.0186584f, -3);
    }
  }
  // More channels than the transposition buffer holds pixels of.
  CheckChannelsLast<uint8_t>(20000, 3, 0.5f, 0);
  // Nothing to write: no channels, no pixels.
  uint8_t untouched = 42;
  const float one = 1.0f;
  kernels::QuantizeFloatToChannelsLast<uint8_t>(&one, 0, 1, 1, 1.0f, 0, 0, &untouched);
  kernels::QuantizeFloatToChannelsLast<uint8_t>(&one, 3, 1, 0, 1.0f, 0, 0, &untouched);
  EXPECT_EQ(untouched, 42);
}

template <typename Q>
void CheckDequantize(float scale, int32_t zp) {
  std::vector<Q> x;
  for (int v = std::numeric_limits<Q>::lowest(); v <= std::numeric_limits<Q>::max(); ++v)
    x.push_back(static_cast<Q>(v));
  for (int v = std::numeric_limits<Q>::max(); v >= std::numeric_limits<Q>::lowest(); v -= 3)
    x.push_back(static_cast<Q>(v));
  for (size_t offset = 0; offset < 3; ++offset) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{33}, x.size() - offset}) {
      std::vector<float> y(n + 1, -1.0f);
      kernels::DequantizeToFloat<Q>(x.data() + offset, static_cast<int64_t>(n), scale, zp, y.data());
      for (size_t i = 0; i < n; ++i) {
        const float want = static_cast<float>(static_cast<double>(static_cast<int32_t>(x[offset + i]) - zp) * scale);
        ASSERT_EQ(y[i], want) << "x " << +x[offset + i] << " scale " << scale << " zp " << zp;
      }
      EXPECT_EQ(y[n], -1.0f);
    }
  }
}

TEST(QuantizeFloatKernels, DequantizeMatchesTheDefinition) {
  for (float scale : {1.0f, 0.0186584f, 3.3e-5f, 1e30f}) {
    CheckDequantize<uint8_t>(scale, 0);
    CheckDequantize<uint8_t>(scale, 131);
    CheckDequantize<int8_t>(scale, 0);
    CheckDequantize<int8_t>(scale, -7);
  }
}

}  // namespace
}  // namespace onyx
