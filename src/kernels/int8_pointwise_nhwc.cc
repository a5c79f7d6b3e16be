#include "kernels/int8_pointwise_nhwc.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/int8_gemm_vnni.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"
#include "kernels/tuning_cache.h"

namespace onyx::kernels {
namespace {

constexpr int kTileRows = kSgemmPackedRowsMax;  // 14 pixels: 28 sums in registers

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni")
// GCC 12 warns inside its own AVX-512 headers here: their conversions and min/max pass a deliberately uninitialized
// source (_mm512_undefined_ps, `__Y = __Y`) for the lanes no mask keeps, which it flags once they inline into a
// target region of a template. Nothing of ours is uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/int8_vnni_tile_sums.inc"
// After the K loop (it uses its VnniHalfMask).
#include "kernels/int8_vnni_conv_epilogue.inc"

// The sums on their own, out through memory: inlined with the requantization's constants beside them, GCC kept the
// sums' registers by copying them around every multiply-add (66 register moves per 48 of them in the loop).
template <int kRows>
__attribute__((noinline)) void PointwiseSums(const uint8_t* ap, const int8_t* bp, int64_t groups, const int32_t* start,
                                             const char* prefetch, int64_t prefetch_lines, __m512i (&out)[kRows][2]) {
  __m512i acc[kRows][2];
  VnniTileSums<kRows>(acc, ap, bp, groups, start, prefetch, prefetch_lines);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    out[r][0] = acc[r][0];
    out[r][1] = acc[r][1];
  }
}

// One group step of the tiles reading uint8 rows in place: the panel's group row `b_row` (its groups 8 ahead into
// L1) times the 4 bytes of each of the tile's rows, rows 3k + i at base[k] + i * lda; the bases then advance a group.
template <int kRows, int kBases>
__attribute__((always_inline)) inline void InPlaceGroup(__m512i (&acc)[kRows][2], const uint8_t* (&base)[kBases],
                                                        int64_t lda, const int8_t* b_row) {
  using Unaligned32 = int32_t __attribute__((may_alias, aligned(1)));
  _mm_prefetch(reinterpret_cast<const char*>(b_row + 8 * kVnniGroupRowBytes), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(b_row + 8 * kVnniGroupRowBytes + 64), _MM_HINT_T0);
  const __m512i b0 = _mm512_loadu_si512(b_row);
  const __m512i b1 = _mm512_loadu_si512(b_row + 64);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    const __m512i a = _mm512_set1_epi32(*reinterpret_cast<const Unaligned32*>(base[r / 3] + r % 3 * lda));
    acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a, b0);
    acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a, b1);
  }
#pragma GCC unroll 5
  for (int k = 0; k < kBases; ++k) base[k] += kVnniGroupBytes;
}

// PointwiseSums with the tile's rows read where they lie instead of packed: row r's group g at x + r * lda + 4 g (a
// uint8 image, stride 1, C a multiple of 4). Rows 3k + i are addressed as base k plus i * lda, so that five bases and
// the stride stay in general registers. Packing a tile's rows had cost as much as a panel's products where C is large
// and M small (ResNet-50's 256 -> 64 layer: 0.129 -> 0.113 ms).
template <int kRows>
__attribute__((noinline)) void PointwiseSumsInPlace(const uint8_t* x, int64_t lda, const int8_t* bp, int64_t groups,
                                                    const int32_t* start, const char* prefetch, int64_t prefetch_lines,
                                                    __m512i (&out)[kRows][2]) {
  constexpr int kBases = (kRows + 2) / 3;
  __m512i acc[kRows][2];
  const __m512i start0 = _mm512_loadu_si512(start), start1 = _mm512_loadu_si512(start + 16);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    acc[r][0] = start0;
    acc[r][1] = start1;
  }
  const uint8_t* base[kBases];
#pragma GCC unroll 5
  for (int k = 0; k < kBases; ++k) base[k] = x + 3 * k * lda;
  const auto step = [&](int64_t g) __attribute__((always_inline)) {
    InPlaceGroup<kRows, kBases>(acc, base, lda, bp + g * kVnniGroupRowBytes);
  };
  int64_t g = 0;
  for (const int64_t fetch = std::min(groups, prefetch_lines); g < fetch; ++g) {
    _mm_prefetch(prefetch + g * kSgemmLineBytes, _MM_HINT_T1);
    step(g);
  }
#pragma GCC unroll 2
  for (; g < groups; ++g) step(g);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    out[r][0] = acc[r][0];
    out[r][1] = acc[r][1];
  }
}

// The tile's rows: packed at `ap` (lda 0) or in place with row stride lda. Meanwhile `prefetch_lines` lines from
// `prefetch` go to L2 (the next panel's weights; none: 0).
template <int kRows, TileAdd kAdd, bool kSigned>
void PointwiseTile(const uint8_t* ap, int64_t lda, const int8_t* bp, int64_t groups, uint8_t* y, int64_t ldy,
                   int64_t cols, const PanelRequant& q, const char* prefetch, int64_t prefetch_lines) {
  __m512i acc[kRows][2];
  if (lda > 0) {
    PointwiseSumsInPlace<kRows>(ap, lda, bp, groups, q.offset, prefetch, prefetch_lines, acc);
  } else {
    PointwiseSums<kRows>(ap, bp, groups, q.offset, prefetch, prefetch_lines, acc);
  }
  StoreConvTile<kRows, kAdd, kSigned>(acc, y, ldy, cols, q);
}

// The 1x1 convolution software-pipelined (x read in place, tiles of 10 pixels x 32 output channels): each tile's
// epilogue (requantization, the residual add where fused, narrowing: up to ~14 operations per 16 outputs, most of them
// on the pipes vpdpbusd does not use) runs row by row between the next tile's multiply-adds instead of after its own
// sums, where it left those pipes idle. The previous tile's sums wait in L1 (two buffers). 10 rows: their 20 sums,
// the two weight vectors and the epilogue's constants and temporaries fit the 32 registers (no spill). The same
// operations per value as StoreConvTile's, so the same bytes. Full panels only (M's last partial panel: the tiles).
constexpr int kPipeRows = 10;

// Tasks for `team` threads over `units` tiles: each thread's share in up to 4 parts of 8+ tiles where there are that
// many, so that a thread done early takes over parts of a slower one's (RunTasks); one share per thread otherwise.
int64_t SharesInParts(int64_t team, int64_t units) {
  constexpr int64_t kPartsPerShare = 4, kMinTilesPerPart = 8;
  return team > 1 ? team * std::clamp<int64_t>(units / team / kMinTilesPerPart, 1, kPartsPerShare) : team;
}

struct PipelineJob {
  const uint8_t* x;  // uint8 image, pixel stride lda (the input channels, a multiple of 4)
  int64_t lda;
  const int8_t* packed;  // the panels' weights
  int64_t panel_bytes, groups, panels;
  uint8_t* y;               // pixel stride m
  const uint8_t* residual;  // pixel stride m, or null without an add
  int64_t m;
  const int32_t* offset;  // [panels * 32]
  const float* scale;     // [panels * 32]
  PanelRequant q;         // clamp bounds, zero point, the add's constants
};

// Tiles of pixels p_begin + 10 j (j < tiles), each over the job's panels in turn.
template <TileAdd kAdd, bool kSigned>
__attribute__((noinline)) void PipelinedTiles(const PipelineJob& job, int64_t p_begin, int64_t tiles) {
  constexpr bool kWithAdd = kAdd == TileAdd::kConvIsA || kAdd == TileAdd::kConvIsB;
  alignas(64) int32_t sums[2][kPipeRows][32];
  const __m512 low = _mm512_set1_ps(job.q.low), high = _mm512_set1_ps(job.q.high);
  const __m512 zero_point = _mm512_set1_ps(static_cast<float>(job.q.zero_point));
  const __m512i zero_point_i = _mm512_set1_epi32(job.q.zero_point);
  const __m512 ratio_a = _mm512_set1_ps(job.q.add.params.ratio_a), ratio_b = _mm512_set1_ps(job.q.add.params.ratio_b);
  const __m512 fixed = _mm512_set1_ps(job.q.add.params.fixed);
  const int64_t lda = job.lda, m = job.m, groups = job.groups;
  const int64_t steps = tiles * job.panels;
  // The previous tile's outputs (and residual) at its first row, and its panel's scales.
  uint8_t* prev_y = nullptr;
  const uint8_t* prev_residual = nullptr;
  const float* prev_scale = nullptr;
  const auto row_epilogue = [&](const int32_t* s, int64_t r) __attribute__((always_inline)) {
    uint8_t* out_row = prev_y + r * m;
    if constexpr (kAdd == TileAdd::kNone) {
#pragma GCC unroll 2
      for (int v = 0; v < 2; ++v) {
        const __m512i out = RequantizeLanes(_mm512_load_si512(s + 16 * v), _mm512_loadu_ps(prev_scale + 16 * v), low,
                                            high, zero_point_i);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out_row + 16 * v), _mm512_cvtepi32_epi8(out));
      }
    } else {
      __m512i out[2];
#pragma GCC unroll 2
      for (int v = 0; v < 2; ++v) {
        const __m512i acc = _mm512_load_si512(s + 16 * v);
        const __m512 scale = _mm512_loadu_ps(prev_scale + 16 * v);
        if constexpr (kWithAdd) {
          const __m512 conv = RequantizeLanesAsFloat(acc, scale, low, high, zero_point);
          const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(prev_residual + r * m + 16 * v));
          const __m512 res = _mm512_cvtepi32_ps(kSigned ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes));
          const __m512 a = kAdd == TileAdd::kConvIsA ? conv : res, b = kAdd == TileAdd::kConvIsA ? res : conv;
          out[v] = _mm512_cvtps_epi32(_mm512_fmadd_ps(a, ratio_a, _mm512_fmadd_ps(b, ratio_b, fixed)));
        } else {
          out[v] = RoundedPlusZeroPoint(Scaled(acc, scale), zero_point_i);
        }
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_row), NarrowRow<kSigned>(out[0], out[1]));
    }
  };
  for (int64_t step = 0; step <= steps; ++step) {
    const int32_t* prev_sums = sums[(step + 1) & 1][0];
    if (step == steps) {
      for (int64_t r = 0; r < kPipeRows; ++r) row_epilogue(prev_sums + r * 32, r);
      break;
    }
    const int64_t j = step / job.panels, t = step % job.panels;
    const int64_t p0 = p_begin + j * kPipeRows;
    const int8_t* bp = job.packed + t * job.panel_bytes;
    __m512i acc[kPipeRows][2];
    const __m512i start0 = _mm512_loadu_si512(job.offset + t * 32);
    const __m512i start1 = _mm512_loadu_si512(job.offset + t * 32 + 16);
#pragma GCC unroll 12
    for (int r = 0; r < kPipeRows; ++r) {
      acc[r][0] = start0;
      acc[r][1] = start1;
    }
    constexpr int kBases = (kPipeRows + 2) / 3;  // rows 3k + i at base k plus i * lda
    const uint8_t* base[kBases];
#pragma GCC unroll 4
    for (int k = 0; k < kBases; ++k) base[k] = job.x + (p0 + 3 * k) * lda;
    if (step + 1 < steps) {
      // The next tile's output rows of its panel for writing (and its residual rows, where apart), while this one
      // computes: its epilogue runs two tiles from now. A model's output buffer was last written a whole run
      // earlier (the 14-pixel tiles' PrefetchTileRows); all panels' rows at once stalled on the fill buffers.
      const int64_t next_p = p_begin + (step + 1) / job.panels * kPipeRows, next_t = (step + 1) % job.panels;
#pragma GCC unroll 12
      for (int r = 0; r < kPipeRows; ++r) {
        const int64_t at = (next_p + r) * m + next_t * 32;
        __builtin_prefetch(job.y + at, 1, 3);
        if (kWithAdd && job.residual != job.y) __builtin_prefetch(job.residual + at, 0, 3);
      }
    }
    const auto group_step = [&](int64_t g) __attribute__((always_inline)) {
      InPlaceGroup<kPipeRows, kBases>(acc, base, lda, bp + g * kVnniGroupRowBytes);
    };
    // The groups in kPipeRows runs, each followed by one of the previous tile's rows.
    int64_t g = 0;
    for (int64_t r = 0; r < kPipeRows; ++r) {
#pragma GCC unroll 2
      for (const int64_t g_end = (r + 1) * groups / kPipeRows; g < g_end; ++g) group_step(g);
      if (step > 0) row_epilogue(prev_sums + r * 32, r);
    }
    int32_t* own = sums[step & 1][0];
#pragma GCC unroll 12
    for (int r = 0; r < kPipeRows; ++r) {
      _mm512_store_si512(own + r * 32, acc[r][0]);
      _mm512_store_si512(own + r * 32 + 16, acc[r][1]);
    }
    prev_y = job.y + p0 * m + t * 32;
    prev_residual = kWithAdd ? job.residual + p0 * m + t * 32 : nullptr;
    prev_scale = job.scale + t * 32;
  }
}

using PipelineFn = void (*)(const PipelineJob&, int64_t, int64_t);
// [kNone, kNoneByPacks, kConvIsA, kConvIsB][signed output]
constexpr PipelineFn kPipelines[4][2] = {
    {&PipelinedTiles<TileAdd::kNone, false>, &PipelinedTiles<TileAdd::kNone, true>},
    {&PipelinedTiles<TileAdd::kNoneByPacks, false>, &PipelinedTiles<TileAdd::kNoneByPacks, true>},
    {&PipelinedTiles<TileAdd::kConvIsA, false>, &PipelinedTiles<TileAdd::kConvIsA, true>},
    {&PipelinedTiles<TileAdd::kConvIsB, false>, &PipelinedTiles<TileAdd::kConvIsB, true>}};

#pragma GCC diagnostic pop
#pragma GCC pop_options

using PointwiseTileFn = void (*)(const uint8_t*, int64_t, const int8_t*, int64_t, uint8_t*, int64_t, int64_t,
                                 const PanelRequant&, const char*, int64_t);

template <TileAdd kAdd, bool kSigned, int... kRows>
constexpr std::array<PointwiseTileFn, sizeof...(kRows)> MakeTiles(std::integer_sequence<int, kRows...>) {
  return {&PointwiseTile<kRows + 1, kAdd, kSigned>...};
}
using TileTable = std::array<PointwiseTileFn, kTileRows>;
constexpr TileTable kTiles = MakeTiles<TileAdd::kNone, false>(std::make_integer_sequence<int, kTileRows>());
// [signed output]: without an add, narrowed by saturating packs (ScalesNarrowByPacks).
constexpr TileTable kTilesByPacks[2] = {
    MakeTiles<TileAdd::kNoneByPacks, false>(std::make_integer_sequence<int, kTileRows>()),
    MakeTiles<TileAdd::kNoneByPacks, true>(std::make_integer_sequence<int, kTileRows>())};
// [conv is B][signed output]: the tiles with a residual add.
constexpr TileTable kAddTiles[2][2] = {
    {MakeTiles<TileAdd::kConvIsA, false>(std::make_integer_sequence<int, kTileRows>()),
     MakeTiles<TileAdd::kConvIsA, true>(std::make_integer_sequence<int, kTileRows>())},
    {MakeTiles<TileAdd::kConvIsB, false>(std::make_integer_sequence<int, kTileRows>()),
     MakeTiles<TileAdd::kConvIsB, true>(std::make_integer_sequence<int, kTileRows>())}};

// Per calling thread: a tile's packed input rows, and its gathered rows where the stride skips pixels.
struct TileScratch {
  std::vector<uint8_t> packed, gathered;
};
TileScratch& ThreadScratch() {
  thread_local TileScratch scratch;
  return scratch;
}

}  // namespace

void PackVnniConvWeights(const int8_t* weights, int64_t m, int64_t c, int64_t taps, const int32_t* bias,
                         const std::vector<float>& scales, int32_t x_zero_point, bool signed_input, int8_t* packed,
                         int32_t* offset, float* scale) {
  const int64_t groups = (c + kVnniGroupBytes - 1) / kVnniGroupBytes;
  const uint32_t zero_point = static_cast<uint32_t>(x_zero_point + (signed_input ? 128 : 0));
  for (int64_t o = 0; o < m; ++o) {
    uint32_t sum = 0;
    for (int64_t i = 0; i < c; ++i) {
      for (int64_t t = 0; t < taps; ++t) {
        const int8_t w = weights[(o * c + i) * taps + t];
        const int64_t group_row = (o / kVnniPanelColumns * taps + t) * groups + i / kVnniGroupBytes;
        packed[group_row * kVnniGroupRowBytes + o % kVnniPanelColumns * kVnniGroupBytes + i % kVnniGroupBytes] = w;
        sum += static_cast<uint32_t>(static_cast<int32_t>(w));
      }
    }
    const uint32_t b = bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0u;
    offset[o] = static_cast<int32_t>(b - zero_point * sum);
    scale[o] = scales.size() == 1 ? scales[0] : scales[static_cast<size_t>(o)];
  }
}

bool ScalesNarrowByPacks(const std::vector<float>& scales) {
  for (float s : scales) {
    if (!(std::fabs(s) <= 0.5f)) return false;  // NaN too
  }
  return true;
}

void TileInputRows(const uint8_t* image, int64_t p0, int count, int64_t out_h, int64_t out_w, int64_t in_h,
                   int64_t in_w, int64_t stride_h, int64_t stride_w, int64_t pixel_bytes, const uint8_t** rows) {
  int64_t ox = p0 % out_w, oy = p0 / out_w % out_h, n = p0 / (out_w * out_h);
  for (int r = 0; r < count; ++r) {
    rows[r] = image + ((n * in_h + oy * stride_h) * in_w + ox * stride_w) * pixel_bytes;
    if (++ox == out_w) {
      ox = 0;
      if (++oy == out_h) {
        oy = 0;
        ++n;
      }
    }
  }
}

bool PointwiseNhwcInt8::Supported() { return Int8VnniGemm::Supported(); }

void PointwiseNhwcInt8::EvictWeights() const { FlushFromCaches(packed_.data(), packed_.size()); }

PointwiseNhwcInt8::PointwiseNhwcInt8(const PointwiseNhwcGeometry& g, const int8_t* weights, const int32_t* bias,
                                     const std::vector<float>& scales, int32_t x_zero_point, bool signed_input,
                                     int32_t y_zero_point, bool signed_output)
    : g_(g),
      groups_((g.in_channels + kVnniGroupBytes - 1) / kVnniGroupBytes),
      panels_((g.out_channels + kVnniPanelColumns - 1) / kVnniPanelColumns),
      packed_(static_cast<size_t>(panels_ * groups_ * kVnniGroupRowBytes), 0),
      offset_(static_cast<size_t>(panels_ * kVnniPanelColumns), 0),
      scales_(static_cast<size_t>(panels_ * kVnniPanelColumns), 0.0f),
      y_zero_point_(y_zero_point),
      signed_input_(signed_input),
      signed_output_(signed_output) {
  narrow_by_packs_ = ScalesNarrowByPacks(scales);
  PackVnniConvWeights(weights, g.out_channels, g.in_channels, 1, bias, scales, x_zero_point, signed_input,
                      packed_.data(), offset_.data(), scales_.data());
}

bool PointwiseNhwcInt8::ReadsRowsInPlace() const {
  return g_.stride_h == 1 && g_.stride_w == 1 && !signed_input_ && g_.in_channels % kVnniGroupBytes == 0;
}

bool PointwiseNhwcInt8::PipelinedTilesApply() const {
  const bool weights_in_l2 = panels_ * groups_ * kVnniGroupRowBytes <= L2CacheBytes() / 2;
  return ReadsRowsInPlace() && weights_in_l2 && g_.out_channels >= kVnniPanelColumns;
}

void PointwiseNhwcInt8::Run(const void* x_in, void* y_in, int threads, const void* residual,
                            const Int8ResidualAdd* add) const {
  const auto* x = static_cast<const uint8_t*>(x_in);
  auto* y = static_cast<uint8_t*>(y_in);
  const int64_t c = g_.in_channels, m = g_.out_channels;
  const int64_t pixels = g_.batch * g_.out_h * g_.out_w;
  if (pixels <= 0 || m <= 0) return;
  const bool contiguous = g_.stride_h == 1 && g_.stride_w == 1;
  // The tiles read uint8 rows of whole groups where they lie (PointwiseSumsInPlace); int8 x is shifted and strided or
  // ragged rows gathered, packed per tile.
  const bool in_place = ReadsRowsInPlace();
  const PanelRequant base = BasePanelRequant(signed_output_, y_zero_point_, add);
  const bool with_add = add != nullptr && residual != nullptr;
  const TileTable& tiles = with_add           ? kAddTiles[add->conv_is_a ? 0 : 1][signed_output_ ? 1 : 0]
                           : narrow_by_packs_ ? kTilesByPacks[signed_output_ ? 1 : 0]
                                              : kTiles;
  // Tiles of output pixels as even as they go; each thread one contiguous share of them (the same share of the image
  // as the depthwise and pooling kernels around it take), run in parts where a slower thread's may be taken over.
  const int64_t tile_count = (pixels + kTileRows - 1) / kTileRows;
  const int64_t team = std::min<int64_t>(std::max(threads, 1), tile_count);
  const int64_t row_bytes = groups_ * kVnniGroupBytes;  // one pixel's packed input
  const int64_t panel_bytes = groups_ * kVnniGroupRowBytes;
  auto requant = [&](int64_t t, int64_t p0) {
    PanelRequant q = base;
    q.offset = offset_.data() + t * kVnniPanelColumns;
    q.scale = scales_.data() + t * kVnniPanelColumns;
    if (with_add) q.residual = static_cast<const uint8_t*>(residual) + p0 * m + t * kVnniPanelColumns;
    return q;
  };
  // A tile's output rows (for writing) and residual rows.
  auto prefetch_rows = [&](const SgemmRowTile& tile) {
    PrefetchTileRows(tile, y, m, m, true);
    if (with_add) PrefetchTileRows(tile, residual, m, m, false);
  };
  // Tile j's input rows packed at `packed` (gathered first where the stride skips pixels).
  auto pack_tile = [&](TileScratch& scratch, const SgemmRowTile& tile, uint8_t* packed) {
    const int rows = static_cast<int>(tile.rows);
    const uint8_t* rows_at = x + tile.start * c;  // stride 1: output pixel p reads input pixel p
    if (!contiguous) {
      const uint8_t* pixel[kTileRows];
      TileInputRows(x, tile.start, rows, g_.out_h, g_.out_w, g_.in_h, g_.in_w, g_.stride_h, g_.stride_w, c, pixel);
      for (int r = 0; r < rows; ++r) std::memcpy(scratch.gathered.data() + r * c, pixel[r], static_cast<size_t>(c));
      rows_at = scratch.gathered.data();
    }
    PackInt8Rows(rows, rows_at, c, c, signed_input_, packed);
  };
  // Weights that do not stay in L2 from one tile to the next (ResNet-50's layer-4 1x1 convolutions, 1-2 MB, read
  // from memory in a model): a chunk of tiles (their packed rows within a quarter of L2) goes over each panel in
  // turn, so the weights stream once per chunk, the next panel's into L2 a share per tile; otherwise each tile goes
  // over every panel (the weights stay in cache).
  const bool panels_outer = panels_ * panel_bytes > L2CacheBytes() / 2;
  // Software-pipelined tiles (PipelinedTiles) where x is read in place and the weights stay in L2; M's last partial
  // panel, and pixels past a thread's last full 10-pixel tile, by the tiles below.
  if (pipelined_tiles_ && PipelinedTilesApply()) {
    const int64_t full_panels = m / kVnniPanelColumns, last_cols = m % kVnniPanelColumns;
    const PipelineJob job{x,
                          c,
                          packed_.data(),
                          panel_bytes,
                          groups_,
                          full_panels,
                          y,
                          static_cast<const uint8_t*>(residual),
                          m,
                          offset_.data(),
                          scales_.data(),
                          base};
    const int kind = with_add ? (add->conv_is_a ? 2 : 3) : narrow_by_packs_ ? 1 : 0;
    const PipelineFn pipeline = kPipelines[kind][signed_output_ ? 1 : 0];
    // Each thread an even share of the pixels (the last thread taking every pixel past the full tiles had left 2
    // threads 20 and 29 of a 7x7 map's 49), in parts (SharesInParts; the weights stay in L2 from part to part): each
    // part's full tiles pipelined, the rest of the part (under 10 pixels) and the partial panel's columns by the
    // 14-pixel tiles.
    const int64_t pipe_team =
        std::clamp<int64_t>(std::min<int64_t>(threads, pixels / kPipeRows), 1, std::max(threads, 1));
    const int64_t parts = SharesInParts(pipe_team, pixels / kPipeRows);
    RunTasks(parts, static_cast<int>(pipe_team), [&](int64_t task) {
      const int64_t q0 = pixels * task / parts, q1 = pixels * (task + 1) / parts;
      const int64_t full = (q1 - q0) / kPipeRows, rest = q0 + full * kPipeRows;
      if (full > 0) pipeline(job, q0, full);
      const auto run = [&](int64_t p0, int64_t p1, int64_t t, int64_t cols) {
        for (int64_t p = p0; p < p1; p += kTileRows) {
          const int rows = static_cast<int>(std::min<int64_t>(kTileRows, p1 - p));
          tiles[static_cast<size_t>(rows - 1)](x + p * c, c, packed_.data() + t * panel_bytes, groups_,
                                               y + p * m + t * kVnniPanelColumns, m, cols, requant(t, p), nullptr, 0);
        }
      };
      for (int64_t t = 0; t < full_panels; ++t) run(rest, q1, t, kVnniPanelColumns);
      if (last_cols > 0) run(q0, q1, full_panels, last_cols);
    });
    return;
  }
  // Weights that stay in L2: each share in parts (SharesInParts); streamed ones (panels_outer) are read once per chunk
  // of a thread's tiles: one range per thread.
  const int64_t tasks = panels_outer ? team : SharesInParts(team, tile_count);
  RunTasks(tasks, static_cast<int>(team), [&](int64_t task) {
    TileScratch& scratch = ThreadScratch();
    if (!contiguous) scratch.gathered.resize(static_cast<size_t>(kTileRows * c));
    const int64_t j_begin = task * tile_count / tasks, j_end = (task + 1) * tile_count / tasks;
    if (!panels_outer) {
      scratch.packed.resize(static_cast<size_t>(kTileRows * row_bytes));
      for (int64_t j = j_begin; j < j_end; ++j) {
        const SgemmRowTile tile = EvenRowTile(pixels, tile_count, j);
        const int64_t p0 = tile.start;
        const int rows = static_cast<int>(tile.rows);
        if (j + 1 < j_end) prefetch_rows(EvenRowTile(pixels, tile_count, j + 1));  // while this tile computes
        if (!in_place) pack_tile(scratch, tile, scratch.packed.data());
        const uint8_t* a = in_place ? x + p0 * c : scratch.packed.data();
        for (int64_t t = 0; t < panels_; ++t) {
          tiles[static_cast<size_t>(rows - 1)](
              a, in_place ? c : 0, packed_.data() + t * panel_bytes, groups_, y + p0 * m + t * kVnniPanelColumns, m,
              std::min(kVnniPanelColumns, m - t * kVnniPanelColumns), requant(t, p0), nullptr, 0);
        }
      }
      return;
    }
    const int64_t chunk =
        std::clamp<int64_t>(L2CacheBytes() / 4 / (kTileRows * row_bytes), 1, std::max<int64_t>(1, j_end - j_begin));
    scratch.packed.resize(static_cast<size_t>(chunk * kTileRows * row_bytes));
    for (int64_t j0 = j_begin; j0 < j_end; j0 += chunk) {
      const int64_t n_tiles = std::min(chunk, j_end - j0);
      for (int64_t i = 0; i < n_tiles; ++i) {
        const SgemmRowTile tile = EvenRowTile(pixels, tile_count, j0 + i);
        prefetch_rows(tile);
        if (!in_place) pack_tile(scratch, tile, scratch.packed.data() + i * kTileRows * row_bytes);
      }
      for (int64_t t = 0; t < panels_; ++t) {
        const bool last = t + 1 == panels_;
        const char* next = last ? nullptr : reinterpret_cast<const char*>(packed_.data() + (t + 1) * panel_bytes);
        const int64_t next_lines = last ? 0 : panel_bytes / kSgemmLineBytes;
        for (int64_t i = 0; i < n_tiles; ++i) {
          const SgemmRowTile tile = EvenRowTile(pixels, tile_count, j0 + i);
          const SgemmPrefetch fetch = PrefetchShare(next, next_lines, i, n_tiles);
          tiles[static_cast<size_t>(tile.rows - 1)](
              in_place ? x + tile.start * c : scratch.packed.data() + i * kTileRows * row_bytes, in_place ? c : 0,
              packed_.data() + t * panel_bytes, groups_, y + tile.start * m + t * kVnniPanelColumns, m,
              std::min(kVnniPanelColumns, m - t * kVnniPanelColumns), requant(t, tile.start), fetch.begin, fetch.lines);
        }
      }
    }
  });
}

}  // namespace onyx::kernels
