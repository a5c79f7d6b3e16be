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
#include "kernels/int8_qlinear_add.h"

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
  // With a residual added as QLinearAdd (conv as A or B): the residual's bytes drawn, the add's parameters fixed.
  bool with_add = false, conv_is_a = true;
  bool add_in_place = false;  // the output written over the residual (as the session does where nothing reads it later)
  bool pipelined = true;      // set_pipelined_tiles (where the pipelined tiles apply)
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
  PointwiseNhwcInt8 kernel(g, w.data(), bias.data(), scales, t.x_zp, t.signed_in, t.y_zp, t.signed_out);
  kernel.set_pipelined_tiles(t.pipelined);
  std::vector<uint8_t> y(static_cast<size_t>(t.batch * g.out_h * g.out_w * t.m), 0xAB);
  std::vector<uint8_t> residual(t.with_add ? y.size() : 0);
  for (auto& v : residual) v = static_cast<uint8_t>(rng());
  Int8ResidualAdd add;
  add.params = t.signed_out ? MakeQLinearAddParams(0.031f, -7, 0.047f, 11, 0.052f, -3)
                            : MakeQLinearAddParams(0.031f, 120, 0.047f, 131, 0.052f, 125);
  add.conv_is_a = t.conv_is_a;
  if (t.add_in_place) {
    y = residual;
    kernel.Run(x.data(), y.data(), t.threads, y.data(), &add);
  } else {
    kernel.Run(x.data(), y.data(), t.threads, t.with_add ? residual.data() : nullptr, t.with_add ? &add : nullptr);
  }
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
  auto ref = t.signed_out ? ReferenceConvNhwc<int8_t>(d, t.signed_in, t.x_zp, t.y_zp, x, w, bias, scales)
                          : ReferenceConvNhwc<uint8_t>(d, t.signed_in, t.x_zp, t.y_zp, x, w, bias, scales);
  if (t.with_add) {  // then QLinearAdd's own kernel on the convolution's bytes
    std::vector<uint8_t> sum(ref.size());
    const uint8_t* a = t.conv_is_a ? ref.data() : residual.data();
    const uint8_t* b = t.conv_is_a ? residual.data() : ref.data();
    const auto n = static_cast<int64_t>(ref.size());
    if (t.signed_out) {
      QLinearAddSpans(reinterpret_cast<const int8_t*>(a), reinterpret_cast<const int8_t*>(b), n, add.params,
                      reinterpret_cast<int8_t*>(sum.data()));
    } else {
      QLinearAddSpans(a, b, n, add.params, sum.data());
    }
    ref = sum;
  }
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], ref[i]) << "c=" << t.c << " m=" << t.m << " " << t.h << "x" << t.w << " stride=" << t.stride
                            << " signed in/out=" << t.signed_in << t.signed_out << " threads=" << t.threads
                            << " add=" << t.with_add << " conv is A=" << t.conv_is_a << " at " << i;
  }
}

TEST(PointwiseNhwcInt8, MatchesRequantizedExactSums) {
  if (!PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 1;
  // Pixel counts giving every tile height (1-14 and several tiles), output channels within and across panels.
  for (int64_t hw : {1, 2, 3, 4, 5, 7, 11}) {
    for (int64_t m : {1, 17, 32, 45}) {
      Case t{1, 64, m, hw, hw, 1, false, false, 3, 0, true, 1};
      Check(t, seed++);
      t.pipelined = false;
      Check(t, seed++);
    }
  }
  // Input channels no multiple of 4, or long (several hundred groups), strides, batches, threads.
  for (int64_t c : {1, 3, 6, 70, 1030}) Check({2, c, 40, 6, 5, 1, false, false, 128, 10, true, 1}, seed++);
  Check({1, 256, 512, 14, 14, 2, false, false, 0, 0, true, 2}, seed++);
  Check({2, 48, 24, 9, 7, 2, false, true, 7, -3, false, 2}, seed++);
  Check({1, 32, 96, 16, 16, 1, true, false, -5, 20, true, 2}, seed++);
  Check({1, 20, 33, 5, 5, 3, true, true, 0, 0, false, 1}, seed++);
}

// Maps large enough for each thread's share to run in several parts (up to 4 of 8+ tiles, balanced between the threads
// by RunTasks): pipelined and 14-pixel tiles, 2 and 3 threads, with the residual add written in place.
TEST(PointwiseNhwcInt8, SharesRunInPartsAtSeveralThreads) {
  if (!PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 201;
  for (int threads : {2, 3}) {
    for (bool pipelined : {true, false}) {
      Case t{1, 64, 64, 40, 40, 1, false, false, 3, 0, true, threads};
      t.pipelined = pipelined;
      Check(t, seed++);
      Case a{1, 64, 96, 41, 39, 1, false, false, 5, 2, true, threads};
      a.pipelined = pipelined;
      a.with_add = true;
      a.add_in_place = true;
      Check(a, seed++);
    }
  }
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

// The residual add fused: uint8 x read in place (stride 1, C a multiple of 4) runs software-pipelined tiles of 10
// pixels over M's full panels, the rest (M's partial panel, pixels past the last full tile) by the other tiles. Pixel
// counts below, at and past one tile and splitting unevenly over 2 threads; the convolution as A and as B; both
// output types; a short K (ResNet's 64) and a long one, also written over the residual; a strided and an int8 input
// (the other tiles, same bytes).
TEST(PointwiseNhwcInt8, ResidualAddMatchesConvolutionThenQLinearAdd) {
  if (!PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 301;
  for (bool signed_out : {false, true}) {
    for (bool conv_is_a : {true, false}) {
      for (int64_t hw : {3, 4, 5, 7, 9}) {
        for (int64_t m : {32, 45, 96}) {
          Case t{1, 64, m, hw, hw, 1, false, signed_out, 3, signed_out ? -3 : 125, true, hw % 2 == 0 ? 2 : 1};
          t.with_add = true;
          t.conv_is_a = conv_is_a;
          Check(t, seed++);
          t.pipelined = false;  // the 14-pixel tiles, which the tuning may prefer
          Check(t, seed++);
        }
      }
      Case t{2, 260, 64, 6, 7, 1, false, signed_out, 0, signed_out ? 5 : 0, true, 2};
      t.with_add = true;
      t.conv_is_a = conv_is_a;
      Check(t, seed++);
      t.add_in_place = true;
      Check(t, seed++);
      Case strided{1, 64, 40, 9, 9, 2, false, signed_out, 3, 4, true, 2};
      strided.with_add = true;
      strided.conv_is_a = conv_is_a;
      Check(strided, seed++);
      Case int8_in{1, 64, 40, 6, 6, 1, true, signed_out, -3, 4, true, 1};
      int8_in.with_add = true;
      int8_in.conv_is_a = conv_is_a;
      Check(int8_in, seed++);
    }
  }
}

}  // namespace
}  // namespace onyx::kernels
