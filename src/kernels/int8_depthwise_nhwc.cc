#include "kernels/int8_depthwise_nhwc.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/parallel_tasks.h"
#include "kernels/tuning_cache.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kLanes = 16;  // channels per step: one ymm of int16

// 16 int32 sums (two ymm) to 16 8-bit values, bit for bit RequantizeValue: int32 -> float, times the scale, max/min
// against the bounds (maxps keeps the bound for NaN, as `v > lo ? v : lo`), cvtps (round half to even under the
// default rounding mode), plus the zero point; the values are then within the 8-bit range, so the packs do not clip.
template <bool kSignedOut>
__attribute__((target("avx2"))) inline __m128i Requantize16(__m256i a0, __m256i a1, const float* scales, __m256 lo,
                                                            __m256 hi, __m256i zp) {
  __m256 f0 = _mm256_mul_ps(_mm256_cvtepi32_ps(a0), _mm256_loadu_ps(scales));
  __m256 f1 = _mm256_mul_ps(_mm256_cvtepi32_ps(a1), _mm256_loadu_ps(scales + 8));
  f0 = _mm256_min_ps(_mm256_max_ps(f0, lo), hi);
  f1 = _mm256_min_ps(_mm256_max_ps(f1, lo), hi);
  const __m256i i0 = _mm256_add_epi32(_mm256_cvtps_epi32(f0), zp);
  const __m256i i1 = _mm256_add_epi32(_mm256_cvtps_epi32(f1), zp);
  // packs works within 128-bit halves: [i0 lo, i1 lo, i0 hi, i1 hi] as int16, reordered to i0, i1.
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(i0, i1), 0xD8);
  const __m128i lo16 = _mm256_castsi256_si128(w), hi16 = _mm256_extracti128_si256(w, 1);
  return kSignedOut ? _mm_packs_epi16(lo16, hi16) : _mm_packus_epi16(lo16, hi16);
}

template <bool kSignedIn>
__attribute__((target("avx2"))) inline __m256i Widen16(const void* p) {
  const __m128i v = _mm_loadu_si128(static_cast<const __m128i*>(p));
  return kSignedIn ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v);
}

struct RowArgs {
  const DepthwiseNhwcGeometry* g;
  int64_t padded_channels;
  const int16_t* w16;
  const int16_t* w_pairs;      // see DepthwiseNhwcInt8::w_pairs_
  const int64_t* tap_offsets;  // [2 * pairs]: each tap's input offset from the window's first (elements)
  const int32_t* bias;
  const float* scales;
  int32_t x_zero_point, y_zero_point;
};

// Full steps of 16 channels for kPixels neighbouring output pixels whose taps all lie inside the image: taps two at
// a time, their 16-bit values interleaved so that one vpmaddwd multiplies and adds both (exact: two products of at
// most 32640), with the weights interleaved the same way once (DepthwiseNhwcInt8::w_pairs_); the sums come out as
// channels {0-3, 8-11} and {4-7, 12-15} of the 16 (vpunpck works per 128-bit half). Two pixels share each weight
// load and give the core two independent chains of sums. Returns the first channel not done.
template <bool kSignedIn, bool kSignedOut, int kPixels>
__attribute__((target("avx2"))) inline int64_t InteriorSteps(const RowArgs& a, const uint8_t* window,
                                                             int64_t pixel_step, uint8_t* out, __m256i xz, __m256 lo,
                                                             __m256 hi, __m256i yz) {
  const int64_t c_all = a.g->channels, pairs = (a.g->kernel_h * a.g->kernel_w + 1) / 2;
  int64_t c0 = 0;
  for (; c0 + kLanes <= c_all; c0 += kLanes) {
    __m256i s_lo[kPixels], s_hi[kPixels];
    for (int i = 0; i < kPixels; ++i) s_lo[i] = s_hi[i] = _mm256_setzero_si256();
    const int16_t* wp = a.w_pairs + (c0 / kLanes) * pairs * 2 * kLanes;
    for (int64_t p = 0; p < pairs; ++p) {
      const __m256i w_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + p * 2 * kLanes));
      const __m256i w_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + p * 2 * kLanes + kLanes));
      const int64_t off_a = a.tap_offsets[2 * p] + c0, off_b = a.tap_offsets[2 * p + 1] + c0;
      for (int i = 0; i < kPixels; ++i) {
        const uint8_t* win = window + i * pixel_step;
        const __m256i xa = _mm256_sub_epi16(Widen16<kSignedIn>(win + off_a), xz);
        const __m256i xb = _mm256_sub_epi16(Widen16<kSignedIn>(win + off_b), xz);
        s_lo[i] = _mm256_add_epi32(s_lo[i], _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), w_lo));
        s_hi[i] = _mm256_add_epi32(s_hi[i], _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), w_hi));
      }
    }
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.bias + c0));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.bias + c0 + 8));
    for (int i = 0; i < kPixels; ++i) {
      const __m256i acc0 = _mm256_add_epi32(_mm256_permute2x128_si256(s_lo[i], s_hi[i], 0x20), b0);
      const __m256i acc1 = _mm256_add_epi32(_mm256_permute2x128_si256(s_lo[i], s_hi[i], 0x31), b1);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i * c_all + c0),
                       Requantize16<kSignedOut>(acc0, acc1, a.scales + c0, lo, hi, yz));
    }
  }
  return c0;
}

// Output row (n, oy): every pixel, 16 channels at a time; the last partial step reads and writes through a
// 16-byte buffer (no read past the image, no write past the row).
template <bool kSignedIn, bool kSignedOut>
__attribute__((target("avx2"))) void Row(const RowArgs& a, const uint8_t* x, uint8_t* y, int64_t n, int64_t oy) {
  const DepthwiseNhwcGeometry& g = *a.g;
  const int64_t c_all = g.channels;
  const __m256i xz = _mm256_set1_epi16(static_cast<int16_t>(a.x_zero_point));
  const float qmin = kSignedOut ? -128.0f : 0.0f, qmax = kSignedOut ? 127.0f : 255.0f;
  const __m256 lo = _mm256_set1_ps(qmin - static_cast<float>(a.y_zero_point));
  const __m256 hi = _mm256_set1_ps(qmax - static_cast<float>(a.y_zero_point));
  const __m256i yz = _mm256_set1_epi32(a.y_zero_point);
  // Taps of this row inside the image (the rows do not depend on ox).
  int64_t ky_lo = 0, ky_hi = g.kernel_h;
  while (ky_lo < ky_hi && oy * g.stride_h - g.pad_top + ky_lo * g.dilation_h < 0) ++ky_lo;
  while (ky_hi > ky_lo && oy * g.stride_h - g.pad_top + (ky_hi - 1) * g.dilation_h >= g.in_h) --ky_hi;
  uint8_t* out_row = y + ((n * g.out_h + oy) * g.out_w) * c_all;
  alignas(16) uint8_t tail_in[kLanes];
  alignas(16) uint8_t tail_out[kLanes];
  const bool row_inside = ky_lo == 0 && ky_hi == g.kernel_h;
  // The output columns whose taps all lie inside the image.
  const int64_t ox_first = std::min(g.out_w, (g.pad_left + g.stride_w - 1) / g.stride_w);
  int64_t ox_end = ox_first;
  while (ox_end < g.out_w && ox_end * g.stride_w - g.pad_left + (g.kernel_w - 1) * g.dilation_w < g.in_w) ++ox_end;
  for (int64_t ox = 0; ox < g.out_w; ++ox) {
    int64_t kx_lo = 0, kx_hi = g.kernel_w;
    while (kx_lo < kx_hi && ox * g.stride_w - g.pad_left + kx_lo * g.dilation_w < 0) ++kx_lo;
    while (kx_hi > kx_lo && ox * g.stride_w - g.pad_left + (kx_hi - 1) * g.dilation_w >= g.in_w) --kx_hi;
    uint8_t* out = out_row + ox * c_all;
    int64_t c0 = 0;
    if (row_inside && ox >= ox_first && ox < ox_end) {
      const uint8_t* window =
          x + ((n * g.in_h + oy * g.stride_h - g.pad_top) * g.in_w + ox * g.stride_w - g.pad_left) * c_all;
      if (ox + 1 < ox_end) {
        // This pixel and the next one; the next one's partial step, if any, is done on its own turn.
        const int64_t done =
            InteriorSteps<kSignedIn, kSignedOut, 2>(a, window, g.stride_w * c_all, out, xz, lo, hi, yz);
        if (done == c_all) {
          ++ox;
          continue;
        }
        c0 = done;
        // Fall through for this pixel's partial step; the next pixel redoes its own full steps (same values).
      } else {
        c0 = InteriorSteps<kSignedIn, kSignedOut, 1>(a, window, 0, out, xz, lo, hi, yz);
      }
    }
    for (; c0 < c_all; c0 += kLanes) {
      const bool partial = c0 + kLanes > c_all;
      __m256i acc0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.bias + c0));
      __m256i acc1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.bias + c0 + 8));
      for (int64_t ky = ky_lo; ky < ky_hi; ++ky) {
        const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
        const uint8_t* in_row = x + ((n * g.in_h + iy) * g.in_w) * c_all + c0;
        const int16_t* w_row = a.w16 + (ky * g.kernel_w) * a.padded_channels + c0;
        for (int64_t kx = kx_lo; kx < kx_hi; ++kx) {
          const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
          const uint8_t* src = in_row + ix * c_all;
          if (partial) {
            std::memset(tail_in, 0, sizeof tail_in);
            std::memcpy(tail_in, src, static_cast<size_t>(c_all - c0));
            src = tail_in;
          }
          const __m256i xv = _mm256_sub_epi16(Widen16<kSignedIn>(src), xz);
          const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w_row + kx * a.padded_channels));
          const __m256i p = _mm256_mullo_epi16(xv, wv);  // exact: |p| <= 255 * 128
          acc0 = _mm256_add_epi32(acc0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(p)));
          acc1 = _mm256_add_epi32(acc1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(p, 1)));
        }
      }
      const __m128i q = Requantize16<kSignedOut>(acc0, acc1, a.scales + c0, lo, hi, yz);
      if (partial) {
        _mm_store_si128(reinterpret_cast<__m128i*>(tail_out), q);
        std::memcpy(out + c0, tail_out, static_cast<size_t>(c_all - c0));
      } else {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + c0), q);
      }
    }
  }
}

}  // namespace

bool DepthwiseNhwcInt8::Available() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

DepthwiseNhwcInt8::DepthwiseNhwcInt8(const DepthwiseNhwcGeometry& g, const int8_t* weights, const int32_t* bias,
                                     const std::vector<float>& scales, int32_t x_zero_point, bool signed_input,
                                     int32_t y_zero_point, bool signed_output)
    : g_(g),
      padded_channels_((g.channels + kLanes - 1) / kLanes * kLanes),
      x_zero_point_(x_zero_point),
      y_zero_point_(y_zero_point),
      signed_input_(signed_input),
      signed_output_(signed_output) {
  const int64_t taps = g.kernel_h * g.kernel_w, pc = padded_channels_;
  w16_.assign(static_cast<size_t>(taps * pc), 0);
  for (int64_t c = 0; c < g.channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) w16_[static_cast<size_t>(t * pc + c)] = weights[c * taps + t];
  }
  // Pairs of taps (2p, 2p + 1), the last one paired with a zero weight when the count is odd; per 16 channels and
  // pair, the two taps' weights interleaved as vpunpcklwd/vpunpckhwd interleave the inputs: 16 values for channels
  // {0-3, 8-11}, then 16 for {4-7, 12-15}, alternating the two taps.
  const int64_t pairs = (taps + 1) / 2;
  w_pairs_.assign(static_cast<size_t>(pc / kLanes * pairs * 2 * kLanes), 0);
  for (int64_t blk = 0; blk < pc / kLanes; ++blk) {
    for (int64_t p = 0; p < pairs; ++p) {
      int16_t* dst = w_pairs_.data() + (blk * pairs + p) * 2 * kLanes;
      for (int half = 0; half < 2; ++half) {             // vpunpckl (0) or vpunpckh (1)
        for (int lane128 = 0; lane128 < 2; ++lane128) {  // the ymm's two 128-bit halves
          for (int i = 0; i < 4; ++i) {
            const int64_t c = blk * kLanes + lane128 * 8 + half * 4 + i;
            for (int tap = 0; tap < 2; ++tap) {
              const int64_t t = 2 * p + tap;
              dst[half * kLanes + lane128 * 8 + i * 2 + tap] =
                  t < taps ? w16_[static_cast<size_t>(t * pc + c)] : int16_t{0};
            }
          }
        }
      }
    }
  }
  tap_offsets_.assign(static_cast<size_t>(pairs * 2), 0);
  for (int64_t t = 0; t < pairs * 2; ++t) {
    const int64_t tt = std::min(t, taps - 1);  // the odd count's partner reads the last tap again (weight 0)
    const int64_t ky = tt / g.kernel_w, kx = tt % g.kernel_w;
    tap_offsets_[static_cast<size_t>(t)] = (ky * g.dilation_h * g.in_w + kx * g.dilation_w) * g.channels;
  }
  bias_.assign(static_cast<size_t>(pc), 0);
  if (bias != nullptr) std::copy(bias, bias + g.channels, bias_.begin());
  scales_.assign(static_cast<size_t>(pc), 0.0f);
  for (int64_t c = 0; c < g.channels; ++c) {
    scales_[static_cast<size_t>(c)] = scales[scales.size() == 1 ? 0 : static_cast<size_t>(c)];
  }
}

void DepthwiseNhwcInt8::EvictWeights() const {
  FlushFromCaches(w16_.data(), w16_.size() * sizeof(int16_t));
  FlushFromCaches(w_pairs_.data(), w_pairs_.size() * sizeof(int16_t));
}

void DepthwiseNhwcInt8::Run(const void* x, void* y, int threads) const {
  const RowArgs args{&g_,          padded_channels_, w16_.data(),   w_pairs_.data(), tap_offsets_.data(),
                     bias_.data(), scales_.data(),   x_zero_point_, y_zero_point_};
  auto* row = signed_input_ ? (signed_output_ ? Row<true, true> : Row<true, false>)
                            : (signed_output_ ? Row<false, true> : Row<false, false>);
  const auto* in = static_cast<const uint8_t*>(x);
  auto* out = static_cast<uint8_t*>(y);
  const int64_t rows = g_.batch * g_.out_h;
  // A row is worth a thread's wake-up from about 64K multiply-adds.
  const int64_t work = g_.out_w * g_.channels * g_.kernel_h * g_.kernel_w;
  const int team = static_cast<int>(std::clamp<int64_t>(rows * work / 65536, 1, std::max(threads, 1)));
  RunTasks(rows, team, [&](int64_t r) { row(args, in, out, r / g_.out_h, r % g_.out_h); });
}

}  // namespace onyx::kernels
