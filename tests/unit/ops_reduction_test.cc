// Unit tests of the reduction family (Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax, CumSum/CumProd, TopK,
// LpNormalization): the cases the ONNX backend suite leaves out (empty reductions, noop axes, integer wraparound,
// NaN and infinities, old-version semantics, bad attributes and inputs).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

// ---- Reduce* ----

TEST(ReductionReduceTest, SumNegativeAxisNoKeepdims) {
  auto t = Op("ReduceSum", 13);
  t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(I64({-1}, {1})).Attr("keepdims", int64_t{0});
  ExpectFloats(RunOk(t), {2}, {6, 15});
}

TEST(ReductionReduceTest, SumMiddleAxisKeepdims) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i);
  auto t = Op("ReduceSum", 13);
  t.Input(F(v, {2, 3, 4})).Input(I64({1}, {1}));
  ExpectFloats(RunOk(t), {2, 1, 4}, {12, 15, 18, 21, 48, 51, 54, 57});
}

TEST(ReductionReduceTest, SumWithoutAxesReducesEverything) {
  auto t = Op("ReduceSum", 13);
  t.Input(F({1, 2, 3, 4}, {2, 2}));
  ExpectFloats(RunOk(t), {1, 1}, {10});
  auto empty_axes = Op("ReduceSum", 13);
  empty_axes.Input(F({1, 2, 3, 4}, {2, 2})).Input(I64({}, {0})).Attr("keepdims", int64_t{0});
  ExpectFloats(RunOk(empty_axes), {}, {10});
}

TEST(ReductionReduceTest, NoopWithEmptyAxesReturnsInput) {
  auto t = Op("ReduceSum", 13);
  t.Input(F({1, 2, 3, 4}, {2, 2})).Input(I64({}, {0})).Attr("noop_with_empty_axes", int64_t{1});
  ExpectFloats(RunOk(t), {2, 2}, {1, 2, 3, 4});
  // The composite reductions keep their element-wise part, as their function bodies do.
  auto sq = Op("ReduceSumSquare", 18);
  sq.Input(F({1, -2, 3}, {3})).Attr("noop_with_empty_axes", int64_t{1});
  ExpectFloats(RunOk(sq), {3}, {1, 4, 9});
  auto l1 = Op("ReduceL1", 18);
  l1.Input(F({1, -2, 3}, {3})).Attr("noop_with_empty_axes", int64_t{1});
  ExpectFloats(RunOk(l1), {3}, {1, 2, 3});
}

TEST(ReductionReduceTest, OldVersionsTakeAxesAttribute) {
  auto t = Op("ReduceSum", 11);
  t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Attr("axes", std::vector<int64_t>{0});
  ExpectFloats(RunOk(t), {1, 3}, {5, 7, 9});
  auto mean = Op("ReduceMean", 13);
  mean.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Attr("axes", std::vector<int64_t>{-1}).Attr("keepdims", int64_t{0});
  ExpectFloats(RunOk(mean), {2}, {2, 5});
}

TEST(ReductionReduceTest, AxesAttributeRejectedWhereAxesIsAnInput) {
  auto t = Op("ReduceSum", 13);
  t.Input(F({1, 2}, {2})).Attr("axes", std::vector<int64_t>{0});
  EXPECT_FALSE(RunOp(t).ok());
}

TEST(ReductionReduceTest, BadAxesAreErrors) {
  auto out_of_range = Op("ReduceMax", 18);
  out_of_range.Input(F({1, 2}, {2})).Input(I64({1}, {1}));
  EXPECT_FALSE(RunOp(out_of_range).ok());
  auto repeated = Op("ReduceMax", 18);
  repeated.Input(F({1, 2, 3, 4}, {2, 2})).Input(I64({0, -2}, {2}));
  EXPECT_FALSE(RunOp(repeated).ok());
  auto float_axes = Op("ReduceMax", 18);
  float_axes.Input(F({1, 2}, {2})).Input(F({0}, {1}));
  EXPECT_FALSE(RunOp(float_axes).ok());
}

TEST(ReductionReduceTest, EmptyReductionsGiveTheIdentity) {
  const Tensor empty = F({}, {2, 0, 3});
  struct Case {
    const char* op;
    float expected;
  } cases[] = {{"ReduceSum", 0},       {"ReduceProd", 1},       {"ReduceMax", -kInf},
               {"ReduceMin", kInf},    {"ReduceL1", 0},         {"ReduceL2", 0},
               {"ReduceSumSquare", 0}, {"ReduceLogSum", -kInf}, {"ReduceLogSumExp", -kInf},
               {"ReduceMean", kNaN}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    auto t = Op(c.op, 18);
    t.Input(empty).Input(I64({1}, {1}));
    ExpectFloats(RunOk(t), {2, 1, 3}, std::vector<float>(6, c.expected));
  }
}

TEST(ReductionReduceTest, EmptyIntegerMaxMinUseTypeLimits) {
  auto mx = Op("ReduceMax", 18);
  mx.Input(T_<int32_t>({}, {0, 2})).Input(I64({0}, {1})).Attr("keepdims", int64_t{0});
  Tensor r = RunOk(mx);
  ASSERT_EQ(r.shape(), (Shape{2}));
  EXPECT_EQ(Values<int32_t>(r), (std::vector<int32_t>{INT32_MIN, INT32_MIN}));
  auto mn = Op("ReduceMin", 18);
  mn.Input(T_<uint8_t>({}, {0})).Attr("keepdims", int64_t{0});
  r = RunOk(mn);
  ASSERT_EQ(r.shape(), Shape{});
  EXPECT_EQ(Values<uint8_t>(r), (std::vector<uint8_t>{255}));
}

TEST(ReductionReduceTest, ZeroSizeKeptAxisGivesEmptyOutput) {
  auto t = Op("ReduceSum", 13);
  t.Input(F({}, {2, 0, 4})).Input(I64({2}, {1}));
  Tensor r = RunOk(t);
  EXPECT_EQ(r.shape(), (Shape{2, 0, 1}));
  EXPECT_EQ(r.size(), 0);
}

TEST(ReductionReduceTest, LargeReducedBlocks) {
  // Blocks past the size whose offsets get listed are walked instead; both must agree.
  std::vector<float> v(70000 * 2);
  for (size_t i = 0; i < v.size(); ++i) v[i] = (i % 2 == 0) ? 1.0f : static_cast<float>(i % 7);
  auto t = Op("ReduceSum", 13);
  t.Input(F(v, {70000, 2})).Input(I64({0}, {1})).Attr("keepdims", int64_t{0});
  double odd = 0;
  for (size_t i = 1; i < v.size(); i += 2) odd += v[i];
  ExpectFloats(RunOk(t), {2}, {70000, static_cast<float>(odd)}, 1e-2f);
  auto mx = Op("ReduceMax", 18);
  mx.Input(F(v, {70000, 2}));
  ExpectFloats(RunOk(mx), {1, 1}, {6});
}

TEST(ReductionReduceTest, ScalarInput) {
  auto t = Op("ReduceSum", 13);
  t.Input(F({7}, {}));
  ExpectFloats(RunOk(t), {}, {7});
}

TEST(ReductionReduceTest, IntegerSumAndProdWrapAround) {
  auto sum = Op("ReduceSum", 13);
  sum.Input(T_<int32_t>({INT32_MAX, 1}, {2})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<int32_t>(RunOk(sum)), (std::vector<int32_t>{INT32_MIN}));
  auto prod = Op("ReduceProd", 18);
  prod.Input(T_<int8_t>({16, 16, -1}, {3})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<int8_t>(RunOk(prod)), (std::vector<int8_t>{0}));
  auto mean = Op("ReduceMean", 18);
  mean.Input(T_<int64_t>({-7, 0}, {2})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<int64_t>(RunOk(mean)), (std::vector<int64_t>{-3}));  // truncated toward zero
  auto l1 = Op("ReduceL1", 18);
  l1.Input(T_<int32_t>({-3, 4, -5}, {3})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<int32_t>(RunOk(l1)), (std::vector<int32_t>{12}));
}

TEST(ReductionReduceTest, MaxMinPropagateNaN) {
  auto mx = Op("ReduceMax", 18);
  mx.Input(F({1, kNaN, 3, 4, 5, 6}, {2, 3})).Input(I64({1}, {1})).Attr("keepdims", int64_t{0});
  ExpectFloats(RunOk(mx), {2}, {kNaN, 6});
  auto mn = Op("ReduceMin", 13);
  mn.Input(F({-kInf, 2, kInf}, {3}));
  ExpectFloats(RunOk(mn), {1}, {-kInf});
}

TEST(ReductionReduceTest, MaxMinOnBool) {
  auto mx = Op("ReduceMax", 20);
  mx.Input(T_<bool>({false, false, true, false}, {2, 2})).Input(I64({1}, {1})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<bool>(RunOk(mx)), (std::vector<bool>{false, true}));
  auto mn = Op("ReduceMin", 20);
  mn.Input(T_<bool>({true, true, true, false}, {2, 2})).Input(I64({1}, {1})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<bool>(RunOk(mn)), (std::vector<bool>{true, false}));
}

TEST(ReductionReduceTest, LogSumExpIsStableForLargeValues) {
  auto t = Op("ReduceLogSumExp", 18);
  t.Input(F({1000, 1000, -1000, -1000}, {2, 2})).Input(I64({1}, {1})).Attr("keepdims", int64_t{0});
  ExpectFloats(RunOk(t), {2}, {1000 + std::log(2.0f), -1000 + std::log(2.0f)}, 1e-3f);
  auto all_neg_inf = Op("ReduceLogSumExp", 13);
  all_neg_inf.Input(F({-kInf, -kInf}, {2}));
  ExpectFloats(RunOk(all_neg_inf), {1}, {-kInf});
}

TEST(ReductionReduceTest, NormsAndLogSum) {
  const Tensor x = F({3, -4, 1, 1}, {2, 2});
  auto l2 = Op("ReduceL2", 18);
  l2.Input(x).Input(I64({1}, {1})).Attr("keepdims", int64_t{0});
  ExpectFloats(RunOk(l2), {2}, {5, std::sqrt(2.0f)});
  auto ls = Op("ReduceLogSum", 11);
  ls.Input(F({1, 2, 3, 4}, {2, 2})).Attr("axes", std::vector<int64_t>{0});
  ExpectFloats(RunOk(ls), {1, 2}, {std::log(4.0f), std::log(6.0f)});
  auto ssq = Op("ReduceSumSquare", 1);
  ssq.Input(x);
  ExpectFloats(RunOk(ssq), {1, 1}, {27});
}

// Float reductions over trailing axes take vector_math's row reductions: rows of 37 and 3 * 37 values (vector bodies
// and tails), a row holding NaN, one holding +inf, against double references of the operators' definitions.
TEST(ReductionReduceTest, TrailingAxesMatchDoubleReference) {
  constexpr int64_t A = 4, B = 3, C = 37;
  std::vector<float> x = UniformFloats(A * B * C, 11, -3.0f, 3.0f);
  x[1 * B * C + 5] = kNaN;  // in row 1 (of the last-axis rows: row 3)
  x[2 * B * C + 40] = kInf;
  struct Kind {
    const char* op;
    std::function<double(const std::vector<double>&)> ref;
    bool positive;  // inputs made positive (ReduceLogSum)
  };
  auto sum = [](const std::vector<double>& v, auto f) {
    double s = 0;
    for (double e : v) s += f(e);
    return s;
  };
  const std::vector<Kind> kinds = {
      {"ReduceSum", [&](const auto& v) { return sum(v, [](double e) { return e; }); }, false},
      {"ReduceMean", [&](const auto& v) { return sum(v, [](double e) { return e; }) / double(v.size()); }, false},
      {"ReduceSumSquare", [&](const auto& v) { return sum(v, [](double e) { return e * e; }); }, false},
      {"ReduceL1", [&](const auto& v) { return sum(v, [](double e) { return std::fabs(e); }); }, false},
      {"ReduceL2", [&](const auto& v) { return std::sqrt(sum(v, [](double e) { return e * e; })); }, false},
      {"ReduceLogSum", [&](const auto& v) { return std::log(sum(v, [](double e) { return e; })); }, true},
      {"ReduceLogSumExp", [&](const auto& v) { return std::log(sum(v, [](double e) { return std::exp(e); })); }, false},
      {"ReduceMax",
       [](const auto& v) {
         double m = -INFINITY;
         for (double e : v) m = std::isnan(e) || std::isnan(m) ? NAN : std::max(m, e);
         return m;
       },
       false},
      {"ReduceMin",
       [](const auto& v) {
         double m = INFINITY;
         for (double e : v) m = std::isnan(e) || std::isnan(m) ? NAN : std::min(m, e);
         return m;
       },
       false},
  };
  for (const Kind& k : kinds) {
    std::vector<float> in = x;
    if (k.positive) {
      for (float& v : in) v = std::fabs(v) + 0.1f;
    }
    for (const std::vector<int64_t>& axes : {std::vector<int64_t>{2}, std::vector<int64_t>{1, 2}}) {
      SCOPED_TRACE(std::string(k.op) + " over " + std::to_string(axes.size()) + " axes");
      const int64_t n = axes.size() == 1 ? C : B * C, rows = A * B * C / n;
      auto t = Op(k.op, 18);
      t.Input(F(in, {A, B, C})).Input(I64(axes, {static_cast<int64_t>(axes.size())})).Attr("keepdims", int64_t{0});
      const Tensor got = RunOk(t);
      ASSERT_EQ(got.size(), rows);
      for (int64_t r = 0; r < rows; ++r) {
        const std::vector<double> row(in.begin() + r * n, in.begin() + (r + 1) * n);
        const double want = k.ref(row);
        const float g = got.data<float>()[r];
        if (std::isnan(want) || std::isinf(want)) {
          EXPECT_TRUE(std::isnan(want) ? std::isnan(g) : g == static_cast<float>(want)) << "row " << r << ": " << g;
        } else {
          EXPECT_NEAR(g, want, 1e-6 * (1 + std::fabs(want))) << "row " << r;
        }
      }
    }
  }
}

// Float reductions over middle axes (channels of NCHW, several middle axes, the leading one) give the general loop's
// bits: the same values in double run through the generic path, rounded to float; NaN and infinities included.
TEST(ReductionReduceTest, MiddleAxesGiveTheGeneralLoopsBits) {
  constexpr int64_t A = 3, B = 5, C = 7, D = 300;
  std::vector<float> x = UniformFloats(A * B * C * D, 12, -3.0f, 3.0f);
  x[1 * C * D + 17] = kNaN;
  x[2 * B * C * D + 40] = kInf;
  x[5] = -kInf;
  const std::vector<double> xd(x.begin(), x.end());
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceMax", "ReduceMin"}) {
    for (const std::vector<int64_t>& axes :
         {std::vector<int64_t>{1}, std::vector<int64_t>{1, 2}, std::vector<int64_t>{0}, std::vector<int64_t>{2}}) {
      SCOPED_TRACE(std::string(op) + " over axes starting at " + std::to_string(axes[0]));
      auto f = Op(op, 18);
      auto d = Op(op, 18);
      f.Input(F(x, {A, B, C, D})).Input(I64(axes, {static_cast<int64_t>(axes.size())}));
      d.Input(T_<double>(xd, {A, B, C, D})).Input(I64(axes, {static_cast<int64_t>(axes.size())}));
      const Tensor got = RunOk(f);
      const Tensor want = RunOk(d);
      ASSERT_EQ(got.shape(), want.shape());
      for (int64_t i = 0; i < got.size(); ++i) {
        const float w = static_cast<float>(want.data<double>()[i]);
        const float g = got.data<float>()[i];
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : std::bit_cast<uint32_t>(g) == std::bit_cast<uint32_t>(w))
            << i << ": " << g << " vs " << w;
      }
    }
  }
}

TEST(ReductionReduceTest, HalfPrecision) {
  auto t = Op("ReduceMean", 18);
  t.Input(T_<Float16>({Float16(1.0f), Float16(2.0f), Float16(4.5f)}, {3})).Attr("keepdims", int64_t{0});
  Tensor r = RunOk(t);
  ASSERT_EQ(r.type(), DataType::kFloat16);
  EXPECT_FLOAT_EQ(static_cast<float>(r.data<Float16>()[0]), 2.5f);
}

// ---- ArgMax / ArgMin ----

TEST(ReductionArgTest, ArgMaxFirstAndLastIndex) {
  const Tensor x = F({2, 5, 5, 1, 3, 3}, {2, 3});
  auto first = Op("ArgMax", 13);
  first.Input(x).Attr("axis", int64_t{1});
  Tensor r = RunOk(first);
  ASSERT_EQ(r.shape(), (Shape{2, 1}));
  EXPECT_EQ(Values<int64_t>(r), (std::vector<int64_t>{1, 1}));
  auto last = Op("ArgMax", 13);
  last.Input(x).Attr("axis", int64_t{1}).Attr("select_last_index", int64_t{1});
  EXPECT_EQ(Values<int64_t>(RunOk(last)), (std::vector<int64_t>{2, 2}));
}

// Float inputs take their own loops (contiguous axis: the row's extreme, then its index; strided: a plane at a
// time); the same values as double go through the generic loop. Ties (values rounded to a few levels), NaNs and
// signed zeros, both index rules, every axis of a [3, 40, 300] tensor.
TEST(ReductionArgTest, FloatPathsMatchTheGenericLoop) {
  std::vector<float> x = UniformFloats(3 * 40 * 300, 5, -4.0f, 4.0f);
  for (float& v : x) v = std::round(v);  // many ties
  x[17] = kNaN;
  x[4000] = kNaN;
  x[4301] = kNaN;
  x[9000] = -0.0f;
  const std::vector<double> xd(x.begin(), x.end());
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, 2}) {
      for (int64_t last : {0, 1}) {
        SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis) + " select_last_index " + std::to_string(last));
        auto f = Op(op, 13);
        f.Input(F(x, {3, 40, 300})).Attr("axis", axis).Attr("select_last_index", last);
        auto d = Op(op, 13);
        d.Input(T_<double>(xd, {3, 40, 300})).Attr("axis", axis).Attr("select_last_index", last);
        EXPECT_EQ(Values<int64_t>(RunOk(f)), Values<int64_t>(RunOk(d)));
      }
    }
  }
}

TEST(ReductionArgTest, ArgMinNegativeAxisNoKeepdims) {
  auto t = Op("ArgMin", 11);
  t.Input(T_<int32_t>({4, -1, 7, -9, 2, 2}, {3, 2})).Attr("axis", int64_t{-2}).Attr("keepdims", int64_t{0});
  Tensor r = RunOk(t);
  ASSERT_EQ(r.shape(), (Shape{2}));
  EXPECT_EQ(Values<int64_t>(r), (std::vector<int64_t>{2, 1}));
}

TEST(ReductionArgTest, NaNIsTheExtreme) {
  auto t = Op("ArgMin", 13);
  t.Input(F({3, kNaN, 1}, {3})).Attr("keepdims", int64_t{0});
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{1}));
}

TEST(ReductionArgTest, EmptyAxisAndBadAxisAreErrors) {
  auto empty = Op("ArgMax", 13);
  empty.Input(F({}, {0, 3}));
  EXPECT_FALSE(RunOp(empty).ok());
  auto bad = Op("ArgMax", 13);
  bad.Input(F({1, 2}, {2})).Attr("axis", int64_t{1});
  EXPECT_FALSE(RunOp(bad).ok());
}

TEST(ReductionArgTest, EmptyOtherAxisGivesEmptyOutput) {
  auto t = Op("ArgMax", 13);
  t.Input(F({}, {0, 3})).Attr("axis", int64_t{1});
  Tensor r = RunOk(t);
  EXPECT_EQ(r.shape(), (Shape{0, 1}));
}

// ---- Softmax / LogSoftmax / Hardmax ----

TEST(ReductionSoftmaxTest, Version13RunsAlongTheLastAxis) {
  auto t = Op("Softmax", 13);
  t.Input(F({0, 0, std::log(3.0f), 0}, {2, 2}));
  ExpectFloats(RunOk(t), {2, 2}, {0.5f, 0.5f, 0.75f, 0.25f});
}

TEST(ReductionSoftmaxTest, OldVersionsCoerceTo2D) {
  // Shape [1, 2, 2] at axis 1: one row of 4 values, unlike version 13 (rows of 2 along the last axis).
  const Tensor x = F({0, 0, 0, 0}, {1, 2, 2});
  auto old_softmax = Op("Softmax", 11);
  old_softmax.Input(x);
  ExpectFloats(RunOk(old_softmax), {1, 2, 2}, {0.25f, 0.25f, 0.25f, 0.25f});
  auto new_softmax = Op("Softmax", 13);
  new_softmax.Input(x).Attr("axis", int64_t{1});
  ExpectFloats(RunOk(new_softmax), {1, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f});
  auto old_hardmax = Op("Hardmax", 1);
  old_hardmax.Input(F({1, 3, 3, 2}, {1, 2, 2}));
  ExpectFloats(RunOk(old_hardmax), {1, 2, 2}, {0, 1, 0, 0});
}

TEST(ReductionSoftmaxTest, LogSoftmaxLargeNumbers) {
  auto t = Op("LogSoftmax", 13);
  t.Input(F({10000, 10001, 10002}, {1, 3}));
  ExpectFloats(RunOk(t), {1, 3}, {-2.40760596f, -1.40760596f, -0.40760596f});
}

TEST(ReductionSoftmaxTest, HardmaxTiesTakeFirstIndex) {
  auto t = Op("Hardmax", 13);
  t.Input(F({2, 7, 7, 1, 1, 1}, {2, 3}));
  ExpectFloats(RunOk(t), {2, 3}, {0, 1, 0, 1, 0, 0});
}

TEST(ReductionSoftmaxTest, EmptyInputAndBadAxis) {
  auto empty = Op("Softmax", 13);
  empty.Input(F({}, {0, 3}));
  EXPECT_EQ(RunOk(empty).shape(), (Shape{0, 3}));
  auto bad = Op("Softmax", 13);
  bad.Input(F({1, 2}, {2})).Attr("axis", int64_t{2});
  EXPECT_FALSE(RunOp(bad).ok());
  auto ints = Op("Softmax", 13);
  ints.Input(T_<int32_t>({1, 2}, {2}));
  EXPECT_FALSE(RunOp(ints).ok());
}

// ---- CumSum / CumProd ----

TEST(ReductionCumulativeTest, CumSumExclusiveReverse) {
  const Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3});
  auto plain = Op("CumSum", 14);
  plain.Input(x).Input(T_<int32_t>({1}, {}));
  ExpectFloats(RunOk(plain), {2, 3}, {1, 3, 6, 4, 9, 15});
  auto ex_rev = Op("CumSum", 14);
  ex_rev.Input(x).Input(I64({-1}, {1})).Attr("exclusive", int64_t{1}).Attr("reverse", int64_t{1});
  ExpectFloats(RunOk(ex_rev), {2, 3}, {5, 3, 0, 11, 6, 0});
  auto axis0 = Op("CumSum", 11);
  axis0.Input(x).Input(I64({0}, {}));
  ExpectFloats(RunOk(axis0), {2, 3}, {1, 2, 3, 5, 7, 9});
}

// Along a strided axis the running sums advance a row of positions at a time: the same float sums, in the same
// order per position, as a sequential loop, for every combination of exclusive and reverse.
TEST(ReductionCumulativeTest, StridedAxisMatchesSequentialSums) {
  const std::vector<float> x = UniformFloats(3 * 50 * 70, 8, -1.0f, 1.0f);
  for (int64_t exclusive : {0, 1}) {
    for (int64_t reverse : {0, 1}) {
      auto t = Op("CumSum", 14);
      t.Input(F(x, {3, 50, 70})).Input(I64({1}, {})).Attr("exclusive", exclusive).Attr("reverse", reverse);
      const Tensor got = RunOk(t);
      for (int64_t o = 0; o < 3; ++o) {
        for (int64_t j = 0; j < 70; ++j) {
          float acc = 0;
          for (int64_t k = 0; k < 50; ++k) {
            const int64_t i = reverse ? 49 - k : k;
            const int64_t at = (o * 50 + i) * 70 + j;
            const float before = acc;
            acc += x[static_cast<size_t>(at)];
            ASSERT_EQ(got.data<float>()[at], exclusive ? before : acc) << o << "," << i << "," << j;
          }
        }
      }
    }
  }
}

TEST(ReductionCumulativeTest, CumProd) {
  const Tensor x = T_<int64_t>({1, 2, 3, 4}, {4});
  auto ex = Op("CumProd", 26);
  ex.Input(x).Input(I64({0}, {})).Attr("exclusive", int64_t{1});
  EXPECT_EQ(Values<int64_t>(RunOk(ex)), (std::vector<int64_t>{1, 1, 2, 6}));
  auto rev = Op("CumProd", 26);
  rev.Input(x).Input(I64({0}, {})).Attr("reverse", int64_t{1});
  EXPECT_EQ(Values<int64_t>(RunOk(rev)), (std::vector<int64_t>{24, 24, 12, 4}));
}

TEST(ReductionCumulativeTest, BadAxisIsAnError) {
  auto t = Op("CumSum", 14);
  t.Input(F({1, 2}, {2})).Input(I64({1}, {}));
  EXPECT_FALSE(RunOp(t).ok());
  auto two = Op("CumSum", 14);
  two.Input(F({1, 2}, {2})).Input(I64({0, 0}, {2}));
  EXPECT_FALSE(RunOp(two).ok());
}

// ---- TopK ----

TEST(ReductionTopKTest, Version1TakesKAttribute) {
  auto t = Op("TopK", 1);
  t.num_outputs = 2;
  t.Input(F({1, 4, 2, 3}, {1, 4})).Attr("k", int64_t{2});
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 2}, {4, 3});
  EXPECT_EQ(Values<int64_t>((*r)[1].tensor()), (std::vector<int64_t>{1, 3}));
}

TEST(ReductionTopKTest, SmallestWithTiesAlongAxis0) {
  auto t = Op("TopK", 11);
  t.num_outputs = 2;
  t.Input(T_<int32_t>({5, 1, 2, 1, 2, 9}, {3, 2})).Input(I64({2}, {1})).Attr("axis", int64_t{0});
  t.Attr("largest", int64_t{0});
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int32_t>((*r)[0].tensor()), (std::vector<int32_t>{2, 1, 2, 1}));
  EXPECT_EQ(Values<int64_t>((*r)[1].tensor()), (std::vector<int64_t>{1, 0, 2, 1}));
}

TEST(ReductionTopKTest, LargestTiesTakeLowerIndexAndNaNRanksFirst) {
  auto t = Op("TopK", 11);
  t.num_outputs = 2;
  t.Input(F({3, 7, kNaN, 7}, {4})).Input(I64({3}, {1}));
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {3}, {kNaN, 7, 7});
  EXPECT_EQ(Values<int64_t>((*r)[1].tensor()), (std::vector<int64_t>{2, 1, 3}));
}

// The float path (64-bit ranks, lines over the threads) selects what the general path selects for the same values
// in double: ties (the lower index first), signed zeros as equal, infinities, NaN above every number; largest and
// smallest, along a middle axis.
TEST(ReductionTopKTest, FloatPathMatchesTheGeneralPath) {
  std::vector<float> v = UniformFloats(3 * 50 * 4, 11, -3.0f, 3.0f);
  for (size_t i = 0; i < v.size(); ++i) {
    if (i % 7 == 0) v[i] = std::round(v[i]);  // ties
    if (i % 31 == 0) v[i] = kNaN;
    if (i % 37 == 0) v[i] = i % 2 ? -0.0f : 0.0f;
    if (i % 41 == 0) v[i] = i % 2 ? kInf : -kInf;
  }
  std::vector<double> vd(v.begin(), v.end());
  for (int64_t largest : {1, 0}) {
    for (int64_t k : {1, 5, 50}) {
      auto f = Op("TopK", 11);
      auto d = Op("TopK", 11);
      f.Input(F(v, {3, 50, 4})).Input(I64({k}, {1})).Attr("axis", int64_t{1}).Attr("largest", largest);
      d.Input(T_<double>(vd, {3, 50, 4})).Input(I64({k}, {1})).Attr("axis", int64_t{1}).Attr("largest", largest);
      f.num_outputs = d.num_outputs = 2;
      auto rf = RunOp(f);
      auto rd = RunOp(d);
      ASSERT_TRUE(rf.ok() && rd.ok());
      EXPECT_EQ(Values<int64_t>((*rf)[1].tensor()), Values<int64_t>((*rd)[1].tensor())) << largest << " " << k;
      const std::vector<float> got = Values<float>((*rf)[0].tensor());
      const std::vector<double> want = Values<double>((*rd)[0].tensor());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE((std::isnan(got[i]) && std::isnan(want[i])) || static_cast<double>(got[i]) == want[i]) << i;
      }
    }
  }
}

TEST(ReductionTopKTest, KZeroAndKTooLarge) {
  auto zero = Op("TopK", 11);
  zero.num_outputs = 2;
  zero.Input(F({1, 2}, {2})).Input(I64({0}, {1}));
  auto r = RunOp(zero);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].tensor().shape(), (Shape{0}));
  auto big = Op("TopK", 11);
  big.num_outputs = 2;
  big.Input(F({1, 2}, {2})).Input(I64({3}, {1}));
  EXPECT_FALSE(RunOp(big).ok());
  auto negative = Op("TopK", 1);
  negative.num_outputs = 2;
  negative.Input(F({1, 2}, {2})).Attr("k", int64_t{-1});
  EXPECT_FALSE(RunOp(negative).ok());
}

// ---- LpNormalization ----

TEST(ReductionLpNormalizationTest, L1AndL2) {
  auto l2 = Op("LpNormalization", 22);
  l2.Input(F({3, 4, 0, 0}, {2, 2}));
  ExpectFloats(RunOk(l2), {2, 2}, {0.6f, 0.8f, 0, 0});  // a zero slice stays zero
  auto l1 = Op("LpNormalization", 1);
  l1.Input(F({1, -3, 2, 2}, {2, 2})).Attr("axis", int64_t{0}).Attr("p", int64_t{1});
  ExpectFloats(RunOk(l1), {2, 2}, {1.0f / 3, -0.6f, 2.0f / 3, 0.4f});
}

TEST(ReductionLpNormalizationTest, BadPIsAnError) {
  auto t = Op("LpNormalization", 22);
  t.Input(F({1, 2}, {2})).Attr("p", int64_t{3});
  EXPECT_FALSE(RunOp(t).ok());
}

}  // namespace
}  // namespace onyx
