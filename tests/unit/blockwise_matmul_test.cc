// kernels::BlockwiseQuantizedMatMul (MatMulNBits' weights read in 4 or 8 bits) against the definition computed in
// double: odd output counts (the remainders of the 4- and 2-output loops), row counts 1-5 (row pairs, single rows)
// and 9-32 (weights widened once, rows in fours), K with a partial last block and K not a multiple of 16 (A
// padded), blocks of 16-128, zero points of any value, bias or none, 1 and 2 threads.
#include "kernels/blockwise_matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace onyx::kernels {
namespace {

struct Case {
  int bits;
  int64_t m, k, n, block;
};

TEST(BlockwiseQuantizedMatMul, MatchesTheDefinition) {
  if (!BlockwiseQuantizedMatMul::Supported(4, 32)) GTEST_SKIP() << "needs AVX2 + FMA";
  const Case cases[] = {{4, 1, 64, 24, 32}, {4, 2, 48, 21, 16},   {4, 3, 40, 10, 16},  {4, 5, 300, 33, 128},
                        {8, 1, 96, 17, 32}, {8, 4, 64, 9, 32},    {8, 3, 37, 5, 16},   {4, 1, 1024, 130, 64},
                        {4, 1, 20, 1, 16},  {8, 2, 256, 64, 128}, {4, 9, 300, 50, 32}, {4, 32, 512, 77, 32},
                        {8, 13, 72, 26, 16}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (const Case& c : cases) {
    const int64_t blocks = (c.k + c.block - 1) / c.block;
    const int64_t blob = c.block * c.bits / 8;
    const int levels = 1 << c.bits;
    std::vector<int> q(static_cast<size_t>(c.n * blocks * c.block));
    for (int& v : q) v = static_cast<int>(rng() % static_cast<unsigned>(levels));
    std::vector<uint8_t> packed(static_cast<size_t>(c.n * blocks * blob), 0);
    const int per_byte = 8 / c.bits;
    for (size_t i = 0; i < q.size(); ++i) {
      packed[i / static_cast<size_t>(per_byte)] |= static_cast<uint8_t>(q[i] << (c.bits * (i % per_byte)));
    }
    std::vector<float> scales(static_cast<size_t>(c.n * blocks)), zeros(scales.size());
    for (size_t i = 0; i < scales.size(); ++i) {
      scales[i] = 0.01f + 0.1f * (unit(rng) + 1.0f);
      zeros[i] = i % 3 == 0 ? static_cast<float>(levels / 2) : (unit(rng) + 1.0f) * levels / 2;  // any value
    }
    std::vector<float> a(static_cast<size_t>(c.m * c.k)), bias(static_cast<size_t>(c.n));
    for (float& v : a) v = unit(rng);
    for (float& v : bias) v = unit(rng);
    const BlockwiseQuantizedMatMul product(c.k, c.n, c.bits, c.block, packed.data(), scales, zeros);
    for (const bool with_bias : {false, true}) {
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(std::to_string(c.bits) + " bits, m " + std::to_string(c.m) + " k " + std::to_string(c.k) + " n " +
                     std::to_string(c.n) + " block " + std::to_string(c.block) + (with_bias ? ", bias" : "") +
                     ", threads " + std::to_string(threads));
        std::vector<float> y(static_cast<size_t>(c.m * c.n), -99.0f);
        product.Run(c.m, a.data(), with_bias ? bias.data() : nullptr, y.data(), threads);
        for (int64_t r = 0; r < c.m; ++r) {
          for (int64_t j = 0; j < c.n; ++j) {
            double want = with_bias ? bias[static_cast<size_t>(j)] : 0.0, mag = std::abs(want);
            for (int64_t kk = 0; kk < c.k; ++kk) {
              const size_t b = static_cast<size_t>(j * blocks + kk / c.block);
              const double w =
                  (q[static_cast<size_t>(j * blocks * c.block + kk)] - static_cast<double>(zeros[b])) * scales[b];
              want += a[static_cast<size_t>(r * c.k + kk)] * w;
              mag += std::abs(a[static_cast<size_t>(r * c.k + kk)] * w);
            }
            ASSERT_NEAR(y[static_cast<size_t>(r * c.n + j)], want, 2e-6 * mag + 1e-6) << "row " << r << " col " << j;
          }
        }
      }
    }
  }
}

TEST(BlockwiseQuantizedMatMul, SupportsWholeGroupsOf4And8Bits) {
  EXPECT_FALSE(BlockwiseQuantizedMatMul::Supported(2, 32));
  EXPECT_FALSE(BlockwiseQuantizedMatMul::Supported(4, 8));
  EXPECT_FALSE(BlockwiseQuantizedMatMul::Supported(4, 24));
}

}  // namespace
}  // namespace onyx::kernels
