#include "core/low_precision.h"

#include <bit>
#include <cmath>
#include <limits>
#include <string>

namespace onyx {
namespace {

// A small binary float format without its special-value conventions: mantissa width and exponent bias.
struct MiniFormat {
  int mant_bits;
  int bias;
};

// The magnitude code ((biased exponent << mant_bits) | mantissa) of the finite, non-negative `a` rounded to nearest
// even in `fmt`. The code can exceed the format's largest finite code: the caller decides what overflow means.
uint32_t RoundMagnitude(float a, MiniFormat fmt) {
  const uint32_t bits = std::bit_cast<uint32_t>(a);
  const int fexp = static_cast<int>((bits >> 23) & 0xffu);
  // Float subnormals lie far below half the smallest subnormal of every format here.
  if (fexp == 0) return 0;
  const uint32_t sig = (bits & 0x7fffffu) | 0x800000u;  // 24 bits, hidden bit included
  const int e = fexp - 127;
  const int emin = 1 - fmt.bias;
  int shift = 23 - fmt.mant_bits;
  uint32_t base = 0;
  if (e >= emin) {
    // The hidden bit, once shifted, adds one unit of exponent: base + q is the code, and a rounding carry out of
    // the mantissa moves to the next exponent as it should.
    base = static_cast<uint32_t>(e + fmt.bias - 1) << fmt.mant_bits;
  } else {
    shift += emin - e;
    if (shift >= 25) return 0;  // below half the smallest subnormal
  }
  uint32_t q = sig >> shift;
  const uint32_t rem = sig & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return base + q;
}

float DecodeMini(uint32_t code, MiniFormat fmt) {
  const uint32_t mant_mask = (1u << fmt.mant_bits) - 1u;
  const int exp = static_cast<int>(code >> fmt.mant_bits);
  const uint32_t mant = code & mant_mask;
  if (exp == 0) return std::ldexp(static_cast<float>(mant), 1 - fmt.bias - fmt.mant_bits);
  return std::ldexp(static_cast<float>(mant | (mant_mask + 1u)), exp - fmt.bias - fmt.mant_bits);
}

constexpr MiniFormat kE4M3FN{3, 7};
constexpr MiniFormat kE4M3FNUZ{3, 8};
constexpr MiniFormat kE5M2{2, 15};
constexpr MiniFormat kE5M2FNUZ{2, 16};
constexpr MiniFormat kE2M1{1, 1};

inline uint8_t SignOf(float v) { return static_cast<uint8_t>((std::bit_cast<uint32_t>(v) >> 24) & 0x80u); }

inline float WithSign(uint8_t bits, float magnitude) { return (bits & 0x80) ? -magnitude : magnitude; }

}  // namespace

uint8_t FloatToFloat8E4M3FN(float v, bool saturate) {
  const uint8_t sign = SignOf(v);
  // No infinities: 0x7f (with either sign) is NaN, 0x7e = 448 is the largest finite value.
  if (std::isnan(v)) return sign | 0x7f;
  if (std::isinf(v)) return sign | (saturate ? 0x7e : 0x7f);
  const uint32_t code = RoundMagnitude(std::fabs(v), kE4M3FN);
  if (code > 0x7e) return sign | (saturate ? 0x7e : 0x7f);
  return static_cast<uint8_t>(sign | code);
}

uint8_t FloatToFloat8E4M3FNUZ(float v, bool saturate) {
  // No infinities and no negative zero: 0x80 is the one NaN, 0x7f = 240 the largest finite value.
  if (std::isnan(v)) return 0x80;
  const uint8_t sign = SignOf(v);
  if (std::isinf(v)) return saturate ? (sign | 0x7f) : 0x80;
  const uint32_t code = RoundMagnitude(std::fabs(v), kE4M3FNUZ);
  if (code > 0x7f) return saturate ? (sign | 0x7f) : 0x80;
  if (code == 0) return 0;
  return static_cast<uint8_t>(sign | code);
}

uint8_t FloatToFloat8E5M2(float v, bool saturate) {
  const uint8_t sign = SignOf(v);
  // IEEE-like: 0x7c is infinity, 0x7d..0x7f NaN (0x7e the quiet NaN the reference produces), 0x7b = 57344 the
  // largest finite value.
  if (std::isnan(v)) return sign | 0x7e;
  if (std::isinf(v)) return sign | (saturate ? 0x7b : 0x7c);
  const uint32_t code = RoundMagnitude(std::fabs(v), kE5M2);
  if (code > 0x7b) return sign | (saturate ? 0x7b : 0x7c);
  return static_cast<uint8_t>(sign | code);
}

uint8_t FloatToFloat8E5M2FNUZ(float v, bool saturate) {
  if (std::isnan(v)) return 0x80;
  const uint8_t sign = SignOf(v);
  if (std::isinf(v)) return saturate ? (sign | 0x7f) : 0x80;
  const uint32_t code = RoundMagnitude(std::fabs(v), kE5M2FNUZ);
  if (code > 0x7f) return saturate ? (sign | 0x7f) : 0x80;
  if (code == 0) return 0;
  return static_cast<uint8_t>(sign | code);
}

float Float8E4M3FNToFloat(uint8_t bits) {
  if ((bits & 0x7f) == 0x7f) return WithSign(bits, std::numeric_limits<float>::quiet_NaN());
  return WithSign(bits, DecodeMini(bits & 0x7fu, kE4M3FN));
}

float Float8E4M3FNUZToFloat(uint8_t bits) {
  if (bits == 0x80) return std::numeric_limits<float>::quiet_NaN();
  return WithSign(bits, DecodeMini(bits & 0x7fu, kE4M3FNUZ));
}

float Float8E5M2ToFloat(uint8_t bits) {
  const uint8_t mag = bits & 0x7f;
  if (mag > 0x7c) return WithSign(bits, std::numeric_limits<float>::quiet_NaN());
  if (mag == 0x7c) return WithSign(bits, std::numeric_limits<float>::infinity());
  return WithSign(bits, DecodeMini(mag, kE5M2));
}

float Float8E5M2FNUZToFloat(uint8_t bits) {
  if (bits == 0x80) return std::numeric_limits<float>::quiet_NaN();
  return WithSign(bits, DecodeMini(bits & 0x7fu, kE5M2FNUZ));
}

Result<E8M0Rounding> E8M0RoundingFromName(std::string_view name) {
  if (name == "up") return E8M0Rounding::kUp;
  if (name == "down") return E8M0Rounding::kDown;
  if (name == "nearest") return E8M0Rounding::kNearest;
  return InvalidArgument("round_mode '" + std::string(name) + "' is not one of 'up', 'down', 'nearest'");
}

uint8_t FloatToFloat8E8M0(float v, bool saturate, E8M0Rounding mode) {
  // Works on the float's bits as the reference does: the result is the float's biased exponent, adjusted by the
  // dropped mantissa. Zero and float subnormals keep exponent 0 (2^-127) unless rounding lifts them.
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  uint32_t exp = (bits >> 23) & 0xffu;
  if (exp == 0xff) return 0xff;
  const uint32_t mant = bits & 0x7fffffu;
  bool round_up = false;
  switch (mode) {
    case E8M0Rounding::kUp:
      round_up = mant != 0;
      break;
    case E8M0Rounding::kDown:
      break;
    case E8M0Rounding::kNearest: {
      // Guard bit set and anything below it (or a normal number's implicit lsb) set: at least half way up.
      const bool guard = (mant & 0x400000u) != 0;
      const bool rest = (mant & 0x3fffffu) != 0;
      round_up = guard && (rest || exp > 0);
      break;
    }
  }
  if (round_up && !(saturate && exp == 0xfe)) ++exp;
  return static_cast<uint8_t>(exp);
}

float Float8E8M0ToFloat(uint8_t bits) {
  if (bits == 0xff) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

uint8_t FloatToFloat4E2M1(float v) {
  if (std::isnan(v)) return 0x8;
  const uint8_t sign = static_cast<uint8_t>(SignOf(v) >> 4);
  if (std::isinf(v)) return sign | 0x7;
  const uint32_t code = RoundMagnitude(std::fabs(v), kE2M1);
  return static_cast<uint8_t>(sign | (code > 0x7 ? 0x7u : code));
}

float Float4E2M1ToFloat(uint8_t code) {
  const float mag = DecodeMini(code & 0x7u, kE2M1);
  return (code & 0x8) ? -mag : mag;
}

float DoubleToFloatRoundToOdd(double v) {
  if (!std::isfinite(v)) return static_cast<float>(v);
  float f = static_cast<float>(v);
  if (static_cast<double>(f) == v) return f;
  // Truncate toward zero, then mark the result inexact with an odd last bit.
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

float Float8ToFloat(DataType t, uint8_t bits) {
  switch (t) {
    case DataType::kFloat8E4M3FN:
      return Float8E4M3FNToFloat(bits);
    case DataType::kFloat8E4M3FNUZ:
      return Float8E4M3FNUZToFloat(bits);
    case DataType::kFloat8E5M2:
      return Float8E5M2ToFloat(bits);
    case DataType::kFloat8E5M2FNUZ:
      return Float8E5M2FNUZToFloat(bits);
    case DataType::kFloat8E8M0:
      return Float8E8M0ToFloat(bits);
    default:
      return std::numeric_limits<float>::quiet_NaN();
  }
}

uint8_t FloatToFloat8(DataType t, float v, bool saturate, E8M0Rounding mode) {
  switch (t) {
    case DataType::kFloat8E4M3FN:
      return FloatToFloat8E4M3FN(v, saturate);
    case DataType::kFloat8E4M3FNUZ:
      return FloatToFloat8E4M3FNUZ(v, saturate);
    case DataType::kFloat8E5M2:
      return FloatToFloat8E5M2(v, saturate);
    case DataType::kFloat8E5M2FNUZ:
      return FloatToFloat8E5M2FNUZ(v, saturate);
    case DataType::kFloat8E8M0:
      return FloatToFloat8E8M0(v, saturate, mode);
    default:
      return 0;
  }
}

uint8_t DoubleToFloat8(DataType t, double v, bool saturate, E8M0Rounding mode) {
  if (t == DataType::kFloat8E8M0) return FloatToFloat8E8M0(static_cast<float>(v), saturate, mode);
  return FloatToFloat8(t, DoubleToFloatRoundToOdd(v), saturate, mode);
}

}  // namespace onyx
