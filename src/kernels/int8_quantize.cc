#include "kernels/int8_quantize.h"

#include <limits>

namespace onyx::kernels {

void MinMaxWithZero(const float* x, int64_t n, float* lo, float* hi) {
  // Eight independent accumulators per bound let the compiler keep them in one vector register; `v < m ? v : m`
  // is exactly minps (a NaN v leaves m), so NaNs are skipped without a branch.
  constexpr int kLanes = 8;
  float mins[kLanes], maxs[kLanes];
  for (int l = 0; l < kLanes; ++l) mins[l] = maxs[l] = 0.0f;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float v = x[i + l];
      mins[l] = v < mins[l] ? v : mins[l];
      maxs[l] = v > maxs[l] ? v : maxs[l];
    }
  }
  for (; i < n; ++i) {
    mins[0] = x[i] < mins[0] ? x[i] : mins[0];
    maxs[0] = x[i] > maxs[0] ? x[i] : maxs[0];
  }
  float a = mins[0], b = maxs[0];
  for (int l = 1; l < kLanes; ++l) {
    a = mins[l] < a ? mins[l] : a;
    b = maxs[l] > b ? maxs[l] : b;
  }
  *lo = a;
  *hi = b;
}

template <typename Q>
void QuantizeFloat(const float* x, int64_t n, float scale, int32_t zero_point, Q nan_value, Q* y) {
  // Clamping the quotient to [qmin - zp, qmax - zp] before rounding is the same as saturating after it (the bounds
  // are integers) and keeps |q| < 2^9, where adding and subtracting 1.5 * 2^23 rounds half to even in float32.
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  const float lo = static_cast<float>(std::numeric_limits<Q>::lowest() - zero_point);
  const float hi = static_cast<float>(std::numeric_limits<Q>::max() - zero_point);
  const float nan_centred = static_cast<float>(nan_value - zero_point);
  for (int64_t i = 0; i < n; ++i) {
    float q = x[i] / scale;
    q = q == q ? q : nan_centred;
    q = q < lo ? lo : q;
    q = q > hi ? hi : q;
    const float r = (q + kRound) - kRound;
    y[i] = static_cast<Q>(static_cast<int32_t>(r) + zero_point);
  }
}

template <typename Q>
void DequantizeToFloat(const Q* x, int64_t n, float scale, int32_t zero_point, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
}

template void QuantizeFloat<uint8_t>(const float*, int64_t, float, int32_t, uint8_t, uint8_t*);
template void QuantizeFloat<int8_t>(const float*, int64_t, float, int32_t, int8_t, int8_t*);
template void DequantizeToFloat<uint8_t>(const uint8_t*, int64_t, float, int32_t, float*);
template void DequantizeToFloat<int8_t>(const int8_t*, int64_t, float, int32_t, float*);

}  // namespace onyx::kernels
