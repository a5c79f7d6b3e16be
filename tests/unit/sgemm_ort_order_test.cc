// kernels::SgemmOrtOrder / SgemmOrtOperation / SgemmOrtBlocks: MLAS's summation order, checked bit for bit against
// plain scalar loops written from the rule in sgemm_ort_order.h (K blocks from the StrideK rule or 256 when packed,
// FMA chains from 0, first block stored and later ones added; the M = 1 and N = 1 kernels without FMA; MlasGemm's
// split over ONNX Runtime's threads), for shapes across the block boundaries, every transpose, alpha and beta, with
// 1 and 2 onyx threads, on every vector path the CPU has. (tests/data/quant/conv_ort_order checks the order itself
// against ONNX Runtime's outputs.)
#include "kernels/sgemm_ort_order.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace onyx::kernels {
namespace {

// Products and sums through a volatile: nothing can be contracted into an FMA behind the test's back.
float Mul(float x, float y) {
  volatile float p = x * y;
  return p;
}
float Add(float x, float y) {
  volatile float s = x + y;
  return s;
}

struct Problem {
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  std::vector<float> a, b, c;
  int64_t lda = 0, ldb = 0, ldc = 0;
  float A(int64_t i, int64_t kk) const { return ta ? a[kk * lda + i] : a[i * lda + kk]; }
  float B(int64_t kk, int64_t j) const { return tb ? b[j * ldb + kk] : b[kk * ldb + j]; }
};

// The StrideK rule of MlasSgemmOperation, written out.
int64_t StrideK(int64_t n, int64_t k, bool ta) {
  if (ta || n >= k) return 128;
  int64_t sn = 128, sk = 128;
  while (sn > 16 && sn / 2 >= n) sn /= 2, sk *= 2;
  return sk;
}

// MlasSgemmOperation on rows [r0, r0 + rm) and columns [c0, c0 + cn) of p, result into c.
void RefOperation(const Problem& p, int64_t r0, int64_t rm, int64_t c0, int64_t cn, std::vector<float>& c) {
  auto C = [&](int64_t i, int64_t j) -> float& { return c[(r0 + i) * p.ldc + c0 + j]; };
  auto A = [&](int64_t i, int64_t kk) { return p.A(r0 + i, kk); };
  auto B = [&](int64_t kk, int64_t j) { return p.B(kk, c0 + j); };
  const bool zero = p.beta == 0.0f;
  if (p.k == 0) {
    for (int64_t i = 0; i < rm; ++i)
      for (int64_t j = 0; j < cn; ++j) C(i, j) = zero ? 0.0f : Mul(C(i, j), p.beta);
    return;
  }
  const bool unit = p.alpha == 1.0f && (p.beta == 0.0f || p.beta == 1.0f);
  // M1 kernel: out[j] over `len` outputs, x(kk) the vector, y(kk, j) the matrix.
  auto m1 = [&](int64_t len, auto x, auto y, auto out) {
    for (int64_t j = 0; j < len; ++j) {
      bool first = zero;
      int64_t kk = 0;
      auto group = [&](int64_t count) {
        float t = Mul(x(kk), y(kk, j));
        for (int64_t q = 1; q < count; ++q) t = Add(t, Mul(x(kk + q), y(kk + q, j)));
        out(j) = Add(t, first ? 0.0f : out(j));
        first = false;
        kk += count;
      };
      while (p.k - kk >= 4) group(4);
      if (p.k - kk >= 2) group(2);
      if (p.k - kk >= 1) group(1);
    }
  };
  // M1 transposed-B kernel: eight lane sums, reduced by the output's position in blocks of 4, 2, 1.
  auto m1t = [&](int64_t len, auto x, auto y, auto out) {
    for (int64_t j = 0; j < len; ++j) {
      float l[8] = {};
      for (int64_t kk = 0; kk < (p.k + 7) / 8 * 8; ++kk)
        l[kk % 8] = Add(l[kk % 8], kk < p.k ? Mul(x(kk), y(kk, j)) : 0.0f);
      float r;
      if (j < len / 4 * 4) {
        r = Add(Add(Add(Add(l[0], l[1]), l[2]), l[3]), Add(Add(Add(l[4], l[5]), l[6]), l[7]));
      } else if (j < len / 4 * 4 + 2 && (len & 2)) {
        r = Add(Add(Add(l[0], l[2]), Add(l[4], l[6])), Add(Add(l[1], l[3]), Add(l[5], l[7])));
      } else {
        r = Add(Add(Add(l[0], l[1]), Add(l[2], l[3])), Add(Add(l[4], l[5]), Add(l[6], l[7])));
      }
      out(j) = Add(r, zero ? 0.0f : out(j));
    }
  };
  if (rm == 1 && !p.ta && unit) {
    auto x = [&](int64_t kk) { return A(0, kk); };
    auto y = [&](int64_t kk, int64_t j) { return B(kk, j); };
    auto out = [&](int64_t j) -> float& { return C(0, j); };
    if (p.tb)
      m1t(cn, x, y, out);
    else
      m1(cn, x, y, out);
    return;
  }
  if (cn == 1 && p.ldb == 1 && p.ldc == 1 && unit) {
    auto x = [&](int64_t kk) { return B(kk, 0); };
    auto y = [&](int64_t kk, int64_t i) { return A(i, kk); };
    auto out = [&](int64_t i) -> float& { return C(i, 0); };
    if (!p.ta)
      m1t(rm, x, y, out);
    else
      m1(rm, x, y, out);
    return;
  }
  const int64_t sk = StrideK(cn, p.k, p.ta);
  for (int64_t i = 0; i < rm; ++i) {
    for (int64_t j = 0; j < cn; ++j) {
      float& out = C(i, j);
      if (!zero && p.beta != 1.0f) out = Mul(out, p.beta);
      for (int64_t k0 = 0; k0 < p.k; k0 += sk) {
        float acc = 0.0f;
        for (int64_t kk = k0; kk < std::min(p.k, k0 + sk); ++kk) acc = std::fma(A(i, kk), B(kk, j), acc);
        out = (zero && k0 == 0) ? Mul(acc, p.alpha) : std::fma(acc, p.alpha, out);
      }
    }
  }
}

// MlasGemm (not packed): the split of MlasGemmBatch over `threads` ORT threads, one RefOperation per part.
std::vector<float> RefGemm(const Problem& p, int threads) {
  std::vector<float> c = p.c;
  auto partition = [](int64_t id, int64_t parts, int64_t total, int64_t* start, int64_t* count) {
    const int64_t per = total / parts, extra = total % parts;
    *start = id < extra ? (per + 1) * id : per * id + extra;
    *count = id < extra ? per + 1 : per;
  };
  int64_t target = static_cast<int64_t>(double(p.m) * double(p.n) * double(p.k) / 65536.0) + 1;
  target = std::min<int64_t>(target, threads);
  if (p.n > p.m) {
    const int64_t blocks = (p.n + 15) / 16;
    const int64_t parts = std::min(target, blocks);
    for (int64_t t = 0; t < parts; ++t) {
      int64_t s, cnt;
      partition(t, parts, blocks, &s, &cnt);
      s *= 16;
      cnt = std::min(p.n - s, cnt * 16);
      if (cnt > 0) RefOperation(p, 0, p.m, s, cnt, c);
    }
  } else {
    const int64_t parts = std::min(target, p.m);
    for (int64_t t = 0; t < parts; ++t) {
      int64_t s, cnt;
      partition(t, parts, p.m, &s, &cnt);
      if (cnt > 0) RefOperation(p, s, cnt, 0, p.n, c);
    }
  }
  return c;
}

// Packed B: K blocks of 256, no M1 kernels.
std::vector<float> RefPacked(const Problem& p) {
  std::vector<float> c = p.c;
  const bool zero = p.beta == 0.0f;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      float& out = c[i * p.ldc + j];
      if (p.k == 0) {
        out = zero ? 0.0f : Mul(out, p.beta);
        continue;
      }
      if (!zero && p.beta != 1.0f) out = Mul(out, p.beta);
      for (int64_t k0 = 0; k0 < p.k; k0 += 256) {
        float acc = 0.0f;
        for (int64_t kk = k0; kk < std::min(p.k, k0 + 256); ++kk) acc = std::fma(p.A(i, kk), p.B(kk, j), acc);
        out = (zero && k0 == 0) ? Mul(acc, p.alpha) : std::fma(acc, p.alpha, out);
      }
    }
  }
  return c;
}

Problem Make(std::mt19937& rng, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, float beta) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  Problem p;
  p.ta = ta, p.tb = tb, p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  p.lda = (ta ? m : k) + 3;  // padded rows: strides are honoured
  p.ldb = (tb ? k : n) + 1;
  p.ldc = n + 2;
  if (n == 1) p.ldb = tb ? k : 1, p.ldc = 1;  // the layout of MLAS's N = 1 kernel
  p.a.resize(static_cast<size_t>((ta ? k : m) * p.lda + 8));
  p.b.resize(static_cast<size_t>((tb ? n : k) * p.ldb + 8));
  p.c.resize(static_cast<size_t>(m * p.ldc + 8));
  for (float& v : p.a) v = dist(rng);
  for (float& v : p.b) v = dist(rng);
  for (float& v : p.c) v = dist(rng);
  return p;
}

bool SameBits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

std::vector<OrtSgemmPath> Paths() {
  std::vector<OrtSgemmPath> paths = {OrtSgemmPath::kScalar};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) paths.push_back(OrtSgemmPath::kAvx2);
  if (__builtin_cpu_supports("avx512f")) paths.push_back(OrtSgemmPath::kAvx512);
  return paths;
}

class SgemmOrtOrderTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_threads_ = omp_get_max_threads(); }
  void TearDown() override {
    omp_set_num_threads(saved_threads_);
    SetOrtSgemmPathForTesting(OrtSgemmPath::kAuto);
  }
  int saved_threads_ = 1;
};

TEST_F(SgemmOrtOrderTest, StrideKRule) {
  EXPECT_EQ(OrtSgemmStrideK(3136, 576, false), 128);  // wide: blocks of 128
  EXPECT_EQ(OrtSgemmStrideK(49, 4608, false), 256);   // StrideN 128 -> 64
  EXPECT_EQ(OrtSgemmStrideK(32, 4608, false), 512);   // -> 32
  EXPECT_EQ(OrtSgemmStrideK(17, 4608, false), 512);
  EXPECT_EQ(OrtSgemmStrideK(16, 4608, false), 1024);  // -> 16, the floor
  EXPECT_EQ(OrtSgemmStrideK(1, 4608, false), 1024);
  EXPECT_EQ(OrtSgemmStrideK(16, 4608, true), 128);  // A transposed: never grows
  EXPECT_EQ(OrtSgemmStrideK(100, 64, false), 64);   // n >= k: one block
}

TEST_F(SgemmOrtOrderTest, OperationMatchesTheRule) {
  std::mt19937 rng(11);
  const std::vector<int64_t> ms = {1, 2, 9, 17};
  const std::vector<int64_t> ns = {1, 7, 16, 33, 130};
  const std::vector<int64_t> ks = {1, 3, 6, 127, 129, 300, 700};
  for (OrtSgemmPath path : Paths()) {
    SetOrtSgemmPathForTesting(path);
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      for (int64_t m : ms) {
        for (int64_t n : ns) {
          for (int64_t k : ks) {
            for (int t = 0; t < 4; ++t) {
              const bool ta = t & 1, tb = t & 2;
              for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, {1.0f, 1.0f}, {0.5f, 0.75f}, {-1.25f, 0.0f}}) {
                const Problem p = Make(rng, ta, tb, m, n, k, alpha, beta);
                std::vector<float> want = p.c;
                RefOperation(p, 0, m, 0, n, want);
                std::vector<float> got = p.c;
                SgemmOrtOperation(ta, tb, m, n, k, alpha, p.a.data(), p.lda, p.b.data(), p.ldb, beta, got.data(),
                                  p.ldc);
                ASSERT_TRUE(SameBits(got, want))
                    << "path=" << static_cast<int>(path) << " threads=" << threads << " m=" << m << " n=" << n
                    << " k=" << k << " ta=" << ta << " tb=" << tb << " alpha=" << alpha << " beta=" << beta;
              }
            }
          }
        }
      }
    }
  }
}

TEST_F(SgemmOrtOrderTest, GemmSplitAndPackedMatchTheRule) {
  std::mt19937 rng(12);
  struct Shape {
    int64_t m, n, k;
  };
  // N > M (split along N: each part's StrideK from its own width) and M >= N (split along M: a one-row part runs
  // the M1 kernel), large enough for several ORT threads.
  const std::vector<Shape> shapes = {{2, 40, 3000}, {3, 100, 900}, {12, 33, 2000}, {64, 49, 512},
                                     {2, 2, 40000}, {5, 300, 257}, {1, 1000, 200}};
  for (OrtSgemmPath path : Paths()) {
    SetOrtSgemmPathForTesting(path);
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      for (const Shape& s : shapes) {
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          const Problem p = Make(rng, ta, tb, s.m, s.n, s.k, 1.0f, 0.0f);
          for (int ort_threads : {1, 2, 3}) {
            OrtSgemmOptions options;
            options.ort_threads = ort_threads;
            std::vector<float> got = p.c;
            SgemmOrtOrder(ta, tb, s.m, s.n, s.k, 1.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 0.0f, got.data(), p.ldc,
                          options);
            EXPECT_TRUE(SameBits(got, RefGemm(p, ort_threads)))
                << "path=" << static_cast<int>(path) << " m=" << s.m << " n=" << s.n << " k=" << s.k << " ta=" << ta
                << " tb=" << tb << " ort_threads=" << ort_threads << " threads=" << threads;
          }
          for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, {1.0f, 1.0f}, {2.0f, 0.5f}}) {
            Problem q = p;
            q.alpha = alpha, q.beta = beta;
            OrtSgemmOptions options;
            options.b_packed = true;
            std::vector<float> got = q.c;
            SgemmOrtOrder(ta, tb, s.m, s.n, s.k, alpha, q.a.data(), q.lda, q.b.data(), q.ldb, beta, got.data(), q.ldc,
                          options);
            EXPECT_TRUE(SameBits(got, RefPacked(q))) << "packed m=" << s.m << " n=" << s.n << " k=" << s.k;
          }
        }
      }
    }
  }
}

TEST_F(SgemmOrtOrderTest, ThreadCountOfOrtChangesTheSumsWhereMlasDoes) {
  // N = 40 > M = 2: with one ORT thread the product is one 40-column operation (StrideK 256), with two it is 32 + 8
  // columns (StrideK 512 and 1024); K = 3000 spans several blocks, so some outputs differ in the last bits.
  std::mt19937 rng(13);
  const Problem p = Make(rng, false, false, 2, 40, 3000, 1.0f, 0.0f);
  std::vector<float> one = p.c, two = p.c;
  OrtSgemmOptions options;
  SgemmOrtOrder(false, false, 2, 40, 3000, 1.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 0.0f, one.data(), p.ldc,
                options);
  options.ort_threads = 2;
  SgemmOrtOrder(false, false, 2, 40, 3000, 1.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 0.0f, two.data(), p.ldc,
                options);
  EXPECT_FALSE(SameBits(one, two));
}

TEST_F(SgemmOrtOrderTest, BlocksAndM1Entries) {
  std::mt19937 rng(14);
  for (int64_t k : {1, 2, 3, 5, 9, 130}) {
    Problem p = Make(rng, false, false, 1, 50, k, 1.0f, 0.0f);
    for (bool accumulate : {false, true}) {
      p.beta = accumulate ? 1.0f : 0.0f;
      std::vector<float> want = p.c;
      RefOperation(p, 0, 1, 0, p.n, want);
      std::vector<float> got = p.c;
      SgemmOrtM1(p.a.data(), p.b.data(), p.ldb, got.data(), k, p.n, accumulate);
      EXPECT_TRUE(SameBits(got, want)) << "k=" << k << " accumulate=" << accumulate;
    }
  }
  // SgemmOrtBlocks with a given block equals the rule's block where they coincide.
  const Problem p = Make(rng, false, false, 9, 20, 700, 1.0f, 0.0f);
  std::vector<float> want = p.c, got = p.c;
  RefOperation(p, 0, p.m, 0, p.n, want);  // StrideK(20, 700) = 512
  SgemmOrtBlocks(false, false, p.m, p.n, p.k, 1.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 0.0f, got.data(), p.ldc, 512);
  EXPECT_TRUE(SameBits(got, want));
  got = p.c;
  SgemmOrtBlocks(false, false, p.m, p.n, p.k, 1.0f, p.a.data(), p.lda, p.b.data(), p.ldb, 0.0f, got.data(), p.ldc, 128);
  EXPECT_FALSE(SameBits(got, want));  // another blocking gives other sums
}

TEST_F(SgemmOrtOrderTest, EmptyK) {
  std::vector<float> c = {1.5f, -2.0f};
  SgemmOrtOperation(false, false, 1, 2, 0, 1.0f, nullptr, 0, nullptr, 2, 2.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{3.0f, -4.0f}));
  SgemmOrtOperation(false, false, 1, 2, 0, 1.0f, nullptr, 0, nullptr, 2, 0.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{0.0f, 0.0f}));
}

}  // namespace
}  // namespace onyx::kernels
