// The AVX-512 SGEMM tile over packed rows of A (sgemm_tile.h): up to 14 rows x 32 columns, 28 accumulators.
//
// Why packed rows: the tile of sgemm_ort_order.cc reads each row of A through its own pointer; 12 rows took more
// general registers than x86-64 has, and GCC kept some on the stack or in vector registers (a move to a general
// register per use competes with the FMAs for port 0). From one pointer, 14 rows fit: on an Intel Xeon (Sapphire
// Rapids), one K block of 256 from L1/L2, 12 rows by row pointers ran at 181 GFLOP/s, 12 packed rows 193, 14 packed
// rows 200 (of 221). Each output is the same FMA chain over K as in the other tiles, so the sums are the same.
#include <immintrin.h>

#include <algorithm>

#include "kernels/sgemm_ort_order.h"
#include "kernels/sgemm_tile.h"

// Sums in MLAS's roundings, as sgemm_ort_order.cc: only the explicit FMAs.
#pragma GCC optimize("fp-contract=off")

namespace onyx::kernels {
namespace {

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")

#include "kernels/sgemm_tile_avx512_sums.inc"

template <int kRows>
void PackedRowsTile(const float* ap, const float* bp, int64_t ldbp, int64_t kc, float* c, int64_t ldc, int64_t cols,
                    bool first, SgemmPrefetch prefetch) {
  __m512 acc[kRows][2];
  Avx512TileSums<kRows>(
      acc, [ap](int64_t kk, int r) __attribute__((always_inline)) { return ap[kk * kRows + r]; }, bp, ldbp, kc,
      prefetch);
  const __mmask16 mask0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 mask1 = cols >= 32 ? __mmask16(0xFFFF) : cols <= 16 ? 0 : __mmask16((1u << (cols - 16)) - 1);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    float* out = c + r * ldc;
    if (first) {
      _mm512_mask_storeu_ps(out, mask0, acc[r][0]);
      _mm512_mask_storeu_ps(out + 16, mask1, acc[r][1]);
    } else {  // C + the block's chain: MLAS's fma(acc, alpha = 1, C) is this sum
      _mm512_mask_storeu_ps(out, mask0, _mm512_add_ps(acc[r][0], _mm512_maskz_loadu_ps(mask0, out)));
      _mm512_mask_storeu_ps(out + 16, mask1, _mm512_add_ps(acc[r][1], _mm512_maskz_loadu_ps(mask1, out + 16)));
    }
  }
}

template <int... kRows>
void Dispatch(int rows, const float* ap, const float* bp, int64_t ldbp, int64_t kc, float* c, int64_t ldc, int64_t cols,
              bool first, SgemmPrefetch prefetch, std::integer_sequence<int, kRows...>) {
  (void)((rows == kRows + 1 ? (PackedRowsTile<kRows + 1>(ap, bp, ldbp, kc, c, ldc, cols, first, prefetch), true)
                            : false) ||
         ...);
}

void PackedRowsTileAny(int rows, const float* ap, const float* bp, int64_t ldbp, int64_t kc, float* c, int64_t ldc,
                       int64_t cols, bool first, SgemmPrefetch prefetch) {
  Dispatch(rows, ap, bp, ldbp, kc, c, ldc, cols, first, prefetch,
           std::make_integer_sequence<int, kSgemmPackedRowsMax>());
}

// Columns j of 16 rows in r[0..15] (row i, column j at r[i][j]) into r[j][i]: within 128-bit lanes, then the lanes.
inline void Transpose16x16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // s[4g + c]: in lane L, column 4L + c of rows 4g..4g+3.
  __m512 s[16];
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    s[4 * g] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
    s[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
    s[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
    s[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
  }
  // Per c, the 4 x 4 lanes of s[c], s[4 + c], s[8 + c], s[12 + c] transposed: column 4L + c in lane g = rows 4g..
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m512 v0 = _mm512_shuffle_f32x4(s[c], s[4 + c], 0x88);
    const __m512 v1 = _mm512_shuffle_f32x4(s[c], s[4 + c], 0xDD);
    const __m512 v2 = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0x88);
    const __m512 v3 = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0xDD);
    r[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(v1, v3, 0x88);
    r[8 + c] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
    r[12 + c] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
  }
}

// Packs `rows` rows, 16 columns of K at a time through a register transpose (4x faster than element by element, which
// cost a product of 256 columns a tenth of its time): row_at(i, k0) is row i's column k0, 16 columns of it (n of them
// readable) from there on.
template <typename RowAt>
__attribute__((always_inline)) inline void PackRowsAvx512(int rows, int64_t k, float* dst, RowAt row_at,
                                                          int64_t dst_stride) {
  const __mmask16 row_mask = static_cast<__mmask16>((1u << rows) - 1);
  for (int64_t k0 = 0; k0 < k; k0 += 16) {
    const int64_t n = std::min<int64_t>(16, k - k0);
    const __mmask16 col_mask = n == 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
    __m512 r[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) r[i] = i < rows ? _mm512_maskz_loadu_ps(col_mask, row_at(i, k0)) : _mm512_setzero_ps();
    Transpose16x16(r);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      if (j < n) _mm512_mask_storeu_ps(dst + (k0 + j) * dst_stride, row_mask, r[j]);
    }
  }
}

void PackRowsStrided(int rows, const float* a, int64_t lda, int64_t k, float* dst, int64_t dst_stride) {
  PackRowsAvx512(
      rows, k, dst, [&](int i, int64_t k0) { return a + i * lda + k0; }, dst_stride);
}

void PackRowBlocks(int rows, const float* const* blocks, int64_t chunks, float* dst) {
  PackRowsAvx512(
      rows, 16 * chunks, dst, [&](int i, int64_t k0) { return blocks[k0 / 16 * rows + i]; }, rows);
}

#pragma GCC pop_options

}  // namespace

SgemmPackedRowsTileFn ActivePackedRowsTile() {
  return OrtSgemmActivePath() == OrtSgemmPath::kAvx512 ? PackedRowsTileAny : nullptr;
}

void PackSgemmRows(int rows, const float* a, int64_t lda, int64_t k, float* dst) {
  PackSgemmRowsStrided(rows, a, lda, k, dst, rows);
}

void PackSgemmRowsStrided(int rows, const float* a, int64_t lda, int64_t k, float* dst, int64_t dst_stride) {
  if (ActivePackedRowsTile() != nullptr && rows <= 16) {
    PackRowsStrided(rows, a, lda, k, dst, dst_stride);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const float* row = a + r * lda;
    float* out = dst + r;
    for (int64_t kk = 0; kk < k; ++kk) out[kk * dst_stride] = row[kk];
  }
}

void PackSgemmRowBlocks(int rows, const float* const* blocks, int64_t chunks, float* dst) {
  if (ActivePackedRowsTile() != nullptr && rows <= 16) {
    PackRowBlocks(rows, blocks, chunks, dst);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    for (int64_t kk = 0; kk < 16 * chunks; ++kk) dst[kk * rows + r] = blocks[kk / 16 * rows + r][kk % 16];
  }
}

}  // namespace onyx::kernels
