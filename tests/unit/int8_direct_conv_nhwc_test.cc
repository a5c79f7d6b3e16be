// The channels-last direct int8 convolution on VNNI (kernels/int8_direct_conv_nhwc.h) against the exact sums (taps
// outside the image skipped) requantized by RequantizeValue (MLAS's formula), then, where asked, QLinearAddSpans with
// a residual: windows 1x1 to 7x7, strides, dilations, asymmetric padding and windows reaching past the image, channel
// counts that are no multiple of 4, every tile height and partial panels, batches, threads, both signednesses, zero
// points, per-channel scales, the residual as QLinearAdd's A or B and in place.
#include "kernels/int8_direct_conv_nhwc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "int8_conv_nhwc_reference.h"
#include "kernels/int8_qlinear_add.h"

namespace onyx::kernels {
namespace {

struct Case {
  int64_t batch, c, m, h, w, kernel, stride, dilation, pad_top, pad_left, pad_bottom, pad_right;
  bool signed_in, signed_out;
  int32_t x_zp, y_zp;
  bool per_channel;
  int threads;
  int add = 0;  // 0: none; 1: the convolution is QLinearAdd's A; 2: its B; 3: A, y in place of the residual
  float scale_lo = 0, scale_hi = 0;  // scales drawn uniformly in [lo, hi]; 0, 0: around 1 / (typical |sum|)
};

void Check(const Case& t, uint32_t seed) {
  std::mt19937 rng(seed);
  DirectConvNhwcGeometry g;
  g.batch = t.batch;
  g.in_channels = t.c;
  g.out_channels = t.m;
  g.in_h = t.h;
  g.in_w = t.w;
  g.kernel_h = g.kernel_w = t.kernel;
  g.stride_h = g.stride_w = t.stride;
  g.dilation_h = g.dilation_w = t.dilation;
  g.pad_top = t.pad_top;
  g.pad_left = t.pad_left;
  g.out_h = (t.h + t.pad_top + t.pad_bottom - (t.kernel - 1) * t.dilation - 1) / t.stride + 1;
  g.out_w = (t.w + t.pad_left + t.pad_right - (t.kernel - 1) * t.dilation - 1) / t.stride + 1;
  ASSERT_GT(g.out_h, 0);
  ASSERT_GT(g.out_w, 0);
  std::vector<uint8_t> x(static_cast<size_t>(t.batch * t.h * t.w * t.c));
  std::vector<int8_t> w(static_cast<size_t>(t.m * t.c * t.kernel * t.kernel));
  std::vector<int32_t> bias(static_cast<size_t>(t.m));
  std::vector<float> scales(t.per_channel ? static_cast<size_t>(t.m) : 1);
  for (auto& v : x) v = static_cast<uint8_t>(rng());
  for (auto& v : w) v = static_cast<int8_t>(rng());
  std::uniform_int_distribution<int32_t> bias_dist(-100000, 100000);
  for (auto& v : bias) v = bias_dist(rng);
  // By default scales around 1 / (typical |sum|): outputs across the whole 8-bit range, clamped at both ends.
  std::uniform_real_distribution<float> scale_dist(t.scale_hi > 0 ? t.scale_lo : 2e-5f / static_cast<float>(t.kernel),
                                                   t.scale_hi > 0 ? t.scale_hi : 6e-4f);
  for (auto& v : scales) v = scale_dist(rng);
  const DirectConvNhwcInt8 kernel(g, w.data(), bias.data(), scales, t.x_zp, t.signed_in, t.y_zp, t.signed_out);
  // Window rows as taps exactly where C is no multiple of 4 and the row's pixels are consecutive.
  EXPECT_EQ(kernel.row_taps(), t.c % 4 != 0 && t.dilation == 1 && t.kernel > 1);
  const size_t out_size = static_cast<size_t>(t.batch * g.out_h * g.out_w * t.m);
  std::vector<uint8_t> y(out_size, 0xAB), residual(out_size);
  for (auto& v : residual) v = static_cast<uint8_t>(rng());
  auto ref = t.signed_out ? ReferenceConvNhwc<int8_t>(g, t.signed_in, t.x_zp, t.y_zp, x, w, bias, scales)
                          : ReferenceConvNhwc<uint8_t>(g, t.signed_in, t.x_zp, t.y_zp, x, w, bias, scales);
  Int8ResidualAdd add;
  if (t.add != 0) {
    const int32_t sum_zp = t.signed_out ? -7 : 120;
    add.conv_is_a = t.add != 2;
    add.params = MakeQLinearAddParams(0.05f, t.y_zp, 0.08f, t.signed_out ? -30 : 40, 0.11f, sum_zp);
    const std::vector<uint8_t> conv = ref;
    const uint8_t* a = add.conv_is_a ? conv.data() : residual.data();
    const uint8_t* b = add.conv_is_a ? residual.data() : conv.data();
    if (t.signed_out) {
      QLinearAddSpans<int8_t>(reinterpret_cast<const int8_t*>(a), reinterpret_cast<const int8_t*>(b),
                              static_cast<int64_t>(out_size), add.params, reinterpret_cast<int8_t*>(ref.data()));
    } else {
      QLinearAddSpans<uint8_t>(a, b, static_cast<int64_t>(out_size), add.params, ref.data());
    }
    if (t.add == 3) y = residual;
    kernel.Run(x.data(), y.data(), t.threads, t.add == 3 ? y.data() : residual.data(), &add);
  } else {
    kernel.Run(x.data(), y.data(), t.threads);
  }
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], ref[i]) << "c=" << t.c << " m=" << t.m << " " << t.h << "x" << t.w << " k=" << t.kernel
                            << " stride=" << t.stride << " dilation=" << t.dilation << " pads=" << t.pad_top << ","
                            << t.pad_left << "," << t.pad_bottom << "," << t.pad_right
                            << " signed in/out=" << t.signed_in << t.signed_out << " threads=" << t.threads
                            << " add=" << t.add << " at " << i;
  }
}

TEST(DirectConvNhwcInt8, MatchesRequantizedExactSums) {
  if (!DirectConvNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 1;
  // 3x3 pad 1 on images giving every tile height (1-14 and several tiles), output channels within and across panels.
  for (int64_t hw : {1, 2, 3, 4, 5, 7, 11}) {
    for (int64_t m : {1, 17, 32, 45})
      Check({1, 64, m, hw, hw, 3, 1, 1, 1, 1, 1, 1, false, false, 3, 0, true, 1}, seed++);
  }
  // Input channels no multiple of 4 or many (the weights of a tap beyond a third of L1), stride 2, batches, threads.
  for (int64_t c : {1, 3, 6, 70, 520}) {
    Check({2, c, 40, 6, 5, 3, 1, 1, 1, 1, 1, 1, false, false, 128, 10, true, 1}, seed++);
  }
  Check({1, 128, 96, 14, 14, 3, 2, 1, 1, 1, 1, 1, false, false, 0, 0, true, 2}, seed++);
  // The first layer of a CNN (3 channels, 7x7 stride 2 pad 3), dilations, asymmetric and no padding, windows that
  // reach past the image's far side only, 1x1 windows with padding, wide windows.
  Check({1, 3, 64, 23, 19, 7, 2, 1, 3, 3, 3, 3, false, false, 5, 2, true, 2}, seed++);
  Check({1, 16, 24, 12, 13, 3, 1, 2, 2, 2, 2, 2, true, true, -3, 4, false, 1}, seed++);
  Check({1, 16, 24, 12, 13, 3, 1, 3, 0, 1, 2, 0, false, true, 17, -9, true, 2}, seed++);
  Check({2, 12, 8, 9, 9, 3, 2, 1, 0, 0, 1, 1, true, false, 0, 255, true, 1}, seed++);
  Check({1, 8, 36, 5, 6, 1, 1, 1, 1, 2, 0, 1, false, false, 9, 1, false, 1}, seed++);
  Check({1, 5, 20, 10, 4, 5, 1, 1, 2, 2, 2, 2, true, true, 1, 1, true, 2}, seed++);
  // Window rows as taps (C = 1, 2, 3, 7): no padding (the last row's window reads past the image's end), the first
  // layer with a residual add; C = 3 with a dilation keeps a tap per pixel.
  for (int64_t c : {1, 2, 3, 7}) {
    Check({1, c, 33, 9, 11, 3, 1, 1, 0, 0, 0, 0, false, false, 200, 3, true, 1}, seed++);
  }
  Check({2, 3, 64, 16, 16, 7, 2, 1, 3, 3, 3, 3, true, false, -100, 20, true, 2, 1}, seed++);
  Check({1, 3, 20, 12, 13, 3, 1, 2, 2, 2, 2, 2, false, false, 7, 9, true, 1}, seed++);
  // Residual adds: the convolution as A or B, in place, both signednesses.
  Check({1, 32, 40, 7, 9, 3, 1, 1, 1, 1, 1, 1, false, false, 5, 131, true, 1, 1}, seed++);
  Check({1, 32, 40, 7, 9, 3, 1, 1, 1, 1, 1, 1, true, true, -3, 7, true, 2, 2}, seed++);
  Check({2, 20, 70, 6, 6, 3, 2, 1, 1, 1, 1, 1, false, false, 5, 0, false, 2, 3}, seed++);
  Check({1, 16, 33, 8, 8, 1, 1, 1, 0, 0, 0, 0, true, true, 0, -128, true, 1, 3}, seed++);
}

// Without an add, scales of at most 0.5 narrow by saturating packs (ScalesNarrowByPacks) and larger ones clamp in
// float first: both at and across the bound, sums far outside the 8-bit range, both signednesses; with an add the
// bound does not apply (the add clamps).
TEST(DirectConvNhwcInt8, ScalesAtAndAboveThePackBound) {
  if (!DirectConvNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 301;
  for (bool signed_out : {false, true}) {
    Check({1, 3, 40, 9, 8, 3, 1, 1, 1, 1, 1, 1, false, signed_out, 5, signed_out ? -7 : 250, true, 1, 0, 1e-4f, 0.5f},
          seed++);
    Check({1, 16, 33, 7, 7, 3, 2, 1, 1, 1, 1, 1, true, signed_out, -2, 3, false, 2, 0, 0.5f, 0.5f}, seed++);
    Check({1, 8, 24, 6, 6, 3, 1, 1, 1, 1, 1, 1, false, signed_out, 1, 2, true, 1, 0, 1e-4f, 3.0f}, seed++);
    Check({1, 8, 24, 6, 6, 3, 1, 1, 1, 1, 1, 1, false, signed_out, 1, 2, true, 1, 1, 1e-4f, 0.5f}, seed++);
  }
}

}  // namespace
}  // namespace onyx::kernels
