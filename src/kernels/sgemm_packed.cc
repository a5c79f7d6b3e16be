#include "kernels/sgemm_packed.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu_isa.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"
#include "kernels/vector_math.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kKBlock = 256;  // K rows per block (MLAS's packed stride)
// Columns one task covers: its K block of B (256 x 128 floats, 128 KB) stays in L2.
constexpr int64_t kTaskColumns = 128;

// The panel width: the columns one tile computes from contiguous rows of B. AVX-512's tile takes 32 (two vectors);
// the AVX2 one computes 32 columns as two halves of 16, so panels of 16 keep each half's reads contiguous and a K
// block of one panel (16 KB) in L1 while every row group of A passes over it.
int64_t PanelWidth() { return SgemmTileRows() == 8 ? kSgemmTileN : kSgemmTileN / 2; }

// The rows of A packed for the packed-rows tile, per calling thread: the tasks of one Run read the caller's copy.
std::vector<float>& PackedRowsScratch() {
  thread_local std::vector<float> buffer;
  return buffer;
}

// Panels one single-row task computes: several read side by side, so that each thread streams a few contiguous
// regions of the weights at once (measured on a decoder's weights from memory, AMD Zen 3: 20-35% more bandwidth than
// one panel at a time or oneDNN's gemv on B as stored), and eight accumulators (two vectors per panel in both
// widths), so that the eight independent FMA chains cover the FMA latency where B comes from L2 (with four, 128 or
// 256 columns of B, the loop waited on its chains: an LSTM's 1 MB of recurrent weights split over two cores' L2).
constexpr int64_t kRowGroupPanels = 4;

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2_row {
struct V {
  using T = __m256;
  static constexpr int kLanes = 8;
  static T Zero() { return _mm256_setzero_ps(); }
  static T Set1(float f) { return _mm256_set1_ps(f); }
  static T Load(const float* p) { return _mm256_loadu_ps(p); }
  static T Fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static void StoreAligned(float* p, T v) { _mm256_store_ps(p, v); }
};
#include "kernels/sgemm_row_panels.inc"
}  // namespace avx2_row
#pragma GCC pop_options

// The same loop in 16-lane registers for the AVX-512 tile's panels of 32. Why: the product of one row is memory-bound
// either way, but on an Intel Xeon (Ice Lake) a classifier head's 0.66 ms of 256-bit FMAs before a network's next run
// let the core leave its AVX-512 power level, and ResNet-50's first convolution then took 2.1-2.3 ms instead of
// 1.65-1.7.
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
namespace avx512_row {
struct V {
  using T = __m512;
  static constexpr int kLanes = 16;
  static T Zero() { return _mm512_setzero_ps(); }
  static T Set1(float f) { return _mm512_set1_ps(f); }
  static T Load(const float* p) { return _mm512_loadu_ps(p); }
  static T Fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static void StoreAligned(float* p, T v) { _mm512_store_ps(p, v); }
};
#include "kernels/sgemm_row_panels.inc"
}  // namespace avx512_row
#pragma GCC pop_options

}  // namespace

PackedSgemm::PackedSgemm(int64_t k, int64_t n, const float* b, const float* bias, MatMulActivation activation)
    : PackedSgemm(RowsLater{}, k, n, bias, activation) {
  for (int64_t kk = 0; kk < k; ++kk) SetRow(kk, b + kk * n);
}

PackedSgemm::PackedSgemm(RowsLater, int64_t k, int64_t n, const float* bias, MatMulActivation activation)
    : k_(k),
      n_(n),
      tile_(ActiveSgemmTile()),
      packed_rows_tile_(ActivePackedRowsTile()),
      tile_rows_(SgemmTileRows()),
      panel_(PanelWidth()),
      tiles_n_((n + panel_ - 1) / panel_),
      activation_(activation) {
  packed_.assign(static_cast<size_t>(k * tiles_n_ * panel_), 0.0f);  // the panels' padding columns stay zero
  if (bias != nullptr) bias_.assign(bias, bias + n);
}

void PackedSgemm::SetRow(int64_t kk, const float* row) {
  const int64_t k0 = kk / kKBlock * kKBlock, kc = std::min(kKBlock, k_ - k0);
  float* block = packed_.data() + k0 * tiles_n_ * panel_ + (kk - k0) * panel_;
  // Whole panels by copies of a size known here (inlined as a few vector moves: a library call per 64-byte piece
  // was a fifth of a Winograd layer's weight set-up), then the last, partial one.
  const int64_t whole = n_ / panel_;
  if (panel_ == 16) {
    for (int64_t t = 0; t < whole; ++t) std::memcpy(block + t * kc * 16, row + t * 16, 16 * sizeof(float));
  } else if (panel_ == 32) {
    for (int64_t t = 0; t < whole; ++t) std::memcpy(block + t * kc * 32, row + t * 32, 32 * sizeof(float));
  } else {
    for (int64_t t = 0; t < whole; ++t) std::copy_n(row + t * panel_, panel_, block + t * kc * panel_);
  }
  if (whole < tiles_n_) std::copy_n(row + whole * panel_, n_ - whole * panel_, block + whole * kc * panel_);
}

void PackedSgemm::GetRow(int64_t kk, float* row) const {
  const int64_t k0 = kk / kKBlock * kKBlock, kc = std::min(kKBlock, k_ - k0);
  const float* block = packed_.data() + k0 * tiles_n_ * panel_ + (kk - k0) * panel_;
  for (int64_t t = 0; t < tiles_n_; ++t) {
    const int64_t cols = std::min(panel_, n_ - t * panel_);
    std::copy_n(block + t * kc * panel_, cols, row + t * panel_);
  }
}

const float* PackedSgemm::Panel(int64_t block, int64_t tile) const {
  const int64_t k0 = block * kKBlock, kc = std::min(kKBlock, k_ - k0);
  return packed_.data() + k0 * tiles_n_ * panel_ + tile * kc * panel_;
}

std::pair<const char*, int64_t> PackedSgemm::NextPanel(int64_t block, int64_t tile, int64_t t0, int64_t t1, int64_t b0,
                                                       int64_t b1, int64_t next_task_t0) const {
  const float* next = nullptr;
  int64_t next_block = block;
  if (tile + 1 < t1) {
    next = Panel(block, tile + 1);
  } else if (block + 1 < b1) {
    next_block = block + 1;
    next = Panel(next_block, t0);
  } else if (next_task_t0 >= 0) {  // most often the same thread's next task
    next_block = b0;
    next = Panel(b0, next_task_t0);
  }
  if (next == nullptr) return {nullptr, 0};
  const int64_t kc = std::min(kKBlock, k_ - next_block * kKBlock);
  return {reinterpret_cast<const char*>(next),
          static_cast<int64_t>(kc * panel_ * sizeof(float) + kSgemmLineBytes - 1) / kSgemmLineBytes};
}

void PackedSgemm::Epilogue(float* c, int64_t m0, int64_t rows, int64_t n0, int64_t cols) const {
  for (int64_t i = m0; i < m0 + rows; ++i) {
    float* row = c + i * n_ + n0;
    if (!bias_.empty()) {
      const float* b = bias_.data() + n0;
      for (int64_t j = 0; j < cols; ++j) row[j] += b[j];
    }
    if (activation_ == MatMulActivation::kGeluErf) Gelu(row, row, cols);
    if (activation_ == MatMulActivation::kRelu) Relu(row, row, cols);
  }
}

void PackedSgemm::Run(int64_t m, const float* a, float* c, int threads, bool accumulate,
                      RowPrefetch row_prefetch) const {
  if (m <= 0 || n_ <= 0) return;
  if (k_ == 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * n_, c + (i + 1) * n_, 0.0f);
    }
    Epilogue(c, 0, m, 0, n_);
    return;
  }
  // The vector tiles (AVX2 or AVX-512) imply AVX2 + FMA, which the single-row loops use.
  if (m == 1 && tile_rows_ > 1) {
    RunRow(a, c, threads, accumulate, row_prefetch);
    return;
  }
  const SgemmPackedRowsTileFn rows_tile = packed_rows_tile_;
  const int64_t tile_rows = rows_tile != nullptr ? kSgemmPackedRowsMax : tile_rows_;
  const int64_t blocks_k = (k_ + kKBlock - 1) / kKBlock;
  // Tasks: column groups of kTaskColumns, times row groups (whole tiles of rows) where there are fewer column groups
  // than twice the threads (a narrow, tall product).
  const int64_t task_tiles = std::max<int64_t>(1, kTaskColumns / panel_);
  const int64_t column_groups = (tiles_n_ + task_tiles - 1) / task_tiles;
  const RowGroupPlan plan = PlanRowGroups(m, tile_rows, column_groups, threads);
  const int64_t row_groups = plan.row_groups, rows_per_group = plan.rows_per_group, group_tiles = plan.group_tiles;
  const int64_t tasks = column_groups * row_groups;
  auto tiles_of_group = [&](int64_t m0) { return plan.TilesOfGroup(m0); };
  // Tile j of the row group starting at m0, its first row absolute: the packing below and the tasks split alike.
  auto row_tile = [&](int64_t m0, int64_t count, int64_t j) { return plan.Tile(m0, count, j); };
  // K passes: with the packed-rows tile, A's rows are copied pass by pass into the caller's scratch (the tile
  // starting at row i0 at i0 * pass_k, on the threads), then every task runs the pass's K blocks of its columns.
  // Why passes: a packed copy of the whole of a long A outgrows L2 and goes to L3 and back (BERT's 128 x 3072 A: 0.105
  // ms of copying against 0.0105 for 128 x 768 on an Intel Xeon with 2 MB of L2, 3% of the product); a pass's copy
  // stays in L2 for all the tasks. A whole A within a quarter of L2 is one pass. C carries the sums between passes as
  // between K blocks, so the sums are the same.
  int64_t pass_blocks = blocks_k;
  if (rows_tile != nullptr) {
    const int64_t budget = L2CacheBytes() / 4, row_bytes = m * static_cast<int64_t>(sizeof(float));
    if (row_bytes * k_ > budget) pass_blocks = std::clamp<int64_t>(budget / (row_bytes * kKBlock), 1, blocks_k);
  }
  const int64_t pass_k_max = std::min(k_, pass_blocks * kKBlock);
  float* packed_a = nullptr;
  if (rows_tile != nullptr) {
    std::vector<float>& scratch = PackedRowsScratch();
    if (scratch.size() < static_cast<size_t>(m * pass_k_max)) scratch.resize(static_cast<size_t>(m * pass_k_max));
    packed_a = scratch.data();
  }
  // One pass: K blocks [b0, b1), i.e. columns [k0, k0 + k) of A.
  struct Pass {
    int64_t b0, b1, k0, k;
  };
  auto run_task = [&](int64_t task, const Pass& pass) {
    const int64_t b0 = pass.b0, b1 = pass.b1;
    const int64_t t0 = task / row_groups * task_tiles, t1 = std::min(tiles_n_, t0 + task_tiles);
    const int64_t m0 = task % row_groups * rows_per_group, m1 = std::min(m, m0 + rows_per_group);
    const int64_t count = tiles_of_group(m0);
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t k0 = blk * kKBlock, kc = std::min(kKBlock, k_ - k0);
      const bool first = blk == 0 && !accumulate;
      // One panel's K block stays in L1 while the rows pass over it, and the panel read next comes into L2
      // meanwhile, a share per row tile (NextPanel).
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t n0 = t * panel_, cols = std::min(panel_, n_ - n0);
        const float* panel = Panel(blk, t);
        const auto [next, next_lines] =
            NextPanel(blk, t, t0, t1, b0, b1, task + 1 < tasks ? (task + 1) / row_groups * task_tiles : -1);
        for (int64_t j = 0; j < count; ++j) {
          const SgemmRowTile rt = row_tile(m0, count, j);
          const int64_t i0 = rt.start;
          const int rows = static_cast<int>(rt.rows);
          if (first) {
            constexpr int64_t kFloat = sizeof(float);
            const bool next_panel = t + 1 < t1;
            PrefetchNextOutputTile([&](int64_t jj) { return row_tile(m0, count, jj); }, j, count, n_ * kFloat, c + n0,
                                   cols * kFloat, next_panel ? c + n0 + panel_ : nullptr,
                                   next_panel ? std::min(panel_, n_ - n0 - panel_) * kFloat : 0);
          }
          const SgemmPrefetch prefetch = PrefetchShare(next, next_lines, j, count);
          if (rows_tile != nullptr) {
            rows_tile(rows, packed_a + i0 * pass.k + (k0 - pass.k0) * rows, panel, panel_, kc, c + i0 * n_ + n0, n_,
                      cols, first, prefetch);
          } else {
            tile_(rows, a + i0 * k_ + k0, k_, panel, panel_, kc, c + i0 * n_ + n0, n_, cols, 1.0f, first, prefetch);
          }
        }
      }
    }
    if (b1 == blocks_k && (!bias_.empty() || activation_ != MatMulActivation::kNone)) {
      const int64_t n0 = t0 * panel_;
      Epilogue(c, m0, m1 - m0, n0, std::min(n_, t1 * panel_) - n0);
    }
  };
  for (int64_t b0 = 0; b0 < blocks_k; b0 += pass_blocks) {
    const int64_t b1 = std::min(blocks_k, b0 + pass_blocks);
    const Pass pass{b0, b1, b0 * kKBlock, std::min(k_, b1 * kKBlock) - b0 * kKBlock};
    if (rows_tile != nullptr) {
      RunTasks(row_groups * group_tiles, threads, [&](int64_t t) {
        const int64_t m0 = t / group_tiles * rows_per_group, count = tiles_of_group(m0), j = t % group_tiles;
        if (j >= count) return;
        const SgemmRowTile tile = row_tile(m0, count, j);
        PackSgemmRows(static_cast<int>(tile.rows), a + tile.start * k_ + pass.k0, k_, pass.k,
                      packed_a + tile.start * pass.k);
      });
    }
    RunTasks(tasks, threads, [&](int64_t task) { run_task(task, pass); });
  }
}

int64_t PackedSgemm::RowGroups() const { return (tiles_n_ + kRowGroupPanels - 1) / kRowGroupPanels; }

void PackedSgemm::RunRowGroups(const float* a, float* c, int64_t g0, int64_t g1, bool accumulate,
                               RowPrefetch prefetch) const {
  const int64_t group_panels = kRowGroupPanels;
  const int64_t blocks_k = (k_ + kKBlock - 1) / kKBlock;
  auto run_group = [&]<bool kPrefetch>(int64_t g) {
    const int64_t t0 = g * group_panels, panels = std::min(group_panels, tiles_n_ - t0);
    const int64_t n0 = t0 * panel_, cols = std::min(n_ - n0, panels * panel_);
    for (int64_t blk = 0; blk < blocks_k; ++blk) {
      const int64_t k0 = blk * kKBlock, kc = std::min(kKBlock, k_ - k0);
      const bool first = blk == 0 && !accumulate;
      const float* p = Panel(blk, t0);  // the group's panels follow each other within the block
      // A whole group: kRowGroupPanels panels. Panels of 32 are the AVX-512 tile's (PanelWidth), so their
      // loop runs in AVX-512 registers too; those of 16 the AVX2 tile's.
      if (panels == group_panels) {
        if (panel_ == 32) {
          avx512_row::RowTimesPanels<32, kRowGroupPanels, kPrefetch>(a + k0, p, kc, c + n0, cols, first);
        } else {
          avx2_row::RowTimesPanels<16, kRowGroupPanels, kPrefetch>(a + k0, p, kc, c + n0, cols, first);
        }
      } else {
        for (int64_t t = 0; t < panels; ++t) {
          const int64_t nt = n0 + t * panel_, ct = std::min(panel_, n_ - nt);
          if (panel_ == 32) {
            avx512_row::RowTimesPanels<32, 1, kPrefetch>(a + k0, p + t * kc * panel_, kc, c + nt, ct, first);
          } else {
            avx2_row::RowTimesPanels<16, 1, kPrefetch>(a + k0, p + t * kc * panel_, kc, c + nt, ct, first);
          }
        }
      }
    }
    if (!bias_.empty() || activation_ != MatMulActivation::kNone) Epilogue(c, 0, 1, n0, cols);
  };
  for (int64_t g = g0; g < g1; ++g) {
    if (prefetch == RowPrefetch::kSoftware) {
      run_group.operator()<true>(g);
    } else {
      run_group.operator()<false>(g);
    }
  }
}

void PackedSgemm::RunRow(const float* a, float* c, int threads, bool accumulate, RowPrefetch prefetch) const {
  RunTasks(RowGroups(), threads, [&](int64_t g) { RunRowGroups(a, c, g, g + 1, accumulate, prefetch); });
}

void PackedSgemm::RunRowPart(const float* a, float* c, int64_t part, int64_t parts, RowPrefetch prefetch) const {
  const int64_t groups = RowGroups();
  RunRowGroups(a, c, part * groups / parts, (part + 1) * groups / parts, false, prefetch);
}

}  // namespace onyx::kernels
