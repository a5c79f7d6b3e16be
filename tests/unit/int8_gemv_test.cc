// The few-row int8 product (src/kernels/int8_gemv.h): on CPUs whose uint8 x int8 products add in saturating int16
// pairs, against the pairing written out here (raw uint8 values paired along K from even k, each pair saturated,
// the zero point times the column sums subtracted after); on VNNI CPUs against the exact sums; on both against the
// int8 GEMM and matmul every other path uses, bit for bit, with full-range values that saturate, K and N not multiples
// of the kernel's blocks, and several rows. The depths 270 and 513 are ones where oneDNN's GEMM and matmul paired from
// odd k after an odd first K block before they were padded (kernels/int8_gemm.h, Int8PadsDepth).
#include "kernels/int8_gemv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/int8_gemm.h"
#include "kernels/int8_matmul.h"

namespace onyx::kernels {
namespace {

int32_t PairedSum(const uint8_t* a, const int8_t* b, int64_t k, int64_t n, int64_t j) {
  int32_t sum = 0;
  for (int64_t p = 0; p < k; p += 2) {
    int32_t pair = a[p] * b[p * n + j];
    if (p + 1 < k) pair += a[p + 1] * b[(p + 1) * n + j];
    sum += std::clamp(pair, -32768, 32767);
  }
  return sum;
}

void Check(int64_t m, int64_t k, int64_t n, int threads) {
  std::vector<uint8_t> a(static_cast<size_t>(m * k));
  std::vector<int8_t> b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(255 - (i * 7) % 40);  // large: pairs saturate
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>((i * 89 + 13) % 256 - 128);
  const int32_t zp = 117;
  Int8Gemv gemv(k, n, b.data());
  const bool pairs = Int8GemmArithmetic() == Int8Arithmetic::kSaturatingPairs;
  std::vector<int32_t> c(static_cast<size_t>(m * n)), g(c.size());
  gemv.Run(m, a.data(), k, zp, c.data(), threads);
  int saturated = 0;
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t colsum = 0;
      for (int64_t p = 0; p < k; ++p) colsum += b[static_cast<size_t>(p * n + j)];
      const int32_t want = PairedSum(a.data() + r * k, b.data(), k, n, j) - zp * colsum;
      int32_t exact = 0;
      for (int64_t p = 0; p < k; ++p)
        exact += (a[static_cast<size_t>(r * k + p)] - zp) * b[static_cast<size_t>(p * n + j)];
      saturated += want != exact;
      ASSERT_EQ(c[static_cast<size_t>(r * n + j)], pairs ? want : exact)
          << "m " << m << " k " << k << " n " << n << " at " << r << ", " << j;
    }
  }
  EXPECT_GT(saturated, 0) << "the test values should make some pairs saturate (and differ from the exact sums)";
  if (GemmInt8<uint8_t>(false, false, m, n, k, a.data(), k, static_cast<uint8_t>(zp), b.data(), n, 0, g.data(), n,
                        threads)) {
    int64_t differ = 0, first = -1;
    for (size_t i = 0; i < c.size(); ++i) {
      if (c[i] != g[i]) {
        if (first < 0) first = static_cast<int64_t>(i);
        ++differ;
      }
    }
    EXPECT_EQ(differ, 0) << "the int8 GEMM's sums differ in " << differ << " of " << c.size() << " (m " << m << " k "
                         << k << " n " << n << "), first at " << first << ": " << (first >= 0 ? g[first] : 0)
                         << " against " << (first >= 0 ? c[first] : 0);
  }
  if (auto mm = Int8MatMul::Create(m, k, n, false, b.data(), threads); mm.ok()) {
    std::vector<int32_t> p(c.size());
    ASSERT_TRUE((*mm)->Run(a.data(), zp, p.data()).ok());
    EXPECT_EQ(c, p) << "the int8 matmul's sums differ (m " << m << " k " << k << " n " << n << ")";
  }
}

TEST(Int8Gemv, SumsAsTheOtherInt8Paths) {
  if (!Int8Gemv::Applicable()) GTEST_SKIP() << "no AVX2, or exact int8 sums without VNNI on this CPU";
  Check(1, 512, 1536, 1);
  Check(1, 513, 37, 2);
  Check(2, 513, 37, 2);
  Check(1, 27, 64, 1);
  Check(5, 27, 64, 1);
  Check(1, 515, 40, 1);
  Check(6, 270, 33, 2);
  Check(3, 130, 70, 2);
  Check(4, 2048, 512, 2);
}

}  // namespace
}  // namespace onyx::kernels
