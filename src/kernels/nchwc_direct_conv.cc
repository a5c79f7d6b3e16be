#include "kernels/nchwc_direct_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <new>

#include "kernels/cpu_isa.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_tile.h"

namespace onyx::kernels {
namespace {

constexpr int kMaxPixels = 6;  // output pixels per tile

// One tile's work: NP pixels of one output row from input column iw0 (for tap 0) on, NF output blocks, the taps
// [kh0, kh1) x [kw0, kw1) (those inside the input for every pixel of the tile), one chunk of input groups.
struct TileArgs {
  const float* x;  // the image's input at the chunk's first group
  const float* w;  // the tile's packed weights at the chunk's first group
  float* y;        // the output at the tile's first block and first pixel
  const float* bias;
  const float* mask;  // null, or per-lane all-ones / zero bits for a tile holding the partial last block
  const ConvEpilogue* epilogue;
  int64_t groups;  // input groups of the chunk
  int64_t x_group_stride, x_row_stride, x_pix_stride;
  int64_t x_step;  // floats between the inputs of neighbouring output pixels (stride_w * x_pix_stride)
  int64_t w_group_stride, w_row_stride;
  int64_t y_block_stride;
  int64_t ih0, kh0, kh1, dil_h;
  int64_t iw0, kw0, kw1, dil_w;
  bool accumulate;         // start from the output's values (a previous chunk's sums, or the residual to add)
  bool final;              // the last chunk: bias, activation and mask applied
  const char* prefetch;    // this call's share of the weights read next (NextWeights), or null
  int64_t prefetch_lines;  // cache lines of it
};

// The gathered order's tile: pixels anywhere, every tap inside the padded input.
struct GatherArgs {
  const float* x[kMaxPixels];  // each pixel's input at tap (0, 0) of the chunk's first group
  float* y[kMaxPixels];        // each pixel's output at the tile's first block
  const float* w;
  const float* bias;
  const float* mask;
  const ConvEpilogue* epilogue;
  int64_t groups;
  int64_t x_group_stride;
  int64_t x_tap_row, x_tap_col;  // floats between the inputs of neighbouring taps down and across
  int64_t w_group_stride;
  int64_t y_block_stride;
  int64_t kernel_h, kernel_w;
  bool accumulate, final;
  const char* prefetch;  // as TileArgs's
  int64_t prefetch_lines;
};

constexpr int64_t kLineBytes = 64;

// Asks for `lines` cache lines from `p` into L2 a few at a time, spread over `steps` steps of a tile call's arithmetic
// (one per input group and tap): the call's share of the weights read next. A burst of prefetches at the start of a
// call would hold every line fill buffer while the weights stream from memory.
class PrefetchStream {
 public:
  PrefetchStream(const char* p, int64_t lines, int64_t steps)
      : p_(p), left_(p == nullptr ? 0 : lines), per_step_(steps > 0 ? (left_ + steps - 1) / steps : left_) {}
  void Step() {
    const int64_t n = std::min(per_step_, left_);
    for (int64_t l = 0; l < n; ++l) _mm_prefetch(p_ + l * kLineBytes, _MM_HINT_T1);
    p_ += n * kLineBytes;
    left_ -= n;
  }

 private:
  const char* p_;
  int64_t left_, per_step_;
};

using TileFn = void (*)(const TileArgs&);
using GatherFn = void (*)(const GatherArgs&);
// Per ISA: [plain 0 / blocked 1][output blocks - 1][pixels - 1]; null past the ISA's block count.
constexpr int kMaxBlocksAny = 4;
using TileTable = std::array<std::array<std::array<TileFn, kMaxPixels>, kMaxBlocksAny>, 2>;
using GatherTable = std::array<std::array<std::array<GatherFn, kMaxPixels>, kMaxBlocksAny>, 2>;

}  // namespace

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
namespace avx512_tiles {
namespace {
struct V {
  using T = __m512;
  static constexpr int kLanes = 16;
  static T Zero() { return _mm512_setzero_ps(); }
  static T Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static T Set1(float f) { return _mm512_set1_ps(f); }
  static T Fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm512_add_ps(a, b); }
  static T And(T a, T bits) {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(bits)));
  }
  static T Activate(T v, const ConvEpilogue& e) { return ApplyActivation16(v, e); }
};
#include "kernels/nchwc_direct_conv_tile.inc"
}  // namespace
// 4 blocks x 6 pixels: 24 of the 32 registers accumulate, 4 hold weights.
constexpr int kMaxBlocks = 4;
const TileTable kTiles{{{TilesOf<1>(0), TilesOf<2>(0), TilesOf<3>(0), TilesOf<4>(0)},
                        {TilesOf<1>(1), TilesOf<2>(1), TilesOf<3>(1), TilesOf<4>(1)}}};
const GatherTable kGather{{{GatherTilesOf<1>(0), GatherTilesOf<2>(0), GatherTilesOf<3>(0), GatherTilesOf<4>(0)},
                           {GatherTilesOf<1>(1), GatherTilesOf<2>(1), GatherTilesOf<3>(1), GatherTilesOf<4>(1)}}};
}  // namespace avx512_tiles
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2_tiles {
namespace {
struct V {
  using T = __m256;
  static constexpr int kLanes = 8;
  static T Zero() { return _mm256_setzero_ps(); }
  static T Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static T Set1(float f) { return _mm256_set1_ps(f); }
  static T Fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm256_add_ps(a, b); }
  static T And(T a, T bits) { return _mm256_and_ps(a, bits); }
  static T Activate(T v, const ConvEpilogue& e) { return ApplyActivation(v, e); }
};
#include "kernels/nchwc_direct_conv_tile.inc"
}  // namespace
// 2 blocks x 6 pixels: 12 of the 16 registers accumulate, 2 hold weights, 1 the broadcast input.
constexpr int kMaxBlocks = 2;
const TileTable kTiles{{{TilesOf<1>(0), TilesOf<2>(0), {}, {}}, {TilesOf<1>(1), TilesOf<2>(1), {}, {}}}};
const GatherTable kGather{
    {{GatherTilesOf<1>(0), GatherTilesOf<2>(0), {}, {}}, {GatherTilesOf<1>(1), GatherTilesOf<2>(1), {}, {}}}};
}  // namespace avx2_tiles
#pragma GCC pop_options

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The first tap index k in [0, taps) with start + k * dilation >= 0, and the end of those with
// start + k * dilation < size: the taps of one output position that fall inside the input.
void ValidTaps(int64_t start, int64_t size, int64_t taps, int64_t dilation, int64_t& k0, int64_t& k1) {
  k0 = start >= 0 ? 0 : std::min(taps, CeilDiv(-start, dilation));
  k1 = start >= size ? 0 : std::min(taps, CeilDiv(size - start, dilation));
  if (k1 < k0) k1 = k0;
}

}  // namespace

bool NchwcDirectConv::Supported(const BlockedConvShape& s) {
  const Isa isa = EffectiveIsa();
  const bool isa_ok =
      (s.block == 16 && isa == Isa::kAvx512) ||
      (s.block == 8 && isa != Isa::kOther && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  return isa_ok && s.batch > 0 && s.in_channels > 0 && s.out_channels > 0 && s.height > 0 && s.width > 0 &&
         s.out_height > 0 && s.out_width > 0 && s.kernel_h > 0 && s.kernel_w > 0 && s.stride_h > 0 && s.stride_w > 0 &&
         s.dilation_h > 0 && s.dilation_w > 0 && (s.input_blocked || s.in_channels <= 4);
}

NchwcDirectConv::NchwcDirectConv(const BlockedConvShape& shape, const float* weights, const float* bias,
                                 const ConvEpilogue& epilogue, Order order)
    : shape_(shape), order_(order), epilogue_(epilogue) {
  const int64_t taps = shape_.kernel_h * shape_.kernel_w;
  const int64_t count = shape_.out_channels * shape_.in_channels * taps;
  weights_finite_ = std::all_of(weights, weights + count, [](float w) { return std::isfinite(w); });
  if (order_ == Order::kGathered && WindowPads(shape_) && !weights_finite_) order_ = Order::kRows;
  SetSizes();
  const int64_t L = shape_.block;
  const int64_t tiles = CeilDiv(out_blocks_, max_blocks_);
  const size_t packed_floats = static_cast<size_t>(tiles * tile_floats_);
  packed_bytes_ = (packed_floats * sizeof(float) + 63) / 64 * 64;
  float* packed = static_cast<float*>(std::aligned_alloc(64, packed_bytes_));
  if (packed == nullptr) throw std::bad_alloc();
  packed_ = std::shared_ptr<const float>(packed, [](const float* p) { std::free(const_cast<float*>(p)); });
  std::memset(packed, 0, packed_bytes_);
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t b0 = t * max_blocks_, nf = std::min<int64_t>(max_blocks_, out_blocks_ - b0);
    float* tile = packed + t * tile_floats_;
    for (int64_t g = 0; g < in_groups_; ++g) {
      for (int64_t k = 0; k < taps; ++k) {
        for (int64_t i = 0; i < group_width_; ++i) {
          const int64_t ic = g * group_width_ + i;
          for (int64_t f = 0; f < nf; ++f) {
            for (int64_t lane = 0; lane < L; ++lane) {
              const int64_t oc = (b0 + f) * L + lane;
              if (ic >= shape_.in_channels || oc >= shape_.out_channels) continue;
              tile[(((g * taps + k) * group_width_ + i) * nf + f) * L + lane] =
                  weights[(oc * shape_.in_channels + ic) * taps + k];
            }
          }
        }
      }
    }
  }
  channels_ = EpilogueChannels(shape_.out_channels, out_blocks_ * L, bias);
}

NchwcDirectConv::NchwcDirectConv(const BlockedConvShape& shape, const NchwcDirectConv& packed_like, const float* bias,
                                 const ConvEpilogue& epilogue, Order order)
    : shape_(shape), order_(order), weights_finite_(packed_like.weights_finite_), epilogue_(epilogue) {
  if (order_ == Order::kGathered && WindowPads(shape_) && !weights_finite_) order_ = Order::kRows;
  SetSizes();
  packed_bytes_ = packed_like.packed_bytes_;
  packed_ = packed_like.packed_;
  channels_ = EpilogueChannels(shape_.out_channels, out_blocks_ * shape_.block, bias);
}

Result<std::shared_ptr<const NchwcDirectConv>> NchwcDirectConv::SharingWeights(const BlockedConvShape& shape,
                                                                               const NchwcDirectConv& packed_like,
                                                                               const float* bias,
                                                                               const ConvEpilogue& epilogue,
                                                                               Order order) {
  if (!packed_like.SharesPacking(shape)) return InvalidArgument("NchwcDirectConv: weights packed for another layout");
  return std::shared_ptr<const NchwcDirectConv>(new NchwcDirectConv(shape, packed_like, bias, epilogue, order));
}

bool NchwcDirectConv::SharesPacking(const BlockedConvShape& shape) const {
  return shape.block == shape_.block && shape.input_blocked == shape_.input_blocked &&
         shape.in_channels == shape_.in_channels && shape.out_channels == shape_.out_channels &&
         shape.kernel_h == shape_.kernel_h && shape.kernel_w == shape_.kernel_w;
}

void NchwcDirectConv::SetSizes() {
  const int64_t L = shape_.block;
  max_blocks_ = L == 16 ? avx512_tiles::kMaxBlocks : avx2_tiles::kMaxBlocks;
  out_blocks_ = CeilDiv(shape_.out_channels, L);
  group_width_ = shape_.input_blocked ? L : 1;
  in_groups_ = CeilDiv(shape_.in_channels, group_width_);
  const int64_t taps = shape_.kernel_h * shape_.kernel_w;
  // Input groups per chunk. Every tile of pixels reads the chunk's weights, and a tile's sums wait in the output
  // between chunks. Where one tile of blocks' output (every pixel of an image) fits in a quarter of L2, those sums
  // stay cached, and chunks whose weights fit in L1 (two thirds of it, beside inputs and sums) are read from L1 by
  // each tile of pixels: ResNet-50's 7x7 layers ran 10-25% faster so on an Intel Xeon (Sapphire Rapids), e.g. its
  // 2048 -> 512 1x1 0.95 -> 0.74 ms in the model. Larger maps: chunks in half of L2, so that the sums pass through
  // memory fewer times.
  const int64_t group_bytes = taps * group_width_ * max_blocks_ * L * static_cast<int64_t>(sizeof(float));
  const int64_t tile_output_bytes = max_blocks_ * L * shape_.out_height * shape_.out_width * int64_t{sizeof(float)};
  const int64_t chunk_bytes = tile_output_bytes <= L2CacheBytes() / 4 ? L1DataCacheBytes() * 2 / 3 : L2CacheBytes() / 2;
  chunk_groups_ = std::clamp<int64_t>(chunk_bytes / group_bytes, 1, in_groups_);
  tile_floats_ = max_blocks_ * L * in_groups_ * group_width_ * taps;
}

int64_t NchwcDirectConv::PaddedHeight() const {
  const BlockedConvShape& s = shape_;
  const int64_t reach = s.pad_top + s.height;  // the input's rows, after the top padding
  return std::max(reach, (s.out_height - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1);
}

int64_t NchwcDirectConv::PaddedWidth() const {
  const BlockedConvShape& s = shape_;
  return std::max(s.pad_left + s.width, (s.out_width - 1) * s.stride_w + (s.kernel_w - 1) * s.dilation_w + 1);
}

int64_t NchwcDirectConv::ScratchFloats() const {
  if (order_ != Order::kGathered || !WindowPads(shape_)) return 0;
  return in_groups_ * PaddedHeight() * PaddedWidth() * group_width_;  // one image's
}

void NchwcDirectConv::Run(const float* src, float* dst, float* scratch, int threads) const {
  if (order_ == Order::kGathered) {
    RunGathered(src, dst, scratch, threads);
  } else {
    RunRows(src, dst, threads);
  }
}

NchwcDirectConv::Region NchwcDirectConv::NextWeights(int64_t t, int64_t c0, int64_t groups) const {
  const int64_t L = shape_.block, taps = shape_.kernel_h * shape_.kernel_w;
  const int64_t tiles = CeilDiv(out_blocks_, max_blocks_);
  int64_t tile = t, next_c0 = c0 + groups;
  if (next_c0 >= in_groups_) {
    tile = t + 1;
    next_c0 = 0;
    if (tile >= tiles) return {};
  }
  const int64_t nf = std::min<int64_t>(max_blocks_, out_blocks_ - tile * max_blocks_);
  const int64_t group_floats = taps * group_width_ * nf * L;
  const int64_t next_groups = std::min(chunk_groups_, in_groups_ - next_c0);
  // At most a quarter of L2: the chunk in use (up to half of it) stays cached beside what comes.
  const int64_t bytes =
      std::min<int64_t>(next_groups * group_floats * static_cast<int64_t>(sizeof(float)), L2CacheBytes() / 4);
  const float* begin = packed_.get() + tile * tile_floats_ + next_c0 * group_floats;
  return {reinterpret_cast<const char*>(begin), CeilDiv(bytes, kLineBytes)};
}

namespace {

// Hands call `j` of `calls` its share of `next` (TileArgs::prefetch).
template <typename Args>
void ShareOf(const NchwcDirectConv::Region& next, int64_t j, int64_t calls, Args& a) {
  const SgemmPrefetch share = PrefetchShare(next.begin, next.lines, j, calls);
  a.prefetch = share.begin;
  a.prefetch_lines = share.lines;
}

}  // namespace

void NchwcDirectConv::RunGathered(const float* src, float* dst, float* scratch, int threads) const {
  const BlockedConvShape& s = shape_;
  const int64_t L = s.block, taps = s.kernel_h * s.kernel_w;
  const int64_t tiles = CeilDiv(out_blocks_, max_blocks_);
  const auto& table =
      L == 16 ? avx512_tiles::kGather[s.input_blocked ? 1 : 0] : avx2_tiles::kGather[s.input_blocked ? 1 : 0];
  const int64_t x_pix = group_width_;  // a blocked input's pixel is a block of channels, a plain one's one value
  const int64_t x_group = s.height * s.width * x_pix;
  // The input with its zero padding written out, where the convolution pads (one image at a time: the buffer does
  // not grow with the batch); else the input itself.
  const bool pads = WindowPads(s);
  const int64_t hp = pads ? PaddedHeight() : s.height, wp = pads ? PaddedWidth() : s.width;
  const int64_t p_group = hp * wp * x_pix;
  const int64_t y_block = s.out_height * s.out_width * L;
  const int64_t y_image = out_blocks_ * y_block;
  const bool partial = s.out_channels % L != 0;
  const int64_t pixels = s.out_height * s.out_width;
  const int64_t items = CeilDiv(pixels, kMaxPixels);  // tiles of pixels
  const int64_t bands = threads <= 1 ? 1 : std::clamp<int64_t>(CeilDiv(4 * threads, tiles), 1, items);
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* image = src + n * in_groups_ * x_group;
    const float* x = image;
    if (pads) {
      const int64_t row = wp * x_pix, left = s.pad_left * x_pix, right = (wp - s.pad_left - s.width) * x_pix;
      RunTasks(in_groups_, threads, [&](int64_t group) {
        const float* in = image + group * x_group;
        float* out = scratch + group * p_group;
        for (int64_t r = 0; r < hp; ++r, out += row) {
          const int64_t ir = r - s.pad_top;
          if (ir < 0 || ir >= s.height) {
            std::fill_n(out, row, 0.0f);
            continue;
          }
          std::fill_n(out, left, 0.0f);
          std::memcpy(out + left, in + ir * s.width * x_pix, static_cast<size_t>(s.width * x_pix) * sizeof(float));
          std::fill_n(out + left + s.width * x_pix, right, 0.0f);
        }
      });
      x = scratch;
    }
    RunTasks(tiles * bands, threads, [&](int64_t task) {
      const int64_t t = task / bands, band = task % bands;
      const int64_t q0 = items * band / bands * kMaxPixels;
      const int64_t q1 = std::min(pixels, items * (band + 1) / bands * kMaxPixels);
      const int64_t b0 = t * max_blocks_, nf = std::min<int64_t>(max_blocks_, out_blocks_ - b0);
      GatherArgs a{};
      a.bias = channels_.bias.data() + b0 * L;
      a.mask = partial && b0 + nf == out_blocks_ ? channels_.lane_mask.data() + b0 * L : nullptr;
      a.epilogue = &epilogue_;
      a.x_group_stride = p_group;
      a.x_tap_row = s.dilation_h * wp * x_pix;
      a.x_tap_col = s.dilation_w * x_pix;
      a.w_group_stride = taps * group_width_ * nf * L;
      a.y_block_stride = y_block;
      a.kernel_h = s.kernel_h;
      a.kernel_w = s.kernel_w;
      const auto& by_pixels = table[static_cast<size_t>(nf - 1)];
      const float* w_tile = packed_.get() + t * tile_floats_;
      float* y_tile = dst + n * y_image + b0 * y_block;
      for (int64_t c0 = 0; c0 < in_groups_; c0 += chunk_groups_) {
        a.groups = std::min(chunk_groups_, in_groups_ - c0);
        a.w = w_tile + c0 * a.w_group_stride;
        a.accumulate = c0 > 0 || epilogue_.sum;
        a.final = c0 + a.groups == in_groups_;
        const float* x_chunk = x + c0 * p_group;
        const Region next = NextWeights(t, c0, a.groups);
        const int64_t calls = CeilDiv(q1 - q0, kMaxPixels);
        for (int64_t q = q0; q < q1; q += kMaxPixels) {
          const int64_t np = std::min<int64_t>(kMaxPixels, q1 - q);
          ShareOf(next, (q - q0) / kMaxPixels, calls, a);
          for (int64_t j = 0; j < np; ++j) {
            const int64_t oh = (q + j) / s.out_width, ow = (q + j) % s.out_width;
            a.x[j] = x_chunk + (oh * s.stride_h * wp + ow * s.stride_w) * x_pix;
            a.y[j] = y_tile + (q + j) * L;
          }
          by_pixels[static_cast<size_t>(np - 1)](a);
        }
      }
    });
  }
}

void NchwcDirectConv::RunRows(const float* src, float* dst, int threads) const {
  BlockedConvShape s = shape_;
  const int64_t L = s.block, taps = s.kernel_h * s.kernel_w;
  const int64_t tiles = CeilDiv(out_blocks_, max_blocks_);
  const auto& table =
      L == 16 ? avx512_tiles::kTiles[s.input_blocked ? 1 : 0] : avx2_tiles::kTiles[s.input_blocked ? 1 : 0];
  const int64_t x_pix = s.input_blocked ? L : 1;  // a blocked input's group is a block plane, a plain one's a channel
  const int64_t x_group = s.height * s.width * x_pix;
  const int64_t x_image = in_groups_ * x_group;
  const int64_t y_block = s.out_height * s.out_width * L;
  const int64_t y_image = out_blocks_ * y_block;
  const bool partial = s.out_channels % L != 0;
  // A 1x1 stride-1 convolution without padding maps pixel i of the input to pixel i of the output: one row of all
  // the pixels, so that short rows (7x7 maps) do not end in one-pixel tiles.
  const bool flat = MapsPixelsOneToOne(s);
  if (flat) {
    s.width = s.out_width = s.height * s.width;
    s.height = s.out_height = 1;
  }
  const int64_t x_row = s.width * x_pix;
  // The output columns whose taps all fall inside the input: runs of full tiles; the others one pixel at a time.
  int64_t ow_lo = CeilDiv(s.pad_left, s.stride_w);
  const int64_t last_tap = (s.kernel_w - 1) * s.dilation_w;
  int64_t ow_hi = s.width - 1 + s.pad_left - last_tap < 0 ? 0 : (s.width - 1 + s.pad_left - last_tap) / s.stride_w + 1;
  ow_hi = std::min(ow_hi, s.out_width);
  ow_lo = std::min(ow_lo, ow_hi);
  // Tasks: (image, tile of blocks, band): a band is a range of rows, or of a flat row's tiles of pixels. Several bands
  // per thread where there are few (image, tile) units, so that the threads' shares come out even.
  const int64_t units = s.batch * tiles;
  const int64_t band_items = flat ? CeilDiv(s.out_width, kMaxPixels) : s.out_height;
  const int64_t bands = threads <= 1 ? 1 : std::clamp<int64_t>(CeilDiv(4 * threads, units), 1, band_items);
  RunTasks(units * bands, threads, [&](int64_t task) {
    const int64_t unit = task / bands, band = task % bands;
    const int64_t n = unit / tiles, t = unit % tiles;
    const int64_t i0 = band_items * band / bands, i1 = band_items * (band + 1) / bands;
    const int64_t oh0 = flat ? 0 : i0, oh1 = flat ? 1 : i1;
    const int64_t col0 = flat ? i0 * kMaxPixels : 0, col1 = flat ? std::min(s.out_width, i1 * kMaxPixels) : s.out_width;
    const int64_t b0 = t * max_blocks_, nf = std::min<int64_t>(max_blocks_, out_blocks_ - b0);
    const float* w_tile = packed_.get() + t * tile_floats_;
    TileArgs a{};
    a.bias = channels_.bias.data() + b0 * L;
    a.mask = partial && b0 + nf == out_blocks_ ? channels_.lane_mask.data() + b0 * L : nullptr;
    a.epilogue = &epilogue_;
    a.x_group_stride = x_group;
    a.x_row_stride = x_row;
    a.x_pix_stride = x_pix;
    a.x_step = s.stride_w * x_pix;
    a.w_group_stride = taps * group_width_ * nf * L;
    a.w_row_stride = s.kernel_w * group_width_ * nf * L;
    a.y_block_stride = y_block;
    a.dil_h = s.dilation_h;
    a.dil_w = s.dilation_w;
    const auto& by_pixels = table[static_cast<size_t>(nf - 1)];
    // The tile calls of one chunk, among which the next weights are shared out.
    const int64_t full_begin = std::max(ow_lo, col0), full_end = std::min(ow_hi, col1);
    const int64_t calls_per_chunk = (oh1 - oh0) * (std::max<int64_t>(0, std::min(ow_lo, col1) - col0) +
                                                   CeilDiv(std::max<int64_t>(0, full_end - full_begin), kMaxPixels) +
                                                   std::max<int64_t>(0, col1 - std::max(ow_hi, col0)));
    for (int64_t c0 = 0; c0 < in_groups_; c0 += chunk_groups_) {
      a.groups = std::min(chunk_groups_, in_groups_ - c0);
      a.x = src + n * x_image + c0 * x_group;
      a.w = w_tile + c0 * a.w_group_stride;
      a.accumulate = c0 > 0 || epilogue_.sum;
      a.final = c0 + a.groups == in_groups_;
      const Region next = NextWeights(t, c0, a.groups);
      int64_t call = 0;
      for (int64_t oh = oh0; oh < oh1; ++oh) {
        a.ih0 = oh * s.stride_h - s.pad_top;
        ValidTaps(a.ih0, s.height, s.kernel_h, s.dilation_h, a.kh0, a.kh1);
        float* y_row = dst + n * y_image + b0 * y_block + oh * s.out_width * L;
        auto run = [&](int64_t ow, int64_t np) {
          a.iw0 = ow * s.stride_w - s.pad_left;
          a.y = y_row + ow * L;
          ShareOf(next, call++, calls_per_chunk, a);
          by_pixels[static_cast<size_t>(np - 1)](a);
        };
        auto edge = [&](int64_t ow) {
          ValidTaps(ow * s.stride_w - s.pad_left, s.width, s.kernel_w, s.dilation_w, a.kw0, a.kw1);
          run(ow, 1);
        };
        for (int64_t ow = col0; ow < std::min(ow_lo, col1); ++ow) edge(ow);
        a.kw0 = 0;
        a.kw1 = s.kernel_w;
        for (int64_t ow = full_begin; ow < full_end; ow += kMaxPixels) {
          run(ow, std::min<int64_t>(kMaxPixels, full_end - ow));
        }
        for (int64_t ow = std::max(ow_hi, col0); ow < col1; ++ow) edge(ow);
      }
    }
  });
}

}  // namespace onyx::kernels
