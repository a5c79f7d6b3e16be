// kernels::SumPixelsChannelsLast and kernels::MaxPoolRow (kernels/int8_pool.h) on every Highway target this CPU
// runs, against the plain loops: uint8 and int8 (negative values), channel counts around the vector block sizes, one
// pixel to many, windows of no tap to many.
#include "kernels/int8_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hwy_test_targets.h"
#include "ir/model.h"
#include "op_test_helpers.h"

namespace onyx {
namespace {

template <typename Q>
void Check() {
  std::mt19937 rng(3);
  for (int64_t target : HwyTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    for (int64_t channels : {1, 3, 15, 16, 17, 63, 64, 65, 80, 129, 1000}) {
      for (int64_t pixels : {1, 7, 49, 300}) {
        std::vector<Q> x(static_cast<size_t>(channels * pixels));
        for (Q& v : x) v = static_cast<Q>(rng());
        if (pixels == 300) {  // extremes everywhere: the largest sums of either sign
          for (size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? static_cast<Q>(-128) : static_cast<Q>(255);
        }
        std::vector<int32_t> sums(static_cast<size_t>(channels), 12345);
        kernels::SumPixelsChannelsLast(x.data(), pixels, channels, sums.data());
        int64_t wrong = 0;
        for (int64_t k = 0; k < channels; ++k) {
          int32_t expected = 0;
          for (int64_t p = 0; p < pixels; ++p) expected += x[static_cast<size_t>(p * channels + k)];
          wrong += sums[static_cast<size_t>(k)] != expected;
        }
        EXPECT_EQ(wrong, 0) << "channels " << channels << " pixels " << pixels;
      }
    }
  }
}

TEST(Int8PoolTest, SumPixelsChannelsLastUint8) { Check<uint8_t>(); }
TEST(Int8PoolTest, SumPixelsChannelsLastInt8) { Check<int8_t>(); }

template <typename Q>
void CheckMax() {
  std::mt19937 rng(5);
  const int64_t pixels_in = 40, out_pixels = 23, max_taps = 9;
  for (int64_t target : HwyTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    for (int64_t channels : {1, 3, 15, 16, 17, 64, 65, 130, 257}) {
      std::vector<Q> x(static_cast<size_t>(pixels_in * channels));
      for (Q& v : x) v = static_cast<Q>(rng());
      std::vector<int64_t> offsets(static_cast<size_t>(out_pixels * max_taps));
      std::vector<int32_t> counts(static_cast<size_t>(out_pixels));
      for (int64_t o = 0; o < out_pixels; ++o) {
        counts[static_cast<size_t>(o)] = static_cast<int32_t>(o % (max_taps + 1));  // 0 (no tap) to max_taps
        for (int64_t t = 0; t < max_taps; ++t) {
          offsets[static_cast<size_t>(o * max_taps + t)] = static_cast<int64_t>(rng() % pixels_in) * channels;
        }
      }
      std::vector<Q> y(static_cast<size_t>(out_pixels * channels), static_cast<Q>(42));
      kernels::MaxPoolRow(x.data(), offsets.data(), counts.data(), max_taps, out_pixels, channels, y.data());
      int64_t wrong = 0;
      for (int64_t o = 0; o < out_pixels; ++o) {
        for (int64_t k = 0; k < channels; ++k) {
          Q expected = std::numeric_limits<Q>::lowest();
          for (int32_t t = 0; t < counts[static_cast<size_t>(o)]; ++t) {
            expected = std::max(expected, x[static_cast<size_t>(offsets[static_cast<size_t>(o * max_taps + t)] + k)]);
          }
          wrong += y[static_cast<size_t>(o * channels + k)] != expected;
        }
      }
      EXPECT_EQ(wrong, 0) << "channels " << channels;
    }
  }
}

// ai.onyx.internal.MaxPool on [N, C, H, W] 8-bit images (what the QDQ fusion emits without the channels-last
// layout) against a window-by-window loop written here: strides 1-3, pads of every side, dilation along either axis,
// ceil_mode (windows past the image), and a window wholly in the padding (the type's lowest value).
template <typename Q>
void CheckMaxPoolNchw(bool channels_last = false) {
  std::mt19937 rng(11);
  struct Case {
    int64_t h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, ceil;
  };
  for (const Case& c : std::vector<Case>{{13, 17, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1},
                                         {9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
                                         {10, 23, 2, 3, 2, 3, 1, 2, 0, 2, 1, 2, 1},
                                         {5, 6, 3, 3, 1, 1, 1, 1, 2, 3, 0, 0, 0},
                                         {4, 4, 2, 2, 2, 2, 1, 1, 0, 0, 1, 1, 0},
                                         {12, 9, 3, 2, 2, 1, 2, 1, 2, 1, 3, 0, 1}}) {
    // (channels last: a vector of channels and a remainder)
    const int64_t n = 2, ch = channels_last ? 70 : 3;
    std::vector<Q> x(static_cast<size_t>(n * ch * c.h * c.w));
    for (Q& v : x) v = static_cast<Q>(rng());
    auto t = testing::Op("MaxPool", 1, ir::kInternalDomain);
    if (channels_last) {
      std::vector<Q> nhwc(x.size());
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t k = 0; k < ch; ++k) {
          for (int64_t i = 0; i < c.h * c.w; ++i) {
            nhwc[static_cast<size_t>((b * c.h * c.w + i) * ch + k)] =
                x[static_cast<size_t>((b * ch + k) * c.h * c.w + i)];
          }
        }
      }
      t.Input(testing::T_<Q>(nhwc, {n, c.h, c.w, ch})).Attr("channels_last", int64_t{1});
    } else {
      t.Input(testing::T_<Q>(x, {n, ch, c.h, c.w}));
    }
    t.Attr("kernel_shape", std::vector<int64_t>{c.kh, c.kw}).Attr("strides", std::vector<int64_t>{c.sh, c.sw});
    t.Attr("dilations", std::vector<int64_t>{c.dh, c.dw}).Attr("pads", std::vector<int64_t>{c.pt, c.pl, c.pb, c.pr});
    t.Attr("ceil_mode", c.ceil);
    const Tensor y = testing::RunOk(t);
    // The output size is the shared window rule's (ops/nn/window.h, tested with the float pooling); the values
    // are checked here for every output position.
    ASSERT_EQ(y.rank(), 4);
    ASSERT_EQ(y.dim(0), n);
    ASSERT_EQ(y.dim(channels_last ? 3 : 1), ch);
    const int64_t oh = y.dim(channels_last ? 1 : 2), ow = y.dim(channels_last ? 2 : 3);
    ASSERT_GE(oh, (c.h + c.pt + c.pb - c.dh * (c.kh - 1) - 1) / c.sh + 1);
    ASSERT_GE(ow, (c.w + c.pl + c.pr - c.dw * (c.kw - 1) - 1) / c.sw + 1);
    int64_t wrong = 0;
    for (int64_t p = 0; p < n * ch; ++p) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          Q m = std::numeric_limits<Q>::lowest();
          for (int64_t a = 0; a < c.kh; ++a) {
            for (int64_t b = 0; b < c.kw; ++b) {
              const int64_t yy = i * c.sh - c.pt + a * c.dh, xx = j * c.sw - c.pl + b * c.dw;
              if (yy >= 0 && yy < c.h && xx >= 0 && xx < c.w) {
                m = std::max(m, x[static_cast<size_t>((p * c.h + yy) * c.w + xx)]);
              }
            }
          }
          const int64_t at = channels_last ? ((p / ch * oh + i) * ow + j) * ch + p % ch : (p * oh + i) * ow + j;
          wrong += y.data<Q>()[at] != m;
        }
      }
    }
    EXPECT_EQ(wrong, 0) << c.h << "x" << c.w << " kernel " << c.kh << "x" << c.kw << " stride " << c.sh << "x" << c.sw;
  }
}

TEST(Int8PoolTest, MaxPoolNchwUint8) { CheckMaxPoolNchw<uint8_t>(); }
TEST(Int8PoolTest, MaxPoolNchwInt8) { CheckMaxPoolNchw<int8_t>(); }
// The same windows channels last ([N, H, W, C], the int8 layout pass's form): the window rows inside the image change
// at the top and bottom borders, where the row's tap offsets are rebuilt.
TEST(Int8PoolTest, MaxPoolChannelsLastUint8) { CheckMaxPoolNchw<uint8_t>(true); }
TEST(Int8PoolTest, MaxPoolChannelsLastInt8) { CheckMaxPoolNchw<int8_t>(true); }

TEST(Int8PoolTest, MaxPoolRowUint8) { CheckMax<uint8_t>(); }
TEST(Int8PoolTest, MaxPoolRowInt8) { CheckMax<int8_t>(); }

}  // namespace
}  // namespace onyx
