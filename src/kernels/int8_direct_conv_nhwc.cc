#include "kernels/int8_direct_conv_nhwc.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/int8_gemm_vnni.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"
#include "kernels/thread_buffers.h"
#include "kernels/tuning_cache.h"

namespace onyx::kernels {
namespace {

// The VNNI tile: 14 output pixels times 32 output channels (two vectors), 28 sums in registers. Measured against 6 x 64
// (four vectors: fewer broadcasts per multiply-add): the same on ResNet-50's 3x3 layers with 64-128 channels, 14 x 32
// 10-20% faster with 256-512 (Sapphire Rapids capped to VNNI).
constexpr int kTileRows = kSgemmPackedRowsMax;
constexpr int kVectors = 2;
constexpr int64_t kPanelColumns = kVnniPanelColumns;
constexpr int64_t kGroupRowBytes = kVnniGroupRowBytes;

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vnni")
// As in int8_pointwise_nhwc.cc: GCC 12 flags its own AVX-512 headers' deliberately undefined sources once they inline
// into a target region of a template.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/int8_vnni_tile_sums.inc"
// After the K loop (it uses its VnniHalfMask).
#include "kernels/int8_vnni_conv_epilogue.inc"

// io[r][v] (+)= sum over the `taps` taps t and groups g of the 4 bytes at rows[r] + tap_offsets[t] + 4 g times the 4
// int8 of each of the 16 columns of the packed weights' group row (bp: [tap][group][32][4], half v), starting from
// start[16 v..] (the panel's offset) where `start` is not null, else from io. Each byte group is broadcast straight
// from the image. Not inlined, as int8_pointwise_nhwc.cc's PointwiseSums, so that the sums keep their registers through
// the loop.
template <int kRows>
__attribute__((noinline)) void DirectSums(const uint8_t* const* rows, const int64_t* tap_offsets, int64_t taps,
                                          int64_t tap_groups, const int8_t* bp, void* io_at, const int32_t* start,
                                          const char* prefetch, int64_t prefetch_lines) {
  using Unaligned32 = int32_t __attribute__((may_alias, aligned(1)));
  auto& io = *reinterpret_cast<__m512i(*)[kRows][kVectors]>(io_at);
  __m512i acc[kRows][kVectors];
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[r][v] = start != nullptr ? _mm512_loadu_si512(start + 16 * v) : io[r][v];
  }
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t offset = tap_offsets[t];
    const uint8_t* a[kRows];
#pragma GCC unroll 14
    for (int r = 0; r < kRows; ++r) a[r] = rows[r] + offset;
    const int8_t* b = bp + t * tap_groups * kGroupRowBytes;
    for (int64_t g = 0; g < tap_groups; ++g, b += kGroupRowBytes) {
      if (prefetch_lines > 0) {  // the next chunk's weights into L2, two lines per group step
        _mm_prefetch(prefetch, _MM_HINT_T1);
        _mm_prefetch(prefetch + kSgemmLineBytes, _MM_HINT_T1);
        prefetch += 2 * kSgemmLineBytes;
        prefetch_lines -= 2;
      }
      __m512i w[kVectors];
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) w[v] = _mm512_loadu_si512(b + 64 * v);
#pragma GCC unroll 14
      for (int r = 0; r < kRows; ++r) {
        const __m512i x = _mm512_set1_epi32(*reinterpret_cast<const Unaligned32*>(a[r] + g * kVnniGroupBytes));
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x, w[v]);
      }
    }
  }
#pragma GCC unroll 14
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) io[r][v] = acc[r][v];
  }
}

// A tile's sums (io: [kRows][2]) requantized, added where asked, stored.
template <int kRows, TileAdd kAdd, bool kSigned>
void DirectStore(const void* io_at, uint8_t* y, int64_t ldy, int64_t cols, const PanelRequant& q) {
  StoreConvTile<kRows, kAdd, kSigned>(*reinterpret_cast<const __m512i(*)[kRows][kVectors]>(io_at), y, ldy, cols, q);
}

#pragma GCC diagnostic pop
#pragma GCC pop_options

// The sums' buffer goes as void* (a __m512i in a function pointer's type drops its alignment attribute).
using SumsFn = void (*)(const uint8_t* const*, const int64_t*, int64_t, int64_t, const int8_t*, void*, const int32_t*,
                        const char*, int64_t);
using StoreFn = void (*)(const void*, uint8_t*, int64_t, int64_t, const PanelRequant&);

template <int... kRows>
constexpr std::array<SumsFn, sizeof...(kRows)> MakeSums(std::integer_sequence<int, kRows...>) {
  return {&DirectSums<kRows + 1>...};
}
template <TileAdd kAdd, bool kSigned, int... kRows>
constexpr std::array<StoreFn, sizeof...(kRows)> MakeStores(std::integer_sequence<int, kRows...>) {
  return {&DirectStore<kRows + 1, kAdd, kSigned>...};
}
constexpr std::array<SumsFn, kTileRows> kSums = MakeSums(std::make_integer_sequence<int, kTileRows>());
using StoreTable = std::array<StoreFn, kTileRows>;
constexpr StoreTable kStores = MakeStores<TileAdd::kNone, false>(std::make_integer_sequence<int, kTileRows>());
// [signed output]: without an add, narrowed by saturating packs (ScalesNarrowByPacks).
constexpr StoreTable kStoresByPacks[2] = {
    MakeStores<TileAdd::kNoneByPacks, false>(std::make_integer_sequence<int, kTileRows>()),
    MakeStores<TileAdd::kNoneByPacks, true>(std::make_integer_sequence<int, kTileRows>())};
// [conv is B][signed output]: the stores with a residual add.
constexpr StoreTable kAddStores[2][2] = {
    {MakeStores<TileAdd::kConvIsA, false>(std::make_integer_sequence<int, kTileRows>()),
     MakeStores<TileAdd::kConvIsA, true>(std::make_integer_sequence<int, kTileRows>())},
    {MakeStores<TileAdd::kConvIsB, false>(std::make_integer_sequence<int, kTileRows>()),
     MakeStores<TileAdd::kConvIsB, true>(std::make_integer_sequence<int, kTileRows>())}};

// Tiles gone over together, a chunk of taps at a time, so that the chunk's weights are read from L1 by each of them.
constexpr int kBlockTiles = 4;

int64_t RoundUp4(int64_t v) { return (v + kVnniGroupBytes - 1) / kVnniGroupBytes * kVnniGroupBytes; }

// Bytes past the padded image's end: the last window row of a row tap reads up to 3 of them (times weights 0).
constexpr int64_t kCopySlack = kVnniGroupBytes;

}  // namespace

bool DirectConvNhwcInt8::Supported() { return Int8VnniGemm::Supported(); }

void DirectConvNhwcInt8::EvictWeights() const { FlushFromCaches(packed_.data(), packed_.size()); }

DirectConvNhwcInt8::DirectConvNhwcInt8(const DirectConvNhwcGeometry& g, const int8_t* weights, const int32_t* bias,
                                       const std::vector<float>& scales, int32_t x_zero_point, bool signed_input,
                                       int32_t y_zero_point, bool signed_output)
    : g_(g),
      row_taps_(RowTapsPay(g)),
      channels_(row_taps_ ? g.in_channels : RoundUp4(g.in_channels)),
      tap_groups_(row_taps_ ? RoundUp4(g.kernel_w * g.in_channels) / kVnniGroupBytes : channels_ / kVnniGroupBytes),
      taps_(row_taps_ ? g.kernel_h : g.kernel_h * g.kernel_w),
      panels_((g.out_channels + kPanelColumns - 1) / kPanelColumns),
      x_zero_point_(x_zero_point),
      y_zero_point_(y_zero_point),
      signed_input_(signed_input),
      signed_output_(signed_output) {
  // The rows and columns of the image the windows reach (from the first padded one).
  const int64_t reach_h = (g.out_h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
  const int64_t reach_w = (g.out_w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
  // Row taps read up to 3 bytes past a window's row (weights 0): always from the copy, which has room for them.
  copy_input_ = g.pad_top != 0 || g.pad_left != 0 || reach_h - g.pad_top > g.in_h || reach_w - g.pad_left > g.in_w ||
                signed_input || channels_ != g.in_channels || row_taps_;
  src_h_ = copy_input_ ? reach_h : g.in_h;
  src_w_ = copy_input_ ? reach_w : g.in_w;
  offset_.assign(static_cast<size_t>(panels_ * kPanelColumns), 0);
  scales_.assign(static_cast<size_t>(panels_ * kPanelColumns), 0.0f);
  packed_.assign(static_cast<size_t>(panels_ * taps_ * tap_groups_ * kGroupRowBytes), 0);
  const int64_t m = g.out_channels, c = g.in_channels, kh_n = g.kernel_h, kw_n = g.kernel_w;
  // Row taps: a window row's KW pixels of C channels are KW * C consecutive bytes, one tap of KW * C "channels", the
  // weights reordered to [M][KW * C][KH] for the packing.
  std::vector<int8_t> rows;
  if (row_taps_) {
    for (int64_t kh = 0; kh < kh_n; ++kh) tap_offsets_.push_back(kh * g.dilation_h * src_w_ * channels_);
    rows.resize(static_cast<size_t>(m * c * kh_n * kw_n));
    for (int64_t o = 0; o < m; ++o) {
      for (int64_t i = 0; i < c; ++i) {
        for (int64_t kh = 0; kh < kh_n; ++kh) {
          for (int64_t kw = 0; kw < kw_n; ++kw) {
            rows[static_cast<size_t>((o * kw_n * c + kw * c + i) * kh_n + kh)] =
                weights[((o * c + i) * kh_n + kh) * kw_n + kw];
          }
        }
      }
    }
  } else {
    for (int64_t kh = 0; kh < kh_n; ++kh) {
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        tap_offsets_.push_back((kh * g.dilation_h * src_w_ + kw * g.dilation_w) * channels_);
      }
    }
  }
  narrow_by_packs_ = ScalesNarrowByPacks(scales);
  PackVnniConvWeights(row_taps_ ? rows.data() : weights, m, row_taps_ ? kw_n * c : c, taps_, bias, scales,
                      x_zero_point, signed_input, packed_.data(), offset_.data(), scales_.data());
}

bool DirectConvNhwcInt8::RowTapsPay(const DirectConvNhwcGeometry& g) {
  return g.in_channels % kVnniGroupBytes != 0 && g.dilation_w == 1 && g.kernel_w > 1;
}

void DirectConvNhwcInt8::Run(const void* x_in, void* y_in, int threads, const void* residual,
                             const Int8ResidualAdd* add) const {
  const auto* x = static_cast<const uint8_t*>(x_in);
  auto* y = static_cast<uint8_t*>(y_in);
  const int64_t c = g_.in_channels, m = g_.out_channels;
  const int64_t pixels = g_.batch * g_.out_h * g_.out_w;
  if (pixels <= 0 || m <= 0) return;
  const uint8_t* src = x;
  if (copy_input_) {
    // The padded uint8 image: borders and the channels past C hold x's zero point (shifted with int8 x), so they add
    // nothing to any sum.
    auto* padded = static_cast<uint8_t*>(ThreadBuffer(
        ThreadBufferSlot::kKernelScratch, static_cast<size_t>(g_.batch * src_h_ * src_w_ * channels_ + kCopySlack)));
    std::memset(padded + g_.batch * src_h_ * src_w_ * channels_, 0, kCopySlack);
    const uint8_t fill = static_cast<uint8_t>(x_zero_point_ + (signed_input_ ? 128 : 0));
    const uint8_t flip = signed_input_ ? 0x80 : 0;
    const int64_t rows = g_.batch * src_h_;
    const int64_t row_bytes = src_w_ * channels_;
    const int64_t first = std::clamp<int64_t>(g_.pad_left, 0, src_w_);
    const int64_t end = std::clamp<int64_t>(g_.pad_left + g_.in_w, first, src_w_);
    const int64_t tasks = std::min<int64_t>(std::max(threads, 1), rows);
    RunTasks(tasks, threads, [&, fill, flip](int64_t task) {
      // fill and flip by value: as references into the caller's frame, every byte stored through `out` might have
      // changed them, and the byte loops below reloaded them per byte instead of running vectorized (a first layer's
      // int8 image, 150 KB: 45 -> 3 us).
      for (int64_t row = task * rows / tasks; row < (task + 1) * rows / tasks; ++row) {
        uint8_t* out = padded + row * row_bytes;
        const int64_t n = row / src_h_, iy = row % src_h_ - g_.pad_top;
        if (iy < 0 || iy >= g_.in_h) {
          std::memset(out, fill, static_cast<size_t>(row_bytes));
          continue;
        }
        std::memset(out, fill, static_cast<size_t>(first * channels_));
        std::memset(out + end * channels_, fill, static_cast<size_t>((src_w_ - end) * channels_));
        const uint8_t* in = x + ((n * g_.in_h + iy) * g_.in_w + (first - g_.pad_left)) * c;
        uint8_t* o = out + first * channels_;
        if (channels_ == c) {  // one flat run of bytes (a first layer's 3 channels: one loop, not 3 per pixel)
          const int64_t n_bytes = (end - first) * c;
          if (flip == 0) {
            std::memcpy(o, in, static_cast<size_t>(n_bytes));
          } else {
            for (int64_t i = 0; i < n_bytes; ++i) o[i] = static_cast<uint8_t>(in[i] ^ flip);
          }
          continue;
        }
        for (int64_t ix = first; ix < end; ++ix, in += c, o += channels_) {
          for (int64_t i = 0; i < c; ++i) o[i] = static_cast<uint8_t>(in[i] ^ flip);
          for (int64_t i = c; i < channels_; ++i) o[i] = fill;
        }
      }
    });
    src = padded;
  }
  const int64_t* tap_offsets = tap_offsets_.data();
  const PanelRequant base = BasePanelRequant(signed_output_, y_zero_point_, add);
  const bool with_add = add != nullptr && residual != nullptr;
  const StoreTable& stores = with_add           ? kAddStores[add->conv_is_a ? 0 : 1][signed_output_ ? 1 : 0]
                             : narrow_by_packs_ ? kStoresByPacks[signed_output_ ? 1 : 0]
                                                : kStores;
  const int64_t tile_count = (pixels + kTileRows - 1) / kTileRows;
  const int64_t tasks = std::min<int64_t>(std::max(threads, 1), tile_count);
  const int64_t tap_bytes = tap_groups_ * kGroupRowBytes;
  const int64_t panel_bytes = taps_ * tap_bytes;
  // Taps per chunk: their weights in a third of L1 (at least one tap).
  const int64_t chunk_taps = std::clamp<int64_t>(L1DataCacheBytes() / 3 / tap_bytes, 1, taps_);
  RunTasks(tasks, threads, [&](int64_t task) {
    const uint8_t* rows_at[kBlockTiles][kTileRows];
    alignas(64) int32_t sums[kBlockTiles][kTileRows * kVectors * 16];
    SgemmRowTile tiles[kBlockTiles];
    const int64_t end = (task + 1) * tile_count / tasks;
    for (int64_t jb = task * tile_count / tasks; jb < end; jb += kBlockTiles) {
      const int block = static_cast<int>(std::min<int64_t>(kBlockTiles, end - jb));
      for (int i = 0; i < block; ++i) {
        tiles[i] = EvenRowTile(pixels, tile_count, jb + i);
        TileInputRows(src, tiles[i].start, static_cast<int>(tiles[i].rows), g_.out_h, g_.out_w, src_h_, src_w_,
                      g_.stride_h, g_.stride_w, channels_, rows_at[i]);
      }
      for (int64_t t = 0; t < panels_; ++t) {
        const int8_t* panel = packed_.data() + t * panel_bytes;
        for (int64_t t0 = 0; t0 < taps_; t0 += chunk_taps) {
          const int64_t n_taps = std::min(chunk_taps, taps_ - t0);
          // While the tiles go over this chunk's weights (from L3 or memory), the next chunk's go to L2.
          const int8_t* next = t0 + n_taps < taps_ ? panel + (t0 + n_taps) * tap_bytes
                               : t + 1 < panels_   ? panel + panel_bytes
                                                   : nullptr;
          const int64_t next_taps = t0 + n_taps < taps_ ? std::min(chunk_taps, taps_ - t0 - n_taps) : chunk_taps;
          const int64_t next_lines = next != nullptr ? next_taps * tap_bytes / kSgemmLineBytes : 0;
          // A share per tile: all of it during the first tile's pass asked for the lines faster than memory gives
          // them where the weights come from there (ResNet-50's layer 4, 2.4 MB a layer), and nothing meanwhile.
          for (int i = 0; i < block; ++i) {
            const SgemmPrefetch fetch = PrefetchShare(reinterpret_cast<const char*>(next), next_lines, i, block);
            kSums[static_cast<size_t>(tiles[i].rows - 1)](
                rows_at[i], tap_offsets + t0, n_taps, tap_groups_, panel + t0 * tap_bytes, sums[i],
                t0 == 0 ? offset_.data() + t * kPanelColumns : nullptr, fetch.begin, fetch.lines);
          }
        }
        for (int i = 0; i < block; ++i) {
          const int64_t p0 = tiles[i].start;
          PanelRequant q = base;
          q.offset = offset_.data() + t * kPanelColumns;
          q.scale = scales_.data() + t * kPanelColumns;
          if (with_add) q.residual = static_cast<const uint8_t*>(residual) + p0 * m + t * kPanelColumns;
          stores[static_cast<size_t>(tiles[i].rows - 1)](sums[i], y + p0 * m + t * kPanelColumns, m,
                                                         std::min(kPanelColumns, m - t * kPanelColumns), q);
        }
      }
    }
  });
}

}  // namespace onyx::kernels
