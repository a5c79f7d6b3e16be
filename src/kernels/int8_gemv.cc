#include "kernels/int8_gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/int8_gemm.h"
#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kCols = 8;  // columns per block: one ymm of int32 sums

}  // namespace

// The loops once per way of adding a dword's products: in saturating int16 pairs (AVX2, as MLAS and oneDNN add them
// there), or exactly by one VNNI instruction (AVX512-VNNI with VL, or AVX-VNNI), as their VNNI kernels add them.
#pragma GCC push_options
#pragma GCC target("avx2")
namespace saturating_pairs {
namespace {
inline __m256i Dot4(__m256i sum, __m256i a, __m256i b) {
  return _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1)));
}
#include "kernels/int8_gemv_rows.inc"
}  // namespace
}  // namespace saturating_pairs
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512vl,avx512vnni")
namespace vnni512 {
namespace {
inline __m256i Dot4(__m256i sum, __m256i a, __m256i b) { return _mm256_dpbusd_epi32(sum, a, b); }
#include "kernels/int8_gemv_rows.inc"
}  // namespace
}  // namespace vnni512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,avxvnni")
namespace vnni_avx {
namespace {
inline __m256i Dot4(__m256i sum, __m256i a, __m256i b) { return _mm256_dpbusd_avx_epi32(sum, a, b); }
#include "kernels/int8_gemv_rows.inc"
}  // namespace
}  // namespace vnni_avx
#pragma GCC pop_options

namespace {

using RowBlocksFn = void (*)(const uint32_t*, int64_t, const int8_t*, int64_t, int64_t, const int32_t*, int32_t,
                             int32_t*, int64_t);

// The loops whose sums equal the int8 GEMM paths' here (their arithmetic: int8_gemm.h) bit for bit; null where none
// of this file's does (exact sums without VNNI, no AVX2).
RowBlocksFn RowBlocksHere() {
  static const RowBlocksFn fn = []() -> RowBlocksFn {
    if (!__builtin_cpu_supports("avx2")) return nullptr;
    switch (Int8GemmArithmetic()) {
      case Int8Arithmetic::kSaturatingPairs:
        return &saturating_pairs::RowBlocks;
      case Int8Arithmetic::kExact:
        // Exact sums (VNNI or AMX in effect, under the ISA cap of cpu_isa.h) in any order are the same sums.
        if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")) return &vnni512::RowBlocks;
        if (__builtin_cpu_supports("avxvnni")) return &vnni_avx::RowBlocks;
        return nullptr;
      default:
        return nullptr;
    }
  }();
  return fn;
}

}  // namespace

bool Int8Gemv::Applicable() { return RowBlocksHere() != nullptr; }

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
    const RowBlocksFn row_blocks = RowBlocksHere();
    for (int64_t r = 0; r < m; ++r) {
      row_blocks(rows.data() + r * k4_, k4_, packed_.data(), b0, b1, colsum_.data(), a_zero_point, c + r * n_, n_);
    }
  });
}

}  // namespace onyx::kernels
