// Unit tests of the sequence family (SequenceEmpty/Construct/At/Insert/Erase/Length, SplitToSequence,
// ConcatFromSequence, SequenceMap, Optional/OptionalHasElement/OptionalGetElement): the cases the ONNX backend
// suite leaves out (negative and out-of-range positions, element type mismatches, uneven and zero-sized splits,
// empty sequences, broadcast extra inputs, empty optionals, bad attributes and inputs giving errors).
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

using namespace testing;  // NOLINT: the shared op-test helpers

Tensor Pos(int64_t p) { return Tensor::Scalar<int64_t>(p); }

Value Seq(std::vector<Tensor> items, DataType type = DataType::kFloat) {
  SequenceValue s;
  s.elem_type = type;
  for (auto& t : items) s.items.emplace_back(std::move(t));
  return s;
}

// The sequence operators as of opset 18, unless a test says otherwise (hides the shared Op's default of 21).
OpTest Op(const std::string& op_type, int64_t opset = 18) { return testing::Op(op_type, opset); }

// The node's first output, of whatever kind (these operators return sequences and optionals, not just tensors).
Value RunValue(const OpTest& t) {
  std::vector<Value> outputs = testing::RunAll(t);
  return outputs.empty() ? Value() : outputs[0];
}

::testing::AssertionResult Fails(const OpTest& t) {
  auto r = RunOp(t);
  if (r.ok()) return ::testing::AssertionFailure() << "ran without error";
  return ::testing::AssertionSuccess() << r.status().ToString();
}

// The first element of each item of a sequence of float tensors (enough to tell items apart).
std::vector<float> Heads(const Value& v) {
  std::vector<float> heads;
  EXPECT_TRUE(v.is_sequence()) << "got a " << v.KindName();
  if (!v.is_sequence()) return heads;
  for (const auto& item : v.sequence().items) heads.push_back(item.tensor().data<float>()[0]);
  return heads;
}

// ---- SequenceEmpty / Construct / At / Insert / Erase / Length ----

TEST(SequenceOpsTest, EmptyHasTheRequestedTypeAndNoItems) {
  auto t = Op("SequenceEmpty");
  t.Attr("dtype", int64_t{7});
  Value v = RunValue(t);
  ASSERT_TRUE(v.is_sequence());
  EXPECT_EQ(v.sequence().elem_type, DataType::kInt64);
  EXPECT_TRUE(v.sequence().items.empty());
  Value dflt = RunValue(Op("SequenceEmpty"));
  ASSERT_TRUE(dflt.is_sequence());
  EXPECT_EQ(dflt.sequence().elem_type, DataType::kFloat);
  auto bad = Op("SequenceEmpty");
  bad.Attr("dtype", int64_t{1000});
  EXPECT_TRUE(Fails(bad));
}

TEST(SequenceOpsTest, ConstructRejectsMixedTypes) {
  auto t = Op("SequenceConstruct");
  t.Input(F({1}, {1})).Input(F({2, 3}, {2}));
  Value v = RunValue(t);
  EXPECT_EQ(Heads(v), (std::vector<float>{1, 2}));
  auto mixed = Op("SequenceConstruct");
  mixed.Input(F({1}, {1})).Input(I64({2}, {1}));
  EXPECT_TRUE(Fails(mixed));
}

TEST(SequenceOpsTest, AtTakesNegativePositionsAndRejectsOutOfRange) {
  const Value seq = Seq({F({1}, {1}), F({2}, {1}), F({3}, {1})});
  for (auto [pos, expected] : {std::pair<int64_t, float>{0, 1}, {2, 3}, {-1, 3}, {-3, 1}}) {
    auto t = Op("SequenceAt");
    t.Input(seq).Input(Pos(pos));
    ExpectTensor<float>(RunValue(t), {1}, {expected});
  }
  for (int64_t pos : {3, -4}) {
    auto t = Op("SequenceAt");
    t.Input(seq).Input(Pos(pos));
    EXPECT_TRUE(Fails(t)) << pos;
  }
  auto int32_pos = Op("SequenceAt");
  int32_pos.Input(seq).Input(Tensor::Scalar<int32_t>(-2));
  ExpectTensor<float>(RunValue(int32_pos), {1}, {2});
  auto float_pos = Op("SequenceAt");
  float_pos.Input(seq).Input(Tensor::Scalar<float>(1));
  EXPECT_TRUE(Fails(float_pos));
}

TEST(SequenceOpsTest, InsertAtPositionsAndRejectsWrongType) {
  const Value seq = Seq({F({1}, {1}), F({2}, {1})});
  auto append = Op("SequenceInsert");
  append.Input(seq).Input(F({9}, {1}));
  EXPECT_EQ(Heads(RunValue(append)), (std::vector<float>{1, 2, 9}));
  auto at_end = Op("SequenceInsert");
  at_end.Input(seq).Input(F({9}, {1})).Input(Pos(2));
  EXPECT_EQ(Heads(RunValue(at_end)), (std::vector<float>{1, 2, 9}));
  auto before_last = Op("SequenceInsert");
  before_last.Input(seq).Input(F({9}, {1})).Input(Pos(-1));
  EXPECT_EQ(Heads(RunValue(before_last)), (std::vector<float>{1, 9, 2}));
  auto front = Op("SequenceInsert");
  front.Input(seq).Input(F({9}, {1})).Input(Pos(-2));
  EXPECT_EQ(Heads(RunValue(front)), (std::vector<float>{9, 1, 2}));
  auto past_end = Op("SequenceInsert");
  past_end.Input(seq).Input(F({9}, {1})).Input(Pos(3));
  EXPECT_TRUE(Fails(past_end));
  auto wrong_type = Op("SequenceInsert");
  wrong_type.Input(seq).Input(I64({9}, {1}));
  EXPECT_TRUE(Fails(wrong_type));
  // Items of other shapes are fine: sequences need not be uniform.
  auto other_shape = Op("SequenceInsert");
  other_shape.Input(seq).Input(F({7, 8, 9}, {3}));
  Value v = RunValue(other_shape);
  ASSERT_TRUE(v.is_sequence());
  ASSERT_EQ(v.sequence().items.size(), 3u);
  ExpectTensor<float>(v.sequence().items[2], {3}, {7, 8, 9});
}

TEST(SequenceOpsTest, InsertIntoEmptySequenceAndLength) {
  auto t = Op("SequenceInsert");
  t.Input(Seq({}, DataType::kInt64)).Input(I64({4, 5}, {2}));
  Value v = RunValue(t);
  ASSERT_TRUE(v.is_sequence());
  EXPECT_EQ(v.sequence().elem_type, DataType::kInt64);
  auto len = Op("SequenceLength");
  len.Input(v);
  ExpectTensor<int64_t>(RunValue(len), {}, {1});
  auto empty_len = Op("SequenceLength");
  empty_len.Input(Seq({}));
  ExpectTensor<int64_t>(RunValue(empty_len), {}, {0});
}

TEST(SequenceOpsTest, EraseDefaultsToTheLastItem) {
  const Value seq = Seq({F({1}, {1}), F({2}, {1}), F({3}, {1})});
  auto last = Op("SequenceErase");
  last.Input(seq);
  EXPECT_EQ(Heads(RunValue(last)), (std::vector<float>{1, 2}));
  auto first = Op("SequenceErase");
  first.Input(seq).Input(Pos(-3));
  EXPECT_EQ(Heads(RunValue(first)), (std::vector<float>{2, 3}));
  auto out_of_range = Op("SequenceErase");
  out_of_range.Input(seq).Input(Pos(3));
  EXPECT_TRUE(Fails(out_of_range));
  auto from_empty = Op("SequenceErase");
  from_empty.Input(Seq({}));
  EXPECT_TRUE(Fails(from_empty));
}

TEST(SequenceOpsTest, TensorWhereASequenceIsExpectedIsAnError) {
  auto t = Op("SequenceLength");
  t.Input(F({1}, {1}));
  EXPECT_TRUE(Fails(t));
}

// ---- SplitToSequence ----

TEST(SequenceSplitTest, ScalarSplitLeavesAShorterLastPart) {
  auto t = Op("SplitToSequence");
  t.Input(F({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 5})).Input(Tensor::Scalar<int64_t>(2)).Attr("axis", int64_t{-1});
  Value v = RunValue(t);
  ASSERT_TRUE(v.is_sequence());
  ASSERT_EQ(v.sequence().items.size(), 3u);
  ExpectTensor<float>(v.sequence().items[0], {2, 2}, {0, 1, 5, 6});
  ExpectTensor<float>(v.sequence().items[1], {2, 2}, {2, 3, 7, 8});
  ExpectTensor<float>(v.sequence().items[2], {2, 1}, {4, 9});
}

TEST(SequenceSplitTest, ListSplitAllowsZeroSizedParts) {
  auto t = Op("SplitToSequence");
  t.Input(F({1, 2, 3}, {3})).Input(Tensor::FromVector<int32_t>({0, 2, 1}, {3}));
  Value v = RunValue(t);
  ASSERT_TRUE(v.is_sequence());
  ASSERT_EQ(v.sequence().items.size(), 3u);
  ExpectTensor<float>(v.sequence().items[0], {0}, {});
  ExpectTensor<float>(v.sequence().items[1], {2}, {1, 2});
  ExpectTensor<float>(v.sequence().items[2], {1}, {3});
}

TEST(SequenceSplitTest, NoSplitGivesOnePartPerIndex) {
  auto keep = Op("SplitToSequence");
  keep.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Attr("axis", int64_t{1});
  Value v = RunValue(keep);
  ASSERT_TRUE(v.is_sequence());
  ASSERT_EQ(v.sequence().items.size(), 3u);
  ExpectTensor<float>(v.sequence().items[1], {2, 1}, {2, 5});
  auto drop = Op("SplitToSequence");
  drop.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Attr("axis", int64_t{1}).Attr("keepdims", int64_t{0});
  v = RunValue(drop);
  ASSERT_TRUE(v.is_sequence());
  ASSERT_EQ(v.sequence().items.size(), 3u);
  ExpectTensor<float>(v.sequence().items[2], {2}, {3, 6});
  // keepdims only applies without 'split'.
  auto ignored = Op("SplitToSequence");
  ignored.Input(F({1, 2}, {2})).Input(Tensor::Scalar<int64_t>(1)).Attr("keepdims", int64_t{0});
  v = RunValue(ignored);
  ASSERT_TRUE(v.is_sequence());
  ASSERT_EQ(v.sequence().items.size(), 2u);
  ExpectTensor<float>(v.sequence().items[1], {1}, {2});
  // An empty axis gives an empty sequence of the input's type.
  auto empty = Op("SplitToSequence");
  empty.Input(F({}, {0, 3}));
  v = RunValue(empty);
  ASSERT_TRUE(v.is_sequence());
  EXPECT_TRUE(v.sequence().items.empty());
  EXPECT_EQ(v.sequence().elem_type, DataType::kFloat);
}

TEST(SequenceSplitTest, BadSplitsAreErrors) {
  auto wrong_sum = Op("SplitToSequence");
  wrong_sum.Input(F({1, 2, 3}, {3})).Input(I64({1, 1}, {2}));
  EXPECT_TRUE(Fails(wrong_sum));
  auto negative = Op("SplitToSequence");
  negative.Input(F({1, 2, 3}, {3})).Input(I64({4, -1}, {2}));
  EXPECT_TRUE(Fails(negative));
  auto zero_chunk = Op("SplitToSequence");
  zero_chunk.Input(F({1, 2, 3}, {3})).Input(Tensor::Scalar<int64_t>(0));
  EXPECT_TRUE(Fails(zero_chunk));
  auto bad_axis = Op("SplitToSequence");
  bad_axis.Input(F({1, 2, 3}, {3})).Attr("axis", int64_t{1});
  EXPECT_TRUE(Fails(bad_axis));
  auto scalar_input = Op("SplitToSequence");
  scalar_input.Input(Tensor::Scalar<float>(1));
  EXPECT_TRUE(Fails(scalar_input));
  auto bad_keepdims = Op("SplitToSequence");
  bad_keepdims.Input(F({1, 2, 3}, {3})).Attr("keepdims", int64_t{2});
  EXPECT_TRUE(Fails(bad_keepdims));
}

// ---- ConcatFromSequence ----

TEST(SequenceConcatTest, ConcatenatesAlongAnExistingAxis) {
  auto t = Op("ConcatFromSequence");
  t.Input(Seq({F({1, 2}, {2, 1}), F({3, 4, 5, 6}, {2, 2})})).Attr("axis", int64_t{-1});
  ExpectTensor<float>(RunValue(t), {2, 3}, {1, 3, 4, 2, 5, 6});
}

TEST(SequenceConcatTest, NewAxisStacksAndAcceptsTheExtraAxis) {
  auto last = Op("ConcatFromSequence");
  last.Input(Seq({F({1, 2}, {2}), F({3, 4}, {2})})).Attr("axis", int64_t{-1}).Attr("new_axis", int64_t{1});
  ExpectTensor<float>(RunValue(last), {2, 2}, {1, 3, 2, 4});
  auto end = Op("ConcatFromSequence");
  end.Input(Seq({F({1, 2}, {2}), F({3, 4}, {2})})).Attr("axis", int64_t{1}).Attr("new_axis", int64_t{1});
  ExpectTensor<float>(RunValue(end), {2, 2}, {1, 3, 2, 4});
  auto front = Op("ConcatFromSequence");
  front.Input(Seq({Tensor::Scalar<float>(5), Tensor::Scalar<float>(6)})).Attr("axis", int64_t{0})
      .Attr("new_axis", int64_t{1});
  ExpectTensor<float>(RunValue(front), {2}, {5, 6});
}

TEST(SequenceConcatTest, MismatchesAndEmptySequencesAreErrors) {
  auto mismatch = Op("ConcatFromSequence");
  mismatch.Input(Seq({F({1, 2}, {1, 2}), F({3, 4, 5}, {1, 3})})).Attr("axis", int64_t{0});
  EXPECT_TRUE(Fails(mismatch));
  auto stack_mismatch = Op("ConcatFromSequence");
  stack_mismatch.Input(Seq({F({1, 2}, {2}), F({3}, {1})})).Attr("axis", int64_t{0}).Attr("new_axis", int64_t{1});
  EXPECT_TRUE(Fails(stack_mismatch));
  auto empty = Op("ConcatFromSequence");
  empty.Input(Seq({})).Attr("axis", int64_t{0});
  EXPECT_TRUE(Fails(empty));
  auto no_axis = Op("ConcatFromSequence");
  no_axis.Input(Seq({F({1}, {1})}));
  EXPECT_TRUE(Fails(no_axis));
  auto axis_out_of_range = Op("ConcatFromSequence");
  axis_out_of_range.Input(Seq({F({1}, {1})})).Attr("axis", int64_t{1});
  EXPECT_TRUE(Fails(axis_out_of_range));
}

// ---- SequenceMap ----

constexpr const char* kMapAdd = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (seq(float[?]) xs, %s extra) => (seq(float[?]) ys, seq(int64[1]) lens) {
  ys, lens = SequenceMap(xs, extra) <body = b (float[?] x, float[?] e) => (float[?] y, int64[1] n) {
    y = Add(x, e)
    n = Shape(y)
  }>
}
)";

std::string MapModel(const std::string& extra_type) {
  char buf[1024];
  std::snprintf(buf, sizeof(buf), kMapAdd, extra_type.c_str());
  return buf;
}

TEST(SequenceMapTest, TensorInputsAreSeenWholeEveryTime) {
  auto r = RunModel(MapModel("float[1]"), {{"xs", Seq({F({1, 2}, {2}), F({3}, {1})})}, {"extra", F({10}, {1})}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  const Value& ys = (*r)[0];
  ASSERT_TRUE(ys.is_sequence());
  ASSERT_EQ(ys.sequence().items.size(), 2u);
  ExpectTensor<float>(ys.sequence().items[0], {2}, {11, 12});
  ExpectTensor<float>(ys.sequence().items[1], {1}, {13});
  const Value& lens = (*r)[1];
  ASSERT_TRUE(lens.is_sequence());
  ASSERT_EQ(lens.sequence().items.size(), 2u);
  ExpectTensor<int64_t>(lens.sequence().items[0], {1}, {2});
  ExpectTensor<int64_t>(lens.sequence().items[1], {1}, {1});
}

TEST(SequenceMapTest, SequenceInputsArePairedItemByItem) {
  auto r = RunModel(MapModel("seq(float[?])"),
                    {{"xs", Seq({F({1, 2}, {2}), F({3}, {1})})}, {"extra", Seq({F({5}, {1}), F({7}, {1})})}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Heads((*r)[0]), (std::vector<float>{6, 10}));
  auto mismatch = RunModel(MapModel("seq(float[?])"), {{"xs", Seq({F({1}, {1}), F({3}, {1})})},
                                                       {"extra", Seq({F({5}, {1})})}});
  EXPECT_FALSE(mismatch.ok());
}

TEST(SequenceMapTest, EmptyInputGivesEmptySequencesOfTheDeclaredType) {
  auto r = RunModel(MapModel("float[1]"), {{"xs", Seq({})}, {"extra", F({10}, {1})}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  ASSERT_TRUE((*r)[1].is_sequence());
  EXPECT_TRUE((*r)[1].sequence().items.empty());
  EXPECT_EQ((*r)[1].sequence().elem_type, DataType::kInt64);
}

TEST(SequenceMapTest, FirstInputMustBeASequence) {
  constexpr const char* model = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (seq(float[2]) ys) {
  ys = SequenceMap(x) <body = b (float[2] v) => (float[2] y) { y = Neg(v) }>
}
)";
  EXPECT_FALSE(RunModel(model, {{"x", F({1, 2}, {2})}}).ok());
}

// ---- Optional ----

constexpr const char* kOptionalModel = R"(
<ir_version: 8, opset_import: ["" : 18]>
g (bool c, float[2] x) => (bool has, float[2] got) {
  opt = If(c) <
    then_branch = t () => (optional(float[2]) r) { r = Optional(x) },
    else_branch = e () => (optional(float[2]) r) { r = Optional<type = float[2]>() }>
  has = OptionalHasElement(opt)
  got = OptionalGetElement(opt)
}
)";

TEST(SequenceOptionalTest, WrapsAndUnwraps) {
  auto r = RunModel(kOptionalModel, {{"c", Tensor::Scalar<bool>(true)}, {"x", F({1, 2}, {2})}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  ExpectTensor<bool>((*r)[0], {}, {true});
  ExpectTensor<float>((*r)[1], {2}, {1, 2});
}

TEST(SequenceOptionalTest, GettingFromAnEmptyOptionalIsAnError) {
  auto r = RunModel(kOptionalModel, {{"c", Tensor::Scalar<bool>(false)}, {"x", F({1, 2}, {2})}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("empty optional"), std::string::npos) << r.status().message();
}

TEST(SequenceOptionalTest, HasElementOfEmptyPlainAndMissingInputs) {
  auto none = Op("OptionalHasElement");
  none.Input(Value::None());
  ExpectTensor<bool>(RunValue(none), {}, {false});
  auto plain = Op("OptionalHasElement");
  plain.Input(F({1}, {1}));
  ExpectTensor<bool>(RunValue(plain), {}, {true});
  auto seq = Op("OptionalHasElement");
  seq.Input(Seq({}));
  ExpectTensor<bool>(RunValue(seq), {}, {true});
  auto missing = Op("OptionalHasElement");
  missing.Input(Value());
  ExpectTensor<bool>(RunValue(missing), {}, {false});
}

TEST(SequenceOptionalTest, GetElementPassesSequencesThrough) {
  auto t = Op("OptionalGetElement");
  t.Input(Seq({F({4}, {1})}));
  EXPECT_EQ(Heads(RunValue(t)), (std::vector<float>{4}));
  auto none = Op("OptionalGetElement", 15);
  none.Input(Value::None());
  EXPECT_TRUE(Fails(none));
}

TEST(SequenceOptionalTest, OptionalNeedsAnInputOrAType) {
  auto empty = Op("Optional", 15);
  EXPECT_TRUE(Fails(empty));
  auto wrap = Op("Optional", 15);
  wrap.Input(F({3}, {1}));
  ExpectTensor<float>(RunValue(wrap), {1}, {3});
}

}  // namespace
}  // namespace onyx
