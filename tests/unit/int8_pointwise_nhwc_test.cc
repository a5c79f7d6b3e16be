// The channels-last 1x1 int8 convolution on VNNI (kernels/int8_pointwise_nhwc.h) against the exact sums requantized by
// RequantizeValue (MLAS's formula): every tile height, partial panels, channel counts that are no multiple of 4,
// strides, batches, both signednesses of input and output, zero points, per-channel scales, and sums and biases that
// wrap.
#include "kernels/int8_pointwise_nhwc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "int8_conv_nhwc_reference.h"

namespace onyx::kernels {
namespace {

struct Case {
  int64_t batch, c, m, h, w, stride;
  bool signed_in, signed_out;
  int32_t x_zp, y_zp;
  bool per_channel;
  int threads;
  float scale_lo = 1e-4f, scale_hi = 2e-3f;  // drawn uniformly per channel (or once)
  int32_t bias_max = 100000;                 // biases drawn in [-bias_max, bias_max]
};

void Check(const Case& t, uint32_t seed) {
  std::mt19937 rng(seed);
  PointwiseNhwcGeometry g;
  g.batch = t.batch;
  g.in_channels = t.c;
  g.out_channels = t.m;
  g.in_h = t.h;
  g.in_w = t.w;
  g.stride_h = g.stride_w = t.stride;
  g.out_h = (t.h - 1) / t.stride + 1;
  g.out_w = (t.w - 1) / t.stride + 1;
  std::vector<uint8_t> x(static_cast<size_t>(t.batch * t.h * t.w * t.c));
  std::vector<int8_t> w(static_cast<size_t>(t.m * t.c));
  std::vector<int32_t> bias(static_cast<size_t>(t.m));
  std::vector<float> scales(t.per_channel ? static_cast<size_t>(t.m) : 1);
  for (auto& v : x) v = static_cast<uint8_t>(rng());
  for (auto& v : w) v = static_cast<int8_t>(rng());
  std::uniform_int_distribution<int32_t> bias_dist(-t.bias_max, t.bias_max);
  for (auto& v : bias) v = bias_dist(rng);
  // By default scales around 1 / (typical |sum|): outputs across the whole 8-bit range, clamped at both ends.
  std::uniform_real_distribution<float> scale_dist(t.scale_lo, t.scale_hi);
  for (auto& v : scales) v = scale_dist(rng);
  const PointwiseNhwcInt8 kernel(g, w.data(), bias.data(), scales, t.x_zp, t.signed_in, t.y_zp, t.signed_out);
  std::vector<uint8_t> y(static_cast<size_t>(t.batch * g.out_h * g.out_w * t.m), 0xAB);
  kernel.Run(x.data(), y.data(), t.threads);
  // The same 1x1 convolution as the general reference takes it.
  DirectConvNhwcGeometry d;
  d.batch = g.batch;
  d.in_channels = g.in_channels;
  d.out_channels = g.out_channels;
  d.in_h = g.in_h;
  d.in_w = g.in_w;
  d.out_h = g.out_h;
  d.out_w = g.out_w;
  d.stride_h = g.stride_h;
  d.stride_w = g.stride_w;
  const auto ref = t.signed_out ? ReferenceConvNhwc<int8_t>(d, t.signed_in, t.x_zp, t.y_zp, x, w, bias, scales)
                                : ReferenceConvNhwc<uint8_t>(d, t.signed_in, t.x_zp, t.y_zp, x, w, bias, scales);
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], ref[i]) << "c=" << t.c << " m=" << t.m << " " << t.h << "x" << t.w << " stride=" << t.stride
                            << " signed in/out=" << t.signed_in << t.signed_out << " threads=" << t.threads << " at "
                            << i;
  }
}

TEST(PointwiseNhwcInt8, MatchesRequantizedExactSums) {
  if (!PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 1;
  // Pixel counts giving every tile height (1-14 and several tiles), output channels within and across panels.
  for (int64_t hw : {1, 2, 3, 4, 5, 7, 11}) {
    for (int64_t m : {1, 17, 32, 45}) Check({1, 64, m, hw, hw, 1, false, false, 3, 0, true, 1}, seed++);
  }
  // Input channels no multiple of 4, or long (several hundred groups), strides, batches, threads.
  for (int64_t c : {1, 3, 6, 70, 1030}) Check({2, c, 40, 6, 5, 1, false, false, 128, 10, true, 1}, seed++);
  Check({1, 256, 512, 14, 14, 2, false, false, 0, 0, true, 2}, seed++);
  Check({2, 48, 24, 9, 7, 2, false, true, 7, -3, false, 2}, seed++);
  Check({1, 32, 96, 16, 16, 1, true, false, -5, 20, true, 2}, seed++);
  Check({1, 20, 33, 5, 5, 3, true, true, 0, 0, false, 1}, seed++);
}

// Weights larger than half of any L2 (4.3 MB): chunks of tiles go over each panel in turn, the next panel's weights
// prefetched a share per tile; more tiles than one chunk holds where C is long; strided, with threads.
TEST(PointwiseNhwcInt8, WeightsBeyondL2RunPanelByPanel) {
  if (!PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  Check({1, 2048, 2100, 7, 7, 1, false, false, 5, 3, true, 1}, 101);
  Check({1, 2052, 2080, 13, 9, 2, true, false, -2, 0, true, 2}, 102);
  Check({2, 4100, 1030, 9, 10, 1, false, true, 128, -1, false, 2}, 103);
}

// Without an add, scales of at most 0.5 narrow by saturating packs (ScalesNarrowByPacks) and larger ones clamp in
// float first: both at and across the bound, with sums far outside the 8-bit range, both signednesses, zero points.
TEST(PointwiseNhwcInt8, ScalesAtAndAboveThePackBound) {
  if (!PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  EXPECT_TRUE(ScalesNarrowByPacks({0.5f, -0.5f, 1e-3f}));
  EXPECT_FALSE(ScalesNarrowByPacks({0.5f, 0.50001f}));
  uint32_t seed = 201;
  for (bool signed_out : {false, true}) {
    Check({1, 3, 45, 6, 7, 1, false, signed_out, 9, signed_out ? -5 : 200, true, 1, 1e-4f, 0.5f}, seed++);
    Check({1, 64, 40, 5, 5, 1, true, signed_out, -3, 17, true, 2, 0.25f, 0.5f}, seed++);
    Check({1, 64, 40, 5, 5, 1, false, signed_out, 0, 0, false, 1, 0.5f, 0.5f}, seed++);
    Check({1, 7, 33, 6, 5, 1, false, signed_out, 4, 3, true, 1, 1e-4f, 3.0f}, seed++);
    // Sums near the int32 limits: past 2^31 once scaled by more than 1 (the float clamp must come first there).
    Check({1, 7, 33, 6, 5, 1, false, signed_out, 4, 3, true, 1, 0.5f, 3.0f, 2000000000}, seed++);
  }
}

}  // namespace
}  // namespace onyx::kernels
