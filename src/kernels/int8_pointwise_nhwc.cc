#include "kernels/int8_pointwise_nhwc.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/int8_gemm_vnni.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"

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

// What a tile's epilogue needs for one panel of output channels.
struct PanelRequant {
  const int32_t* offset;  // 32 values: bias - zero point's share
  const float* scale;     // 32 values
  float low, high;        // qmin - y_zero_point, qmax - y_zero_point
  int32_t zero_point;
  // With a fused residual add (the tile's kAdd): the residual at the tile's first output, with y's row stride; the
  // add's constants; the output type's range.
  const uint8_t* residual;
  Int8ResidualAdd add;
  int32_t q_low, q_high;
};

// The tile's epilogue: the requantized convolution alone, or added to a residual as QLinearAdd's A or B.
enum class TileAdd { kNone, kConvIsA, kConvIsB };

// RequantizeValue of 16 sums (kernels/int8_requantize.h): float(acc) * scale, clamped (max keeps `low` for NaN, as
// MLAS's), rounded half to even, plus the zero point; as bytes. The conversion's own round-to-nearest-even ({rn-sae})
// gives what RequantizeValue's adding and subtracting 1.5 * 2^23 gives for the clamped |v| <= 510, in one operation
// instead of three. Each float step rounds once, as RequantizeValue's: the clamp stands between the product and
// anything after it, so nothing contracts into a fused multiply-add.
inline __m128i RequantizeLanes(__m512i acc, __m512 scale, __m512 low, __m512 high, __m512i zero_point) {
  __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
  v = _mm512_min_ps(_mm512_max_ps(v, low), high);
  const __m512i rounded = _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_cvtepi32_epi8(_mm512_add_epi32(rounded, zero_point));
}

// QLinearAdd's operations on 16 lanes (kernels/int8_qlinear_add.cc's AVX-512 loop): the inner multiply-add of B, the
// outer of A, rounding half to even (the conversion under the default rounding mode), then Q's range.
template <bool kSigned>
inline __m128i ResidualAddLanes(__m512i conv, const uint8_t* residual, __mmask16 mask, bool conv_is_a,
                                const PanelRequant& q) {
  const __m128i bytes = _mm_maskz_loadu_epi8(mask, residual);
  const __m512 r = _mm512_cvtepi32_ps(kSigned ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes));
  const __m512 c = _mm512_cvtepi32_ps(conv);
  const __m512 a = conv_is_a ? c : r, b = conv_is_a ? r : c;
  const __m512 inner = _mm512_fmadd_ps(b, _mm512_set1_ps(q.add.params.ratio_b), _mm512_set1_ps(q.add.params.fixed));
  const __m512 sum = _mm512_fmadd_ps(a, _mm512_set1_ps(q.add.params.ratio_a), inner);
  const __m512i rounded = _mm512_cvtps_epi32(sum);
  return _mm512_cvtepi32_epi8(
      _mm512_min_epi32(_mm512_max_epi32(rounded, _mm512_set1_epi32(q.q_low)), _mm512_set1_epi32(q.q_high)));
}

// The tile's kRows x 32 sums (columns past `cols` not stored) to y (row stride ldy) as the epilogue asks.
template <int kRows, TileAdd kAdd, bool kSigned>
inline void StoreConvTile(const __m512i (&acc)[kRows][2], uint8_t* y, int64_t ldy, int64_t cols,
                          const PanelRequant& q) {
  const __mmask16 mask[2] = {VnniHalfMask(cols, 0), VnniHalfMask(cols, 1)};
  const __m512 low = _mm512_set1_ps(q.low), high = _mm512_set1_ps(q.high);
  const __m512i zero_point = _mm512_set1_epi32(q.zero_point);
  __m512i offset[2];
  __m512 scale[2];
#pragma GCC unroll 2
  for (int v = 0; v < 2; ++v) {
    offset[v] = _mm512_loadu_si512(q.offset + 16 * v);
    scale[v] = _mm512_loadu_ps(q.scale + 16 * v);
  }
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      if constexpr (kAdd == TileAdd::kNone) {
        const __m128i bytes = RequantizeLanes(_mm512_add_epi32(acc[r][v], offset[v]), scale[v], low, high, zero_point);
        _mm_mask_storeu_epi8(y + r * ldy + 16 * v, mask[v], bytes);
      } else {
        // The convolution's value as its own QLinearConv output (in Q's range: the clamp comes before the zero point),
        // then the add.
        __m512 c = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(acc[r][v], offset[v])), scale[v]);
        c = _mm512_min_ps(_mm512_max_ps(c, low), high);
        const __m512i conv =
            _mm512_add_epi32(_mm512_cvt_roundps_epi32(c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zero_point);
        const __m128i bytes =
            ResidualAddLanes<kSigned>(conv, q.residual + r * ldy + 16 * v, mask[v], kAdd == TileAdd::kConvIsA, q);
        _mm_mask_storeu_epi8(y + r * ldy + 16 * v, mask[v], bytes);
      }
    }
  }
}

// The sums on their own, out through memory: inlined with the requantization's constants beside them, GCC kept the
// sums' registers by copying them around every multiply-add (66 register moves per 48 of them in the loop).
template <int kRows>
__attribute__((noinline)) void PointwiseSums(const uint8_t* ap, const int8_t* bp, int64_t groups,
                                             __m512i (&out)[kRows][2]) {
  __m512i acc[kRows][2];
  VnniTileSums<kRows>(acc, ap, bp, groups, nullptr, 0);
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
    out[r][0] = acc[r][0];
    out[r][1] = acc[r][1];
  }
}

template <int kRows, TileAdd kAdd, bool kSigned>
void PointwiseTile(const uint8_t* ap, const int8_t* bp, int64_t groups, uint8_t* y, int64_t ldy, int64_t cols,
                   const PanelRequant& q) {
  __m512i acc[kRows][2];
  PointwiseSums<kRows>(ap, bp, groups, acc);
  StoreConvTile<kRows, kAdd, kSigned>(acc, y, ldy, cols, q);
}

#pragma GCC diagnostic pop
#pragma GCC pop_options

using PointwiseTileFn = void (*)(const uint8_t*, const int8_t*, int64_t, uint8_t*, int64_t, int64_t,
                                 const PanelRequant&);

template <TileAdd kAdd, bool kSigned, int... kRows>
constexpr std::array<PointwiseTileFn, sizeof...(kRows)> MakeTiles(std::integer_sequence<int, kRows...>) {
  return {&PointwiseTile<kRows + 1, kAdd, kSigned>...};
}
using TileTable = std::array<PointwiseTileFn, kTileRows>;
constexpr TileTable kTiles = MakeTiles<TileAdd::kNone, false>(std::make_integer_sequence<int, kTileRows>());
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

bool PointwiseNhwcInt8::Supported() { return Int8VnniGemm::Supported(); }

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
  const int64_t c = g.in_channels, m = g.out_channels;
  // int8 x runs as x + 128 (uint8), so its zero point moves by 128 with it.
  const uint32_t zero_point = static_cast<uint32_t>(x_zero_point + (signed_input ? 128 : 0));
  for (int64_t o = 0; o < m; ++o) {
    uint32_t sum = 0;
    for (int64_t i = 0; i < c; ++i) {
      const int8_t w = weights[o * c + i];
      packed_[static_cast<size_t>((o / kVnniPanelColumns * groups_ + i / kVnniGroupBytes) * kVnniGroupRowBytes +
                                  o % kVnniPanelColumns * kVnniGroupBytes + i % kVnniGroupBytes)] = w;
      sum += static_cast<uint32_t>(static_cast<int32_t>(w));
    }
    // bias - zero_point * sum_c w, wrapping as the reference's int32 sums.
    const uint32_t b = bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0u;
    offset_[static_cast<size_t>(o)] = static_cast<int32_t>(b - zero_point * sum);
    scales_[static_cast<size_t>(o)] = scales.size() == 1 ? scales[0] : scales[static_cast<size_t>(o)];
  }
}

void PointwiseNhwcInt8::Run(const void* x_in, void* y_in, int threads, const void* residual,
                            const Int8ResidualAdd* add) const {
  const auto* x = static_cast<const uint8_t*>(x_in);
  auto* y = static_cast<uint8_t*>(y_in);
  const int64_t c = g_.in_channels, m = g_.out_channels;
  const int64_t pixels = g_.batch * g_.out_h * g_.out_w;
  if (pixels <= 0 || m <= 0) return;
  const bool contiguous = g_.stride_h == 1 && g_.stride_w == 1;
  const int32_t q_low = signed_output_ ? -128 : 0, q_high = signed_output_ ? 127 : 255;
  PanelRequant base{
      nullptr,       nullptr, static_cast<float>(q_low - y_zero_point_), static_cast<float>(q_high - y_zero_point_),
      y_zero_point_, nullptr, add != nullptr ? *add : Int8ResidualAdd{}, q_low,
      q_high};
  const bool with_add = add != nullptr && residual != nullptr;
  const TileTable& tiles = with_add ? kAddTiles[add->conv_is_a ? 0 : 1][signed_output_ ? 1 : 0] : kTiles;
  // Tiles of output pixels as even as they go; each thread one contiguous range of them (the same share of the image
  // as the depthwise and pooling kernels around it take).
  const int64_t tile_count = (pixels + kTileRows - 1) / kTileRows;
  const int64_t tasks = std::min<int64_t>(std::max(threads, 1), tile_count);
  RunTasks(tasks, threads, [&](int64_t task) {
    TileScratch& scratch = ThreadScratch();
    scratch.packed.resize(static_cast<size_t>(kTileRows * groups_ * kVnniGroupBytes));
    if (!contiguous) scratch.gathered.resize(static_cast<size_t>(kTileRows * c));
    for (int64_t j = task * tile_count / tasks; j < (task + 1) * tile_count / tasks; ++j) {
      const SgemmRowTile tile = EvenRowTile(pixels, tile_count, j);
      const int64_t p0 = tile.start;
      const int rows = static_cast<int>(tile.rows);
      const uint8_t* rows_at = x + p0 * c;  // stride 1: output pixel p reads input pixel p
      if (!contiguous) {
        for (int r = 0; r < rows; ++r) {
          const int64_t p = p0 + r, n = p / (g_.out_h * g_.out_w), oy = p / g_.out_w % g_.out_h, ox = p % g_.out_w;
          std::memcpy(scratch.gathered.data() + r * c,
                      x + ((n * g_.in_h + oy * g_.stride_h) * g_.in_w + ox * g_.stride_w) * c, static_cast<size_t>(c));
        }
        rows_at = scratch.gathered.data();
      }
      PackInt8Rows(rows, rows_at, c, c, signed_input_, scratch.packed.data());
      for (int64_t t = 0; t < panels_; ++t) {
        PanelRequant q = base;
        q.offset = offset_.data() + t * kVnniPanelColumns;
        q.scale = scales_.data() + t * kVnniPanelColumns;
        if (with_add) q.residual = static_cast<const uint8_t*>(residual) + p0 * m + t * kVnniPanelColumns;
        tiles[static_cast<size_t>(rows - 1)](scratch.packed.data(), packed_.data() + t * groups_ * kVnniGroupRowBytes,
                                             groups_, y + p0 * m + t * kVnniPanelColumns, m,
                                             std::min(kVnniPanelColumns, m - t * kVnniPanelColumns), q);
      }
    }
  });
}

}  // namespace onyx::kernels
