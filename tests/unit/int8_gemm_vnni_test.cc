// onyx's VNNI product (kernels/int8_gemm_vnni.h) against the exact int32 loops: every shape class of its tiling (row
// tiles of 1-14 rows, partial panels, K not a multiple of 4, several K blocks, row groups at 2 threads), both
// signednesses of A, zero points, and sums that wrap.
#include "kernels/int8_gemm_vnni.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/int8_matmul.h"

namespace onyx::kernels {
namespace {

std::vector<int32_t> Reference(int64_t m, int64_t k, int64_t n, const std::vector<uint8_t>& a, bool signed_a,
                               int32_t zp, const std::vector<int8_t>& b) {
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint32_t sum = 0;  // wraps as the reference loops' int32 sums
      for (int64_t p = 0; p < k; ++p) {
        const uint8_t raw = a[static_cast<size_t>(i * k + p)];
        const int32_t av = signed_a ? static_cast<int32_t>(static_cast<int8_t>(raw)) : static_cast<int32_t>(raw);
        sum += static_cast<uint32_t>((av - zp) * b[static_cast<size_t>(p * n + j)]);
      }
      c[static_cast<size_t>(i * n + j)] = static_cast<int32_t>(sum);
    }
  }
  return c;
}

struct Case {
  int64_t m, k, n;
  bool signed_a;
  int32_t zp;
  int threads;
};

void Check(const Case& t, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> a(static_cast<size_t>(t.m * t.k));
  std::vector<int8_t> b(static_cast<size_t>(t.k * t.n));
  for (auto& v : a) v = static_cast<uint8_t>(rng());
  for (auto& v : b) v = static_cast<int8_t>(rng());
  const Int8VnniGemm gemm(t.k, t.n, b.data());
  std::vector<int32_t> c(static_cast<size_t>(t.m * t.n), 12345);
  gemm.Run(t.m, a.data(), t.signed_a, t.zp, c.data(), t.threads);
  const auto ref = Reference(t.m, t.k, t.n, a, t.signed_a, t.zp, b);
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_EQ(c[i], ref[i]) << "m=" << t.m << " k=" << t.k << " n=" << t.n << " signed=" << t.signed_a << " zp=" << t.zp
                            << " threads=" << t.threads << " at " << i;
  }
  // With an epilogue: every output in exactly one block, its sum final when the block comes.
  std::vector<int32_t> covered(c.size(), 0), wrong(c.size(), 0);
  const Int8BlockEpilogue epilogue = [&](int32_t* out, int64_t ldc, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    for (int64_t i = m0; i < m1; ++i) {
      for (int64_t j = n0; j < n1; ++j) {
        const auto at = static_cast<size_t>(i * t.n + j);
        covered[at] += 1;
        wrong[at] = out[i * ldc + j] != ref[at];
        out[i * ldc + j] = ~out[i * ldc + j];
      }
    }
  };
  std::fill(c.begin(), c.end(), 12345);
  gemm.Run(t.m, a.data(), t.signed_a, t.zp, c.data(), t.threads, &epilogue);
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_EQ(covered[i], 1) << "m=" << t.m << " k=" << t.k << " n=" << t.n << " at " << i;
    ASSERT_EQ(wrong[i], 0) << "m=" << t.m << " k=" << t.k << " n=" << t.n << " at " << i;
    ASSERT_EQ(c[i], ~ref[i]) << "m=" << t.m << " k=" << t.k << " n=" << t.n << " at " << i;
  }
}

TEST(Int8VnniGemm, MatchesExactSumsForEveryTilingClass) {
  if (!Int8VnniGemm::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  uint32_t seed = 1;
  // Rows 1-15 and 29 (every tile height, two tiles), columns within one panel, across panels and a partial last one.
  for (int64_t m : {1, 2, 5, 13, 14, 15, 29}) {
    for (int64_t n : {1, 17, 32, 45, 130}) Check({m, 64, n, false, 7, 1}, seed++);
  }
  // K not a multiple of 4 (the scalar packing, zero groups), and several K blocks of 1024.
  for (int64_t k : {1, 3, 5, 255, 1024, 1030, 2051}) Check({9, k, 40, false, 128, 1}, seed++);
  // int8 activations (shifted by 128 inside), negative and zero zero points.
  for (int32_t zp : {-128, -5, 0, 127}) Check({20, 70, 33, true, zp, 1}, seed++);
  // Two threads: column groups, and row groups where the columns give fewer tasks than threads.
  Check({128, 768, 300, false, 131, 2}, seed++);
  Check({100, 96, 32, true, 3, 2}, seed++);
  Check({3, 40, 20, false, 0, 2}, seed++);
}

TEST(Int8VnniGemm, SumsWrapAsTheReferenceLoops) {
  if (!Int8VnniGemm::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  // 255 * -128 per product, 70000 of them: the int32 sum overflows; both wrap alike.
  const int64_t m = 2, k = 70000, n = 3;
  std::vector<uint8_t> a(static_cast<size_t>(m * k), 255);
  std::vector<int8_t> b(static_cast<size_t>(k * n), -128);
  const Int8VnniGemm gemm(k, n, b.data());
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  gemm.Run(m, a.data(), false, -200, c.data(), 1);
  const auto ref = Reference(m, k, n, a, false, -200, b);
  EXPECT_EQ(c, ref);
}

// Int8MatMul's epilogue after oneDNN's product (ONYX_INT8_MATMUL_IMPL=dnnl) and onyx's: whole rows, final sums.
TEST(Int8MatMul, EpilogueSeesFinalSumsOnEitherProduct) {
  const int64_t m = 37, k = 300, n = 70;
  std::mt19937 rng(5);
  std::vector<uint8_t> a(static_cast<size_t>(m * k));
  std::vector<int8_t> b(static_cast<size_t>(k * n));
  for (auto& v : a) v = static_cast<uint8_t>(rng() % 128);
  for (auto& v : b) v = static_cast<int8_t>(static_cast<int>(rng() % 128) - 64);
  const auto ref = Reference(m, k, n, a, false, 9, b);
  for (const char* impl : {"dnnl", "onyx"}) {
    if (std::string(impl) == "onyx" && !Int8VnniGemm::Supported()) continue;
    ::setenv("ONYX_INT8_MATMUL_IMPL", impl, 1);
    auto made = Int8MatMul::Create(m, k, n, false, b.data(), 2);
    ::unsetenv("ONYX_INT8_MATMUL_IMPL");
    ASSERT_TRUE(made.ok()) << impl;
    std::vector<int32_t> c(static_cast<size_t>(m * n), 0), covered(c.size(), 0);
    const Int8BlockEpilogue epilogue = [&](int32_t* out, int64_t ldc, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
      for (int64_t i = m0; i < m1; ++i) {
        for (int64_t j = n0; j < n1; ++j) {
          covered[static_cast<size_t>(i * n + j)] += out[i * ldc + j] == ref[static_cast<size_t>(i * n + j)] ? 1 : 100;
        }
      }
    };
    ASSERT_TRUE((*made)->Run(a.data(), 9, c.data(), &epilogue).ok()) << impl;
    EXPECT_EQ(c, ref) << impl;
    EXPECT_EQ(covered, std::vector<int32_t>(c.size(), 1)) << impl;
  }
}

// A node's products (Int8MatMulCache) at ever new row counts of one class (prompts of random length): exact sums at
// each, whichever implementation runs (oneDNN's, its reordered weights shared between row counts, or onyx's, any row
// count over one packed copy), and past kBuildsPerRowClass row counts no product is built per row count.
TEST(Int8MatMulCache, RowCountsOfOneClassGiveExactSumsAndStopBuilding) {
  const int64_t k = 72, n = 40;
  std::mt19937 rng(17);
  std::vector<int8_t> b(static_cast<size_t>(k * n));
  // Values whose pairs fit int16: without VNNI oneDNN's kernels pair products in saturating int16, as ONNX Runtime's
  // (kernels/int8_gemm.h), which only such values keep exact.
  for (auto& v : b) v = static_cast<int8_t>(static_cast<int>(rng() % 128) - 64);
  for (const char* impl : {"", "dnnl", "onyx"}) {
    if (std::string(impl) == "onyx" && !Int8VnniGemm::Supported()) continue;
    if (*impl != 0) ::setenv("ONYX_INT8_MATMUL_IMPL", impl, 1);
    Int8MatMulCache cache;
    for (int64_t m = 66; m <= 128; m += 7) {
      std::vector<uint8_t> a(static_cast<size_t>(m * k));
      for (auto& v : a) v = static_cast<uint8_t>(rng() % 128);
      const std::shared_ptr<Int8MatMul> mm = cache.Get(m, k, n, false, b.data(), 1);
      ASSERT_NE(mm, nullptr) << impl;
      std::vector<int32_t> c(static_cast<size_t>(m * n), 0);
      ASSERT_TRUE(mm->Run(m, a.data(), 3, c.data()).ok()) << impl << " " << m << " " << mm->implementation();
      EXPECT_EQ(c, Reference(m, k, n, a, false, 3, b)) << impl << " " << m << " " << mm->implementation();
    }
    // Nine row counts of one class: kBuildsPerRowClass products, then one that runs the rest (where onyx's runs;
    // oneDNN's alone, each row count its own primitive over the shared weights).
    if (Int8VnniGemm::Supported() && std::string(impl) != "dnnl") {
      EXPECT_LE(cache.builds(), static_cast<size_t>(kBuildsPerRowClass + 1)) << impl;
    }
    ::unsetenv("ONYX_INT8_MATMUL_IMPL");
  }
}

TEST(Int8VnniGemm, EmptyDepthGivesZeros) {
  if (!Int8VnniGemm::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  const Int8VnniGemm gemm(0, 5, nullptr);
  std::vector<int32_t> c(10, 7);
  gemm.Run(2, nullptr, false, 3, c.data(), 1);
  EXPECT_EQ(c, std::vector<int32_t>(10, 0));
}

}  // namespace
}  // namespace onyx::kernels
