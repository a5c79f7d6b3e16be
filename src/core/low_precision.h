// ONNX's low-precision element types, stored as their bit patterns: the float8 family (e4m3fn, e4m3fnuz, e5m2,
// e5m2fnuz, e8m0), float4e2m1 and the packed integers int4/uint4/int2/uint2.
//
// Conversions from float follow the Cast specification and its reference implementation (ml_dtypes):
// round to nearest, ties to even; `saturate` clamps out-of-range values (and infinities) to the largest finite
// value, otherwise they become inf (e5m2) or NaN (the others). float8e8m0 follows the reference's bit-level
// rounding modes. Every decoding to float is exact.
//
// Sub-byte types are packed as ONNX packs them: element i of a 4-bit tensor lives in byte i/2, in the low nibble
// when i is even; element i of a 2-bit tensor lives in byte i/4 at bit 2*(i%4).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/data_type.h"
#include "core/status.h"

namespace onyx {

// ---- float8 ----
uint8_t FloatToFloat8E4M3FN(float v, bool saturate = true);
uint8_t FloatToFloat8E4M3FNUZ(float v, bool saturate = true);
uint8_t FloatToFloat8E5M2(float v, bool saturate = true);
uint8_t FloatToFloat8E5M2FNUZ(float v, bool saturate = true);
float Float8E4M3FNToFloat(uint8_t bits);
float Float8E4M3FNUZToFloat(uint8_t bits);
float Float8E5M2ToFloat(uint8_t bits);
float Float8E5M2FNUZToFloat(uint8_t bits);

// float8e8m0 is a bare biased exponent: 2^(bits-127), 0xff is NaN; there is no zero and no sign.
// The rounding mode is Cast's `round_mode` (opset 25): up rounds any fraction up to the next power of two, down
// drops it, nearest rounds half-way and above up. The sign of the input is ignored; NaN and infinities give NaN.
// With saturate, rounding never overflows past the largest value 2^127; otherwise it overflows to NaN.
enum class E8M0Rounding { kUp, kDown, kNearest };
Result<E8M0Rounding> E8M0RoundingFromName(std::string_view name);  // "up", "down", "nearest"
uint8_t FloatToFloat8E8M0(float v, bool saturate = true, E8M0Rounding mode = E8M0Rounding::kUp);
float Float8E8M0ToFloat(uint8_t bits);

// ---- float4e2m1 (a 4-bit code in the low nibble) ----
// Values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; no inf, no NaN. Conversion always saturates to +-6;
// NaN becomes 0x8 (negative zero), as the reference does.
uint8_t FloatToFloat4E2M1(float v);
float Float4E2M1ToFloat(uint8_t code);

// ---- conversions of a double to the types above ----
// Rounds to float "to odd" (an inexact result gets its last mantissa bit set). A later round-to-nearest-even to
// any format at least two bits narrower than float then equals direct rounding of the double.
float DoubleToFloatRoundToOdd(double v);

// ---- any byte-sized float8 type, chosen at run time ----
// `t` must satisfy IsFloat8(t).
float Float8ToFloat(DataType t, uint8_t bits);
uint8_t FloatToFloat8(DataType t, float v, bool saturate = true, E8M0Rounding mode = E8M0Rounding::kUp);
// Rounds a double once (no double rounding through float) except for e8m0, which the reference converts through
// float first.
uint8_t DoubleToFloat8(DataType t, double v, bool saturate = true, E8M0Rounding mode = E8M0Rounding::kUp);

// ---- packed 4-bit and 2-bit access ----
inline uint8_t GetPackedNibble(const void* data, int64_t i) {
  const uint8_t byte = static_cast<const uint8_t*>(data)[i >> 1];
  return (i & 1) ? static_cast<uint8_t>(byte >> 4) : static_cast<uint8_t>(byte & 0x0f);
}
inline void SetPackedNibble(void* data, int64_t i, uint8_t nibble) {
  uint8_t& byte = static_cast<uint8_t*>(data)[i >> 1];
  nibble &= 0x0f;
  byte = (i & 1) ? static_cast<uint8_t>((byte & 0x0f) | (nibble << 4)) : static_cast<uint8_t>((byte & 0xf0) | nibble);
}
inline uint8_t GetPacked2Bit(const void* data, int64_t i) {
  const uint8_t byte = static_cast<const uint8_t*>(data)[i >> 2];
  return static_cast<uint8_t>((byte >> (2 * (i & 3))) & 0x3);
}
inline void SetPacked2Bit(void* data, int64_t i, uint8_t v) {
  uint8_t& byte = static_cast<uint8_t*>(data)[i >> 2];
  const int shift = static_cast<int>(2 * (i & 3));
  byte = static_cast<uint8_t>((byte & ~(0x3 << shift)) | ((v & 0x3) << shift));
}

inline int8_t GetInt4(const void* data, int64_t i) {
  return static_cast<int8_t>(static_cast<int8_t>(GetPackedNibble(data, i) << 4) >> 4);  // sign-extend
}
inline uint8_t GetUint4(const void* data, int64_t i) { return GetPackedNibble(data, i); }
inline int8_t GetInt2(const void* data, int64_t i) {
  return static_cast<int8_t>(static_cast<int8_t>(GetPacked2Bit(data, i) << 6) >> 6);  // sign-extend
}
inline uint8_t GetUint2(const void* data, int64_t i) { return GetPacked2Bit(data, i); }

// Integers clamped into the sub-byte ranges: int4 [-8, 7], uint4 [0, 15], int2 [-2, 1], uint2 [0, 3].
inline int8_t ClampToInt4(int64_t v) { return static_cast<int8_t>(v < -8 ? -8 : v > 7 ? 7 : v); }
inline uint8_t ClampToUint4(int64_t v) { return static_cast<uint8_t>(v < 0 ? 0 : v > 15 ? 15 : v); }
inline int8_t ClampToInt2(int64_t v) { return static_cast<int8_t>(v < -2 ? -2 : v > 1 ? 1 : v); }
inline uint8_t ClampToUint2(int64_t v) { return static_cast<uint8_t>(v < 0 ? 0 : v > 3 ? 3 : v); }

inline void SetInt4(void* data, int64_t i, int64_t v) {
  SetPackedNibble(data, i, static_cast<uint8_t>(ClampToInt4(v)));
}
inline void SetUint4(void* data, int64_t i, int64_t v) { SetPackedNibble(data, i, ClampToUint4(v)); }
inline void SetInt2(void* data, int64_t i, int64_t v) { SetPacked2Bit(data, i, static_cast<uint8_t>(ClampToInt2(v))); }
inline void SetUint2(void* data, int64_t i, int64_t v) { SetPacked2Bit(data, i, ClampToUint2(v)); }

}  // namespace onyx
