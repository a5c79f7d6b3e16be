// The FMA tile under onyx's own float GEMMs (implemented in sgemm_ort_order.cc): MLAS's SGEMM summation order and
// the prepacked product of sgemm_packed.h both run it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace onyx::kernels {

// Columns of one tile, and of the panels B is packed in for it.
inline constexpr int64_t kSgemmTileN = 32;

// One tile: rows [0, rows) of A (element (r, kk) at a[r * lda + kk]) times a packed panel of B (row kk at
// bp + kk * ldbp, at least kSgemmTileN readable columns), into cols <= kSgemmTileN columns of C. Each output is one
// FMA chain over the kc products from 0; first: C = acc * alpha, else C = fma(acc, alpha, C). Any row count: the
// tile runs SgemmTileRows() rows at a time.
// Memory the caller reads next (the next panel of packed weights): the tile fetches `lines` cache lines from `begin`
// into L2 while it multiplies, one every other K step, so that weights streaming from memory arrive before they are
// read. Empty: nothing.
inline constexpr int64_t kSgemmLineBytes = 64;
struct SgemmPrefetch {
  const char* begin = nullptr;
  int64_t lines = 0;
};

using SgemmTileFn = void (*)(int rows, const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c,
                             int64_t ldc, int64_t cols, float alpha, bool first, SgemmPrefetch prefetch);

// A tile whose rows of A were packed for it (PackSgemmRows): element (r, kk) of its `rows` rows at ap[kk * rows + r],
// so that every broadcast of A comes from one pointer and the rows' K block is contiguous. Otherwise as SgemmTileFn,
// with alpha 1.
using SgemmPackedRowsTileFn = void (*)(int rows, const float* ap, const float* bp, int64_t ldbp, int64_t kc, float* c,
                                       int64_t ldc, int64_t cols, bool first, SgemmPrefetch prefetch);

// Tile j of the `count` tiles that `rows` rows are split into, as evenly as they go (128 rows in 10 tiles: 8 of 13 and
// 2 of 12, not 9 of 14 and one of 2): a short tile loads B for few multiplies and keeps fewer sums in flight.
struct SgemmRowTile {
  int64_t start, rows;
};
inline SgemmRowTile EvenRowTile(int64_t rows, int64_t count, int64_t j) {
  const int64_t q = rows / count, rem = rows % count;
  return {j * q + (j < rem ? j : rem), q + (j < rem ? 1 : 0)};
}

// Call `i` of `count`'s even share of the `lines` cache lines from `next` (the weights read next, brought into L2 a
// share per tile while the tiles compute, so that the requests arrive spread over them): the last calls get none once
// the lines run out.
inline SgemmPrefetch PrefetchShare(const char* next, int64_t lines, int64_t i, int64_t count) {
  const int64_t share = (lines + count - 1) / std::max<int64_t>(count, 1);
  const int64_t first = std::min(lines, i * share);
  return {next == nullptr ? nullptr : next + first * kSgemmLineBytes, std::min(share, lines - first)};
}

// Brings `bytes` of each row of `tile` (rows row_stride bytes apart from `base`) into the cache, for writing where
// `for_write`, while the caller computes another tile. A tile stores a panel's share of each output row; where the
// output comes from memory (a model's output buffer, last written a whole run earlier) each store otherwise waits for
// its line: an int8 1x1 convolution of few multiply-adds per output byte ran at half speed (ResNet-50's 64 -> 256
// layers, AMD Zen 5), BERT's 128 x 768 x 3072 product (C written once, 1.5 MB) ~10% slower than with its rows
// prefetched.
inline void PrefetchTileRows(const SgemmRowTile& tile, const void* base, int64_t row_stride, int64_t bytes,
                             bool for_write) {
  const char* row = static_cast<const char*>(base) + tile.start * row_stride;
  for (int64_t r = 0; r < tile.rows; ++r, row += row_stride) {
    for (int64_t at = 0; at < bytes; at += kSgemmLineBytes) {
      if (for_write) {
        __builtin_prefetch(row + at, 1, 3);
      } else {
        __builtin_prefetch(row + at, 0, 3);
      }
    }
  }
}

// In a product's first K block (which only writes C), while tile j of a panel's `count` row tiles is computed: the C
// rows of the tile computed next, for writing: tile j + 1 (`row_tile(j + 1)`) of the same columns (`c`, `bytes` of
// each row), or after the last the next panel's first tile (`next_c`, `next_bytes`; none where next_c is null).
template <class RowTile>
void PrefetchNextOutputTile(const RowTile& row_tile, int64_t j, int64_t count, int64_t row_stride, const void* c,
                            int64_t bytes, const void* next_c, int64_t next_bytes) {
  if (j + 1 < count) {
    PrefetchTileRows(row_tile(j + 1), c, row_stride, bytes, true);
  } else if (next_c != nullptr) {
    PrefetchTileRows(row_tile(0), next_c, row_stride, next_bytes, true);
  }
}

// The tasks of a packed product of m rows whose columns form `column_groups` groups: each task one column group times
// one row group. Rows are split into groups (whole tiles of tile_rows) only where the column groups are fewer than
// twice the threads (a narrow, tall product); each group's rows then into even tiles (EvenRowTile).
struct RowGroupPlan {
  int64_t m = 0, tile_rows = 1;
  int64_t rows_per_group = 0, row_groups = 1;
  int64_t group_tiles = 0;  // tiles of every row group (the last may need fewer)
  // The tiles of the row group starting at row m0.
  int64_t TilesOfGroup(int64_t m0) const { return (std::min(m, m0 + rows_per_group) - m0 + tile_rows - 1) / tile_rows; }
  // Tile j of the `count` tiles of the row group starting at m0, its first row absolute.
  SgemmRowTile Tile(int64_t m0, int64_t count, int64_t j) const {
    SgemmRowTile tile = EvenRowTile(std::min(m, m0 + rows_per_group) - m0, count, j);
    tile.start += m0;
    return tile;
  }
};
inline RowGroupPlan PlanRowGroups(int64_t m, int64_t tile_rows, int64_t column_groups, int threads) {
  RowGroupPlan plan;
  plan.m = m;
  plan.tile_rows = tile_rows;
  int64_t row_groups = 1;
  if (threads > 1 && column_groups < 2 * threads) {
    const int64_t row_tiles = (m + tile_rows - 1) / tile_rows;
    row_groups = std::min(row_tiles, (2 * threads + column_groups - 1) / column_groups);
  }
  plan.rows_per_group = ((m + row_groups - 1) / row_groups + tile_rows - 1) / tile_rows * tile_rows;
  plan.row_groups = (m + plan.rows_per_group - 1) / plan.rows_per_group;
  plan.group_tiles = plan.rows_per_group / tile_rows;
  return plan;
}

// The packed-rows tile where the active SGEMM path is AVX-512 (null elsewhere), and its largest row count.
SgemmPackedRowsTileFn ActivePackedRowsTile();
inline constexpr int kSgemmPackedRowsMax = 14;

// Rows [0, rows) of A (element (r, kk) at a[r * lda + kk], kk < k) into dst in the packed-rows tile's order:
// dst[kk * rows + r].
void PackSgemmRows(int rows, const float* a, int64_t lda, int64_t k, float* dst);
// The same with column kk of the rows at dst + kk * dst_stride (dst_stride >= rows): rows of B (keys of an
// attention head) transposed into a panel of dst_stride columns, 16 rows at a time.
void PackSgemmRowsStrided(int rows, const float* a, int64_t lda, int64_t k, float* dst, int64_t dst_stride);

// Rows of A gathered 16 columns at a time into the same order: row r's columns [16 j, 16 j + 16) are the 16 floats at
// blocks[j * rows + r] (a blocked tensor's block of channels at one pixel, or zeros), k = 16 * chunks.
void PackSgemmRowBlocks(int rows, const float* const* blocks, int64_t chunks, float* dst);

// The tile of the best vector code the CPU and ONYX_MAX_ISA allow (AVX-512, AVX2 + FMA or scalar std::fma: the same
// bits), and the rows it computes at once (8, 6 or 1).
SgemmTileFn ActiveSgemmTile();
int SgemmTileRows();

}  // namespace onyx::kernels
