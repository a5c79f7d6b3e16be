#include "kernels/nchwc_gemm_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <utility>

#include "kernels/cpu_isa.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"
#include "kernels/thread_buffers.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kLanes = 16;           // channels per block
constexpr int64_t kPanel = kSgemmTileN;  // output channels per packed panel: two blocks
constexpr int64_t kTileRows = kSgemmPackedRowsMax;
constexpr int64_t kKBlockMax = 256;               // K per block: a panel's block (32 KB) stays in L1
alignas(64) constexpr float kZeros[kLanes] = {};  // the input under a tap that falls in the padding

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// What one tile call finishes with: null bias for a K block before the last.
struct TileEnd {
  bool accumulate;    // add the sums to the output's values (a previous K block's, or the residual)
  const float* bias;  // the last K block: the panel's 32 bias values, then the activation and the mask
  const float* mask;  // null, or the panel's 32 lane masks (a partial last block of output channels)
  const ConvEpilogue* epilogue;
};

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")

#include "kernels/sgemm_tile_avx512_sums.inc"

// kRows output pixels x `blocks` (1 or 2) output blocks of one panel; pixel r's block v at y + v * y_block_stride +
// 16 r. The pixels' channels: packed rows at a (kPacked), or kRows consecutive pixels of the blocked input at a, its
// blocks of channels `plane` floats apart.
template <int kRows, bool kPacked>
void GemmTile(const float* a, int64_t plane, const float* bp, int64_t kc, float* y, int64_t y_block_stride, int blocks,
              const TileEnd& end, SgemmPrefetch prefetch) {
  __m512 acc[kRows][2];
  if constexpr (kPacked) {
    Avx512TileSums<kRows>(
        acc, [a](int64_t kk, int r) __attribute__((always_inline)) { return a[kk * kRows + r]; }, bp, kPanel, kc,
        prefetch);
  } else {
    Avx512TileSums<kRows>(
        acc, [ a, plane ](int64_t kk, int r) __attribute__((always_inline)) {
          return a[(kk >> 4) * plane + r * kLanes + (kk & (kLanes - 1))];
        },
        bp, kPanel, kc, prefetch);
  }
  for (int v = 0; v < blocks; ++v) {
    float* out = y + v * y_block_stride;
    const __m512 bias = end.bias != nullptr ? _mm512_loadu_ps(end.bias + v * kLanes) : _mm512_setzero_ps();
    const __m512i mask = end.mask != nullptr ? _mm512_loadu_si512(end.mask + v * kLanes) : _mm512_set1_epi32(-1);
#pragma GCC unroll 14
    for (int r = 0; r < kRows; ++r) {
      __m512 s = acc[r][v];
      if (end.accumulate) s = _mm512_add_ps(_mm512_loadu_ps(out + r * kLanes), s);
      if (end.bias != nullptr) {
        s = ApplyActivation16(_mm512_add_ps(s, bias), *end.epilogue);
        s = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(s), mask));
      }
      _mm512_storeu_ps(out + r * kLanes, s);
    }
  }
}

#pragma GCC pop_options

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int, const TileEnd&,
                        SgemmPrefetch);

template <bool kPacked, int... kRows>
constexpr std::array<TileFn, sizeof...(kRows)> MakeTiles(std::integer_sequence<int, kRows...>) {
  return {&GemmTile<kRows + 1, kPacked>...};
}
constexpr auto kPackedTiles = MakeTiles<true>(std::make_integer_sequence<int, kTileRows>());
constexpr auto kInPlaceTiles = MakeTiles<false>(std::make_integer_sequence<int, kTileRows>());

}  // namespace

bool NchwcGemmConv::Supported(const BlockedConvShape& s) {
  return s.block == kLanes && s.input_blocked && ActivePackedRowsTile() != nullptr && EffectiveIsa() == Isa::kAvx512 &&
         s.batch > 0 && s.in_channels > 0 && s.out_channels > 0 && s.height > 0 && s.width > 0 && s.out_height > 0 &&
         s.out_width > 0 && s.kernel_h > 0 && s.kernel_w > 0 && s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 &&
         s.dilation_w > 0;
}

NchwcGemmConv::NchwcGemmConv(const BlockedConvShape& shape, const float* weights, const float* bias,
                             const ConvEpilogue& epilogue)
    : shape_(shape), epilogue_(epilogue) {
  SetPackingSizes();
  float* packed = static_cast<float*>(std::aligned_alloc(64, packed_bytes_));
  if (packed == nullptr) throw std::bad_alloc();
  packed_ = std::shared_ptr<const float>(packed, [](const float* p) { std::free(const_cast<float*>(p)); });
  std::memset(packed, 0, packed_bytes_);
  // K index (tap * in_blocks_ + block) * 16 + lane: input channel block * 16 + lane at that tap.
  for (int64_t kb = 0; kb * k_block_ < k_; ++kb) {
    const int64_t k0 = kb * k_block_, kc = std::min(k_block_, k_ - k0);
    for (int64_t p = 0; p < panels_; ++p) {
      float* panel = packed + PanelOffset(kb, p);
      for (int64_t kk = 0; kk < kc; ++kk) {
        const int64_t k = k0 + kk, tap = k / (in_blocks_ * kLanes), ic = k % (in_blocks_ * kLanes);
        if (ic >= shape_.in_channels) continue;
        for (int64_t j = 0; j < kPanel && p * kPanel + j < shape_.out_channels; ++j) {
          panel[kk * kPanel + j] = weights[((p * kPanel + j) * shape_.in_channels + ic) * taps_ + tap];
        }
      }
    }
  }
  channels_ = EpilogueChannels(shape_.out_channels, panels_ * kPanel, bias);
}

NchwcGemmConv::NchwcGemmConv(const BlockedConvShape& shape, const NchwcGemmConv& packed_like, const float* bias,
                             const ConvEpilogue& epilogue)
    : shape_(shape), epilogue_(epilogue) {
  SetPackingSizes();
  packed_ = packed_like.packed_;
  channels_ = EpilogueChannels(shape_.out_channels, panels_ * kPanel, bias);
}

Result<std::shared_ptr<const NchwcGemmConv>> NchwcGemmConv::SharingWeights(const BlockedConvShape& shape,
                                                                           const NchwcGemmConv& packed_like,
                                                                           const float* bias,
                                                                           const ConvEpilogue& epilogue) {
  if (!packed_like.SharesPacking(shape)) return InvalidArgument("NchwcGemmConv: weights packed for other channels");
  return std::shared_ptr<const NchwcGemmConv>(new NchwcGemmConv(shape, packed_like, bias, epilogue));
}

bool NchwcGemmConv::SharesPacking(const BlockedConvShape& shape) const {
  return shape.in_channels == shape_.in_channels && shape.out_channels == shape_.out_channels &&
         shape.kernel_h == shape_.kernel_h && shape.kernel_w == shape_.kernel_w;
}

void NchwcGemmConv::SetPackingSizes() {
  in_blocks_ = CeilDiv(shape_.in_channels, kLanes);
  out_blocks_ = CeilDiv(shape_.out_channels, kLanes);
  panels_ = CeilDiv(out_blocks_, 2);
  taps_ = shape_.kernel_h * shape_.kernel_w;
  k_ = taps_ * in_blocks_ * kLanes;
  // Equal K blocks of at most kKBlockMax (1024 in 4 of 256, 384 in 2 of 192): no short last block.
  const int64_t chunks = k_ / kLanes, k_blocks = CeilDiv(k_, kKBlockMax);
  k_block_ = CeilDiv(chunks, k_blocks) * kLanes;
  const size_t floats = static_cast<size_t>(k_ * panels_ * kPanel);
  packed_bytes_ = (floats * sizeof(float) + 63) / 64 * 64;
}

int64_t NchwcGemmConv::PanelOffset(int64_t kb, int64_t p) const {
  const int64_t k0 = kb * k_block_, kc = std::min(k_block_, k_ - k0);
  return k0 * panels_ * kPanel + p * kc * kPanel;
}

void NchwcGemmConv::Run(const float* src, float* dst, int threads) const {
  const BlockedConvShape& s = shape_;
  const int64_t pixels = s.out_height * s.out_width;
  const int64_t plane = s.height * s.width * kLanes, out_plane = pixels * kLanes;
  const int64_t k_blocks = CeilDiv(k_, k_block_);
  // Blocks of pixels whose packed rows (one K block of them) fill at most a quarter of L2, beside the block of the
  // output they accumulate into, while each panel of weights passes over them from L1.
  const int64_t block_rows_max =
      std::max<int64_t>(kTileRows, L2CacheBytes() / 4 / (k_block_ * int64_t{sizeof(float)}) / kTileRows * kTileRows);
  int64_t m_blocks = CeilDiv(pixels, block_rows_max);
  // Panels split into groups where the block's output would outgrow half of L2, and for the threads: at least 4
  // tasks per thread (of equal work) where the shape has them.
  const int64_t block_rows = CeilDiv(pixels, m_blocks);
  int64_t n_groups =
      std::min(panels_, CeilDiv(block_rows * panels_ * kPanel * int64_t{sizeof(float)}, L2CacheBytes() / 2));
  if (threads > 1) {
    const int64_t want = 4 * static_cast<int64_t>(threads);
    n_groups = std::max(n_groups, std::min(panels_, CeilDiv(want, s.batch * m_blocks)));
    if (s.batch * m_blocks * n_groups < want) {
      m_blocks = std::max(m_blocks, std::min(CeilDiv(pixels, kTileRows), CeilDiv(want, s.batch * n_groups)));
    }
  }
  const bool partial = s.out_channels % kLanes != 0;
  const bool in_place = MapsPixelsOneToOne(s);
  RunTasks(s.batch * m_blocks * n_groups, threads, [&](int64_t task) {
    const int64_t n = task / (m_blocks * n_groups), mb = task / n_groups % m_blocks, ng = task % n_groups;
    const int64_t r0 = pixels * mb / m_blocks, rows = pixels * (mb + 1) / m_blocks - r0;
    const int64_t p0 = panels_ * ng / n_groups, p1 = panels_ * (ng + 1) / n_groups;
    const int64_t tiles = CeilDiv(rows, kTileRows);
    // A 1x1 stride-1 convolution's pixels are read where they are (56x56 and 28x28 maps 5-12% faster alone than
    // packed, Sapphire Rapids); the others' are gathered, tap by tap.
    float* packed_rows = in_place ? nullptr : ThreadFloats(ThreadBufferSlot::kKernelScratch, rows * k_block_);
    const float* image = src + n * in_blocks_ * plane;
    float* y_image = dst + n * out_blocks_ * out_plane;
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      const int64_t k0 = kb * k_block_, kc = std::min(k_block_, k_ - k0);
      // The block's pixels, tile by tile (tile j at its first row times kc): each row's 16 channels of chunk c (tap
      // c / in_blocks_, channel block c % in_blocks_) from the input pixel under that tap, or zeros.
      for (int64_t j = 0; !in_place && j < tiles; ++j) {
        const SgemmRowTile t = EvenRowTile(rows, tiles, j);
        const int rows_j = static_cast<int>(t.rows);
        int64_t top[kTileRows], left[kTileRows];
        for (int i = 0; i < rows_j; ++i) {
          const int64_t q = r0 + t.start + i;
          top[i] = q / s.out_width * s.stride_h - s.pad_top;
          left[i] = q % s.out_width * s.stride_w - s.pad_left;
        }
        // Each row's input pixel under the current tap (null in the padding), recomputed where the tap changes.
        const float* under_tap[kTileRows];
        int64_t chunk = k0 / kLanes, tap = chunk / in_blocks_, block = chunk % in_blocks_;
        auto find_pixels = [&] {
          const int64_t dh = tap / s.kernel_w * s.dilation_h, dw = tap % s.kernel_w * s.dilation_w;
          for (int i = 0; i < rows_j; ++i) {
            const int64_t ih = top[i] + dh, iw = left[i] + dw;
            const bool inside = ih >= 0 && ih < s.height && iw >= 0 && iw < s.width;
            under_tap[i] = inside ? image + (ih * s.width + iw) * kLanes : nullptr;
          }
        };
        find_pixels();
        const float* blocks[kKBlockMax / kLanes * kTileRows];
        for (int64_t c = 0; c < kc / kLanes; ++c) {
          for (int i = 0; i < rows_j; ++i) {
            blocks[c * rows_j + i] = under_tap[i] != nullptr ? under_tap[i] + block * plane : kZeros;
          }
          if (++block == in_blocks_ && c + 1 < kc / kLanes) {
            block = 0;
            ++tap;
            find_pixels();
          }
        }
        PackSgemmRowBlocks(rows_j, blocks, kc / kLanes, packed_rows + t.start * kc);
      }
      const bool last = kb + 1 == k_blocks;
      for (int64_t p = p0; p < p1; ++p) {
        const int blocks = static_cast<int>(std::min<int64_t>(2, out_blocks_ - 2 * p));
        const TileEnd end{kb > 0 || epilogue_.sum, last ? channels_.bias.data() + p * kPanel : nullptr,
                          last && partial ? channels_.lane_mask.data() + p * kPanel : nullptr, &epilogue_};
        // The panel read next comes into L2 meanwhile, a share per tile of pixels.
        const float* next = p + 1 < p1 ? Panel(kb, p + 1) : !last ? Panel(kb + 1, p0) : nullptr;
        const int64_t next_kc = p + 1 < p1 ? kc : !last ? std::min(k_block_, k_ - k0 - kc) : 0;
        const int64_t next_lines = next_kc * kPanel * int64_t{sizeof(float)} / kSgemmLineBytes;
        const int64_t share = CeilDiv(next_lines, tiles);
        const float* panel = Panel(kb, p);
        float* y_panel = y_image + 2 * p * out_plane + r0 * kLanes;
        for (int64_t j = 0; j < tiles; ++j) {
          const SgemmRowTile t = EvenRowTile(rows, tiles, j);
          const int64_t first_line = std::min(next_lines, j * share);
          const SgemmPrefetch prefetch{reinterpret_cast<const char*>(next) + first_line * kSgemmLineBytes,
                                       std::min(share, next_lines - first_line)};
          if (!in_place) {
            kPackedTiles[static_cast<size_t>(t.rows - 1)](packed_rows + t.start * kc, 0, panel, kc,
                                                          y_panel + t.start * kLanes, out_plane, blocks, end, prefetch);
          } else {
            kInPlaceTiles[static_cast<size_t>(t.rows - 1)](image + k0 / kLanes * plane + (r0 + t.start) * kLanes, plane,
                                                           panel, kc, y_panel + t.start * kLanes, out_plane, blocks,
                                                           end, prefetch);
          }
        }
      }
    }
  });
}

}  // namespace onyx::kernels
