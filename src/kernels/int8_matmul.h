// An 8-bit matrix product with a constant right operand on oneDNN's matmul primitive (AMX, VNNI or AVX2 kernels) or,
// where the CPU has AVX-512 VNNI and it is timed faster for the shape (tuning_cache.h; with tuning off, wherever
// oneDNN's pick is not AMX), onyx's VNNI product (int8_gemm_vnni.h); int32 output: C[M, N] = sum_k (A[m, k] -
// a_zero_point) * B[k, N], A uint8 or int8 row-major, B int8 without zero point, reordered once into the primitive's
// layout. Sums as kernels/int8_gemm.h's (callers check Int8GemmUsable()); the primitive is built per row count and
// thread count, the choice timed and cached per row class (kernels/product_rows.h); onyx's product runs any row count.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "kernels/int8_gemm_vnni.h"
#include "kernels/product_rows.h"

namespace onyx::kernels {

class Int8MatMul {
 public:
  // b: [k, n] int8, row-major. `kept`: products of the same b built before (other row or thread counts), whose
  // packed or reordered copy of b a new product of the same layout shares instead of making its own.
  using KeptProducts = std::span<const Int8MatMul* const>;
  static Result<std::unique_ptr<Int8MatMul>> Create(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                    int threads, KeptProducts kept = {});
  // onyx's product (any row count), untimed, sharing a kept product's packed copy where one has it; null where it
  // does not run here (no AVX-512 VNNI, or ONYX_INT8_MATMUL_IMPL forces oneDNN): for a caller whose row counts keep
  // changing.
  static std::unique_ptr<Int8MatMul> CreateAnyRowCount(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                       int threads, KeptProducts kept = {});
  ~Int8MatMul();
  Int8MatMul(const Int8MatMul&) = delete;
  Int8MatMul& operator=(const Int8MatMul&) = delete;

  // a: [m, k]; c: [m, n]. `epilogue` (may be null) runs on blocks of C once their sums are final: within onyx's
  // product, by the thread that computed each block while it is in its cache; after oneDNN's, on row ranges.
  Status Run(const void* a, int32_t a_zero_point, int32_t* c, const Int8BlockEpilogue* epilogue = nullptr) const {
    return Run(m_, a, a_zero_point, c, epilogue);
  }
  // The same for `rows` rows, which must be m() unless RunsAnyRowCount().
  Status Run(int64_t rows, const void* a, int32_t a_zero_point, int32_t* c,
             const Int8BlockEpilogue* epilogue = nullptr) const;
  // Whether Run takes any row count: onyx's product (oneDNN's primitive is built for its m).
  bool RunsAnyRowCount() const;

  // oneDNN's implementation name, or "onyx" for onyx's VNNI product.
  const std::string& implementation() const;

  int64_t m() const { return m_; }
  bool signed_a() const { return signed_a_; }
  int threads() const { return threads_; }

 private:
  struct Impl;
  Int8MatMul(int64_t m, bool signed_a, int threads, std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<Int8MatMul>> BuildDnnl(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                       int threads, KeptProducts kept);
  Status RunDnnl(const void* a, int32_t a_zero_point, int32_t* c) const;
  static std::unique_ptr<Int8MatMul> BuildOwn(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                              int threads, KeptProducts kept);
  int64_t m_;
  bool signed_a_;
  int threads_;
  std::unique_ptr<Impl> impl_;
};

// The products of one constant B for the last few row counts, A signednesses and thread counts seen (PrimitiveThreads
// of the session's count); a product that runs any row count serves its whole row class, and after
// kBuildsPerRowClass row counts of one class the next one built is such a product (onyx's, where it runs). Null
// where oneDNN declines (kept: not asked again for the same inputs). Run the product with Run(m, ...): it may have
// been built for another row count of the class. Thread-safe: Session::Run may be called from several threads.
class Int8MatMulCache {
 public:
  // b: [k, n] int8 row-major, alive as long as the cache.
  std::shared_ptr<Int8MatMul> Get(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b, int threads);
  // How many products were built so far (tests).
  size_t builds() const;

 private:
  static constexpr size_t kKept = 8;
  struct Kept {
    int64_t m;
    bool signed_a;
    int threads;
    std::shared_ptr<Int8MatMul> mm;  // null: oneDNN declined
  };
  mutable std::mutex mutex_;
  std::vector<Kept> kept_;       // oldest first
  RowClassBuilds class_builds_;  // keyed by thread count and A's signedness
};

}  // namespace onyx::kernels
