// The requantization step of the 8-bit integer kernels (QLinearConv, QLinearMatMul and the QDQ groups fused into
// them), computed exactly as ONNX Runtime's MLAS computes it so that results stay bit-identical: the int32
// accumulator (bias already added, wrapping) converted to float, multiplied by the float scale, clamped to
// [qmin - zero_point, qmax - zero_point], rounded half to even, plus the zero point. Clamping before rounding equals
// saturating after it (the bounds are integers); a NaN product gives qmin (MLAS's max(v, lo) keeps lo for NaN).
#pragma once

#include <cstdint>
#include <limits>

namespace onyx::kernels {

template <typename Q>
inline Q RequantizeValue(int32_t acc, float scale, int32_t zero_point) {
  // |v| <= 510 after the clamp, where adding and subtracting 1.5 * 2^23 rounds half to even in float32.
  constexpr float kRound = 12582912.0f;
  const float lo = static_cast<float>(std::numeric_limits<Q>::lowest() - zero_point);
  const float hi = static_cast<float>(std::numeric_limits<Q>::max() - zero_point);
  float v = static_cast<float>(acc) * scale;
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return static_cast<Q>(static_cast<int32_t>((v + kRound) - kRound) + zero_point);
}

// Channels-last accumulators acc[p * channels + c] (p < pixels) to channels-first out[c * out_stride + p]:
// RequantizeValue(acc + bias[c], scales[c], zero_point); bias may be null (0). For Q in {uint8_t, int8_t}.
// out_stride (the image's pixel count) lets callers split an image's pixels between threads.
template <typename Q>
void RequantizeNhwcToNchw(const int32_t* acc, int64_t pixels, int64_t channels, const int32_t* bias,
                          const float* scales, int32_t zero_point, Q* out, int64_t out_stride);

template <typename Q>
void RequantizeNhwcToNchw(const int32_t* acc, int64_t pixels, int64_t channels, const int32_t* bias,
                          const float* scales, int32_t zero_point, Q* out) {
  RequantizeNhwcToNchw<Q>(acc, pixels, channels, bias, scales, zero_point, out, pixels);
}

// Row-major acc[r * cols + c] requantized in place of layout: out[r * cols + c] = RequantizeValue(acc + bias[c],
// scales[per_column ? c : 0], zero_point); bias may be null.
template <typename Q>
void RequantizeRows(const int32_t* acc, int64_t rows, int64_t cols, const int32_t* bias, const float* scales,
                    bool per_column, int32_t zero_point, Q* out);

// out[c * pixels + p] = in[p * channels + c].
void Int32NhwcToNchw(const int32_t* in, int64_t pixels, int64_t channels, int32_t* out);

}  // namespace onyx::kernels
