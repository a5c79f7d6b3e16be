// Unit tests of the Loss family (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss and the training optimizers
// Adagrad, Adam, Momentum): the cases the ONNX backend suite leaves out (everything ignored, empty batches, int32
// targets, out-of-range targets, extreme scores, float16, bias correction, bad attributes and inputs).
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

constexpr const char* kTraining = "ai.onnx.preview.training";

// Log-probabilities of 2 samples over 3 classes; weights per class.
Tensor NllInput() { return F({-1, -2, -3, -0.5f, -1.5f, -2.5f}, {2, 3}); }
Tensor NllWeight() { return F({0.2f, 0.3f, 0.5f}, {3}); }

// ---- NegativeLogLikelihoodLoss ----

TEST(LossNllTest, WeightedReductions) {
  auto none = Op("NegativeLogLikelihoodLoss", 22);
  none.Attr("reduction", std::string("none")).Input(NllInput()).Input(I64({2, 1}, {2})).Input(NllWeight());
  ExpectFloats(RunOk(none), {2}, {1.5f, 0.45f});
  auto sum = Op("NegativeLogLikelihoodLoss", 22);
  sum.Attr("reduction", std::string("sum")).Input(NllInput()).Input(I64({2, 1}, {2})).Input(NllWeight());
  ExpectFloats(RunOk(sum), {}, {1.95f});
  // The weighted mean divides by the weights used, not by the number of samples.
  auto mean = Op("NegativeLogLikelihoodLoss", 13);
  mean.Input(NllInput()).Input(I64({2, 1}, {2})).Input(NllWeight());
  ExpectFloats(RunOk(mean), {}, {1.95f / 0.8f});
}

TEST(LossNllTest, IgnoredTargetsAddNoLossAndNoWeight) {
  auto none = Op("NegativeLogLikelihoodLoss", 22);
  none.Attr("reduction", std::string("none")).Attr("ignore_index", int64_t{2});
  none.Input(NllInput()).Input(I64({2, 1}, {2})).Input(NllWeight());
  ExpectFloats(RunOk(none), {2}, {0.0f, 0.45f});
  auto mean = Op("NegativeLogLikelihoodLoss", 22);
  mean.Attr("ignore_index", int64_t{2}).Input(NllInput()).Input(I64({2, 1}, {2})).Input(NllWeight());
  ExpectFloats(RunOk(mean), {}, {1.5f});
  // Without weights, the mean is over the targets not ignored.
  auto unweighted = Op("NegativeLogLikelihoodLoss", 22);
  unweighted.Attr("ignore_index", int64_t{2}).Input(NllInput()).Input(I64({2, 1}, {2}));
  ExpectFloats(RunOk(unweighted), {}, {1.5f});
}

TEST(LossNllTest, EveryTargetIgnoredGivesNaNMean) {
  auto t = Op("NegativeLogLikelihoodLoss", 22);
  t.Attr("ignore_index", int64_t{0}).Input(NllInput()).Input(I64({0, 0}, {2}));
  ExpectFloats(RunOk(t), {}, {kNaN});
}

TEST(LossNllTest, NegativeIgnoreIndexWithSpatialDims) {
  // N = 1, C = 2, d1 = 3.
  Tensor x = F({-1, -2, -3, -4, -5, -6}, {1, 2, 3});
  auto sum = Op("NegativeLogLikelihoodLoss", 13);
  sum.Attr("reduction", std::string("sum")).Attr("ignore_index", int64_t{-1});
  sum.Input(x).Input(I64({1, 0, -1}, {1, 3}));
  ExpectFloats(RunOk(sum), {}, {6.0f});
  auto none = Op("NegativeLogLikelihoodLoss", 13);
  none.Attr("reduction", std::string("none")).Attr("ignore_index", int64_t{-1});
  none.Input(x).Input(I64({1, 0, -1}, {1, 3}));
  ExpectFloats(RunOk(none), {1, 3}, {4, 2, 0});
  auto mean = Op("NegativeLogLikelihoodLoss", 13);
  mean.Attr("ignore_index", int64_t{-1}).Input(x).Input(I64({1, 0, -1}, {1, 3}));
  ExpectFloats(RunOk(mean), {}, {3.0f});
}

TEST(LossNllTest, Int32TargetsAndDoubleInput) {
  auto t = Op("NegativeLogLikelihoodLoss", 12);
  t.Attr("reduction", std::string("sum"))
      .Input(T_<double>({-1, -2, -3, -0.5, -1.5, -2.5}, {2, 3}))
      .Input(I32({0, 2}, {2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kDouble);
  EXPECT_DOUBLE_EQ(y.data<double>()[0], 3.5);
}

TEST(LossNllTest, EmptyBatch) {
  auto none = Op("NegativeLogLikelihoodLoss", 22);
  none.Attr("reduction", std::string("none")).Input(F({}, {0, 3})).Input(I64({}, {0}));
  ExpectFloats(RunOk(none), {0}, {});
  auto sum = Op("NegativeLogLikelihoodLoss", 22);
  sum.Attr("reduction", std::string("sum")).Input(F({}, {0, 3})).Input(I64({}, {0}));
  ExpectFloats(RunOk(sum), {}, {0.0f});
}

TEST(LossNllTest, TargetOutOfRangeIsAnError) {
  auto t = Op("NegativeLogLikelihoodLoss", 22);
  t.Input(NllInput()).Input(I64({0, 3}, {2}));
  ExpectError(t, "outside the class range [0, 3)");
  auto negative = Op("NegativeLogLikelihoodLoss", 22);
  negative.Attr("ignore_index", int64_t{1}).Input(NllInput()).Input(I64({-1, 0}, {2}));
  ExpectError(negative, "outside the class range");
}

TEST(LossNllTest, BadShapesAndAttributesAreErrors) {
  auto reduction = Op("NegativeLogLikelihoodLoss", 22);
  reduction.Attr("reduction", std::string("average")).Input(NllInput()).Input(I64({0, 1}, {2}));
  ExpectError(reduction, "'reduction'");
  auto target_shape = Op("NegativeLogLikelihoodLoss", 22);
  target_shape.Input(NllInput()).Input(I64({0, 1, 2}, {3}));
  ExpectError(target_shape, "input 'target' (1) has shape [3]");
  auto weight_shape = Op("NegativeLogLikelihoodLoss", 22);
  weight_shape.Input(NllInput()).Input(I64({0, 1}, {2})).Input(F({1, 1}, {2}));
  ExpectError(weight_shape, "input 'weight' (2)");
  auto rank1 = Op("NegativeLogLikelihoodLoss", 22);
  rank1.Input(F({-1, -2}, {2})).Input(I64({0}, {1}));
  ExpectError(rank1, "expected [N, C");
}

// ---- SoftmaxCrossEntropyLoss ----

TEST(LossSceTest, LargeScoresDoNotOverflow) {
  auto t = Op("SoftmaxCrossEntropyLoss", 13);
  t.num_outputs = 2;
  t.Input(F({1000, 1001}, {1, 2})).Input(I64({1}, {1}));
  auto outs = RunAll(t);
  ASSERT_EQ(outs.size(), 2u);
  ExpectFloats(outs[0].tensor(), {}, {0.31326169f});
  ExpectFloats(outs[1].tensor(), {1, 2}, {-1.31326169f, -0.31326169f});
}

TEST(LossSceTest, WeightsIgnoreIndexAndSpatialDims) {
  // N = 1, C = 2, d1 = 2: position 0 has equal scores, position 1 has scores (0, ln 3).
  Tensor x = F({0, 0, 0, std::log(3.0f)}, {1, 2, 2});
  auto none = Op("SoftmaxCrossEntropyLoss", 12);
  none.Attr("reduction", std::string("none")).Input(x).Input(I64({0, 0}, {1, 2})).Input(F({2, 1}, {2}));
  ExpectFloats(RunOk(none), {1, 2}, {2 * std::log(2.0f), 2 * std::log(4.0f)});
  auto ignored = Op("SoftmaxCrossEntropyLoss", 12);
  ignored.Attr("ignore_index", int64_t{1}).Input(x).Input(I64({1, 0}, {1, 2}));
  ExpectFloats(RunOk(ignored), {}, {std::log(4.0f)});
}

TEST(LossSceTest, Float16) {
  auto t = Op("SoftmaxCrossEntropyLoss", 13);
  t.Attr("reduction", std::string("sum"))
      .Input(T_<Float16>({Float16(0.0f), Float16(0.0f), Float16(0.0f), Float16(0.0f)}, {2, 2}))
      .Input(I64({0, 1}, {2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kFloat16);
  EXPECT_NEAR(static_cast<float>(y.data<Float16>()[0]), 2 * std::log(2.0f), 1e-3f);
}

TEST(LossSceTest, WeightTypeMismatchIsAnError) {
  auto t = Op("SoftmaxCrossEntropyLoss", 13);
  t.Input(F({0, 0}, {1, 2})).Input(I64({0}, {1})).Input(T_<double>({1, 1}, {2}));
  ExpectError(t, "input 'weight' (2) has element type double");
}

// ---- Training optimizers ----

TEST(LossOptimizerTest, AdagradDecayAndRegularization) {
  auto t = Op("Adagrad", 1, kTraining);
  t.num_outputs = 2;
  t.Attr("decay_factor", 0.1f).Attr("epsilon", 0.0f).Attr("norm_coefficient", 0.5f);
  t.Input(F({0.1f}, {})).Input(I64({1}, {})).Input(F({1}, {1})).Input(F({2}, {1})).Input(F({0.75f}, {1}));
  auto outs = RunAll(t);
  ASSERT_EQ(outs.size(), 2u);
  ExpectFloats(outs[0].tensor(), {1}, {0.91409898f});
  ExpectFloats(outs[1].tensor(), {1}, {7.0f});
}

TEST(LossOptimizerTest, AdamBiasCorrectionAndPostRegularization) {
  auto t = Op("Adam", 1, kTraining);
  t.num_outputs = 3;
  t.Attr("alpha", 0.9f).Attr("beta", 0.99f).Attr("epsilon", 0.0f).Attr("norm_coefficient_post", 0.1f);
  t.Input(F({0.1f}, {})).Input(I64({2}, {})).Input(F({1}, {1})).Input(F({0.5f}, {1}));
  t.Input(F({0.2f}, {1})).Input(F({0.3f}, {1}));
  auto outs = RunAll(t);
  ASSERT_EQ(outs.size(), 3u);
  ExpectFloats(outs[0].tensor(), {1}, {0.87191691f});
  ExpectFloats(outs[1].tensor(), {1}, {0.23f});
  ExpectFloats(outs[2].tensor(), {1}, {0.2995f});
}

TEST(LossOptimizerTest, MomentumFirstStepTakesWholeGradient) {
  auto first = Op("Momentum", 1, kTraining);
  first.num_outputs = 2;
  first.Attr("alpha", 0.9f).Attr("beta", 0.5f).Attr("norm_coefficient", 0.0f).Attr("mode", std::string("standard"));
  first.Input(F({0.1f}, {})).Input(I64({0}, {})).Input(F({1}, {1})).Input(F({2}, {1})).Input(F({1}, {1}));
  auto outs = RunAll(first);
  ASSERT_EQ(outs.size(), 2u);
  ExpectFloats(outs[0].tensor(), {1}, {0.71f});
  ExpectFloats(outs[1].tensor(), {1}, {2.9f});

  auto later = first;
  later.inputs[1] = I64({3}, {});
  outs = RunAll(later);
  ASSERT_EQ(outs.size(), 2u);
  ExpectFloats(outs[0].tensor(), {1}, {0.81f});
  ExpectFloats(outs[1].tensor(), {1}, {1.9f});

  auto nesterov = later;
  nesterov.attributes.back().s = "nesterov";
  outs = RunAll(nesterov);
  ASSERT_EQ(outs.size(), 2u);
  ExpectFloats(outs[0].tensor(), {1}, {0.629f});
}

TEST(LossOptimizerTest, MultipleTensorsKeepTheirGroups) {
  auto t = Op("Momentum", 1, kTraining);
  t.num_outputs = 4;
  t.Attr("alpha", 1.0f).Attr("beta", 1.0f).Attr("norm_coefficient", 0.0f).Attr("mode", std::string("standard"));
  t.Input(F({1.0f}, {})).Input(I64({1}, {}));
  t.Input(F({10}, {1})).Input(F({20, 30}, {2}));  // X1, X2
  t.Input(F({1}, {1})).Input(F({2, 3}, {2}));     // G1, G2
  t.Input(F({0}, {1})).Input(F({0, 1}, {2}));     // V1, V2
  auto outs = RunAll(t);
  ASSERT_EQ(outs.size(), 4u);
  ExpectFloats(outs[0].tensor(), {1}, {9});
  ExpectFloats(outs[1].tensor(), {2}, {18, 26});
  ExpectFloats(outs[2].tensor(), {1}, {1});
  ExpectFloats(outs[3].tensor(), {2}, {2, 4});
}

TEST(LossOptimizerTest, BadAttributesAndInputsAreErrors) {
  auto no_mode = Op("Momentum", 1, kTraining);
  no_mode.num_outputs = 2;
  no_mode.Attr("alpha", 0.9f).Attr("beta", 0.5f).Attr("norm_coefficient", 0.0f);
  no_mode.Input(F({0.1f}, {})).Input(I64({0}, {})).Input(F({1}, {1})).Input(F({2}, {1})).Input(F({1}, {1}));
  ExpectError(no_mode, "'mode'");
  auto bad_mode = no_mode;
  bad_mode.Attr("mode", std::string("heavy-ball"));
  ExpectError(bad_mode, "'mode'");
  auto no_alpha = Op("Momentum", 1, kTraining);
  no_alpha.num_outputs = 2;
  no_alpha.Attr("beta", 0.5f).Attr("norm_coefficient", 0.0f).Attr("mode", std::string("standard"));
  no_alpha.Input(F({0.1f}, {})).Input(I64({0}, {})).Input(F({1}, {1})).Input(F({2}, {1})).Input(F({1}, {1}));
  ExpectError(no_alpha, "'alpha'");

  auto mismatch = Op("Adagrad", 1, kTraining);
  mismatch.num_outputs = 2;
  mismatch.Input(F({0.1f}, {})).Input(I64({0}, {})).Input(F({1, 2}, {2})).Input(F({2}, {1})).Input(F({1, 1}, {2}));
  ExpectError(mismatch, "like input 2");
  auto count = Op("Adam", 1, kTraining);
  count.num_outputs = 3;
  count.Input(F({0.1f}, {})).Input(I64({0}, {})).Input(F({1}, {1})).Input(F({2}, {1})).Input(F({1}, {1}));
  ExpectError(count, "equal groups");
  auto t_type = Op("Adagrad", 1, kTraining);
  t_type.num_outputs = 2;
  t_type.Input(F({0.1f}, {})).Input(F({0}, {})).Input(F({1}, {1})).Input(F({2}, {1})).Input(F({1}, {1}));
  ExpectError(t_type, "input 'T' (1)");
}

}  // namespace
}  // namespace onyx
