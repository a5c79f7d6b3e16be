// Elementwise chains: the program kernel (machine code and interpreter) against the steps run one at a time, and the
// fusion on whole graphs, whose outputs must be the unfused graph's bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/elementwise_jit.h"
#include "kernels/elementwise_program.h"
#include "kernels/vector_math.h"
#include "optimizer/elementwise_chain_fusion.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

using kernels::ElementwiseStep;
using Op = ElementwiseStep::Op;

// Inputs that meet every corner of the steps: NaN, infinities, signed zeros, subnormals, huge and ordinary values.
std::vector<float> SpecialInputs(size_t n, uint64_t seed) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            3e38f,
                            -3e38f,
                            3.0f,
                            -3.0f,
                            6.0f};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-8.0f, 8.0f);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = i % 5 == 0 ? specials[(i / 5) % std::size(specials)] : real(rng);
  return x;
}

// The steps one at a time over whole arrays, each as the standalone operator computes it.
std::vector<float> Reference(const std::vector<ElementwiseStep>& steps, const std::vector<float>& x) {
  std::vector<std::vector<float>> regs{x};
  for (const ElementwiseStep& s : steps) {
    std::vector<float> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float a = s.a_is_constant ? s.a_value : regs[static_cast<size_t>(s.a)][i];
      const float b = !kernels::IsBinary(s.op) ? 0.0f : s.b_is_constant ? s.b_value : regs[static_cast<size_t>(s.b)][i];
      switch (s.op) {
        case Op::kAdd:
          out[i] = a + b;
          break;
        case Op::kSub:
          out[i] = a - b;
          break;
        case Op::kMul:
          out[i] = a * b;
          break;
        case Op::kDiv:
          out[i] = a / b;
          break;
        case Op::kClampBelow:
          out[i] = a < b ? b : a;
          break;
        case Op::kClampAbove:
          out[i] = a > b ? b : a;
          break;
        case Op::kReplaceNaN:
          out[i] = std::isnan(a) ? b : a;
          break;
        case Op::kRoundEven:
          out[i] = std::nearbyint(a) + 0.0f;
          break;
        default:
          break;
      }
    }
    if (s.op == Op::kSigmoid) kernels::Sigmoid(regs[static_cast<size_t>(s.a)].data(), out.data(), ssize(out));
    if (s.op == Op::kTanh) kernels::Tanh(regs[static_cast<size_t>(s.a)].data(), out.data(), ssize(out));
    regs.push_back(std::move(out));
  }
  return regs.back();
}

// Bit for bit, NaN matching any NaN.
void ExpectSameBits(const std::vector<float>& want, const float* got, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    uint32_t a, b;
    std::memcpy(&a, &want[i], 4);
    std::memcpy(&b, &got[i], 4);
    ASSERT_EQ(a, b) << what << ": element " << i << " want " << want[i] << " got " << got[i];
  }
}

ElementwiseStep Binary(Op op, int a, int b) { return ElementwiseStep{op, a, b, false, false, 0, 0}; }
ElementwiseStep WithConstant(Op op, int a, float c) { return ElementwiseStep{op, a, 0, false, true, 0, c}; }
ElementwiseStep ConstantFirst(Op op, float c, int b) { return ElementwiseStep{op, 0, b, true, false, c, 0}; }

TEST(ElementwiseProgram, MatchesTheStepsOneAtATime) {
  const std::vector<std::vector<ElementwiseStep>> programs = {
      // TensorFlow's hard-swish: (c * x) * clamp(x + 3, 0, 6)
      {ConstantFirst(Op::kMul, 0.16662598f, 0), WithConstant(Op::kAdd, 0, 3.0f), WithConstant(Op::kClampBelow, 2, 0.0f),
       WithConstant(Op::kClampAbove, 3, 6.0f), Binary(Op::kMul, 1, 4)},
      // constants on either side of the non-commutative steps, a value read by many steps, x * x
      {ConstantFirst(Op::kSub, 1.5f, 0), ConstantFirst(Op::kDiv, -2.0f, 1), WithConstant(Op::kDiv, 0, 3.0f),
       Binary(Op::kSub, 2, 3), Binary(Op::kMul, 0, 0), Binary(Op::kAdd, 4, 5), Binary(Op::kClampBelow, 6, 1),
       Binary(Op::kClampAbove, 7, 0)},
      // a QuantizeLinear -> DequantizeLinear pair (int8, zero point 3), and RoundEven of everything, huge and
      // infinite values included
      {WithConstant(Op::kDiv, 0, 0.37f), WithConstant(Op::kReplaceNaN, 1, 0.0f),
       WithConstant(Op::kClampBelow, 2, -131.0f), WithConstant(Op::kClampAbove, 3, 124.0f),
       ElementwiseStep{Op::kRoundEven, 4}, WithConstant(Op::kMul, 5, 0.37f), ElementwiseStep{Op::kRoundEven, 0},
       Binary(Op::kAdd, 6, 7)},
      // Sigmoid and Tanh (the interpreter alone)
      {ElementwiseStep{Op::kSigmoid, 0}, Binary(Op::kMul, 0, 1), ElementwiseStep{Op::kTanh, 2}},
  };
  // More live values than the machine code has registers: it declines, the interpreter runs.
  std::vector<ElementwiseStep> wide;
  for (int k = 0; k < 17; ++k) wide.push_back(WithConstant(Op::kAdd, 0, static_cast<float>(k)));
  for (int k = 0; k < 6; ++k) wide.push_back(Binary(Op::kMul, 17 + k, k + 1));
  std::vector<std::vector<ElementwiseStep>> all = programs;
  all.push_back(wide);
  for (size_t p = 0; p < all.size(); ++p) {
    kernels::ElementwiseProgram program(all[p]);
    if (p < 3) {
      EXPECT_EQ(program.compiled(), kernels::EffectiveIsa() != kernels::Isa::kOther) << "program " << p;
    } else {
      EXPECT_FALSE(program.compiled()) << "program " << p;
    }
    for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{255}, size_t{1000}, size_t{4099}}) {
      const std::vector<float> x = SpecialInputs(n, n + p);
      const std::vector<float> want = Reference(all[p], x);
      std::vector<float> y(n, -1.0f);
      program.Run(x.data(), y.data(), static_cast<int64_t>(n));
      ExpectSameBits(want, y.data(), "program " + std::to_string(p) + " n " + std::to_string(n));
      kernels::InterpretElementwiseProgram(all[p], x.data(), y.data(), static_cast<int64_t>(n));
      ExpectSameBits(want, y.data(), "interpreted program " + std::to_string(p));
      std::vector<float> in_place = x;
      program.Run(in_place.data(), in_place.data(), static_cast<int64_t>(n));
      ExpectSameBits(want, in_place.data(), "in place, program " + std::to_string(p));
    }
  }
}

// A QuantizeLinear -> DequantizeLinear pair's steps at and beside x = (k + 1/2) * scale, where a quotient computed
// any other way than one division (a product by 1/scale: tried in the machine code, slower there anyway) rounds
// to the other integer, and exact ties go to the even one.
TEST(ElementwiseProgram, QuantizationNearTiesRoundsAsTheDivision) {
  for (float scale : {0.37f, 0.0371f, 1.0f / 3.0f, 0.1f, 7.0f}) {
    const std::vector<ElementwiseStep> steps = {
        WithConstant(Op::kDiv, 0, scale),          WithConstant(Op::kReplaceNaN, 1, 0.0f),
        WithConstant(Op::kClampBelow, 2, -128.0f), WithConstant(Op::kClampAbove, 3, 127.0f),
        ElementwiseStep{Op::kRoundEven, 4},        WithConstant(Op::kMul, 5, scale)};
    std::vector<float> x;
    for (int k = -140; k <= 140; ++k) {
      float tie = (static_cast<float>(k) + 0.5f) * scale;
      for (int ulps = 0; ulps < 4; ++ulps) {
        x.push_back(tie);
        x.push_back(std::nextafter(tie, -1e30f));
        tie = std::nextafter(tie, 1e30f);
      }
    }
    kernels::ElementwiseProgram program(steps);
    std::vector<float> y(x.size());
    program.Run(x.data(), y.data(), ssize(x));
    ExpectSameBits(Reference(steps, x), y.data(), "scale " + std::to_string(scale));
  }
}

ir::Model Parse(const std::string& text) {
  auto m = text::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

int CountOp(const ir::Model& m, const std::string& op) {
  int n = 0;
  for (const auto& node : m.graph.nodes) n += node.op_type == op ? 1 : 0;
  return n;
}

// Chains the fusion takes (y: hard-swish with TF's float16 1/6; z: Relu -> Clip(opset 11 bounds) -> Div; w: swish,
// x * sigmoid(x), no constant: x's declared type says float) and ones it must leave: `keep` (its intermediate `t` is
// also a graph output), `two` (reads x and v), `lone` (one node), `u2` (its intermediate `u` is read by a Neg too).
// QuantizeLinear -> DequantizeLinear pairs join: `qd` (int8, zero point 3, then Relu), `qu` (uint8 without a zero
// point, alone: two nodes), not `qk` (its 8-bit value is a graph output too).
constexpr const char* kChains = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3, 5, 7] x, float[2, 3, 5, 7] v) => (float[2, 3, 5, 7] y, float[2, 3, 5, 7] z, float[2, 3, 5, 7] w,
    float[2, 3, 5, 7] keep, float[2, 3, 5, 7] t, float[2, 3, 5, 7] two, float[2, 3, 5, 7] lone,
    float[1, 2, 3, 5, 7] r5, float[2, 3, 5, 7] u2, float[2, 3, 5, 7] other, float[2, 3, 5, 7] qd,
    float[2, 3, 5, 7] qu, float[2, 3, 5, 7] qk, int8[2, 3, 5, 7] q8)
    <float c = {0.16662598}, float three = {3.0}, float zero = {0.0}, float six = {6.0}, float lo = {-1.5},
     float[1, 1, 1, 1, 1] k5 = {2.0}, float qs = {0.0371}, int8 qz = {3}> {
  n = Neg(x)
  m = Mul(c, n)
  a = Add(n, three)
  r = Clip(a, zero, six)
  y = Mul(m, r)
  q = Relu(n)
  cl = Clip(q, lo)
  z = Div(cl, six)
  s = Sigmoid(n)
  w = Mul(n, s)
  t = Sub(n, three)
  keep = Mul(t, t)
  d = Sub(n, v)
  two = Mul(d, n)
  lone = Tanh(n)
  p5 = Mul(n, k5)
  r5 = Sub(p5, three)
  u = Relu(n)
  u2 = Mul(u, three)
  other = Neg(u)
  q1 = QuantizeLinear(n, qs, qz)
  d1 = DequantizeLinear(q1, qs, qz)
  qd = Relu(d1)
  q2 = QuantizeLinear(n, qs)
  qu = DequantizeLinear(q2, qs)
  q8 = QuantizeLinear(x, qs, qz)
  qk = DequantizeLinear(q8, qs, qz)
}
)";

TEST(ElementwiseChainFusion, FusesChainsReadingOneTensor) {
  ir::Model m = Parse(kChains);
  auto fused = optimizer::FuseElementwiseChains(m);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(*fused, 6);  // y, z, w, r5, qd, qu
  EXPECT_EQ(CountOp(m, "FusedElementwise"), 6);
  EXPECT_EQ(CountOp(m, "QuantizeLinear"), 1);  // q8 (a graph output)
  EXPECT_EQ(CountOp(m, "DequantizeLinear"), 1);
  EXPECT_EQ(CountOp(m, "Clip"), 0);
  EXPECT_EQ(CountOp(m, "Sigmoid"), 0);
  EXPECT_EQ(CountOp(m, "Add"), 0);
  EXPECT_EQ(CountOp(m, "Mul"), 3);   // keep, two, u2
  EXPECT_EQ(CountOp(m, "Relu"), 1);  // u
  EXPECT_EQ(CountOp(m, "Sub"), 2);   // t (read as a graph output too), d (two tensors)
  EXPECT_EQ(CountOp(m, "Tanh"), 1);  // alone
}

// The session fuses the chains (at level extended and up); its outputs must be the unfused graph's bits, shapes
// included (r5 broadcasts to rank 5 through its constant).
TEST(ElementwiseChainFusion, GivesTheUnfusedBits) {
  ir::Model m = Parse(kChains);
  std::vector<std::pair<std::string, Value>> feeds;
  for (const char* name : {"x", "v"}) {
    Tensor t = Tensor::Allocate(DataType::kFloat, {2, 3, 5, 7});
    const std::vector<float> values = SpecialInputs(static_cast<size_t>(t.size()), name[0]);
    std::memcpy(t.data<float>(), values.data(), values.size() * sizeof(float));
    feeds.emplace_back(name, Value(std::move(t)));
  }
  auto run = [&](optimizer::OptLevel level, int threads) {
    SessionOptions so;
    so.optimization_level = level;
    so.intra_op_num_threads = threads;
    auto s = Session::Create(m, so);
    EXPECT_TRUE(s.ok()) << s.status().message();
    std::vector<Value> out;
    if (s.ok()) {
      EXPECT_TRUE((*s)->Run(feeds, {}, &out).ok());
    }
    return out;
  };
  const std::vector<Value> want = run(optimizer::OptLevel::kDisabled, 1);
  for (int threads : {1, 2}) {
    const std::vector<Value> got = run(optimizer::OptLevel::kAll, threads);
    ASSERT_EQ(want.size(), got.size());
    for (size_t o = 0; o < want.size(); ++o) {
      const Tensor& a = want[o].tensor();
      const Tensor& b = got[o].tensor();
      ASSERT_EQ(a.shape(), b.shape()) << "output " << o;
      if (a.type() != DataType::kFloat) continue;  // q8, the 8-bit graph output: the same unfused node on both sides
      ExpectSameBits(std::vector<float>(a.data<float>(), a.data<float>() + a.size()), b.data<float>(),
                     "output " + std::to_string(o) + " at " + std::to_string(threads) + " threads");
    }
  }
}

// Clip keeps its input's shape whatever its bounds' shape; a one-element Mul constant broadcasts. A scalar input
// shows both: a [1] bound leaves the chain's result a scalar until the [1, 1] constant makes it [1, 1].
TEST(ElementwiseChainFusion, ClipBoundsDoNotBroadcastTheResult) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float x) => (float y, float[1, 1] z) <float[1] lo = {-0.5}, float[1] lo2 = {-0.25}, float[1, 1] two = {2.0}> {
  n = Neg(x)
  c = Clip(n, lo)
  y = Relu(c)
  c2 = Clip(n, lo2)
  z = Mul(c2, two)
}
)");
  std::vector<std::pair<std::string, Value>> feeds;
  Tensor x = Tensor::Allocate(DataType::kFloat, {});
  x.data<float>()[0] = 0.75f;
  feeds.emplace_back("x", Value(std::move(x)));
  for (auto level : {optimizer::OptLevel::kDisabled, optimizer::OptLevel::kAll}) {
    SessionOptions so;
    so.optimization_level = level;
    auto s = Session::Create(m, so);
    ASSERT_TRUE(s.ok()) << s.status().message();
    std::vector<Value> out;
    ASSERT_TRUE((*s)->Run(feeds, {}, &out).ok());
    EXPECT_EQ(out[0].tensor().shape(), Shape{});
    EXPECT_EQ(out[0].tensor().data<float>()[0], 0.0f);
    EXPECT_EQ(out[1].tensor().shape(), (Shape{1, 1}));
    EXPECT_EQ(out[1].tensor().data<float>()[0], -0.5f);
    if (level == optimizer::OptLevel::kAll) {
      auto o = m;
      ASSERT_TRUE(optimizer::FuseElementwiseChains(o).ok());
      EXPECT_EQ(CountOp(o, "FusedElementwise"), 2);
    }
  }
}

// A FusedElementwise node written by hand with a bad program is refused when the session is created, naming it.
TEST(ElementwiseChainFusion, RejectsMalformedPrograms) {
  const char* bad[] = {
      R"(steps = ["Mul"], operands = [0, 1])",                          // reads register 1 in step 0
      R"(steps = ["Mul"], operands = [0, -2], constants = [1.0])",      // constant 2 of 1
      R"(steps = ["Pow"], operands = [0, 0])",                          // unknown step
      R"(steps = ["Mul", "Add"], operands = [0, 0])",                   // two operands per step
      R"(steps = ["Sigmoid"], operands = [-1, 0], constants = [1.0])",  // a unary step of a constant
  };
  for (const char* attrs : bad) {
    const std::string text = std::string(R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (float[4] x) => (float[4] y) {
  y = ai.onyx.internal.FusedElementwise<)") +
                             attrs + R"(>(x)
}
)";
    ir::Model m = Parse(text);
    SessionOptions so;
    so.optimization_level = optimizer::OptLevel::kDisabled;
    auto s = Session::Create(m, so);
    ASSERT_FALSE(s.ok()) << attrs;
    EXPECT_NE(s.status().message().find("FusedElementwise"), std::string::npos) << s.status().message();
  }
}

}  // namespace
}  // namespace onyx
