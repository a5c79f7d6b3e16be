// The QDQ fusion pass (src/optimizer/qdq_fusion.cc): which groups become integer operators, which stay, and that a
// graph holding a group ONNX Runtime would fuse into an operator onyx lacks is left whole. (Bit-exactness against
// ONNX Runtime at level all is checked by ctest quant_bit_exact on tests/data/quant/qdq_fused.)
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "format/model_io.h"
#include "ir/graph_edit.h"
#include "op_test_helpers.h"
#include "optimizer/optimizer.h"
#include "optimizer/qdq_fusion.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

ir::Model Optimized(const std::string& text, optimizer::OptLevel level = optimizer::OptLevel::kExtended) {
  auto m = text::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return {};
  optimizer::OptimizerOptions options;
  options.level = level;
  options.run_constant_model = ConstantModelRunner(1);
  Status st = optimizer::OptimizeModel(*m, options);
  EXPECT_TRUE(st.ok()) << st.message();
  // The optimized model must still run.
  auto session = Session::Create(*m, SessionOptions{});
  EXPECT_TRUE(session.ok()) << session.status().message();
  return *m;
}

int64_t Count(const ir::Model& m, const std::string& op) {
  auto h = ir::OperatorHistogram(m.graph);
  return h.count(op) ? h[op] : 0;
}

// The outputs of `model` on uint8 input `x` through a session at level basic and one at level all, in that order; the
// second's optimized model is saved to `saved` when given. Empty where a session fails (the failure is reported).
std::vector<std::vector<Value>> RunAtBasicAndAll(const ir::Model& model, const Tensor& x,
                                                 const std::string& saved = "") {
  std::vector<std::vector<Value>> runs;
  for (auto level : {optimizer::OptLevel::kBasic, optimizer::OptLevel::kAll}) {
    SessionOptions o;
    o.optimization_level = level;
    if (level == optimizer::OptLevel::kAll) o.optimized_model_path = saved;
    auto session = Session::Create(model, o);
    EXPECT_TRUE(session.ok()) << session.status().message();
    if (!session.ok()) return {};
    std::vector<Value> out;
    const Status st = (*session)->Run({{"x", Value(x)}}, {}, &out);
    EXPECT_TRUE(st.ok()) << st.message();
    if (!st.ok()) return {};
    runs.push_back(std::move(out));
  }
  return runs;
}

// The bytes of uint8 outputs, one after another.
std::vector<uint8_t> Bytes(const std::vector<Value>& outputs) {
  std::vector<uint8_t> bytes;
  for (const Value& v : outputs) {
    bytes.insert(bytes.end(), v.tensor().data<uint8_t>(), v.tensor().data<uint8_t>() + v.tensor().size());
  }
  return bytes;
}

// x -> Q(u8) -> DQ -> Conv(DQ(int8 w), DQ(int32 b)) -> ACT -> Q(zp Y_ZP) -> DQ -> y, with ACT and the output zero
// point chosen by the test; NODE_BETWEEN replaces the tail when given.
std::string ConvModel(const std::string& act, int y_zp, const std::string& x_type = "uint8") {
  const std::string conv_out = act.empty() ? "c" : "a";
  std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,3,5,5] x) => (float[1,4,5,5] y) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = )" +
                     x_type + R"( {3}>()
  w = Constant<value = int8[4,3,1,1] {1,-2,3,4,-5,6,7,8,-9,10,11,-12}>()
  ws = Constant<value = float[4] {0.01,0.02,0.03,0.04}>()
  wz = Constant<value = int8[4] {0,0,0,0}>()
  b = Constant<value = int32[4] {100,-200,300,-400}>()
  bs = Constant<value = float[4] {0.0002,0.0004,0.0006,0.0008}>()
  ys = Constant<value = float {0.05}>()
  yz = Constant<value = )" +
                     x_type + " {" + std::to_string(y_zp) + R"(}>()
  q = QuantizeLinear(x, xs, xz)
  dq = DequantizeLinear(q, xs, xz)
  wd = DequantizeLinear<axis = 0>(w, ws, wz)
  bd = DequantizeLinear<axis = 0>(b, bs)
  c = Conv(dq, wd, bd)
)";
  if (!act.empty()) text += "  a = " + act + "(c)\n";
  text += "  q2 = QuantizeLinear(" + conv_out + R"(, ys, yz)
  y = DequantizeLinear(q2, ys, yz)
}
)";
  return text;
}

TEST(QdqFusion, ConvWithRedundantReluBecomesQLinearConv) {
  ir::Model m = Optimized(ConvModel("Relu", 0));
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "Conv"), 0);
  EXPECT_EQ(Count(m, "Relu"), 0);
}

TEST(QdqFusion, ConvWithoutActivationBecomesQLinearConv) {
  ir::Model m = Optimized(ConvModel("", 128));
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "Conv"), 0);
}

TEST(QdqFusion, ReluThatTheQDoesNotMakeRedundantKeepsTheFloatPath) {
  // Output zero point 10: Relu clips values the Q would keep, so ONNX Runtime leaves the group alone.
  ir::Model m = Optimized(ConvModel("Relu", 10));
  EXPECT_EQ(Count(m, "QLinearConv"), 0);
  EXPECT_EQ(Count(m, "Conv"), 1);
}

TEST(QdqFusion, Int8PairsBecomeUint8AndFuse) {
  // ONNX Runtime's x86-64 build has no int8 x int8 convolution: an int8 Q -> DQ pair whose DQ has one reader becomes
  // uint8 (zero point + 128), and the group then fuses as uint8 x int8 (src/optimizer/qdq_s8_to_u8.cc).
  ir::Model m = Optimized(ConvModel("", -5, "int8"));
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "Conv"), 0);
  for (const auto& n : m.graph.nodes) {
    if (n.op_type != "QLinearConv") continue;
    const ir::NamedTensor* x_zero_point = m.graph.FindInitializer(n.inputs[2]);
    ASSERT_NE(x_zero_point, nullptr);
    EXPECT_EQ(x_zero_point->tensor.type(), DataType::kUint8);
    EXPECT_EQ(x_zero_point->tensor.data<uint8_t>()[0], 131);  // 3 + 128
  }
}

TEST(QdqFusion, Int8ValueReadTwiceKeepsTheFloatPath) {
  // The DQ of x also read by a second output: ONNX Runtime gives each reader a DQ of its own, the Q then has two
  // readers and stays int8, and the int8 Conv group is not fused.
  std::string text = ConvModel("", -5, "int8");
  text.replace(text.find("(float[1,4,5,5] y)"), 18, "(float[1,4,5,5] y, float[1,3,5,5] y2)");
  text.insert(text.rfind('}'), "  y2 = Relu(dq)\n");
  ir::Model m = Optimized(text);
  EXPECT_EQ(Count(m, "QLinearConv"), 0);
  // The float Conv's weights and bias are then folded constants (its DequantizeLinear nodes computed once), so
  // that the blocked convolutions take it; the activations' Q/DQ pairs stay.
  EXPECT_EQ(Count(m, "Conv"), 1);
  for (const auto& n : m.graph.nodes) {
    if (n.op_type != "Conv") continue;
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      EXPECT_NE(m.graph.FindInitializer(n.inputs[k]), nullptr) << "Conv input " << k << " is not a constant";
    }
  }
}

// x -> Q(uint8) -> DQ -> Gemm(DQ(int8 w), DQ(int32 b)) -> TAIL (the Gemm's value is c; TAIL names the output y).
std::string GemmModel(const std::string& tail) {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x) => (float[2,3] y) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {128}>()
  w = Constant<value = int8[3,4] {1,-2,3,4,-5,6,7,8,-9,10,11,-12}>()
  ws = Constant<value = float {0.01}>()
  wz = Constant<value = int8 {0}>()
  b = Constant<value = int32[3] {100,-200,300}>()
  bs = Constant<value = float {0.0002}>()
  ys = Constant<value = float {0.05}>()
  yz = Constant<value = uint8 {0}>()
  q = QuantizeLinear(x, xs, xz)
  dq = DequantizeLinear(q, xs, xz)
  wd = DequantizeLinear(w, ws, wz)
  bd = DequantizeLinear(b, bs)
  c = Gemm<transB = 1>(dq, wd, bd)
)" + tail +
         "}\n";
}

TEST(QdqFusion, GemmGroupsBecomeQGemm) {
  // Without a Q: a float result (ONNX Runtime's selector allows the Q to be missing).
  EXPECT_EQ(Count(Optimized(GemmModel("  y = Sigmoid(c)\n")), "com.microsoft.QGemm"), 1);
  // With a Q, and with a Relu the Q makes redundant (zero point 0).
  EXPECT_EQ(Count(Optimized(GemmModel("  q2 = QuantizeLinear(c, ys, yz)\n  y = DequantizeLinear(q2, ys, yz)\n")),
                  "com.microsoft.QGemm"),
            1);
  ir::Model relu =
      Optimized(GemmModel("  r = Relu(c)\n  q2 = QuantizeLinear(r, ys, yz)\n  y = DequantizeLinear(q2, ys, yz)\n"));
  EXPECT_EQ(Count(relu, "com.microsoft.QGemm"), 1);
  EXPECT_EQ(Count(relu, "Relu"), 0);
}

TEST(QdqFusion, GemmWithAReluAloneKeepsTheFloatPath) {
  // A Relu read once after the Gemm and not followed by a Q: ONNX Runtime forms no group at all.
  ir::Model m = Optimized(GemmModel("  r = Relu(c)\n  y = Sigmoid(r)\n"));
  EXPECT_EQ(Count(m, "com.microsoft.QGemm"), 0);
  EXPECT_EQ(Count(m, "Gemm"), 1);
}

TEST(QdqFusion, FoldedConvWeightsGiveTheUnoptimizedResult) {
  // Folding DequantizeLinear into the weights computes the same floats as at run time: the level-all session (its
  // blocked convolution summing in its own order) agrees with the unoptimized one to float rounding.
  auto model = text::ParseModel(ConvModel("Relu", -5, "int8"));
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions plain_options;
  plain_options.optimization_level = optimizer::OptLevel::kDisabled;
  auto plain = Session::Create(*model, plain_options);
  auto optimized = Session::Create(*model, SessionOptions{});
  ASSERT_TRUE(plain.ok() && optimized.ok());
  Tensor x = Tensor::Allocate(DataType::kFloat, {1, 3, 5, 5});
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>((i * 37) % 23) * 0.11f - 1.2f;
  std::vector<Value> want, got;
  ASSERT_TRUE((*plain)->Run({{"x", Value(x)}}, {}, &want).ok());
  ASSERT_TRUE((*optimized)->Run({{"x", Value(x)}}, {}, &got).ok());
  const Tensor& a = want[0].tensor();
  const Tensor& b = got[0].tensor();
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 0.051f) << i;  // one step
}

TEST(QdqFusion, NotBelowLevelExtended) {
  ir::Model m = Optimized(ConvModel("Relu", 0), optimizer::OptLevel::kBasic);
  EXPECT_EQ(Count(m, "QLinearConv"), 0);
}

const char* kPoolModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,4,4] x) => (float[1,2,2,2] y) {
  s = Constant<value = float {0.02}>()
  z = Constant<value = uint8 {100}>()
  s2 = Constant<value = float {SCALE2}>()
  q = QuantizeLinear(x, s, z)
  dq = DequantizeLinear(q, s, z)
  p = MaxPool<kernel_shape = [2,2], strides = [2,2]>(dq)
  q2 = QuantizeLinear(p, s2, z)
  y = DequantizeLinear(q2, s2, z)
}
)";

std::string PoolModel(const std::string& scale2) {
  std::string t = kPoolModel;
  t.replace(t.find("SCALE2"), 6, scale2);
  return t;
}

TEST(QdqFusion, MaxPoolBetweenEqualParametersRunsOn8BitData) {
  ir::Model m = Optimized(PoolModel("0.02"));
  EXPECT_EQ(Count(m, "ai.onyx.internal.MaxPool"), 1);  // the fast 2-D 8-bit kernel
  EXPECT_EQ(Count(m, "QuantizeLinear"), 1);            // the input's
  EXPECT_EQ(Count(m, "DequantizeLinear"), 1);          // the output's
}

TEST(QdqFusion, MaxPoolBetweenDifferentScalesStays) {
  ir::Model m = Optimized(PoolModel("0.03"));
  EXPECT_EQ(Count(m, "QuantizeLinear"), 2);
  EXPECT_EQ(Count(m, "DequantizeLinear"), 2);
}

// The Conv group followed by DQ, DQ -> BINARY -> Q on the Conv's output.
std::string ConvThenBinary(const std::string& binary) {
  std::string text = ConvModel("Relu", 0);
  const std::string tail = "  y = DequantizeLinear(q2, ys, yz)\n";
  text.replace(text.find(tail), tail.size(),
               "  d2 = DequantizeLinear(q2, ys, yz)\n  sum = " + binary +
                   "(d2, d2)\n  q3 = QuantizeLinear(sum, ys, yz)\n  y = DequantizeLinear(q3, ys, yz)\n");
  return text;
}

TEST(QdqFusion, AddBecomesQLinearAdd) {
  ir::Model m = Optimized(ConvThenBinary("Add"));
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "ai.onyx.internal.QLinearAdd"), 1);
  EXPECT_EQ(Count(m, "Add"), 0);
}

TEST(QdqFusion, MulBecomesQLinearMul) {
  ir::Model m = Optimized(ConvThenBinary("Mul"));
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "com.microsoft.QLinearMul"), 1);
  EXPECT_EQ(Count(m, "Mul"), 0);
}

TEST(QdqFusion, AGroupOnyxCannotFuseLeavesTheWholeGraph) {
  // The Conv group is fusable, but DQ, DQ -> Mul -> Q with a per-channel Q is a group ONNX Runtime fuses (its
  // QLinearMul then reads the scales per run) and onyx cannot express: nothing is fused, so every result stays ONNX
  // Runtime's level-disabled one.
  std::string text = ConvThenBinary("Mul");
  const std::string tail = "  q3 = QuantizeLinear(sum, ys, yz)\n  y = DequantizeLinear(q3, ys, yz)\n";
  text.replace(text.find(tail), tail.size(),
               "  cs = Constant<value = float[4] {0.05,0.06,0.07,0.08}>()\n"
               "  cz = Constant<value = uint8[4] {0,0,0,0}>()\n"
               "  q3 = QuantizeLinear<axis = 1>(sum, cs, cz)\n  y = DequantizeLinear<axis = 1>(q3, cs, cz)\n");
  ir::Model m = Optimized(text);
  EXPECT_EQ(Count(m, "QLinearConv"), 0);
  EXPECT_EQ(Count(m, "Conv"), 1);
}

TEST(QdqFusion, BytePreservingOrtDropsDoNotBlockTheGraph) {
  // ONNX Runtime drops the QDQ around ReduceMax (positive scale); the float path computes the same bytes, so the
  // Conv and Mul groups still fuse.
  std::string text = ConvThenBinary("Mul");
  const std::string tail = "  y = DequantizeLinear(q3, ys, yz)\n";
  text.replace(text.find(tail), tail.size(),
               "  d3 = DequantizeLinear(q3, ys, yz)\n  r = ReduceMax(d3)\n  q4 = QuantizeLinear(r, ys, yz)\n"
               "  y0 = DequantizeLinear(q4, ys, yz)\n  y = Expand(y0, sh)\n");
  text.replace(text.find("  q = QuantizeLinear(x, xs, xz)"), 0, "  sh = Constant<value = int64[4] {1,4,5,5}>()\n");
  ir::Model m = Optimized(text);
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "com.microsoft.QLinearMul"), 1);
}

// The Conv group (uint8, y_scale 0.05, zp 0) and the input's DQ (0.02, zp 3) -> Concat -> Q(CAT_SCALE, zp), with
// EXTRA appended to the Concat's inputs when given.
std::string ConvThenConcat(const std::string& cat_scale, const std::string& extra = "") {
  std::string text = ConvModel("Relu", 0);
  text.replace(text.find("float[1,4,5,5] y"), 16, "float[1,7,5,5] y");
  const std::string tail = "  y = DequantizeLinear(q2, ys, yz)\n";
  text.replace(text.find(tail), tail.size(),
               "  d2 = DequantizeLinear(q2, ys, yz)\n  cs = Constant<value = float " + cat_scale +
                   ">()\n  cat = Concat<axis = 1>(d2, dq" + extra +
                   ")\n  q3 = QuantizeLinear(cat, cs, yz)\n  y = DequantizeLinear(q3, cs, yz)\n");
  return text;
}

TEST(QdqFusion, ConcatBecomesQLinearConcat) {
  ir::Model m = Optimized(ConvThenConcat("{0.05}"));
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "ai.onyx.internal.QLinearConcat"), 1);
  EXPECT_EQ(Count(m, "Concat"), 0);
}

TEST(QdqFusion, ConcatWithRedundantReluBecomesQLinearConcat) {
  std::string text = ConvThenConcat("{0.05}");
  text.replace(text.find("q3 = QuantizeLinear(cat,"), 24, "r = Relu(cat)\n  q3 = QuantizeLinear(r,");
  ir::Model m = Optimized(text);
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "ai.onyx.internal.QLinearConcat"), 1);
  EXPECT_EQ(Count(m, "Relu"), 0);
}

TEST(QdqFusion, ConcatWithAReluTheQNeedsLeavesTheWholeGraph) {
  // Output zero point 10: the Relu is not redundant; ONNX Runtime keeps the Concat in float, onyx the whole graph.
  std::string text = ConvThenConcat("{0.05}");
  text.replace(text.find("q3 = QuantizeLinear(cat, cs, yz)"), 32,
               "r = Relu(cat)\n  z10 = Constant<value = uint8 {10}>()\n  q3 = QuantizeLinear(r, cs, z10)");
  ir::Model m = Optimized(text);
  EXPECT_EQ(Count(m, "QLinearConv"), 0);
  EXPECT_EQ(Count(m, "Concat"), 1);
}

TEST(QdqFusion, ConcatOfAFloatInputStaysFloatAndTheRestFuses) {
  // Not every input from a DQ: ONNX Runtime's Concat selector does not take it, so the Concat stays float in both
  // engines (the same copies and requantization) and the Conv group still fuses.
  std::string text = ConvThenConcat("{0.05}", ", x");
  text.replace(text.find("float[1,7,5,5] y"), 16, "float[1,10,5,5] y");
  ir::Model m = Optimized(text);
  EXPECT_EQ(Count(m, "QLinearConv"), 1);
  EXPECT_EQ(Count(m, "Concat"), 1);
}

TEST(QdqFusion, ConcatWithPerAxisOutputScaleLeavesTheWholeGraph) {
  // ONNX Runtime would fuse it (and its kernel reject the scale); onyx's operator takes one scale per tensor.
  ir::Model m = Optimized(ConvThenConcat("[7] {0.05,0.05,0.05,0.05,0.05,0.05,0.05}"));
  EXPECT_EQ(Count(m, "QLinearConv"), 0);
  EXPECT_EQ(Count(m, "ai.onyx.internal.QLinearConcat"), 0);
}

TEST(QdqFusion, Int8ConcatBecomesQLinearConcat) {
  // Unlike Conv, ONNX Runtime's x86-64 build fuses int8 Concat groups (observed with 1.30:
  // tests/data/quant/qdq_concat).
  ir::Model m = Optimized(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,3] x) => (float[1,2,6] y) {
  s = Constant<value = float {0.02}>()
  z = Constant<value = int8 {-3}>()
  s2 = Constant<value = float {0.03}>()
  z2 = Constant<value = int8 {7}>()
  q = QuantizeLinear(x, s, z)
  dq = DequantizeLinear(q, s, z)
  q2 = QuantizeLinear(x, s2, z2)
  dq2 = DequantizeLinear(q2, s2, z2)
  cat = Concat<axis = -1>(dq, dq2)
  q3 = QuantizeLinear(cat, s2, z2)
  y = DequantizeLinear(q3, s2, z2)
}
)");
  EXPECT_EQ(Count(m, "ai.onyx.internal.QLinearConcat"), 1);
  EXPECT_EQ(Count(m, "Concat"), 0);
}

TEST(QdqFusion, SigmoidLeakyReluAndSoftmaxBecomeComMicrosoftOperators) {
  for (const char* op : {"Sigmoid", "LeakyRelu", "Softmax"}) {
    std::string text = ConvThenBinary("Mul");
    const std::string mul = "sum = Mul(d2, d2)";
    text.replace(text.find(mul), mul.size(), std::string("sum = ") + op + "(d2)");
    ir::Model m = Optimized(text);
    EXPECT_EQ(Count(m, "QLinearConv"), 1) << op;
    EXPECT_EQ(Count(m, std::string("com.microsoft.QLinear") + op), 1) << op;
    EXPECT_EQ(Count(m, op), 0) << op;
  }
}

// The QOperator format `onyx quantize --format qoperator` writes: every fusable group as the integer operator a file
// holds (onyx's own domain gone), and the model still runs.
TEST(QdqFusion, QdqToQOperatorWritesStandardAndComMicrosoftOperators) {
  auto m = text::ParseModel(ConvThenBinary("Add"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto fused = optimizer::ConvertQdqToQOperator(*m);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(*fused, 2);
  EXPECT_EQ(Count(*m, "QLinearConv"), 1);
  EXPECT_EQ(Count(*m, "com.microsoft.QLinearAdd"), 1);
  EXPECT_EQ(Count(*m, "Conv"), 0);
  EXPECT_EQ(Count(*m, "Add"), 0);
  for (const auto& n : m->graph.nodes) EXPECT_NE(n.domain, ir::kInternalDomain) << n.op_type;
  EXPECT_TRUE(m->OpsetVersion("com.microsoft").has_value());
  auto session = Session::Create(*m, SessionOptions{});
  EXPECT_TRUE(session.ok()) << session.status().message();
}

// DQ -> Split -> Q with the DQ's parameters on every output (pass DropSplitQdq): the Split on the 8-bit data, the same
// bytes as the float round trip, and channels last after a QLinearConv at level all; an output requantized to other
// parameters keeps the group.
TEST(QdqFusion, DropsTheQdqOfASplitWithEqualParameters) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[1,3,6,6] x) => (uint8 y0, uint8 y1) {
  xs = Constant<value = float {0.05}>()
  xz = Constant<value = uint8 {7}>()
  w = Constant<value = int8[8,3,3,3] {W}>()
  ws = Constant<value = float {0.01}>()
  wz = Constant<value = int8 {0}>()
  s = Constant<value = float {0.031}>()
  z = Constant<value = uint8 {120}>()
  s1 = Constant<value = float {S1}>()
  c = QLinearConv<pads = [1,1,1,1]>(x, xs, xz, w, ws, wz, s, z)
  d = DequantizeLinear(c, s, z)
  p0, p1 = Split<axis = 1>(d)
  y0 = QuantizeLinear(p0, s, z)
  y1 = QuantizeLinear(p1, s1, z)
}
)";
  std::string w;
  for (int i = 0; i < 8 * 3 * 9; ++i) w += (i ? "," : "") + std::to_string((i * 53) % 255 - 127);
  Tensor x = Tensor::Allocate(DataType::kUint8, {1, 3, 6, 6});
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  for (const bool equal : {true, false}) {
    std::string t = text;
    t.replace(t.find("{W}"), 3, "{" + w + "}");
    t.replace(t.find("{S1}"), 4, equal ? "{0.031}" : "{0.04}");
    auto model = text::ParseModel(t);
    ASSERT_TRUE(model.ok()) << model.status().message();
    ir::Model m = Optimized(t);
    int split_reads_bytes = 0;
    for (const auto& n : m.graph.nodes) split_reads_bytes += n.op_type == "Split" && n.inputs[0] == "c";
    EXPECT_EQ(split_reads_bytes, equal ? 1 : 0);
    EXPECT_EQ(Count(m, "QuantizeLinear"), equal ? 0 : 2);
    const auto runs = RunAtBasicAndAll(*model, x);
    ASSERT_EQ(runs.size(), 2u);
    for (const auto& out : runs) {
      ASSERT_EQ(out.size(), 2u);
      for (const Value& v : out) ASSERT_EQ(v.tensor().shape(), (Shape{1, 4, 6, 6}));
    }
    EXPECT_EQ(Bytes(runs[0]), Bytes(runs[1])) << "equal parameters: " << equal;
  }
}

// A nearest upsampling between two 8-bit convolutions stays channels last at level all (constant scales or sizes
// permuted to [N, H, W, C] order), as does a float activation between them: no Transpose, and the bytes of level
// basic.
TEST(QdqFusion, NearestResizeBetweenInt8ConvolutionsStaysChannelsLast) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[1,4,5,6] x) => (uint8 y) {
  xs = Constant<value = float {0.05}>()
  xz = Constant<value = uint8 {7}>()
  w = Constant<value = int8[8,4,1,1] {W}>()
  w2 = Constant<value = int8[8,8,1,1] {W2}>()
  ws = Constant<value = float {0.01}>()
  wz = Constant<value = int8 {0}>()
  s = Constant<value = float {0.031}>()
  z = Constant<value = uint8 {120}>()
  TARGET
  c = QLinearConv(x, xs, xz, w, ws, wz, s, z)
  BODY
  y = QLinearConv(u, s, z, w2, ws, wz, s, z)
}
)";
  std::string w, w2;
  for (int i = 0; i < 8 * 4; ++i) w += (i ? "," : "") + std::to_string((i * 53) % 255 - 127);
  for (int i = 0; i < 8 * 8; ++i) w2 += (i ? "," : "") + std::to_string((i * 29) % 255 - 127);
  Tensor x = Tensor::Allocate(DataType::kUint8, {1, 4, 5, 6});
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  const std::pair<const char*, const char*> forms[] = {
      // A float activation between the 8-bit layers (MobileNet-v3): DequantizeLinear -> HardSwish -> QuantizeLinear,
      // channels last too (as the byte table it becomes).
      {"hs = Constant<value = float {0.02}>()",
       "d = DequantizeLinear(c, s, z)\n  h = HardSwish(d)\n  u = QuantizeLinear(h, hs, z)"},
      {"sc = Constant<value = float[4] {1, 1, 2, 2}>()", "u = Resize<mode = \"nearest\">(c, , sc)"},
      {"sz = Constant<value = int64[4] {1, 8, 15, 12}>()",
       "u = Resize<mode = \"nearest\", coordinate_transformation_mode = \"asymmetric\", nearest_mode = \"floor\">(c, , "
       ", sz)"}};
  for (const auto& [target, resize] : forms) {
    std::string t = text;
    testing::ReplaceAll(t, "{W}", "{" + w + "}");
    testing::ReplaceAll(t, "{W2}", "{" + w2 + "}");
    testing::ReplaceAll(t, "TARGET", target);
    testing::ReplaceAll(t, "BODY", resize);
    auto model = text::ParseModel(t);
    ASSERT_TRUE(model.ok()) << model.status().message();
    const auto runs = RunAtBasicAndAll(*model, x, ::testing::TempDir() + "/resize_nhwc.onnx");
    ASSERT_EQ(runs.size(), 2u);
    for (const auto& out : runs) ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(Bytes(runs[0]), Bytes(runs[1])) << resize;
    auto saved = format::LoadModel(::testing::TempDir() + "/resize_nhwc.onnx");
    ASSERT_TRUE(saved.ok()) << saved.status().message();
    if (Count(*saved, "ai.onyx.internal.QLinearConv") > 0) {  // where the 8-bit layout runs (an int8-capable CPU)
      EXPECT_EQ(Count(*saved, "Transpose"), 2) << resize << ": only the graph input's and output's";
      // (The DQ -> HardSwish -> Q chain is one byte table there: ai.onyx.internal.ByteLookup, channels last too.)
      EXPECT_EQ(Count(*saved, "Resize") + Count(*saved, "ai.onyx.internal.ByteLookup"), 1);
    }
  }
}

// A float activation read by two QuantizeLinears (no single byte table): DequantizeLinear, the activation and both
// QuantizeLinears still run channels last between the 8-bit operators; the bytes of level basic.
TEST(QdqFusion, FloatActivationBetweenInt8OperatorsStaysChannelsLast) {
  std::string w;
  for (int i = 0; i < 8 * 4; ++i) w += (i ? "," : "") + std::to_string((i * 53) % 255 - 127);
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (uint8[1,4,5,6] x) => (uint8 y) {
  xs = Constant<value = float {0.05}>()
  xz = Constant<value = uint8 {7}>()
  w = Constant<value = int8[8,4,1,1] {)" +
                           w + R"(}>()
  ws = Constant<value = float {0.01}>()
  wz = Constant<value = int8 {0}>()
  s = Constant<value = float {0.031}>()
  z = Constant<value = uint8 {120}>()
  hs = Constant<value = float {0.02}>()
  c = QLinearConv(x, xs, xz, w, ws, wz, s, z)
  d = DequantizeLinear(c, s, z)
  h = HardSwish(d)
  u1 = QuantizeLinear(h, s, z)
  u2 = QuantizeLinear(h, hs, z)
  y = com.microsoft.QLinearAdd(u1, s, z, u2, hs, z, s, z)
}
)";
  auto model = text::ParseModel(text);
  ASSERT_TRUE(model.ok()) << model.status().message();
  Tensor x = Tensor::Allocate(DataType::kUint8, {1, 4, 5, 6});
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  const auto runs = RunAtBasicAndAll(*model, x, ::testing::TempDir() + "/activation_nhwc.onnx");
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& out : runs) ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Bytes(runs[0]), Bytes(runs[1]));
  auto saved = format::LoadModel(::testing::TempDir() + "/activation_nhwc.onnx");
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  if (Count(*saved, "ai.onyx.internal.QLinearConv") > 0) {
    EXPECT_EQ(Count(*saved, "HardSwish"), 1);
    // The sum reads both quantizations channels last (onyx's QLinearAdd), and the Transposes are the graph input's
    // and output's.
    EXPECT_EQ(Count(*saved, "ai.onyx.internal.QLinearAdd"), 1);
    EXPECT_EQ(Count(*saved, "Transpose"), 2);
  }
}

}  // namespace
}  // namespace onyx
