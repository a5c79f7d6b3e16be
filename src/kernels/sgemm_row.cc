#include "kernels/sgemm_row.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kSliceK = 256;    // MLAS_SGEMM_PACKED_STRIDEK
constexpr int64_t kColumns = 2048;  // most columns of one block: their sums stay in L1 while B's rows stream by

// Columns [j0, j1): per K slice, each column's chain of products from 0 (fused multiply-adds with kFused, else a
// multiply and an add), then added to C. Inlined into the two entries below, each compiled for its own target.
template <bool kFused>
__attribute__((always_inline)) inline void SumColumns(const float* a, const float* b, int64_t ldb, float* c, int64_t k,
                                                      int64_t j0, int64_t j1, bool accumulate) {
  float sums[kColumns];
  const int64_t width = j1 - j0;
  for (int64_t k0 = 0; k0 < k; k0 += kSliceK) {
    std::fill(sums, sums + width, 0.0f);
    const int64_t k1 = std::min(k, k0 + kSliceK);
    for (int64_t kk = k0; kk < k1; ++kk) {
      const float ak = a[kk];
      const float* row = b + kk * ldb + j0;
      for (int64_t j = 0; j < width; ++j) {
        if constexpr (kFused) {
          sums[j] = std::fma(ak, row[j], sums[j]);
        } else {
          sums[j] = sums[j] + ak * row[j];
        }
      }
    }
    float* out = c + j0;
    if (k0 == 0 && !accumulate) {
      std::copy(sums, sums + width, out);
    } else {
      for (int64_t j = 0; j < width; ++j) out[j] = sums[j] + out[j];
    }
  }
}

// With fused multiply-adds; GCC vectorizes std::fma into vfmadd for this target.
__attribute__((target("avx2,fma"))) void ColumnsFma(const float* a, const float* b, int64_t ldb, float* c, int64_t k,
                                                    int64_t j0, int64_t j1, bool accumulate) {
  SumColumns<true>(a, b, ldb, c, k, j0, j1, accumulate);
}

// Without (CPUs without FMA; baseline x86-64 has none, so nothing can be contracted).
void ColumnsPlain(const float* a, const float* b, int64_t ldb, float* c, int64_t k, int64_t j0, int64_t j1,
                  bool accumulate) {
  SumColumns<false>(a, b, ldb, c, k, j0, j1, accumulate);
}

}  // namespace

void SgemmRowPackedOrder(const float* a, const float* b, int64_t ldb, float* c, int64_t k, int64_t n, bool accumulate) {
  if (k <= 0) {
    if (!accumulate) std::fill(c, c + n, 0.0f);
    return;
  }
  static const bool fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  auto columns = fma ? ColumnsFma : ColumnsPlain;
  // Threads only when there is ~0.1 ms of work for each (every column's sum is the same either way). Blocks as wide
  // as possible: each row of B is then read in one sweep (1,000 columns: 0.31 ms instead of 0.40 in two halves).
  const int64_t threads = k * n >= (int64_t{1} << 19) ? std::max(omp_get_max_threads(), 1) : 1;
  const int64_t width = std::min(kColumns, ((n + threads - 1) / threads + 15) / 16 * 16);
  const int64_t blocks = (n + width - 1) / width;
  auto block = [&](int64_t blk) {
    columns(a, b, ldb, c, k, blk * width, std::min(n, blk * width + width), accumulate);
  };
  RunTasks(blocks, static_cast<int>(threads), block);
}

}  // namespace onyx::kernels
