// Unit tests of the control-flow family (If, Loop, Scan): the cases the ONNX backend suite leaves out (zero
// iterations and their declared empty shapes, early exits, omitted M / cond, reverse directions and non-zero
// axes, Scan-8 batches with sequence lengths, outer-scope reads, values of every kind through branches and
// loop-carried dependencies, bad attributes and inputs giving errors).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/value.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using testing::ExpectTensor;
using testing::F;
using testing::Feeds;
using testing::I64;
using testing::RunModel;

Tensor B(bool v) { return Tensor::Scalar<bool>(v); }

// Runs the model (see RunModel), failing the test on an error.
std::vector<Value> RunOk(const std::string& text, const Feeds& feeds) {
  auto r = RunModel(text, feeds);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : std::vector<Value>{};
}

// Whether running fails (at session creation or run time), with the message for the test log.
::testing::AssertionResult Fails(const std::string& text, const Feeds& feeds) {
  auto r = RunModel(text, feeds);
  if (r.ok()) return ::testing::AssertionFailure() << "ran without error";
  return ::testing::AssertionSuccess() << r.status().ToString();
}

// ---- If ----

constexpr const char* kIfModel = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t () => (float[2] r) { r = Add(x, x) },
    else_branch = e () => (float[2] r) { r = Neg(x) }>
}
)";

TEST(ControlFlowIfTest, PicksTheBranchAndReadsTheOuterScope) {
  auto then_out = RunOk(kIfModel, {{"c", B(true)}, {"x", F({1, -2}, {2})}});
  ASSERT_EQ(then_out.size(), 1u);
  ExpectTensor<float>(then_out[0], {2}, {2, -4});
  auto else_out = RunOk(kIfModel, {{"c", B(false)}, {"x", F({1, -2}, {2})}});
  ASSERT_EQ(else_out.size(), 1u);
  ExpectTensor<float>(else_out[0], {2}, {-1, 2});
}

TEST(ControlFlowIfTest, ConditionMustBeOneBool) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool[2] c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t () => (float[2] r) { r = Identity(x) },
    else_branch = e () => (float[2] r) { r = Neg(x) }>
}
)";
  Tensor two = Tensor::FromVector<bool>({true, false}, {2});
  EXPECT_TRUE(Fails(model, {{"c", two}, {"x", F({1, 2}, {2})}}));
  // A one-element tensor of any rank is a valid condition.
  constexpr const char* one_elem = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool[1, 1] c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t () => (float[2] r) { r = Identity(x) },
    else_branch = e () => (float[2] r) { r = Neg(x) }>
}
)";
  auto out = RunOk(one_elem, {{"c", Tensor::FromVector<bool>({false}, {1, 1})}, {"x", F({1, 2}, {2})}});
  ASSERT_EQ(out.size(), 1u);
  ExpectTensor<float>(out[0], {2}, {-1, -2});
}

TEST(ControlFlowIfTest, ReturnsSequencesAndEmptyOptionals) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool c, float[2] x) => (optional(seq(float[2])) y) {
  y = If(c) <
    then_branch = t () => (optional(seq(float[2])) r) { s = SequenceConstruct(x, x)  r = Optional(s) },
    else_branch = e () => (optional(seq(float[2])) r) { r = Optional<type = seq(float[2])>() }>
}
)";
  auto some = RunOk(model, {{"c", B(true)}, {"x", F({3, 4}, {2})}});
  ASSERT_EQ(some.size(), 1u);
  ASSERT_TRUE(some[0].is_sequence());
  ASSERT_EQ(some[0].sequence().items.size(), 2u);
  ExpectTensor<float>(some[0].sequence().items[1], {2}, {3, 4});
  auto none = RunOk(model, {{"c", B(false)}, {"x", F({3, 4}, {2})}});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].is_none());
}

TEST(ControlFlowIfTest, BranchOutputCountMustMatchTheNode) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = t () => (float[2] r, float[2] q) { r = Identity(x)  q = Identity(x) },
    else_branch = e () => (float[2] r) { r = Neg(x) }>
}
)";
  EXPECT_TRUE(Fails(model, {{"c", B(true)}, {"x", F({1, 2}, {2})}}));
  constexpr const char* no_else = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool c, float[2] x) => (float[2] y) {
  y = If(c) <then_branch = t () => (float[2] r) { r = Identity(x) }>
}
)";
  EXPECT_TRUE(Fails(no_else, {{"c", B(true)}, {"x", F({1, 2}, {2})}}));
}

TEST(ControlFlowIfTest, ErrorsInsideABranchNameTheBranch) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool c, float[2] x, float[3] z) => (float[2] y) {
  y = If(c) <
    then_branch = t () => (float[2] r) { r = Add(x, z) },
    else_branch = e () => (float[2] r) { r = Neg(x) }>
}
)";
  auto r = RunModel(model, {{"c", B(true)}, {"x", F({1, 2}, {2})}, {"z", F({1, 2, 3}, {3})}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("then_branch"), std::string::npos) << r.status().message();
}

// ---- Loop ----

// Sums x into a running total M times (or while cond holds), scanning out each partial sum.
constexpr const char* kLoopSum = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m, bool cond, float[2] x, float[2] init) => (float[2] total, float[?, 2] partial) {
  total, partial = Loop(m, cond, init) <body = b (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] scan) {
    acc_out = Add(acc, x)
    c_out = Identity(c)
    scan = Identity(acc_out)
  }>
}
)";

TEST(ControlFlowLoopTest, RunsMTimesAndStacksScanOutputs) {
  auto out = RunOk(kLoopSum, {{"m", Tensor::Scalar<int64_t>(3)}, {"cond", B(true)},
                             {"x", F({1, 10}, {2})}, {"init", F({0, 0}, {2})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2}, {3, 30});
  ExpectTensor<float>(out[1], {3, 2}, {1, 10, 2, 20, 3, 30});
}

// Appends row [i, i + 0.5, -i] to a loop-carried accumulator every iteration (an exported Python list append);
// %s reads the accumulator after the Concat too.
std::string LoopAppendModel(bool read_after) {
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m, float[1,3] init) => (float[?,3] all, float[?] sums) {
  cond = Constant<value = bool {1}>()
  all, sums = Loop(m, cond, init) <body = b (int64 i, bool c, float[?,3] acc) => (bool c_out, float[?,3] acc_out, float s) {
    ax = Constant<value = int64[1] {0}>()
    half = Constant<value = float {0.5}>()
    fi = Cast<to = 1>(i)
    p = Add(fi, half)
    n = Neg(fi)
    fi1 = Unsqueeze(fi, ax)
    p1 = Unsqueeze(p, ax)
    n1 = Unsqueeze(n, ax)
    row3 = Concat<axis = 0>(fi1, p1, n1)
    row = Unsqueeze(row3, ax)
    acc_out = Concat<axis = 0>(acc, row)
    s = READER
    c_out = Identity(c)
  }>
}
)";
  const std::string reader = read_after ? "ReduceSum<keepdims = 0>(acc)" : "ReduceSum<keepdims = 0>(row)";
  text.replace(text.find("READER"), 6, reader);
  return text;
}

TEST(ControlFlowLoopTest, AccumulatorAppendedInPlaceKeepsEveryRow) {
  // 40 iterations: the accumulator outgrows its room several times (Concat appends in place where it can).
  for (const bool read_after : {false, true}) {
    SCOPED_TRACE(read_after ? "accumulator read after the Concat" : "Concat is the accumulator's last reader");
    const int64_t m = 40;
    auto out = RunOk(LoopAppendModel(read_after), {{"m", Tensor::Scalar<int64_t>(m)}, {"init", F({7, 8, 9}, {1, 3})}});
    ASSERT_EQ(out.size(), 2u);
    std::vector<float> rows = {7, 8, 9}, sums;
    float acc_sum = 24;
    for (int64_t i = 0; i < m; ++i) {
      const float f = static_cast<float>(i);
      sums.push_back(read_after ? acc_sum : f + (f + 0.5f) - f);
      rows.insert(rows.end(), {f, f + 0.5f, -f});
      acc_sum += f + 0.5f;
    }
    ExpectTensor<float>(out[0], {m + 1, 3}, rows);
    ExpectTensor<float>(out[1], {m}, sums);
  }
}

TEST(ControlFlowLoopTest, ZeroIterationsGiveInitialValuesAndEmptyScansOfTheDeclaredShape) {
  for (int64_t m : {int64_t{0}, int64_t{-5}}) {
    auto out = RunOk(kLoopSum, {{"m", Tensor::Scalar<int64_t>(m)}, {"cond", B(true)},
                               {"x", F({1, 10}, {2})}, {"init", F({7, 8}, {2})}});
    ASSERT_EQ(out.size(), 2u);
    ExpectTensor<float>(out[0], {2}, {7, 8});
    ExpectTensor<float>(out[1], {0, 2}, {});
  }
  // A false initial condition runs nothing either.
  auto out = RunOk(kLoopSum, {{"m", Tensor::Scalar<int64_t>(4)}, {"cond", B(false)},
                             {"x", F({1, 10}, {2})}, {"init", F({7, 8}, {2})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2}, {7, 8});
  ExpectTensor<float>(out[1], {0, 2}, {});
}

TEST(ControlFlowLoopTest, WhileLoopWithoutTripCountStopsOnTheBodyCondition) {
  // while (acc < 10) acc = acc * 2, with the iteration numbers scanned out.
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool cond, float init) => (float result, int64[?] iters) {
  result, iters = Loop("", cond, init) <body = b (int64 i, bool c, float acc) => (bool c_out, float acc_out, int64 it) {
    two = Constant<value = float {2.0}>()
    ten = Constant<value = float {10.0}>()
    acc_out = Mul(acc, two)
    c_out = Less(acc_out, ten)
    it = Identity(i)
  }>
}
)";
  auto out = RunOk(model, {{"cond", B(true)}, {"init", Tensor::Scalar<float>(1.5f)}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {}, {12});
  ExpectTensor<int64_t>(out[1], {3}, {0, 1, 2});
}

TEST(ControlFlowLoopTest, TripCountAndConditionTogetherStopAtTheFirst) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m, bool cond) => (int64 last) {
  last = Loop(m, cond, m) <body = b (int64 i, bool c, int64 prev) => (bool c_out, int64 out) {
    three = Constant<value = int64 {3}>()
    c_out = Less(i, three)
    out = Identity(i)
  }>
}
)";
  // The body says stop after iteration 3 (i = 3 is not < 3): 4 iterations, last i = 3.
  auto out = RunOk(model, {{"m", Tensor::Scalar<int64_t>(100)}, {"cond", B(true)}});
  ASSERT_EQ(out.size(), 1u);
  ExpectTensor<int64_t>(out[0], {}, {3});
  // M stops first.
  out = RunOk(model, {{"m", Tensor::Scalar<int64_t>(2)}, {"cond", B(true)}});
  ASSERT_EQ(out.size(), 1u);
  ExpectTensor<int64_t>(out[0], {}, {1});
}

TEST(ControlFlowLoopTest, ForLoopWithoutConditionInput) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m) => (int64 sum) {
  zero = Constant<value = int64 {0}>()
  sum = Loop(m, "", zero) <body = b (int64 i, bool c, int64 acc) => (bool c_out, int64 acc_out) {
    acc_out = Add(acc, i)
    c_out = Identity(c)
  }>
}
)";
  auto out = RunOk(model, {{"m", Tensor::Scalar<int64_t>(5)}});
  ASSERT_EQ(out.size(), 1u);
  ExpectTensor<int64_t>(out[0], {}, {10});
}

TEST(ControlFlowLoopTest, CarriesSequencesAndPassesValuesThrough) {
  // The body returns its input unchanged for one carried value and grows a sequence in the other.
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m, float[2] x) => (float[2] same, seq(float[2]) grown) {
  empty = SequenceEmpty()
  same, grown = Loop(m, "", x, empty) <body = b (int64 i, bool c, float[2] keep, seq(float[2]) s) => (bool c_out, float[2] keep, seq(float[2]) s_out) {
    c_out = Identity(c)
    s_out = SequenceInsert(s, keep)
  }>
}
)";
  auto out = RunOk(model, {{"m", Tensor::Scalar<int64_t>(3)}, {"x", F({5, 6}, {2})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2}, {5, 6});
  ASSERT_TRUE(out[1].is_sequence());
  ASSERT_EQ(out[1].sequence().items.size(), 3u);
  ExpectTensor<float>(out[1].sequence().items[2], {2}, {5, 6});
}

TEST(ControlFlowLoopTest, ScanOutputsThatChangeShapeAreAnError) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m) => (int64 n, int64[?, ?] grow) {
  zero = Constant<value = int64 {0}>()
  n, grow = Loop(m, "", zero) <body = b (int64 i, bool c, int64 acc) => (bool c_out, int64 acc_out, int64[?] r) {
    one = Constant<value = int64 {1}>()
    acc_out = Add(acc, one)
    c_out = Identity(c)
    r = Range(zero, acc_out, one)
  }>
}
)";
  EXPECT_TRUE(Fails(model, {{"m", Tensor::Scalar<int64_t>(3)}}));
}

TEST(ControlFlowLoopTest, BadInputsAreErrors) {
  // A non-scalar trip count, a non-bool condition, a body whose condition output is not bool.
  std::string two_trip_counts = kLoopSum;
  two_trip_counts.replace(two_trip_counts.find("int64 m"), 7, "int64[2] m");
  EXPECT_TRUE(Fails(two_trip_counts, {{"m", I64({1, 2}, {2})}, {"cond", B(true)},
                                      {"x", F({1, 10}, {2})}, {"init", F({0, 0}, {2})}}));
  constexpr const char* bad_cond = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m) => (int64 n) {
  zero = Constant<value = int64 {0}>()
  n = Loop(m, "", zero) <body = b (int64 i, bool c, int64 acc) => (int64 c_out, int64 acc_out) {
    acc_out = Identity(acc)
    c_out = Identity(i)
  }>
}
)";
  EXPECT_TRUE(Fails(bad_cond, {{"m", Tensor::Scalar<int64_t>(2)}}));
  // The body must take 2 + N inputs.
  constexpr const char* bad_arity = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 m) => (int64 n) {
  zero = Constant<value = int64 {0}>()
  n = Loop(m, "", zero) <body = b (int64 i, bool c) => (bool c_out, int64 acc_out) {
    acc_out = Identity(i)
    c_out = Identity(c)
  }>
}
)";
  EXPECT_TRUE(Fails(bad_arity, {{"m", Tensor::Scalar<int64_t>(2)}}));
}

// ---- Scan (version 9 on) ----

TEST(ControlFlowScanTest, ReverseInputAndOutputDirectionsAndAxes) {
  // Running sum over the columns of x (scan axis 1), reading from the last column; the scan output is stacked
  // along axis 1 and in reverse, so column j of the output holds the sum of columns j.. of x.
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (float[2] init, float[2, 3] x) => (float[2] total, float[2, 3] partial) {
  total, partial = Scan(init, x) <num_scan_inputs = 1, scan_input_axes = [1], scan_input_directions = [1],
      scan_output_axes = [-1], scan_output_directions = [1],
      body = b (float[2] acc, float[2] col) => (float[2] acc_out, float[2] scan) {
    acc_out = Add(acc, col)
    scan = Identity(acc_out)
  }>
}
)";
  auto out = RunOk(model, {{"init", F({0, 0}, {2})}, {"x", F({1, 2, 3, 10, 20, 30}, {2, 3})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2}, {6, 60});
  ExpectTensor<float>(out[1], {2, 3}, {6, 5, 3, 60, 50, 30});
}

TEST(ControlFlowScanTest, ForwardAndReverseInputsZip) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (float[3] x) => (float[3] pairs) {
  pairs = Scan(x, x) <num_scan_inputs = 2, scan_input_directions = [0, 1],
      body = b (float a, float r) => (float s) { s = Sub(a, r) }>
}
)";
  auto out = RunOk(model, {{"x", F({1, 2, 4}, {3})}});
  ASSERT_EQ(out.size(), 1u);
  ExpectTensor<float>(out[0], {3}, {-3, 0, 3});
}

TEST(ControlFlowScanTest, ZeroLengthScanGivesStatesAndDeclaredEmptyOutputs) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (float[2] init, float[0, 2] x) => (float[2] total, float[2, 0] partial) {
  total, partial = Scan(init, x) <num_scan_inputs = 1, scan_output_axes = [1],
      body = b (float[2] acc, float[2] row) => (float[2] acc_out, float[2] scan) {
    acc_out = Add(acc, row)
    scan = Identity(acc_out)
  }>
}
)";
  auto out = RunOk(model, {{"init", F({4, 5}, {2})}, {"x", F({}, {0, 2})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2}, {4, 5});
  ExpectTensor<float>(out[1], {2, 0}, {});
}

TEST(ControlFlowScanTest, BadAttributesAndInputsAreErrors) {
  constexpr const char* base = R"(
<ir_version: 8, opset_import: ["" : 16]>
g (float[2] init, float[3, 2] x, float[4, 2] z) => (float[2] total) {
  total = Scan(init, x%s) <%s
      body = b (float[2] acc, float[2] row%s) => (float[2] acc_out) { acc_out = Add(acc, row) }>
}
)";
  auto make = [&](const std::string& extra_in, const std::string& attrs, const std::string& extra_body_in) {
    char buf[1024];
    std::snprintf(buf, sizeof(buf), base, extra_in.c_str(), attrs.c_str(), extra_body_in.c_str());
    return std::string(buf);
  };
  const Feeds feeds = {{"init", F({0, 0}, {2})}, {"x", F({1, 2, 3, 4, 5, 6}, {3, 2})},
                       {"z", F({0, 0, 0, 0, 0, 0, 0, 0}, {4, 2})}};
  // The well-formed model runs.
  auto ok = RunOk(make("", "num_scan_inputs = 1,", ""), feeds);
  ASSERT_EQ(ok.size(), 1u);
  ExpectTensor<float>(ok[0], {2}, {9, 12});
  EXPECT_TRUE(Fails(make("", "", ""), feeds));                                   // num_scan_inputs missing
  EXPECT_TRUE(Fails(make("", "num_scan_inputs = 3,", ""), feeds));               // more scan inputs than inputs
  EXPECT_TRUE(Fails(make("", "num_scan_inputs = 1, scan_input_directions = [2],", ""), feeds));
  EXPECT_TRUE(Fails(make("", "num_scan_inputs = 1, scan_input_axes = [0, 0],", ""), feeds));
  EXPECT_TRUE(Fails(make("", "num_scan_inputs = 1, scan_input_axes = [2],", ""), feeds));  // axis out of range
  // Scan inputs of different lengths.
  EXPECT_TRUE(Fails(make(", z", "num_scan_inputs = 2,", ", float[2] zrow"), feeds));
}

// ---- Scan-8 ----

TEST(ControlFlowScan8Test, BatchesWithSequenceLengthsPadWithZeros) {
  constexpr const char* model = R"(
<ir_version: 3, opset_import: ["" : 8]>
g (int32[2] lens, float[2, 1] init, float[2, 3, 1] x) => (float[2, 1] total, float[2, 3, 1] partial) {
  total, partial = Scan(lens, init, x) <num_scan_inputs = 1,
      body = b (float[1] acc, float[1] v) => (float[1] acc_out, float[1] scan) {
    acc_out = Add(acc, v)
    scan = Identity(acc_out)
  }>
}
)";
  auto out = RunOk(model, {{"lens", Tensor::FromVector<int32_t>({3, 1}, {2})},
                           {"init", F({0, 100}, {2, 1})},
                           {"x", F({1, 2, 3, 10, 20, 30}, {2, 3, 1})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2, 1}, {6, 110});
  ExpectTensor<float>(out[1], {2, 3, 1}, {1, 3, 6, 110, 0, 0});
}

TEST(ControlFlowScan8Test, ReverseDirectionStartsAtTheSequenceEnd) {
  constexpr const char* model = R"(
<ir_version: 3, opset_import: ["" : 8]>
g (int64[2] lens, float[2, 1] init, float[2, 3, 1] x) => (float[2, 1] last, float[2, 3, 1] seen) {
  last, seen = Scan(lens, init, x) <num_scan_inputs = 1, directions = [1],
      body = b (float[1] prev, float[1] v) => (float[1] cur, float[1] scan) {
    cur = Identity(v)
    scan = Identity(v)
  }>
}
)";
  auto out = RunOk(model, {{"lens", I64({3, 2}, {2})},
                           {"init", F({0, 0}, {2, 1})},
                           {"x", F({1, 2, 3, 10, 20, 30}, {2, 3, 1})}});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensor<float>(out[0], {2, 1}, {1, 10});
  ExpectTensor<float>(out[1], {2, 3, 1}, {3, 2, 1, 20, 10, 0});
}

TEST(ControlFlowScan8Test, SequenceLengthsOutOfRangeAreErrors) {
  constexpr const char* model = R"(
<ir_version: 3, opset_import: ["" : 8]>
g (int64[2] lens, float[2, 1] init, float[2, 3, 1] x) => (float[2, 1] total) {
  total = Scan(lens, init, x) <num_scan_inputs = 1,
      body = b (float[1] acc, float[1] v) => (float[1] acc_out) { acc_out = Add(acc, v) }>
}
)";
  const Tensor init = F({0, 0}, {2, 1});
  const Tensor x = F({1, 2, 3, 10, 20, 30}, {2, 3, 1});
  EXPECT_TRUE(Fails(model, {{"lens", I64({4, 1}, {2})}, {"init", init}, {"x", x}}));
  EXPECT_TRUE(Fails(model, {{"lens", I64({-1, 1}, {2})}, {"init", init}, {"x", x}}));
  auto out = RunOk(model, {{"lens", I64({0, 2}, {2})}, {"init", init}, {"x", x}});
  ASSERT_EQ(out.size(), 1u);
  ExpectTensor<float>(out[0], {2, 1}, {0, 30});
}

}  // namespace
}  // namespace onyx
