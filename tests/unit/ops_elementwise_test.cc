// Unit tests of the elementwise family (unary math, activations, Clip, binary arithmetic and logic, comparisons,
// Sum/Mean/Max/Min, Where): the cases the ONNX backend suite leaves out (empty tensors, broadcasting, integer
// wraparound and division, NaN and infinities, the legacy broadcast attributes, bad attributes and inputs).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/float16.h"
#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

// ---- Binary arithmetic ----

TEST(ElementwiseBinaryTest, AddBroadcastsBothWays) {
  auto t = Op("Add", 14);
  t.Input(F({1, 2, 3}, {3, 1})).Input(F({10, 20}, {2}));
  ExpectFloats(RunOk(t), {3, 2}, {11, 21, 12, 22, 13, 23});
}

TEST(ElementwiseBinaryTest, EmptyAndScalarInputs) {
  auto empty = Op("Mul", 14);
  empty.Input(F({}, {0, 3})).Input(F({1, 2, 3}, {3}));
  Tensor r = RunOk(empty);
  EXPECT_EQ(r.shape(), (Shape{0, 3}));
  EXPECT_EQ(r.size(), 0);
  auto scalars = Op("Sub", 14);
  scalars.Input(F({5}, {})).Input(F({7}, {}));
  ExpectFloats(RunOk(scalars), {}, {-2});
}

TEST(ElementwiseBinaryTest, IncompatibleShapesAndTypesAreErrors) {
  auto shapes = Op("Add", 14);
  shapes.Input(F({1, 2, 3}, {3})).Input(F({1, 2}, {2}));
  EXPECT_FALSE(RunOp(shapes).ok());
  auto types = Op("Add", 14);
  types.Input(F({1}, {1})).Input(T_<int32_t>({1}, {1}));
  EXPECT_FALSE(RunOp(types).ok());
}

TEST(ElementwiseBinaryTest, IntegerArithmeticWrapsAround) {
  auto add = Op("Add", 14);
  add.Input(T_<int32_t>({INT32_MAX, INT32_MIN}, {2})).Input(T_<int32_t>({1, -1}, {2}));
  EXPECT_EQ(Values<int32_t>(RunOk(add)), (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
  auto mul = Op("Mul", 14);
  mul.Input(T_<uint16_t>({65535, 300}, {2})).Input(T_<uint16_t>({65535, 300}, {2}));
  EXPECT_EQ(Values<uint16_t>(RunOk(mul)), (std::vector<uint16_t>{1, static_cast<uint16_t>(90000 % 65536)}));
  auto sub = Op("Sub", 14);
  sub.Input(T_<uint8_t>({0}, {1})).Input(T_<uint8_t>({1}, {1}));
  EXPECT_EQ(Values<uint8_t>(RunOk(sub)), (std::vector<uint8_t>{255}));
}

TEST(ElementwiseBinaryTest, IntegerDivisionTruncatesTowardZero) {
  auto t = Op("Div", 14);
  t.Input(T_<int32_t>({-7, 7, -7, INT32_MIN}, {4})).Input(T_<int32_t>({2, -2, -2, -1}, {4}));
  EXPECT_EQ(Values<int32_t>(RunOk(t)), (std::vector<int32_t>{-3, -3, 3, INT32_MIN}));
}

TEST(ElementwiseBinaryTest, IntegerDivisionByZeroIsAnError) {
  auto div = Op("Div", 14);
  div.Input(T_<int64_t>({1, 2}, {2})).Input(T_<int64_t>({1, 0}, {2}));
  EXPECT_FALSE(RunOp(div).ok());
  auto mod = Op("Mod", 13);
  mod.Input(T_<uint8_t>({1}, {1})).Input(T_<uint8_t>({0}, {1}));
  EXPECT_FALSE(RunOp(mod).ok());
  // Floats follow IEEE.
  auto fdiv = Op("Div", 14);
  fdiv.Input(F({1, -1, 0}, {3})).Input(F({0, 0, 0}, {3}));
  ExpectFloats(RunOk(fdiv), {3}, {kInf, -kInf, kNaN});
}

TEST(ElementwiseBinaryTest, ModSignConventions) {
  auto py = Op("Mod", 13);
  py.Input(T_<int32_t>({-7, 7, -7, 7, INT32_MIN}, {5})).Input(T_<int32_t>({3, -3, -3, 3, -1}, {5}));
  EXPECT_EQ(Values<int32_t>(RunOk(py)), (std::vector<int32_t>{2, -2, -1, 1, 0}));
  auto c = Op("Mod", 13);
  c.Input(T_<int32_t>({-7, 7, -7}, {3})).Input(T_<int32_t>({3, -3, -3}, {3})).Attr("fmod", int64_t{1});
  EXPECT_EQ(Values<int32_t>(RunOk(c)), (std::vector<int32_t>{-1, 1, -1}));
  auto f = Op("Mod", 13);
  f.Input(F({-7.5f, 7.5f}, {2})).Input(F({2, 2}, {2})).Attr("fmod", int64_t{1});
  ExpectFloats(RunOk(f), {2}, {-1.5f, 1.5f});
  auto fpy = Op("Mod", 13);
  fpy.Input(F({-7.5f, 7.5f}, {2})).Input(F({2, -2}, {2}));
  ExpectFloats(RunOk(fpy), {2}, {0.5f, -0.5f});
  auto bad = Op("Mod", 13);
  bad.Input(F({1}, {1})).Input(F({1}, {1})).Attr("fmod", int64_t{2});
  EXPECT_FALSE(RunOp(bad).ok());
}

TEST(ElementwiseBinaryTest, Float16Arithmetic) {
  auto t = Op("Add", 14);
  t.Input(T_<Float16>({Float16(1.5f), Float16(-2.0f)}, {2})).Input(T_<Float16>({Float16(0.25f)}, {}));
  Tensor r = RunOk(t);
  ASSERT_EQ(r.type(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(r.data<Float16>()[0]), 1.75f);
  EXPECT_EQ(static_cast<float>(r.data<Float16>()[1]), -1.75f);
}

// ---- Legacy broadcast attributes (opset < 7) ----

TEST(ElementwiseLegacyBroadcastTest, AxisAlignsB) {
  std::vector<float> a(24, 0.0f);
  auto t = Op("Add", 6);
  t.Input(F(a, {2, 3, 4})).Input(F({1, 2, 3}, {3})).Attr("broadcast", int64_t{1}).Attr("axis", int64_t{1});
  Tensor r = RunOk(t);
  ASSERT_EQ(r.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(r.data<float>()[0], 1);
  EXPECT_EQ(r.data<float>()[4], 2);
  EXPECT_EQ(r.data<float>()[8], 3);
  EXPECT_EQ(r.data<float>()[12], 1);
}

TEST(ElementwiseLegacyBroadcastTest, DefaultAlignsTrailingDimensions) {
  auto t = Op("Mul", 1);
  t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(F({1, 10, 100}, {3})).Attr("broadcast", int64_t{1});
  ExpectFloats(RunOk(t), {2, 3}, {1, 20, 300, 4, 50, 600});
  auto scalar = Op("Sub", 6);
  scalar.Input(F({1, 2}, {2})).Input(F({1}, {1, 1})).Attr("broadcast", int64_t{1});
  ExpectFloats(RunOk(scalar), {2}, {0, 1});
}

TEST(ElementwiseLegacyBroadcastTest, ShapesMustMatchWithoutBroadcast) {
  auto t = Op("Add", 6);
  t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(F({1, 2, 3}, {3}));
  EXPECT_FALSE(RunOp(t).ok());
  auto bad_axis = Op("Add", 6);
  bad_axis.Input(F({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input(F({1, 2, 3}, {3}))
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{0});
  EXPECT_FALSE(RunOp(bad_axis).ok());
  // From opset 7 numpy broadcasting applies.
  auto numpy = Op("Add", 7);
  numpy.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(F({1, 2, 3}, {3}));
  ExpectFloats(RunOk(numpy), {2, 3}, {2, 4, 6, 5, 7, 9});
}

TEST(ElementwiseLegacyBroadcastTest, ComparisonAndLogic) {
  auto eq = Op("Equal", 1);
  eq.Input(T_<int32_t>({1, 2, 3, 4}, {2, 2})).Input(T_<int32_t>({1, 4}, {2})).Attr("broadcast", int64_t{1});
  EXPECT_EQ(Bools(RunOk(eq)), (std::vector<bool>{true, false, false, true}));
  auto a = Op("And", 1);
  a.Input(B({true, true, false, true}, {2, 2}))
      .Input(B({true, false}, {2}))
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{0});
  EXPECT_EQ(Bools(RunOk(a)), (std::vector<bool>{true, true, false, false}));
}

// ---- Pow ----

TEST(ElementwisePowTest, IntegerPowersAreExact) {
  auto t = Op("Pow", 15);
  t.Input(T_<int64_t>({3, -2, 2, 7}, {4})).Input(T_<int64_t>({39, 3, 0, 1}, {4}));
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{4052555153018976267LL, -8, 1, 7}));
}

TEST(ElementwisePowTest, NegativeIntegerExponents) {
  auto t = Op("Pow", 15);
  t.Input(T_<int32_t>({2, 1, -1, -1}, {4})).Input(T_<int32_t>({-1, -5, -3, -2}, {4}));
  EXPECT_EQ(Values<int32_t>(RunOk(t)), (std::vector<int32_t>{0, 1, -1, 1}));
}

TEST(ElementwisePowTest, MixedTypesKeepTheBaseType) {
  auto t = Op("Pow", 15);
  t.Input(T_<int32_t>({4, 2}, {2})).Input(F({0.5f, 3.0f}, {2}));
  Tensor r = RunOk(t);
  ASSERT_EQ(r.type(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>(r), (std::vector<int32_t>{2, 8}));
  auto f = Op("Pow", 15);
  f.Input(F({2, -2, 4}, {3})).Input(T_<int64_t>({-1}, {1}));
  ExpectFloats(RunOk(f), {3}, {0.5f, -0.5f, 0.25f});
  auto nan = Op("Pow", 15);
  nan.Input(F({-8}, {})).Input(F({1.0f / 3}, {}));
  ExpectFloats(RunOk(nan), {}, {kNaN});
}

// ---- Logic, bits and shifts ----

TEST(ElementwiseBitTest, BitShiftPastWidthGivesZero) {
  auto left = Op("BitShift", 11);
  left.Input(T_<uint8_t>({1, 1, 255, 3}, {4})).Input(T_<uint8_t>({7, 8, 1, 200}, {4})).Attr("direction", "LEFT");
  EXPECT_EQ(Values<uint8_t>(RunOk(left)), (std::vector<uint8_t>{128, 0, 254, 0}));
  auto right = Op("BitShift", 11);
  right.Input(T_<uint64_t>({~uint64_t{0}}, {1})).Input(T_<uint64_t>({63, 64}, {2})).Attr("direction", "RIGHT");
  EXPECT_EQ(Values<uint64_t>(RunOk(right)), (std::vector<uint64_t>{1, 0}));
}

TEST(ElementwiseBitTest, BitShiftNeedsAValidDirection) {
  auto missing = Op("BitShift", 11);
  missing.Input(T_<uint8_t>({1}, {1})).Input(T_<uint8_t>({1}, {1}));
  EXPECT_FALSE(RunOp(missing).ok());
  auto bad = Op("BitShift", 11);
  bad.Input(T_<uint8_t>({1}, {1})).Input(T_<uint8_t>({1}, {1})).Attr("direction", "UP");
  EXPECT_FALSE(RunOp(bad).ok());
  auto signed_input = Op("BitShift", 11);
  signed_input.Input(T_<int32_t>({1}, {1})).Input(T_<int32_t>({1}, {1})).Attr("direction", "LEFT");
  EXPECT_FALSE(RunOp(signed_input).ok());
}

TEST(ElementwiseBitTest, BitwiseOps) {
  auto a = Op("BitwiseAnd", 18);
  a.Input(T_<int8_t>({-1, 12}, {2})).Input(T_<int8_t>({5}, {1}));
  EXPECT_EQ(Values<int8_t>(RunOk(a)), (std::vector<int8_t>{5, 4}));
  auto x = Op("BitwiseXor", 18);
  x.Input(T_<uint16_t>({0xFF00}, {1})).Input(T_<uint16_t>({0x0FF0}, {1}));
  EXPECT_EQ(Values<uint16_t>(RunOk(x)), (std::vector<uint16_t>{0xF0F0}));
  auto n = Op("BitwiseNot", 18);
  n.Input(T_<int32_t>({0, -1, 5}, {3}));
  EXPECT_EQ(Values<int32_t>(RunOk(n)), (std::vector<int32_t>{-1, 0, -6}));
  auto nu = Op("BitwiseNot", 18);
  nu.Input(T_<uint8_t>({0, 0xF0}, {2}));
  EXPECT_EQ(Values<uint8_t>(RunOk(nu)), (std::vector<uint8_t>{0xFF, 0x0F}));
}

TEST(ElementwiseBitTest, LogicOnBools) {
  auto o = Op("Or", 7);
  o.Input(B({false, true}, {2, 1})).Input(B({false, true}, {2}));
  EXPECT_EQ(Bools(RunOk(o)), (std::vector<bool>{false, true, true, true}));
  auto x = Op("Xor", 7);
  x.Input(B({true, false}, {2})).Input(B({true}, {}));
  EXPECT_EQ(Bools(RunOk(x)), (std::vector<bool>{false, true}));
  auto n = Op("Not", 1);
  n.Input(B({true, false}, {2}));
  EXPECT_EQ(Bools(RunOk(n)), (std::vector<bool>{false, true}));
  auto not_float = Op("Not", 1);
  not_float.Input(F({1}, {1}));
  EXPECT_FALSE(RunOp(not_float).ok());
}

// ---- Comparisons ----

TEST(ElementwiseCompareTest, NaNIsUnorderedAndUnequal) {
  const Tensor a = F({kNaN, 1, kNaN, -kInf}, {4});
  const Tensor b = F({kNaN, kNaN, 1, -kInf}, {4});
  auto eq = Op("Equal", 19);
  eq.Input(a).Input(b);
  EXPECT_EQ(Bools(RunOk(eq)), (std::vector<bool>{false, false, false, true}));
  auto lt = Op("Less", 13);
  lt.Input(a).Input(b);
  EXPECT_EQ(Bools(RunOk(lt)), (std::vector<bool>{false, false, false, false}));
  auto ge = Op("GreaterOrEqual", 16);
  ge.Input(a).Input(b);
  EXPECT_EQ(Bools(RunOk(ge)), (std::vector<bool>{false, false, false, true}));
}

TEST(ElementwiseCompareTest, IntegerAndStringComparisons) {
  auto lt = Op("Less", 13);
  lt.Input(T_<uint64_t>({0, ~uint64_t{0}}, {2})).Input(T_<uint64_t>({1}, {1}));
  EXPECT_EQ(Bools(RunOk(lt)), (std::vector<bool>{true, false}));
  auto le = Op("LessOrEqual", 16);
  le.Input(T_<int8_t>({-128, 0, 127}, {3})).Input(T_<int8_t>({0}, {}));
  EXPECT_EQ(Bools(RunOk(le)), (std::vector<bool>{true, true, false}));
  auto eq = Op("Equal", 19);
  eq.Input(T_<std::string>({"a", "bc", ""}, {3, 1})).Input(T_<std::string>({"bc", ""}, {2}));
  EXPECT_EQ(Bools(RunOk(eq)), (std::vector<bool>{false, false, true, false, false, true}));
  auto eqb = Op("Equal", 13);
  eqb.Input(B({true, false}, {2})).Input(B({false, false}, {2}));
  EXPECT_EQ(Bools(RunOk(eqb)), (std::vector<bool>{false, true}));
}

// ---- Unary math ----

TEST(ElementwiseUnaryTest, RoundHalfToEven) {
  auto t = Op("Round", 22);
  t.Input(F({0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f, -2.6f, kInf, kNaN}, {9}));
  ExpectFloats(RunOk(t), {9}, {0, 2, 2, -0.0f, -2, 2, -3, kInf, kNaN});
}

TEST(ElementwiseUnaryTest, AbsAndNegOfIntegerMinimumWrap) {
  auto abs = Op("Abs", 13);
  abs.Input(T_<int8_t>({-128, -5, 5}, {3}));
  EXPECT_EQ(Values<int8_t>(RunOk(abs)), (std::vector<int8_t>{-128, 5, 5}));
  auto neg = Op("Neg", 13);
  neg.Input(T_<int64_t>({INT64_MIN, 3}, {2}));
  EXPECT_EQ(Values<int64_t>(RunOk(neg)), (std::vector<int64_t>{INT64_MIN, -3}));
  auto abs_u = Op("Abs", 13);
  abs_u.Input(T_<uint32_t>({4000000000u}, {1}));
  EXPECT_EQ(Values<uint32_t>(RunOk(abs_u)), (std::vector<uint32_t>{4000000000u}));
}

TEST(ElementwiseUnaryTest, SignOfSpecialValues) {
  auto t = Op("Sign", 13);
  t.Input(F({-0.0f, 0.0f, -kInf, 3, kNaN}, {5}));
  ExpectFloats(RunOk(t), {5}, {0, 0, -1, 1, kNaN});
  auto u = Op("Sign", 13);
  u.Input(T_<uint8_t>({0, 200}, {2}));
  EXPECT_EQ(Values<uint8_t>(RunOk(u)), (std::vector<uint8_t>{0, 1}));
  auto i = Op("Sign", 13);
  i.Input(T_<int16_t>({-300, 0, 7}, {3}));
  EXPECT_EQ(Values<int16_t>(RunOk(i)), (std::vector<int16_t>{-1, 0, 1}));
}

TEST(ElementwiseUnaryTest, MathOfSpecialValues) {
  auto log = Op("Log", 13);
  log.Input(F({0, -1, kInf, 1}, {4}));
  ExpectFloats(RunOk(log), {4}, {-kInf, kNaN, kInf, 0});
  auto sqrt = Op("Sqrt", 13);
  sqrt.Input(F({-1, 4}, {2}));
  ExpectFloats(RunOk(sqrt), {2}, {kNaN, 2});
  auto rec = Op("Reciprocal", 13);
  rec.Input(F({0, -0.0f, 4}, {3}));
  ExpectFloats(RunOk(rec), {3}, {kInf, -kInf, 0.25f});
  auto acosh = Op("Acosh", 22);
  acosh.Input(F({0.5f, 1}, {2}));
  ExpectFloats(RunOk(acosh), {2}, {kNaN, 0});
  auto empty = Op("Exp", 13);
  empty.Input(F({}, {3, 0}));
  EXPECT_EQ(RunOk(empty).shape(), (Shape{3, 0}));
  auto int_exp = Op("Exp", 13);
  int_exp.Input(T_<int32_t>({1}, {1}));
  EXPECT_FALSE(RunOp(int_exp).ok());
}

TEST(ElementwiseUnaryTest, IsInfDirections) {
  const Tensor x = F({kInf, -kInf, kNaN, 1}, {4});
  auto both = Op("IsInf", 20);
  both.Input(x);
  EXPECT_EQ(Bools(RunOk(both)), (std::vector<bool>{true, true, false, false}));
  auto pos = Op("IsInf", 20);
  pos.Input(x).Attr("detect_negative", int64_t{0});
  EXPECT_EQ(Bools(RunOk(pos)), (std::vector<bool>{true, false, false, false}));
  auto neg = Op("IsInf", 10);
  neg.Input(x).Attr("detect_positive", int64_t{0});
  EXPECT_EQ(Bools(RunOk(neg)), (std::vector<bool>{false, true, false, false}));
  auto nan = Op("IsNaN", 20);
  nan.Input(T_<double>({std::nan(""), 1.0}, {2}));
  EXPECT_EQ(Bools(RunOk(nan)), (std::vector<bool>{true, false}));
}

// ---- Activations ----

TEST(ElementwiseActivationTest, ReluKeepsNaNAndHandlesIntegers) {
  auto f = Op("Relu", 14);
  f.Input(F({-1, 0, 2, kNaN, -kInf}, {5}));
  ExpectFloats(RunOk(f), {5}, {0, 0, 2, kNaN, 0});
  auto i = Op("Relu", 14);
  i.Input(T_<int8_t>({-128, 127}, {2}));
  EXPECT_EQ(Values<int8_t>(RunOk(i)), (std::vector<int8_t>{0, 127}));
}

TEST(ElementwiseActivationTest, SigmoidAndSoftplusAreStableAtExtremes) {
  auto s = Op("Sigmoid", 13);
  s.Input(F({-1000, 0, 1000}, {3}));
  ExpectFloats(RunOk(s), {3}, {0, 0.5f, 1});
  auto sp = Op("Softplus", 22);
  sp.Input(F({-1000, 0, 1000}, {3}));
  ExpectFloats(RunOk(sp), {3}, {0, std::log(2.0f), 1000});
  auto mish = Op("Mish", 22);
  mish.Input(F({1000, -1000}, {2}));
  ExpectFloats(RunOk(mish), {2}, {1000, 0});
}

TEST(ElementwiseActivationTest, AttributesAreUsed) {
  auto leaky = Op("LeakyRelu", 16);
  leaky.Input(F({-2, 3}, {2})).Attr("alpha", 0.5f);
  ExpectFloats(RunOk(leaky), {2}, {-1, 3});
  auto hs = Op("HardSigmoid", 22);
  hs.Input(F({-10, 0, 10}, {3})).Attr("alpha", 0.25f).Attr("beta", 0.25f);
  ExpectFloats(RunOk(hs), {3}, {0, 0.25f, 1});
  auto thr = Op("ThresholdedRelu", 22);
  thr.Input(F({1, 2, 3}, {3})).Attr("alpha", 2.0f);
  ExpectFloats(RunOk(thr), {3}, {0, 0, 3});
  auto elu = Op("Elu", 22);
  elu.Input(F({-1, 1}, {2})).Attr("alpha", 2.0f);
  ExpectFloats(RunOk(elu), {2}, {2 * (std::exp(-1.0f) - 1), 1});
  auto celu = Op("Celu", 12);
  celu.Input(F({-1, 1}, {2})).Attr("alpha", 2.0f);
  ExpectFloats(RunOk(celu), {2}, {2 * (std::exp(-0.5f) - 1), 1});
  auto swish = Op("Swish", 24);
  swish.Input(F({1, 0}, {2})).Attr("alpha", 2.0f);
  ExpectFloats(RunOk(swish), {2}, {1 / (1 + std::exp(-2.0f)), 0});
  auto hsw = Op("HardSwish", 22);
  hsw.Input(F({-4, 1, 4}, {3}));
  ExpectFloats(RunOk(hsw), {3}, {0, 1.0f * (1.0f / 6 + 0.5f), 4});
}

TEST(ElementwiseActivationTest, GeluApproximations) {
  auto exact = Op("Gelu", 20);
  exact.Input(F({-1, 0, 1}, {3}));
  ExpectFloats(RunOk(exact), {3}, {-0.15865525f, 0, 0.84134475f});
  auto tanh = Op("Gelu", 20);
  tanh.Input(F({-1, 0, 1}, {3})).Attr("approximate", "tanh");
  ExpectFloats(RunOk(tanh), {3}, {-0.15880801f, 0, 0.84119199f});
  auto bad = Op("Gelu", 20);
  bad.Input(F({1}, {1})).Attr("approximate", "erf");
  EXPECT_FALSE(RunOp(bad).ok());
}

TEST(ElementwiseActivationTest, CeluRejectsZeroAlpha) {
  auto t = Op("Celu", 12);
  t.Input(F({1}, {1})).Attr("alpha", 0.0f);
  EXPECT_FALSE(RunOp(t).ok());
}

TEST(ElementwiseActivationTest, ShrinkOnIntegers) {
  auto t = Op("Shrink", 9);
  t.Input(T_<int32_t>({-3, -1, 0, 1, 3}, {5})).Attr("lambd", 1.5f).Attr("bias", 1.0f);
  EXPECT_EQ(Values<int32_t>(RunOk(t)), (std::vector<int32_t>{-2, 0, 0, 0, 2}));
}

TEST(ElementwiseActivationTest, PReluSlopeBroadcasts) {
  auto t = Op("PRelu", 16);
  t.Input(F({-1, -2, -3, 4, -5, 6}, {2, 3})).Input(F({1, 10, 100}, {3}));
  ExpectFloats(RunOk(t), {2, 3}, {-1, -20, -300, 4, -50, 6});
  auto bad = Op("PRelu", 16);
  bad.Input(F({-1, -2, -3}, {3})).Input(F({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_FALSE(RunOp(bad).ok());
  auto ints = Op("PRelu", 16);
  ints.Input(T_<int64_t>({-3, 3}, {2})).Input(T_<int64_t>({2}, {1}));
  EXPECT_EQ(Values<int64_t>(RunOk(ints)), (std::vector<int64_t>{-6, 3}));
}

TEST(ElementwiseActivationTest, PReluOneSlopePerChannelOrOneForAll) {
  // x [2, 3, 1, 2]; slopes 1, 10, 100 per channel as [3, 1, 1] and [1, 3, 1, 1], then one slope for all.
  const std::vector<float> x = {-1, 2, -1, -1, -1, 3, -2, -2, 4, -2, -2, -2};
  const std::vector<float> per_channel = {-1, 2, -10, -10, -100, 3, -2, -2, 4, -20, -200, -200};
  for (const Shape& slope_shape : {Shape{3, 1, 1}, Shape{1, 3, 1, 1}}) {
    auto t = Op("PRelu", 16);
    t.Input(F(x, {2, 3, 1, 2})).Input(F({1, 10, 100}, slope_shape));
    ExpectFloats(RunOk(t), {2, 3, 1, 2}, per_channel);
  }
  auto one = Op("PRelu", 16);
  one.Input(F(x, {2, 3, 1, 2})).Input(F({0.5f}, {1}));
  ExpectFloats(RunOk(one), {2, 3, 1, 2}, {-0.5f, 2, -0.5f, -0.5f, -0.5f, 3, -1, -1, 4, -1, -1, -1});
}

TEST(ElementwiseActivationTest, PReluPerChannelSlopeBeforeOpset7) {
  auto t = Op("PRelu", 6);
  t.Input(F({-1, -1, -1, -1, -1, -1}, {1, 3, 2})).Input(F({1, 2, 3}, {3}));
  ExpectFloats(RunOk(t), {1, 3, 2}, {-1, -1, -2, -2, -3, -3});
  auto numpy_only = Op("PRelu", 9);
  numpy_only.Input(F({-1, -1, -1, -1, -1, -1}, {1, 3, 2})).Input(F({1, 2, 3}, {3}));
  EXPECT_FALSE(RunOp(numpy_only).ok());
}

// ---- Clip ----

TEST(ElementwiseClipTest, InputBounds) {
  auto t = Op("Clip", 13);
  t.Input(F({-5, 0, 5, kNaN}, {4})).Input(F({-1}, {})).Input(F({1}, {}));
  ExpectFloats(RunOk(t), {4}, {-1, 0, 1, kNaN});
  auto only_max = Op("Clip", 13);
  only_max.Input(F({-5, 5}, {2})).Input(Value()).Input(F({1}, {}));
  ExpectFloats(RunOk(only_max), {2}, {-5, 1});
  auto none = Op("Clip", 11);
  none.Input(F({-kInf, kInf}, {2}));
  ExpectFloats(RunOk(none), {2}, {-kInf, kInf});
}

TEST(ElementwiseClipTest, MinGreaterThanMaxGivesMax) {
  auto t = Op("Clip", 13);
  t.Input(T_<int8_t>({-128, 0, 127}, {3})).Input(T_<int8_t>({10}, {})).Input(T_<int8_t>({5}, {}));
  EXPECT_EQ(Values<int8_t>(RunOk(t)), (std::vector<int8_t>{5, 5, 5}));
}

TEST(ElementwiseClipTest, AttributeBoundsBeforeOpset11) {
  auto t = Op("Clip", 6);
  t.Input(F({-5, 0, 5}, {3})).Attr("min", -1.0f).Attr("max", 2.0f);
  ExpectFloats(RunOk(t), {3}, {-1, 0, 2});
  auto only_min = Op("Clip", 6);
  only_min.Input(F({-5, 5e30f}, {2})).Attr("min", 0.0f);
  ExpectFloats(RunOk(only_min), {2}, {0, 5e30f}, 1e24f);
}

TEST(ElementwiseClipTest, BadBoundsAreErrors) {
  auto not_scalar = Op("Clip", 13);
  not_scalar.Input(F({1, 2}, {2})).Input(F({0, 1}, {2}));
  EXPECT_FALSE(RunOp(not_scalar).ok());
  auto wrong_type = Op("Clip", 13);
  wrong_type.Input(F({1, 2}, {2})).Input(T_<int32_t>({0}, {}));
  EXPECT_FALSE(RunOp(wrong_type).ok());
}

// ---- Variadic ----

// Rows of one channel block (8 or 16 values) with one operand repeating a block over the rows, as a
// squeeze-and-excitation gate [N, C/b, 1, 1, b] multiplies a blocked feature map [N, C/b, H, W, b] (a path of its
// own in BroadcastBinary): both operand orders, both block sizes, an outer odometer over two dims, and two threads,
// whose ranges start in the middle of an outer index.
TEST(ElementwiseBinaryTest, ChannelBlockRowsBroadcastAgainstARepeatedBlock) {
  for (int64_t block : {8, 16}) {
    for (int threads : {1, 2}) {
      for (bool gate_first : {false, true}) {
        const Shape big{2, 3, 5, 7, block}, gate{2, 3, 1, 1, block};
        std::vector<float> x(static_cast<size_t>(2 * 3 * 5 * 7 * block)), g(static_cast<size_t>(2 * 3 * block));
        for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.25f - 7.0f;
        for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>(i % 13) * 0.5f - 2.0f;
        std::vector<float> want(x.size());
        for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
          const int64_t c = i % block, outer = i / (5 * 7 * block);  // outer: the [2, 3] index
          const float gv = g[static_cast<size_t>(outer * block + c)];
          want[static_cast<size_t>(i)] = gate_first ? gv - x[static_cast<size_t>(i)] : x[static_cast<size_t>(i)] - gv;
        }
        auto t = Op("Sub", 14);
        t.options.intra_op_num_threads = threads;
        if (gate_first) {
          t.Input(F(g, gate)).Input(F(x, big));
        } else {
          t.Input(F(x, big)).Input(F(g, gate));
        }
        ExpectFloats(RunOk(t), big, want, 0.0f);
      }
    }
  }
  // Broadcast dims that alternate with walked ones keep several outer dims apart (an odometer of rank 3 over the
  // rows of a block, and of rank 4 in the general row loop with rows of 12).
  for (int64_t inner : {8, 12}) {
    for (int threads : {1, 2}) {
      const Shape big{2, 3, 5, 7, inner}, gate{2, 1, 5, 1, inner};
      std::vector<float> x(static_cast<size_t>(2 * 3 * 5 * 7 * inner)), g(static_cast<size_t>(2 * 5 * inner));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 89) * 0.5f - 9.0f;
      for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>(i % 11) - 4.0f;
      std::vector<float> want(x.size());
      for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
        const int64_t c = i % inner, h = (i / (inner * 7)) % 5, n = i / (inner * 7 * 5 * 3);
        want[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] * g[static_cast<size_t>((n * 5 + h) * inner + c)];
      }
      auto t = Op("Mul", 14);
      t.options.intra_op_num_threads = threads;
      t.Input(F(x, big)).Input(F(g, gate));
      ExpectFloats(RunOk(t), big, want, 0.0f);
    }
  }
  // Sum accumulates into its output in place: the first input's buffer walks, the gate repeats.
  auto sum = Op("Sum", 13);
  std::vector<float> a(2 * 4 * 8, 1.0f), b(8);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i);
  std::vector<float> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = 1.0f + static_cast<float>(i % 8) + 2.0f;
  sum.Input(F(a, {2, 4, 8})).Input(F(b, {1, 1, 8})).Input(F({2.0f}, {}));
  ExpectFloats(RunOk(sum), {2, 4, 8}, want, 0.0f);
}

// Rows of fewer than 8 values, one operand walking all of them and the other one row repeated (a converted
// TensorFlow model's per-channel mean over channels-last pixels, [1, H, W, 3] - [1, 1, 1, 3]; a path of its own in
// BroadcastBinary): every row length 1-7, both operand orders, more rows than one 64-row chunk and a partial one,
// two threads; float Sub (vectorized) and int32 Sub (element by element), exact.
TEST(ElementwiseBinaryTest, ShortRowsAgainstOneRepeatedRow) {
  for (int64_t inner = 1; inner < 8; ++inner) {
    for (int threads : {1, 2}) {
      for (bool row_first : {false, true}) {
        const int64_t h = 9, w = 17;  // 153 rows
        const Shape big{1, h, w, inner}, row{1, 1, 1, inner};
        std::vector<float> x(static_cast<size_t>(h * w * inner)), r(static_cast<size_t>(inner));
        std::vector<int32_t> xi(x.size()), ri(r.size());
        for (size_t i = 0; i < x.size(); ++i) {
          x[i] = static_cast<float>(i % 101) * 0.37f - 11.0f;
          xi[i] = static_cast<int32_t>(i % 101) - 50;
        }
        for (size_t i = 0; i < r.size(); ++i) {
          r[i] = static_cast<float>(i) * 1.5f - 2.25f;
          ri[i] = static_cast<int32_t>(i * 3) - 7;
        }
        std::vector<float> want(x.size());
        std::vector<int32_t> want_i(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          const size_t c = i % static_cast<size_t>(inner);
          want[i] = row_first ? r[c] - x[i] : x[i] - r[c];
          want_i[i] = row_first ? ri[c] - xi[i] : xi[i] - ri[c];
        }
        auto t = Op("Sub", 14);
        auto ti = Op("Sub", 14);
        t.options.intra_op_num_threads = ti.options.intra_op_num_threads = threads;
        if (row_first) {
          t.Input(F(r, row)).Input(F(x, big));
          ti.Input(I32(ri, row)).Input(I32(xi, big));
        } else {
          t.Input(F(x, big)).Input(F(r, row));
          ti.Input(I32(xi, big)).Input(I32(ri, row));
        }
        ExpectFloats(RunOk(t), big, want, 0.0f);
        EXPECT_EQ(Values<int32_t>(RunOk(ti)), want_i) << "inner " << inner;
      }
    }
  }
}

TEST(ElementwiseVariadicTest, BroadcastAcrossAllInputs) {
  auto sum = Op("Sum", 13);
  sum.Input(F({1, 2, 3}, {3})).Input(F({10, 20}, {2, 1})).Input(F({100}, {}));
  ExpectFloats(RunOk(sum), {2, 3}, {111, 112, 113, 121, 122, 123});
  auto mean = Op("Mean", 13);
  mean.Input(F({1, 2}, {2})).Input(F({3}, {1})).Input(F({5, 7}, {1, 2}));
  ExpectFloats(RunOk(mean), {1, 2}, {3, 4});
  auto one = Op("Max", 13);
  one.Input(F({4, -1}, {2}));
  ExpectFloats(RunOk(one), {2}, {4, -1});
}

TEST(ElementwiseVariadicTest, MaxMinPropagateNaN) {
  auto mx = Op("Max", 13);
  mx.Input(F({1, kNaN, 3}, {3})).Input(F({kNaN, 2, 1}, {3}));
  ExpectFloats(RunOk(mx), {3}, {kNaN, kNaN, 3});
  auto mn = Op("Min", 13);
  mn.Input(F({1, kNaN, 3}, {3})).Input(F({0}, {}));
  ExpectFloats(RunOk(mn), {3}, {0, kNaN, 0});
}

TEST(ElementwiseVariadicTest, IntegersAndErrors) {
  auto mn = Op("Min", 13);
  mn.Input(T_<uint64_t>({~uint64_t{0}, 5}, {2})).Input(T_<uint64_t>({7}, {1}));
  EXPECT_EQ(Values<uint64_t>(RunOk(mn)), (std::vector<uint64_t>{7, 5}));
  auto mixed = Op("Sum", 13);
  mixed.Input(F({1}, {1})).Input(T_<double>({1}, {1}));
  EXPECT_FALSE(RunOp(mixed).ok());
  auto shapes = Op("Max", 13);
  shapes.Input(F({1, 2}, {2})).Input(F({1, 2, 3}, {3}));
  EXPECT_FALSE(RunOp(shapes).ok());
  auto empty = Op("Sum", 13);
  empty.Input(F({}, {0})).Input(F({1}, {1}));
  EXPECT_EQ(RunOk(empty).shape(), (Shape{0}));
}

// ---- Where ----

TEST(ElementwiseWhereTest, BroadcastsAllThreeInputs) {
  auto t = Op("Where", 16);
  t.Input(B({true, false}, {2, 1})).Input(F({1, 2, 3}, {3})).Input(F({-1}, {}));
  ExpectFloats(RunOk(t), {2, 3}, {1, 2, 3, -1, -1, -1});
}

// Every broadcast pattern along the rows (each input's last axis of stride 0 or 1) and across them, for element
// types of 1, 2, 4 and 8 bytes (NaN and -0 kept bit for bit), against the per-element definition.
TEST(ElementwiseWhereTest, RowsOfEveryStrideAndTypeMatchTheDefinition) {
  const std::vector<Shape> shapes = {{2, 3, 5}, {2, 1, 5}, {3, 1}, {5}, {}, {2, 3, 1}, {1, 1, 5}};
  auto offset = [&](const Shape& s, int64_t a, int64_t b, int64_t c) {
    const int64_t idx[3] = {a, b, c};
    int64_t off = 0;
    const size_t lead = 3 - s.size();
    for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[lead + d]);
    return off;
  };
  int tried = 0;
  for (const Shape& cs : shapes) {
    for (const Shape& xs : shapes) {
      for (const Shape& ys : {Shape{2, 3, 5}, Shape{3, 1}, Shape{1, 5}}) {
        std::vector<bool> c(static_cast<size_t>(NumElements(cs)));
        for (size_t i = 0; i < c.size(); ++i) c[i] = (i * 7 + 3) % 5 < 2;
        std::vector<float> x = UniformFloats(static_cast<size_t>(NumElements(xs)), 1, -2.0f, 2.0f);
        std::vector<float> y = UniformFloats(static_cast<size_t>(NumElements(ys)), 2, -2.0f, 2.0f);
        x[0] = kNaN;
        y[0] = -0.0f;
        auto f = Op("Where", 16);
        f.Input(B(c, cs)).Input(F(x, xs)).Input(F(y, ys));
        const Tensor got = RunOk(f);
        std::vector<int64_t> xi(x.size());
        for (size_t i = 0; i < x.size(); ++i) xi[i] = static_cast<int64_t>(i) * 1000003 - 7;
        auto fi = Op("Where", 16);
        fi.Input(B(c, cs)).Input(I64(xi, xs)).Input(I64(std::vector<int64_t>(y.size(), -5), ys));
        const Tensor got_i = RunOk(fi);
        std::vector<int8_t> x8(x.size());
        for (size_t i = 0; i < x.size(); ++i) x8[i] = static_cast<int8_t>(i * 13);
        auto f8 = Op("Where", 16);
        f8.Input(B(c, cs)).Input(T_<int8_t>(x8, xs)).Input(T_<int8_t>(std::vector<int8_t>(y.size(), -1), ys));
        const Tensor got_8 = RunOk(f8);
        int64_t dims[3] = {1, 1, 1};  // the broadcast output, right-aligned to rank 3
        for (const Shape* sh : {&cs, &xs, &ys}) {
          for (size_t d = 0; d < sh->size(); ++d) {
            dims[3 - sh->size() + d] = std::max(dims[3 - sh->size() + d], (*sh)[d]);
          }
        }
        ASSERT_EQ(got.size(), dims[0] * dims[1] * dims[2]);
        for (int64_t a = 0; a < dims[0]; ++a)
          for (int64_t b = 0; b < dims[1]; ++b)
            for (int64_t k = 0; k < dims[2]; ++k) {
              const int64_t o = (a * dims[1] + b) * dims[2] + k;
              const bool cond = c[static_cast<size_t>(offset(cs, a, b, k))];
              const float want =
                  cond ? x[static_cast<size_t>(offset(xs, a, b, k))] : y[static_cast<size_t>(offset(ys, a, b, k))];
              ASSERT_EQ(std::bit_cast<uint32_t>(got.data<float>()[o]), std::bit_cast<uint32_t>(want)) << o;
              ASSERT_EQ(got_i.data<int64_t>()[o], cond ? xi[static_cast<size_t>(offset(xs, a, b, k))] : -5) << o;
              ASSERT_EQ(got_8.data<int8_t>()[o], cond ? x8[static_cast<size_t>(offset(xs, a, b, k))] : -1) << o;
            }
        ++tried;
      }
    }
  }
  EXPECT_EQ(tried, 7 * 7 * 3);
}

TEST(ElementwiseWhereTest, StringsAndBadCondition) {
  auto s = Op("Where", 16);
  s.Input(B({true, false, true}, {3})).Input(T_<std::string>({"a", "b", "c"}, {3})).Input(T_<std::string>({"z"}, {1}));
  Tensor r = RunOk(s);
  EXPECT_EQ(Values<std::string>(r), (std::vector<std::string>{"a", "z", "c"}));
  auto bad = Op("Where", 16);
  bad.Input(F({1}, {1})).Input(F({1}, {1})).Input(F({2}, {1}));
  EXPECT_FALSE(RunOp(bad).ok());
  auto mixed = Op("Where", 16);
  mixed.Input(B({true}, {1})).Input(F({1}, {1})).Input(T_<int32_t>({2}, {1}));
  EXPECT_FALSE(RunOp(mixed).ok());
}

}  // namespace
}  // namespace onyx
