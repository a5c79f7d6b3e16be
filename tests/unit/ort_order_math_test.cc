// kernels/ort_order_math (ONNX Runtime's softmax, erf and Eigen sums, bit for bit) against scalar restatements of
// the rules written here from MLAS's and Eigen's sources: element by element with std::fma, the sums in explicit
// lane arrays. Bits are compared, not values. Lengths cover every vector tail (1..70) and BERT's rows (128, 768).
// The vector code runs where the CPU has it (AVX-512F rows only under an AVX-512 EffectiveIsa); the restatements
// are what ONNX Runtime 1.30 gives (tests/data/ort_order checks the kernels against its outputs).
#include "kernels/ort_order_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace onyx::kernels {
namespace {

// ---- The restatements.

// MLAS's exp of the softmax sums (compute.cpp's MlasExpConstants, TransKernelAvx512F.S / TransKernelFma3.S): x
// clamped below, n = round(x / ln 2) by the 1.5 * 2^23 trick, x - n ln 2 in two fused steps, a degree-6 polynomial
// (its last two coefficients 1), times 2^n: scalef on AVX-512F, a constructed exponent on FMA3.
float RestatedExp(float x, MlasFlavor flavor) {
  const bool avx512 = flavor == MlasFlavor::kAvx512F;
  const float lower = avx512 ? -103.9720840454f : -88.3762626647949f;
  if (!(x > lower)) x = std::isnan(x) ? x : lower;
  const float biased = std::fma(x, 1.44269504088896341f, 12582912.0f);
  const float n = biased - 12582912.0f;
  float r = std::fma(n, -6.93145752e-1f, x);
  r = std::fma(n, -1.42860677e-6f, r);
  const float c[6] = {0x1.694000p-10f, 0x1.125edcp-7f, 0x1.555b5ap-5f, 0x1.555450p-3f, 0x1.fffff6p-2f, 1.0f};
  float p = c[0];
  for (int i = 1; i < 6; ++i) p = std::fma(p, r, c[i]);
  p = std::fma(p, r, 1.0f);
  if (avx512) return std::ldexp(p, static_cast<int>(n));
  const int32_t e = static_cast<int32_t>(n) + 127;  // the exponent field of 2^n (n >= -127 after the clamp)
  return p * std::bit_cast<float>(static_cast<uint32_t>(e) << 23);
}

// Lane i % lanes sums its elements in order; then the upper 8 lanes onto the lower 8 (AVX-512F), and
// ((l0 + l1) + (l2 + l3)) and ((l4 + l5) + (l6 + l7)) added upper to lower.
float RestatedSumExp(const std::vector<float>& x, float neg_max, MlasFlavor flavor, std::vector<float>* e) {
  const size_t lanes = flavor == MlasFlavor::kAvx512F ? 16 : 8;
  std::vector<float> acc(lanes, 0.0f);
  e->resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    (*e)[i] = RestatedExp(neg_max + x[i], flavor);
    acc[i % lanes] += (*e)[i];
  }
  if (lanes == 16) {
    for (size_t i = 0; i < 8; ++i) acc[i] = acc[i + 8] + acc[i];
  }
  return ((acc[4] + acc[5]) + (acc[6] + acc[7])) + ((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

std::vector<float> RestatedSoftmax(const std::vector<float>& x, MlasFlavor flavor, bool log) {
  float max = -3.402823466e+38f;
  for (float v : x) max = std::max(max, v);
  std::vector<float> e;
  const float sum = RestatedSumExp(x, -max, flavor, &e);
  std::vector<float> y(x.size());
  const float scale = 1.0f / sum;
  const float log_sum = std::log(sum);
  for (size_t i = 0; i < x.size(); ++i) y[i] = log ? (x[i] + -max) - log_sum : e[i] * scale;
  return y;
}

// MlasErfKernelFma3 (erf.cpp's MlasErfConstants): the sign apart, |x| clamped to 3.925; below 0.921875 x P(x^2);
// from there 1 - exp(-Q(|x|)) with the erf kernel's own exp (same reduction, coefficients of its own, the
// exponent built as (n + 127) << 23).
float RestatedErf(float x) {
  const float a = std::min(std::fabs(x), 3.925f);
  float r;
  if (a < 0.921875f) {
    const float s = a * a;
    const float c[6] = {-5.99104969e-4f, 4.99339588e-3f,  -2.67667342e-2f,
                        1.12818025e-1f,  -3.76124859e-1f, 1.28379151e-1f};
    float p = c[0];
    for (int i = 1; i < 6; ++i) p = std::fma(p, s, c[i]);
    r = std::fma(p, a, a);
  } else {
    const float c[7] = {1.72948930e-5f, -3.83208680e-4f, 3.88393435e-3f, -2.42545605e-2f,
                        1.06777847e-1f, 6.34846687e-1f,  1.28717512e-1f};
    float q = c[0];
    for (int i = 1; i < 7; ++i) q = std::fma(q, a, c[i]);
    q = std::fma(q, a, a);
    const float t = std::max(-q, -88.3762626647949f);
    const float n = std::fma(1.44269504088896341f, t, 12582912.0f) - 12582912.0f;
    float f = std::fma(n, -6.93145752e-1f, t);
    f = std::fma(n, -1.42860677e-6f, f);
    const float e[7] = {1.38319808e-3f, 8.37550033e-3f, 4.16689515e-2f, 1.66664466e-1f, 4.99999851e-1f, 1.0f, 1.0f};
    float y = e[0];
    for (int i = 1; i < 7; ++i) y = std::fma(y, f, e[i]);
    r = 1.0f - y * std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
  }
  return std::signbit(x) ? -r : r;
}

// Eigen's redux over 4-float packets from `start`: two accumulators on alternate packets, summed, one more packet,
// (p0 + p2) + (p1 + p3), then the head and the leftover tail one by one; fewer than 4 values after start: in order.
float RestatedEigenSum(const float* v, int64_t n, int64_t start) {
  start = std::min(start, n);
  const int64_t packets = (n - start) / 4;
  if (packets == 0) {
    float s = v[0];
    for (int64_t i = 1; i < n; ++i) s += v[i];
    return s;
  }
  float p0[4], p1[4];
  for (int l = 0; l < 4; ++l) p0[l] = v[start + l];
  int64_t next = start + 4;
  if (packets > 1) {
    for (int l = 0; l < 4; ++l) p1[l] = v[start + 4 + l];
    next = start + 8;
    for (; next + 8 <= start + packets * 4; next += 8) {
      for (int l = 0; l < 4; ++l) {
        p0[l] += v[next + l];
        p1[l] += v[next + 4 + l];
      }
    }
    for (int l = 0; l < 4; ++l) p0[l] += p1[l];
    if (next < start + packets * 4) {
      for (int l = 0; l < 4; ++l) p0[l] += v[next + l];
      next += 4;
    }
  }
  float s = (p0[0] + p0[2]) + (p0[1] + p0[3]);
  for (int64_t i = 0; i < start; ++i) s += v[i];
  for (int64_t i = next; i < n; ++i) s += v[i];
  return s;
}

// ---- Helpers.

::testing::AssertionResult SameBits(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i])) {
      return ::testing::AssertionFailure()
             << "element " << i << " of " << got.size() << ": " << got[i] << " vs " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<int64_t> Lengths() {
  std::vector<int64_t> n;
  for (int64_t i = 1; i <= 70; ++i) n.push_back(i);
  for (int64_t i : {95, 96, 97, 127, 128, 129, 255, 256, 257, 384, 768, 771, 1000}) n.push_back(i);
  return n;
}

std::vector<float> Random(int64_t n, float spread, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, spread);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = dist(rng);
  return x;
}

constexpr MlasFlavor kFlavors[] = {MlasFlavor::kAvx512F, MlasFlavor::kFma3};

TEST(OrtOrderMath, SoftmaxRowMatchesRestatedRule) {
  for (MlasFlavor flavor : kFlavors) {
    for (int64_t n : Lengths()) {
      // Spreads up to 40 put elements below both exp clamps (-88.4 and -104 after the maximum is subtracted).
      for (float spread : {0.5f, 4.0f, 40.0f}) {
        const std::vector<float> x = Random(n, spread, static_cast<uint32_t>(n * 7 + spread));
        std::vector<float> y(x.size());
        OrtSoftmaxRow(x.data(), y.data(), n, flavor);
        ASSERT_TRUE(SameBits(y, RestatedSoftmax(x, flavor, false)))
            << "n " << n << " spread " << spread << " flavor " << static_cast<int>(flavor);
        // In place too (ONNX Runtime allows it; the exps are stored over the input as it goes).
        std::vector<float> z = x;
        OrtSoftmaxRow(z.data(), z.data(), n, flavor);
        ASSERT_TRUE(SameBits(z, y)) << "in place, n " << n;
      }
    }
  }
}

TEST(OrtOrderMath, LogSoftmaxRowMatchesRestatedRule) {
  for (MlasFlavor flavor : kFlavors) {
    for (int64_t n : Lengths()) {
      const std::vector<float> x = Random(n, 6.0f, static_cast<uint32_t>(n));
      std::vector<float> y(x.size());
      OrtLogSoftmaxRow(x.data(), y.data(), n, flavor);
      ASSERT_TRUE(SameBits(y, RestatedSoftmax(x, flavor, true))) << "n " << n;
    }
  }
}

TEST(OrtOrderMath, FlavorsSumInDifferentOrders) {
  // 16 lanes and 8 lanes are different rules: over rows of BERT's attention some rows' sums differ in their last
  // bits, so the flavour ONNX Runtime picks on the CPU matters and the tests above tell the two apart.
  int rows_differing = 0;
  for (uint32_t seed = 0; seed < 20; ++seed) {
    const std::vector<float> x = Random(768, 3.0f, seed);
    std::vector<float> a(x.size()), b(x.size());
    OrtSoftmaxRow(x.data(), a.data(), 768, MlasFlavor::kAvx512F);
    OrtSoftmaxRow(x.data(), b.data(), 768, MlasFlavor::kFma3);
    rows_differing += !SameBits(a, b);
    double sum = 0;
    for (float v : a) sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  EXPECT_GT(rows_differing, 0);
}

TEST(OrtOrderMath, ErfMatchesRestatedRule) {
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4099) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (!std::isnan(v)) x.push_back(v);
  }
  for (int i = -600000; i <= 600000; ++i) x.push_back(static_cast<float>(i) * 1e-5f);
  for (float v : {0.921875f, -0.921875f, 3.925f, 4.0f, -0.0f, 0.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()}) {
    x.push_back(v);
  }
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = RestatedErf(x[i]);
  std::vector<float> got(x.size());
  // Uneven chunks, so that every vector tail length is exercised.
  for (size_t i = 0, chunk = 1; i < x.size(); i += chunk, chunk = chunk % 37 + 1) {
    const size_t n = std::min(chunk, x.size() - i);
    OrtErf(x.data() + i, got.data() + i, static_cast<int64_t>(n));
  }
  ASSERT_TRUE(SameBits(got, want));
  // And it is erf (MLAS's kernel is accurate to a few 1e-8).
  for (size_t i = 0; i < x.size(); i += 97) EXPECT_NEAR(got[i], std::erf(static_cast<double>(x[i])), 2e-7) << x[i];
}

TEST(OrtOrderMath, EigenSumMatchesRestatedRule) {
  for (int64_t n = 1; n <= 100; ++n) {
    const std::vector<float> x = Random(n, 100.0f, static_cast<uint32_t>(n + 1000));
    for (int64_t start = 0; start < 4; ++start) {
      const float got = OrtEigenSum(x.data(), n, start);
      const float want = RestatedEigenSum(x.data(), n, start);
      ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want)) << "n " << n << " start " << start;
    }
  }
  const std::vector<float> x = Random(768 * 3 + 5, 10.0f, 5);
  for (int64_t start = 0; start < 4; ++start) {
    EXPECT_EQ(std::bit_cast<uint32_t>(OrtEigenSum(x.data(), static_cast<int64_t>(x.size()), start)),
              std::bit_cast<uint32_t>(RestatedEigenSum(x.data(), static_cast<int64_t>(x.size()), start)));
  }
  // The order matters: a sum in plain order differs from Eigen's for some of these rows.
  int differ = 0;
  for (int64_t n = 8; n <= 100; ++n) {
    const std::vector<float> y = Random(n, 100.0f, static_cast<uint32_t>(n + 1000));
    float plain = 0.0f;
    for (float v : y) plain += v;
    differ += std::bit_cast<uint32_t>(plain) != std::bit_cast<uint32_t>(OrtEigenSum(y.data(), n, 0));
  }
  EXPECT_GT(differ, 0);
}

}  // namespace
}  // namespace onyx::kernels
