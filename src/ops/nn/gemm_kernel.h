// The one matrix-multiply routine of the NeuralNet family: MatMul, Gemm, Conv (after im2col), ConvTranspose and
// the quantized variants all reduce to it, so that a faster backend (oneDNN) can later be swapped in here alone.
#pragma once

#include <cstdint>

#include "ops/common/parallel.h"

namespace onyx::ops::nn {

// C = alpha * op(A) * op(B) + beta * C, all row-major; op(X) is X, or X transposed when trans_x is set.
// op(A) is m x k, op(B) is k x n, C is m x n; lda/ldb/ldc are the row strides of the stored matrices.
// When beta is 0, C is only written (NaNs already there do not propagate).
// Signed integer types wrap around on overflow (two's complement) instead of being undefined.
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc);

// Runs gemm(i) for the `count` products of a batch, each of m * n * k multiply-adds (`work`): many small ones
// (attention heads) spread over the threads, one per thread and each single-threaded, which beats threading each
// tiny GEMM; larger ones one after the other, each on the session's threads. MatMul's batches and Einsum's batched
// products share the rule.
template <typename F>
void RunGemmBatch(int64_t count, int64_t work, const F& gemm) {
  auto run = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) gemm(i);
  };
  if (count >= 2 && work <= (int64_t{1} << 21)) {
    ParallelFor(count, work, run);
  } else {
    run(0, count);
  }
}

extern template void Gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                                 int64_t, float, float*, int64_t);
extern template void Gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                                  int64_t, double, double*, int64_t);
extern template void Gemm<int32_t>(bool, bool, int64_t, int64_t, int64_t, int32_t, const int32_t*, int64_t,
                                   const int32_t*, int64_t, int32_t, int32_t*, int64_t);
extern template void Gemm<int64_t>(bool, bool, int64_t, int64_t, int64_t, int64_t, const int64_t*, int64_t,
                                   const int64_t*, int64_t, int64_t, int64_t*, int64_t);
extern template void Gemm<uint32_t>(bool, bool, int64_t, int64_t, int64_t, uint32_t, const uint32_t*, int64_t,
                                    const uint32_t*, int64_t, uint32_t, uint32_t*, int64_t);
extern template void Gemm<uint64_t>(bool, bool, int64_t, int64_t, int64_t, uint64_t, const uint64_t*, int64_t,
                                    const uint64_t*, int64_t, uint64_t, uint64_t*, int64_t);

}  // namespace onyx::ops::nn
