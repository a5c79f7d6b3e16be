// kernels::WinogradConv (F(2x2, 3x3) and F(4x4, 3x3), nChw8c and nChw16c) against a direct 3x3 convolution
// computed in double: output sizes that are and are not multiples of the tile (partial last tiles), pads 0-2 on
// either side, batch 2, 8-40 channels, bias or none, the residual sum and each activation, 1 and 2 threads; the
// tiles all at once and (the 48x47 and 40x41 cases: hundreds of tiles of few channels) in chunks per thread.
#include "kernels/winograd_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace onyx::kernels {
namespace {

struct Case {
  int64_t batch, c, k, h, w, pad_top, pad_left, pad_bottom, pad_right;
  int64_t block = 8;
};

// Index of (n, channel, y, x) in nChw<b>c with `channels` channels of `h` x `w`.
int64_t Blocked(int64_t b, int64_t n, int64_t ch, int64_t y, int64_t x, int64_t channels, int64_t h, int64_t w) {
  return (((n * (channels / b) + ch / b) * h + y) * w + x) * b + ch % b;
}

TEST(WinogradConv, MatchesDirectConvolution) {
  const WinogradConvShape probe{1, 8, 8, 4, 4, 4, 4, 1, 1};
  if (!WinogradConv::Supported(probe)) GTEST_SKIP() << "needs AVX2 + FMA";
  const Case cases[] = {
      {1, 8, 8, 4, 4, 1, 1, 1, 1},        {1, 16, 24, 14, 14, 1, 1, 1, 1},    {2, 24, 16, 7, 9, 1, 1, 1, 1},
      {1, 8, 16, 13, 11, 0, 0, 0, 0},     {1, 40, 8, 5, 6, 2, 0, 1, 2},       {2, 16, 8, 3, 3, 1, 2, 2, 1},
      {1, 32, 32, 17, 18, 1, 1, 1, 1},    {1, 8, 8, 1, 1, 1, 1, 1, 1},        {2, 16, 16, 48, 47, 1, 1, 1, 0},
      {1, 16, 32, 9, 10, 1, 1, 1, 1, 16}, {2, 32, 16, 40, 41, 1, 0, 1, 2, 16}};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  int checked = 0;
  for (const Case& c : cases) {
    const int64_t oh = c.h + c.pad_top + c.pad_bottom - 2, ow = c.w + c.pad_left + c.pad_right - 2;
    const WinogradConvShape shape{c.batch, c.c, c.k, c.h, c.w, oh, ow, c.pad_top, c.pad_left, c.block};
    ASSERT_TRUE(WinogradConv::Supported(shape));
    std::vector<float> x(static_cast<size_t>(c.batch * c.c * c.h * c.w)), w(static_cast<size_t>(c.k * c.c * 9)),
        bias(static_cast<size_t>(c.k)), residual(static_cast<size_t>(c.batch * c.k * oh * ow));
    for (float& v : x) v = unit(rng);
    for (float& v : w) v = unit(rng);
    for (float& v : bias) v = unit(rng);
    for (float& v : residual) v = unit(rng);
    // The direct sums in double, and the scale of each output's terms for the tolerance.
    std::vector<double> direct(residual.size()), scale(residual.size());
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t o = 0; o < c.k; ++o) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t xo = 0; xo < ow; ++xo) {
            double sum = 0, magnitude = 0;
            for (int64_t i = 0; i < c.c; ++i) {
              for (int64_t ky = 0; ky < 3; ++ky) {
                for (int64_t kx = 0; kx < 3; ++kx) {
                  const int64_t iy = y + ky - c.pad_top, ix = xo + kx - c.pad_left;
                  if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                  const double term = static_cast<double>(w[((o * c.c + i) * 3 + ky) * 3 + kx]) *
                                      x[Blocked(c.block, n, i, iy, ix, c.c, c.h, c.w)];
                  sum += term;
                  magnitude += std::fabs(term);
                }
              }
            }
            const int64_t at = Blocked(c.block, n, o, y, xo, c.k, oh, ow);
            direct[at] = sum;
            scale[at] = magnitude + 1.0;
          }
        }
      }
    }
    struct Variant {
      int tile;
      bool with_bias;
      ConvEpilogue epilogue;
      int threads;
    };
    using Act = ConvEpilogue::Activation;
    const Variant variants[] = {{2, false, {}, 1},
                                {4, false, {}, 2},
                                {2, true, {false, Act::kRelu, 0, 0}, 2},
                                {4, true, {true, Act::kRelu, 0.1f, 0}, 1},
                                {4, true, {false, Act::kClip, -0.5f, 0.75f}, 2},
                                {2, true, {true, Act::kNone, 0, 0}, 1},
                                {4, true, {false, Act::kSwish, 0, 0}, 2},
                                {2, false, {true, Act::kHardSwish, 0, 0}, 1}};
    for (const Variant& v : variants) {
      const WinogradConv conv(v.tile, c.c, c.k, w.data(), v.with_bias ? bias.data() : nullptr, v.epilogue);
      std::vector<float> scratch(static_cast<size_t>(conv.ScratchFloats(shape, v.threads)));
      std::vector<float> y = v.epilogue.sum ? residual : std::vector<float>(residual.size(), -7.0f);
      conv.Run(shape, x.data(), y.data(), scratch.data(), v.threads);
      // F(4x4)'s transforms scale terms by up to 8 and 1/24: a few times float's epsilon of the terms' magnitude.
      const double tolerance = (v.tile == 2 ? 8 : 64) * 1.2e-7;
      for (int64_t n = 0; n < c.batch; ++n) {
        for (int64_t o = 0; o < c.k; ++o) {
          for (int64_t yy = 0; yy < oh; ++yy) {
            for (int64_t xo = 0; xo < ow; ++xo) {
              const int64_t at = Blocked(c.block, n, o, yy, xo, c.k, oh, ow);
              double expect = direct[at] + (v.with_bias ? bias[o] : 0.0) + (v.epilogue.sum ? residual[at] : 0.0);
              if (v.epilogue.activation == Act::kRelu && expect <= 0) expect *= v.epilogue.alpha;
              if (v.epilogue.activation == Act::kClip) {
                expect = std::min<double>(std::max<double>(expect, v.epilogue.alpha), v.epilogue.beta);
              }
              if (v.epilogue.activation == Act::kSwish) expect /= 1.0 + std::exp(-expect);
              if (v.epilogue.activation == Act::kHardSwish) expect *= std::clamp(expect / 6.0 + 0.5, 0.0, 1.0);
              ASSERT_NEAR(y[at], expect, tolerance * scale[at] * (v.epilogue.sum ? 2 : 1))
                  << "tile " << v.tile << " case " << c.c << "->" << c.k << " " << c.h << "x" << c.w << " at n" << n
                  << " o" << o << " (" << yy << ", " << xo << ")";
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(WinogradConv, ScratchStaysBoundedOnLargeMaps) {
  // A 512x512 map of 256 channels: all tiles' transformed data at once would be ~1.2 GB in F(4x4); the tiles then go
  // in chunks whose scratch stays within 32 MB.
  const WinogradConvShape shape{1, 256, 256, 512, 512, 512, 512, 1, 1};
  if (!WinogradConv::Supported(shape)) GTEST_SKIP() << "needs AVX2 + FMA";
  const std::vector<float> w(256 * 256 * 9, 0.5f);
  for (const int tile : {2, 4}) {
    const WinogradConv conv(tile, 256, 256, w.data(), nullptr, {});
    for (const int threads : {1, 2}) EXPECT_LE(conv.ScratchFloats(shape, threads) * 4, int64_t{32} << 20) << tile;
  }
}

}  // namespace
}  // namespace onyx::kernels
