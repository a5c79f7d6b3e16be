#include "kernels/int8_exact_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/int8_gemm.h"
#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kTileRows = 4;
constexpr int64_t kTileColumns = 16;  // two vectors of 8 int32

// Two centred values as the int16 pair vpmaddwd multiplies: lo in the low half.
inline uint32_t Pair(int32_t lo, int32_t hi) {
  return static_cast<uint32_t>(static_cast<uint16_t>(lo)) | (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16);
}

// rows x 16 outputs: out[i][j] = sum over the pairs q of lp[i * kp + q] . rp[q * np + j] (pairwise int16 products).
template <int kRows>
__attribute__((target("avx2"))) void TileAvx2(const uint32_t* lp, int64_t kp, const uint32_t* rp, int64_t np,
                                              int32_t* out) {
  __m256i acc[kRows][2];
#pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  for (int64_t q = 0; q < kp; ++q) {
    const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp + q * np));
    const __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp + q * np + 8));
#pragma GCC unroll 4
    for (int i = 0; i < kRows; ++i) {
      const __m256i l = _mm256_set1_epi32(static_cast<int32_t>(lp[i * kp + q]));
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(l, r0));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(l, r1));
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i * kTileColumns), acc[i][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i * kTileColumns + 8), acc[i][1]);
  }
}

void Tile(int rows, const uint32_t* lp, int64_t kp, const uint32_t* rp, int64_t np, int32_t* out) {
  switch (rows) {
    case 4:
      return TileAvx2<4>(lp, kp, rp, np, out);
    case 3:
      return TileAvx2<3>(lp, kp, rp, np, out);
    case 2:
      return TileAvx2<2>(lp, kp, rp, np, out);
    default:
      return TileAvx2<1>(lp, kp, rp, np, out);
  }
}

}  // namespace

bool ExactInt8GemmAvailable() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

bool ExactInt8GemmWanted(bool activations_signed, bool weights_signed) {
  const Int8Arithmetic arithmetic = Int8GemmArithmetic();
  if (arithmetic != Int8Arithmetic::kSaturatingPairs && arithmetic != Int8Arithmetic::kSplitPairs) return false;
  return (activations_signed || !weights_signed) && ExactInt8GemmAvailable();
}

template <typename L>
ExactInt8Left ExactInt8Left::Pack(int64_t m, int64_t k, const L* l, int64_t ldl, const int32_t* l_zp) {
  ExactInt8Left left;
  left.m_ = m;
  left.k_ = k;
  const int64_t kp = (k + 1) / 2;  // pairs along K (the odd one with 0)
  left.pairs_.resize(static_cast<size_t>(m * kp));
  for (int64_t i = 0; i < m; ++i) {
    const L* row = l + i * ldl;
    const int32_t z = l_zp[i];
    uint32_t* dst = left.pairs_.data() + i * kp;
    for (int64_t q = 0; q < kp; ++q) {
      const int32_t lo = int32_t{row[2 * q]} - z;
      const int32_t hi = 2 * q + 1 < k ? int32_t{row[2 * q + 1]} - z : 0;
      dst[q] = Pair(lo, hi);
    }
  }
  return left;
}

template <typename R>
bool ExactInt8Gemm(const ExactInt8Left& left, int64_t n, const R* r, int64_t ldr, int32_t r_zp, int32_t* c, int64_t ldc,
                   int threads) {
  if (!ExactInt8GemmAvailable()) return false;
  const int64_t m = left.m(), k = left.k();
  if (m <= 0 || n <= 0) return true;
  const int64_t kp = (k + 1) / 2;
  const int64_t np = (n + kTileColumns - 1) / kTileColumns * kTileColumns;  // columns padded to whole tiles
  thread_local std::vector<uint32_t> right;
  right.resize(static_cast<size_t>(kp * np));
  for (int64_t q = 0; q < kp; ++q) {
    const R* r0 = r + 2 * q * ldr;
    const R* r1 = 2 * q + 1 < k ? r0 + ldr : nullptr;
    uint32_t* dst = right.data() + q * np;
    for (int64_t j = 0; j < n; ++j) {
      dst[j] = Pair(int32_t{r0[j]} - r_zp, r1 != nullptr ? int32_t{r1[j]} - r_zp : 0);
    }
    std::fill(dst + n, dst + np, 0u);
  }
  const uint32_t* lp = left.pairs();
  const uint32_t* rp = right.data();
  const int64_t column_tiles = np / kTileColumns;
  RunTasks(column_tiles, threads, [&](int64_t t) {
    const int64_t j0 = t * kTileColumns, cols = std::min(kTileColumns, n - j0);
    alignas(32) int32_t tile[kTileRows * kTileColumns];
    for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
      const int rows = static_cast<int>(std::min(kTileRows, m - i0));
      Tile(rows, lp + i0 * kp, kp, rp + j0, np, tile);
      for (int i = 0; i < rows; ++i) {
        std::memcpy(c + (i0 + i) * ldc + j0, tile + i * kTileColumns, static_cast<size_t>(cols) * sizeof(int32_t));
      }
    }
  });
  return true;
}

template <typename L, typename R>
bool ExactInt8Gemm(int64_t m, int64_t n, int64_t k, const L* l, int64_t ldl, const int32_t* l_zp, const R* r,
                   int64_t ldr, int32_t r_zp, int32_t* c, int64_t ldc, int threads) {
  if (!ExactInt8GemmAvailable()) return false;
  return ExactInt8Gemm<R>(ExactInt8Left::Pack<L>(m, k, l, ldl, l_zp), n, r, ldr, r_zp, c, ldc, threads);
}

template ExactInt8Left ExactInt8Left::Pack<uint8_t>(int64_t, int64_t, const uint8_t*, int64_t, const int32_t*);
template ExactInt8Left ExactInt8Left::Pack<int8_t>(int64_t, int64_t, const int8_t*, int64_t, const int32_t*);
template bool ExactInt8Gemm<uint8_t>(const ExactInt8Left&, int64_t, const uint8_t*, int64_t, int32_t, int32_t*, int64_t,
                                     int);
template bool ExactInt8Gemm<int8_t>(const ExactInt8Left&, int64_t, const int8_t*, int64_t, int32_t, int32_t*, int64_t,
                                    int);
template bool ExactInt8Gemm<uint8_t, uint8_t>(int64_t, int64_t, int64_t, const uint8_t*, int64_t, const int32_t*,
                                              const uint8_t*, int64_t, int32_t, int32_t*, int64_t, int);
template bool ExactInt8Gemm<uint8_t, int8_t>(int64_t, int64_t, int64_t, const uint8_t*, int64_t, const int32_t*,
                                             const int8_t*, int64_t, int32_t, int32_t*, int64_t, int);
template bool ExactInt8Gemm<int8_t, uint8_t>(int64_t, int64_t, int64_t, const int8_t*, int64_t, const int32_t*,
                                             const uint8_t*, int64_t, int32_t, int32_t*, int64_t, int);
template bool ExactInt8Gemm<int8_t, int8_t>(int64_t, int64_t, int64_t, const int8_t*, int64_t, const int32_t*,
                                            const int8_t*, int64_t, int32_t, int32_t*, int64_t, int);

}  // namespace onyx::kernels
