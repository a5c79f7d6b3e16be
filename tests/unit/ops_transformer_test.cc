// Unit tests of the Transformer family (Attention, FlexAttention, LinearAttention, RMSNormalization,
// RotaryEmbedding, SwiGLU, TensorScatter, CausalConvWithState): semantics the ONNX backend cases pin only
// indirectly (grouped head mapping, causal offset by the past, short masks, fully masked rows, wrap-around),
// empty tensors, broadcasting and bad attributes/inputs giving errors.
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

Tensor Zeros(Shape shape) { return Tensor::Allocate(DataType::kFloat, std::move(shape), /*zero=*/true); }

// ---- Attention ----

TEST(TransformerAttentionTest, SingleHeadByHand) {
  auto t = Op("Attention", 23);
  t.Input(F({1, 0}, {1, 1, 1, 2})).Input(F({1, 0, 0, 1}, {1, 1, 2, 2})).Input(F({1, 3}, {1, 1, 2, 1}));
  const double s0 = 1.0 / std::sqrt(2.0);
  const double p0 = std::exp(s0) / (std::exp(s0) + 1.0);
  ExpectFloats(RunOk(t), {1, 1, 1, 1}, {static_cast<float>(p0 * 1 + (1 - p0) * 3)});
}

TEST(TransformerAttentionTest, GroupedHeadsShareContiguousKvHeads) {
  // With Q = 0 every key gets the same weight, so each output is the mean of its kv head's values: query heads
  // 0 and 1 read kv head 0, heads 2 and 3 read kv head 1.
  auto t = Op("Attention", 23);
  t.Input(Zeros({1, 4, 1, 2})).Input(Zeros({1, 2, 2, 2})).Input(F({1, 3, 10, 30}, {1, 2, 2, 1}));
  ExpectFloats(RunOk(t), {1, 4, 1, 1}, {2, 2, 20, 20});
}

TEST(TransformerAttentionTest, PackedInputsUseHeadAttributes) {
  auto t = Op("Attention", 23);
  t.Attr("q_num_heads", int64_t{2}).Attr("kv_num_heads", int64_t{1});
  // Q (1, 1, 2*2) zeros, K (1, 2, 2), V (1, 2, 1): both heads average V.
  t.Input(Zeros({1, 1, 4})).Input(Zeros({1, 2, 2})).Input(F({4, 8}, {1, 2, 1}));
  ExpectFloats(RunOk(t), {1, 1, 2}, {6, 6});
}

TEST(TransformerAttentionTest, CausalDiagonalIsOffsetByThePast) {
  // One new query after two cached positions sees all three keys (bottom-right aligned causal mask).
  auto t = Op("Attention", 23);
  t.Attr("is_causal", int64_t{1});
  t.Input(Zeros({1, 1, 1, 2})).Input(Zeros({1, 1, 1, 2})).Input(F({9}, {1, 1, 1, 1}));
  t.Input(Value()).Input(Zeros({1, 1, 2, 2})).Input(F({3, 6}, {1, 1, 2, 1}));
  t.num_outputs = 3;
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 1, 1, 1}, {6});
  ExpectFloats((*r)[2].tensor(), {1, 1, 3, 1}, {3, 6, 9});
  EXPECT_EQ((*r)[1].tensor().shape(), (Shape{1, 1, 3, 2}));
}

// com.microsoft Attention with constant weights and bias runs its QKV product packed (nn::ConstantFloatProduct, as
// MatMulBias): the same outputs as with the weights fed (the sgemm path), within float rounding, with a mask,
// across row counts (a second run with another sequence length builds a second product).
TEST(TransformerAttentionTest, MsAttentionConstantWeightsMatchFedWeights) {
  constexpr int64_t B = 2, D = 48, H = 4;
  const Tensor w = NormalTensor({D, 3 * D}, 21), bias = NormalTensor({3 * D}, 22);
  for (int64_t s : {int64_t{7}, int64_t{33}}) {
    SCOPED_TRACE(s);
    const Tensor x = NormalTensor({B, s, D}, 23 + s);
    std::vector<int32_t> mask_len = {static_cast<int32_t>(s), static_cast<int32_t>(s - 2)};
    auto make = [&](bool constant) {
      OpTest t;
      t.op_type = "Attention";
      t.domain = "com.microsoft";
      t.opset = 1;
      t.Attr("num_heads", H);
      t.Input(x).Input(w).Input(bias).Input(T_<int32_t>(mask_len, {B}));
      if (constant) t.constant_inputs = {1, 2};
      return t;
    };
    const Tensor fed = RunOk(make(false));
    const Tensor packed = RunOk(make(true));
    ASSERT_EQ(packed.shape(), fed.shape());
    for (int64_t i = 0; i < fed.size(); ++i) {
      EXPECT_NEAR(packed.data<float>()[i], fed.data<float>()[i], 1e-5 + 1e-5 * std::fabs(fed.data<float>()[i])) << i;
    }
  }
}

// Float inputs take their own loop (heads over the threads, vectorized softmax): within float rounding of the same
// attention on double inputs (the general loop), with grouped heads, causal masking after a past, a float mask
// (with -inf entries) or a bool one, and packed 3-D inputs.
TEST(TransformerAttentionTest, FloatPathMatchesTheGeneralLoop) {
  struct Case {
    bool packed, causal, past;
    int mask;  // 0 none, 1 float, 2 bool
  };
  for (const Case& c : {Case{false, false, false, 0}, Case{false, true, true, 1}, Case{true, false, false, 2},
                        Case{false, true, false, 2}, Case{true, true, true, 1}, Case{false, true, false, 0},
                        Case{true, true, true, 0}}) {
    SCOPED_TRACE(std::to_string(c.packed) + std::to_string(c.causal) + std::to_string(c.past) + std::to_string(c.mask));
    constexpr int64_t N = 2, HQ = 4, HKV = 2, S = 5, P = 3, D = 8;
    const int64_t T = S + (c.past ? P : 0);
    std::vector<Tensor> inputs = {c.packed ? NormalTensor({N, S, HQ * D}, 1) : NormalTensor({N, HQ, S, D}, 1),
                                  c.packed ? NormalTensor({N, S, HKV * D}, 2) : NormalTensor({N, HKV, S, D}, 2),
                                  c.packed ? NormalTensor({N, S, HKV * D}, 3) : NormalTensor({N, HKV, S, D}, 3)};
    Tensor mask;
    if (c.mask == 1) {
      mask = NormalTensor({S, T}, 4);
      mask.data<float>()[3] = -kInf;
    }
    std::vector<bool> bool_mask(static_cast<size_t>(S * T), true);
    for (size_t i = 0; i < bool_mask.size(); i += 3) bool_mask[i] = false;
    auto f = Op("Attention", 23);
    auto d = Op("Attention", 23);
    for (OpTest* t : {&f, &d}) {
      if (c.causal) t->Attr("is_causal", int64_t{1});
      if (c.packed) t->Attr("q_num_heads", HQ).Attr("kv_num_heads", HKV);
    }
    auto as_double = [](const Tensor& t) {
      std::vector<double> v(t.data<float>(), t.data<float>() + t.size());
      return T_<double>(v, t.shape());
    };
    for (const Tensor& t : inputs) {
      f.Input(t);
      d.Input(as_double(t));
    }
    if (c.mask == 1) {
      f.Input(mask);
      d.Input(as_double(mask));
    } else if (c.mask == 2) {
      f.Input(B(bool_mask, {S, T}));
      d.Input(B(bool_mask, {S, T}));
    } else if (c.past) {
      f.Input(Value());
      d.Input(Value());
    }
    if (c.past) {
      const Tensor pk = NormalTensor({N, HKV, P, D}, 5), pv = NormalTensor({N, HKV, P, D}, 6);
      f.Input(pk).Input(pv);
      d.Input(as_double(pk)).Input(as_double(pv));
    }
    const Tensor got = RunOk(f), want = RunOk(d);
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < got.size(); ++i) {
      const double w = want.data<double>()[i];
      ASSERT_NEAR(got.data<float>()[i], w, 2e-6 * (1 + std::fabs(w))) << i;
    }
  }
}

TEST(TransformerAttentionTest, CausalWithoutPastIsLowerTriangular) {
  auto t = Op("Attention", 23);
  t.Attr("is_causal", int64_t{1});
  t.Input(Zeros({1, 1, 2, 1})).Input(Zeros({1, 1, 2, 1})).Input(F({2, 4}, {1, 1, 2, 1}));
  ExpectFloats(RunOk(t), {1, 1, 2, 1}, {2, 3});
}

TEST(TransformerAttentionTest, ShortMaskIsPaddedWithMinusInfinity) {
  auto t = Op("Attention", 23);
  t.Input(Zeros({1, 1, 1, 2})).Input(Zeros({1, 1, 3, 2})).Input(F({5, 7, 9}, {1, 1, 3, 1}));
  t.Input(F({0.0f}, {1, 1}));  // covers only the first of three keys
  ExpectFloats(RunOk(t), {1, 1, 1, 1}, {5});
}

TEST(TransformerAttentionTest, FullyMaskedRowGivesZerosNotNaN) {
  auto t = Op("Attention", 23);
  t.Attr("qk_matmul_output_mode", int64_t{3});
  t.Input(F({1, 2, 3, 4}, {1, 1, 2, 2})).Input(F({1, 0, 0, 1}, {1, 1, 2, 2})).Input(F({5, 7}, {1, 1, 2, 1}));
  t.Input(B({false, false, true, false}, {2, 2}));
  t.num_outputs = 4;
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 1, 2, 1}, {0, 5});
  ExpectFloats((*r)[3].tensor(), {1, 1, 2, 2}, {0, 0, 1, 0});
}

TEST(TransformerAttentionTest, QkOutputModesAndSoftcap) {
  // Scores 4 and 0 (scale 1); softcap 2 maps them to 2 tanh(2) and 0; the mask adds -1 to the second key.
  auto base = Op("Attention", 23);
  base.Attr("scale", 1.0f).Attr("softcap", 2.0f);
  base.Input(F({2, 0}, {1, 1, 1, 2})).Input(F({2, 0, 0, 2}, {1, 1, 2, 2})).Input(F({1, 2}, {1, 1, 2, 1}));
  base.Input(F({0, -1}, {1, 2}));
  base.num_outputs = 4;
  const float capped = static_cast<float>(2 * std::tanh(2.0));
  const std::vector<std::vector<float>> expected = {{4, 0}, {capped, 0}, {capped, -1}};
  for (int64_t mode = 0; mode < 3; ++mode) {
    auto t = base;
    t.Attr("qk_matmul_output_mode", mode);
    auto r = RunOp(t);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectFloats((*r)[3].tensor(), {1, 1, 1, 2}, expected[static_cast<size_t>(mode)]);
  }
}

TEST(TransformerAttentionTest, NonpadKvSeqlenLimitsKeysPerBatch) {
  auto t = Op("Attention", 24);
  t.Input(Zeros({2, 1, 1, 1})).Input(Zeros({2, 1, 3, 1})).Input(F({1, 2, 3, 4, 5, 6}, {2, 1, 3, 1}));
  t.Input(Value()).Input(Value()).Input(Value()).Input(I64({1, 3}, {2}));
  ExpectFloats(RunOk(t), {2, 1, 1, 1}, {1, 5});
}

TEST(TransformerAttentionTest, EmptyQueryLength) {
  auto t = Op("Attention", 23);
  t.Input(Zeros({1, 2, 0, 4})).Input(Zeros({1, 2, 3, 4})).Input(Zeros({1, 2, 3, 5}));
  ExpectFloats(RunOk(t), {1, 2, 0, 5}, {});
}

TEST(TransformerAttentionTest, Errors) {
  auto bad_mode = Op("Attention", 23);
  bad_mode.Attr("qk_matmul_output_mode", int64_t{7});
  bad_mode.Input(Zeros({1, 1, 1, 2})).Input(Zeros({1, 1, 1, 2})).Input(Zeros({1, 1, 1, 2}));
  ExpectError(bad_mode, "qk_matmul_output_mode");

  auto packed = Op("Attention", 23);
  packed.Input(Zeros({1, 1, 4})).Input(Zeros({1, 1, 4})).Input(Zeros({1, 1, 4}));
  ExpectError(packed, "q_num_heads");

  auto heads = Op("Attention", 23);
  heads.Input(Zeros({1, 3, 1, 2})).Input(Zeros({1, 2, 1, 2})).Input(Zeros({1, 2, 1, 2}));
  ExpectError(heads, "not a multiple");

  auto mask = Op("Attention", 23);
  mask.Input(Zeros({1, 1, 2, 2})).Input(Zeros({1, 1, 2, 2})).Input(Zeros({1, 1, 2, 2})).Input(Zeros({3, 2}));
  ExpectError(mask, "attn_mask");
}

// ---- FlexAttention ----

TEST(TransformerFlexAttentionTest, UniformScoresAverageGroupedValues) {
  auto t = Op("FlexAttention", 1, "ai.onnx.preview");
  t.Input(Zeros({1, 2, 1, 3})).Input(Zeros({1, 1, 2, 3})).Input(F({2, 4}, {1, 1, 2, 1}));
  ExpectFloats(RunOk(t), {1, 2, 1, 1}, {3, 3});
}

TEST(TransformerFlexAttentionTest, ScaleAttribute) {
  auto t = Op("FlexAttention", 1, "ai.onnx.preview");
  t.Attr("scale", 0.5f);
  t.Input(F({1, 1}, {1, 1, 1, 2})).Input(F({1, 1, 0, 0}, {1, 1, 2, 2})).Input(F({1, 0}, {1, 1, 2, 1}));
  const double p0 = std::exp(1.0) / (std::exp(1.0) + 1.0);
  ExpectFloats(RunOk(t), {1, 1, 1, 1}, {static_cast<float>(p0)});
}

TEST(TransformerFlexAttentionTest, RejectsRank3) {
  auto t = Op("FlexAttention", 1, "ai.onnx.preview");
  t.Input(Zeros({1, 1, 2})).Input(Zeros({1, 1, 2})).Input(Zeros({1, 1, 2}));
  ExpectError(t, "4-D");
}

// ---- LinearAttention ----

TEST(TransformerLinearAttentionTest, LinearRuleAccumulatesOuterProducts) {
  auto t = Op("LinearAttention", 27);
  t.Attr("q_num_heads", int64_t{1}).Attr("kv_num_heads", int64_t{1}).Attr("update_rule", std::string("linear"));
  // d_k = d_v = 1, scale 1: S1 = k1 v1 = 6, o1 = q1 S1 = 6; S2 = 6 + 1 * 4 = 10, o2 = 2 * 10.
  t.Input(F({1, 2}, {1, 2, 1})).Input(F({2, 1}, {1, 2, 1})).Input(F({3, 4}, {1, 2, 1}));
  t.num_outputs = 2;
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 2, 1}, {6, 20});
  ExpectFloats((*r)[1].tensor(), {1, 1, 1, 1}, {10});
}

TEST(TransformerLinearAttentionTest, GatedDeltaWithPastState) {
  auto t = Op("LinearAttention", 27);
  t.Attr("q_num_heads", int64_t{1}).Attr("kv_num_heads", int64_t{1}).Attr("scale", 0.5f);
  // S' = exp(log 0.5) * 8 = 4; retrieved = 4 * 2 = 8; delta = 0.25 * (10 - 8) = 0.5; S = 4 + 2 * 0.5 = 5;
  // o = 0.5 * 3 * 5.
  t.Input(F({3}, {1, 1, 1})).Input(F({2}, {1, 1, 1})).Input(F({10}, {1, 1, 1})).Input(F({8}, {1, 1, 1, 1}));
  t.Input(F({std::log(0.5f)}, {1, 1, 1})).Input(F({0.25f}, {1, 1, 1}));
  t.num_outputs = 2;
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 1, 1}, {7.5f});
  ExpectFloats((*r)[1].tensor(), {1, 1, 1, 1}, {5});
}

TEST(TransformerLinearAttentionTest, Errors) {
  auto rule = Op("LinearAttention", 27);
  rule.Attr("q_num_heads", int64_t{1}).Attr("kv_num_heads", int64_t{1}).Attr("update_rule", std::string("magic"));
  rule.Input(Zeros({1, 1, 1})).Input(Zeros({1, 1, 1})).Input(Zeros({1, 1, 1}));
  ExpectError(rule, "update_rule");

  auto missing = Op("LinearAttention", 27);
  missing.Attr("q_num_heads", int64_t{1}).Attr("kv_num_heads", int64_t{1});
  missing.Input(Zeros({1, 1, 1})).Input(Zeros({1, 1, 1})).Input(Zeros({1, 1, 1}));
  ExpectError(missing, "decay");
}

// ---- RMSNormalization ----

TEST(TransformerRmsNormTest, NegativeAxisAndBroadcastScale) {
  auto t = Op("RMSNormalization", 23);
  t.Attr("axis", int64_t{-1}).Attr("epsilon", 0.0f);
  t.Input(F({3, 4, 0, 2}, {2, 2})).Input(F({2}, {1}));
  const float r1 = std::sqrt(12.5f);
  ExpectFloats(RunOk(t), {2, 2}, {2 * 3 / r1, 2 * 4 / r1, 0, 2 * 2 / std::sqrt(2.0f)});
}

TEST(TransformerRmsNormTest, AxisZeroNormalizesEverything) {
  auto t = Op("RMSNormalization", 23);
  t.Attr("axis", int64_t{0}).Attr("epsilon", 0.0f);
  t.Input(F({1, 1, 1, 1}, {2, 2})).Input(F({1, 2, 3, 4}, {2, 2}));
  ExpectFloats(RunOk(t), {2, 2}, {1, 2, 3, 4});
}

TEST(TransformerRmsNormTest, EmptyAndErrors) {
  auto empty = Op("RMSNormalization", 23);
  empty.Input(Zeros({0, 3})).Input(F({1, 1, 1}, {3}));
  ExpectFloats(RunOk(empty), {0, 3}, {});

  auto stash = Op("RMSNormalization", 23);
  stash.Attr("stash_type", int64_t{7});
  stash.Input(Zeros({1, 3})).Input(F({1, 1, 1}, {3}));
  ExpectError(stash, "stash_type");

  auto axis = Op("RMSNormalization", 23);
  axis.Attr("axis", int64_t{2});
  axis.Input(Zeros({1, 3})).Input(F({1, 1, 1}, {3}));
  ExpectError(axis, "axis");
}

// ---- RotaryEmbedding ----

// A quarter turn (cos 0, sin 1) maps each pair (x1, x2) to (-x2, x1).
OpTest QuarterTurn(bool interleaved) {
  auto t = Op("RotaryEmbedding", 23);
  t.Attr("interleaved", int64_t{interleaved ? 1 : 0});
  t.Input(F({1, 2, 3, 4}, {1, 1, 1, 4})).Input(F({0, 0}, {1, 1, 2})).Input(F({1, 1}, {1, 1, 2}));
  return t;
}

TEST(TransformerRotaryEmbeddingTest, HalvesAndInterleavedPairs) {
  ExpectFloats(RunOk(QuarterTurn(false)), {1, 1, 1, 4}, {-3, -4, 1, 2});
  ExpectFloats(RunOk(QuarterTurn(true)), {1, 1, 1, 4}, {-2, 1, -4, 3});
}

TEST(TransformerRotaryEmbeddingTest, PartialRotaryDimWithPositionIds) {
  auto t = Op("RotaryEmbedding", 23);
  t.Attr("rotary_embedding_dim", int64_t{2}).Attr("num_heads", int64_t{1});
  // Packed (B=1, S=1, 4); position 1 selects the quarter turn, features 2 and 3 pass through.
  t.Input(F({1, 2, 3, 4}, {1, 1, 4})).Input(F({1, 0}, {2, 1})).Input(F({0, 1}, {2, 1})).Input(I64({1}, {1, 1}));
  ExpectFloats(RunOk(t), {1, 1, 4}, {-2, 1, 3, 4});
}

TEST(TransformerRotaryEmbeddingTest, Errors) {
  auto pos = Op("RotaryEmbedding", 23);
  pos.Input(Zeros({1, 1, 1, 2})).Input(F({1}, {1, 1})).Input(F({0}, {1, 1})).Input(I64({5}, {1, 1}));
  ExpectError(pos, "position_ids");

  auto odd = Op("RotaryEmbedding", 23);
  odd.Attr("rotary_embedding_dim", int64_t{3});
  odd.Input(Zeros({1, 1, 1, 4})).Input(Zeros({1, 1, 2})).Input(Zeros({1, 1, 2}));
  ExpectError(odd, "rotary_embedding_dim");
}

// ---- SwiGLU ----

TEST(TransformerSwiGluTest, BroadcastsAndUsesAlpha) {
  auto t = Op("SwiGLU", 28);
  t.Attr("alpha", 2.0f);
  t.Input(F({0, 1, -1}, {3})).Input(F({3}, {1}));
  const float s1 = 1.0f / (1.0f + std::exp(-2.0f));
  ExpectFloats(RunOk(t), {3}, {0, 3 * s1, -3 * (1 - s1)});
}

// ---- TensorScatter ----

TEST(TransformerTensorScatterTest, CircularWrapsAround) {
  auto t = Op("TensorScatter", 24);
  t.Attr("mode", std::string("circular"));
  t.Input(Zeros({1, 3, 1})).Input(F({7, 8}, {1, 2, 1})).Input(I64({2}, {1}));
  ExpectFloats(RunOk(t), {1, 3, 1}, {8, 0, 7});
}

TEST(TransformerTensorScatterTest, DefaultIndicesAndExplicitAxis) {
  auto t = Op("TensorScatter", 24);
  t.Attr("axis", int64_t{2});
  t.Input(F({1, 1, 1, 1, 1, 1}, {1, 2, 3})).Input(F({5, 6}, {1, 2, 1}));
  ExpectFloats(RunOk(t), {1, 2, 3}, {5, 1, 1, 6, 1, 1});
}

TEST(TransformerTensorScatterTest, Int64AndStrings) {
  auto t = Op("TensorScatter", 24);
  t.Input(I64({1, 2, 3}, {1, 3, 1})).Input(I64({9}, {1, 1, 1})).Input(I64({1}, {1}));
  Tensor out = RunOk(t);
  ASSERT_EQ(out.type(), DataType::kInt64);
  EXPECT_EQ(out.data<int64_t>()[0], 1);
  EXPECT_EQ(out.data<int64_t>()[1], 9);
  EXPECT_EQ(out.data<int64_t>()[2], 3);

  auto s = Op("TensorScatter", 24);
  s.Input(Tensor::FromVector<std::string>({"a", "b"}, {1, 2})).Input(Tensor::FromVector<std::string>({"z"}, {1, 1}));
  s.Attr("axis", int64_t{1});
  Tensor str = RunOk(s);
  ASSERT_EQ(str.type(), DataType::kString);
  EXPECT_EQ(str.data<std::string>()[0], "z");
  EXPECT_EQ(str.data<std::string>()[1], "b");
}

TEST(TransformerTensorScatterTest, LinearOverflowIsAnError) {
  auto t = Op("TensorScatter", 24);
  t.Input(Zeros({1, 3, 1})).Input(F({7, 8}, {1, 2, 1})).Input(I64({2}, {1}));
  ExpectError(t, "does not fit");

  auto mode = Op("TensorScatter", 24);
  mode.Attr("mode", std::string("ring"));
  mode.Input(Zeros({1, 3, 1})).Input(Zeros({1, 1, 1}));
  ExpectError(mode, "mode");
}

// ---- CausalConvWithState ----

TEST(TransformerCausalConvTest, PastStateFeedsTheFirstOutputs) {
  auto t = Op("CausalConvWithState", 27);
  // Kernel [1, 10]: out[t] = seq[t] + 10 * seq[t + 1] over seq = past ++ input, plus bias 0.5.
  t.Input(F({1, 2, 3}, {1, 1, 3})).Input(F({1, 10}, {1, 1, 2})).Input(F({0.5f}, {1})).Input(F({4}, {1, 1, 1}));
  t.num_outputs = 2;
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 1, 3}, {14.5f, 21.5f, 32.5f});
  ExpectFloats((*r)[1].tensor(), {1, 1, 1}, {3});
}

TEST(TransformerCausalConvTest, SiluAndZeroState) {
  auto t = Op("CausalConvWithState", 27);
  t.Attr("activation", std::string("silu"));
  t.Input(F({1, -1}, {1, 1, 2})).Input(F({0, 0, 1}, {1, 1, 3}));
  t.num_outputs = 2;
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const float s = 1.0f / (1.0f + std::exp(-1.0f));
  ExpectFloats((*r)[0].tensor(), {1, 1, 2}, {s, -(1 - s)});
  ExpectFloats((*r)[1].tensor(), {1, 1, 2}, {1, -1});
}

TEST(TransformerCausalConvTest, Errors) {
  auto act = Op("CausalConvWithState", 27);
  act.Attr("activation", std::string("gelu"));
  act.Input(Zeros({1, 1, 2})).Input(Zeros({1, 1, 2}));
  ExpectError(act, "activation");

  auto weight = Op("CausalConvWithState", 27);
  weight.Input(Zeros({1, 2, 2})).Input(Zeros({1, 1, 2}));
  ExpectError(weight, "weight");
}

}  // namespace
}  // namespace onyx
