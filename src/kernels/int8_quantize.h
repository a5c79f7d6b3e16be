// Vectorizable loops of the 8-bit quantization operators (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear)
// on float32 data: plain loops written so that the compiler turns them into SIMD code without changing a single
// rounding, i.e. the same results as the reference (and ONNX Runtime's MLAS): x / scale divided in float32,
// rounded half to even, the zero point added, saturated.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// The smallest and largest non-NaN values of x[0, n), with 0 included in the range (lo <= 0 <= hi).
void MinMaxWithZero(const float* x, int64_t n, float* lo, float* hi);

// y[i] = saturate(round_half_even(x[i] / scale) + zero_point) for Q in {uint8_t, int8_t}; a NaN x[i] gives
// `nan_value`. scale must be a positive finite float (or at least give finite or infinite quotients).
template <typename Q>
void QuantizeFloat(const float* x, int64_t n, float scale, int32_t zero_point, Q nan_value, Q* y);

// y[i] = float(x[i] - zero_point) * scale, for Q in {uint8_t, int8_t}.
template <typename Q>
void DequantizeToFloat(const Q* x, int64_t n, float scale, int32_t zero_point, float* y);

}  // namespace onyx::kernels
