#include "kernels/int8_depthwise.h"

#include <algorithm>
#include <vector>

#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

// acc[ox] += weight * src[ox * stride] for ox < count, in uint32 (two's-complement wrapping, as the reference loops'
// int32 sums). Compiled twice: plain x86-64 and AVX2 (8 lanes), picked once per process.
__attribute__((always_inline)) inline void RowTimesWeightBody(uint32_t* acc, const int32_t* src, int64_t count,
                                                              int64_t stride, uint32_t weight) {
  if (stride == 1) {
    for (int64_t ox = 0; ox < count; ++ox) acc[ox] += weight * static_cast<uint32_t>(src[ox]);
  } else {
    for (int64_t ox = 0; ox < count; ++ox) acc[ox] += weight * static_cast<uint32_t>(src[ox * stride]);
  }
}

void RowTimesWeight(uint32_t* acc, const int32_t* src, int64_t count, int64_t stride, uint32_t weight) {
  RowTimesWeightBody(acc, src, count, stride, weight);
}

__attribute__((target("avx2"))) void RowTimesWeightAvx2(uint32_t* acc, const int32_t* src, int64_t count,
                                                        int64_t stride, uint32_t weight) {
  RowTimesWeightBody(acc, src, count, stride, weight);
}

using RowFn = void (*)(uint32_t*, const int32_t*, int64_t, int64_t, uint32_t);

RowFn ActiveRowFn() {
  static const RowFn fn = __builtin_cpu_supports("avx2") ? RowTimesWeightAvx2 : RowTimesWeight;
  return fn;
}

}  // namespace

template <typename X, typename W>
void DepthwiseConvInt8(const DepthwiseInt8Dims& d, const X* x, int32_t x_zp, const W* w, const int32_t* w_zp,
                       int32_t* y, int threads) {
  // The padded plane covers every tap any output reads: rows [0, padded_h) are input rows [-pad_top, ...).
  const int64_t padded_h = (d.out_h - 1) * d.stride_h + (d.kernel_h - 1) * d.dilation_h + 1;
  const int64_t padded_w = (d.out_w - 1) * d.stride_w + (d.kernel_w - 1) * d.dilation_w + 1;
  const int64_t taps = d.kernel_h * d.kernel_w;
  const int64_t in_plane = d.in_h * d.in_w, out_plane = d.out_h * d.out_w;
  const RowFn row_fn = ActiveRowFn();
  RunTasks(d.batch * d.channels, threads, [&](int64_t task) {
    const int64_t n = task / d.channels, c = task % d.channels;
    thread_local std::vector<int32_t> plane;
    thread_local std::vector<uint32_t> acc;
    thread_local std::vector<uint32_t> weights;
    plane.assign(static_cast<size_t>(padded_h * padded_w), 0);
    acc.resize(static_cast<size_t>(d.out_w));
    weights.resize(static_cast<size_t>(taps));
    const X* xc = x + (n * d.channels + c) * in_plane;
    for (int64_t py = 0; py < padded_h; ++py) {
      const int64_t iy = py - d.pad_top;
      if (iy < 0 || iy >= d.in_h) continue;
      int32_t* dst = plane.data() + py * padded_w;
      for (int64_t px = std::max<int64_t>(0, d.pad_left); px < padded_w; ++px) {
        const int64_t ix = px - d.pad_left;
        if (ix >= d.in_w) break;
        dst[px] = int32_t{xc[iy * d.in_w + ix]} - x_zp;
      }
    }
    for (int64_t j = 0; j < d.multiplier; ++j) {
      const int64_t m = c * d.multiplier + j;
      for (int64_t t = 0; t < taps; ++t) {
        weights[static_cast<size_t>(t)] = static_cast<uint32_t>(int32_t{w[m * taps + t]} - w_zp[m]);
      }
      int32_t* ym = y + (n * d.channels * d.multiplier + m) * out_plane;
      for (int64_t oy = 0; oy < d.out_h; ++oy) {
        std::fill(acc.begin(), acc.end(), 0u);
        for (int64_t ky = 0; ky < d.kernel_h; ++ky) {
          const int32_t* row = plane.data() + (oy * d.stride_h + ky * d.dilation_h) * padded_w;
          for (int64_t kx = 0; kx < d.kernel_w; ++kx) {
            row_fn(acc.data(), row + kx * d.dilation_w, d.out_w, d.stride_w,
                   weights[static_cast<size_t>(ky * d.kernel_w + kx)]);
          }
        }
        int32_t* out = ym + oy * d.out_w;
        for (int64_t ox = 0; ox < d.out_w; ++ox) out[ox] = static_cast<int32_t>(acc[static_cast<size_t>(ox)]);
      }
    }
  });
}

template void DepthwiseConvInt8<uint8_t, uint8_t>(const DepthwiseInt8Dims&, const uint8_t*, int32_t, const uint8_t*,
                                                  const int32_t*, int32_t*, int);
template void DepthwiseConvInt8<uint8_t, int8_t>(const DepthwiseInt8Dims&, const uint8_t*, int32_t, const int8_t*,
                                                 const int32_t*, int32_t*, int);
template void DepthwiseConvInt8<int8_t, uint8_t>(const DepthwiseInt8Dims&, const int8_t*, int32_t, const uint8_t*,
                                                 const int32_t*, int32_t*, int);
template void DepthwiseConvInt8<int8_t, int8_t>(const DepthwiseInt8Dims&, const int8_t*, int32_t, const int8_t*,
                                                const int32_t*, int32_t*, int);

}  // namespace onyx::kernels
