#include "kernels/int8_gemm_vnni.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>

#include "kernels/cpu_isa.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kBlockGroups = 256;           // K block: 1024 rows, a panel's block 32 KB (L1)
constexpr int64_t kTaskPanels = 4;              // columns per task: 128
constexpr int kTileRows = kSgemmPackedRowsMax;  // 14: 28 sums in registers

// The rows of A packed per tile, per calling thread: the tasks of one Run read the caller's copy.
std::vector<uint8_t>& PackedRowsScratch() {
  thread_local std::vector<uint8_t> buffer;
  return buffer;
}

// The zero point's share of every column, per calling thread (as PackedRowsScratch).
std::vector<int32_t>& ZeroPointScratch() {
  thread_local std::vector<int32_t> buffer;
  return buffer;
}

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vnni")

#include "kernels/int8_vnni_tile_sums.inc"

// rows x 32 int32 sums of a K block: ap = the tile's packed rows from the block's first group (group g of row r at
// ap[(g * rows + r) * 4]), bp = the panel's block. Written to C (first block, the sums starting from `start`'s 32
// values where it is not null) or added to it; meanwhile `prefetch`'s lines go to L2, one per group step.
template <int kRows>
void VnniTile(const uint8_t* ap, const int8_t* bp, int64_t groups, int32_t* c, int64_t ldc, int64_t cols, bool first,
              const int32_t* start, const char* prefetch, int64_t prefetch_lines) {
  __m512i acc[kRows][2];
  VnniTileSums<kRows>(acc, ap, bp, groups, first ? start : nullptr, prefetch, prefetch_lines);
  const __mmask16 mask0 = VnniHalfMask(cols, 0), mask1 = VnniHalfMask(cols, 1);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    int32_t* out = c + r * ldc;
    if (first) {
      _mm512_mask_storeu_epi32(out, mask0, acc[r][0]);
      _mm512_mask_storeu_epi32(out + 16, mask1, acc[r][1]);
    } else {
      _mm512_mask_storeu_epi32(out, mask0, _mm512_add_epi32(acc[r][0], _mm512_maskz_loadu_epi32(mask0, out)));
      _mm512_mask_storeu_epi32(out + 16, mask1, _mm512_add_epi32(acc[r][1], _mm512_maskz_loadu_epi32(mask1, out + 16)));
    }
  }
}

#pragma GCC pop_options

using VnniTileFn = void (*)(const uint8_t*, const int8_t*, int64_t, int32_t*, int64_t, int64_t, bool, const int32_t*,
                            const char*, int64_t);

template <int... kRows>
constexpr std::array<VnniTileFn, sizeof...(kRows)> MakeTiles(std::integer_sequence<int, kRows...>) {
  return {&VnniTile<kRows + 1>...};
}
constexpr auto kTiles = MakeTiles(std::make_integer_sequence<int, kTileRows>());

}  // namespace

void PackInt8Rows(int rows, const uint8_t* a, int64_t lda, int64_t k, bool signed_a, uint8_t* dst) {
  const int64_t groups = (k + kVnniGroupBytes - 1) / kVnniGroupBytes;
  if (k % kVnniGroupBytes == 0 && lda % kVnniGroupBytes == 0) {
    // A group is 4 bytes: the float tile's packing of 32-bit elements (a register transpose) moves them unchanged.
    PackSgemmRows(rows, reinterpret_cast<const float*>(a), lda / kVnniGroupBytes, groups, reinterpret_cast<float*>(dst));
  } else {
    for (int64_t g = 0; g < groups; ++g) {
      for (int r = 0; r < rows; ++r) {
        for (int64_t q = 0; q < kVnniGroupBytes; ++q) {
          const int64_t kk = g * kVnniGroupBytes + q;
          dst[(g * rows + r) * kVnniGroupBytes + q] = kk < k ? a[r * lda + kk] : uint8_t{0};
        }
      }
    }
  }
  if (signed_a) {
    const int64_t bytes = groups * rows * kVnniGroupBytes;
    for (int64_t i = 0; i < bytes; ++i) dst[i] ^= 0x80;
  }
}

bool Int8VnniGemm::Supported() {
  static const bool supported = [] {
    if (!__builtin_cpu_supports("avx512vnni") || EffectiveIsa() != Isa::kAvx512) return false;
    try {
      const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
      return isa == dnnl::cpu_isa::avx512_core_vnni || isa == dnnl::cpu_isa::avx512_core_bf16 ||
             isa == dnnl::cpu_isa::avx512_core_amx;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return supported;
}

Int8VnniGemm::Int8VnniGemm(int64_t k, int64_t n, const int8_t* b)
    : k_(k),
      n_(n),
      groups_((k + kVnniGroupBytes - 1) / kVnniGroupBytes),
      panels_((n + kVnniPanelColumns - 1) / kVnniPanelColumns),
      packed_(static_cast<size_t>(groups_ * panels_ * kVnniGroupRowBytes), 0),
      column_sums_(static_cast<size_t>(n), 0) {
  for (int64_t kk = 0; kk < k; ++kk) {
    const int64_t g = kk / kVnniGroupBytes, blk = g / kBlockGroups;
    const int8_t* row = b + kk * n;
    for (int64_t j = 0; j < n; ++j) {
      packed_[static_cast<size_t>(PanelOffset(blk, j / kVnniPanelColumns) + (g - blk * kBlockGroups) * kVnniGroupRowBytes +
                                  j % kVnniPanelColumns * kVnniGroupBytes + kk % kVnniGroupBytes)] = row[j];
      column_sums_[static_cast<size_t>(j)] += row[j];
    }
  }
}

int64_t Int8VnniGemm::PanelOffset(int64_t blk, int64_t t) const {
  const int64_t g0 = blk * kBlockGroups, gc = std::min(kBlockGroups, groups_ - g0);
  return (g0 * panels_ + t * gc) * kVnniGroupRowBytes;
}

void Int8VnniGemm::Run(int64_t m, const void* a_in, bool signed_a, int32_t a_zero_point, int32_t* c, int threads,
                       const Int8BlockEpilogue* epilogue) const {
  if (m <= 0 || n_ <= 0) return;
  if (k_ == 0) {  // empty sums
    std::fill(c, c + m * n_, 0);
    if (epilogue != nullptr) (*epilogue)(c, n_, 0, m, 0, n_);
    return;
  }
  const auto* a = static_cast<const uint8_t*>(a_in);
  const int64_t blocks = (groups_ + kBlockGroups - 1) / kBlockGroups;
  // Tasks: column groups of kTaskPanels panels, times row groups as the float product splits them.
  const int64_t column_groups = (panels_ + kTaskPanels - 1) / kTaskPanels;
  const RowGroupPlan plan = PlanRowGroups(m, kTileRows, column_groups, threads);
  const int64_t row_groups = plan.row_groups, rows_per_group = plan.rows_per_group, group_tiles = plan.group_tiles;
  auto tiles_of_group = [&](int64_t m0) { return plan.TilesOfGroup(m0); };
  auto row_tile = [&](int64_t m0, int64_t count, int64_t j) { return plan.Tile(m0, count, j); };
  // A packed per tile (tile starting at row i0 at i0 * groups * 4), on the threads.
  std::vector<uint8_t>& scratch = PackedRowsScratch();
  const size_t packed_bytes = static_cast<size_t>(m * groups_ * kVnniGroupBytes);
  if (scratch.size() < packed_bytes) scratch.resize(packed_bytes);
  uint8_t* packed_a = scratch.data();
  RunTasks(row_groups * group_tiles, threads, [&](int64_t t) {
    const int64_t m0 = t / group_tiles * rows_per_group, count = tiles_of_group(m0), j = t % group_tiles;
    if (j >= count) return;
    const SgemmRowTile tile = row_tile(m0, count, j);
    PackInt8Rows(static_cast<int>(tile.rows), a + tile.start * k_, k_, k_, signed_a,
                 packed_a + tile.start * groups_ * kVnniGroupBytes);
  });
  // The zero point leaves as minus zp * sum_k B[k][j] (wrapping as the reference's int32 sums), where each column's
  // sums start: no pass of its own over C.
  const int32_t zero_point = a_zero_point + (signed_a ? 128 : 0);
  const int32_t* start = nullptr;
  if (zero_point != 0) {
    std::vector<int32_t>& shares = ZeroPointScratch();
    shares.resize(static_cast<size_t>(panels_ * kVnniPanelColumns));  // no reallocation once the widest has run
    for (int64_t j = 0; j < n_; ++j) {
      shares[static_cast<size_t>(j)] = static_cast<int32_t>(
          0u - static_cast<uint32_t>(zero_point) * static_cast<uint32_t>(column_sums_[static_cast<size_t>(j)]));
    }
    start = shares.data();
  }
  const int64_t tasks = column_groups * row_groups;
  RunTasks(tasks, threads, [&](int64_t task) {
    const int64_t t0 = task / row_groups * kTaskPanels, t1 = std::min(panels_, t0 + kTaskPanels);
    const int64_t m0 = task % row_groups * rows_per_group, m1 = std::min(m, m0 + rows_per_group);
    const int64_t count = tiles_of_group(m0);
    const int64_t next_task_t0 = task + 1 < tasks ? (task + 1) / row_groups * kTaskPanels : -1;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t g0 = blk * kBlockGroups, gc = std::min(kBlockGroups, groups_ - g0);
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t n0 = t * kVnniPanelColumns, cols = std::min(kVnniPanelColumns, n_ - n0);
        // The panel read next (this task's next one, its next block's first, or the next task's first) comes into L2
        // meanwhile, a share per tile of rows.
        const int8_t* next = nullptr;
        int64_t next_groups = gc;
        if (t + 1 < t1) {
          next = packed_.data() + PanelOffset(blk, t + 1);
        } else if (blk + 1 < blocks) {
          next = packed_.data() + PanelOffset(blk + 1, t0);
          next_groups = std::min(kBlockGroups, groups_ - g0 - kBlockGroups);
        } else if (next_task_t0 >= 0) {
          next = packed_.data() + PanelOffset(0, next_task_t0);
          next_groups = std::min(kBlockGroups, groups_);
        }
        const int64_t next_lines = next != nullptr ? next_groups * kVnniGroupRowBytes / kSgemmLineBytes : 0;
        const int8_t* panel = packed_.data() + PanelOffset(blk, t);
        for (int64_t j = 0; j < count; ++j) {
          const SgemmRowTile rt = row_tile(m0, count, j);
          const SgemmPrefetch fetch = PrefetchShare(reinterpret_cast<const char*>(next), next_lines, j, count);
          if (blk == 0) {
            constexpr int64_t kSum = sizeof(int32_t);
            const bool next_panel = t + 1 < t1;
            PrefetchNextOutputTile([&](int64_t jj) { return row_tile(m0, count, jj); }, j, count, n_ * kSum, c + n0,
                                   cols * kSum, next_panel ? c + n0 + kVnniPanelColumns : nullptr,
                                   next_panel ? std::min(kVnniPanelColumns, n_ - n0 - kVnniPanelColumns) * kSum : 0);
          }
          kTiles[static_cast<size_t>(rt.rows - 1)](
              packed_a + rt.start * groups_ * kVnniGroupBytes + g0 * rt.rows * kVnniGroupBytes, panel, gc,
              c + rt.start * n_ + n0, n_, cols, blk == 0, start != nullptr ? start + n0 : nullptr, fetch.begin,
              fetch.lines);
        }
      }
    }
    if (epilogue != nullptr) (*epilogue)(c, n_, m0, m1, t0 * kVnniPanelColumns, std::min(n_, t1 * kVnniPanelColumns));
  });
}

}  // namespace onyx::kernels
