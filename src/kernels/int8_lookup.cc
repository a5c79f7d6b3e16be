// Highway implementation of int8_lookup.h (dispatch as in int8_quantize.cc). This file also compiles Highway's
// AVX3_DL target (AVX-512 with VBMI, which Highway leaves out unless asked), the one with a byte permute across a
// whole register: Highway keeps its dispatch per translation unit (GetIndex masks the CPU's targets with this
// file's compiled ones), so no other file changes, and ONYX_MAX_ISA=avx2 disables it with the other AVX-512 targets
// (kernels/cpu_isa.cc).
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/int8_lookup.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// foreach_target.h must come first: it re-includes this file, with the headers below, for each target.
#include <hwy/highway.h>

#include <cstdint>

#include "kernels/int8_lookup.h"

#if HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace onyx::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_AVX3_DL

// vpermi2b looks up 128 entries (two registers) by the low seven bits of each index byte; the two halves of the
// table are looked up this way and bit 7 picks between them. Row tails go through masked loads and stores.
void LookupRows(const uint8_t* HWY_RESTRICT table, const uint8_t* HWY_RESTRICT x, int64_t x_pitch,
                uint8_t* HWY_RESTRICT y, int64_t y_pitch, int64_t rows, int64_t width) {
  const __m512i t0 = _mm512_loadu_si512(table);
  const __m512i t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128);
  const __m512i t3 = _mm512_loadu_si512(table + 192);
  auto lookup = [&](__m512i idx) {
    const __m512i low = _mm512_permutex2var_epi8(t0, idx, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, idx, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high);
  };
  const int64_t tail = width % 64;
  const __mmask64 tail_mask = tail == 0 ? 0 : (~uint64_t{0}) >> (64 - tail);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* in = x + r * x_pitch;
    uint8_t* out = y + r * y_pitch;
    int64_t k = 0;
    for (; k + 64 <= width; k += 64) _mm512_storeu_si512(out + k, lookup(_mm512_loadu_si512(in + k)));
    if (tail != 0) _mm512_mask_storeu_epi8(out + k, tail_mask, lookup(_mm512_maskz_loadu_epi8(tail_mask, in + k)));
  }
}

#elif HWY_TARGET == HWY_AVX3

// One vector: the low nibble indexes a 16-byte slice of the table (TableLookupBytes shuffles within each 128-bit
// block, so the slice is repeated in every block), the high nibble chooses the slice: sixteen shuffles, compares and
// selects per 64 bytes, about half the time of the plain loop (measured here on 55 x 55 rows of 64 bytes, SqueezeNet's
// first concatenation: 37 us against 75, VBMI 8.4; with 256- and 128-bit vectors the same steps were no faster than
// the plain loop, 68 and 102 us).
template <class D>
HWY_INLINE hn::Vec<D> LookupV(D d, const uint8_t* HWY_RESTRICT table, hn::Vec<D> idx) {
  const auto low = hn::And(idx, hn::Set(d, uint8_t{0x0F}));
  const auto high = hn::ShiftRight<4>(idx);
  auto result = hn::TableLookupBytes(hn::LoadDup128(d, table), low);
  for (int j = 1; j < 16; ++j) {
    const auto slice = hn::TableLookupBytes(hn::LoadDup128(d, table + 16 * j), low);
    result = hn::IfThenElse(hn::Eq(high, hn::Set(d, static_cast<uint8_t>(j))), slice, result);
  }
  return result;
}

void LookupRows(const uint8_t* HWY_RESTRICT table, const uint8_t* HWY_RESTRICT x, int64_t x_pitch,
                uint8_t* HWY_RESTRICT y, int64_t y_pitch, int64_t rows, int64_t width) {
  const hn::ScalableTag<uint8_t> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* in = x + r * x_pitch;
    uint8_t* out = y + r * y_pitch;
    int64_t k = 0;
    for (; k + lanes <= width; k += lanes) hn::StoreU(LookupV(d, table, hn::LoadU(d, in + k)), d, out + k);
    for (; k < width; ++k) out[k] = table[in[k]];
  }
}

#else

// The plain loop (see above for why narrower vectors do not help).
void LookupRows(const uint8_t* HWY_RESTRICT table, const uint8_t* HWY_RESTRICT x, int64_t x_pitch,
                uint8_t* HWY_RESTRICT y, int64_t y_pitch, int64_t rows, int64_t width) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < width; ++k) y[r * y_pitch + k] = table[x[r * x_pitch + k]];
  }
}

#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace HWY_NAMESPACE
}  // namespace onyx::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onyx::kernels {

HWY_EXPORT(LookupRows);

void LookupBytes(const uint8_t* table, const uint8_t* x, int64_t x_pitch, uint8_t* y, int64_t y_pitch, int64_t rows,
                 int64_t width) {
  if (rows <= 0 || width <= 0) return;
  if (x_pitch == width && y_pitch == width) {  // one contiguous run: no row tails
    width *= rows;
    rows = 1;
  }
  HWY_DYNAMIC_DISPATCH(LookupRows)(table, x, x_pitch, y, y_pitch, rows, width);
}

}  // namespace onyx::kernels
#endif  // HWY_ONCE
