// Unit tests of the low-precision element types (core/low_precision.h): every float8 encoding round trip,
// known encodings, round-to-nearest-even ties (normal and subnormal), saturation and overflow, NaN and signed
// zero, float8e8m0 rounding modes, float4e2m1, single rounding from double, and 4-/2-bit packing.
#include "core/low_precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/float16.h"

namespace onyx {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using Encode = uint8_t (*)(float, bool);
using Decode = float (*)(uint8_t);

struct Float8Case {
  const char* name;
  Encode encode;
  Decode decode;
  float max;
  float min_subnormal;
};

const Float8Case kFloat8Cases[] = {
    {"e4m3fn", FloatToFloat8E4M3FN, Float8E4M3FNToFloat, 448.0f, 0.001953125f},                // 2^-9
    {"e4m3fnuz", FloatToFloat8E4M3FNUZ, Float8E4M3FNUZToFloat, 240.0f, 0.0009765625f},         // 2^-10
    {"e5m2", FloatToFloat8E5M2, Float8E5M2ToFloat, 57344.0f, 1.52587890625e-05f},              // 2^-16
    {"e5m2fnuz", FloatToFloat8E5M2FNUZ, Float8E5M2FNUZToFloat, 57344.0f, 7.62939453125e-06f},  // 2^-17
};

TEST(LowPrecisionTest, EveryFloat8EncodingRoundTrips) {
  for (const auto& c : kFloat8Cases) {
    int nan_codes = 0;
    for (int code = 0; code < 256; ++code) {
      const uint8_t b = static_cast<uint8_t>(code);
      const float f = c.decode(b);
      if (std::isnan(f)) {
        ++nan_codes;
        // NaN stays NaN (its canonical encoding).
        EXPECT_TRUE(std::isnan(c.decode(c.encode(f, true)))) << c.name << " code " << code;
        EXPECT_TRUE(std::isnan(c.decode(c.encode(f, false)))) << c.name << " code " << code;
        continue;
      }
      // Infinity (e5m2 only) survives only without saturation.
      EXPECT_EQ(c.encode(f, false), b) << c.name << " code " << code << " value " << f;
      if (!std::isinf(f)) {
        EXPECT_EQ(c.encode(f, true), b) << c.name << " code " << code << " value " << f;
      }
    }
    const std::string name = c.name;
    const int expected_nans = name == "e4m3fn" ? 2 : name == "e5m2" ? 6 : 1;
    EXPECT_EQ(nan_codes, expected_nans) << c.name;
  }
}

TEST(LowPrecisionTest, Float8DecodingIsMonotonicAndBounded) {
  for (const auto& c : kFloat8Cases) {
    float prev = -1;
    for (int code = 0; code < 128; ++code) {
      const float f = c.decode(static_cast<uint8_t>(code));
      if (std::isnan(f) || std::isinf(f)) continue;
      EXPECT_GT(f, prev) << c.name << " code " << code;
      prev = f;
    }
    EXPECT_EQ(prev, c.max) << c.name;
    EXPECT_EQ(c.decode(1), c.min_subnormal) << c.name;
  }
}

TEST(LowPrecisionTest, KnownFloat8Encodings) {
  EXPECT_EQ(FloatToFloat8E4M3FN(1.0f), 0x38);
  EXPECT_EQ(FloatToFloat8E4M3FN(-2.0f), 0xc0);
  EXPECT_EQ(FloatToFloat8E4M3FN(448.0f), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(0.001953125f), 0x01);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(1.0f), 0x40);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(240.0f), 0x7f);
  EXPECT_EQ(FloatToFloat8E5M2(1.0f), 0x3c);
  EXPECT_EQ(FloatToFloat8E5M2(57344.0f), 0x7b);
  EXPECT_EQ(FloatToFloat8E5M2(-0.5f), 0xb8);
  EXPECT_EQ(FloatToFloat8E5M2FNUZ(1.0f), 0x40);
  EXPECT_EQ(FloatToFloat8E5M2FNUZ(57344.0f), 0x7f);
  EXPECT_EQ(Float8E4M3FNToFloat(0x08), 0.015625f);  // smallest normal 2^-6
  EXPECT_EQ(Float8E5M2ToFloat(0x7c), kInf);
  EXPECT_EQ(Float8E5M2ToFloat(0xfc), -kInf);
  // The official test data: 0.478925467 -> 0.46875 (e4m3fn), 0.5 (e5m2).
  EXPECT_EQ(FloatToFloat8E4M3FN(0.478925467f), 0x2f);
  EXPECT_EQ(FloatToFloat8E5M2(0.478925467f), 0x38);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(0.478925467f), 0x37);
}

TEST(LowPrecisionTest, Float8RoundsTiesToEven) {
  // Between 1.0 (0x38) and 1.125 (0x39): the midpoint goes to the even code, anything above it rounds up.
  EXPECT_EQ(FloatToFloat8E4M3FN(1.0625f), 0x38);
  EXPECT_EQ(FloatToFloat8E4M3FN(std::nextafter(1.0625f, 2.0f)), 0x39);
  EXPECT_EQ(FloatToFloat8E4M3FN(std::nextafter(1.0625f, 0.0f)), 0x38);
  // Between 1.125 (0x39) and 1.25 (0x3a): the even one is above.
  EXPECT_EQ(FloatToFloat8E4M3FN(1.1875f), 0x3a);
  EXPECT_EQ(FloatToFloat8E4M3FN(-1.1875f), 0xba);
  // e5m2: between 1.0 (0x3c) and 1.25 (0x3d) and between 1.25 and 1.5 (0x3e).
  EXPECT_EQ(FloatToFloat8E5M2(1.125f), 0x3c);
  EXPECT_EQ(FloatToFloat8E5M2(1.375f), 0x3e);
  // A carry out of the mantissa moves to the next exponent: 1.9375 lies half way between 1.875 and 2.
  EXPECT_EQ(FloatToFloat8E4M3FN(1.9375f), 0x40);
}

TEST(LowPrecisionTest, Float8SubnormalRounding) {
  const float m = 0.001953125f;                    // e4m3fn's smallest subnormal, code 0x01
  EXPECT_EQ(FloatToFloat8E4M3FN(m * 0.5f), 0x00);  // tie to even zero
  EXPECT_EQ(FloatToFloat8E4M3FN(std::nextafter(m * 0.5f, 1.0f)), 0x01);
  EXPECT_EQ(FloatToFloat8E4M3FN(m * 1.5f), 0x02);  // tie between 1 and 2 -> 2
  EXPECT_EQ(FloatToFloat8E4M3FN(m * 2.5f), 0x02);  // tie between 2 and 3 -> 2
  EXPECT_EQ(FloatToFloat8E4M3FN(m * 7.5f), 0x08);  // rounds up into the smallest normal
  EXPECT_EQ(FloatToFloat8E4M3FN(1e-30f), 0x00);
  EXPECT_EQ(FloatToFloat8E4M3FN(std::numeric_limits<float>::denorm_min()), 0x00);
  EXPECT_EQ(FloatToFloat8E5M2(1.52587890625e-05f * 3.0f), 0x03);
}

TEST(LowPrecisionTest, Float8SaturationAndOverflow) {
  // e4m3fn: 464 is half way between 448 and the (NaN) next code: even 448 wins even without saturation.
  EXPECT_EQ(FloatToFloat8E4M3FN(464.0f, false), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(465.0f, false), 0x7f);
  EXPECT_EQ(FloatToFloat8E4M3FN(465.0f, true), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(1e9f, true), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(-1e9f, true), 0xfe);
  EXPECT_EQ(FloatToFloat8E4M3FN(-1e9f, false), 0xff);
  EXPECT_EQ(FloatToFloat8E4M3FN(kInf, true), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FN(-kInf, false), 0xff);
  // e5m2: 61440 is half way between 57344 (odd mantissa) and infinity.
  EXPECT_EQ(FloatToFloat8E5M2(61440.0f, false), 0x7c);
  EXPECT_EQ(FloatToFloat8E5M2(61439.0f, false), 0x7b);
  EXPECT_EQ(FloatToFloat8E5M2(61440.0f, true), 0x7b);
  EXPECT_EQ(FloatToFloat8E5M2(-kInf, true), 0xfb);
  EXPECT_EQ(FloatToFloat8E5M2(-kInf, false), 0xfc);
  // fnuz: overflow without saturation is the single NaN 0x80.
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(1000.0f, false), 0x80);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(-1000.0f, true), 0xff);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(kInf, false), 0x80);
  EXPECT_EQ(FloatToFloat8E5M2FNUZ(-kInf, true), 0xff);
  EXPECT_EQ(FloatToFloat8E5M2FNUZ(1e6f, false), 0x80);
}

TEST(LowPrecisionTest, Float8NaNAndSignedZero) {
  EXPECT_EQ(FloatToFloat8E4M3FN(kNaN), 0x7f);
  EXPECT_EQ(FloatToFloat8E4M3FN(-kNaN), 0xff);
  EXPECT_EQ(FloatToFloat8E5M2(kNaN), 0x7e);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(kNaN), 0x80);
  EXPECT_EQ(FloatToFloat8E5M2FNUZ(-kNaN, false), 0x80);
  EXPECT_EQ(FloatToFloat8E4M3FN(-0.0f), 0x80);
  EXPECT_EQ(FloatToFloat8E5M2(-0.0f), 0x80);
  EXPECT_EQ(FloatToFloat8E4M3FNUZ(-0.0f), 0x00);    // no negative zero
  EXPECT_EQ(FloatToFloat8E5M2FNUZ(-1e-10f), 0x00);  // underflows to +0
  EXPECT_EQ(FloatToFloat8E4M3FN(-1e-10f), 0x80);
  EXPECT_TRUE(std::signbit(Float8E4M3FNToFloat(0x80)));
  EXPECT_TRUE(std::isnan(Float8E4M3FNUZToFloat(0x80)));
  EXPECT_TRUE(std::isnan(Float8E5M2FNUZToFloat(0x80)));
}

TEST(LowPrecisionTest, Float8E8M0EveryEncodingAndRoundingModes) {
  for (int code = 0; code < 256; ++code) {
    const float f = Float8E8M0ToFloat(static_cast<uint8_t>(code));
    if (code == 0xff) {
      EXPECT_TRUE(std::isnan(f));
    } else {
      EXPECT_EQ(f, std::ldexp(1.0f, code - 127));
    }
    for (auto mode : {E8M0Rounding::kUp, E8M0Rounding::kDown, E8M0Rounding::kNearest}) {
      // 2^-127 is a float subnormal whose bits look like a fraction: like the reference, "up" lifts it to 2^-126.
      const int expected = (code == 0 && mode == E8M0Rounding::kUp) ? 1 : code;
      EXPECT_EQ(FloatToFloat8E8M0(f, true, mode), expected) << code;
    }
  }
  using R = E8M0Rounding;
  EXPECT_EQ(FloatToFloat8E8M0(1.5f, true, R::kUp), 0x80);
  EXPECT_EQ(FloatToFloat8E8M0(1.5f, true, R::kDown), 0x7f);
  EXPECT_EQ(FloatToFloat8E8M0(1.5f, true, R::kNearest), 0x80);  // ties up
  EXPECT_EQ(FloatToFloat8E8M0(1.25f, true, R::kNearest), 0x7f);
  EXPECT_EQ(FloatToFloat8E8M0(1.0001f, true, R::kUp), 0x80);
  EXPECT_EQ(FloatToFloat8E8M0(1.9999f, true, R::kDown), 0x7f);
  EXPECT_EQ(FloatToFloat8E8M0(0.124f), 0x7c);  // official test data: rounds up to 0.125
  EXPECT_EQ(FloatToFloat8E8M0(1.1f), 0x80);
  EXPECT_EQ(FloatToFloat8E8M0(0.0f), 0x00);
  EXPECT_EQ(FloatToFloat8E8M0(-4.0f), 0x81);  // the sign is ignored
  EXPECT_EQ(FloatToFloat8E8M0(kInf), 0xff);
  EXPECT_EQ(FloatToFloat8E8M0(kNaN), 0xff);
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(FloatToFloat8E8M0(big, true, R::kUp), 0xfe);
  EXPECT_EQ(FloatToFloat8E8M0(big, false, R::kUp), 0xff);
  EXPECT_EQ(FloatToFloat8E8M0(big, false, R::kDown), 0xfe);

  EXPECT_EQ(*E8M0RoundingFromName("nearest"), R::kNearest);
  EXPECT_FALSE(E8M0RoundingFromName("Up").ok());
}

TEST(LowPrecisionTest, Float4E2M1) {
  const float values[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int code = 0; code < 16; ++code) {
    const float f = Float4E2M1ToFloat(static_cast<uint8_t>(code));
    EXPECT_EQ(f, (code & 8) ? -values[code & 7] : values[code & 7]) << code;
    EXPECT_EQ(FloatToFloat4E2M1(f), code) << code;
  }
  EXPECT_EQ(FloatToFloat4E2M1(0.25f), 0x0);  // tie -> even 0
  EXPECT_EQ(FloatToFloat4E2M1(0.75f), 0x2);  // tie -> even 1.0
  EXPECT_EQ(FloatToFloat4E2M1(1.25f), 0x2);  // tie -> even 1.0
  EXPECT_EQ(FloatToFloat4E2M1(1.75f), 0x4);  // tie -> even 2.0
  EXPECT_EQ(FloatToFloat4E2M1(2.5f), 0x4);
  EXPECT_EQ(FloatToFloat4E2M1(-3.5f), 0xe);  // tie -> even -4
  EXPECT_EQ(FloatToFloat4E2M1(5.0f), 0x6);
  EXPECT_EQ(FloatToFloat4E2M1(5.01f), 0x7);
  EXPECT_EQ(FloatToFloat4E2M1(7.0f), 0x7);  // saturates
  EXPECT_EQ(FloatToFloat4E2M1(-1e30f), 0xf);
  EXPECT_EQ(FloatToFloat4E2M1(kInf), 0x7);
  EXPECT_EQ(FloatToFloat4E2M1(kNaN), 0x8);
  EXPECT_EQ(FloatToFloat4E2M1(-0.0f), 0x8);
}

TEST(LowPrecisionTest, DoubleRoundsOnce) {
  // 1 + 2^-11 + 2^-40: just above the half-way point between float16 1.0 and 1.0009765625. Rounding to float
  // first would land on the tie and then round to even 1.0.
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(Float16(static_cast<float>(v)).bits, 0x3c00);
  EXPECT_EQ(Float16(DoubleToFloatRoundToOdd(v)).bits, 0x3c01);
  // The same for float8: just above the midpoint 1.0625 between 0x38 and 0x39.
  EXPECT_EQ(DoubleToFloat8(DataType::kFloat8E4M3FN, 1.0625 + 1e-12), 0x39);
  EXPECT_EQ(DoubleToFloat8(DataType::kFloat8E4M3FN, 1.0625), 0x38);
  // Exact values pass unchanged; values beyond float's range stay beyond it.
  EXPECT_EQ(DoubleToFloatRoundToOdd(0.5), 0.5f);
  EXPECT_EQ(DoubleToFloat8(DataType::kFloat8E5M2, 1e300, false), 0x7c);
  EXPECT_EQ(DoubleToFloat8(DataType::kFloat8E5M2, -1e300, true), 0xfb);
  EXPECT_EQ(DoubleToFloatRoundToOdd(-kInf), -kInf);
  EXPECT_TRUE(std::isnan(DoubleToFloatRoundToOdd(std::nan(""))));
}

TEST(LowPrecisionTest, RuntimeTypeDispatch) {
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, 1.0f), 0x40);
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E4M3FNUZ, 0x40), 1.0f);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 3.0f, true, E8M0Rounding::kDown), 0x80);
}

TEST(LowPrecisionTest, Packing4Bit) {
  uint8_t buf[3] = {0, 0, 0};
  const int8_t values[5] = {-8, 7, -1, 0, 5};
  for (int i = 0; i < 5; ++i) SetInt4(buf, i, values[i]);
  EXPECT_EQ(buf[0], 0x78);  // element 0 in the low nibble
  EXPECT_EQ(buf[1], 0x0f);
  EXPECT_EQ(buf[2], 0x05);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(GetInt4(buf, i), values[i]) << i;
  EXPECT_EQ(GetUint4(buf, 0), 8);
  EXPECT_EQ(GetUint4(buf, 2), 15);
  // Overwriting a nibble leaves its neighbour alone.
  SetPackedNibble(buf, 1, 0x3);
  EXPECT_EQ(buf[0], 0x38);
  // Setters clamp.
  SetInt4(buf, 0, 100);
  SetUint4(buf, 1, -3);
  EXPECT_EQ(GetInt4(buf, 0), 7);
  EXPECT_EQ(GetUint4(buf, 1), 0);
  EXPECT_EQ(ClampToInt4(-9), -8);
  EXPECT_EQ(ClampToUint4(16), 15);
}

TEST(LowPrecisionTest, Packing2Bit) {
  uint8_t buf[2] = {0xff, 0xff};
  const int8_t values[5] = {1, -2, -1, 0, -2};
  for (int i = 0; i < 5; ++i) SetInt2(buf, i, values[i]);
  EXPECT_EQ(buf[0], 0x39);  // 01 | 10<<2 | 11<<4 | 00<<6
  EXPECT_EQ(buf[1] & 0x3, 0x2);
  EXPECT_EQ(buf[1] >> 2, 0x3f);  // untouched
  for (int i = 0; i < 5; ++i) EXPECT_EQ(GetInt2(buf, i), values[i]) << i;
  EXPECT_EQ(GetUint2(buf, 1), 2);
  SetUint2(buf, 3, 9);
  EXPECT_EQ(GetUint2(buf, 3), 3);
  SetInt2(buf, 2, -7);
  EXPECT_EQ(GetInt2(buf, 2), -2);
  EXPECT_EQ(ClampToInt2(5), 1);
  EXPECT_EQ(ClampToUint2(-1), 0);
}

}  // namespace
}  // namespace onyx
