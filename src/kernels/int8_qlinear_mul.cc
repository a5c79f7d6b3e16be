#include "kernels/int8_qlinear_mul.h"

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
// (Functions, not lambdas: a lambda in a target region is compiled for the default target.)
template <typename Q>
inline __m256i Widen(const Q* x) {
  const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x));
  if constexpr (std::is_same_v<Q, uint8_t>) return _mm256_cvtepu8_epi32(bytes);
  return _mm256_cvtepi8_epi32(bytes);
}

template <typename Q, bool kScalarB>
void Loop(const Q* a, const Q* b, int64_t n, const QLinearMulParams& p, Q* out, int64_t* done) {
  const __m256i za = _mm256_set1_epi32(p.a_zero_point), zb = _mm256_set1_epi32(p.b_zero_point);
  const __m256 ratio = _mm256_set1_ps(p.ratio), c_zp = _mm256_set1_ps(p.c_zero_point);
  const __m256i lo = _mm256_set1_epi32(std::numeric_limits<Q>::lowest());
  const __m256i hi = _mm256_set1_epi32(std::numeric_limits<Q>::max());
  const __m256i bs = _mm256_set1_epi32(kScalarB ? static_cast<int32_t>(b[0]) - p.b_zero_point : 0);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i av = _mm256_sub_epi32(Widen(a + i), za);
    const __m256i bv = kScalarB ? bs : _mm256_sub_epi32(Widen(b + i), zb);
    const __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_mullo_epi32(av, bv)), ratio), c_zp);
    const __m256i r = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvtps_epi32(v), lo), hi);
    const __m128i r16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    const __m128i r8 = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(r16, r16) : _mm_packs_epi16(r16, r16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), r8);
  }
  *done = i;
}
}  // namespace avx2_mul
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2")
namespace avx512_mul {
template <typename Q>
inline __m512i Widen(const Q* x) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
  if constexpr (std::is_same_v<Q, uint8_t>) return _mm512_cvtepu8_epi32(bytes);
  return _mm512_cvtepi8_epi32(bytes);
}

template <typename Q, bool kScalarB>
void Loop(const Q* a, const Q* b, int64_t n, const QLinearMulParams& p, Q* out, int64_t* done) {
  const __m512i za = _mm512_set1_epi32(p.a_zero_point), zb = _mm512_set1_epi32(p.b_zero_point);
  const __m512 ratio = _mm512_set1_ps(p.ratio), c_zp = _mm512_set1_ps(p.c_zero_point);
  const __m512i lo = _mm512_set1_epi32(std::numeric_limits<Q>::lowest());
  const __m512i hi = _mm512_set1_epi32(std::numeric_limits<Q>::max());
  const __m512i bs = _mm512_set1_epi32(kScalarB ? static_cast<int32_t>(b[0]) - p.b_zero_point : 0);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i av = _mm512_sub_epi32(Widen(a + i), za);
    const __m512i bv = kScalarB ? bs : _mm512_sub_epi32(Widen(b + i), zb);
    const __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_mullo_epi32(av, bv)), ratio), c_zp);
    const __m512i r = _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(v), lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(r));
  }
  *done = i;
}
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

template void QLinearMulSpans<uint8_t>(const uint8_t*, const uint8_t*, int64_t, const QLinearMulParams&, uint8_t*);
template void QLinearMulSpans<int8_t>(const int8_t*, const int8_t*, int64_t, const QLinearMulParams&, int8_t*);
template void QLinearMulScalar<uint8_t>(const uint8_t*, uint8_t, int64_t, const QLinearMulParams&, uint8_t*);
template void QLinearMulScalar<int8_t>(const int8_t*, int8_t, int64_t, const QLinearMulParams&, int8_t*);

}  // namespace onyx::kernels
