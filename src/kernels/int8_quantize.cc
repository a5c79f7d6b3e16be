// Highway implementation of int8_quantize.h (dispatch as in vector_math.cc: foreach_target.h re-includes this file
// once per instruction set, the HWY_ONCE part defines the public entry points). Every element goes through the same
// operations whatever the vector width: one IEEE division x / scale, the NaN replacement, a clamp to integer bounds
// and a conversion rounding half to even (cvtps2dq under the default rounding mode), so the results are those of
// the scalar definition bit for bit (tests/unit/quantize_float_kernels_test.cc checks ties, near-ties, NaN and
// saturation).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/int8_quantize.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// foreach_target.h must come first: it re-includes this file, with the headers below, for each target.
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/int8_quantize.h"

HWY_BEFORE_NAMESPACE();
namespace onyx::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The quantization of one tensor, centred on the zero point: clamping the quotient to [qmin - zp, qmax - zp]
// before rounding equals saturating after it (the bounds are integers), and keeps the conversion in range.
struct Centred {
  float lo, hi, nan;  // nan: the value a NaN quotient takes (nan_value - zp)
  int32_t zp;
};

template <typename Q>
Centred Centre(int32_t zero_point, Q nan_value) {
  return {static_cast<float>(std::numeric_limits<Q>::lowest() - zero_point),
          static_cast<float>(std::numeric_limits<Q>::max() - zero_point),
          static_cast<float>(static_cast<int32_t>(nan_value) - zero_point), zero_point};
}

// One element, exactly as the vectors compute it (the tails).
template <typename Q>
HWY_INLINE Q QuantizeOne(float x, float scale, const Centred& c) {
  float q = x / scale;
  q = q == q ? q : c.nan;
  q = std::min(std::max(q, c.lo), c.hi);
  return static_cast<Q>(static_cast<int32_t>(std::nearbyint(q)) + c.zp);
}

// The per-vector constants of QuantizeV.
template <class D>
struct QuantVectors {
  QuantVectors(D d, float scale, const Centred& c)
      : scale(hn::Set(d, scale)),
        lo(hn::Set(d, c.lo)),
        hi(hn::Set(d, c.hi)),
        nan(hn::Set(d, c.nan)),
        zp(hn::Set(hn::RebindToSigned<D>(), c.zp)) {}
  hn::Vec<D> scale, lo, hi, nan;
  hn::Vec<hn::RebindToSigned<D>> zp;
};

// Quantizes one vector of floats to int32 values in Q's range. (A product by the reciprocal, divisions only near
// ties, was measured no faster here: the loop is bound by reading the floats, not by the divisions.)
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> QuantizeV(D, hn::Vec<D> x, const QuantVectors<D>& k) {
  hn::Vec<D> q = hn::Div(x, k.scale);
  q = hn::IfThenElse(hn::IsNaN(q), k.nan, q);
  q = hn::Min(hn::Max(q, k.lo), k.hi);
  return hn::Add(hn::NearestInt(q), k.zp);
}

template <typename Q>
void QuantizeT(const float* HWY_RESTRICT x, int64_t n, float scale, int32_t zero_point, Q nan_value,
               Q* HWY_RESTRICT y) {
  using D = hn::ScalableTag<float>;
  const D d;
  const hn::Rebind<Q, D> dq;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const Centred c = Centre(zero_point, nan_value);
  const QuantVectors<D> k(d, scale, c);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto a = QuantizeV(d, hn::LoadU(d, x + i), k);
    const auto b = QuantizeV(d, hn::LoadU(d, x + i + lanes), k);
    hn::StoreU(hn::DemoteTo(dq, a), dq, y + i);
    hn::StoreU(hn::DemoteTo(dq, b), dq, y + i + lanes);
  }
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::DemoteTo(dq, QuantizeV(d, hn::LoadU(d, x + i), k)), dq, y + i);
  for (; i < n; ++i) y[i] = QuantizeOne<Q>(x[i], scale, c);
}

template <typename Q>
void ToChannelsLastT(const float* HWY_RESTRICT x, int64_t channels, int64_t plane, int64_t pixels, float scale,
                     int32_t zero_point, Q nan_value, Q* HWY_RESTRICT y) {
  if (channels <= 0 || pixels <= 0) return;
  if (channels == 1) return QuantizeT(x, pixels, scale, zero_point, nan_value, y);
  const Centred c = Centre(zero_point, nan_value);
  int64_t p = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  // Three channels (images): one vector of pixels per channel, interleaved in registers. The 8-bit vectors are 64
  // (AVX2) or 128 bits (AVX-512), the widths StoreInterleaved3 has byte shuffles for.
  if (channels == 3) {
    using D = hn::ScalableTag<float>;
    const D d;
    const hn::Rebind<Q, D> dq;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const QuantVectors<D> k(d, scale, c);
    for (; p + lanes <= pixels; p += lanes) {
      const auto v0 = hn::DemoteTo(dq, QuantizeV(d, hn::LoadU(d, x + p), k));
      const auto v1 = hn::DemoteTo(dq, QuantizeV(d, hn::LoadU(d, x + plane + p), k));
      const auto v2 = hn::DemoteTo(dq, QuantizeV(d, hn::LoadU(d, x + 2 * plane + p), k));
      hn::StoreInterleaved3(v0, v1, v2, dq, y + p * 3);
    }
    for (; p < pixels; ++p) {
      for (int64_t ch = 0; ch < 3; ++ch) y[p * 3 + ch] = QuantizeOne<Q>(x[ch * plane + p], scale, c);
    }
    return;
  }
#endif
  // Any channel count: blocks of pixels quantized plane by plane into a small buffer (L1-resident), then
  // transposed into place.
  constexpr int64_t kBufferBytes = 16384;
  alignas(64) Q buffer[kBufferBytes];
  const int64_t block = std::max<int64_t>(1, std::min<int64_t>(256, kBufferBytes / channels));
  for (; p < pixels; p += block) {
    const int64_t len = std::min(block, pixels - p);
    if (len * channels > kBufferBytes) {  // more channels than the buffer holds pixels of: element by element
      for (int64_t ch = 0; ch < channels; ++ch) y[p * channels + ch] = QuantizeOne<Q>(x[ch * plane + p], scale, c);
      continue;
    }
    for (int64_t ch = 0; ch < channels; ++ch)
      QuantizeT(x + ch * plane + p, len, scale, zero_point, nan_value, buffer + ch * len);
    Q* out = y + p * channels;
    for (int64_t i = 0; i < len; ++i) {
      for (int64_t ch = 0; ch < channels; ++ch) out[i * channels + ch] = buffer[ch * len + i];
    }
  }
}

template <typename Q>
void DequantizeT(const Q* HWY_RESTRICT x, int64_t n, float scale, int32_t zero_point, float* HWY_RESTRICT y) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<Q, decltype(d)> dq;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vscale = hn::Set(d, scale);
  const auto vzp = hn::Set(di, zero_point);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto centred = hn::Sub(hn::PromoteTo(di, hn::LoadU(dq, x + i)), vzp);
    hn::StoreU(hn::Mul(hn::ConvertTo(d, centred), vscale), d, y + i);
  }
  for (; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
}

void QuantizeU8(const float* x, int64_t n, float scale, int32_t zp, uint8_t nan_value, uint8_t* y) {
  QuantizeT(x, n, scale, zp, nan_value, y);
}
void QuantizeS8(const float* x, int64_t n, float scale, int32_t zp, int8_t nan_value, int8_t* y) {
  QuantizeT(x, n, scale, zp, nan_value, y);
}
void ToChannelsLastU8(const float* x, int64_t channels, int64_t plane, int64_t pixels, float scale, int32_t zp,
                      uint8_t nan_value, uint8_t* y) {
  ToChannelsLastT(x, channels, plane, pixels, scale, zp, nan_value, y);
}
void ToChannelsLastS8(const float* x, int64_t channels, int64_t plane, int64_t pixels, float scale, int32_t zp,
                      int8_t nan_value, int8_t* y) {
  ToChannelsLastT(x, channels, plane, pixels, scale, zp, nan_value, y);
}
void DequantizeU8(const uint8_t* x, int64_t n, float scale, int32_t zp, float* y) { DequantizeT(x, n, scale, zp, y); }
void DequantizeS8(const int8_t* x, int64_t n, float scale, int32_t zp, float* y) { DequantizeT(x, n, scale, zp, y); }

}  // namespace HWY_NAMESPACE
}  // namespace onyx::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onyx::kernels {

HWY_EXPORT(QuantizeU8);
HWY_EXPORT(QuantizeS8);
HWY_EXPORT(ToChannelsLastU8);
HWY_EXPORT(ToChannelsLastS8);
HWY_EXPORT(DequantizeU8);
HWY_EXPORT(DequantizeS8);

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

namespace {

// The entry points by 8-bit type, for the templates below.
void Quantize(const float* x, int64_t n, float scale, int32_t zp, uint8_t nan_value, uint8_t* y) {
  HWY_DYNAMIC_DISPATCH(QuantizeU8)(x, n, scale, zp, nan_value, y);
}
void Quantize(const float* x, int64_t n, float scale, int32_t zp, int8_t nan_value, int8_t* y) {
  HWY_DYNAMIC_DISPATCH(QuantizeS8)(x, n, scale, zp, nan_value, y);
}
void ToChannelsLast(const float* x, int64_t channels, int64_t plane, int64_t pixels, float scale, int32_t zp,
                    uint8_t nan_value, uint8_t* y) {
  HWY_DYNAMIC_DISPATCH(ToChannelsLastU8)(x, channels, plane, pixels, scale, zp, nan_value, y);
}
void ToChannelsLast(const float* x, int64_t channels, int64_t plane, int64_t pixels, float scale, int32_t zp,
                    int8_t nan_value, int8_t* y) {
  HWY_DYNAMIC_DISPATCH(ToChannelsLastS8)(x, channels, plane, pixels, scale, zp, nan_value, y);
}
void Dequantize(const uint8_t* x, int64_t n, float scale, int32_t zp, float* y) {
  HWY_DYNAMIC_DISPATCH(DequantizeU8)(x, n, scale, zp, y);
}
void Dequantize(const int8_t* x, int64_t n, float scale, int32_t zp, float* y) {
  HWY_DYNAMIC_DISPATCH(DequantizeS8)(x, n, scale, zp, y);
}

}  // namespace

template <typename Q>
void QuantizeFloat(const float* x, int64_t n, float scale, int32_t zero_point, Q nan_value, Q* y) {
  Quantize(x, n, scale, zero_point, nan_value, y);
}

template <typename Q>
void QuantizeFloatToChannelsLast(const float* x, int64_t channels, int64_t plane, int64_t pixels, float scale,
                                 int32_t zero_point, Q nan_value, Q* y) {
  ToChannelsLast(x, channels, plane, pixels, scale, zero_point, nan_value, y);
}

template <typename Q>
void DequantizeToFloat(const Q* x, int64_t n, float scale, int32_t zero_point, float* y) {
  Dequantize(x, n, scale, zero_point, y);
}

template void QuantizeFloat<uint8_t>(const float*, int64_t, float, int32_t, uint8_t, uint8_t*);
template void QuantizeFloat<int8_t>(const float*, int64_t, float, int32_t, int8_t, int8_t*);
template void QuantizeFloatToChannelsLast<uint8_t>(const float*, int64_t, int64_t, int64_t, float, int32_t, uint8_t,
                                                   uint8_t*);
template void QuantizeFloatToChannelsLast<int8_t>(const float*, int64_t, int64_t, int64_t, float, int32_t, int8_t,
                                                  int8_t*);
template void DequantizeToFloat<uint8_t>(const uint8_t*, int64_t, float, int32_t, float*);
template void DequantizeToFloat<int8_t>(const int8_t*, int64_t, float, int32_t, float*);

}  // namespace onyx::kernels
#endif  // HWY_ONCE
