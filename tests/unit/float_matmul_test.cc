// kernels::FloatMatMul (oneDNN's matmul primitive with B packed once, bias and GELU fused) against a double-precision
// scalar reference, and the optimizer's MatMul + Add (+ Gelu) -> ai.onyx.internal.MatMulBias rewrite against the
// unfused model. Odd sizes, NaN and inf propagation, concurrent runs of one primitive.
#include "kernels/float_matmul.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "format/model_io.h"
#include "kernels/tuning_cache.h"
#include "kernels/vector_math.h"
#include "op_test_helpers.h"
#include "ops/nn/constant_product.h"
#include "optimizer/optimizer.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

using kernels::FloatMatMul;
using kernels::MatMulActivation;

using testing::UniformFloats;

double GeluRef(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// Checks c against act(a b + bias) in double: the error bound is float rounding of the k products and sums
// (relative to the sum of |a b| terms) plus the activation's own (kernels/vector_math.h: 5e-7 relative).
void ExpectMatches(int64_t m, int64_t k, int64_t n, const std::vector<float>& a, const std::vector<float>& b,
                   const float* bias, MatMulActivation act, const std::vector<float>& c) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = bias != nullptr ? bias[j] : 0.0;
      double mag = bias != nullptr ? std::abs(bias[j]) : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const double t = static_cast<double>(a[static_cast<size_t>(i * k + p)]) * b[static_cast<size_t>(p * n + j)];
        sum += t;
        mag += std::abs(t);
      }
      const double want = act == MatMulActivation::kGeluErf ? GeluRef(sum)
                          : act == MatMulActivation::kRelu  ? std::max(sum, 0.0)
                                                            : sum;
      const double tol = 4e-7 * static_cast<double>(k + 1) * mag / std::sqrt(static_cast<double>(k + 1)) +
                         2e-6 * std::abs(want) + 1e-6;
      ASSERT_NEAR(c[static_cast<size_t>(i * n + j)], want, tol)
          << "row " << i << " col " << j << " of " << m << "x" << k << "x" << n;
    }
  }
}

// ONYX_FLOAT_MATMUL_IMPL set for a test's scope.
struct ForcedImplementation {
  explicit ForcedImplementation(const char* name) { setenv("ONYX_FLOAT_MATMUL_IMPL", name, 1); }
  ~ForcedImplementation() { unsetenv("ONYX_FLOAT_MATMUL_IMPL"); }
  ForcedImplementation(const ForcedImplementation&) = delete;
  ForcedImplementation& operator=(const ForcedImplementation&) = delete;
};

struct Case {
  int64_t m, k, n;
  bool bias;
  MatMulActivation act;
};

class FloatMatMulTest : public ::testing::TestWithParam<Case> {};

TEST_P(FloatMatMulTest, MatchesScalarReference) {
  const Case cs = GetParam();
  const auto a = UniformFloats(static_cast<size_t>(cs.m * cs.k), 1);
  const auto b = UniformFloats(static_cast<size_t>(cs.k * cs.n), 2);
  const auto bias = UniformFloats(static_cast<size_t>(cs.n), 3, -2.0f, 2.0f);
  for (int threads : {1, 2}) {
    auto mm = FloatMatMul::Create(cs.m, cs.k, cs.n, b.data(), cs.bias ? bias.data() : nullptr, cs.act, threads);
    if (!mm.ok()) GTEST_SKIP() << mm.status().message();  // only oneDNN's reference kernels on this CPU
    std::vector<float> c(static_cast<size_t>(cs.m * cs.n), -7.0f);
    ASSERT_TRUE((*mm)->Run(a.data(), c.data()).ok());
    ExpectMatches(cs.m, cs.k, cs.n, a, b, cs.bias ? bias.data() : nullptr, cs.act, c);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, FloatMatMulTest,
                         ::testing::Values(Case{1, 1, 1, true, MatMulActivation::kNone},
                                           Case{1, 768, 2304, true, MatMulActivation::kNone},
                                           Case{7, 33, 129, true, MatMulActivation::kGeluErf},
                                           Case{7, 33, 129, false, MatMulActivation::kGeluErf},
                                           Case{37, 130, 17, false, MatMulActivation::kNone},
                                           Case{128, 96, 160, true, MatMulActivation::kGeluErf},
                                           Case{130, 768, 3072, true, MatMulActivation::kGeluErf},
                                           Case{1, 300, 200, true, MatMulActivation::kRelu},
                                           Case{45, 130, 96, true, MatMulActivation::kRelu},
                                           Case{128, 512, 2048, false, MatMulActivation::kRelu}));

// Every implementation the tuning may pick, forced by name, with the Relu epilogue: onyx's packed product's tile
// epilogue and the pass after oneDNN's primitives give max(x, 0) of the product plus bias, NaN kept.
TEST(FloatMatMul, ReluOnEveryImplementation) {
  struct Restore {
    ~Restore() { unsetenv("ONYX_FLOAT_MATMUL_IMPL"); }
  } restore;
  const int64_t k = 200, n = 96;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 91);
  const auto bias = UniformFloats(static_cast<size_t>(n), 92, -2.0f, 2.0f);
  for (const char* impl : {"gemm:jit", "brg", "onyx", "onyx-hwpf"}) {
    setenv("ONYX_FLOAT_MATMUL_IMPL", impl, 1);
    for (int64_t m : {1, 37}) {
      if (std::string(impl) == "onyx-hwpf" && m != 1) continue;  // a single-row candidate
      const auto a = UniformFloats(static_cast<size_t>(m * k), 93 + static_cast<uint64_t>(m));
      auto mm = FloatMatMul::Create(m, k, n, b.data(), bias.data(), MatMulActivation::kRelu, 2);
      if (!mm.ok()) continue;  // oneDNN has no such kernel on this CPU
      std::vector<float> c(static_cast<size_t>(m * n), -7.0f);
      ASSERT_TRUE((*mm)->Run(a.data(), c.data()).ok()) << impl;
      SCOPED_TRACE(std::string(impl) + " (" + (*mm)->implementation() + "), rows " + std::to_string(m));
      ExpectMatches(m, k, n, a, b, bias.data(), MatMulActivation::kRelu, c);
      // A NaN in A's first row stays NaN through the Relu, as the Relu operator gives (oneDNN's post-op made it 0 on
      // AVX2).
      auto a_nan = a;
      a_nan[3] = std::numeric_limits<float>::quiet_NaN();
      ASSERT_TRUE((*mm)->Run(a_nan.data(), c.data()).ok()) << impl;
      for (int64_t j = 0; j < n; ++j) ASSERT_TRUE(std::isnan(c[static_cast<size_t>(j)])) << "column " << j;
    }
  }
}

// A NaN in a row of A makes that row NaN; +inf times positive weights makes it +inf, and GELU(+inf) is +inf.
TEST(FloatMatMul, PropagatesNaNAndInf) {
  const int64_t m = 3, k = 20, n = 40;
  auto a = UniformFloats(static_cast<size_t>(m * k), 4, 0.1f, 1.0f);
  const auto b = UniformFloats(static_cast<size_t>(k * n), 5, 0.1f, 1.0f);
  const auto bias = UniformFloats(static_cast<size_t>(n), 6);
  a[5] = std::numeric_limits<float>::quiet_NaN();     // row 0
  a[k + 3] = std::numeric_limits<float>::infinity();  // row 1
  for (MatMulActivation act : {MatMulActivation::kNone, MatMulActivation::kGeluErf}) {
    auto mm = FloatMatMul::Create(m, k, n, b.data(), bias.data(), act, 1);
    if (!mm.ok()) GTEST_SKIP() << mm.status().message();
    std::vector<float> c(static_cast<size_t>(m * n));
    ASSERT_TRUE((*mm)->Run(a.data(), c.data()).ok());
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_TRUE(std::isnan(c[static_cast<size_t>(j)])) << "col " << j;
      EXPECT_EQ(c[static_cast<size_t>(n + j)], std::numeric_limits<float>::infinity()) << "col " << j;
      EXPECT_TRUE(std::isfinite(c[static_cast<size_t>(2 * n + j)])) << "col " << j;
    }
  }
}

// Runs of one primitive from several threads at once (a session's concurrent Runs) each get their own result.
TEST(FloatMatMul, ConcurrentRunsAgree) {
  const int64_t m = 64, k = 96, n = 80;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 7);
  const auto bias = UniformFloats(static_cast<size_t>(n), 8);
  auto mm = FloatMatMul::Create(m, k, n, b.data(), bias.data(), MatMulActivation::kGeluErf, 1);
  if (!mm.ok()) GTEST_SKIP() << mm.status().message();
  const FloatMatMul& shared = **mm;
  std::vector<std::vector<float>> inputs, outputs;
  for (int t = 0; t < 4; ++t) {
    inputs.push_back(UniformFloats(static_cast<size_t>(m * k), 100 + static_cast<uint64_t>(t)));
    outputs.emplace_back(static_cast<size_t>(m * n));
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      for (int r = 0; r < 20; ++r) EXPECT_TRUE(shared.Run(inputs[t].data(), outputs[t].data()).ok());
    });
  }
  for (auto& w : workers) w.join();
  for (int t = 0; t < 4; ++t) {
    ExpectMatches(m, k, n, inputs[t], b, bias.data(), MatMulActivation::kGeluErf, outputs[t]);
  }
}

// A product rebuilt for other row counts from the previous one (a model run at several sequence lengths) shares or
// repacks B as the new primitive's layout requires, and computes the right values either way.
TEST(FloatMatMul, RebuiltForOtherRowCountsFromThePrevious) {
  const int64_t k = 96, n = 200;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 61);
  const auto bias = UniformFloats(static_cast<size_t>(n), 62);
  std::unique_ptr<FloatMatMul> previous;
  for (int64_t m : {128, 7, 1, 130}) {
    auto mm = FloatMatMul::Create(m, k, n, b.data(), bias.data(), MatMulActivation::kGeluErf, 1, previous.get());
    if (!mm.ok()) GTEST_SKIP() << mm.status().message();
    const auto a = UniformFloats(static_cast<size_t>(m * k), 63 + static_cast<uint64_t>(m));
    std::vector<float> c(static_cast<size_t>(m * n));
    ASSERT_TRUE((*mm)->Run(a.data(), c.data()).ok());
    ExpectMatches(m, k, n, a, b, bias.data(), MatMulActivation::kGeluErf, c);
    previous = std::move(*mm);
  }
}

TEST(FloatMatMul, RowClassesAreExactForFewRowsThenPowersOfTwo) {
  using kernels::ProductRowClass;
  EXPECT_EQ(ProductRowClass(1), (kernels::RowClass{1, 1}));
  EXPECT_EQ(ProductRowClass(8), (kernels::RowClass{8, 8}));
  EXPECT_EQ(ProductRowClass(9), (kernels::RowClass{9, 16}));
  EXPECT_EQ(ProductRowClass(16), (kernels::RowClass{9, 16}));
  EXPECT_EQ(ProductRowClass(17), (kernels::RowClass{17, 32}));
  EXPECT_EQ(ProductRowClass(100), (kernels::RowClass{65, 128}));
  EXPECT_EQ(ProductRowClass(128), (kernels::RowClass{65, 128}));
  EXPECT_EQ(ProductRowClass(129), (kernels::RowClass{129, 256}));
  // One key per class: the choice made for 100 rows holds for 70.
  EXPECT_EQ(FloatMatMul::TuningKey(100, 64, 32, true, MatMulActivation::kNone, 1),
            FloatMatMul::TuningKey(70, 64, 32, true, MatMulActivation::kNone, 1));
  EXPECT_NE(FloatMatMul::TuningKey(100, 64, 32, true, MatMulActivation::kNone, 1),
            FloatMatMul::TuningKey(130, 64, 32, true, MatMulActivation::kNone, 1));
}

// CreateAnyRowCount's products (onyx's packed one, or oneDNN's gemm with a run-time row count where the class's
// timing in the cache found it faster) run every row count of the class, and other classes too, right.
TEST(FloatMatMul, AnyRowCountProductsRunEveryRowCount) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("onyx_any_rows_" + std::to_string(::getpid()));
  struct Restore {
    fs::path dir;
    ~Restore() {
      kernels::TuningCache::ResetProcess(kernels::DefaultTuningDir());
      fs::remove_all(dir);
    }
  } restore{dir};
  kernels::TuningCache::ResetProcess(dir.string());
  const int64_t k = 96, n = 200;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 91);
  const auto bias = UniformFloats(static_cast<size_t>(n), 92);
  for (const bool in_place_faster : {false, true}) {
    for (const MatMulActivation act : {MatMulActivation::kGeluErf, MatMulActivation::kRelu}) {
      kernels::TuningEntry entry;
      entry.choice = "brg";
      entry.times = {{"gemm:jit", in_place_faster ? 1.0 : 3.0}, {"onyx", 2.0}, {"brg", 0.5}};
      ASSERT_TRUE(kernels::TuningCache::Process()->Record(FloatMatMul::TuningKey(100, k, n, true, act, 1), entry).ok());
      auto mm = FloatMatMul::CreateAnyRowCount(100, k, n, [&]() -> Result<const float*> { return b.data(); },
                                               bias.data(), act, 1, {});
      ASSERT_TRUE(mm.ok()) << mm.status().message();
      ASSERT_TRUE((*mm)->RunsAnyRowCount());
      EXPECT_EQ((*mm)->implementation().rfind("gemm:jit", 0) == 0, in_place_faster) << (*mm)->implementation();
      for (int64_t m : {100, 65, 128, 3, 200}) {
        auto a = UniformFloats(static_cast<size_t>(m * k), 93 + static_cast<uint64_t>(m));
        a[0] = std::numeric_limits<float>::quiet_NaN();  // Relu keeps NaN (the row's every output is NaN)
        std::vector<float> c(static_cast<size_t>(m * n), -7.0f);
        ASSERT_TRUE((*mm)->Run(m, a.data(), c.data()).ok());
        for (int64_t j = 0; j < n; ++j) ASSERT_TRUE(std::isnan(c[static_cast<size_t>(j)])) << j;
        a[0] = 0.5f;
        ASSERT_TRUE((*mm)->Run(m, a.data(), c.data()).ok());
        ExpectMatches(m, k, n, a, b, bias.data(), act, c);
      }
    }
  }
}

// A product built for one row count refuses another (oneDNN's primitives are built for theirs).
TEST(FloatMatMul, FixedRowCountProductRefusesOtherRowCounts) {
  const ForcedImplementation forced("gemm:jit");
  const int64_t k = 32, n = 48;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 95);
  auto mm = FloatMatMul::Create(10, k, n, b.data(), nullptr, MatMulActivation::kNone, 1);
  if (!mm.ok()) GTEST_SKIP() << mm.status().message();
  if ((*mm)->RunsAnyRowCount()) GTEST_SKIP() << (*mm)->implementation();
  std::vector<float> a(static_cast<size_t>(12 * k)), c(static_cast<size_t>(12 * n));
  EXPECT_FALSE((*mm)->Run(12, a.data(), c.data()).ok());
  EXPECT_TRUE((*mm)->Run(10, a.data(), c.data()).ok());
}

// A node run at ever new row counts of one class (prompts of random length) builds products for the first few, then
// one that runs them all; every result stays right.
TEST(ConstantFloatProduct, RowCountsOfOneClassStopBuildingProducts) {
  const int64_t k = 64, n = 96;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 97);
  const auto bias = UniformFloats(static_cast<size_t>(n), 98);
  ops::nn::ConstantFloatProduct product(Tensor::FromVector(b, {k, n}), MatMulActivation::kNone);
  int runs = 0;
  for (int64_t m = 70; m <= 128; m += 3, ++runs) {
    const auto a = UniformFloats(static_cast<size_t>(m * k), 99 + static_cast<uint64_t>(m));
    std::vector<float> c(static_cast<size_t>(m * n), -7.0f);
    ASSERT_TRUE(product.Run(m, a.data(), bias.data(), c.data(), 1).ok());
    ExpectMatches(m, k, n, a, b, bias.data(), MatMulActivation::kNone, c);
  }
  EXPECT_EQ(runs, 20);
  EXPECT_LE(product.builds(), static_cast<size_t>(ops::nn::ConstantFloatProduct::kBuildsPerRowClass + 1));
  // A row count seen before, and one of another class, still run right.
  for (int64_t m : {70, 5, 300}) {
    const auto a = UniformFloats(static_cast<size_t>(m * k), 199 + static_cast<uint64_t>(m));
    std::vector<float> c(static_cast<size_t>(m * n), -7.0f);
    ASSERT_TRUE(product.Run(m, a.data(), bias.data(), c.data(), 1).ok());
    ExpectMatches(m, k, n, a, b, bias.data(), MatMulActivation::kNone, c);
  }
}

TEST(FloatMatMul, WeightsCopiedBackAreB) {
  // Whatever implementation the product takes for each row count (in place, oneDNN's packed layout, onyx's panels),
  // the plain B it gives back is the one it was built from, bit for bit.
  const int64_t k = 96, n = 200;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 71);
  for (int64_t m : {1, 7, 128}) {
    auto mm = FloatMatMul::Create(m, k, n, b.data(), nullptr, MatMulActivation::kNone, 1);
    if (!mm.ok()) GTEST_SKIP() << mm.status().message();
    std::vector<float> back(b.size(), -1.0f);
    ASSERT_TRUE((*mm)->CopyWeightsTo(back.data()).ok()) << (*mm)->implementation();
    EXPECT_EQ(back, b) << (*mm)->implementation();
  }
}

// The single-row candidate that leaves the weights' streams to the hardware prefetchers ("onyx-hwpf", timed beside
// the others for m == 1): forced by name, it computes the product and gives B back like onyx's packed product.
TEST(FloatMatMul, SingleRowWithoutSoftwarePrefetchesIsTheSameProduct) {
  const ForcedImplementation forced("onyx-hwpf");
  const int64_t k = 700, n = 300;
  const auto b = UniformFloats(static_cast<size_t>(k * n), 81);
  const auto bias = UniformFloats(static_cast<size_t>(n), 82);
  const auto a = UniformFloats(static_cast<size_t>(k), 83);
  for (int threads : {1, 2}) {
    auto mm = FloatMatMul::Create(1, k, n, b.data(), bias.data(), MatMulActivation::kGeluErf, threads);
    ASSERT_TRUE(mm.ok()) << mm.status().message();
    EXPECT_EQ((*mm)->implementation(), "onyx:packed_sgemm_hwpf");
    std::vector<float> c(static_cast<size_t>(n), -7.0f);
    ASSERT_TRUE((*mm)->Run(a.data(), c.data()).ok());
    ExpectMatches(1, k, n, a, b, bias.data(), MatMulActivation::kGeluErf, c);
    std::vector<float> back(b.size(), -1.0f);
    ASSERT_TRUE((*mm)->CopyWeightsTo(back.data()).ok());
    EXPECT_EQ(back, b);
  }
}

// ---- the optimizer's rewrite, end to end

std::string FloatList(const std::vector<float>& v) {
  std::ostringstream s;
  s.precision(9);
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str();
}

// x [2, 5, 64] times w [64, 80] plus c [80], then the exported erf GELU (opset 13: onyx's internal Gelu), and x
// times w2 plus c2 without activation as a second output.
std::string TransformerFfnModel(int64_t k, int64_t n) {
  std::ostringstream t;
  t << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
    << "g (float[2, 5, " << k << "] x) => (float[2, 5, " << n << "] y, float[2, 5, " << n << "] z) <float[" << k << ", "
    << n << "] w = {" << FloatList(UniformFloats(static_cast<size_t>(k * n), 11)) << "}, float[" << n << "] c = {"
    << FloatList(UniformFloats(static_cast<size_t>(n), 12)) << "}, float[" << k << ", " << n << "] w2 = {"
    << FloatList(UniformFloats(static_cast<size_t>(k * n), 14)) << "}, float[" << n << "] c2 = {"
    << FloatList(UniformFloats(static_cast<size_t>(n), 13)) << "}, float sqrt2 = {1.4142135}, float one = {1.0}, "
    << "float half = {0.5}> {\n"
    << "  p = MatMul(x, w)\n  h = Add(c, p)\n  d = Div(h, sqrt2)\n  e = Erf(d)\n  a = Add(e, one)\n"
    << "  m = Mul(h, a)\n  y = Mul(m, half)\n  p2 = MatMul(x, w2)\n  z = Add(p2, c2)\n}\n";
  return t.str();
}

std::vector<Value> RunSession(const ir::Model& m, const std::vector<std::pair<std::string, Value>>& feeds,
                              optimizer::OptLevel level, ir::Model* optimized = nullptr) {
  SessionOptions so;
  so.optimization_level = level;
  auto s = Session::Create(m, so);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  if (optimized != nullptr) *optimized = (*s)->model();
  std::vector<Value> out;
  const Status st = (*s)->Run(feeds, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

// The fused graph's `count` float outputs against the unfused one's: NaN where it has NaN, else within 2e-5 relative
// (absolute below 1).
void ExpectSameOutputs(const std::vector<Value>& want, const std::vector<Value>& got, size_t count) {
  ASSERT_EQ(want.size(), count);
  ASSERT_EQ(got.size(), count);
  for (size_t o = 0; o < count; ++o) {
    const Tensor& w = want[o].tensor();
    const Tensor& g = got[o].tensor();
    ASSERT_EQ(w.shape(), g.shape()) << "output " << o;
    for (int64_t i = 0; i < w.size(); ++i) {
      const float a = w.data<float>()[i], b = g.data<float>()[i];
      if (std::isnan(a)) {
        EXPECT_TRUE(std::isnan(b)) << "output " << o << " element " << i;
        continue;
      }
      ASSERT_NEAR(a, b, 2e-5 * std::max(1.0f, std::abs(a))) << "output " << o << " element " << i;
    }
  }
}

int CountOps(const ir::Graph& g, const std::string& domain, const std::string& op) {
  int count = 0;
  for (const auto& node : g.nodes) count += node.domain == domain && node.op_type == op;
  return count;
}

TEST(MatMulBiasFusion, BatchedMatMulAddGeluBecomesOneNodeWithTheSameResults) {
  auto parsed = text::ParseModel(TransformerFfnModel(64, 80));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  auto x = UniformFloats(2 * 5 * 64, 21, -2.0f, 2.0f);
  x[70] = std::numeric_limits<float>::quiet_NaN();  // row 1 of the product
  Tensor t = Tensor::Allocate(DataType::kFloat, {2, 5, 64});
  std::copy(x.begin(), x.end(), t.data<float>());
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(std::move(t))}};
  const auto want = RunSession(*parsed, feeds, optimizer::OptLevel::kDisabled);
  ir::Model fused;
  const auto got = RunSession(*parsed, feeds, optimizer::OptLevel::kAll, &fused);
  EXPECT_EQ(CountOps(fused.graph, ir::kInternalDomain, "MatMulBias"), 2);
  EXPECT_EQ(CountOps(fused.graph, "", "MatMul") + CountOps(fused.graph, "", "Add") +
                CountOps(fused.graph, ir::kInternalDomain, "Gelu") + CountOps(fused.graph, "", "Erf"),
            0)
      << "the bias Adds and the GELU fold into the products";
  ExpectSameOutputs(want, got, 2);
}

// x [r, 5, 64] times w [64, 80] plus c: the product's kernel adopts w (KernelInfo::AdoptConstantInput).
std::string AdoptedProductModel(const std::vector<float>& w, const std::vector<float>& c, int64_t k, int64_t n) {
  std::ostringstream text;
  text << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
       << "g (float[r, 5, " << k << "] x) => (float[r, 5, " << n << "] y) <float[" << k << ", " << n << "] w = {"
       << FloatList(w) << "}, float[" << n << "] c = {" << FloatList(c) << "}> {\n"
       << "  p = MatMul(x, w)\n  y = Add(p, c)\n}\n";
  return text.str();
}

// A one-thread session over AdoptedProductModel at level all (the MatMul and Add fuse into MatMulBias).
std::unique_ptr<Session> AdoptedProductSession(const std::vector<float>& w, const std::vector<float>& c, int64_t k,
                                               int64_t n) {
  auto parsed = text::ParseModel(AdoptedProductModel(w, c, k, n));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return nullptr;
  SessionOptions so;
  so.optimization_level = optimizer::OptLevel::kAll;
  so.intra_op_num_threads = 1;
  auto s = Session::Create(*parsed, so);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(*s) : nullptr;
}

// Runs the session on r x 5 rows of seeded values and checks x w + c.
// Runs `session` on an input x of `shape` (last dim k, values in [-2, 2] from `seed`) and checks its output against
// x w + bias (w [k, n]; bias n values or null).
void RunAndCheck(Session& session, const Shape& shape, uint64_t seed, int64_t k, int64_t n, const std::vector<float>& w,
                 const float* bias) {
  const int64_t m = NumElements(shape) / k;
  const auto x = UniformFloats(static_cast<size_t>(m * k), seed, -2.0f, 2.0f);
  Tensor t = Tensor::Allocate(DataType::kFloat, shape);
  std::copy(x.begin(), x.end(), t.data<float>());
  std::vector<Value> out;
  ASSERT_TRUE(session.Run({{"x", Value(std::move(t))}}, {}, &out).ok());
  const Tensor& y = out[0].tensor();
  ExpectMatches(m, k, n, x, w, bias, MatMulActivation::kNone,
                std::vector<float>(y.data<float>(), y.data<float>() + y.size()));
}

void RunAndCheckRows(Session& session, int64_t r, int64_t k, int64_t n, const std::vector<float>& w,
                     const std::vector<float>& c) {
  RunAndCheck(session, {r, 5, k}, 90 + static_cast<uint64_t>(r * 5), k, n, w, c.data());
}

TEST(MatMulBiasFusion, AdoptedWeightsLeaveTheSessionAndServeEveryRowCount) {
  // The session's model keeps a shell of w (and will not serialize), the kernel drops its reference after the first
  // build, and each new row count rebuilds B from what the kept products hold (in place, or unpacked from a packed
  // copy): every run still computes x w + c.
  const int64_t k = 64, n = 80;
  const auto w = UniformFloats(static_cast<size_t>(k * n), 11);
  const auto c = UniformFloats(static_cast<size_t>(n), 12);
  auto s = AdoptedProductSession(w, c, k, n);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(CountOps(s->model().graph, ir::kInternalDomain, "MatMulBias"), 1);
  const ir::NamedTensor* kept = s->model().graph.FindInitializer("w");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->tensor.raw(), nullptr) << "the session's model holds a shell of the adopted weight";
  EXPECT_EQ(kept->tensor.shape(), (Shape{k, n}));
  auto serialized = format::SerializeModel(s->model());
  ASSERT_FALSE(serialized.ok());
  EXPECT_NE(serialized.status().message().find("initializer 'w'"), std::string::npos) << serialized.status().message();
  // More row counts than the kernel keeps products (4), and back to the first ones.
  for (int64_t r : {2, 26, 1, 60, 7, 2, 1}) RunAndCheckRows(*s, r, k, n, w, c);
}

TEST(MatMulBiasFusion, AdoptedWeightsStayValidUnderConcurrentRunsOfManyRowCounts) {
  // Session::Run from several threads at once, each cycling through more row counts than the kernel keeps products:
  // products are built, evicted and rebuilt from each other while other runs use them.
  const int64_t k = 64, n = 80;
  const auto w = UniformFloats(static_cast<size_t>(k * n), 15);
  const auto c = UniformFloats(static_cast<size_t>(n), 16);
  auto s = AdoptedProductSession(w, c, k, n);
  ASSERT_NE(s, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (int64_t r : {1, 3, 8, 13, 21, 34}) RunAndCheckRows(*s, r + t, k, n, w, c);
      }
    });
  }
  for (auto& th : threads) th.join();
}

TEST(GemmAdoption, TransposedConstantWeightLeavesTheSessionAndEveryPathStillComputesIt) {
  // Gemm(x, W, c) with transB = 1 (PyTorch's Linear): the kernel keeps W transposed once and adopts W, so the
  // session keeps a shell of it; the one-row path (packed panels), the many-row path and ONNX Runtime's order all
  // read the copy: x W^T + c, for each.
  const int64_t k = 40, n = 24;
  const auto w = UniformFloats(static_cast<size_t>(n * k), 31);  // [n, k]
  const auto c = UniformFloats(static_cast<size_t>(n), 32);
  std::ostringstream text;
  text << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
       << "g (float[r, " << k << "] x) => (float[r, " << n << "] y) <float[" << n << ", " << k << "] w = {"
       << FloatList(w) << "}, float[" << n << "] c = {" << FloatList(c) << "}> {\n"
       << "  y = Gemm<transB = 1>(x, w, c)\n}\n";
  auto parsed = text::ParseModel(text.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  std::vector<float> w_kn(static_cast<size_t>(k * n));  // W^T, [k, n], for the reference
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) w_kn[static_cast<size_t>(j * n + i)] = w[static_cast<size_t>(i * k + j)];
  }
  for (bool ort_order : {false, true}) {
    SessionOptions so;
    so.optimization_level = optimizer::OptLevel::kDisabled;
    so.ort_summation_order = ort_order;
    auto s = Session::Create(*parsed, so);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ((*s)->model().graph.FindInitializer("w")->tensor.raw(), nullptr) << "W adopted by the Gemm";
    for (int64_t m : {1, 3, 1, 17}) RunAndCheck(**s, {m, k}, 40 + static_cast<uint64_t>(m), k, n, w_kn, c.data());
  }
}

TEST(GemmConstantProduct, ManyRowsRunPackedOneRowKeepsItsPathForEveryBiasForm) {
  // Gemm(x, W, c) with W constant and 6144 values: products of 2+ rows run on the packed constant product
  // (ops/nn/constant_product.h), one row on its own path (ONNX Runtime's sums); W as stored and transposed, the bias as
  // [N], [1, N] or absent, row counts alternating as a server's batches do: every result x W + c.
  const int64_t k = 96, n = 64;
  const auto w = UniformFloats(static_cast<size_t>(k * n), 51);  // [k, n]
  const auto c = UniformFloats(static_cast<size_t>(n), 52);
  std::vector<float> w_t(static_cast<size_t>(n * k));  // [n, k]
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < n; ++j) w_t[static_cast<size_t>(j * k + i)] = w[static_cast<size_t>(i * n + j)];
  }
  for (const bool trans_b : {false, true}) {
    for (const std::string bias_shape : {"[64]", "[1, 64]", ""}) {
      std::ostringstream text;
      text << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
           << "g (float[r, " << k << "] x) => (float[r, " << n << "] y) <float" << (trans_b ? "[64, 96]" : "[96, 64]")
           << " w = {" << FloatList(trans_b ? w_t : w) << "}"
           << (bias_shape.empty() ? "" : ", float" + bias_shape + " c = {" + FloatList(c) + "}") << "> {\n"
           << "  y = Gemm<transB = " << trans_b << ">(x, w" << (bias_shape.empty() ? "" : ", c") << ")\n}\n";
      auto parsed = text::ParseModel(text.str());
      ASSERT_TRUE(parsed.ok()) << parsed.status().message();
      for (const int threads : {1, 2}) {
        SessionOptions so;
        so.intra_op_num_threads = threads;
        auto s = Session::Create(*parsed, so);
        ASSERT_TRUE(s.ok()) << s.status().message();
        for (int64_t m : {3, 1, 40, 2, 1, 17}) {
          SCOPED_TRACE("transB " + std::to_string(trans_b) + ", bias " + bias_shape + ", threads " +
                       std::to_string(threads) + ", rows " + std::to_string(m));
          RunAndCheck(**s, {m, k}, 60 + static_cast<uint64_t>(m), k, n, w, bias_shape.empty() ? nullptr : c.data());
        }
      }
    }
  }
}

TEST(MatMulBiasFusion, SmallWeightsAndNonConstantBiasKeepTheirAdd) {
  // y: 3 x 2 weights (too small to pack); z: 3 x 2048 weights but a bias fed at run time (the product alone becomes a
  // MatMulBias without a bias).
  std::ostringstream t;
  t << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
    << "g (float[2, 2, 3] x, float[2048] c) => (float[2, 2, 2] y, float[2, 2, 2048] z) <float[3, 2] b = {"
    << FloatList(UniformFloats(6, 31)) << "}, float[2] k = {0.5, -0.5}, float[3, 2048] w = {"
    << FloatList(UniformFloats(6144, 32))
    << "}> {\n  p = MatMul(x, b)\n  y = Add(p, k)\n  q = MatMul(x, w)\n  z = Add(q, c)\n}\n";
  auto parsed = text::ParseModel(t.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  optimizer::OptimizerOptions options;
  options.level = optimizer::OptLevel::kAll;
  ir::Model m = *parsed;
  ASSERT_TRUE(optimizer::OptimizeModel(m, options).ok());
  EXPECT_EQ(CountOps(m.graph, "", "Add"), 2);
  EXPECT_EQ(CountOps(m.graph, "", "MatMul"), 1);
  ASSERT_EQ(CountOps(m.graph, ir::kInternalDomain, "MatMulBias"), 1);
  for (const auto& node : m.graph.nodes) {
    if (node.op_type == "MatMulBias") {
      EXPECT_EQ(node.inputs.size(), 2u) << "the run-time bias stays in its Add";
    }
  }
}

// A MatMul of a constant matrix read by no bias Add (a language-model head, LLaMA-style projections) becomes a
// MatMulBias without a bias, for A of rank 3 and 1, with the unfused results; a small matrix stays a MatMul.
TEST(MatMulBiasFusion, BareMatMulBecomesAProductWithoutBias) {
  std::ostringstream t;
  t << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
    << "g (float[2, 3, 64] x, float[64] v) => (float[2, 3, 80] y, float[80] u, float[2, 3, 2] s) <float[64, 80] w = {"
    << FloatList(UniformFloats(64 * 80, 81)) << "}, float[64, 2] small = {" << FloatList(UniformFloats(128, 82))
    << "}> {\n  y = MatMul(x, w)\n  u = MatMul(v, w)\n  s = MatMul(x, small)\n}\n";
  auto parsed = text::ParseModel(t.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Tensor x = Tensor::Allocate(DataType::kFloat, {2, 3, 64});
  const auto xs = UniformFloats(2 * 3 * 64, 83, -2.0f, 2.0f);
  std::copy(xs.begin(), xs.end(), x.data<float>());
  Tensor v = Tensor::Allocate(DataType::kFloat, {64});
  const auto vs = UniformFloats(64, 84, -2.0f, 2.0f);
  std::copy(vs.begin(), vs.end(), v.data<float>());
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(std::move(x))}, {"v", Value(std::move(v))}};
  const auto want = RunSession(*parsed, feeds, optimizer::OptLevel::kDisabled);
  ir::Model fused;
  const auto got = RunSession(*parsed, feeds, optimizer::OptLevel::kAll, &fused);
  EXPECT_EQ(CountOps(fused.graph, ir::kInternalDomain, "MatMulBias"), 2);
  EXPECT_EQ(CountOps(fused.graph, "", "MatMul"), 1) << "the 64 x 2 matrix is too small to pack";
  ExpectSameOutputs(want, got, 3);
}

// ONNX's Gelu (opset 20) folds when it is the erf form and stays when it is the tanh approximation.
TEST(MatMulBiasFusion, OnlyTheErfGeluFolds) {
  for (const std::string approximate : {"none", "tanh"}) {
    std::ostringstream t;
    t << "<ir_version: 9, opset_import: [\"\" : 20]>\n"
      << "g (float[2, 3, 64] x) => (float[2, 3, 80] y) <float[64, 80] w = {" << FloatList(UniformFloats(64 * 80, 71))
      << "}, float[80] c = {" << FloatList(UniformFloats(80, 72)) << "}> {\n"
      << "  p = MatMul(x, w)\n  h = Add(p, c)\n  y = Gelu<approximate = \"" << approximate << "\">(h)\n}\n";
    auto parsed = text::ParseModel(t.str());
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    Tensor x = Tensor::Allocate(DataType::kFloat, {2, 3, 64});
    const auto values = UniformFloats(2 * 3 * 64, 73, -2.0f, 2.0f);
    std::copy(values.begin(), values.end(), x.data<float>());
    const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(std::move(x))}};
    const auto want = RunSession(*parsed, feeds, optimizer::OptLevel::kDisabled);
    ir::Model fused;
    const auto got = RunSession(*parsed, feeds, optimizer::OptLevel::kAll, &fused);
    EXPECT_EQ(CountOps(fused.graph, ir::kInternalDomain, "MatMulBias"), 1) << approximate;
    EXPECT_EQ(CountOps(fused.graph, "", "Gelu"), approximate == "none" ? 0 : 1) << approximate;
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(got.size(), 1u);
    const Tensor& a = want[0].tensor();
    const Tensor& b = got[0].tensor();
    for (int64_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 2e-5 * std::max(1.0f, std::abs(a.data<float>()[i])))
          << approximate << " element " << i;
    }
  }
}

// A Relu reading a MatMulBias alone folds into it (PyTorch's nn.Transformer and T5 feed-forward layers): one node,
// the unfused results; a Relu whose input has another reader stays.
TEST(MatMulBiasFusion, ReluFoldsIntoTheProduct) {
  std::ostringstream t;
  t << "<ir_version: 8, opset_import: [\"\" : 13]>\n"
    << "g (float[2, 3, 64] x) => (float[2, 3, 80] y, float[2, 3, 80] z, float[2, 3, 80] h2) <float[64, 80] w = {"
    << FloatList(UniformFloats(64 * 80, 61)) << "}, float[80] c = {" << FloatList(UniformFloats(80, 62))
    << "}, float[64, 80] w2 = {" << FloatList(UniformFloats(64 * 80, 63)) << "}> {\n"
    << "  p = MatMul(x, w)\n  h = Add(p, c)\n  y = Relu(h)\n  h2 = MatMul(x, w2)\n  z = Relu(h2)\n}\n";
  auto parsed = text::ParseModel(t.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Tensor x = Tensor::Allocate(DataType::kFloat, {2, 3, 64});
  auto values = UniformFloats(2 * 3 * 64, 64, -2.0f, 2.0f);
  values[65] = std::numeric_limits<float>::quiet_NaN();  // row 1: NaN through the fold
  std::copy(values.begin(), values.end(), x.data<float>());
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(std::move(x))}};
  const auto want = RunSession(*parsed, feeds, optimizer::OptLevel::kDisabled);
  ir::Model fused;
  const auto got = RunSession(*parsed, feeds, optimizer::OptLevel::kAll, &fused);
  EXPECT_EQ(CountOps(fused.graph, ir::kInternalDomain, "MatMulBias"), 2);
  EXPECT_EQ(CountOps(fused.graph, "", "Relu"), 1) << "h2 is also a graph output: its Relu stays";
  int folded = 0;
  for (const auto& node : fused.graph.nodes) {
    const ir::Attribute* act = node.FindAttribute("activation");
    folded += node.op_type == "MatMulBias" && act != nullptr && act->s == "Relu";
  }
  EXPECT_EQ(folded, 1);
  ExpectSameOutputs(want, got, 3);
}

// A Gelu reading a dynamically quantized product alone folds into DynamicQuantizeMatMul, whose output is then the
// unfused Gelu kernel's function (kernels::Gelu) of the product, bit for bit.
std::string DynamicChain(bool gelu) {
  std::ostringstream t;
  std::mt19937_64 rng(41);
  t << "<ir_version: 8, opset_import: [\"\" : 20]>\n"
    << "g (float[2, 5, 16] x) => (float[2, 5, 29] y) <int8[16, 29] w = {";
  for (int i = 0; i < 16 * 29; ++i) t << (i ? "," : "") << static_cast<int>(rng() % 255) - 127;
  t << "}, int8 wz = {0}, float ws = {0.0123}, float[29] bias = {" << FloatList(UniformFloats(29, 42)) << "}> {\n"
    << "  aq, as, az = DynamicQuantizeLinear(x)\n  acc = MatMulInteger(aq, w, az, wz)\n"
    << "  accf = Cast<to = 1>(acc)\n  s = Mul(as, ws)\n  p = Mul(accf, s)\n"
    << (gelu ? "  h = Add(p, bias)\n  y = Gelu(h)\n" : "  y = Add(p, bias)\n") << "}\n";
  return t.str();
}

TEST(MatMulBiasFusion, GeluFoldsIntoDynamicQuantizeMatMulBitExact) {
  auto with_gelu = text::ParseModel(DynamicChain(true));
  auto without = text::ParseModel(DynamicChain(false));
  ASSERT_TRUE(with_gelu.ok()) << with_gelu.status().message();
  ASSERT_TRUE(without.ok()) << without.status().message();
  auto x = UniformFloats(2 * 5 * 16, 43, -3.0f, 3.0f);
  Tensor t = Tensor::Allocate(DataType::kFloat, {2, 5, 16});
  std::copy(x.begin(), x.end(), t.data<float>());
  const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(std::move(t))}};
  ir::Model fused;
  const auto got = RunSession(*with_gelu, feeds, optimizer::OptLevel::kAll, &fused);
  const auto product = RunSession(*without, feeds, optimizer::OptLevel::kAll);
  ASSERT_EQ(CountOps(fused.graph, ir::kInternalDomain, "DynamicQuantizeMatMul"), 1);
  EXPECT_EQ(CountOps(fused.graph, "", "Gelu"), 0);
  const ir::Attribute* act = nullptr;
  for (const auto& n : fused.graph.nodes) {
    if (n.op_type == "DynamicQuantizeMatMul") act = n.FindAttribute("activation");
  }
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->s, "Gelu");
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(product.size(), 1u);
  const Tensor& p = product[0].tensor();
  std::vector<float> want(static_cast<size_t>(p.size()));
  kernels::Gelu(p.data<float>(), want.data(), p.size());
  const Tensor& g = got[0].tensor();
  ASSERT_EQ(g.size(), p.size());
  for (int64_t i = 0; i < g.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &want[static_cast<size_t>(i)], 4);
    std::memcpy(&b, g.data<float>() + i, 4);
    ASSERT_EQ(a, b) << "element " << i << ": " << want[static_cast<size_t>(i)] << " vs " << g.data<float>()[i];
  }
  // And within rounding of the exact GELU of the product.
  for (int64_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g.data<float>()[i], GeluRef(p.data<float>()[i]), 1e-6 + 2e-6 * std::abs(g.data<float>()[i]));
  }
}

// MatMulBias with B fed at run time (not packable): the sgemm fallback, bias through beta and GELU as a second pass,
// against the double reference; a 1-D A (its dim dropped like MatMul's) too.
TEST(MatMulBiasFusion, FallbackWithFedWeightsMatchesReference) {
  auto parsed = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13, "ai.onyx.internal" : 1]>
g (float[3, 2, 5] a, float[5, 7] b, float[7] c, float[5] v) => (float[3, 2, 7] y, float[3, 2, 7] z, float[7] u) {
  y = ai.onyx.internal.MatMulBias<activation = "Gelu">(a, b, c)
  z = ai.onyx.internal.MatMulBias(a, b)
  u = ai.onyx.internal.MatMulBias(v, b, c)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const auto a = UniformFloats(30, 51, -2.0f, 2.0f), b = UniformFloats(35, 52), c = UniformFloats(7, 53),
             v = UniformFloats(5, 54);
  auto tensor = [](const std::vector<float>& values, const Shape& shape) {
    Tensor t = Tensor::Allocate(DataType::kFloat, shape);
    std::copy(values.begin(), values.end(), t.data<float>());
    return Value(std::move(t));
  };
  const std::vector<std::pair<std::string, Value>> feeds = {
      {"a", tensor(a, {3, 2, 5})}, {"b", tensor(b, {5, 7})}, {"c", tensor(c, {7})}, {"v", tensor(v, {5})}};
  const auto got = RunSession(*parsed, feeds, optimizer::OptLevel::kDisabled);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].tensor().shape(), (Shape{7}));
  const auto copy = [](const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.size()); };
  ExpectMatches(6, 5, 7, a, b, c.data(), MatMulActivation::kGeluErf, copy(got[0].tensor()));
  ExpectMatches(6, 5, 7, a, b, nullptr, MatMulActivation::kNone, copy(got[1].tensor()));
  ExpectMatches(1, 5, 7, v, b, c.data(), MatMulActivation::kNone, copy(got[2].tensor()));
}

}  // namespace
}  // namespace onyx
