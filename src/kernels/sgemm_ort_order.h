// Float matrix products summed in the order ONNX Runtime's MLAS sums them (x86-64 with FMA: its AVX-512F and FMA3
// SGEMM kernels), for any M, N, K: outputs bit-identical to ONNX Runtime's MlasGemm / MlasSgemmOperation.
//
// Why: issue 16 wants quantized models bit-identical to ONNX Runtime at optimization level disabled, where every
// DequantizeLinear -> Conv/MatMul/Gemm -> QuantizeLinear runs in float; one sum rounded differently before a
// QuantizeLinear moves a value by one step and every later value with it.
//
// The order, per output element C[i][j] (what MLAS's sgemm.cpp and kernels do):
// - MlasSgemmOperation (B not packed): K is cut into blocks of StrideK, where StrideK starts at 128 and grows to
//   256, 512, ... while N is small (N < K and StrideN, from 128, halves while StrideN / 2 >= N and StrideN > 16).
//   Each block sums its products with fused multiply-adds from 0 in K order; the first block stores acc * alpha
//   (when beta is 0; otherwise C was first multiplied by beta unless beta is 1), later blocks store
//   fma(acc, alpha, C). Special cases with alpha 1 and beta 0 or 1: M == 1 with A not transposed, and N == 1 with
//   ldb == ldc == 1, run MLAS's AVX "M1" kernels, which multiply and add separately (no FMA) in their own
//   groupings (see the .cc).
// - Packed B (MlasGemmPackB, what ONNX Runtime's Gemm and MatMul do with a constant B): K blocks of 256 always,
//   the same per-block rule, no M1 special case.
// - MlasGemm (MlasGemmBatch) splits the work over ONNX Runtime's threads: along N (in multiples of 16 columns) when
//   N > M, else along M. With B not packed each thread's MlasSgemmOperation sees only its N range, so the StrideK
//   rule (and so the sums) can depend on the thread count: `ort_threads` says which to reproduce.
// These functions compute exactly that order with onyx's own threads (OpenMP; the order per output does not depend
// on how onyx splits the work) and vectors across N (AVX-512, AVX2 + FMA, or scalar std::fma: the same bits).
#pragma once

#include <cstdint>

namespace onyx::kernels {

struct OrtSgemmOptions {
  // B was packed by MlasGemmPackB (ONNX Runtime prepacks a constant B of Gemm / MatMul at session creation).
  bool b_packed = false;
  // ONNX Runtime's degree of parallelism for the call (its intra-op thread count; 1 = no thread pool). Only used
  // to reproduce MlasGemm's split of N; onyx's own threads come from OpenMP (omp_get_max_threads()).
  int ort_threads = 1;
};

// MlasGemm: C = alpha * op(A) * op(B) + beta * C, row-major, op(A) m x k, op(B) k x n (trans_x: X is stored
// transposed), in MLAS's summation order. beta == 0 writes C without reading it.
void SgemmOrtOrder(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                   const OrtSgemmOptions& options = {});

// The threads MlasGemmBatch gives each GEMM of a batch of `batch` GEMMs of m x n x k (OrtSgemmOptions::ort_threads):
// min(m * n * k / 64Ki + 1, threads) divided by the batch size, rounded up, with ONNX Runtime's thread count taken
// to be onyx's (omp_get_max_threads()). What ONNX Runtime's MatMul and FusedMatMul pass it.
int OrtGemmBatchThreads(int64_t m, int64_t n, int64_t k, int64_t batch);

// MlasSgemmOperation: one call as MLAS's thread workers and its convolution make it (no split over ORT's threads,
// B not packed). Same arguments as above.
void SgemmOrtOperation(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                       int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// The general case of MlasSgemmOperation with the K block given (MLAS's convolution picks it per thread segment):
// per output, K blocks of k_block, each an FMA chain from 0; the first stores acc * alpha when beta is 0, the others
// (and the first otherwise, after C *= beta unless beta is 1) store fma(acc, alpha, C). No M1 special cases.
void SgemmOrtBlocks(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc, int64_t k_block);

// MLAS's M = 1 kernel (MlasSgemmKernelM1Avx, no FMA): c[j] (+)= sum_k a[k] * b[k * ldb + j], what
// MlasSgemmOperation runs for one row with alpha 1 and beta 0 (accumulate false) or 1 (true).
void SgemmOrtM1(const float* a, const float* b, int64_t ldb, float* c, int64_t k, int64_t n, bool accumulate);

// The K block MlasSgemmOperation uses for an n x k product with A not transposed (StrideK above); with A
// transposed, or n >= k, blocks are 128 (never more than k matters). Exposed for the convolution and tests.
int64_t OrtSgemmStrideK(int64_t n, int64_t k, bool trans_a);

// Which vector code computes the blocks (all give the same bits); kAuto: the best the CPU and ONYX_MAX_ISA allow.
enum class OrtSgemmPath { kAuto, kScalar, kAvx2, kAvx512 };
// Tests: force a path for the process (kAuto restores the default). A path the CPU lacks must not be forced.
void SetOrtSgemmPathForTesting(OrtSgemmPath path);
OrtSgemmPath OrtSgemmActivePath();

}  // namespace onyx::kernels
