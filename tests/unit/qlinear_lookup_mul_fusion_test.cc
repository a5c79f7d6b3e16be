// 8-bit byte tables (src/optimizer/byte_table.h, the ai.onyx.internal.ByteLookup kernel in
// src/ops/quant/qlinear_lookup.cc). x * f(x) (src/optimizer/qlinear_lookup_mul_fusion.cc): which QLinearMul nodes fuse
// with the QLinearSigmoid / QLinearLeakyRelu of their other operand, and that the fused node gives every one of the
// 256 byte values the bytes of the two operators run one after the other (level basic runs them unfused), uint8 and
// int8, either operand order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "op_test_helpers.h"
#include "optimizer/optimizer.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

// x [2, 8, 4, 4] -> f = com.microsoft.F(x) -> y = com.microsoft.QLinearMul(MUL) with the zero points' type T.
const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (T[2,8,4,4] x) => (T y) {
  xs = Constant<value = float {0.047}>()
  xz = Constant<value = T {XZ}>()
  fs = Constant<value = float {0.0041}>()
  fz = Constant<value = T {FZ}>()
  ys = Constant<value = float {0.021}>()
  yz = Constant<value = T {YZ}>()
  f = com.microsoft.F(x, xs, xz, fs, fz)
  y = com.microsoft.QLinearMul(MUL, ys, yz)
}
)";

using testing::ReplaceAll;

std::string ModelText(bool is_signed, const std::string& f, bool f_is_a) {
  std::string t = kModel;
  const std::string type = is_signed ? "int8" : "uint8";
  ReplaceAll(t, "T[", type + "[");
  ReplaceAll(t, "T y", type + " y");
  ReplaceAll(t, "T {", type + " {");
  ReplaceAll(t, "{XZ}", is_signed ? "{-9}" : "{121}");
  ReplaceAll(t, "{FZ}", is_signed ? "{-128}" : "{3}");
  ReplaceAll(t, "{YZ}", is_signed ? "{11}" : "{140}");
  ReplaceAll(t, "com.microsoft.F", "com.microsoft." + f);
  ReplaceAll(t, "MUL", f_is_a ? "f, fs, fz, x, xs, xz" : "x, xs, xz, f, fs, fz");
  return t;
}

ir::Model Optimized(const ir::Model& model, optimizer::OptLevel level) {
  ir::Model m = model;
  optimizer::OptimizerOptions options;
  options.level = level;
  options.run_constant_model = ConstantModelRunner(1);
  const Status st = optimizer::OptimizeModel(m, options);
  EXPECT_TRUE(st.ok()) << st.message();
  return m;
}

int64_t Count(const ir::Model& m, const std::string& op) {
  auto h = ir::OperatorHistogram(m.graph);
  return h.count(op) ? h[op] : 0;
}

// Every byte value once (256 elements, i * 37 mod 256) through a session at `level`; the output's bytes.
std::vector<uint8_t> RunBytes(const ir::Model& m, bool is_signed, optimizer::OptLevel level) {
  SessionOptions o;
  o.optimization_level = level;
  o.intra_op_num_threads = 2;
  auto s = Session::Create(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  Tensor x = Tensor::Allocate(is_signed ? DataType::kInt8 : DataType::kUint8, {2, 8, 4, 4});
  for (int64_t i = 0; i < x.size(); ++i) static_cast<uint8_t*>(x.raw())[i] = static_cast<uint8_t>((i * 37) % 256);
  std::vector<Value> out;
  const Status st = (*s)->Run({{"x", Value(x)}}, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok() || out.size() != 1) return {};
  const auto* bytes = static_cast<const uint8_t*>(out[0].tensor().raw());
  return std::vector<uint8_t>(bytes, bytes + out[0].tensor().size());
}

TEST(QLinearLookupMulFusion, GivesTheBytesOfTheTwoOperators) {
  for (bool is_signed : {false, true}) {
    for (const char* f : {"QLinearSigmoid", "QLinearLeakyRelu"}) {
      for (bool f_is_a : {false, true}) {
        auto m = text::ParseModel(ModelText(is_signed, f, f_is_a));
        ASSERT_TRUE(m.ok()) << m.status().message();
        const ir::Model fused = Optimized(*m, optimizer::OptLevel::kExtended);
        EXPECT_EQ(Count(fused, "ai.onyx.internal.ByteLookup"), 1) << f;
        EXPECT_EQ(Count(fused, "com.microsoft.QLinearMul"), 0) << f;
        EXPECT_EQ(Count(fused, std::string("com.microsoft.") + f), 0) << f << ": read by nothing else, it goes";
        const std::vector<uint8_t> want = RunBytes(*m, is_signed, optimizer::OptLevel::kBasic);
        const std::vector<uint8_t> got = RunBytes(*m, is_signed, optimizer::OptLevel::kAll);
        ASSERT_EQ(want.size(), 256u);
        EXPECT_EQ(got, want) << f << " signed=" << is_signed << " f_is_a=" << f_is_a;
      }
    }
  }
}

TEST(QLinearLookupMulFusion, KeepsATableReadElsewhere) {
  std::string t = ModelText(false, "QLinearSigmoid", false);
  ReplaceAll(t, "=> (uint8 y)", "=> (uint8 y, uint8 f)");
  auto m = text::ParseModel(t);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const ir::Model fused = Optimized(*m, optimizer::OptLevel::kExtended);
  EXPECT_EQ(Count(fused, "ai.onyx.internal.ByteLookup"), 1);
  EXPECT_EQ(Count(fused, "com.microsoft.QLinearSigmoid"), 1);
}

TEST(QLinearLookupMulFusion, LeavesOtherProducts) {
  // The table of another value than the product's other operand, a scale that is not a constant, and level basic.
  std::string other = ModelText(false, "QLinearSigmoid", false);
  ReplaceAll(other, "g (uint8[2,8,4,4] x)", "g (uint8[2,8,4,4] x, uint8[2,8,4,4] w)");
  ReplaceAll(other, "QLinearMul(x, xs", "QLinearMul(w, xs");
  std::string fed_scale = ModelText(false, "QLinearSigmoid", false);
  ReplaceAll(fed_scale, "g (uint8[2,8,4,4] x)", "g (uint8[2,8,4,4] x, float ys)");
  ReplaceAll(fed_scale, "  ys = Constant<value = float {0.021}>()\n", "");
  for (const std::string& text : {other, fed_scale}) {
    auto m = text::ParseModel(text);
    ASSERT_TRUE(m.ok()) << m.status().message();
    const ir::Model r = Optimized(*m, optimizer::OptLevel::kExtended);
    EXPECT_EQ(Count(r, "ai.onyx.internal.ByteLookup"), 0);
    EXPECT_EQ(Count(r, "com.microsoft.QLinearMul"), 1);
  }
  auto m = text::ParseModel(ModelText(false, "QLinearSigmoid", false));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Count(Optimized(*m, optimizer::OptLevel::kBasic), "ai.onyx.internal.ByteLookup"), 0);
}

// DQ -> unary activation -> Q (pass FuseQdqUnaryTable): one ai.onyx.internal.ByteLookup with the bytes the three
// operators give for every byte value, uint8 or int8 in and out (the output type the Q's zero point's), Clip's
// constant bounds and HardSwish/Gelu/HardSigmoid alike; a float value read twice keeps the chain.
TEST(QdqUnaryTable, GivesTheBytesOfTheChain) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 20]>
g (TX[2,8,4,4] x) => (TY y) {
  xs = Constant<value = float {0.047}>()
  xz = Constant<value = TX {XZ}>()
  ys = Constant<value = float {0.021}>()
  yz = Constant<value = TY {YZ}>()
  lo = Constant<value = float {-0.5}>()
  hi = Constant<value = float {2.25}>()
  d = DequantizeLinear(x, xs, xz)
  a = ACT
  y = QuantizeLinear(a, ys, yz)
}
)";
  struct Case {
    bool x_signed, y_signed;
    const char* act;
  };
  const Case cases[] = {{false, false, "HardSwish(d)"},
                        {true, true, "Gelu<approximate = \"tanh\">(d)"},
                        {false, true, "Clip(d, lo, hi)"},
                        {true, false, "HardSigmoid<alpha = 0.3, beta = 0.4>(d)"}};
  // The template with the types, zero points and activation of `c` (and `d` a graph output too where asked).
  auto fill = [&](const Case& c, bool d_output) {
    std::string t = text;
    ReplaceAll(t, "TX[", c.x_signed ? "int8[" : "uint8[");
    ReplaceAll(t, "TX {", c.x_signed ? "int8 {" : "uint8 {");
    ReplaceAll(t, "TY y)", std::string(c.y_signed ? "int8 y" : "uint8 y") + (d_output ? ", float d)" : ")"));
    ReplaceAll(t, "TY {", c.y_signed ? "int8 {" : "uint8 {");
    ReplaceAll(t, "{XZ}", c.x_signed ? "{-9}" : "{121}");
    ReplaceAll(t, "{YZ}", c.y_signed ? "{5}" : "{30}");
    ReplaceAll(t, "ACT", c.act);
    return t;
  };
  for (const Case& c : cases) {
    auto m = text::ParseModel(fill(c, false));
    ASSERT_TRUE(m.ok()) << m.status().message();
    const ir::Model fused = Optimized(*m, optimizer::OptLevel::kExtended);
    EXPECT_EQ(Count(fused, "ai.onyx.internal.ByteLookup"), 1) << c.act;
    EXPECT_EQ(Count(fused, "QuantizeLinear") + Count(fused, "DequantizeLinear"), 0) << c.act;
    const std::vector<uint8_t> want = RunBytes(*m, c.x_signed, optimizer::OptLevel::kBasic);
    const std::vector<uint8_t> got = RunBytes(*m, c.x_signed, optimizer::OptLevel::kAll);
    ASSERT_EQ(want.size(), 256u);
    EXPECT_EQ(got, want) << c.act;
  }
  // The activation's input also a graph output: the chain stays.
  auto m = text::ParseModel(fill(cases[0], true));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(Count(Optimized(*m, optimizer::OptLevel::kExtended), "ai.onyx.internal.ByteLookup"), 0);
}

}  // namespace
}  // namespace onyx
