// The channels-last 8-bit depthwise kernel (src/kernels/int8_depthwise_nhwc.h) against its definition computed here
// (exact int32 sums over the taps inside the image, then kernels::RequantizeValue): channel counts with and without
// a partial step of 16, strides, dilations, asymmetric padding, odd and even tap counts, signed and unsigned input
// and output.
#include "kernels/int8_depthwise_nhwc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/int8_requantize.h"

namespace onyx::kernels {
namespace {

template <typename X, typename Q>
void Check(const DepthwiseNhwcGeometry& g, int threads) {
  const int64_t c_all = g.channels, taps = g.kernel_h * g.kernel_w;
  std::vector<X> x(static_cast<size_t>(g.batch * g.in_h * g.in_w * c_all));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<X>((i * 131 + 7) % 256);
  std::vector<int8_t> w(static_cast<size_t>(c_all * taps));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>((i * 89 + 3) % 256) - 128);
  std::vector<int32_t> bias(static_cast<size_t>(c_all));
  std::vector<float> scales(static_cast<size_t>(c_all));
  for (int64_t c = 0; c < c_all; ++c) {
    bias[static_cast<size_t>(c)] = static_cast<int32_t>(c * 373 % 2000) - 1000;
    scales[static_cast<size_t>(c)] = 0.0005f * static_cast<float>(c % 7 + 1);
  }
  const int32_t xz = std::is_signed_v<X> ? -3 : 121, yz = std::is_signed_v<Q> ? 5 : 130;
  DepthwiseNhwcInt8 dw(g, w.data(), bias.data(), scales, xz, std::is_signed_v<X>, yz, std::is_signed_v<Q>);
  std::vector<Q> y(static_cast<size_t>(g.batch * g.out_h * g.out_w * c_all));
  dw.Run(x.data(), y.data(), threads);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oy = 0; oy < g.out_h; ++oy) {
      for (int64_t ox = 0; ox < g.out_w; ++ox) {
        for (int64_t c = 0; c < c_all; ++c) {
          int32_t acc = bias[static_cast<size_t>(c)];
          for (int64_t ky = 0; ky < g.kernel_h; ++ky) {
            const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
              const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
              if (ix < 0 || ix >= g.in_w) continue;
              acc +=
                  (static_cast<int32_t>(x[static_cast<size_t>(((n * g.in_h + iy) * g.in_w + ix) * c_all + c)]) - xz) *
                  w[static_cast<size_t>(c * taps + ky * g.kernel_w + kx)];
            }
          }
          const size_t at = static_cast<size_t>(((n * g.out_h + oy) * g.out_w + ox) * c_all + c);
          ASSERT_EQ(y[at], RequantizeValue<Q>(acc, scales[static_cast<size_t>(c)], yz))
              << "n " << n << " oy " << oy << " ox " << ox << " c " << c;
        }
      }
    }
  }
}

DepthwiseNhwcGeometry Geometry(int64_t c, int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad) {
  DepthwiseNhwcGeometry g;
  g.batch = 2;
  g.channels = c;
  g.in_h = in;
  g.in_w = in + 3;
  g.kernel_h = k;
  g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  g.dilation_h = g.dilation_w = dilation;
  g.pad_top = pad;
  g.pad_left = pad > 0 ? pad - 1 : 0;  // asymmetric
  g.out_h = (g.in_h + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
  g.out_w = (g.in_w + pad + g.pad_left - dilation * (k - 1) - 1) / stride + 1;
  return g;
}

TEST(DepthwiseNhwcInt8, MatchesItsDefinition) {
  if (!DepthwiseNhwcInt8::Available()) GTEST_SKIP() << "no AVX2";
  Check<uint8_t, uint8_t>(Geometry(32, 9, 3, 1, 1, 1), 1);
  Check<uint8_t, uint8_t>(Geometry(19, 10, 3, 2, 1, 1), 2);  // a partial step of 16
  Check<uint8_t, int8_t>(Geometry(40, 8, 5, 1, 1, 2), 2);    // 25 taps (odd: a zero-weight partner)
  Check<int8_t, uint8_t>(Geometry(16, 11, 3, 1, 2, 2), 1);   // dilation
  Check<int8_t, int8_t>(Geometry(7, 6, 2, 2, 1, 0), 2);      // 4 taps, no padding, fewer channels than a step
  DepthwiseNhwcGeometry g = Geometry(48, 12, 1, 1, 1, 0);
  g.kernel_w = 3;  // 1 x 3
  g.pad_left = 1;
  g.out_w = g.in_w;
  Check<uint8_t, uint8_t>(g, 2);
}

}  // namespace
}  // namespace onyx::kernels
