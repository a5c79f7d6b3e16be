// Highway implementation of int8_pool.h (dispatch as in int8_quantize.cc).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/int8_pool.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// foreach_target.h must come first: it re-includes this file, with the headers below, for each target.
#include <hwy/highway.h>

#include <cstdint>
#include <limits>

#include "kernels/int8_pool.h"

HWY_BEFORE_NAMESPACE();
namespace onyx::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Blocks of four int32 vectors of channels (64 with AVX-512) kept in registers over all the pixels, so each byte is
// read once and each sum stored once; the channels left over go one vector, then one value, at a time.
template <typename Q>
void SumPixelsT(const Q* HWY_RESTRICT x, int64_t pixels, int64_t channels, int32_t* HWY_RESTRICT sums) {
  const hn::ScalableTag<int32_t> d;
  const hn::Rebind<Q, decltype(d)> dq;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t k = 0;
  for (; k + 4 * lanes <= channels; k += 4 * lanes) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    const Q* p = x + k;
    for (int64_t i = 0; i < pixels; ++i, p += channels) {
      a0 = hn::Add(a0, hn::PromoteTo(d, hn::LoadU(dq, p)));
      a1 = hn::Add(a1, hn::PromoteTo(d, hn::LoadU(dq, p + lanes)));
      a2 = hn::Add(a2, hn::PromoteTo(d, hn::LoadU(dq, p + 2 * lanes)));
      a3 = hn::Add(a3, hn::PromoteTo(d, hn::LoadU(dq, p + 3 * lanes)));
    }
    hn::StoreU(a0, d, sums + k);
    hn::StoreU(a1, d, sums + k + lanes);
    hn::StoreU(a2, d, sums + k + 2 * lanes);
    hn::StoreU(a3, d, sums + k + 3 * lanes);
  }
  for (; k + lanes <= channels; k += lanes) {
    auto a = hn::Zero(d);
    const Q* p = x + k;
    for (int64_t i = 0; i < pixels; ++i, p += channels) a = hn::Add(a, hn::PromoteTo(d, hn::LoadU(dq, p)));
    hn::StoreU(a, d, sums + k);
  }
  for (; k < channels; ++k) {
    uint32_t s = 0;  // unsigned: wraps like the int32 sums of the vectors
    for (int64_t i = 0; i < pixels; ++i) s += static_cast<uint32_t>(static_cast<int32_t>(x[i * channels + k]));
    sums[k] = static_cast<int32_t>(s);
  }
}

// Per output pixel, blocks of up to four vectors of channels held in registers over the window's taps: each input
// byte read once per window it falls in, each output byte written once.
template <typename Q>
void MaxPoolRowT(const Q* HWY_RESTRICT x, const int64_t* HWY_RESTRICT offsets, const int32_t* HWY_RESTRICT counts,
                 int64_t max_taps, int64_t out_pixels, int64_t channels, Q* HWY_RESTRICT out) {
  const hn::ScalableTag<Q> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto lowest = hn::Set(d, std::numeric_limits<Q>::lowest());
  for (int64_t o = 0; o < out_pixels; ++o) {
    const int64_t* tap = offsets + o * max_taps;
    const int32_t taps = counts[o];
    Q* y = out + o * channels;
    int64_t k = 0;
    for (; k + 4 * lanes <= channels; k += 4 * lanes) {
      auto m0 = lowest, m1 = lowest, m2 = lowest, m3 = lowest;
      for (int32_t t = 0; t < taps; ++t) {
        const Q* p = x + tap[t] + k;
        m0 = hn::Max(m0, hn::LoadU(d, p));
        m1 = hn::Max(m1, hn::LoadU(d, p + lanes));
        m2 = hn::Max(m2, hn::LoadU(d, p + 2 * lanes));
        m3 = hn::Max(m3, hn::LoadU(d, p + 3 * lanes));
      }
      hn::StoreU(m0, d, y + k);
      hn::StoreU(m1, d, y + k + lanes);
      hn::StoreU(m2, d, y + k + 2 * lanes);
      hn::StoreU(m3, d, y + k + 3 * lanes);
    }
    for (; k + lanes <= channels; k += lanes) {
      auto m = lowest;
      for (int32_t t = 0; t < taps; ++t) m = hn::Max(m, hn::LoadU(d, x + tap[t] + k));
      hn::StoreU(m, d, y + k);
    }
    for (; k < channels; ++k) {
      Q m = std::numeric_limits<Q>::lowest();
      for (int32_t t = 0; t < taps; ++t) m = x[tap[t] + k] > m ? x[tap[t] + k] : m;
      y[k] = m;
    }
  }
}

void MaxPoolRowU8(const uint8_t* x, const int64_t* offsets, const int32_t* counts, int64_t max_taps, int64_t out_pixels,
                  int64_t channels, uint8_t* out) {
  MaxPoolRowT(x, offsets, counts, max_taps, out_pixels, channels, out);
}
void MaxPoolRowS8(const int8_t* x, const int64_t* offsets, const int32_t* counts, int64_t max_taps, int64_t out_pixels,
                  int64_t channels, int8_t* out) {
  MaxPoolRowT(x, offsets, counts, max_taps, out_pixels, channels, out);
}

void SumPixelsU8(const uint8_t* x, int64_t pixels, int64_t channels, int32_t* sums) {
  SumPixelsT(x, pixels, channels, sums);
}
void SumPixelsS8(const int8_t* x, int64_t pixels, int64_t channels, int32_t* sums) {
  SumPixelsT(x, pixels, channels, sums);
}

}  // namespace HWY_NAMESPACE
}  // namespace onyx::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onyx::kernels {

HWY_EXPORT(SumPixelsU8);
HWY_EXPORT(SumPixelsS8);
HWY_EXPORT(MaxPoolRowU8);
HWY_EXPORT(MaxPoolRowS8);

void SumPixelsChannelsLast(const uint8_t* x, int64_t pixels, int64_t channels, int32_t* sums) {
  HWY_DYNAMIC_DISPATCH(SumPixelsU8)(x, pixels, channels, sums);
}
void SumPixelsChannelsLast(const int8_t* x, int64_t pixels, int64_t channels, int32_t* sums) {
  HWY_DYNAMIC_DISPATCH(SumPixelsS8)(x, pixels, channels, sums);
}

void MaxPoolRow(const uint8_t* x, const int64_t* offsets, const int32_t* counts, int64_t max_taps, int64_t out_pixels,
                int64_t channels, uint8_t* out) {
  HWY_DYNAMIC_DISPATCH(MaxPoolRowU8)(x, offsets, counts, max_taps, out_pixels, channels, out);
}
void MaxPoolRow(const int8_t* x, const int64_t* offsets, const int32_t* counts, int64_t max_taps, int64_t out_pixels,
                int64_t channels, int8_t* out) {
  HWY_DYNAMIC_DISPATCH(MaxPoolRowS8)(x, offsets, counts, max_taps, out_pixels, channels, out);
}

}  // namespace onyx::kernels
#endif  // HWY_ONCE
