// A float32 matrix product with a constant right operand packed once, on onyx's own FMA tiles (sgemm_tile.h):
//   C[M, N] = act(A[M, K] * B[K, N] + bias[N])
// B is copied at creation into panels of 16 (AVX2) or 32 (AVX-512) columns per K block of 256 rows: each tile
// streams its panel contiguously, from L1 while the rows of A pass over it; the bias and the activation are applied
// to each block of C while it is in cache. On AVX-512, each Run first copies A's rows per tile (up to 14 rows,
// interleaved: sgemm_tile.h PackSgemmRows) into the calling thread's scratch, so that the tile reads them from one
// pointer and keeps 28 sums in registers.
//
// Why: on AVX2 CPUs (AMD Zen 3 measured) oneDNN 2.6's gemm:jit ran BERT's 128-row products 7-20% slower than ONNX
// Runtime's MLAS, which packs B the same way; oneDNN offers no packed brgemm there. This product matched gemm:jit
// on those shapes at 1 thread and beat it by 11% with GELU fused (oneDNN's GELU post-op is the slower part), lost
// on some at 2 threads: FloatMatMul times it against oneDNN's kernels per shape (float_matmul.h) and keeps it only
// where it is faster. Sums: per output, K blocks of 256,
// each an FMA chain from 0, added in order: MLAS's order for a packed B (sgemm_ort_order.h) before the epilogue.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/float_matmul.h"
#include "kernels/sgemm_tile.h"

namespace onyx::kernels {

// How the single-row product (m == 1) reads the panels: with software prefetches a few rows ahead, or by the loads
// alone, leaving the streams to the hardware prefetchers. Which is faster depends on the CPU and on where the weights
// are (FloatMatMul times both; same sums either way). Measured with a decoder's weights from memory: on an AMD Zen 4
// the loads alone read 19-27 GB/s against 16-18 with the prefetches, and 10% more from L3; from L2 the prefetches
// gained 5-10% there and ~15% on a Sapphire Rapids Xeon (an LSTM's recurrent product).
enum class RowPrefetch { kSoftware, kHardware };

class PackedSgemm {
 public:
  // b: [k, n] row-major (copied); bias: n values or null (copied).
  PackedSgemm(int64_t k, int64_t n, const float* b, const float* bias, MatMulActivation activation);

  // B written row by row with SetRow (every row before the first Run) instead of copied from a matrix: a producer
  // that computes B (Winograd's transformed weights) then needs no [k, n] buffer of its own.
  struct RowsLater {};
  PackedSgemm(RowsLater, int64_t k, int64_t n, const float* bias, MatMulActivation activation);
  // Row kk of B (n values, copied). Calls for different rows may run on different threads at once.
  void SetRow(int64_t kk, const float* row);
  // Row kk of B back out of the panels (n values): the plain matrix for a caller that released its own.
  void GetRow(int64_t kk, float* row) const;

  // a: [m, k] row-major; c: [m, n] (not overlapping a). On `threads` OpenMP threads; safe to call from several
  // threads at once. `accumulate`: C's values are kept and every K block's sums added to them (MLAS's order for a
  // product with beta 1, C holding a bias row beforehand), else C is overwritten.
  // `row_prefetch` applies to m == 1 only.
  void Run(int64_t m, const float* a, float* c, int threads, bool accumulate = false,
           RowPrefetch row_prefetch = RowPrefetch::kSoftware) const;

  // The single-row product's share `part` of `parts` (its column groups, split as Run splits them over threads): for
  // callers that run the parts on threads of their own (a recurrent layer's steps inside one parallel region). The
  // parts together give Run(1, a, c, parts)'s C, bit for bit.
  void RunRowPart(const float* a, float* c, int64_t part, int64_t parts,
                  RowPrefetch prefetch = RowPrefetch::kSoftware) const;

  int64_t k() const { return k_; }
  // The packed copy of B (for FlushFromCaches when timing).
  const float* packed_data() const { return packed_.data(); }
  size_t packed_bytes() const { return packed_.size() * sizeof(float); }
  int64_t n() const { return n_; }

 private:
  // Panel `tile` of K block `block`: kc rows of panel_ floats.
  const float* Panel(int64_t block, int64_t tile) const;
  // The panel a task of panels [t0, t1) in its pass over K blocks [b0, b1) reads after panel `tile` of K block
  // `block` (the next one of the task, the first of the next K block, or the first of block b0 of the task starting
  // at panel next_task_t0 when that is >= 0), as its first byte and its cache lines; {nullptr, 0} after the last.
  std::pair<const char*, int64_t> NextPanel(int64_t block, int64_t tile, int64_t t0, int64_t t1, int64_t b0, int64_t b1,
                                            int64_t next_task_t0) const;
  // The single-row product (a decoder's step, a classifier head): bandwidth-bound, each weight used once, so the
  // panels are streamed several at a time with one accumulator chain per column instead of through the tile.
  void RunRow(const float* a, float* c, int threads, bool accumulate, RowPrefetch prefetch) const;
  // Column groups of the single-row product (kRowGroupPanels panels each) and groups [g0, g1) of it on this thread.
  int64_t RowGroups() const;
  void RunRowGroups(const float* a, float* c, int64_t g0, int64_t g1, bool accumulate, RowPrefetch prefetch) const;
  // Bias and activation on rows [m0, m0 + rows) x columns [n0, n0 + cols) of C.
  void Epilogue(float* c, int64_t m0, int64_t rows, int64_t n0, int64_t cols) const;

  int64_t k_, n_;
  SgemmTileFn tile_;  // the tile the panels were packed for (the CPU's, as at creation)
  // The tile over packed rows of A where the CPU has one (AVX-512: it takes the panels of tile_), else null.
  SgemmPackedRowsTileFn packed_rows_tile_;
  int64_t tile_rows_;
  int64_t panel_;    // columns per packed panel: what one tile computes
  int64_t tiles_n_;  // panels across N
  std::vector<float> packed_;
  std::vector<float> bias_;  // empty without a bias
  MatMulActivation activation_;
};

}  // namespace onyx::kernels
