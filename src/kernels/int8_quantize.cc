// Highway implementation of int8_quantize.h (dispatch as in vector_math.cc: foreach_target.h re-includes this file
// once per instruction set, the HWY_ONCE part defines the public entry points). Every element goes through the same
// operations whatever the vector width: one IEEE division x / scale, the NaN replacement, a clamp to integer bounds
// and a conversion rounding half to even (cvtps2dq under the default rounding mode), so the results are those of
// the scalar definition bit for bit (tests/unit/quantize_float_kernels_test.cc checks ties, near-ties, NaN and
// saturation; tests/unit/int8_quantize_targets_test.cc the same and MinMaxWithZero on every target of the CPU).
// DynamicQuantizeLinear and the fused DynamicQuantizeMatMul both call these loops.
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

// q (already clamped to Q's range, so no overflow) rounded half to even to int32. On x86, cvtps2dq itself: Highway's
// NearestInt adds a fix-up for out-of-range values (three more operations per vector) that a clamped q never needs.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
template <size_t N>
HWY_INLINE hn::Vec128<int32_t, N> RoundClamped(hn::Vec128<float, N> q) {
  return hn::Vec128<int32_t, N>{_mm_cvtps_epi32(q.raw)};
}
#if HWY_TARGET <= HWY_AVX2
HWY_INLINE hn::Vec256<int32_t> RoundClamped(hn::Vec256<float> q) {
  return hn::Vec256<int32_t>{_mm256_cvtps_epi32(q.raw)};
}
#endif
#if HWY_TARGET <= HWY_AVX3
HWY_INLINE hn::Vec512<int32_t> RoundClamped(hn::Vec512<float> q) {
  return hn::Vec512<int32_t>{_mm512_cvtps_epi32(q.raw)};
}
#endif
#else
template <class V>
HWY_INLINE auto RoundClamped(V q) {
  return hn::NearestInt(q);
}
#endif

// int32 values already in Q's range to Q. With AVX-512, vpmovdb truncates each lane to its low byte, which is the
// value itself (two's complement for int8): one instruction where Highway's saturating DemoteTo packs twice and
// permutes.
template <class DQ, class V>
HWY_INLINE hn::Vec<DQ> NarrowInRange(DQ dq, V v) {
  return hn::DemoteTo(dq, v);
}
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
HWY_INLINE hn::Vec128<uint8_t> NarrowInRange(hn::Full128<uint8_t>, hn::Vec512<int32_t> v) {
  return hn::Vec128<uint8_t>{_mm512_cvtepi32_epi8(v.raw)};
}
HWY_INLINE hn::Vec128<int8_t> NarrowInRange(hn::Full128<int8_t>, hn::Vec512<int32_t> v) {
  return hn::Vec128<int8_t>{_mm512_cvtepi32_epi8(v.raw)};
}
#endif

// Quantizes one vector of floats to int32 values in Q's range. (A product by the reciprocal, divisions only near
// ties, was measured no faster here: the loop is bound by reading the floats, not by the divisions.)
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> QuantizeV(D, hn::Vec<D> x, const QuantVectors<D>& k) {
  hn::Vec<D> q = hn::Div(x, k.scale);
  q = hn::IfThenElse(hn::IsNaN(q), k.nan, q);
  q = hn::Min(hn::Max(q, k.lo), k.hi);
  return hn::Add(RoundClamped(q), k.zp);
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
    hn::StoreU(NarrowInRange(dq, a), dq, y + i);
    hn::StoreU(NarrowInRange(dq, b), dq, y + i + lanes);
  }
  for (; i + lanes <= n; i += lanes) hn::StoreU(NarrowInRange(dq, QuantizeV(d, hn::LoadU(d, x + i), k)), dq, y + i);
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
      const auto v0 = NarrowInRange(dq, QuantizeV(d, hn::LoadU(d, x + p), k));
      const auto v1 = NarrowInRange(dq, QuantizeV(d, hn::LoadU(d, x + plane + p), k));
      const auto v2 = NarrowInRange(dq, QuantizeV(d, hn::LoadU(d, x + 2 * plane + p), k));
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

// `v < m ? v : m` and `v > m ? v : m` per lane: a NaN v leaves m (m itself is never NaN). x86's minps/maxps with
// v first compute exactly that, and Highway's emulated targets skip a NaN in either operand; other instruction
// sets' min/max may propagate a NaN, so they compare and select.
template <class V>
HWY_INLINE V MinSkippingNaN(V v, V m) {
#if HWY_ARCH_X86
  return hn::Min(v, m);
#else
  return hn::IfThenElse(hn::Lt(v, m), v, m);
#endif
}
template <class V>
HWY_INLINE V MaxSkippingNaN(V v, V m) {
#if HWY_ARCH_X86
  return hn::Max(v, m);
#else
  return hn::IfThenElse(hn::Gt(v, m), v, m);
#endif
}

// The accumulators start at +0 and only take values strictly below (above) them, so they never hold -0 or a NaN:
// the lanes reduce in any order to the scalar loop's result (two pairs of accumulators hide min/max latency).
void MinMaxT(const float* HWY_RESTRICT x, int64_t n, float* lo, float* hi) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto mn0 = hn::Zero(d), mx0 = hn::Zero(d), mn1 = hn::Zero(d), mx1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto a = hn::LoadU(d, x + i);
    const auto b = hn::LoadU(d, x + i + lanes);
    mn0 = MinSkippingNaN(a, mn0);
    mx0 = MaxSkippingNaN(a, mx0);
    mn1 = MinSkippingNaN(b, mn1);
    mx1 = MaxSkippingNaN(b, mx1);
  }
  for (; i + lanes <= n; i += lanes) {
    const auto a = hn::LoadU(d, x + i);
    mn0 = MinSkippingNaN(a, mn0);
    mx0 = MaxSkippingNaN(a, mx0);
  }
  float l = hn::GetLane(hn::MinOfLanes(d, hn::Min(mn0, mn1)));
  float h = hn::GetLane(hn::MaxOfLanes(d, hn::Max(mx0, mx1)));
  for (; i < n; ++i) {
    l = x[i] < l ? x[i] : l;
    h = x[i] > h ? x[i] : h;
  }
  *lo = l;
  *hi = h;
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

HWY_EXPORT(MinMaxT);
HWY_EXPORT(QuantizeU8);
HWY_EXPORT(QuantizeS8);
HWY_EXPORT(ToChannelsLastU8);
HWY_EXPORT(ToChannelsLastS8);
HWY_EXPORT(DequantizeU8);
HWY_EXPORT(DequantizeS8);

void MinMaxWithZero(const float* x, int64_t n, float* lo, float* hi) { HWY_DYNAMIC_DISPATCH(MinMaxT)(x, n, lo, hi); }

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
