#include "ops/nn/gemm_kernel.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/dnnl_util.h"

namespace onyx::ops::nn {
namespace {

// Signed integer products are computed in the unsigned type of the same width, where overflow wraps.
template <typename T>
struct AccumOf {
  using type = T;
};
template <>
struct AccumOf<int32_t> {
  using type = uint32_t;
};
template <>
struct AccumOf<int64_t> {
  using type = uint64_t;
};

// Block sizes: a kKBlock x kNBlock panel of B (packed contiguous, 128 KiB of float) stays in L2 while all rows of
// A stream past it.
constexpr int64_t kKBlock = 128;
constexpr int64_t kNBlock = 256;
constexpr int64_t kRows = 4;

}  // namespace

template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  using A = typename AccumOf<T>::type;
  if (m <= 0 || n <= 0) return;
  if constexpr (std::is_same_v<T, float>) {
    // oneDNN's JIT sgemm (AVX2/AVX-512 picked at run time, OpenMP threads); row-major, BLAS semantics for beta = 0.
    // Small products (RNN steps, audio convolutions) stay on one thread, unless they stream a large B from memory
    // (a decoder's 1-row steps): kernels/dnnl_util.h.
    const kernels::ScopedOmpThreads threads(
        kernels::PrimitiveThreads(2 * m * n * k, omp_get_max_threads(), n * k * static_cast<int64_t>(sizeof(T))));
    if (k > 0 && dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
                     dnnl_success) {
      return;
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + n, T(0));
    } else if (beta != T(1)) {
      for (int64_t j = 0; j < n; ++j) row[j] = static_cast<T>(static_cast<A>(beta) * static_cast<A>(row[j]));
    }
  }
  if (k <= 0) return;

  std::vector<A> panel(static_cast<size_t>(std::min(k, kKBlock) * std::min(n, kNBlock)));
  std::vector<A> acc(static_cast<size_t>(kRows * std::min(n, kNBlock)));
  for (int64_t j0 = 0; j0 < n; j0 += kNBlock) {
    const int64_t nb = std::min(kNBlock, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKBlock) {
      const int64_t kb = std::min(kKBlock, k - p0);
      // Pack op(B)[p0:p0+kb, j0:j0+nb] row-major so the inner loop reads it contiguously.
      for (int64_t p = 0; p < kb; ++p) {
        A* dst = panel.data() + p * nb;
        if (trans_b) {
          for (int64_t j = 0; j < nb; ++j) dst[j] = static_cast<A>(b[(j0 + j) * ldb + p0 + p]);
        } else {
          const T* src = b + (p0 + p) * ldb + j0;
          for (int64_t j = 0; j < nb; ++j) dst[j] = static_cast<A>(src[j]);
        }
      }
      // Four rows of C at a time, so that each packed B value loaded feeds four multiply-adds.
      for (int64_t i0 = 0; i0 < m; i0 += kRows) {
        const int64_t rows = std::min(kRows, m - i0);
        std::fill(acc.begin(), acc.end(), A(0));
        A* __restrict a0 = acc.data();
        A* __restrict a1 = a0 + nb;
        A* __restrict a2 = a1 + nb;
        A* __restrict a3 = a2 + nb;
        for (int64_t p = 0; p < kb; ++p) {
          A av[kRows] = {};
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t i = i0 + r;
            av[r] = static_cast<A>(trans_a ? a[(p0 + p) * lda + i] : a[i * lda + p0 + p]);
          }
          const A* __restrict bp = panel.data() + p * nb;
          if (rows == 1) {  // matrix-vector products: skip the three idle rows
            for (int64_t j = 0; j < nb; ++j) a0[j] += av[0] * bp[j];
            continue;
          }
          for (int64_t j = 0; j < nb; ++j) {
            const A bv = bp[j];
            a0[j] += av[0] * bv;
            a1[j] += av[1] * bv;
            a2[j] += av[2] * bv;
            a3[j] += av[3] * bv;
          }
        }
        const A al = static_cast<A>(alpha);
        for (int64_t r = 0; r < rows; ++r) {
          T* crow = c + (i0 + r) * ldc + j0;
          const A* ar = acc.data() + r * nb;
          for (int64_t j = 0; j < nb; ++j) crow[j] = static_cast<T>(static_cast<A>(crow[j]) + al * ar[j]);
        }
      }
    }
  }
}

template void Gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t,
                          float, float*, int64_t);
template void Gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);
template void Gemm<int32_t>(bool, bool, int64_t, int64_t, int64_t, int32_t, const int32_t*, int64_t, const int32_t*,
                            int64_t, int32_t, int32_t*, int64_t);
template void Gemm<int64_t>(bool, bool, int64_t, int64_t, int64_t, int64_t, const int64_t*, int64_t, const int64_t*,
                            int64_t, int64_t, int64_t*, int64_t);
template void Gemm<uint32_t>(bool, bool, int64_t, int64_t, int64_t, uint32_t, const uint32_t*, int64_t, const uint32_t*,
                             int64_t, uint32_t, uint32_t*, int64_t);
template void Gemm<uint64_t>(bool, bool, int64_t, int64_t, int64_t, uint64_t, const uint64_t*, int64_t, const uint64_t*,
                             int64_t, uint64_t, uint64_t*, int64_t);

}  // namespace onyx::ops::nn
