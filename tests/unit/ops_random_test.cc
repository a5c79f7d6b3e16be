// Unit tests of the Random family (RandomUniform, RandomNormal, their *Like forms, Bernoulli, Multinomial).
// Seeded nodes draw what numpy's np.random.RandomState(seed) draws (ONNX's reference implementation); the expected
// values below were computed with numpy 1.24, e.g. RandomState(5).rand(2, 3).astype(np.float32) * 4 - 1.
// Unseeded nodes are checked through properties: ranges, frequencies, runs that differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

// ---- RandomUniform / RandomNormal and the *Like forms ----

TEST(RandomDistributionTest, SeededUniformMatchesNumpy) {
  auto t = Op("RandomUniform", 22);
  t.Attr("seed", 5.0f).Attr("low", -1.0f).Attr("high", 3.0f).Attr("shape", std::vector<int64_t>{2, 3});
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kFloat);
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  const std::vector<float> expected = {-0.11202728748321533f, 2.482929229736328f, -0.17312335968017578f,
                                       2.6744437217712402f,  0.9536447525024414f, 1.4469754695892334f};
  EXPECT_EQ(Values<float>(y), expected);
}

TEST(RandomDistributionTest, SeededNormalMatchesNumpy) {
  auto t = Op("RandomNormal", 1);
  t.Attr("seed", 7.0f).Attr("mean", 2.0f).Attr("scale", 0.5f).Attr("shape", std::vector<int64_t>{5});
  t.Attr("dtype", int64_t{11});
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kDouble);
  const std::vector<double> expected = {2.845262851900178, 1.7670313147295835, 2.0164100818392923,
                                        2.203758141498254, 1.6055384856871306};
  ASSERT_EQ(y.size(), 5);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(y.data<double>()[i], expected[i], 1e-12) << i;
}

TEST(RandomDistributionTest, NormalLikeTakesShapeAndFloat16TypeFromInput) {
  auto t = Op("RandomNormalLike", 22);
  t.Attr("seed", 7.0f).Attr("mean", 2.0f).Attr("scale", 0.5f);
  t.Input(T_<Float16>(std::vector<Float16>(5, Float16(0.0f)), {5}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kFloat16);
  const std::vector<float> expected = {2.845703125f, 1.767578125f, 2.015625f, 2.203125f, 1.60546875f};
  ASSERT_EQ(y.size(), 5);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(static_cast<float>(y.data<Float16>()[i]), expected[i]) << i;
}

TEST(RandomDistributionTest, SeededRunsRepeatUnseededRunsDiffer) {
  auto seeded = Op("RandomUniform", 22);
  seeded.Attr("seed", 123.0f).Attr("shape", std::vector<int64_t>{16});
  EXPECT_EQ(Values<float>(RunOk(seeded)), Values<float>(RunOk(seeded)));
  auto unseeded = Op("RandomUniform", 22);
  unseeded.Attr("shape", std::vector<int64_t>{16});
  EXPECT_NE(Values<float>(RunOk(unseeded)), Values<float>(RunOk(unseeded)));
}

TEST(RandomDistributionTest, UnseededUniformStaysInRange) {
  auto t = Op("RandomUniform", 22);
  t.Attr("low", 2.0f).Attr("high", 5.0f).Attr("shape", std::vector<int64_t>{1000}).Attr("dtype", int64_t{11});
  Tensor y = RunOk(t);
  double sum = 0;
  for (double v : Values<double>(y)) {
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 5.0);
    sum += v;
  }
  EXPECT_NEAR(sum / 1000, 3.5, 0.2);
}

TEST(RandomDistributionTest, UnseededNormalMoments) {
  auto t = Op("RandomNormal", 22);
  t.Attr("mean", -3.0f).Attr("scale", 2.0f).Attr("shape", std::vector<int64_t>{4000});
  Tensor y = RunOk(t);
  double sum = 0, sq = 0;
  for (float v : Values<float>(y)) {
    sum += v;
    sq += static_cast<double>(v) * v;
  }
  const double mean = sum / 4000, var = sq / 4000 - mean * mean;
  EXPECT_NEAR(mean, -3.0, 0.15);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.15);
}

TEST(RandomDistributionTest, UniformLikeOfIntegersNeedsDtype) {
  auto no_dtype = Op("RandomUniformLike", 22);
  no_dtype.Input(T_<int32_t>({1, 2, 3}, {3}));
  ExpectError(no_dtype, "give the 'dtype' attribute");
  auto with_dtype = Op("RandomUniformLike", 22);
  with_dtype.Attr("dtype", int64_t{11}).Input(T_<int32_t>({}, {0, 3}));
  Tensor y = RunOk(with_dtype);
  EXPECT_EQ(y.type(), DataType::kDouble);
  EXPECT_EQ(y.shape(), (Shape{0, 3}));
}

TEST(RandomDistributionTest, BadAttributesAreErrors) {
  auto no_shape = Op("RandomUniform", 22);
  ExpectError(no_shape, "'shape'");
  auto negative = Op("RandomNormal", 22);
  negative.Attr("shape", std::vector<int64_t>{2, -1});
  ExpectError(negative, "negative dimension");
  auto int_dtype = Op("RandomUniform", 22);
  int_dtype.Attr("shape", std::vector<int64_t>{2}).Attr("dtype", int64_t{6});
  ExpectError(int_dtype, "'dtype'");
}

// ---- Bernoulli ----

TEST(RandomBernoulliTest, SeededMatchesNumpy) {
  auto t = Op("Bernoulli", 22);
  t.Attr("seed", 42.0f).Input(F({0, 0.25f, 0.5f, 0.75f, 1, 0.9f}, {2, 3}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kFloat);
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 1, 1, 1, 1, 1}));
}

TEST(RandomBernoulliTest, CertainProbabilitiesAndOutputTypes) {
  auto as_bool = Op("Bernoulli", 15);
  as_bool.Attr("dtype", int64_t{9}).Input(T_<double>({1, 0, 1, 1, 0}, {5}));
  Tensor b = RunOk(as_bool);
  ASSERT_EQ(b.type(), DataType::kBool);
  EXPECT_EQ(Values<bool>(b), (std::vector<bool>{true, false, true, true, false}));
  auto as_int = Op("Bernoulli", 15);
  as_int.Attr("dtype", int64_t{7}).Input(F({0, 1}, {2}));
  EXPECT_EQ(Values<int64_t>(RunOk(as_int)), (std::vector<int64_t>{0, 1}));
}

TEST(RandomBernoulliTest, FrequencyFollowsProbability) {
  auto t = Op("Bernoulli", 22);
  t.Input(F(std::vector<float>(4000, 0.3f), {4000}));
  double ones = 0;
  for (float v : Values<float>(RunOk(t))) ones += v;
  EXPECT_NEAR(ones / 4000, 0.3, 0.04);
}

TEST(RandomBernoulliTest, InvalidProbabilitiesAreErrors) {
  auto high = Op("Bernoulli", 22);
  high.Input(F({0.5f, 1.5f}, {2}));
  ExpectError(high, "not a probability");
  auto nan = Op("Bernoulli", 22);
  nan.Input(F({kNaN}, {1}));
  ExpectError(nan, "not a probability");
  auto dtype = Op("Bernoulli", 22);
  dtype.Attr("dtype", int64_t{8}).Input(F({0.5f}, {1}));
  ExpectError(dtype, "'dtype'");
}

// ---- Multinomial ----

TEST(RandomMultinomialTest, ImpossibleClassesAreNeverDrawn) {
  auto t = Op("Multinomial", 7);
  t.Attr("sample_size", int64_t{50}).Input(F({-kInf, 0, -kInf, 5, -kInf, -kInf}, {2, 3}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt32);
  ASSERT_EQ(y.shape(), (Shape{2, 50}));
  auto v = Values<int32_t>(y);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], 1);
  for (int i = 50; i < 100; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], 0);
}

TEST(RandomMultinomialTest, FrequenciesFollowSoftmax) {
  auto t = Op("Multinomial", 22);
  t.Attr("sample_size", int64_t{4000}).Attr("dtype", int64_t{7}).Attr("seed", 3.0f);
  t.Input(T_<double>({std::log(0.2), std::log(0.8)}, {1, 2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt64);
  double ones = 0;
  for (int64_t v : Values<int64_t>(y)) ones += static_cast<double>(v);
  EXPECT_NEAR(ones / 4000, 0.8, 0.03);
  EXPECT_EQ(Values<int64_t>(RunOk(t)), Values<int64_t>(y));  // seeded: the same draws every run
}

TEST(RandomMultinomialTest, ErrorsOnBadInput) {
  auto dead_row = Op("Multinomial", 22);
  dead_row.Input(F({0, 1, -kInf, -kInf}, {2, 2}));
  ExpectError(dead_row, "row 1");
  auto rank = Op("Multinomial", 22);
  rank.Input(F({0, 1}, {2}));
  ExpectError(rank, "[batch_size, class_size]");
  auto dtype = Op("Multinomial", 22);
  dtype.Attr("dtype", int64_t{1}).Input(F({0, 1}, {1, 2}));
  ExpectError(dtype, "'dtype'");
  auto sample_size = Op("Multinomial", 22);
  sample_size.Attr("sample_size", int64_t{-2}).Input(F({0, 1}, {1, 2}));
  ExpectError(sample_size, "'sample_size'");
}

}  // namespace
}  // namespace onyx
