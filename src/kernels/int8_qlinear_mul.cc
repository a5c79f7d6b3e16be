#include "kernels/int8_qlinear_mul.h"

// MLAS multiplies and adds in two roundings; GCC 12 contracts a multiply and an add into one FMA in C++ (its default
// -ffp-contract=fast outside ISO C) wherever the target has FMA, as in the AVX-512 region below: a tie at .5 then
// rounds the other way (8 of 786,432 products in a sweep). Off for this file.
#pragma GCC optimize("fp-contract=off")

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/cpu_isa.h"

namespace onyx::kernels {
namespace {

// One result from the exact product: cvtps2dq (round half to even; NaN and out-of-range give INT32_MIN), then
// packssdw and packuswb/packsswb, which saturate like one clamp to the type's range.
template <typename Q>
Q FromProduct(int32_t product, const QLinearMulParams& p) {
  const float v = static_cast<float>(product) * p.ratio + p.c_zero_point;
  int32_t r = std::numeric_limits<int32_t>::min();
  if (v >= -2147483648.0f && v < 2147483648.0f) r = static_cast<int32_t>(std::nearbyint(v));
  constexpr int32_t lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(r < lo ? lo : r > hi ? hi : r);
}

#if defined(__SSE2__)
// Eight products (int32 in two registers) to eight results, as MLAS's SSE2 kernel does.
template <typename Q>
void StoreEight(__m128i lo, __m128i hi, __m128 ratio, __m128 c_zp, Q* out) {
  lo = _mm_cvtps_epi32(_mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(lo), ratio), c_zp));
  hi = _mm_cvtps_epi32(_mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(hi), ratio), c_zp));
  const __m128i s16 = _mm_packs_epi32(lo, hi);
  const __m128i s8 = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(s16, s16) : _mm_packs_epi16(s16, s16);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), s8);
}

// Eight 8-bit values widened to int32 minus the zero point, in two registers.
template <typename Q>
void Widen(const Q* x, int32_t zp, __m128i* lo, __m128i* hi) {
  const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x));
  __m128i w16 = std::is_same_v<Q, uint8_t> ? _mm_unpacklo_epi8(bytes, _mm_setzero_si128())
                                           : _mm_srai_epi16(_mm_unpacklo_epi8(bytes, bytes), 8);
  w16 = _mm_sub_epi16(w16, _mm_set1_epi16(static_cast<int16_t>(zp)));
  *lo = _mm_srai_epi32(_mm_unpacklo_epi16(w16, w16), 16);
  *hi = _mm_srai_epi32(_mm_unpackhi_epi16(w16, w16), 16);
}

// The low 32 bits of each lane's product (the products fit: |a - zp|, |b - zp| <= 255).
inline __m128i MulLo32(__m128i a, __m128i b) {
  const __m128i even = _mm_mul_epu32(a, b);
  const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
  return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)),
                            _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
}
#endif

// AVX2 and AVX-512 forms of the same per-lane operations (widen, subtract the zero points, an exact int32 product,
// convert, multiply, add, cvtps, saturate), chosen at run time: 8 or 16 results per step instead of SSE2's
// shuffles. Products and conversions are exact, the multiply and the add each one IEEE rounding: the same bits.
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2_mul {
// (Static member functions, not lambdas: a lambda in a target region is compiled for the default target.)
struct V {
  using I = __m256i;
  using F = __m256;
  static constexpr int64_t kLanes = 8;
  static I Set1(int32_t v) { return _mm256_set1_epi32(v); }
  static F Set1(float v) { return _mm256_set1_ps(v); }
  template <typename Q>
  static I Widen(const Q* x) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x));
    if constexpr (std::is_same_v<Q, uint8_t>) return _mm256_cvtepu8_epi32(bytes);
    return _mm256_cvtepi8_epi32(bytes);
  }
  static I Sub(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I MulLo(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static F ToFloat(I a) { return _mm256_cvtepi32_ps(a); }
  static F Mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F Add(F a, F b) { return _mm256_add_ps(a, b); }
  static I Round(F a) { return _mm256_cvtps_epi32(a); }
  template <typename Q>
  static void Store(I r, Q* out) {
    r = _mm256_min_epi32(_mm256_max_epi32(r, Set1(std::numeric_limits<Q>::lowest())),
                         Set1(std::numeric_limits<Q>::max()));
    const __m128i r16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    const __m128i r8 = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(r16, r16) : _mm_packs_epi16(r16, r16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), r8);
  }
};
#include "kernels/int8_qlinear_mul_loops.inc"
}  // namespace avx2_mul
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2")
namespace avx512_mul {
struct V {
  using I = __m512i;
  using F = __m512;
  static constexpr int64_t kLanes = 16;
  static I Set1(int32_t v) { return _mm512_set1_epi32(v); }
  static F Set1(float v) { return _mm512_set1_ps(v); }
  template <typename Q>
  static I Widen(const Q* x) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
    if constexpr (std::is_same_v<Q, uint8_t>) return _mm512_cvtepu8_epi32(bytes);
    return _mm512_cvtepi8_epi32(bytes);
  }
  static I Sub(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I MulLo(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static F ToFloat(I a) { return _mm512_cvtepi32_ps(a); }
  static F Mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F Add(F a, F b) { return _mm512_add_ps(a, b); }
  static I Round(F a) { return _mm512_cvtps_epi32(a); }
  template <typename Q>
  static void Store(I r, Q* out) {
    r = _mm512_min_epi32(_mm512_max_epi32(r, Set1(std::numeric_limits<Q>::lowest())),
                         Set1(std::numeric_limits<Q>::max()));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(r));
  }
};
#include "kernels/int8_qlinear_mul_loops.inc"
}  // namespace avx512_mul
#pragma GCC pop_options

template <typename Q, bool kScalarB>
void MulLoop(const Q* a, const Q* b, int64_t n, const QLinearMulParams& p, Q* out) {
  int64_t i = 0;
  static const Isa isa = EffectiveIsa();
  if (isa == Isa::kAvx512) {
    avx512_mul::Loop<Q, kScalarB>(a, b, n, p, out, &i);
  } else if (isa == Isa::kAvx2) {
    avx2_mul::Loop<Q, kScalarB>(a, b, n, p, out, &i);
  }
#if defined(__SSE2__)
  const __m128 ratio = _mm_set1_ps(p.ratio), c_zp = _mm_set1_ps(p.c_zero_point);
  __m128i b_lo = _mm_set1_epi32(kScalarB ? static_cast<int32_t>(b[0]) - p.b_zero_point : 0), b_hi = b_lo;
  for (; i + 8 <= n; i += 8) {
    __m128i a_lo, a_hi;
    Widen(a + i, p.a_zero_point, &a_lo, &a_hi);
    if constexpr (!kScalarB) Widen(b + i, p.b_zero_point, &b_lo, &b_hi);
    StoreEight<Q>(MulLo32(a_lo, b_lo), MulLo32(a_hi, b_hi), ratio, c_zp, out + i);
  }
#endif
  for (; i < n; ++i) {
    const int32_t bv = static_cast<int32_t>(kScalarB ? b[0] : b[i]) - p.b_zero_point;
    out[i] = FromProduct<Q>((static_cast<int32_t>(a[i]) - p.a_zero_point) * bv, p);
  }
}

}  // namespace

QLinearMulParams MakeQLinearMulParams(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point,
                                      float c_scale, int32_t c_zero_point) {
  QLinearMulParams p;
  p.ratio = a_scale * b_scale / c_scale;
  p.c_zero_point = static_cast<float>(c_zero_point);
  p.a_zero_point = a_zero_point;
  p.b_zero_point = b_zero_point;
  return p;
}

template <typename Q>
void QLinearMulSpans(const Q* a, const Q* b, int64_t n, const QLinearMulParams& p, Q* out) {
  MulLoop<Q, false>(a, b, n, p, out);
}

template <typename Q>
void QLinearMulScalar(const Q* a, Q b, int64_t n, const QLinearMulParams& p, Q* out) {
  MulLoop<Q, true>(a, &b, n, p, out);
}

template <typename Q>
void QLinearMulRowsRepeatedB(const Q* a, const Q* b, int64_t rows, int64_t span, const QLinearMulParams& p, Q* out) {
  static const Isa isa = EffectiveIsa();
  if (isa == Isa::kAvx512 && span % 16 == 0) {
    avx512_mul::LoopRowsRepeatedB<Q>(a, b, rows, span, p, out);
  } else if (isa == Isa::kAvx2 && span % 8 == 0) {
    avx2_mul::LoopRowsRepeatedB<Q>(a, b, rows, span, p, out);
  } else {
    for (int64_t r = 0; r < rows; ++r) MulLoop<Q, false>(a + r * span, b, span, p, out + r * span);
  }
}

template void QLinearMulRowsRepeatedB<uint8_t>(const uint8_t*, const uint8_t*, int64_t, int64_t,
                                               const QLinearMulParams&, uint8_t*);
template void QLinearMulRowsRepeatedB<int8_t>(const int8_t*, const int8_t*, int64_t, int64_t, const QLinearMulParams&,
                                              int8_t*);
template void QLinearMulSpans<uint8_t>(const uint8_t*, const uint8_t*, int64_t, const QLinearMulParams&, uint8_t*);
template void QLinearMulSpans<int8_t>(const int8_t*, const int8_t*, int64_t, const QLinearMulParams&, int8_t*);
template void QLinearMulScalar<uint8_t>(const uint8_t*, uint8_t, int64_t, const QLinearMulParams&, uint8_t*);
template void QLinearMulScalar<int8_t>(const int8_t*, int8_t, int64_t, const QLinearMulParams&, int8_t*);

}  // namespace onyx::kernels
