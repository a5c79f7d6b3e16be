// kernels::SgemmRowPackedOrder: ONNX Runtime's summation order for one-row products (K in slices of 256, each a
// chain of fused multiply-adds from 0, then added to C), checked bit for bit against a plain loop written from that
// description, with and without threads, for K around the slice boundaries. (tests/data/quant/float_heads checks the
// order itself against ONNX Runtime's outputs.)
#include "kernels/sgemm_row.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace onyx::kernels {
namespace {

std::vector<float> Reference(const std::vector<float>& a, const std::vector<float>& b, std::vector<float> c, int64_t k,
                             int64_t n, bool accumulate) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k0 = 0; k0 < k; k0 += 256) {
      float sum = 0.0f;
      for (int64_t kk = k0; kk < std::min<int64_t>(k, k0 + 256); ++kk) sum = std::fma(a[kk], b[kk * n + j], sum);
      c[j] = (k0 == 0 && !accumulate) ? sum : sum + c[j];
    }
  }
  return c;
}

bool SameBits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

TEST(SgemmRow, MatchesThePackedOrderBitForBit) {
  if (!__builtin_cpu_supports("fma")) GTEST_SKIP() << "the reference uses fused multiply-adds";
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const int saved = omp_get_max_threads();
  for (int64_t k : {1, 7, 255, 256, 257, 600, 1500}) {
    for (int64_t n : {1, 5, 37, 700}) {
      std::vector<float> a(static_cast<size_t>(k)), b(static_cast<size_t>(k * n)), c(static_cast<size_t>(n));
      for (float& v : a) v = dist(rng);
      for (float& v : b) v = dist(rng);
      for (float& v : c) v = dist(rng);
      for (bool accumulate : {false, true}) {
        const std::vector<float> want = Reference(a, b, c, k, n, accumulate);
        for (int threads : {1, 2}) {
          omp_set_num_threads(threads);
          std::vector<float> got = c;
          SgemmRowPackedOrder(a.data(), b.data(), n, got.data(), k, n, accumulate);
          EXPECT_TRUE(SameBits(got, want))
              << "k=" << k << " n=" << n << " accumulate=" << accumulate << " threads=" << threads;
        }
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(SgemmRow, EmptyK) {
  std::vector<float> c = {1.5f, -2.0f};
  SgemmRowPackedOrder(nullptr, nullptr, 2, c.data(), 0, 2, true);
  EXPECT_EQ(c, (std::vector<float>{1.5f, -2.0f}));
  SgemmRowPackedOrder(nullptr, nullptr, 2, c.data(), 0, 2, false);
  EXPECT_EQ(c, (std::vector<float>{0.0f, 0.0f}));
}

}  // namespace
}  // namespace onyx::kernels
