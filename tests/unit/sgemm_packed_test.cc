// kernels::PackedSgemm (onyx's prepacked float product, a candidate of FloatMatMul) against a double-precision
// reference on odd sizes, with bias and GELU, on 1 and 2 threads and each vector path; and its sums against MLAS's
// order for a packed B (kernels/sgemm_ort_order.h), which it claims to keep: bit for bit.
#include "kernels/sgemm_packed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/sgemm_ort_order.h"
#include "op_test_helpers.h"

namespace onyx::kernels {
namespace {

using testing::UniformFloats;

struct Shape3 {
  int64_t m, k, n;
};

// Single rows (the panel-group loops) with whole and partial groups of panels and K blocks; then the tiles.
const Shape3 kShapes[] = {{1, 1, 1},   {1, 300, 33},  {1, 513, 200}, {1, 256, 64},   {1, 1030, 1000}, {7, 257, 129},
                          {8, 64, 16}, {13, 513, 47}, {14, 17, 40},  {29, 1030, 70}, {130, 768, 200}};

// The paths this CPU has (the forced one must exist: SetOrtSgemmPathForTesting).
std::vector<OrtSgemmPath> Paths() {
  std::vector<OrtSgemmPath> paths{OrtSgemmPath::kScalar};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) paths.push_back(OrtSgemmPath::kAvx2);
  if (OrtSgemmActivePath() == OrtSgemmPath::kAvx512) paths.push_back(OrtSgemmPath::kAvx512);
  return paths;
}

// Calls f(path) on every vector path this CPU has, the path forced meanwhile.
template <typename F>
void ForEachPath(F&& f) {
  struct RestorePath {
    ~RestorePath() { SetOrtSgemmPathForTesting(OrtSgemmPath::kAuto); }
  } restore;
  for (const OrtSgemmPath path : Paths()) {
    SetOrtSgemmPathForTesting(path);
    f(path);
  }
}

// Calls f(path, shape) for every shape on every vector path this CPU has, the path forced meanwhile.
template <typename F>
void ForEachPathAndShape(F&& f) {
  ForEachPath([&](OrtSgemmPath path) {
    for (const Shape3& s : kShapes) f(path, s);
  });
}

TEST(PackedSgemm, MatchesDoubleReferenceWithBiasAndGelu) {
  ForEachPathAndShape([](OrtSgemmPath path, const Shape3& s) {
    const auto a = UniformFloats(static_cast<size_t>(s.m * s.k), 1);
    const auto b = UniformFloats(static_cast<size_t>(s.k * s.n), 2);
    const auto bias = UniformFloats(static_cast<size_t>(s.n), 3, -2.0f, 2.0f);
    for (const MatMulActivation act : {MatMulActivation::kNone, MatMulActivation::kGeluErf}) {
      const PackedSgemm product(s.k, s.n, b.data(), bias.data(), act);
      for (int threads : {1, 2}) {
        SCOPED_TRACE("path " + std::to_string(static_cast<int>(path)) + ", " + std::to_string(s.m) + "x" +
                     std::to_string(s.k) + "x" + std::to_string(s.n) + ", threads " + std::to_string(threads));
        std::vector<float> c(static_cast<size_t>(s.m * s.n), -7.0f);
        product.Run(s.m, a.data(), c.data(), threads);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) {
            double sum = bias[static_cast<size_t>(j)], mag = std::abs(sum);
            for (int64_t p = 0; p < s.k; ++p) {
              const double t =
                  static_cast<double>(a[static_cast<size_t>(i * s.k + p)]) * b[static_cast<size_t>(p * s.n + j)];
              sum += t;
              mag += std::abs(t);
            }
            const double want =
                act == MatMulActivation::kGeluErf ? 0.5 * sum * (1.0 + std::erf(sum / std::sqrt(2.0))) : sum;
            const double tol = 4e-7 * std::sqrt(static_cast<double>(s.k + 1)) * mag + 2e-6 * std::abs(want) + 1e-6;
            ASSERT_NEAR(c[static_cast<size_t>(i * s.n + j)], want, tol) << "row " << i << " col " << j;
          }
        }
      }
    }
  });
}

TEST(PackedSgemm, SumsInMlasPackedOrder) {
  ForEachPathAndShape([](OrtSgemmPath path, const Shape3& s) {
    const auto a = UniformFloats(static_cast<size_t>(s.m * s.k), 4);
    const auto b = UniformFloats(static_cast<size_t>(s.k * s.n), 5);
    const PackedSgemm product(s.k, s.n, b.data(), nullptr, MatMulActivation::kNone);
    std::vector<float> want(static_cast<size_t>(s.m * s.n));
    OrtSgemmOptions packed;
    packed.b_packed = true;
    SgemmOrtOrder(false, false, s.m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), s.n, 0.0f, want.data(), s.n, packed);
    // A single row's two ways of reading the panels (RowPrefetch) give the same sums.
    for (const RowPrefetch prefetch : {RowPrefetch::kSoftware, RowPrefetch::kHardware}) {
      std::vector<float> got(want.size(), -3.0f);
      product.Run(s.m, a.data(), got.data(), 2, false, prefetch);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "path " << static_cast<int>(path) << ", " << s.m << "x" << s.k << "x" << s.n
                                   << ", element " << i << ", prefetch " << static_cast<int>(prefetch);
      }
    }
  });
}

TEST(PackedSgemm, RowsPackedForTheTileAreTheRowsInterleaved) {
  // Every row count of the packed-rows tile, K below, at and past the 16 columns packed at a time.
  struct RestorePath {
    ~RestorePath() { SetOrtSgemmPathForTesting(OrtSgemmPath::kAuto); }
  } restore;
  for (const OrtSgemmPath path : Paths()) {
    SetOrtSgemmPathForTesting(path);
    for (int rows = 1; rows <= kSgemmPackedRowsMax; ++rows) {
      for (const int64_t k : {1, 15, 16, 33, 300}) {
        const int64_t lda = k + 3;
        const auto a = UniformFloats(static_cast<size_t>(rows * lda), 9);
        std::vector<float> got(static_cast<size_t>(rows * k) + 8, -5.0f);
        PackSgemmRows(rows, a.data(), lda, k, got.data());
        for (int r = 0; r < rows; ++r) {
          for (int64_t kk = 0; kk < k; ++kk) {
            ASSERT_EQ(got[static_cast<size_t>(kk * rows + r)], a[static_cast<size_t>(r * lda + kk)])
                << "path " << static_cast<int>(path) << ", rows " << rows << ", k " << k << ", row " << r << ", column "
                << kk;
          }
        }
        for (size_t i = static_cast<size_t>(rows * k); i < got.size(); ++i) ASSERT_EQ(got[i], -5.0f) << "past the end";
      }
    }
  }
}

TEST(PackedSgemm, AccumulatesIntoCInMlasOrder) {
  // C holding a bias row beforehand and every K block's sums added to it: MlasGemm with beta 1 (ONNX Runtime's Gemm).
  ForEachPathAndShape([](OrtSgemmPath path, const Shape3& s) {
    const auto a = UniformFloats(static_cast<size_t>(s.m * s.k), 6);
    const auto b = UniformFloats(static_cast<size_t>(s.k * s.n), 7);
    const auto c0 = UniformFloats(static_cast<size_t>(s.m * s.n), 8, -3.0f, 3.0f);
    const PackedSgemm product(s.k, s.n, b.data(), nullptr, MatMulActivation::kNone);
    for (int threads : {1, 2}) {
      std::vector<float> got = c0, want = c0;
      product.Run(s.m, a.data(), got.data(), threads, /*accumulate=*/true);
      OrtSgemmOptions packed;
      packed.b_packed = true;
      SgemmOrtOrder(false, false, s.m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), s.n, 1.0f, want.data(), s.n, packed);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "path " << static_cast<int>(path) << ", " << s.m << "x" << s.k << "x" << s.n
                                   << ", threads " << threads << ", element " << i;
      }
    }
  });
}

TEST(PackedSgemm, LongRowsPackedPassByPassKeepMlasSums) {
  // A of 40 x 16484 (2.6 MB) outgrows a quarter of any L2, so the packed-rows tile copies A and runs the tasks pass
  // by pass over K (sgemm_packed.cc): the sums must stay MLAS's, with and without C accumulated, on 1 and 2 threads.
  ForEachPath([](OrtSgemmPath path) {
    const int64_t m = 40, k = 64 * 256 + 100, n = 70;
    const auto a = UniformFloats(static_cast<size_t>(m * k), 10);
    const auto b = UniformFloats(static_cast<size_t>(k * n), 11);
    const auto c0 = UniformFloats(static_cast<size_t>(m * n), 12, -3.0f, 3.0f);
    const PackedSgemm product(k, n, b.data(), nullptr, MatMulActivation::kNone);
    for (const bool accumulate : {false, true}) {
      std::vector<float> want = c0;
      OrtSgemmOptions packed;
      packed.b_packed = true;
      SgemmOrtOrder(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, accumulate ? 1.0f : 0.0f, want.data(), n,
                    packed);
      for (int threads : {1, 2}) {
        std::vector<float> got = c0;
        product.Run(m, a.data(), got.data(), threads, accumulate);
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i], want[i]) << "path " << static_cast<int>(path) << ", accumulate " << accumulate
                                     << ", threads " << threads << ", element " << i;
        }
      }
    }
  });
}

TEST(PackedSgemm, EmptyKGivesTheEpilogueOfZero) {
  const std::vector<float> bias{1.0f, -2.0f, 0.5f};
  const PackedSgemm product(0, 3, nullptr, bias.data(), MatMulActivation::kNone);
  std::vector<float> c(6, 9.0f);
  product.Run(2, nullptr, c.data(), 1);
  EXPECT_EQ(c, (std::vector<float>{1.0f, -2.0f, 0.5f, 1.0f, -2.0f, 0.5f}));
}

TEST(PackedSgemm, RowsWrittenLaterGiveTheSameProduct) {
  // K over two blocks of 256 with a partial last one, N with a partial last panel, rows written out of order from
  // two threads: the same bits as the product packed from the whole matrix (rows in order; the tests above check
  // that one against the definition).
  const int64_t m = 7, k = 300, n = 37;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n), bias(n);
  for (float& v : a) v = unit(rng);
  for (float& v : b) v = unit(rng);
  for (float& v : bias) v = unit(rng);
  const PackedSgemm whole(k, n, b.data(), bias.data(), MatMulActivation::kNone);
  PackedSgemm later(PackedSgemm::RowsLater{}, k, n, bias.data(), MatMulActivation::kNone);
#pragma omp parallel for num_threads(2)
  for (int64_t i = 0; i < k; ++i) {
    const int64_t kk = k - 1 - i;
    later.SetRow(kk, b.data() + kk * n);
  }
  std::vector<float> want(m * n), got(m * n);
  whole.Run(m, a.data(), want.data(), 1);
  later.Run(m, a.data(), got.data(), 1);
  EXPECT_EQ(want, got);
}

TEST(PackedSgemm, RowsReadBackAreTheMatrixPacked) {
  // K over two blocks with a partial last one, N with a partial last panel: every row read back is B's row.
  const int64_t k = 300, n = 37;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 9);
  const PackedSgemm packed(k, n, b.data(), nullptr, MatMulActivation::kNone);
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t kk = 0; kk < k; ++kk) {
    packed.GetRow(kk, row.data());
    ASSERT_EQ(row, std::vector<float>(b.begin() + kk * n, b.begin() + (kk + 1) * n)) << "row " << kk;
  }
}

}  // namespace
}  // namespace onyx::kernels
