// The im2col path that pairs int8 products as MLAS does for odd-channel convolutions (ops/nn/conv_core.h,
// Im2colGemmSums): with weights in [-64, 64] no pair can saturate, so its sums must equal the definition's, whatever
// the stride, dilation and padding, for images channels last and channels first. (Where pairs saturate, the bytes
// of ONNX Runtime decide: ctest quant_bit_exact, tests/data/quant/qdq_stem and qlinear_stem.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ops/nn/conv_core.h"

namespace onyx::ops::nn {
namespace {

void Check(int64_t c, int64_t m, int64_t h, int64_t w, int64_t k, int64_t stride, int64_t dilation, int64_t pad) {
  WindowAttrs attrs;
  attrs.strides = {stride, stride};
  attrs.dilations = {dilation, dilation};
  attrs.pads = {pad, pad + 1, pad, pad};  // asymmetric
  const Shape x_shape{2, c, h, w}, w_shape{m, c, k, k};
  auto g = ResolveConv(attrs, 1, x_shape, w_shape);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const WindowAxis& ah = g->axes[0];
  const WindowAxis& aw = g->axes[1];
  Tensor weights = Tensor::Allocate(DataType::kInt8, w_shape);
  for (int64_t i = 0; i < weights.size(); ++i) weights.data<int8_t>()[i] = static_cast<int8_t>((i * 37) % 129 - 64);
  std::vector<uint8_t> nchw(static_cast<size_t>(2 * c * h * w)), nhwc(nchw.size());
  for (size_t i = 0; i < nchw.size(); ++i) nchw[i] = static_cast<uint8_t>((i * 91 + 17) % 256);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t ci = 0; ci < c; ++ci) {
      for (int64_t p = 0; p < h * w; ++p) {
        nhwc[static_cast<size_t>((n * h * w + p) * c + ci)] = nchw[static_cast<size_t>((n * c + ci) * h * w + p)];
      }
    }
  }
  const int32_t xz = 131;
  const std::vector<int8_t> khwc = WeightsKhwc(weights);
  const int64_t pixels = 2 * ah.out * aw.out;
  for (bool channels_last : {true, false}) {
    std::vector<int32_t> acc(static_cast<size_t>(pixels * m));
    if (!Im2colGemmSums(*g, channels_last ? nhwc.data() : nchw.data(), channels_last, xz, khwc.data(), 2, acc.data())) {
      GTEST_SKIP() << "no int8 GEMM on this CPU";
    }
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t oy = 0; oy < ah.out; ++oy) {
        for (int64_t ox = 0; ox < aw.out; ++ox) {
          for (int64_t mi = 0; mi < m; ++mi) {
            int32_t want = 0;
            for (int64_t ci = 0; ci < c; ++ci) {
              for (int64_t ky = 0; ky < k; ++ky) {
                for (int64_t kx = 0; kx < k; ++kx) {
                  const int64_t iy = oy * ah.stride - ah.pad_begin + ky * ah.dilation;
                  const int64_t ix = ox * aw.stride - aw.pad_begin + kx * aw.dilation;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                  want += (nchw[static_cast<size_t>(((n * c + ci) * h + iy) * w + ix)] - xz) *
                          weights.data<int8_t>()[((mi * c + ci) * k + ky) * k + kx];
                }
              }
            }
            ASSERT_EQ(acc[static_cast<size_t>(((n * ah.out + oy) * aw.out + ox) * m + mi)], want)
                << (channels_last ? "NHWC" : "NCHW") << " n " << n << " oy " << oy << " ox " << ox << " m " << mi;
          }
        }
      }
    }
  }
}

TEST(Int8Im2colPairs, SumsEqualTheDefinitionWithoutSaturation) {
  Check(3, 8, 11, 13, 3, 2, 1, 1);
  Check(5, 6, 9, 10, 3, 1, 2, 2);
  Check(3, 16, 12, 12, 7, 2, 1, 3);
  Check(1, 4, 8, 7, 5, 1, 1, 0);
}

}  // namespace
}  // namespace onyx::ops::nn
