// An 8-bit matrix product with a constant right operand on oneDNN's matmul primitive (AMX, VNNI or AVX2 kernels) or,
// where the CPU has AVX-512 VNNI and it is timed faster for the shape (tuning_cache.h; with tuning off, wherever
// oneDNN's pick is not AMX), onyx's VNNI product (int8_gemm_vnni.h); int32 output: C[M, N] = sum_k (A[m, k] -
// a_zero_point) * B[k, N], A uint8 or int8 row-major, B int8 without zero point, reordered once into the primitive's
// layout. Sums as kernels/int8_gemm.h's (callers check Int8GemmUsable()); the primitive is built per row count and
// thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "kernels/int8_gemm_vnni.h"

namespace onyx::kernels {

class Int8MatMul {
 public:
  // b: [k, n] int8, row-major.
  static Result<std::unique_ptr<Int8MatMul>> Create(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                    int threads);
  ~Int8MatMul();
  Int8MatMul(const Int8MatMul&) = delete;
  Int8MatMul& operator=(const Int8MatMul&) = delete;

  // a: [m, k]; c: [m, n]. `epilogue` (may be null) runs on blocks of C once their sums are final: within onyx's
  // product, by the thread that computed each block while it is in its cache; after oneDNN's, on row ranges.
  Status Run(const void* a, int32_t a_zero_point, int32_t* c, const Int8BlockEpilogue* epilogue = nullptr) const;

  // oneDNN's implementation name, or "onyx" for onyx's VNNI product.
  const std::string& implementation() const;

  int64_t m() const { return m_; }
  bool signed_a() const { return signed_a_; }
  int threads() const { return threads_; }

 private:
  struct Impl;
  Int8MatMul(int64_t m, bool signed_a, int threads, std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<Int8MatMul>> BuildDnnl(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                       int threads);
  Status RunDnnl(const void* a, int32_t a_zero_point, int32_t* c) const;
  static std::unique_ptr<Int8MatMul> BuildOwn(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                              int threads);
  int64_t m_;
  bool signed_a_;
  int threads_;
  std::unique_ptr<Impl> impl_;
};

// The product of one constant B for the last row count, A signedness and thread count seen (PrimitiveThreads of the
// session's count), rebuilt when one of them changes; null where oneDNN declines (kept: not asked again for the same
// inputs). Thread-safe: Session::Run may be called from several threads.
class Int8MatMulCache {
 public:
  // b: [k, n] int8 row-major, alive as long as the cache.
  std::shared_ptr<Int8MatMul> Get(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b, int threads);

 private:
  std::mutex mutex_;
  bool built_ = false;
  int64_t m_ = 0;
  bool signed_ = false;
  int threads_ = 0;
  std::shared_ptr<Int8MatMul> mm_;
};

}  // namespace onyx::kernels
