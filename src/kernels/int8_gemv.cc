#include "kernels/int8_gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/int8_gemm.h"
#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kCols = 8;  // columns per block: one ymm of int32 sums

// sum += the 8 columns' paired products of one broadcast dword of A against one packed dword per column.
__attribute__((target("avx2"))) inline __m256i Step(__m256i sum, __m256i a_dword, const int8_t* b, __m256i ones) {
  const __m256i bv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
  return _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(a_dword, bv), ones));
}

// Block blk's 8 sums minus the zero point times the column sums, stored (the columns past n dropped).
__attribute__((target("avx2"))) inline void Finish(int64_t blk, __m256i acc, const int32_t* colsum, __m256i zp,
                                                   int32_t* c, int64_t n) {
  const __m256i sums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(colsum + blk * kCols));
  acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(zp, sums));
  const int64_t j0 = blk * kCols;
  if (j0 + kCols <= n) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + j0), acc);
  } else {
    alignas(32) int32_t tail[kCols];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tail), acc);
    std::memcpy(c + j0, tail, static_cast<size_t>(n - j0) * sizeof(int32_t));
  }
}

// Column blocks [b0, b1) of one row: a4 holds the row as k4 dwords (zero-padded); four blocks at a time share each
// broadcast dword.
__attribute__((target("avx2"))) void RowBlocks(const uint32_t* a4, int64_t k4, const int8_t* packed, int64_t b0,
                                               int64_t b1, const int32_t* colsum, int32_t a_zero_point, int32_t* c,
                                               int64_t n) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i zp = _mm256_set1_epi32(a_zero_point);
  const int64_t block_bytes = k4 * kCols * 4;
  int64_t blk = b0;
  for (; blk + 4 <= b1; blk += 4) {
    const int8_t* p = packed + blk * block_bytes;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t q = 0; q < k4; ++q) {
      const __m256i av = _mm256_set1_epi32(static_cast<int32_t>(a4[q]));
      const int8_t* pq = p + q * kCols * 4;
      s0 = Step(s0, av, pq, ones);
      s1 = Step(s1, av, pq + block_bytes, ones);
      s2 = Step(s2, av, pq + 2 * block_bytes, ones);
      s3 = Step(s3, av, pq + 3 * block_bytes, ones);
    }
    Finish(blk, s0, colsum, zp, c, n);
    Finish(blk + 1, s1, colsum, zp, c, n);
    Finish(blk + 2, s2, colsum, zp, c, n);
    Finish(blk + 3, s3, colsum, zp, c, n);
  }
  for (; blk < b1; ++blk) {
    const int8_t* p = packed + blk * block_bytes;
    __m256i s = _mm256_setzero_si256();
    for (int64_t q = 0; q < k4; ++q) {
      s = Step(s, _mm256_set1_epi32(static_cast<int32_t>(a4[q])), p + q * kCols * 4, ones);
    }
    Finish(blk, s, colsum, zp, c, n);
  }
}

}  // namespace

bool Int8Gemv::Applicable() {
  static const bool applicable =
      __builtin_cpu_supports("avx2") && Int8GemmArithmetic() == Int8Arithmetic::kSaturatingPairs;
  return applicable;
}

Int8Gemv::Int8Gemv(int64_t k, int64_t n, const int8_t* b)
    : k_(k), n_(n), k4_((k + 3) / 4), blocks_((n + kCols - 1) / kCols) {
  packed_.assign(static_cast<size_t>(blocks_ * k4_ * kCols * 4), 0);
  colsum_.assign(static_cast<size_t>(blocks_ * kCols), 0);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < n; ++j) {
      const int8_t w = b[p * n + j];
      const int64_t blk = j / kCols, col = j % kCols;
      packed_[static_cast<size_t>(((blk * k4_ + p / 4) * kCols + col) * 4 + p % 4)] = w;
      colsum_[static_cast<size_t>(j)] += w;
    }
  }
}

void Int8Gemv::Run(int64_t m, const uint8_t* a, int64_t lda, int32_t a_zero_point, int32_t* c, int threads) const {
  // Each row zero-padded to whole dwords (the padding pairs with zero weights), in a buffer of the calling thread.
  thread_local std::vector<uint32_t> rows_of_thread;
  std::vector<uint32_t>& rows = rows_of_thread;
  rows.assign(static_cast<size_t>(m * k4_), 0u);
  for (int64_t r = 0; r < m; ++r) std::memcpy(rows.data() + r * k4_, a + r * lda, static_cast<size_t>(k_));
  // Column ranges of at least ~256K multiply-adds per task, in groups of 4 blocks.
  const int64_t groups = (blocks_ + 3) / 4;
  const int64_t per_group = 4 * kCols * k_ * m;
  const int64_t tasks = std::clamp<int64_t>(groups * per_group / (int64_t{1} << 18), 1, std::max(threads, 1));
  RunTasks(tasks, static_cast<int>(tasks), [&](int64_t t) {
    const int64_t g0 = groups * t / tasks, g1 = groups * (t + 1) / tasks;
    const int64_t b0 = g0 * 4, b1 = std::min(blocks_, g1 * 4);
    for (int64_t r = 0; r < m; ++r) {
      RowBlocks(rows.data() + r * k4_, k4_, packed_.data(), b0, b1, colsum_.data(), a_zero_point, c + r * n_, n_);
    }
  });
}

}  // namespace onyx::kernels
