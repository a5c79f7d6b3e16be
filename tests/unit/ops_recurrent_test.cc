// Unit tests of the Recurrent family (RNN, GRU, LSTM) and of Einsum and Det: what the ONNX backend suite leaves
// out. Hand-worked steps for directions, sequence_lens (zero lengths, the reverse direction starting at each
// entry's own end), layout, clip, activations with alpha/beta, input_forget, linear_before_reset and omitted
// outputs; a scalar-loop reference for bidirectional GRU/LSTM with every optional input; einsum diagonals,
// ellipsis broadcasting, implicit output order, integer wraparound and empty axes; pivoting determinants.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"
#include "runtime/session.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

// The outputs as tensors (an empty Tensor for any other kind of value); none when the run fails.
std::vector<Tensor> RunAllTensors(const OpTest& t) {
  auto r = RunOp(t);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<Tensor> out;
  if (!r.ok()) return out;
  for (const Value& v : *r) out.push_back(v.is_tensor() ? v.tensor() : Tensor());
  return out;
}

// Runs a node whose outputs are (Y, Y_h), as RNN and GRU have, and checks both.
void ExpectYAndYh(const OpTest& t, const Shape& y_shape, const std::vector<float>& y, const Shape& yh_shape,
                  const std::vector<float>& yh) {
  auto out = RunAllTensors(t);
  ASSERT_EQ(out.size(), 2u);
  ExpectFloats(out[0], y_shape, y);
  ExpectFloats(out[1], yh_shape, yh);
}

// Runs one node whose output names may be empty (omitted optional outputs); returns the named outputs in order.
Result<std::vector<Value>> RunWithOutputs(const std::string& op_type, int64_t opset,
                                          const std::vector<ir::Attribute>& attributes,
                                          const std::vector<Tensor>& inputs, const std::vector<std::string>& outputs) {
  ir::Model model;
  model.ir_version = 10;
  model.opset_import.push_back({"", opset});
  ir::Node node;
  node.name = "node_under_test";
  node.op_type = op_type;
  node.attributes = attributes;
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "input_" + std::to_string(i);
    node.inputs.push_back(name);
    model.graph.inputs.push_back({name, ir::TypeInfo::Tensor(inputs[i].type()), {}, {}});
    feeds.emplace_back(name, Value(inputs[i]));
  }
  for (const std::string& o : outputs) {
    node.outputs.push_back(o);
    if (!o.empty()) model.graph.outputs.push_back({o, std::nullopt, {}, {}});
  }
  model.graph.nodes.push_back(std::move(node));
  ONYX_ASSIGN_OR_RETURN(auto session, Session::Create(std::move(model)));
  std::vector<Value> result;
  ONYX_RETURN_IF_ERROR(session->Run(feeds, {}, &result));
  return result;
}

// ---- RNN, hand-worked ----
// One hidden unit, one input: h_t = Relu(2 x_t + 0.5 h_{t-1} + 1).

OpTest ReluRnn(const std::string& direction, Tensor x, int64_t dirs, int64_t opset = 14) {
  auto t = Op("RNN", opset).Outputs(2);
  std::vector<float> w(static_cast<size_t>(dirs), 2.0f);
  std::vector<float> r(static_cast<size_t>(dirs), 0.5f);
  std::vector<float> b;
  for (int64_t d = 0; d < dirs; ++d) b.insert(b.end(), {1.0f, 0.0f});
  t.Input(std::move(x)).Input(F(w, {dirs, 1, 1})).Input(F(r, {dirs, 1, 1})).Input(F(b, {dirs, 2}));
  t.Attr("hidden_size", int64_t{1}).Attr("direction", direction);
  t.attributes.push_back([] {
    ir::Attribute a;
    a.name = "activations";
    a.type = ir::AttrType::kStrings;
    a.strings = {"Relu"};
    return a;
  }());
  return t;
}

TEST(RecurrentRnnTest, ForwardAndReverseByHand) {
  ExpectYAndYh(ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1), {2, 1, 1, 1}, {3, 8.5f}, {1, 1, 1}, {8.5f});
  // Reverse: t=1 first (2*3 + 1 = 7), then t=0 (2 + 3.5 + 1).
  ExpectYAndYh(ReluRnn("reverse", F({1, 3}, {2, 1, 1}), 1), {2, 1, 1, 1}, {6.5f, 7}, {1, 1, 1}, {6.5f});
}

TEST(RecurrentRnnTest, BidirectionalSequenceLensStartReverseAtEachEnd) {
  // x[t][b]: batch 0 = (1, 3) with length 2, batch 1 = (2, 5) with length 1 (its t=1 value is padding).
  auto t = ReluRnn("bidirectional", F({1, 2, 3, 5}, {2, 2, 1}), 2);
  t.Input(I32({2, 1}, {2}));
  // Y [S, D, B, H]: padded steps are zero; the reverse direction of batch 1 starts at t=0.
  ExpectYAndYh(t, {2, 2, 2, 1}, {3, 5, 6.5f, 5, 8.5f, 0, 7, 0}, {2, 2, 1}, {8.5f, 5, 6.5f, 5});
}

TEST(RecurrentRnnTest, BatchMajorLayout) {
  // The same run as above with X [B, S, I], Y [B, S, D, H], Y_h [B, D, H].
  auto t = ReluRnn("bidirectional", F({1, 3, 2, 5}, {2, 2, 1}), 2);
  t.Input(I32({2, 1}, {2})).Attr("layout", int64_t{1});
  ExpectYAndYh(t, {2, 2, 2, 1}, {3, 6.5f, 8.5f, 7, 5, 5, 0, 0}, {2, 2, 1}, {8.5f, 6.5f, 5, 5});
}

TEST(RecurrentRnnTest, ZeroSequenceLengthKeepsInitialState) {
  auto t = ReluRnn("forward", F({1, 2, 3, 5}, {2, 2, 1}), 1);
  t.Input(I32({0, 2}, {2})).Input(F({4, 0}, {1, 2, 1}));
  ExpectYAndYh(t, {2, 1, 2, 1}, {0, 5, 0, 13.5f}, {1, 2, 1}, {4, 13.5f});
}

TEST(RecurrentRnnTest, ClipBoundsPreActivations) {
  auto t = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  t.Attr("clip", 2.0f);
  // 3 -> 2; then 2*3 + 0.5*2 + 1 = 8 -> 2.
  ExpectFloats(RunOk(t, 1), {1, 1, 1}, {2});
}

TEST(RecurrentRnnTest, ActivationAlphaBeta) {
  // LeakyRelu(alpha 0.5) of 2*(-1) + 0 + 1 = -1 -> -0.5; then 2*(-3) + 0.5*(-0.5) + 1 = -5.25 -> -2.625.
  auto t = ReluRnn("forward", F({-1, -3}, {2, 1, 1}), 1);
  t.attributes.back().strings = {"leakyrelu"};  // names are case-insensitive
  t.Attr("activation_alpha", std::vector<float>{0.5f});
  ExpectFloats(RunOk(t, 0), {2, 1, 1, 1}, {-0.5f, -2.625f});
  // ScaledTanh(alpha 2, beta 0.5) of 1 + 2 = 3 -> 2 tanh(1.5).
  auto s = ReluRnn("forward", F({1}, {1, 1, 1}), 1);
  s.attributes.back().strings = {"ScaledTanh"};
  s.Attr("activation_alpha", std::vector<float>{2.0f}).Attr("activation_beta", std::vector<float>{0.5f});
  ExpectFloats(RunOk(s, 1), {1, 1, 1}, {2 * std::tanh(1.5f)});
  // HardSigmoid defaults (0.2, 0.5) of 3 -> 1.1 -> 1; Softplus of 3 -> log(1 + e^3).
  auto h = ReluRnn("forward", F({1}, {1, 1, 1}), 1);
  h.attributes.back().strings = {"HardSigmoid"};
  ExpectFloats(RunOk(h, 1), {1, 1, 1}, {1});
  auto p = ReluRnn("forward", F({1}, {1, 1, 1}), 1);
  p.attributes.back().strings = {"Softplus"};
  ExpectFloats(RunOk(p, 1), {1, 1, 1}, {std::log1p(std::exp(3.0f))});
}

TEST(RecurrentRnnTest, OmittedOutputs) {
  OpTest t = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  std::vector<Tensor> inputs;
  for (const Value& v : t.inputs) inputs.push_back(v.tensor());
  auto only_h = RunWithOutputs("RNN", 14, t.attributes, inputs, {"", "Y_h"});
  ASSERT_TRUE(only_h.ok()) << only_h.status().ToString();
  ASSERT_EQ(only_h->size(), 1u);
  ExpectFloats((*only_h)[0].tensor(), {1, 1, 1}, {8.5f});
  auto only_y = RunWithOutputs("RNN", 14, t.attributes, inputs, {"Y"});
  ASSERT_TRUE(only_y.ok()) << only_y.status().ToString();
  ExpectFloats((*only_y)[0].tensor(), {2, 1, 1, 1}, {3, 8.5f});
}

TEST(RecurrentRnnTest, DoubleAndFloat16) {
  auto d = Op("RNN", 7).Outputs(2);
  d.Input(T_<double>({1, 3}, {2, 1, 1})).Input(T_<double>({2}, {1, 1, 1})).Input(T_<double>({0.5}, {1, 1, 1}));
  d.Attr("hidden_size", int64_t{1});
  Tensor yh = RunOk(d, 1);
  ASSERT_EQ(yh.type(), DataType::kDouble);
  EXPECT_NEAR(yh.data<double>()[0], std::tanh(6.0 + 0.5 * std::tanh(2.0)), 1e-12);
  auto h = Op("RNN", 7).Outputs(2);
  h.Input(T_<Float16>({Float16(1.0f)}, {1, 1, 1}))
      .Input(T_<Float16>({Float16(0.5f)}, {1, 1, 1}))
      .Input(T_<Float16>({Float16(1.0f)}, {1, 1, 1}));
  Tensor hh = RunOk(h, 1);
  ASSERT_EQ(hh.type(), DataType::kFloat16);
  EXPECT_NEAR(static_cast<float>(hh.data<Float16>()[0]), std::tanh(0.5f), 1e-3);
}

TEST(RecurrentRnnTest, EmptyBatchAndEmptySequence) {
  auto b = ReluRnn("forward", F({}, {2, 0, 1}), 1);
  auto out = RunAllTensors(b);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 1, 0, 1}));
  EXPECT_EQ(out[1].shape(), (Shape{1, 0, 1}));
  auto s = ReluRnn("forward", F({}, {0, 1, 1}), 1);
  s.Input(Value()).Input(F({7}, {1, 1, 1}));
  auto so = RunAllTensors(s);
  ASSERT_EQ(so.size(), 2u);
  EXPECT_EQ(so[0].shape(), (Shape{0, 1, 1, 1}));
  ExpectFloats(so[1], {1, 1, 1}, {7});
}

TEST(RecurrentRnnTest, BadAttributesAndShapesAreErrors) {
  ExpectError(ReluRnn("sideways", F({1, 3}, {2, 1, 1}), 1), "direction");
  auto unknown = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  unknown.attributes.back().strings = {"Swish"};
  ExpectError(unknown, "Swish");
  auto count = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  count.attributes.back().strings = {"Relu", "Tanh"};
  ExpectError(count, "activations");
  auto hidden = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  hidden.attributes[0].i = 3;  // hidden_size
  ExpectError(hidden, "hidden_size");
  auto lens = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  lens.Input(I32({3}, {1}));
  ExpectError(lens, "sequence_lens");
  auto dirs = ReluRnn("bidirectional", F({1, 3}, {2, 1, 1}), 1);  // W has one direction
  ExpectError(dirs, "'W'");
  auto rank = ReluRnn("forward", F({1, 3}, {2, 1}), 1);
  ExpectError(rank, "rank 3");
  auto layout = ReluRnn("forward", F({1, 3}, {2, 1, 1}), 1);
  layout.Attr("layout", int64_t{2});
  ExpectError(layout, "layout");
}

// ---- GRU and LSTM, hand-worked with zero weights (every sigmoid gate is 0.5) ----

TEST(RecurrentGruTest, LinearBeforeResetByHand) {
  // H1 = (1 - z) h~ + z H0 with z = r = 0.5, H0 = 2 and only Rbh = 1 set:
  // linear_before_reset=0: h~ = tanh(Rbh) ; =1: h~ = tanh(r * Rbh).
  for (int64_t lbr : {0, 1}) {
    auto t = Op("GRU", 14).Outputs(2);
    t.Input(F({0}, {1, 1, 1}))
        .Input(F({0, 0, 0}, {1, 3, 1}))
        .Input(F({0, 0, 0}, {1, 3, 1}))
        .Input(F({0, 0, 0, 0, 0, 1}, {1, 6}))
        .Input(Value())
        .Input(F({2}, {1, 1, 1}));
    t.Attr("hidden_size", int64_t{1}).Attr("linear_before_reset", lbr);
    const float h_tilde = lbr ? std::tanh(0.5f) : std::tanh(1.0f);
    ExpectFloats(RunOk(t, 1), {1, 1, 1}, {0.5f * h_tilde + 1.0f});
  }
}

TEST(RecurrentLstmTest, InputForgetCouplesGates) {
  // Zero weights, initial_c = 2, forget bias ln 3 (f = 0.75), other gates 0.5, candidate tanh(0) = 0:
  // C1 = f * 2; with input_forget, f = 1 - i = 0.5. H1 = 0.5 tanh(C1).
  for (int64_t coupled : {0, 1}) {
    std::vector<float> b(8, 0.0f);
    b[2] = std::log(3.0f);  // Wb of gate f (order i, o, f, c)
    auto t = Op("LSTM", 14).Outputs(3);
    t.Input(F({0}, {1, 1, 1}))
        .Input(F({0, 0, 0, 0}, {1, 4, 1}))
        .Input(F({0, 0, 0, 0}, {1, 4, 1}))
        .Input(F(b, {1, 8}))
        .Input(Value())
        .Input(Value())
        .Input(F({2}, {1, 1, 1}));
    t.Attr("hidden_size", int64_t{1}).Attr("input_forget", coupled);
    auto out = RunAllTensors(t);
    ASSERT_EQ(out.size(), 3u);
    const float c1 = coupled ? 1.0f : 1.5f;
    ExpectFloats(out[2], {1, 1, 1}, {c1});
    ExpectFloats(out[1], {1, 1, 1}, {0.5f * std::tanh(c1)});
  }
}

TEST(RecurrentLstmTest, ClipAppliesWhereTheCellStateEntersH) {
  // Zero weights, initial_c = 4: C1 = 0.5 * 4 = 2 stays unclipped, H1 = 0.5 tanh(clip(2)) = 0.5 tanh(1).
  auto t = Op("LSTM", 14).Outputs(3);
  t.Input(F({0}, {1, 1, 1}))
      .Input(F({0, 0, 0, 0}, {1, 4, 1}))
      .Input(F({0, 0, 0, 0}, {1, 4, 1}))
      .Input(Value())
      .Input(Value())
      .Input(Value())
      .Input(F({4}, {1, 1, 1}));
  t.Attr("hidden_size", int64_t{1}).Attr("clip", 1.0f);
  auto out = RunAllTensors(t);
  ASSERT_EQ(out.size(), 3u);
  ExpectFloats(out[1], {1, 1, 1}, {0.5f * std::tanh(1.0f)});
  ExpectFloats(out[2], {1, 1, 1}, {2});
}

TEST(RecurrentLstmTest, OnlyCellStateRequested) {
  std::vector<Tensor> inputs = {F({0, 0}, {2, 1, 1}),
                                F({0, 0, 0, 0}, {1, 4, 1}),
                                F({0, 0, 0, 0}, {1, 4, 1}),
                                F(std::vector<float>(8, 0.0f), {1, 8}),
                                I32({2}, {1}),
                                F({0}, {1, 1, 1}),
                                F({2}, {1, 1, 1})};
  auto r = RunWithOutputs("LSTM", 22, {}, inputs, {"", "", "Y_c"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  ExpectFloats((*r)[0].tensor(), {1, 1, 1}, {0.5f});  // 2 * 0.5 * 0.5
}

// ---- GRU and LSTM against a scalar-loop reference (bidirectional, sequence_lens, every optional input) ----

float Val(int i, float scale) { return scale * std::sin(0.37f * static_cast<float>(i) + 0.11f); }
std::vector<float> Series(int n, int seed, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = Val(i + 100 * seed, scale);
  return v;
}
float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

constexpr int kS = 4, kB = 3, kI = 2, kH = 3, kD = 2;
const std::vector<int32_t> kLens = {4, 2, 0};
using Vec = std::array<float, kH>;
using XVec = std::array<float, kI>;

// Y [S, D, B, H] followed by the final states; cell(d, x, h, c, h_out, c_out) runs one step for one entry.
template <typename Cell>
std::vector<float> ReferenceRun(const std::vector<float>& x, const std::vector<float>& h0, const std::vector<float>& c0,
                                Cell cell, std::vector<float>* yh, std::vector<float>* yc) {
  std::vector<float> y(kS * kD * kB * kH, 0.0f);
  yh->assign(kD * kB * kH, 0.0f);
  yc->assign(kD * kB * kH, 0.0f);
  for (int d = 0; d < kD; ++d) {
    for (int b = 0; b < kB; ++b) {
      Vec h, c;
      for (int j = 0; j < kH; ++j) {
        h[static_cast<size_t>(j)] = h0[static_cast<size_t>((d * kB + b) * kH + j)];
        c[static_cast<size_t>(j)] = c0[static_cast<size_t>((d * kB + b) * kH + j)];
      }
      const int len = kLens[static_cast<size_t>(b)];
      for (int step = 0; step < len; ++step) {
        const int t = d == 0 ? step : len - 1 - step;
        XVec xt;
        for (int i = 0; i < kI; ++i) xt[static_cast<size_t>(i)] = x[static_cast<size_t>((t * kB + b) * kI + i)];
        Vec hn, cn;
        cell(d, xt, h, c, hn, cn);
        h = hn;
        c = cn;
        for (int j = 0; j < kH; ++j)
          y[static_cast<size_t>(((t * kD + d) * kB + b) * kH + j)] = h[static_cast<size_t>(j)];
      }
      for (int j = 0; j < kH; ++j) {
        (*yh)[static_cast<size_t>((d * kB + b) * kH + j)] = h[static_cast<size_t>(j)];
        (*yc)[static_cast<size_t>((d * kB + b) * kH + j)] = c[static_cast<size_t>(j)];
      }
    }
  }
  return y;
}

TEST(RecurrentGruTest, MatchesScalarReference) {
  const int G = 3;
  const auto x = Series(kS * kB * kI, 1, 1.0f);
  const auto w = Series(kD * G * kH * kI, 2, 0.6f);
  const auto r = Series(kD * G * kH * kH, 3, 0.6f);
  const auto bias = Series(kD * 2 * G * kH, 4, 0.3f);
  const auto h0 = Series(kD * kB * kH, 5, 0.5f);
  for (int64_t lbr : {0, 1}) {
    auto cell = [&](int d, const XVec& xt, const Vec& h, const Vec&, Vec& hn, Vec&) {
      auto W = [&](int g, int j, int i) { return w[static_cast<size_t>(((d * G + g) * kH + j) * kI + i)]; };
      auto R = [&](int g, int j, int i) { return r[static_cast<size_t>(((d * G + g) * kH + j) * kH + i)]; };
      auto Bw = [&](int g, int j) { return bias[static_cast<size_t>(d * 2 * G * kH + g * kH + j)]; };
      auto Br = [&](int g, int j) { return bias[static_cast<size_t>(d * 2 * G * kH + (G + g) * kH + j)]; };
      Vec z, rr;
      for (int j = 0; j < kH; ++j) {
        float az = Bw(0, j) + Br(0, j), ar = Bw(1, j) + Br(1, j);
        for (int i = 0; i < kI; ++i) az += W(0, j, i) * xt[i], ar += W(1, j, i) * xt[i];
        for (int i = 0; i < kH; ++i) az += R(0, j, i) * h[i], ar += R(1, j, i) * h[i];
        z[j] = Sigmoid(az);
        rr[j] = Sigmoid(ar);
      }
      for (int j = 0; j < kH; ++j) {
        float a = Bw(2, j);
        for (int i = 0; i < kI; ++i) a += W(2, j, i) * xt[i];
        float rec = 0.0f;
        for (int i = 0; i < kH; ++i) rec += R(2, j, i) * (lbr ? h[i] : rr[i] * h[i]);
        a += lbr ? rr[j] * (rec + Br(2, j)) : rec + Br(2, j);
        hn[j] = (1 - z[j]) * std::tanh(a) + z[j] * h[j];
      }
    };
    std::vector<float> yh, yc;
    const auto y = ReferenceRun(x, h0, h0, cell, &yh, &yc);
    auto t = Op("GRU", 22).Outputs(2);
    t.Input(F(x, {kS, kB, kI}))
        .Input(F(w, {kD, G * kH, kI}))
        .Input(F(r, {kD, G * kH, kH}))
        .Input(F(bias, {kD, 2 * G * kH}))
        .Input(I32(kLens, {kB}))
        .Input(F(h0, {kD, kB, kH}));
    t.Attr("hidden_size", int64_t{kH}).Attr("direction", std::string("bidirectional")).Attr("linear_before_reset", lbr);
    ExpectYAndYh(t, {kS, kD, kB, kH}, y, {kD, kB, kH}, yh);
    t.constant_inputs = {1, 2};  // W and R as initializers: the kernel packs them once
    ExpectYAndYh(t, {kS, kD, kB, kH}, y, {kD, kB, kH}, yh);
  }
}

TEST(RecurrentLstmTest, MatchesScalarReferenceWithPeepholes) {
  const int G = 4;
  const auto x = Series(kS * kB * kI, 11, 1.0f);
  const auto w = Series(kD * G * kH * kI, 12, 0.6f);
  const auto r = Series(kD * G * kH * kH, 13, 0.6f);
  const auto bias = Series(kD * 2 * G * kH, 14, 0.3f);
  const auto h0 = Series(kD * kB * kH, 15, 0.5f);
  const auto c0 = Series(kD * kB * kH, 16, 0.5f);
  const auto p = Series(kD * 3 * kH, 17, 0.4f);
  auto cell = [&](int d, const XVec& xt, const Vec& h, const Vec& c, Vec& hn, Vec& cn) {
    auto pre = [&](int g, int j) {
      float a = bias[static_cast<size_t>(d * 2 * G * kH + g * kH + j)] +
                bias[static_cast<size_t>(d * 2 * G * kH + (G + g) * kH + j)];
      for (int i = 0; i < kI; ++i) a += w[static_cast<size_t>(((d * G + g) * kH + j) * kI + i)] * xt[i];
      for (int i = 0; i < kH; ++i) a += r[static_cast<size_t>(((d * G + g) * kH + j) * kH + i)] * h[i];
      return a;
    };
    auto P = [&](int g, int j) { return p[static_cast<size_t>(d * 3 * kH + g * kH + j)]; };
    for (int j = 0; j < kH; ++j) {
      const float i_g = Sigmoid(pre(0, j) + P(0, j) * c[j]);
      const float f_g = Sigmoid(pre(2, j) + P(2, j) * c[j]);
      cn[j] = f_g * c[j] + i_g * std::tanh(pre(3, j));
      const float o_g = Sigmoid(pre(1, j) + P(1, j) * cn[j]);
      hn[j] = o_g * std::tanh(cn[j]);
    }
  };
  std::vector<float> yh, yc;
  const auto y = ReferenceRun(x, h0, c0, cell, &yh, &yc);
  auto t = Op("LSTM", 7).Outputs(3);
  t.Input(F(x, {kS, kB, kI}))
      .Input(F(w, {kD, G * kH, kI}))
      .Input(F(r, {kD, G * kH, kH}))
      .Input(F(bias, {kD, 2 * G * kH}))
      .Input(I32(kLens, {kB}))
      .Input(F(h0, {kD, kB, kH}))
      .Input(F(c0, {kD, kB, kH}))
      .Input(F(p, {kD, 3 * kH}));
  t.Attr("hidden_size", int64_t{kH}).Attr("direction", std::string("bidirectional"));
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "W and R initializers" : "W and R fed");
    if (constant) t.constant_inputs = {1, 2};
    auto out = RunAllTensors(t);
    ASSERT_EQ(out.size(), 3u);
    ExpectFloats(out[0], {kS, kD, kB, kH}, y);
    ExpectFloats(out[1], {kD, kB, kH}, yh);
    ExpectFloats(out[2], {kD, kB, kH}, yc);
  }
}

// Constant W and R take the prepacked products (several panels and a partial one at H = 45, a batch of 3 rows and
// of 1); fed ones oneDNN's sgemm; on 2 threads a batch with the work for it is split into groups of entries that run
// the whole sequence each. Every way must give the outputs of fed weights on 1 thread to float rounding, for every
// cell and option.
TEST(RecurrentTest, PackedWeightsAndBatchGroupsMatchTheSingleThreadedProduct) {
  constexpr int64_t I = 19, D = 2;
  struct Variant {
    const char* op;
    int64_t gates;
    int64_t linear_before_reset;
    bool peepholes_and_clip;
    int64_t input_forget;
  };
  const Variant variants[] = {{"RNN", 1, 0, false, 0},  {"GRU", 3, 0, false, 0}, {"GRU", 3, 1, true, 0},
                              {"LSTM", 4, 0, false, 0}, {"LSTM", 4, 0, true, 0}, {"LSTM", 4, 0, true, 1}};
  struct Size {
    int64_t S, B, H;
    std::vector<int32_t> lens;
  };
  // The last: 2 * S * B * 4H * H = 3.5 MFLOP for LSTM, enough for 2 groups of 2 entries.
  const Size sizes[] = {{7, 3, 45, {7, 3, 5}}, {7, 1, 45, {6}}, {12, 4, 96, {12, 5, 12, 9}}};
  for (const Size& z : sizes) {
    for (const Variant& v : variants) {
      SCOPED_TRACE(std::string(v.op) + " batch " + std::to_string(z.B) + " hidden " + std::to_string(z.H) + " lbr " +
                   std::to_string(v.linear_before_reset) + (v.peepholes_and_clip ? " peepholes+clip" : "") +
                   (v.input_forget ? " input_forget" : ""));
      const int64_t G = v.gates, S = z.S, B = z.B, H = z.H;
      auto t = Op(v.op, 22).Outputs(std::string(v.op) == "LSTM" ? 3 : 2);
      t.Input(NormalTensor({S, B, I}, 1))
          .Input(NormalTensor({D, G * H, I}, 2))
          .Input(NormalTensor({D, G * H, H}, 3))
          .Input(NormalTensor({D, 2 * G * H}, 4))
          .Input(I32(z.lens, {B}))
          .Input(NormalTensor({D, B, H}, 5));
      // Weights scaled as trained ones are, so that the pre-activations are not all saturated.
      for (size_t i = 1; i <= 2; ++i) {
        Tensor& m = t.inputs[i].tensor();
        for (int64_t k = 0; k < m.size(); ++k) m.data<float>()[k] *= 0.2f;
      }
      if (std::string(v.op) == "LSTM") {
        t.Input(NormalTensor({D, B, H}, 6));
        if (v.peepholes_and_clip) t.Input(NormalTensor({D, 3 * H}, 7));
        t.Attr("input_forget", v.input_forget);
      }
      if (std::string(v.op) == "GRU") t.Attr("linear_before_reset", v.linear_before_reset);
      if (v.peepholes_and_clip) t.Attr("clip", 1.5f);
      t.Attr("hidden_size", H).Attr("direction", std::string("bidirectional"));
      t.options.intra_op_num_threads = 1;
      const std::vector<Tensor> want = RunAllTensors(t);
      for (int threads : {1, 2}) {
        for (bool constant : {false, true}) {
          if (threads == 1 && !constant) continue;
          SCOPED_TRACE(std::to_string(threads) + " threads, W and R " + (constant ? "initializers" : "fed"));
          t.options.intra_op_num_threads = threads;
          t.constant_inputs = constant ? std::vector<size_t>{1, 2} : std::vector<size_t>{};
          const std::vector<Tensor> got = RunAllTensors(t);
          ASSERT_EQ(got.size(), want.size());
          for (size_t o = 0; o < want.size(); ++o) {
            ASSERT_EQ(got[o].shape(), want[o].shape());
            for (int64_t k = 0; k < want[o].size(); ++k) {
              const float a = want[o].data<float>()[k], b = got[o].data<float>()[k];
              ASSERT_NEAR(a, b, 2e-5f * (1.0f + std::fabs(a))) << "output " << o << " at " << k;
            }
          }
        }
      }
    }
  }
}

// One batch entry whose per-step product has the work for two threads (R of 1 MB or more), one direction: the steps
// run inside one parallel region, each thread computing its share of the product's columns and of the gates'
// units. The outputs must be those of one thread bit for bit, for every cell and option, forward and reverse, with a
// sequence length shorter than the sequence (padding steps).
TEST(RecurrentTest, StepsSplitOverThreadsGiveTheSingleThreadedBits) {
  constexpr int64_t I = 23, S = 6;
  struct Variant {
    const char* op;
    int64_t gates, hidden;
    int64_t linear_before_reset;
    bool peepholes_and_clip;
  };
  const Variant variants[] = {{"RNN", 1, 520, 0, false},
                              {"GRU", 3, 300, 0, false},
                              {"GRU", 3, 300, 1, true},
                              {"LSTM", 4, 260, 0, false},
                              {"LSTM", 4, 260, 0, true}};
  for (const Variant& v : variants) {
    for (const char* direction : {"forward", "reverse"}) {
      SCOPED_TRACE(std::string(v.op) + " " + direction + " lbr " + std::to_string(v.linear_before_reset) +
                   (v.peepholes_and_clip ? " peepholes+clip" : ""));
      const int64_t G = v.gates, H = v.hidden;
      auto t = Op(v.op, 22).Outputs(std::string(v.op) == "LSTM" ? 3 : 2);
      t.Input(NormalTensor({S, 1, I}, 11))
          .Input(NormalTensor({1, G * H, I}, 12))
          .Input(NormalTensor({1, G * H, H}, 13))
          .Input(NormalTensor({1, 2 * G * H}, 14))
          .Input(I32({5}, {1}))
          .Input(NormalTensor({1, 1, H}, 15));
      for (size_t i = 1; i <= 2; ++i) {  // scaled as trained weights are (pre-activations not all saturated)
        Tensor& m = t.inputs[i].tensor();
        for (int64_t k = 0; k < m.size(); ++k) m.data<float>()[k] *= 0.05f;
      }
      if (std::string(v.op) == "LSTM") {
        t.Input(NormalTensor({1, 1, H}, 16));
        if (v.peepholes_and_clip) t.Input(NormalTensor({1, 3 * H}, 17));
      }
      if (std::string(v.op) == "GRU") t.Attr("linear_before_reset", v.linear_before_reset);
      if (v.peepholes_and_clip) t.Attr("clip", 1.5f);
      t.Attr("hidden_size", H).Attr("direction", std::string(direction));
      t.constant_inputs = {1, 2};
      t.options.intra_op_num_threads = 1;
      const std::vector<Tensor> want = RunAllTensors(t);
      t.options.intra_op_num_threads = 2;
      const std::vector<Tensor> got = RunAllTensors(t);
      ASSERT_EQ(got.size(), want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        ASSERT_EQ(got[o].shape(), want[o].shape());
        for (int64_t k = 0; k < want[o].size(); ++k) {
          uint32_t a, b;
          std::memcpy(&a, want[o].data<float>() + k, 4);
          std::memcpy(&b, got[o].data<float>() + k, 4);
          ASSERT_EQ(a, b) << "output " << o << " at " << k << ": " << want[o].data<float>()[k] << " vs "
                          << got[o].data<float>()[k];
        }
      }
    }
  }
}

// ---- Einsum ----

OpTest Einsum(const std::string& equation) {
  auto t = Op("Einsum", 12);
  t.Attr("equation", equation);
  return t;
}

TEST(RecurrentEinsumTest, MatMulExplicitAndImplicit) {
  for (const std::string eq : {"ij,jk->ik", "ij,jk", " i j , j k -> i k "}) {
    auto t = Einsum(eq);
    t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(F({1, 0, 0, 1, 1, 1}, {3, 2}));
    ExpectFloats(RunOk(t), {2, 2}, {4, 5, 10, 11});
  }
}

TEST(RecurrentEinsumTest, ImplicitOutputIsSortedByCharacterCode) {
  // "ba" implies "ab": a transpose. "bA" implies "Ab" (upper case sorts first): also a transpose.
  for (const std::string eq : {"ba", "bA"}) {
    auto t = Einsum(eq);
    t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3}));
    ExpectFloats(RunOk(t), {3, 2}, {1, 4, 2, 5, 3, 6});
  }
}

TEST(RecurrentEinsumTest, TraceAndDiagonal) {
  const Tensor m = F({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  ExpectFloats(RunOk(Einsum("ii").Input(m)), {}, {15});
  ExpectFloats(RunOk(Einsum("ii->i").Input(m)), {3}, {1, 5, 9});
  // A label repeated three times in a [2, 2, 2] cube: its main diagonal.
  ExpectFloats(RunOk(Einsum("iii->i").Input(F({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}))), {2}, {1, 8});
  // Diagonal of the first operand contracted with the second.
  ExpectFloats(RunOk(Einsum("ii,i->").Input(m).Input(F({1, 1, 2}, {3}))), {}, {24});
}

TEST(RecurrentEinsumTest, EllipsisBroadcastsBatchDimensions) {
  // [1, 2, 2] x [3, 2, 2]: the first operand's batch of one is broadcast.
  std::vector<float> b(12);
  for (int i = 0; i < 12; ++i) b[static_cast<size_t>(i)] = static_cast<float>(i);
  auto t = Einsum("...ij,...jk->...ik");
  t.Input(F({1, 0, 0, 2}, {1, 2, 2})).Input(F(b, {3, 2, 2}));
  ExpectFloats(RunOk(t), {3, 2, 2}, {0, 1, 4, 6, 4, 5, 12, 14, 8, 9, 20, 22});
  // Implicit output with an ellipsis: the ellipsis axes come first, then the single labels.
  auto imp = Einsum("i...");
  imp.Input(F({1, 2, 3, 4, 5, 6}, {2, 3}));
  ExpectFloats(RunOk(imp), {3, 2}, {1, 4, 2, 5, 3, 6});
  // Ellipsis of different widths, and summed because the explicit output leaves it out.
  auto sum = Einsum("...i,i->i");
  sum.Input(F({1, 2, 3, 4, 5, 6}, {1, 3, 2})).Input(F({10, 1}, {2}));
  ExpectFloats(RunOk(sum), {2}, {90, 12});
}

TEST(RecurrentEinsumTest, ChainsOuterProductsAndSums) {
  auto chain = Einsum("ij,jk,kl->il");
  chain.Input(F({1, 2}, {1, 2})).Input(F({1, 0, 0, 1}, {2, 2})).Input(F({3, 4}, {2, 1}));
  ExpectFloats(RunOk(chain), {1, 1}, {11});
  auto outer = Einsum("i,j->ij");
  outer.Input(F({1, 2}, {2})).Input(F({3, 4, 5}, {3}));
  ExpectFloats(RunOk(outer), {2, 3}, {3, 4, 5, 6, 8, 10});
  ExpectFloats(RunOk(Einsum("ij->").Input(F({1, 2, 3, 4}, {2, 2}))), {}, {10});
  ExpectFloats(RunOk(Einsum("ij->j").Input(F({1, 2, 3, 4}, {2, 2}))), {2}, {4, 6});
  // Batched contraction keeping a label shared by all three operands.
  auto batch = Einsum("bi,bi,b->b");
  batch.Input(F({1, 2, 3, 4}, {2, 2})).Input(F({1, 1, 2, 2}, {2, 2})).Input(F({2, 3}, {2}));
  ExpectFloats(RunOk(batch), {2}, {6, 42});
  // i links the first and third operands past the second; everything is summed in the end: trace(A C^T).
  auto linked = Einsum("ij,jk,ik->");
  linked.Input(F({1, 2, 3, 4}, {2, 2})).Input(F({1, 0, 0, 1}, {2, 2})).Input(F({1, 0, 1, 1}, {2, 2}));
  ExpectFloats(RunOk(linked), {}, {8});
  auto scalar = Einsum(",->");
  scalar.Input(F({3}, {})).Input(F({4}, {}));
  ExpectFloats(RunOk(scalar), {}, {12});
}

TEST(RecurrentEinsumTest, IntegersWrapLikeNumpy) {
  auto t = Einsum("i,i->");
  t.Input(T_<int8_t>({100, 100}, {2})).Input(T_<int8_t>({2, 2}, {2}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt8);
  EXPECT_EQ(Values<int8_t>(y), (std::vector<int8_t>{-112}));  // 400 mod 256
  auto u = Einsum("ij->i");
  u.Input(T_<uint64_t>({std::numeric_limits<uint64_t>::max(), 2}, {1, 2}));
  EXPECT_EQ(Values<uint64_t>(RunOk(u)), (std::vector<uint64_t>{1}));
  auto l = Einsum("ij,jk->ik");
  l.Input(T_<int64_t>({1, 2, 3, 4}, {2, 2})).Input(T_<int64_t>({5, 6, 7, 8}, {2, 2}));
  EXPECT_EQ(Values<int64_t>(RunOk(l)), (std::vector<int64_t>{19, 22, 43, 50}));
}

TEST(RecurrentEinsumTest, EmptyAxes) {
  auto t = Einsum("ij,jk->ik");
  t.Input(F({}, {2, 0})).Input(F({}, {0, 3}));
  ExpectFloats(RunOk(t), {2, 3}, {0, 0, 0, 0, 0, 0});
  auto e = Einsum("ij,jk->ik");
  e.Input(F({}, {0, 2})).Input(F({1, 2, 3, 4}, {2, 2}));
  EXPECT_EQ(RunOk(e).shape(), (Shape{0, 2}));
}

TEST(RecurrentEinsumTest, Float16AndDouble) {
  auto h = Einsum("i,i");
  h.Input(T_<Float16>({Float16(1.5f), Float16(2.0f)}, {2})).Input(T_<Float16>({Float16(2.0f), Float16(0.25f)}, {2}));
  Tensor y = RunOk(h);
  ASSERT_EQ(y.type(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 3.5f);
  auto d = Einsum("ij->ji");
  d.Input(T_<double>({1, 2}, {1, 2}));
  EXPECT_EQ(Values<double>(RunOk(d)), (std::vector<double>{1, 2}));
}

// Float Einsums that are batched matrix products as the operands lie (the direct batched-GEMM path, transposed
// operands included) and some that are not, against the same equations in double (the general path: operands
// copied, permuted and contracted pairwise).
TEST(RecurrentEinsumTest, BatchedProductsMatchTheGeneralPath) {
  struct Case {
    std::string equation;
    Shape a, b;
  };
  const Case cases[] = {
      {"BGHID,BGHJD->BGHIJ", {1, 3, 2, 7, 5}, {1, 3, 2, 6, 5}},  // attention scores: B transposed
      {"BGHIJ,BGHJD->BGHID", {1, 3, 2, 7, 6}, {1, 3, 2, 6, 5}},  // attention output
      {"bji,bjk->bik", {4, 3, 5}, {4, 3, 2}},                    // A transposed
      {"bji,bkj->bik", {4, 3, 5}, {4, 2, 3}},                    // both
      {"ij,jk->ik", {5, 4}, {4, 3}},
      {"ij,j->i", {5, 4}, {4}},
      {"i,i->", {6}, {6}},
      {"...ij,...jk->...ik", {2, 3, 4, 5}, {2, 3, 5, 2}},
      {"bij,bjk->bki", {2, 3, 4}, {2, 4, 5}},          // output transposed: the general path
      {"bijc,bjkc->bik", {2, 3, 4, 2}, {2, 4, 5, 2}},  // two contracted labels apart: general
      {"ij,ik->jk", {3, 4}, {3, 5}},
      {"bij,jk->bik", {2, 3, 4}, {4, 5}},  // batch only in A: general
  };
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const Case& c : cases) {
    auto fill = [&](const Shape& shape) {
      std::vector<float> v(static_cast<size_t>(NumElements(shape)));
      for (float& x : v) x = dist(rng);
      return v;
    };
    const std::vector<float> a = fill(c.a), b = fill(c.b);
    const Tensor y = RunOk(Einsum(c.equation).Input(F(a, c.a)).Input(F(b, c.b)));
    const std::vector<double> da(a.begin(), a.end()), db(b.begin(), b.end());
    const Tensor want = RunOk(Einsum(c.equation).Input(T_<double>(da, c.a)).Input(T_<double>(db, c.b)));
    ASSERT_EQ(y.shape(), want.shape()) << c.equation;
    const std::vector<double> w = Values<double>(want);
    for (int64_t i = 0; i < y.size(); ++i) {
      ASSERT_NEAR(y.data<float>()[i], w[static_cast<size_t>(i)], 1e-5) << c.equation << " at " << i;
    }
  }
}

TEST(RecurrentEinsumTest, BadEquationsAreErrors) {
  const Tensor m = F({1, 2, 3, 4}, {2, 2});
  ExpectError(Einsum("ij,jk->ik").Input(m), "input terms");
  ExpectError(Einsum("i1->i").Input(F({1}, {1})), "'1'");
  ExpectError(Einsum("ij->k").Input(m), "'k'");
  ExpectError(Einsum("ij->ii").Input(m), "repeats");
  ExpectError(Einsum("ijk->i").Input(m), "labels");
  ExpectError(Einsum("ii->i").Input(F({1, 2, 3, 4, 5, 6}, {2, 3})), "repeated label");
  ExpectError(Einsum("ij,ij->ij").Input(m).Input(F({1, 2, 3, 4, 5, 6}, {2, 3})), "dimension");
  ExpectError(Einsum("i..j->i").Input(m), "'.'");
  ExpectError(Einsum("...i...->i").Input(m), "more than one ellipsis");
  ExpectError(Einsum("i->i->i").Input(F({1}, {1})), "'->'");
}

// ---- Det ----

TEST(RecurrentDetTest, PivotingBatchesAndSingular) {
  ExpectFloats(RunOk(Op("Det", 11).Input(F({0, 1, 1, 0}, {2, 2}))), {}, {-1});
  // A zero in the first pivot position: 0 - 2 (1 - 3) + (0 - 3) = 1.
  ExpectFloats(RunOk(Op("Det", 11).Input(F({0, 2, 1, 1, 1, 1, 3, 0, 1}, {3, 3}))), {}, {1});
  ExpectFloats(RunOk(Op("Det", 22).Input(F({1, 2, 2, 4, 3, 0, 0, 3}, {2, 2, 2}))), {2}, {0, 9});
  ExpectFloats(RunOk(Op("Det", 11).Input(F({-7}, {1, 1}))), {}, {-7});
  ExpectFloats(RunOk(Op("Det", 11).Input(F({}, {0, 0}))), {}, {1});
  EXPECT_EQ(RunOk(Op("Det", 11).Input(F({}, {0, 3, 3}))).shape(), (Shape{0}));
  Tensor d = RunOk(Op("Det", 11).Input(T_<double>({1e-200, 0, 0, 1e-200}, {2, 2})));
  ASSERT_EQ(d.type(), DataType::kDouble);
  EXPECT_EQ(d.data<double>()[0], 0.0);  // underflows, as numpy's does
}

TEST(RecurrentDetTest, NonSquareIsAnError) {
  ExpectError(Op("Det", 11).Input(F({1, 2, 3, 4, 5, 6}, {2, 3})), "square");
  ExpectError(Op("Det", 11).Input(F({1, 2}, {2})), "square");
}

}  // namespace
}  // namespace onyx
