// Few-row 8-bit products against a constant int8 matrix: C[r, n] = sum_k (A[r, k] - a_zero_point) * B[k, n] for a
// handful of rows, as the dynamically quantized MatMuls of a decoder step (one row per token) need them, with the
// int8 GEMM paths' arithmetic (kernels/int8_gemm.h): uint8 x int8 products added in saturating int16 pairs on AVX2
// CPUs without VNNI (kSaturatingPairs), exactly by VNNI instructions where those are in effect (kExact).
//
// Why a kernel of its own: oneDNN's int8 matmul takes ~0.25 ms for a 1 x 512 x 1536 product here (a quarter of the
// memory bandwidth), so a dynamically quantized GPT-2-like decoder ran at 0.43x ONNX Runtime's tokens/s, slower than
// its float model. Here B is packed once into blocks of 8 columns x 4 rows (one dword per column: vpmaddubsw then
// vpmaddwd by ones), each row of A read as broadcast dwords: the sums are MLAS's and oneDNN's on such CPUs, the raw
// uint8 values paired along K ((k, k + 1) from even k, saturated to int16; or with VNNI the dword's 4 products added
// exactly, vpdpbusd) and a_zero_point times the column sums subtracted after, so the results equal the other int8
// paths' bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace onyx::kernels {

class Int8Gemv {
 public:
  // Whether the kernel runs here: AVX2 with the saturating-pair arithmetic, or exact arithmetic with AVX512-VNNI (+VL)
  // or AVX-VNNI (exact sums without VNNI, ONYX_INT8_EXACT's split weights, stay on the GEMM paths).
  static bool Applicable();
  // The most rows a call is meant for; more rows are faster on the GEMM paths.
  static constexpr int64_t kMaxRows = 8;

  // b: [k, n] int8 row-major (zero point 0).
  Int8Gemv(int64_t k, int64_t n, const int8_t* b);
  // c[r * n + j] for r < m: uint8 A [m, k] row-major (rows lda apart), one zero point. Splits the columns between up to
  // `threads` OpenMP threads.
  void Run(int64_t m, const uint8_t* a, int64_t lda, int32_t a_zero_point, int32_t* c, int threads) const;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }

 private:
  int64_t k_, n_, k4_, blocks_;
  std::vector<int8_t> packed_;   // [blocks_][k4_][8 columns][4 rows], zero-padded past k and n
  std::vector<int32_t> colsum_;  // [blocks_ * 8]: sum over k of B[k, j]
};

// An Int8Gemv of one constant B, packed on first use: a session whose products never have few rows (an encoder's)
// holds no second copy of its weights and spends nothing on packing them at creation. Thread-safe.
class LazyInt8Gemv {
 public:
  // b: [k, n] int8 row-major, alive as long as this.
  void Set(int64_t k, int64_t n, const int8_t* b) {
    k_ = k;
    n_ = n;
    b_ = b;
  }
  // The packed product for m rows of uint8 A, or null where Int8Gemv does not apply (no B set, too many rows, not
  // Int8Gemv::Applicable()).
  const Int8Gemv* For(int64_t m) {
    if (b_ == nullptr || m > Int8Gemv::kMaxRows || !Int8Gemv::Applicable()) return nullptr;
    std::call_once(once_, [&] { gemv_ = std::make_unique<const Int8Gemv>(k_, n_, b_); });
    return gemv_.get();
  }

 private:
  int64_t k_ = 0, n_ = 0;
  const int8_t* b_ = nullptr;
  std::once_flag once_;
  std::unique_ptr<const Int8Gemv> gemv_;
};

}  // namespace onyx::kernels
