// kernels::NchwcDirectConv, and kernels::NchwcGemmConv where it runs (blocked inputs in blocks of 16), against a
// convolution computed in double: blocked inputs (nChw8c, and nChw16c where the CPU
// has AVX-512) and plain ones of 1-4 channels; windows 1x1, 3x3, 5x3, 7x7; strides 1-2; dilations 1-2; pads 0-3 on
// either side, including outputs whose every tap is padding; channel counts that leave partial last blocks (their
// padding channels must come out zero); 1x1 windows with strides 2-3 and padding; more input channels than one chunk of
// the kernel's L2 blocking; batch 2; bias or none, the residual sum and each activation; 1 and 2 threads; both orders
// of the output pixels (by rows, and gathered across row ends on a padded copy of the input).
#include "kernels/nchwc_direct_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/nchwc_gemm_conv.h"

namespace onyx::kernels {
namespace {

struct Case {
  bool blocked;
  int64_t batch, c, k, h, w, kh, kw, stride, dilation, pad_top, pad_left, pad_bottom, pad_right;
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Index of (n, channel, y, x) in nChw<b>c with `channels` channels (padded to whole blocks) of `h` x `w`.
int64_t Blocked(int64_t b, int64_t n, int64_t ch, int64_t y, int64_t x, int64_t channels, int64_t h, int64_t w) {
  return (((n * CeilDiv(channels, b) + ch / b) * h + y) * w + x) * b + ch % b;
}

// Whether the kernel runs here in blocks of `block` channels (16: AVX-512, 8: AVX2 + FMA, under ONYX_MAX_ISA's cap).
bool BlockRunsHere(int64_t block) {
  BlockedConvShape probe;
  probe.block = block;
  probe.in_channels = probe.out_channels = probe.height = probe.width = probe.out_height = probe.out_width = 1;
  return NchwcDirectConv::Supported(probe);
}

void CheckBlock(int64_t block) {
  const Case cases[] = {
      {true, 1, 16, 16, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0},   {true, 2, 24, 40, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1},
      {true, 1, 32, 24, 14, 14, 3, 3, 2, 1, 1, 1, 1, 1}, {true, 1, 20, 8, 9, 8, 5, 3, 2, 2, 3, 1, 0, 2},
      {true, 1, 8, 16, 6, 7, 1, 1, 2, 1, 0, 0, 0, 0},    {true, 1, 16, 8, 3, 3, 3, 3, 1, 1, 3, 3, 3, 3},
      {true, 1, 1100, 20, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1}, {true, 2, 40, 72, 13, 11, 1, 1, 1, 1, 0, 0, 0, 0},
      {false, 1, 3, 64, 23, 20, 7, 7, 2, 1, 3, 3, 3, 3}, {false, 2, 1, 8, 9, 10, 3, 3, 1, 1, 1, 1, 1, 1},
      {false, 1, 4, 20, 11, 12, 3, 3, 2, 1, 0, 1, 1, 0}, {true, 1, 20, 24, 5, 6, 1, 1, 2, 1, 1, 0, 1, 2},
      {false, 1, 2, 16, 7, 9, 1, 1, 3, 1, 1, 1, 0, 0},   {true, 1, 256, 40, 40, 40, 1, 1, 1, 1, 0, 0, 0, 0},
  };
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (const Case& c : cases) {
    const int64_t oh = (c.h + c.pad_top + c.pad_bottom - (c.kh - 1) * c.dilation - 1) / c.stride + 1;
    const int64_t ow = (c.w + c.pad_left + c.pad_right - (c.kw - 1) * c.dilation - 1) / c.stride + 1;
    BlockedConvShape shape;
    shape.block = block;
    shape.input_blocked = c.blocked;
    shape.batch = c.batch;
    shape.in_channels = c.c;
    shape.out_channels = c.k;
    shape.height = c.h;
    shape.width = c.w;
    shape.out_height = oh;
    shape.out_width = ow;
    shape.kernel_h = c.kh;
    shape.kernel_w = c.kw;
    shape.stride_h = shape.stride_w = c.stride;
    shape.dilation_h = shape.dilation_w = c.dilation;
    shape.pad_top = c.pad_top;
    shape.pad_left = c.pad_left;
    ASSERT_TRUE(NchwcDirectConv::Supported(shape));
    const int64_t in_size = c.blocked ? c.batch * CeilDiv(c.c, block) * block * c.h * c.w : c.batch * c.c * c.h * c.w;
    const int64_t out_size = c.batch * CeilDiv(c.k, block) * block * oh * ow;
    std::vector<float> x(static_cast<size_t>(in_size), 0.0f), w(static_cast<size_t>(c.k * c.c * c.kh * c.kw)),
        bias(static_cast<size_t>(c.k)), residual(static_cast<size_t>(out_size), 0.0f);
    auto x_at = [&](int64_t n, int64_t i, int64_t y, int64_t xi) {
      return c.blocked ? Blocked(block, n, i, y, xi, c.c, c.h, c.w) : ((n * c.c + i) * c.h + y) * c.w + xi;
    };
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t i = 0; i < c.c; ++i) {
        for (int64_t y = 0; y < c.h; ++y) {
          for (int64_t xi = 0; xi < c.w; ++xi) x[static_cast<size_t>(x_at(n, i, y, xi))] = unit(rng);
        }
      }
      for (int64_t o = 0; o < c.k; ++o) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t xo = 0; xo < ow; ++xo)
            residual[static_cast<size_t>(Blocked(block, n, o, y, xo, c.k, oh, ow))] = unit(rng);
        }
      }
    }
    for (float& v : w) v = unit(rng);
    for (float& v : bias) v = unit(rng);
    // The sums in double, and the scale of each output's terms for the tolerance.
    std::vector<double> direct(static_cast<size_t>(out_size), 0.0), scale(static_cast<size_t>(out_size), 1.0);
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t o = 0; o < c.k; ++o) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t xo = 0; xo < ow; ++xo) {
            double sum = 0, magnitude = 0;
            for (int64_t i = 0; i < c.c; ++i) {
              for (int64_t ky = 0; ky < c.kh; ++ky) {
                for (int64_t kx = 0; kx < c.kw; ++kx) {
                  const int64_t iy = y * c.stride + ky * c.dilation - c.pad_top;
                  const int64_t ix = xo * c.stride + kx * c.dilation - c.pad_left;
                  if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                  const double term = static_cast<double>(w[((o * c.c + i) * c.kh + ky) * c.kw + kx]) *
                                      x[static_cast<size_t>(x_at(n, i, iy, ix))];
                  sum += term;
                  magnitude += std::fabs(term);
                }
              }
            }
            const auto at = static_cast<size_t>(Blocked(block, n, o, y, xo, c.k, oh, ow));
            direct[at] = sum;
            scale[at] = magnitude + 1.0;
          }
        }
      }
    }
    struct Variant {
      bool with_bias;
      ConvEpilogue epilogue;
      int threads;
    };
    using Act = ConvEpilogue::Activation;
    const Variant variants[] = {{false, {false, Act::kNone, 0, 0}, 1},  {true, {false, Act::kRelu, 0, 0}, 2},
                                {true, {true, Act::kRelu, 0.1f, 0}, 1}, {true, {true, Act::kClip, 0.25f, 0.75f}, 2},
                                {true, {false, Act::kSwish, 0, 0}, 1},  {false, {true, Act::kHardSwish, 0, 0}, 2}};
    for (const Variant& v : variants) {
      // The output of one kernel against the sums in double, with v's bias, residual and activation.
      auto check = [&](const std::vector<float>& y, const std::string& what) {
        for (int64_t n = 0; n < c.batch; ++n) {
          for (int64_t o = 0; o < CeilDiv(c.k, block) * block; ++o) {
            for (int64_t yy = 0; yy < oh; ++yy) {
              for (int64_t xo = 0; xo < ow; ++xo) {
                const auto at = static_cast<size_t>(Blocked(block, n, o, yy, xo, c.k, oh, ow));
                if (o >= c.k) {
                  ASSERT_EQ(y[at], 0.0f) << what << ": padding channel " << o;
                  continue;
                }
                double expected = direct[at] + (v.with_bias ? bias[static_cast<size_t>(o)] : 0.0f);
                if (v.epilogue.sum) expected += residual[at];
                if (v.epilogue.activation == Act::kRelu && expected < 0) expected *= v.epilogue.alpha;
                if (v.epilogue.activation == Act::kClip) {
                  expected = std::min<double>(std::max<double>(expected, v.epilogue.alpha), v.epilogue.beta);
                }
                if (v.epilogue.activation == Act::kSwish) expected /= 1.0 + std::exp(-expected);
                if (v.epilogue.activation == Act::kHardSwish) {
                  expected *= std::clamp(expected / 6.0 + 0.5, 0.0, 1.0);
                }
                ASSERT_NEAR(y[at], expected, 1e-5 * (scale[at] + 2.0))
                    << what << " at n=" << n << " channel " << o << " (" << yy << ", " << xo << ")";
              }
            }
          }
        }
      };
      const std::string what =
          std::string(c.blocked ? "blocked" : "plain") + " c=" + std::to_string(c.c) + " k=" + std::to_string(c.k) +
          " " + std::to_string(c.h) + "x" + std::to_string(c.w) + " window " + std::to_string(c.kh) + "x" +
          std::to_string(c.kw) + " stride " + std::to_string(c.stride) + " dilation " + std::to_string(c.dilation) +
          " block " + std::to_string(block) + " threads " + std::to_string(v.threads) + (v.epilogue.sum ? " sum" : "");
      for (const auto order : {NchwcDirectConv::Order::kRows, NchwcDirectConv::Order::kGathered}) {
        const NchwcDirectConv conv(shape, w.data(), v.with_bias ? bias.data() : nullptr, v.epilogue, order);
        ASSERT_EQ(conv.order(), order);
        // The scratch filled with garbage: the gathered order must write every padded value it reads.
        std::vector<float> scratch(static_cast<size_t>(conv.ScratchFloats()), std::numeric_limits<float>::quiet_NaN());
        std::vector<float> y = v.epilogue.sum ? residual : std::vector<float>(static_cast<size_t>(out_size), 7.0f);
        conv.Run(x.data(), y.data(), scratch.empty() ? nullptr : scratch.data(), v.threads);
        check(y, what + (order == NchwcDirectConv::Order::kGathered ? " gathered" : " rows"));
        // The same node at another image size first: this size's kernel shares that one's packed weights.
        BlockedConvShape other = shape;
        other.height += 3;
        other.width += 5;
        other.out_height += 1;
        other.out_width += 2;
        const NchwcDirectConv first(other, w.data(), v.with_bias ? bias.data() : nullptr, v.epilogue, order);
        auto shared =
            NchwcDirectConv::SharingWeights(shape, first, v.with_bias ? bias.data() : nullptr, v.epilogue, order);
        ASSERT_TRUE(shared.ok()) << shared.status().message();
        EXPECT_EQ((*shared)->packed_data(), first.packed_data());
        EXPECT_EQ((*shared)->order(), conv.order());
        std::vector<float> scratch2(static_cast<size_t>((*shared)->ScratchFloats()),
                                    std::numeric_limits<float>::quiet_NaN());
        std::vector<float> y2 = v.epilogue.sum ? residual : std::vector<float>(static_cast<size_t>(out_size), 7.0f);
        (*shared)->Run(x.data(), y2.data(), scratch2.empty() ? nullptr : scratch2.data(), v.threads);
        check(y2, what + " shared weights");
        BlockedConvShape other_window = shape;
        other_window.kernel_w += 1;
        EXPECT_FALSE(first.SharesPacking(other_window));
      }
      // The convolution as a matrix product (nchwc_gemm_conv.h) on the same cases, where it runs (blocked input in
      // blocks of 16, AVX-512).
      if (NchwcGemmConv::Supported(shape)) {
        const NchwcGemmConv conv(shape, w.data(), v.with_bias ? bias.data() : nullptr, v.epilogue);
        std::vector<float> y = v.epilogue.sum ? residual : std::vector<float>(static_cast<size_t>(out_size), 7.0f);
        conv.Run(x.data(), y.data(), v.threads);
        check(y, what + " gemm");
        // The same node at another image size first: this size's kernel shares that one's packed weights.
        BlockedConvShape other = shape;
        other.height += 3;
        other.width += 5;
        other.out_height += 1;
        other.out_width += 2;
        const NchwcGemmConv first(other, w.data(), v.with_bias ? bias.data() : nullptr, v.epilogue);
        auto shared = NchwcGemmConv::SharingWeights(shape, first, v.with_bias ? bias.data() : nullptr, v.epilogue);
        ASSERT_TRUE(shared.ok()) << shared.status().message();
        EXPECT_EQ((*shared)->packed_data(), first.packed_data());
        std::vector<float> y2 = v.epilogue.sum ? residual : std::vector<float>(static_cast<size_t>(out_size), 7.0f);
        (*shared)->Run(x.data(), y2.data(), v.threads);
        check(y2, what + " gemm, weights shared with another size");
        BlockedConvShape more_channels = shape;
        more_channels.out_channels += 1;
        EXPECT_FALSE(first.SharesPacking(more_channels));
        EXPECT_FALSE(NchwcGemmConv::SharingWeights(more_channels, first, nullptr, v.epilogue).ok());
      }
    }
  }
}

// An infinite input makes the padding channels' sums 0 * inf = NaN: they must still come out +0 (bitwise cleared).
void CheckPaddingStaysZero(int64_t block) {
  BlockedConvShape shape;
  shape.block = block;
  shape.in_channels = block;
  shape.out_channels = block + 3;
  shape.height = shape.width = shape.out_height = shape.out_width = 5;
  shape.kernel_h = shape.kernel_w = 3;
  shape.pad_top = shape.pad_left = 1;
  ASSERT_TRUE(NchwcDirectConv::Supported(shape));
  std::vector<float> x(static_cast<size_t>(block * 25), 0.5f), w(static_cast<size_t>((block + 3) * block * 9), 0.25f);
  x[7] = std::numeric_limits<float>::infinity();
  const NchwcDirectConv conv(shape, w.data(), nullptr, {false, ConvEpilogue::Activation::kClip, -1.0f, 1.0f});
  std::vector<float> y(static_cast<size_t>(2 * block * 25), 7.0f);
  conv.Run(x.data(), y.data(), nullptr, 1);
  for (int64_t pixel = 0; pixel < 25; ++pixel) {
    for (int64_t lane = 3; lane < block; ++lane) {
      const float v = y[static_cast<size_t>((25 + pixel) * block + lane)];  // block 1, its lanes past 3
      ASSERT_EQ(std::bit_cast<uint32_t>(v), 0u) << "padding channel " << block + lane << " at pixel " << pixel;
    }
  }
}

TEST(NchwcDirectConv, PaddingChannelsStayZero) {
  for (const int64_t block : {8, 16}) {
    if (BlockRunsHere(block)) CheckPaddingStaysZero(block);
  }
}

// Where the convolution pads, an infinite weight met only at padded taps is not part of any sum; written-out zeros
// would make it 0 * inf = NaN there. The gathered order then keeps the rows order, and the result is finite.
void CheckInfiniteWeightKeepsRows(int64_t block) {
  BlockedConvShape shape;
  shape.block = block;
  shape.in_channels = block;
  shape.out_channels = block;
  shape.height = shape.width = 1;
  shape.out_height = shape.out_width = 1;
  shape.kernel_h = shape.kernel_w = 3;
  shape.pad_top = shape.pad_left = 1;
  ASSERT_TRUE(NchwcDirectConv::Supported(shape));
  std::vector<float> x(static_cast<size_t>(block), 1.0f), w(static_cast<size_t>(block * block * 9), 0.5f);
  w[0] = std::numeric_limits<float>::infinity();  // output 0, input 0, tap (0, 0): padding for the one pixel
  const NchwcDirectConv conv(shape, w.data(), nullptr, {}, NchwcDirectConv::Order::kGathered);
  EXPECT_EQ(conv.order(), NchwcDirectConv::Order::kRows);
  std::vector<float> y(static_cast<size_t>(block), 7.0f);
  conv.Run(x.data(), y.data(), nullptr, 1);
  EXPECT_EQ(y[0], 0.5f * static_cast<float>(block));  // the centre taps only
  // Without padding the gathered order reads the input itself: kept.
  shape.pad_top = shape.pad_left = 0;
  shape.kernel_h = shape.kernel_w = 1;
  const NchwcDirectConv unpadded(shape, w.data(), nullptr, {}, NchwcDirectConv::Order::kGathered);
  EXPECT_EQ(unpadded.order(), NchwcDirectConv::Order::kGathered);
  EXPECT_EQ(unpadded.ScratchFloats(), 0);
}

// NchwcGemmConv multiplies packed zeros where a tap falls in the padding (its callers keep it off there for weights
// that are not all finite), and the direct kernel's gathered order writes the padding out: WindowPads tells both where
// that happens, including padding only past the input's end.
TEST(BlockedConvShape, WindowPadsWhereSomeTapFallsOutside) {
  BlockedConvShape shape;
  shape.in_channels = shape.out_channels = 16;
  shape.height = shape.width = shape.out_height = shape.out_width = 8;
  EXPECT_FALSE(WindowPads(shape));  // 1x1
  shape.kernel_h = shape.kernel_w = 3;
  shape.pad_top = shape.pad_left = 1;
  EXPECT_TRUE(WindowPads(shape));  // 3x3, pads 1
  shape.pad_top = shape.pad_left = 0;
  shape.out_height = shape.out_width = 6;
  EXPECT_FALSE(WindowPads(shape));  // 3x3 valid
  shape.out_width = 7;
  EXPECT_TRUE(WindowPads(shape));  // one column past the input's end
  shape.out_width = 3;
  shape.stride_w = 2;
  EXPECT_FALSE(WindowPads(shape));  // stride 2: reaches column 6 of 8
}

TEST(NchwcDirectConv, InfiniteWeightAtPaddedTapsKeepsRowsOrder) {
  for (const int64_t block : {8, 16}) {
    if (BlockRunsHere(block)) CheckInfiniteWeightKeepsRows(block);
  }
}

TEST(NchwcDirectConv, MatchesConvolutionInBlocksOf8) {
  if (!BlockRunsHere(8)) GTEST_SKIP() << "needs AVX2 + FMA";
  CheckBlock(8);
}

TEST(NchwcDirectConv, MatchesConvolutionInBlocksOf16) {
  if (!BlockRunsHere(16)) GTEST_SKIP() << "needs AVX-512 (not capped by ONYX_MAX_ISA)";
  CheckBlock(16);
}

}  // namespace
}  // namespace onyx::kernels
