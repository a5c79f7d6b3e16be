#include "kernels/int8_requantize.h"

#include <immintrin.h>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace onyx::kernels {
namespace {

// Pixels per tile of the channels-last to channels-first passes: a tile of 64 pixels x channels int32 stays in L1/L2
// while it is transposed, and each output row segment is 64 contiguous bytes or more.
constexpr int64_t kTile = 64;

// The same computation on AVX2, 8 pixels x 8 channels at a time: the int32 block is transposed in registers, so that
// each register holds 8 pixels of one channel, then requantized with that channel's bias and scale and stored as 8
// bytes of the channel-first output. Bit for bit RequantizeValue: int32 -> float conversion, float multiply,
// max/min against the bounds (maxps keeps the bound for NaN, as `v > lo ? v : lo`), cvtps (round half to even under
// the default rounding mode), then the zero point. Returns how many pixels it did (a multiple of 8); the caller does
// the rest, and channels past the last multiple of 8.
template <typename Q>
__attribute__((target("avx2"))) int64_t RequantizeBlocksAvx2(const int32_t* acc, int64_t pixels, int64_t channels,
                                                             const int32_t* bias, const float* scales,
                                                             int32_t zero_point, Q* out, int64_t out_stride) {
  const int64_t full_pixels = pixels / 8 * 8, full_channels = channels / 8 * 8;
  const __m256 lo = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::lowest() - zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(std::numeric_limits<Q>::max() - zero_point));
  const __m256i zp = _mm256_set1_epi32(zero_point);
  for (int64_t p0 = 0; p0 < full_pixels; p0 += 8) {
    for (int64_t c0 = 0; c0 < full_channels; c0 += 8) {
      __m256 r[8];
      for (int k = 0; k < 8; ++k) {
        r[k] =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + (p0 + k) * channels + c0)));
      }
      const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
      const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
      const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
      const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
      const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
      const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      __m256 col[8];
      col[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
      col[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
      col[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
      col[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
      col[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
      col[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
      col[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
      col[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
      for (int k = 0; k < 8; ++k) {
        __m256i a = _mm256_castps_si256(col[k]);
        if (bias != nullptr) a = _mm256_add_epi32(a, _mm256_set1_epi32(bias[c0 + k]));
        __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), _mm256_set1_ps(scales[c0 + k]));
        v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
        const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp);
        const __m128i q16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        const __m128i q8 = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(q16, q16) : _mm_packs_epi16(q16, q16);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (c0 + k) * out_stride + p0), q8);
      }
    }
  }
  return full_pixels;
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

}  // namespace

template <typename Q>
void RequantizeNhwcToNchw(const int32_t* acc, int64_t pixels, int64_t channels, const int32_t* bias,
                          const float* scales, int32_t zero_point, Q* out, int64_t out_stride) {
  // AVX2: whole 8 x 8 blocks; the remaining channels of those pixels go through the loops below.
  int64_t done = 0;
  if (HasAvx2() && channels >= 8) {
    done = RequantizeBlocksAvx2<Q>(acc, pixels, channels, bias, scales, zero_point, out, out_stride);
    const int64_t c_done = channels / 8 * 8;
    for (int64_t c = c_done; c < channels; ++c) {
      const int32_t b = bias != nullptr ? bias[c] : 0;
      for (int64_t p = 0; p < done; ++p) {
        const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(acc[p * channels + c]) + static_cast<uint32_t>(b));
        out[c * out_stride + p] = RequantizeValue<Q>(v, scales[c], zero_point);
      }
    }
  }
  // Requantize a tile along the contiguous channel axis (vectorizes), then transpose the bytes.
  std::vector<Q> tile(static_cast<size_t>(kTile * channels));
  for (int64_t p0 = done; p0 < pixels; p0 += kTile) {
    const int64_t np = std::min(kTile, pixels - p0);
    for (int64_t p = 0; p < np; ++p) {
      const int32_t* a = acc + (p0 + p) * channels;
      Q* t = tile.data() + p * channels;
      if (bias != nullptr) {
        for (int64_t c = 0; c < channels; ++c) {
          const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(a[c]) + static_cast<uint32_t>(bias[c]));
          t[c] = RequantizeValue<Q>(v, scales[c], zero_point);
        }
      } else {
        for (int64_t c = 0; c < channels; ++c) t[c] = RequantizeValue<Q>(a[c], scales[c], zero_point);
      }
    }
    for (int64_t c = 0; c < channels; ++c) {
      Q* o = out + c * out_stride + p0;
      const Q* t = tile.data() + c;
      for (int64_t p = 0; p < np; ++p) o[p] = t[p * channels];
    }
  }
}

template <typename Q>
void RequantizeRows(const int32_t* acc, int64_t rows, int64_t cols, const int32_t* bias, const float* scales,
                    bool per_column, int32_t zero_point, Q* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* a = acc + r * cols;
    Q* o = out + r * cols;
    if (per_column) {
      for (int64_t c = 0; c < cols; ++c) {
        const int32_t b = bias != nullptr ? bias[c] : 0;
        const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(a[c]) + static_cast<uint32_t>(b));
        o[c] = RequantizeValue<Q>(v, scales[c], zero_point);
      }
    } else {
      const float s = scales[0];
      for (int64_t c = 0; c < cols; ++c) {
        const int32_t b = bias != nullptr ? bias[c] : 0;
        const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(a[c]) + static_cast<uint32_t>(b));
        o[c] = RequantizeValue<Q>(v, s, zero_point);
      }
    }
  }
}

void Int32NhwcToNchw(const int32_t* in, int64_t pixels, int64_t channels, int32_t* out) {
  for (int64_t p0 = 0; p0 < pixels; p0 += kTile) {
    const int64_t np = std::min(kTile, pixels - p0);
    for (int64_t c = 0; c < channels; ++c) {
      int32_t* o = out + c * pixels + p0;
      const int32_t* t = in + p0 * channels + c;
      for (int64_t p = 0; p < np; ++p) o[p] = t[p * channels];
    }
  }
}

template void RequantizeNhwcToNchw<uint8_t>(const int32_t*, int64_t, int64_t, const int32_t*, const float*, int32_t,
                                            uint8_t*, int64_t);
template void RequantizeNhwcToNchw<int8_t>(const int32_t*, int64_t, int64_t, const int32_t*, const float*, int32_t,
                                           int8_t*, int64_t);
template void RequantizeRows<uint8_t>(const int32_t*, int64_t, int64_t, const int32_t*, const float*, bool, int32_t,
                                      uint8_t*);
template void RequantizeRows<int8_t>(const int32_t*, int64_t, int64_t, const int32_t*, const float*, bool, int32_t,
                                     int8_t*);

}  // namespace onyx::kernels
