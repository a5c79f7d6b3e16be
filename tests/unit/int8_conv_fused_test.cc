// The int8 convolution's fused requantization (kernels/int8_conv.h, Int8ConvRequant: oneDNN output scales into an
// 8-bit destination) against the exact path it replaces: int32 sums then kernels::RequantizeRows, which computes
// what ONNX Runtime's MLAS computes. Byte-identical results are required, including on exact ties (scales of 1/2,
// 1/4: every odd sum is a tie), with biases, for sums close to the 2^24 bound FusedRequantIsExact admits, and on
// shapes where oneDNN's AMX kernels work on ragged tiles. Also the bound itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/int8_conv.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_requantize.h"

namespace onyx::kernels {
namespace {

struct FusedCase {
  Int8ConvDims dims;
  bool signed_source = false;
  bool signed_output = false;
  int32_t x_zero_point = 0;
  std::vector<float> scales;  // 1 or M values
  bool with_bias = false;
  bool extreme_weights = false;  // every weight +-127 (sums near the bound)
  int32_t y_zero_point = 0;
};

void Check(const FusedCase& c, unsigned seed) {
  const Int8ConvDims& d = c.dims;
  std::mt19937 rng(seed);
  const int64_t per_channel = d.in_channels / d.group * d.kernel_h * d.kernel_w;
  std::vector<int8_t> w(static_cast<size_t>(d.out_channels * per_channel));
  std::uniform_int_distribution<int> wd(-127, 127), sign(0, 1);
  for (auto& v : w) v = static_cast<int8_t>(c.extreme_weights ? (sign(rng) ? 127 : -127) : wd(rng));
  std::vector<int32_t> bias;
  if (c.with_bias) {
    std::uniform_int_distribution<int32_t> bd(-100000, 100000);
    for (int64_t m = 0; m < d.out_channels; ++m) bias.push_back(bd(rng));
  }
  const int32_t low = (c.signed_source ? -128 : 0) - c.x_zero_point;
  const int32_t high = (c.signed_source ? 127 : 255) - c.x_zero_point;
  ASSERT_TRUE(FusedRequantIsExact(w.data(), d.out_channels, per_channel, bias, low, high))
      << "test case past the bound";

  const int64_t in_size = d.batch * d.in_h * d.in_w * d.in_channels;
  std::vector<uint8_t> x(static_cast<size_t>(in_size));
  std::uniform_int_distribution<int> xd(0, 255);
  for (auto& v : x) v = static_cast<uint8_t>(xd(rng));
  if (c.extreme_weights) {  // all sources at one end: the sums reach the bound's order of magnitude
    for (auto& v : x) v = static_cast<uint8_t>(c.signed_source ? 127 : 255);
  }

  Int8ConvRequant r;
  r.signed_output = c.signed_output;
  r.scales = c.scales;
  r.bias = bias;
  r.zero_point = c.y_zero_point;
  auto fused = Int8Conv::Create(d, c.signed_source, w.data(), 1, &r);
  auto plain = Int8Conv::Create(d, c.signed_source, w.data(), 1);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE((*fused)->fused_requant());

  const int64_t pixels = d.batch * d.out_h * d.out_w, out_size = pixels * d.out_channels;
  std::vector<int32_t> acc(static_cast<size_t>(out_size + (*plain)->OutputSlack()));
  ASSERT_TRUE((*plain)->RunNhwc(x.data(), c.x_zero_point, acc.data()).ok());
  std::vector<uint8_t> expected(static_cast<size_t>(out_size)), got(static_cast<size_t>(out_size));
  if (c.signed_output) {
    RequantizeRows<int8_t>(acc.data(), pixels, d.out_channels, bias.empty() ? nullptr : bias.data(), c.scales.data(),
                           c.scales.size() > 1, c.y_zero_point, reinterpret_cast<int8_t*>(expected.data()));
  } else {
    RequantizeRows<uint8_t>(acc.data(), pixels, d.out_channels, bias.empty() ? nullptr : bias.data(), c.scales.data(),
                            c.scales.size() > 1, c.y_zero_point, expected.data());
  }
  ASSERT_TRUE((*fused)->RunNhwc(x.data(), c.x_zero_point, got.data()).ok());
  int64_t differing = 0, first = -1;
  for (int64_t i = 0; i < out_size; ++i) {
    if (got[static_cast<size_t>(i)] != expected[static_cast<size_t>(i)]) {
      if (first < 0) first = i;
      ++differing;
    }
  }
  EXPECT_EQ(differing, 0) << "first at " << first << ": fused " << int{got[static_cast<size_t>(first < 0 ? 0 : first)]}
                          << ", exact " << int{expected[static_cast<size_t>(first < 0 ? 0 : first)]} << ", acc "
                          << acc[static_cast<size_t>(first < 0 ? 0 : first)];
}

Int8ConvDims Dims(int64_t n, int64_t c, int64_t m, int64_t h, int64_t w, int64_t k, int64_t stride, int64_t pad,
                  int64_t group = 1) {
  Int8ConvDims d;
  d.batch = n, d.in_channels = c, d.out_channels = m, d.group = group;
  d.in_h = h, d.in_w = w, d.kernel_h = k, d.kernel_w = k, d.stride_h = stride, d.stride_w = stride;
  d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = pad;
  d.out_h = (h + 2 * pad - k) / stride + 1;
  d.out_w = (w + 2 * pad - k) / stride + 1;
  return d;
}

class Int8ConvFused : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Int8GemmArithmetic() != Int8Arithmetic::kExact) GTEST_SKIP() << "no VNNI/AMX: int8 products are not exact here";
  }
};

std::vector<float> PerChannel(int64_t m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> sd(1e-4f, 2e-3f);
  std::vector<float> s(static_cast<size_t>(m));
  for (auto& v : s) v = sd(rng);
  return s;
}

TEST_F(Int8ConvFused, TiesRoundHalfToEvenLikeMlas) {
  // Scale 1/2: every odd sum lands on a tie; 1/4: every sum = 2 mod 4 too.
  Check({Dims(1, 16, 32, 9, 9, 3, 1, 1), false, false, 0, {0.5f}, false, false}, 1);
  Check({Dims(1, 16, 32, 9, 9, 3, 1, 1), false, true, 0, {0.25f}, true, false}, 2);
}

TEST_F(Int8ConvFused, PerChannelScalesAndBias3x3) {
  Check({Dims(2, 64, 64, 14, 14, 3, 1, 1), false, false, 0, PerChannel(64, 3), true, false}, 3);
}

TEST_F(Int8ConvFused, PointwiseRaggedTiles) {
  // 7x7 and 14x14 pixels: not multiples of AMX's 16-pixel tiles.
  Check({Dims(1, 256, 512, 7, 7, 1, 1, 0), false, false, 0, PerChannel(512, 4), true, false}, 4);
  Check({Dims(2, 128, 64, 14, 14, 1, 1, 0), false, false, 0, PerChannel(64, 5), false, false}, 5);
}

TEST_F(Int8ConvFused, StridedSignedSourceWithZeroPoint) {
  Check({Dims(1, 32, 48, 15, 15, 3, 2, 1), true, true, -7, PerChannel(48, 6), true, false}, 6);
  Check({Dims(1, 3, 64, 31, 31, 7, 2, 3), false, false, 131, PerChannel(64, 7), true, false}, 7);
}

TEST_F(Int8ConvFused, DepthwiseAndGrouped) {
  Check({Dims(1, 32, 32, 12, 12, 3, 1, 1, 32), false, false, 0, PerChannel(32, 8), true, false}, 8);
  Check({Dims(1, 32, 64, 12, 12, 3, 2, 1, 4), false, false, 0, PerChannel(64, 9), true, false}, 9);
}

TEST_F(Int8ConvFused, SumsNearTheBound) {
  // 512 weights of +-127 by sources at 255: |sums| up to 255 * 127 * 512 = 16.58M, just below 2^24.
  Check({Dims(1, 512, 16, 4, 4, 1, 1, 0), false, false, 0, {3e-6f}, false, true}, 10);
}

TEST_F(Int8ConvFused, OutputZeroPointAddedAfterRounding) {
  // MLAS rounds, then adds y's zero point: with an odd zero point and scale 1/2 every odd sum is a tie that rounding
  // after the addition would move by one; an even one, outputs that saturate at both ends.
  Check({Dims(1, 16, 32, 9, 9, 3, 1, 1), false, false, 0, {0.5f}, false, false, 127}, 11);
  Check({Dims(1, 16, 32, 9, 9, 3, 1, 1), false, true, 0, {0.25f}, true, false, -3}, 12);
  Check({Dims(2, 64, 64, 14, 14, 3, 1, 1), false, false, 0, PerChannel(64, 13), true, false, 131}, 13);
  Check({Dims(1, 256, 512, 7, 7, 1, 1, 0), false, false, 0, PerChannel(512, 14), true, false, 98}, 14);
  Check({Dims(1, 32, 32, 12, 12, 3, 1, 1, 32), false, false, 0, PerChannel(32, 15), true, false, 77}, 15);
  Check({Dims(1, 32, 48, 15, 15, 3, 2, 1), true, true, -7, PerChannel(48, 16), true, false, 5}, 16);
}

TEST(FusedRequantBound, AdmitsUpTo2Pow24AndCountsSignsApart) {
  const std::vector<int8_t> all_positive(512, 127);  // 255 * 127 * 512 = 16,581,120 < 2^24
  EXPECT_TRUE(FusedRequantIsExact(all_positive.data(), 1, 512, {}, 0, 255));
  const std::vector<int8_t> more(520, 127);  // 16,840,200 >= 2^24
  EXPECT_FALSE(FusedRequantIsExact(more.data(), 1, 520, {}, 0, 255));
  // Half positive, half negative, sources >= 0: the sum of one sign bounds it, not both (255 * 63,500 < 2^24).
  std::vector<int8_t> mixed(1000, 127);
  for (size_t i = 0; i < mixed.size(); i += 2) mixed[i] = -127;
  EXPECT_TRUE(FusedRequantIsExact(mixed.data(), 1, 1000, {}, 0, 255));
  // One sign only: sources from 0 to 255 reach 255 * 127,000; centred ones (zero point 128) only 128 * 127,000.
  const std::vector<int8_t> positive(1000, 127);
  EXPECT_FALSE(FusedRequantIsExact(positive.data(), 1, 1000, {}, 0, 255));
  EXPECT_TRUE(FusedRequantIsExact(positive.data(), 1, 1000, {}, -128, 127));
  EXPECT_FALSE(FusedRequantIsExact(all_positive.data(), 1, 1, {1 << 24}, 0, 255));
}

}  // namespace
}  // namespace onyx::kernels
