// The float32 <-> 8-bit fast loops (kernels/int8_quantize.h) and the operators that use them (QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear), against scalar formulas written here from the ONNX specification in
// double precision, on awkward sizes (tails of every length, multi-threaded sizes) and awkward values (exact
// ties, NaN, infinities, subnormals, out-of-range quotients).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/int8_quantize.h"
#include "op_test_helpers.h"

namespace onyx::testing {
namespace {

// round_half_even(x / scale) + zero_point saturated to Q, the quotient correctly rounded to float32 (computed in
// double, then rounded once: exact for float operands); NaN gives nan_value.
template <typename Q>
Q ReferenceQuantize(float x, float scale, int32_t zp, Q nan_value) {
  const float q = static_cast<float>(static_cast<double>(x) / static_cast<double>(scale));
  if (std::isnan(q)) return nan_value;
  const double r = std::nearbyint(static_cast<double>(q)) + zp;
  const double lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(r < lo ? lo : r > hi ? hi : r);
}

// Values that stress the rounding: exact ties k + 0.5 (times the scale), near-ties, specials, and random ones.
std::vector<float> AwkwardValues(size_t n, float scale, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> wide(-300.0f, 300.0f);
  std::uniform_int_distribution<int> tie(-300, 300);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    switch (i % 7) {
      case 0:
        v[i] = (static_cast<float>(tie(gen)) + 0.5f) * scale;
        break;
      case 1:
        v[i] = std::nextafter((static_cast<float>(tie(gen)) + 0.5f) * scale, kInf);
        break;
      case 2:
        v[i] = std::nextafter((static_cast<float>(tie(gen)) - 0.5f) * scale, -kInf);
        break;
      default:
        v[i] = wide(gen) * scale;
        break;
    }
  }
  const float specials[] = {0.0f, -0.0f, kNaN, kInf, -kInf, 1e-40f, -1e-40f, 3e38f, -3e38f};
  for (size_t i = 0; i < n && i < std::size(specials); ++i) v[i * 3 % n] = specials[i];
  return v;
}

template <typename Q>
void CheckQuantize(float scale, int32_t zp) {
  for (size_t n : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 1000, 4099}) {
    const std::vector<float> x = AwkwardValues(n, scale, static_cast<uint32_t>(n));
    std::vector<Q> y(n);
    const Q nan_value = static_cast<Q>(zp);
    kernels::QuantizeFloat<Q>(x.data(), static_cast<int64_t>(n), scale, zp, nan_value, y.data());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<int>(y[i]), static_cast<int>(ReferenceQuantize<Q>(x[i], scale, zp, nan_value)))
          << "n " << n << " i " << i << " x " << x[i] << " scale " << scale << " zp " << zp;
    }
  }
}

TEST(Int8QuantizeTest, QuantizeUint8MatchesTheFormula) {
  CheckQuantize<uint8_t>(0.0123f, 0);
  CheckQuantize<uint8_t>(0.5f, 128);
  CheckQuantize<uint8_t>(3.0f, 255);
  CheckQuantize<uint8_t>(1e-30f, 7);
}

TEST(Int8QuantizeTest, QuantizeInt8MatchesTheFormula) {
  CheckQuantize<int8_t>(0.0123f, 0);
  CheckQuantize<int8_t>(0.25f, -128);
  CheckQuantize<int8_t>(7.0f, 127);
  CheckQuantize<int8_t>(0.001f, -5);
}

TEST(Int8QuantizeTest, DequantizeMatchesTheFormula) {
  for (size_t n : {1, 3, 8, 17, 255, 1031}) {
    std::vector<uint8_t> u(n);
    std::vector<int8_t> s(n);
    for (size_t i = 0; i < n; ++i) {
      u[i] = static_cast<uint8_t>(i * 37 % 256);
      s[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 256) - 128);
    }
    std::vector<float> yu(n), ys(n);
    kernels::DequantizeToFloat<uint8_t>(u.data(), static_cast<int64_t>(n), 0.37f, 131, yu.data());
    kernels::DequantizeToFloat<int8_t>(s.data(), static_cast<int64_t>(n), 1.7e-3f, -9, ys.data());
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(yu[i], static_cast<float>((static_cast<double>(u[i]) - 131) * static_cast<double>(0.37f)));
      EXPECT_EQ(ys[i], static_cast<float>((static_cast<double>(s[i]) + 9) * static_cast<double>(1.7e-3f)));
    }
  }
}

TEST(Int8QuantizeTest, MinMaxSkipsNaNAndIncludesZero) {
  for (size_t n : {0, 1, 7, 8, 9, 100, 1001}) {
    std::vector<float> x = AwkwardValues(std::max<size_t>(n, 1), 0.1f, 3);
    x.resize(n);
    float want_lo = 0, want_hi = 0;
    for (float v : x) {
      if (std::isnan(v)) continue;
      want_lo = std::min(want_lo, v);
      want_hi = std::max(want_hi, v);
    }
    float lo = 1, hi = -1;
    kernels::MinMaxWithZero(x.data(), static_cast<int64_t>(n), &lo, &hi);
    EXPECT_EQ(lo, want_lo) << n;
    EXPECT_EQ(hi, want_hi) << n;
  }
  const std::vector<float> positive = {3, 1, 2};
  float lo = 1, hi = -1;
  kernels::MinMaxWithZero(positive.data(), 3, &lo, &hi);
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 3.0f);
}

// ---- the operators ----

TEST(Int8QuantizeTest, QuantizeLinearPerAxisOnTheFastPath) {
  // x [2, 3, 5] per axis 1, int8 with a different zero point per channel; ties round to even.
  const std::vector<float> scales = {0.5f, 0.25f, 2.0f};
  const std::vector<int8_t> zps = {-3, 0, 100};
  std::vector<float> x(30);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (static_cast<float>(i) - 14.5f) * 0.375f;
  auto t = Op("QuantizeLinear", 13);
  t.Input(F(x, {2, 3, 5})).Input(F(scales, {3})).Input(T_<int8_t>(zps, {3})).Attr("axis", int64_t{1});
  const Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt8);
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = i / 5 % 3;
    EXPECT_EQ(y.data<int8_t>()[i], ReferenceQuantize<int8_t>(x[i], scales[c], zps[c], zps[c])) << i;
  }
}

TEST(Int8QuantizeTest, QuantizeAndDequantizeLargeTensorsThreaded) {
  const size_t n = 3 * 65537;  // above the parallel grain, odd chunk boundaries
  const std::vector<float> x = AwkwardValues(n, 0.02f, 11);
  auto q = Op("QuantizeLinear", 13);
  q.Input(F(x, {3, 65537})).Input(F({0.02f}, {})).Input(U8({77}, {}));
  const Tensor y = RunOk(q);
  ASSERT_EQ(y.size(), static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(y.data<uint8_t>()[i], ReferenceQuantize<uint8_t>(x[i], 0.02f, 77, 77)) << i << " x " << x[i];
  }
  auto dq = Op("DequantizeLinear", 13);
  dq.Input(y).Input(F({0.02f}, {})).Input(U8({77}, {}));
  const Tensor back = RunOk(dq);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(back.data<float>()[i], static_cast<float>((y.data<uint8_t>()[i] - 77.0) * static_cast<double>(0.02f)));
  }
}

// DynamicQuantizeLinear as ONNX Runtime computes it: scale (max - min) / 255 in float32 (1 when the range is empty),
// zero point round_half_even(clamp(-min / scale, 0, 255)), NaN elements quantized to 0.
void CheckDynamicQuantize(const std::vector<float>& x) {
  float lo = 0, hi = 0;
  for (float v : x) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float initial = static_cast<float>(0.0 - static_cast<double>(static_cast<float>(lo / scale)));
  const auto zp = static_cast<uint8_t>(std::nearbyint(std::min(255.0f, std::max(0.0f, initial))));
  auto t = Op("DynamicQuantizeLinear", 11);
  t.num_outputs = 3;
  t.Input(F(x, {static_cast<int64_t>(x.size())}));
  const std::vector<Value> out = RunAll(t);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].tensor().data<float>()[0], scale);
  EXPECT_EQ(out[2].tensor().data<uint8_t>()[0], zp);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(out[0].tensor().data<uint8_t>()[i], ReferenceQuantize<uint8_t>(x[i], scale, zp, 0)) << i;
  }
}

TEST(Int8QuantizeTest, DynamicQuantizeLinearLikeOnnxRuntime) {
  CheckDynamicQuantize({0, 0, 0});           // empty range: scale 1
  CheckDynamicQuantize({-0.0f, 0.0f});       // empty range too
  CheckDynamicQuantize({-2, -1, -0.5f});     // all negative: zero point 255
  CheckDynamicQuantize({1, kNaN, 3, 0.5f});  // NaN skipped by min/max, quantized to 0
  CheckDynamicQuantize(AwkwardValues(5, 0.3f, 1));
  std::vector<float> big = AwkwardValues(200003, 0.01f, 5);
  for (float& v : big) v = std::isfinite(v) ? std::fmod(v, 3.0f) : 1.0f;
  CheckDynamicQuantize(big);
}

}  // namespace
}  // namespace onyx::testing
