// The exact reference of the channels-last VNNI int8 convolution tests (int8_direct_conv_nhwc_test.cc,
// int8_pointwise_nhwc_test.cc): the int32 sums over the window (taps outside the image skipped), wrapping as the
// reference's, requantized by RequantizeValue (MLAS's formula).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/int8_direct_conv_nhwc.h"
#include "kernels/int8_requantize.h"

namespace onyx::kernels {

// y [N, OH, OW, M] as bytes of Q (uint8_t or int8_t) for x [N, H, W, C] (int8 where signed_in) and w [M, C, KH, KW];
// scales: 1 or M values.
template <typename Q>
std::vector<uint8_t> ReferenceConvNhwc(const DirectConvNhwcGeometry& g, bool signed_in, int32_t x_zp, int32_t y_zp,
                                       const std::vector<uint8_t>& x, const std::vector<int8_t>& w,
                                       const std::vector<int32_t>& bias, const std::vector<float>& scales) {
  std::vector<uint8_t> y(static_cast<size_t>(g.batch * g.out_h * g.out_w * g.out_channels));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oy = 0; oy < g.out_h; ++oy) {
      for (int64_t ox = 0; ox < g.out_w; ++ox) {
        for (int64_t o = 0; o < g.out_channels; ++o) {
          uint32_t sum = static_cast<uint32_t>(bias[static_cast<size_t>(o)]);  // wraps as the int32 reference
          for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
            const int64_t iy = oy * g.stride_h - g.pad_top + kh * g.dilation_h;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const int64_t ix = ox * g.stride_w - g.pad_left + kw * g.dilation_w;
              if (ix < 0 || ix >= g.in_w) continue;
              const uint8_t* px = x.data() + ((n * g.in_h + iy) * g.in_w + ix) * g.in_channels;
              for (int64_t i = 0; i < g.in_channels; ++i) {
                const int32_t xv = signed_in ? static_cast<int8_t>(px[i]) : static_cast<int32_t>(px[i]);
                const int8_t wv = w[static_cast<size_t>(((o * g.in_channels + i) * g.kernel_h + kh) * g.kernel_w + kw)];
                sum += static_cast<uint32_t>((xv - x_zp) * wv);
              }
            }
          }
          const float scale = scales[scales.size() > 1 ? static_cast<size_t>(o) : 0];
          const Q q = RequantizeValue<Q>(static_cast<int32_t>(sum), scale, y_zp);
          y[static_cast<size_t>(((n * g.out_h + oy) * g.out_w + ox) * g.out_channels + o)] = static_cast<uint8_t>(q);
        }
      }
    }
  }
  return y;
}

}  // namespace onyx::kernels
