// A float32 matrix product with a constant right operand, with the bias and an optional GELU applied to each output
// tile while it is still in cache:
//   C[M, N] = act(A[M, K] * B[K, N] + bias[N])
// A and C row-major; the separate bias and GELU passes over the output, memory-bound, disappear. Candidates: oneDNN's
// gemm-based matmul (reads B in place, no second copy of the weights; the fixed choice), its packed brgemm kernels
// (B reordered once into a copy; offered with AVX-512) and onyx's own prepacked product (sgemm_packed.h, MLAS's
// blocking; also a copy). Where tuning is on, a packed one is taken per shape where timing on this CPU finds it
// clearly faster (float_matmul.cc says how much); ONYX_FLOAT_MATMUL_IMPL=brg|gemm:jit|onyx forces one. Built per row
// count and thread count; the choice is measured and cached per class of row counts (ProductRowClass), and onyx's
// product runs any row count over its one packed copy. Not built where oneDNN has only its reference kernels (Create
// returns Unsupported): the caller then runs sgemm and the epilogue itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "core/status.h"
#include "kernels/product_rows.h"

namespace onyx::kernels {

enum class MatMulActivation { kNone, kGeluErf, kRelu };

// A constant B of fewer values than this stays on sgemm (no FloatMatMul): a primitive call costs more there than
// packing and a fused bias save. The optimizer's MatMulBias rewrite and Gemm's packed products both follow it.
inline constexpr int64_t kMinPackedProductWeights = 4096;

class FloatMatMul {
 public:
  // b: [k, n] row-major, read in place where the primitive takes B as stored (then it must outlive the product),
  // else reordered into a copy; bias: n values or null, copied. `previous` (may be
  // null): the product of the same b built for another row or thread count, whose packed B is shared instead of
  // reordered again when the new primitive wants the same layout (a model run at several sequence lengths); without
  // one, the caller is taken to free b once the product does not read it in place (ReadsWeightsInPlace), so that a
  // packed candidate's copy replaces b instead of doubling it.
  static Result<std::unique_ptr<FloatMatMul>> Create(int64_t m, int64_t k, int64_t n, const float* b, const float* bias,
                                                     MatMulActivation activation, int threads,
                                                     const FloatMatMul* previous = nullptr);
  // `kept`: products of the same B built before (other row or thread counts); one of the same layout lends its copy.
  // `b`: B produced on demand ([k, n] row-major; it must stay valid as Create's `b` must), asked for only where the
  // product shares no kept copy (a caller that dropped B would otherwise rebuild it from a packed copy for nothing:
  // a prompt of a new length beside kept products of the same layout).
  using WeightsSource = std::function<Result<const float*>()>;
  using KeptProducts = std::span<const FloatMatMul* const>;
  static Result<std::unique_ptr<FloatMatMul>> Create(int64_t m, int64_t k, int64_t n, const WeightsSource& b,
                                                     const float* bias, MatMulActivation activation, int threads,
                                                     KeptProducts kept);
  // A product that runs any row count (RunsAnyRowCount), untimed: oneDNN's gemm with a run-time row count where the
  // cached timing of m's row class had it ahead of onyx's packed product, else onyx's (sharing a kept product's
  // packed copy where one has it); ONYX_FLOAT_MATMUL_IMPL forces another. For a caller whose row counts keep
  // changing, where building a primitive per row count would cost more than the tuned choice saves.
  static Result<std::unique_ptr<FloatMatMul>> CreateAnyRowCount(int64_t m, int64_t k, int64_t n, const WeightsSource& b,
                                                                const float* bias, MatMulActivation activation,
                                                                int threads, KeptProducts kept);
  // The tuning cache's key of a product's choice (its row class, K, N, bias, activation, threads).
  static std::string TuningKey(int64_t m, int64_t k, int64_t n, bool bias, MatMulActivation activation, int threads);
  ~FloatMatMul();
  FloatMatMul(const FloatMatMul&) = delete;
  FloatMatMul& operator=(const FloatMatMul&) = delete;

  // a: [m, k]; c: [m, n] (not overlapping a). Safe to call from several threads at once.
  Status Run(const float* a, float* c) const { return Run(m_, a, c); }
  // The same for `rows` rows, which must be m() unless RunsAnyRowCount().
  Status Run(int64_t rows, const float* a, float* c) const;
  // Whether Run takes any row count: onyx's packed product, or oneDNN's gemm built for a run-time row count (other
  // oneDNN primitives are built for their m).
  bool RunsAnyRowCount() const;

  // Whether the product reads the caller's B at run time (oneDNN's gemm-based kernels), rather than a packed copy of
  // its own: only then must B outlive it.
  bool ReadsWeightsInPlace() const;
  // B as given to Create ([k, n] row-major), rebuilt from the packed copy: for a caller that dropped its B once every
  // product it kept held a copy, and now builds another (a new row count).
  Status CopyWeightsTo(float* b) const;

  int64_t m() const { return m_; }
  const std::string& implementation() const;  // oneDNN's name for the kernel in use, or "onyx:packed_sgemm"
  int threads() const { return threads_; }

 private:
  struct Impl;
  FloatMatMul(int64_t m, int threads, std::unique_ptr<Impl> impl);
  // One candidate: the first implementation whose name starts with `want` (oneDNN's first choice when none does).
  static Result<std::unique_ptr<FloatMatMul>> Build(int64_t m, int64_t k, int64_t n, const WeightsSource& b,
                                                    const float* bias, MatMulActivation activation, int threads,
                                                    KeptProducts kept, const char* want);
  int64_t m_;
  int threads_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace onyx::kernels
