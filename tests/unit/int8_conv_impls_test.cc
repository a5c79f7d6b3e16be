// Every oneDNN implementation kernels::Int8Conv chooses between by timing (Int8Conv::Implementations: AMX, brgemm,
// direct 1x1 and direct VNNI kernels, as the CPU offers them) gives the same results: the int32 sums of
// sum((x - x_zero_point) * w) over the taps, and with the requantization fused, kernels::RequantizeValue of them
// (MLAS's rounding, the zero point added after it). The choice between them is the tuning cache's, made on timings,
// so each must be exact on its own: 1x1 layers of MobileNet-v2's shapes (where the direct 1x1 kernel won), ragged
// pixel counts, 3x3, strided, depthwise, signed sources. Each is also built for a constant x zero point (Create's
// constant_zero_point: no zero-point argument where it is 0, or where it folds into a fused requantization's bias, on
// an image bordered with the zero point where the convolution pads, which brings in oneDNN's brgemm kernels), and
// int32 sums past float's exact range must stay exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernels/int8_conv.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_requantize.h"

namespace onyx::kernels {
namespace {

Int8ConvDims Dims(int64_t c, int64_t m, int64_t h, int64_t w, int64_t k, int64_t stride, int64_t pad,
                  int64_t group = 1) {
  Int8ConvDims d;
  d.in_channels = c;
  d.out_channels = m;
  d.group = group;
  d.in_h = h;
  d.in_w = w;
  d.kernel_h = d.kernel_w = k;
  d.stride_h = d.stride_w = stride;
  d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = pad;
  d.out_h = (h + 2 * pad - k) / stride + 1;
  d.out_w = (w + 2 * pad - k) / stride + 1;
  return d;
}

// sum over taps of (x - zp) * w, x channels last [1, H, W, C], w [M, C/g, K, K]; out [OH, OW, M].
template <typename A>
std::vector<int32_t> ReferenceSums(const Int8ConvDims& d, const std::vector<A>& x, int32_t zp,
                                   const std::vector<int8_t>& w) {
  const int64_t cg = d.in_channels / d.group, mg = d.out_channels / d.group;
  std::vector<int32_t> out(static_cast<size_t>(d.out_h * d.out_w * d.out_channels));
  for (int64_t oh = 0; oh < d.out_h; ++oh) {
    for (int64_t ow = 0; ow < d.out_w; ++ow) {
      for (int64_t m = 0; m < d.out_channels; ++m) {
        const int64_t g = m / mg;
        int32_t sum = 0;
        for (int64_t kh = 0; kh < d.kernel_h; ++kh) {
          const int64_t ih = oh * d.stride_h - d.pad_top + kh;
          if (ih < 0 || ih >= d.in_h) continue;
          for (int64_t kw = 0; kw < d.kernel_w; ++kw) {
            const int64_t iw = ow * d.stride_w - d.pad_left + kw;
            if (iw < 0 || iw >= d.in_w) continue;
            for (int64_t ci = 0; ci < cg; ++ci) {
              const int32_t xv = x[static_cast<size_t>((ih * d.in_w + iw) * d.in_channels + g * cg + ci)];
              const int32_t wv = w[static_cast<size_t>(((m * cg + ci) * d.kernel_h + kh) * d.kernel_w + kw)];
              sum += (xv - zp) * wv;
            }
          }
        }
        out[static_cast<size_t>((oh * d.out_w + ow) * d.out_channels + m)] = sum;
      }
    }
  }
  return out;
}

struct Case {
  Int8ConvDims d;
  bool signed_source = false;
  int32_t zero_point = 0;
};

template <typename A>
void CheckEveryImplementation(const Case& c, unsigned seed) {
  const Int8ConvDims& d = c.d;
  SCOPED_TRACE("c" + std::to_string(d.in_channels) + " m" + std::to_string(d.out_channels) + " g" +
               std::to_string(d.group) + " " + std::to_string(d.in_h) + "x" + std::to_string(d.in_w) + " k" +
               std::to_string(d.kernel_h) + " s" + std::to_string(d.stride_h));
  std::mt19937 rng(seed);
  std::vector<A> x(static_cast<size_t>(d.in_h * d.in_w * d.in_channels));
  for (A& v : x) v = static_cast<A>(rng());
  // Weights in [-15, 15]: the fused form's bound (sums below 2^24) holds for every shape here.
  std::vector<int8_t> w(static_cast<size_t>(d.out_channels * (d.in_channels / d.group) * d.kernel_h * d.kernel_w));
  for (int8_t& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 31) - 15);
  const std::vector<int32_t> sums = ReferenceSums(d, x, c.zero_point, w);

  Int8ConvRequant requant;
  requant.signed_output = c.signed_source;  // int8 sources write int8 (as QDQ int8 groups do), uint8 ones uint8
  std::uniform_real_distribution<float> scale(2e-4f, 4e-3f);
  for (int64_t m = 0; m < d.out_channels; ++m) requant.scales.push_back(scale(rng));
  for (int64_t m = 0; m < d.out_channels; ++m) requant.bias.push_back(static_cast<int32_t>(rng() % 4001) - 2000);
  requant.zero_point = c.signed_source ? -3 : 131;  // odd: rounding after adding it would move the ties
  ASSERT_TRUE(FusedRequantIsExact(w.data(), d.out_channels, static_cast<int64_t>(w.size()) / d.out_channels,
                                  requant.bias, c.signed_source ? -128 - c.zero_point : -c.zero_point,
                                  c.signed_source ? 127 - c.zero_point : 255 - c.zero_point));

  const bool padded = d.pad_top != 0 || d.pad_left != 0 || d.pad_bottom != 0 || d.pad_right != 0;
  // int32 sums and fused, each with the zero point as a run-time argument and as a constant
  for (const int variant : {0, 1, 2, 3}) {
    const bool fused = variant % 2 == 1, constant = variant >= 2;
    const Int8ConvRequant* r = fused ? &requant : nullptr;
    const std::optional<int32_t> constant_zero_point = constant ? std::optional<int32_t>(c.zero_point) : std::nullopt;
    for (int threads : {1, 2}) {
      auto names = Int8Conv::Implementations(d, c.signed_source, threads, r, constant_zero_point);
      ASSERT_TRUE(names.ok()) << names.status().message();
      ASSERT_FALSE(names->empty());
      for (const std::string& name : *names) {
        SCOPED_TRACE(name + (fused ? " fused" : " int32") + (constant ? ", constant zero point" : "") + " at " +
                     std::to_string(threads) + " threads");
        auto conv = Int8Conv::Create(d, c.signed_source, w.data(), threads, r, name, constant_zero_point);
        ASSERT_TRUE(conv.ok()) << conv.status().message();
        ASSERT_STREQ((*conv)->implementation(), name.c_str());
        // The weights' sums stay far from the bound here: a constant zero point always drops the argument, except
        // a non-zero one with padding on fewer than 8 channels per group (depthwise; denser ones border the image),
        // for one group (oneDNN 2.6 fails to build some grouped kernels without it, and Create keeps it there).
        if (d.group == 1) {
          const bool kept = c.zero_point != 0 && padded && d.in_channels / d.group < 8;
          EXPECT_EQ((*conv)->has_zero_point_argument(), !constant || kept);
        }
        if (constant && !(*conv)->has_zero_point_argument()) {
          std::vector<uint8_t> y(static_cast<size_t>(d.out_h * d.out_w * d.out_channels));
          EXPECT_FALSE((*conv)->RunNhwc(x.data(), c.zero_point + 1, y.data()).ok()) << "another zero point";
        }
        const int64_t outputs = d.out_h * d.out_w * d.out_channels;
        int64_t wrong = 0;
        if (!fused) {
          std::vector<int32_t> y(static_cast<size_t>(outputs + (*conv)->OutputSlack()));
          ASSERT_TRUE((*conv)->RunNhwc(x.data(), c.zero_point, y.data()).ok());
          for (int64_t i = 0; i < outputs; ++i) wrong += y[static_cast<size_t>(i)] != sums[static_cast<size_t>(i)];
        } else {
          std::vector<uint8_t> y(static_cast<size_t>(outputs));
          ASSERT_TRUE((*conv)->RunNhwc(x.data(), c.zero_point, y.data()).ok());
          for (int64_t i = 0; i < outputs; ++i) {
            const int64_t m = i % d.out_channels;
            const int32_t acc = sums[static_cast<size_t>(i)] + requant.bias[static_cast<size_t>(m)];
            const float scale = requant.scales[static_cast<size_t>(m)];
            const uint8_t expected = c.signed_source
                                         ? static_cast<uint8_t>(RequantizeValue<int8_t>(acc, scale, requant.zero_point))
                                         : RequantizeValue<uint8_t>(acc, scale, requant.zero_point);
            wrong += y[static_cast<size_t>(i)] != expected;
          }
        }
        EXPECT_EQ(wrong, 0) << "of " << outputs;
      }
    }
  }
}

class Int8ConvImplementations : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Int8GemmArithmetic() != Int8Arithmetic::kExact) GTEST_SKIP() << "no VNNI/AMX: int8 products are not exact here";
  }
};

TEST_F(Int8ConvImplementations, PointwiseMobileNetShapes) {
  CheckEveryImplementation<uint8_t>({Dims(16, 96, 28, 28, 1, 1, 0), false, 3}, 1);
  CheckEveryImplementation<uint8_t>({Dims(24, 144, 14, 14, 1, 1, 0), false, 0}, 2);
  CheckEveryImplementation<uint8_t>({Dims(160, 960, 7, 7, 1, 1, 0), false, 117}, 3);
  CheckEveryImplementation<uint8_t>({Dims(144, 24, 14, 14, 1, 1, 0), false, 250}, 4);
}

TEST_F(Int8ConvImplementations, RaggedStridedAndSigned) {
  CheckEveryImplementation<uint8_t>({Dims(64, 40, 5, 3, 1, 1, 0), false, 9}, 5);
  CheckEveryImplementation<uint8_t>({Dims(32, 48, 15, 15, 3, 2, 1), false, 100}, 6);
  CheckEveryImplementation<int8_t>({Dims(32, 64, 9, 9, 3, 1, 1), true, -7}, 7);
  CheckEveryImplementation<int8_t>({Dims(64, 32, 7, 7, 1, 1, 0), true, 12}, 8);
}

TEST_F(Int8ConvImplementations, ResNetShapesWithZeroPointZero) {
  // ReLU outputs quantize with zero point 0: 3x3 padded and stride-2 layers, 1x1 ones (brgconv without the argument).
  CheckEveryImplementation<uint8_t>({Dims(64, 64, 14, 14, 3, 1, 1), false, 0}, 11);
  CheckEveryImplementation<uint8_t>({Dims(32, 64, 15, 15, 3, 2, 1), false, 0}, 12);
  CheckEveryImplementation<uint8_t>({Dims(64, 128, 10, 10, 1, 1, 0), false, 0}, 13);
}

// int32 sums beyond 2^24 (float's exact integers): every weight 127, every source value 250-255 (sums ~37M). oneDNN
// 2.6's direct kernels round such sums through float (kernels/int8_conv.cc, SumsMayLeaveFloat): each implementation
// is either exact on them or says it may not be (SumsExactFor before a run, ResultExact after it, which the callers
// check), and where the zero point is a constant (0, or 252 whose share comes off the uncentred sums afterwards)
// Create chooses one of its brgemm kernels, exact. The zero point 252 makes the uncentred sums large and the centred
// ones small: with the run-time argument oneDNN's direct 1x1 kernel rounds the former (measured), so the check
// before the run must catch it.
void CheckLargeSums(const Int8ConvDims& d) {
  SCOPED_TRACE("c" + std::to_string(d.in_channels) + " k" + std::to_string(d.kernel_h));
  std::vector<uint8_t> x(static_cast<size_t>(d.in_h * d.in_w * d.in_channels));
  std::mt19937 rng(14);
  for (auto& v : x) v = static_cast<uint8_t>(250 + rng() % 6);
  const std::vector<int8_t> w(static_cast<size_t>(d.out_channels * d.in_channels * d.kernel_h * d.kernel_w), 127);
  const std::vector<uint8_t> small(x.size(), 3);
  // Whether the run's sums were exact by the kernel's own checks (false: guarded, the caller sums another way); where
  // they were, they must equal the definition's.
  auto check = [&](const Int8Conv& conv, const std::vector<uint8_t>& in, int32_t zp) {
    const std::vector<int32_t> sums = ReferenceSums(d, in, zp, w);
    if (!conv.SumsExactFor(in.data())) return false;
    std::vector<int32_t> y(sums.size() + static_cast<size_t>(conv.OutputSlack()));
    EXPECT_TRUE(conv.RunNhwc(in.data(), zp, y.data()).ok());
    if (!conv.ResultExact(y.data())) return false;
    int64_t wrong = 0;
    for (size_t i = 0; i < sums.size(); ++i) wrong += y[i] != sums[i];
    EXPECT_EQ(wrong, 0) << "of " << sums.size();
    return true;
  };
  {
    const std::vector<int32_t> sums = ReferenceSums(d, x, 0, w);
    ASSERT_GT(*std::max_element(sums.begin(), sums.end()), 1 << 25);
  }
  for (int threads : {1, 2}) {
    for (const std::optional<int32_t> constant :
         {std::optional<int32_t>(), std::optional<int32_t>(0), std::optional<int32_t>(252)}) {
      SCOPED_TRACE(std::string(constant ? "constant" : "run-time") + " zero point at " + std::to_string(threads) +
                   " threads");
      auto names = Int8Conv::Implementations(d, false, threads, nullptr, constant);
      ASSERT_TRUE(names.ok()) << names.status().message();
      for (const std::string& name : *names) {
        SCOPED_TRACE(name);
        auto conv = Int8Conv::Create(d, false, w.data(), threads, nullptr, name, constant);
        ASSERT_TRUE(conv.ok()) << conv.status().message();
        if (constant.has_value()) {
          check(**conv, x, *constant);
        } else {
          check(**conv, x, 0);
          check(**conv, x, 252);
        }
        // Small sources keep the sums exact whatever the kernel: nothing guarded (not with the constant 252, whose
        // padding taps alone take the uncentred sums past 2^24 at the borders).
        if (constant.value_or(0) != 252) {
          EXPECT_TRUE(check(**conv, small, constant.value_or(3)));
        }
      }
      auto chosen = Int8Conv::Create(d, false, w.data(), threads, nullptr, {}, constant);
      ASSERT_TRUE(chosen.ok()) << chosen.status().message();
      if (constant.has_value()) {
        EXPECT_EQ(std::string((*chosen)->implementation()).rfind("brg", 0), 0u) << (*chosen)->implementation();
        EXPECT_TRUE(check(**chosen, x, *constant));
      } else {
        check(**chosen, x, 0);
      }
    }
  }
}

TEST_F(Int8ConvImplementations, LargeSumsStayExactOrAreGuarded) {
  CheckLargeSums(Dims(128, 32, 6, 6, 3, 1, 1));
  CheckLargeSums(Dims(1152, 32, 4, 4, 1, 1, 0));
}

TEST_F(Int8ConvImplementations, DepthwiseAndGrouped) {
  CheckEveryImplementation<uint8_t>({Dims(96, 96, 14, 14, 3, 2, 1, 96), false, 128}, 9);
  CheckEveryImplementation<uint8_t>({Dims(32, 64, 12, 12, 3, 1, 1, 4), false, 5}, 10);
}

TEST_F(Int8ConvImplementations, UnknownNameIsRefused) {
  const Int8ConvDims d = Dims(16, 16, 4, 4, 1, 1, 0);
  const std::vector<int8_t> w(16 * 16, 1);
  auto conv = Int8Conv::Create(d, false, w.data(), 1, nullptr, "no_such_kernel");
  EXPECT_FALSE(conv.ok());
}

}  // namespace
}  // namespace onyx::kernels
