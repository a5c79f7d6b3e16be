// The loops of the 8-bit quantization operators (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) on
// float32 data, vectorized with Highway (best instruction set at run time, under ONYX_MAX_ISA) without changing a
// single rounding, i.e. the same results as the reference (and ONNX Runtime's MLAS): x / scale divided in float32
// (exact at any vector width: one correctly rounded division per element), rounded half to even, the zero point
// added, saturated.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// The smallest and largest non-NaN values of x[0, n), with 0 included in the range (lo <= 0 <= hi).
void MinMaxWithZero(const float* x, int64_t n, float* lo, float* hi);

// y[i] = saturate(round_half_even(x[i] / scale) + zero_point) for Q in {uint8_t, int8_t}; a NaN x[i] gives
// `nan_value`. scale must be a positive finite float (or at least give finite or infinite quotients).
template <typename Q>
void QuantizeFloat(const float* x, int64_t n, float scale, int32_t zero_point, Q nan_value, Q* y);

// QuantizeFloat of `channels` planes into channels-last order: y[p * channels + c] = quantize(x[c * plane + p]) for p
// in [0, pixels), i.e. a slice of one [C, H, W] image quantized straight into [H, W, C] (QuantizeLinear followed
// by the Transpose to channels last, in one pass over the floats).
template <typename Q>
void QuantizeFloatToChannelsLast(const float* x, int64_t channels, int64_t plane, int64_t pixels, float scale,
                                 int32_t zero_point, Q nan_value, Q* y);

// y[i] = float(x[i] - zero_point) * scale, for Q in {uint8_t, int8_t}.
template <typename Q>
void DequantizeToFloat(const Q* x, int64_t n, float scale, int32_t zero_point, float* y);

}  // namespace onyx::kernels
