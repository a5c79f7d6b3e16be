// An exact 8-bit matrix product on AVX-512 VNNI with the right operand packed once: onyx's own kernel beside oneDNN's
// int8 matmul (kernels/int8_matmul.h times both per shape and keeps the faster):
//   C[M, N] = sum_k (A[m, k] - a_zero_point) * B[k, N]   (int32, wrapping on overflow as the reference loops)
// A uint8 or int8 row-major, B int8 without zero point. vpdpbusd multiplies u8 by s8 and adds the four products of
// each 32-bit lane straight into int32 (no saturating pair), so the sums are exact; int8 A is shifted to uint8
// (a + 128, the zero point with it), and the zero point leaves as zp * (column sums of B), subtracted once per output.
//
// Layout: B in panels of 32 columns per K block of 1024 (256 groups of 4 rows), a group's 4 rows of a column in one
// 32-bit lane (128 bytes per group and panel); per run, A's rows per tile of up to 14 (the float tile's count) copied
// group-major (4 bytes of each row in turn), so that the tile broadcasts them from one pointer and keeps 28 int32 sums
// in registers. While a tile multiplies, it prefetches its share of the panel read next into L2 (the float product's
// scheme, sgemm_packed.h). The zero point's share (-zp * column sums of B) is where the first block's sums start.
//
// Why: on an Intel Xeon (Sapphire Rapids) capped to VNNI (what AMD Zen 4 and Ice Lake offer), oneDNN 2.6's int8
// matmul ran a BERT-like encoder's 128-row products at 566-618 GOP/s with their weights from memory, 60-65% of the
// VNNI peak (944); this kernel at ~680-700.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/aligned_vector.h"

namespace onyx::kernels {

// The layout the VNNI tiles read (this product's and int8_pointwise_nhwc.h's): K in groups of 4 bytes (one 32-bit
// lane: vpdpbusd sums 4 products per lane), B in panels of 32 columns (two vectors of 16 int32 sums), so one group of
// a panel is 128 bytes.
inline constexpr int64_t kVnniGroupBytes = 4;
inline constexpr int64_t kVnniPanelColumns = 32;
inline constexpr int64_t kVnniGroupRowBytes = kVnniGroupBytes * kVnniPanelColumns;

// `rows` rows of 8-bit A (row r at a + r * lda, k bytes) into dst group-major, as the VNNI tiles read them: group g
// (bytes 4g..4g+3) of row r at dst[(g * rows + r) * 4], zeros past k; int8 rows shifted to uint8 (x ^ 0x80 = x + 128).
void PackInt8Rows(int rows, const uint8_t* a, int64_t lda, int64_t k, bool signed_a, uint8_t* dst);

// Work on a finished block of C ([m0, m1) x [n0, n1) of C with row stride ldc), run by the thread that computed it
// while the block is still in its cache: a dynamically quantized product's float tail (scale, bias, GELU).
using Int8BlockEpilogue = std::function<void(int32_t* c, int64_t ldc, int64_t m0, int64_t m1, int64_t n0, int64_t n1)>;

class Int8VnniGemm {
 public:
  // Whether it runs here: AVX-512 VNNI on the CPU and in oneDNN's effective ISA (ONYX_MAX_ISA, ONEDNN_MAX_CPU_ISA).
  static bool Supported();

  // b: [k, n] int8 row-major (copied into panels).
  Int8VnniGemm(int64_t k, int64_t n, const int8_t* b);

  // a: [m, k] row-major, uint8 or (signed_a) int8; c: [m, n]. On `threads` OpenMP threads; safe from several threads.
  // `epilogue` (may be null) runs on every block of C once its sums are final.
  void Run(int64_t m, const void* a, bool signed_a, int32_t a_zero_point, int32_t* c, int threads,
           const Int8BlockEpilogue* epilogue = nullptr) const;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // The packed weights (to evict them before a timed run, tuning_cache.h).
  const int8_t* packed_data() const { return packed_.data(); }
  size_t packed_bytes() const { return packed_.size(); }

 private:
  // Where panel t of K block blk starts in packed_: its groups' 128-byte rows, one after the other.
  int64_t PanelOffset(int64_t blk, int64_t t) const;

  int64_t k_, n_;
  int64_t groups_;  // ceil(k / 4)
  int64_t panels_;  // ceil(n / 32)
  AlignedVector<int8_t> packed_;      // 64-byte aligned: the tiles load whole lines of it
  std::vector<int32_t> column_sums_;  // sum over k of B[k][j], for the zero point
};

}  // namespace onyx::kernels
