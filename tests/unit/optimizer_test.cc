// The graph optimizer, pass by pass: small models in the ONNX text syntax, checked twice — the rewritten graph
// (which operators remain) and its outputs against the unoptimized model's on random inputs.
#include "optimizer/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "format/model_io.h"
#include "ir/graph_edit.h"
#include "optimizer/graph_index.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

using optimizer::OptLevel;

ir::Model Parse(const std::string& text) {
  auto m = text::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

ir::Model Optimized(ir::Model m, OptLevel level = OptLevel::kAll) {
  optimizer::OptimizerOptions options;
  options.level = level;
  options.run_constant_model = ConstantModelRunner(1);
  Status st = optimizer::OptimizeModel(m, options);
  EXPECT_TRUE(st.ok()) << st.message();
  return m;
}

std::map<std::string, int64_t> Ops(const ir::Model& m) { return ir::OperatorHistogram(m.graph); }
int64_t Count(const ir::Model& m, const std::string& op) {
  auto h = Ops(m);
  return h.count(op) ? h[op] : 0;
}

// Random feeds for the model's inputs (static shapes only): floats in [-2, 2), integers in [0, 4), bools.
std::vector<std::pair<std::string, Value>> RandomFeeds(const ir::Model& m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  std::vector<std::pair<std::string, Value>> feeds;
  for (const auto* in : m.graph.RealInputs()) {
    Shape shape;
    for (const auto& d : *in->type->shape) shape.push_back(d.value);
    Tensor t = Tensor::Allocate(in->type->elem_type, shape);
    for (int64_t i = 0; i < t.size(); ++i) {
      switch (t.type()) {
        case DataType::kFloat:
          t.data<float>()[i] = real(rng);
          break;
        case DataType::kInt64:
          t.data<int64_t>()[i] = static_cast<int64_t>(rng() % 4);
          break;
        case DataType::kBool:
          t.data<bool>()[i] = rng() % 2 == 0;
          break;
        default:
          ADD_FAILURE() << "no random values for " << TensorTypeString(t.type());
      }
    }
    feeds.emplace_back(in->name, Value(std::move(t)));
  }
  return feeds;
}

std::vector<Value> RunModel(const ir::Model& m, const std::vector<std::pair<std::string, Value>>& feeds,
                            OptLevel level = OptLevel::kDisabled) {
  SessionOptions so;
  so.optimization_level = level;
  auto s = Session::Create(m, so);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  std::vector<Value> out;
  Status st = (*s)->Run(feeds, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

// The optimized model computes what the original does on random inputs (floats within rounding: 1e-5 relative
// to the larger of |value| and 1).
void ExpectSameResults(const ir::Model& original, const ir::Model& optimized, int trials = 3) {
  ASSERT_EQ(original.graph.outputs.size(), optimized.graph.outputs.size());
  for (size_t i = 0; i < original.graph.outputs.size(); ++i) {
    EXPECT_EQ(original.graph.outputs[i].name, optimized.graph.outputs[i].name) << "graph output names are kept";
  }
  for (int trial = 0; trial < trials; ++trial) {
    auto feeds = RandomFeeds(original, static_cast<uint64_t>(trial) + 1);
    auto want = RunModel(original, feeds);
    auto got = RunModel(optimized, feeds);
    ASSERT_EQ(want.size(), got.size());
    for (size_t o = 0; o < want.size(); ++o) {
      const Tensor& a = want[o].tensor();
      const Tensor& b = got[o].tensor();
      ASSERT_EQ(a.type(), b.type()) << "output " << o;
      ASSERT_EQ(a.shape(), b.shape()) << "output " << o;
      for (int64_t k = 0; k < a.size(); ++k) {
        const double x = a.DoubleAt(k), y = b.DoubleAt(k);
        ASSERT_NEAR(x, y, 1e-5 * std::max(1.0, std::abs(x))) << "output " << o << " element " << k;
      }
    }
  }
}

// Optimizes the model at `level` and checks that the rewrite computes what the original does (ExpectSameResults);
// returns the optimized model for the test's checks of which operators remain.
ir::Model OptimizeAndCompare(OptLevel level, const std::string& text, int trials = 3) {
  ir::Model original = Parse(text);
  ir::Model optimized = Optimized(original, level);
  ExpectSameResults(original, optimized, trials);
  return optimized;
}

// ---- basic passes

TEST(OptimizerConstantFolding, FoldsConstantSubgraphsAndStaticShapes) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[2, 3] y, int64[2] s) {
  a = Constant<value = float[3] {1.0, 2.0, 3.0}>()
  b = Constant<value = float {2.0}>()
  c = Mul(a, b)
  d = Sqrt(c)
  y = Add(x, d)
  s = Shape(x)
}
)");
  EXPECT_EQ(o.graph.nodes.size(), 1u);  // only the Add reads the input
  EXPECT_EQ(Count(o, "Add"), 1);
  EXPECT_NE(o.graph.FindInitializer("s"), nullptr) << "Shape of a static input is a constant";
}

// Shape of an intermediate value whose shape inference finds static folds (torch's Shape -> Gather -> Div chains
// around Slice and Reshape then fold to constants); with a symbolic input dim, nothing downstream folds.
TEST(OptimizerConstantFolding, FoldsShapesOfStaticallyInferredValues) {
  const std::string body = R"(
  h = Add(x, x)
  sh = Shape(h)
  dim = Gather<axis = 0>(sh, last)
  half = Div(dim, two)
  y = Slice(h, zero, half, axes)
}
)";
  const std::string inits = "<int64[1] last = {1}, int64[1] two = {2}, int64[1] zero = {0}, int64[1] axes = {1}> {";
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic,
                                   "<ir_version: 8, opset_import: [\"\" : 13]>\n"
                                   "g (float[3, 8] x) => (float[3, 4] y) " +
                                       inits + body);
  EXPECT_EQ(Count(o, "Shape"), 0);
  EXPECT_EQ(Count(o, "Gather"), 0);
  EXPECT_EQ(Count(o, "Div"), 0);
  EXPECT_EQ(Count(o, "Slice"), 1);
  ir::Model symbolic = Optimized(
      Parse("<ir_version: 8, opset_import: [\"\" : 13]>\ng (float[3, N] x) => (float[3, M] y) " + inits + body),
      OptLevel::kBasic);
  EXPECT_EQ(Count(symbolic, "Shape"), 1);
  EXPECT_EQ(Count(symbolic, "Div"), 1);
}

TEST(OptimizerConstantFolding, LeavesRandomOpsHugeResultsAndFeedableInitializers) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x, float[2] w) => (float[2] y, float[2048, 1024] big, float[2] r, float[2] dq) <float[2] w = {1.0, 2.0}, int64[2] shape = {2048, 1024}, int8[2] q = {3, -4}, float qs = {0.5}> {
  y = Add(x, w)
  big = ConstantOfShape(shape)
  r = RandomUniform<shape = [2]>()
  dq = DequantizeLinear(q, qs)
}
)");
  ir::Model o = Optimized(m);
  EXPECT_EQ(Count(o, "Add"), 1) << "w is also an input (it may be fed), so it is not a constant";
  EXPECT_EQ(Count(o, "ConstantOfShape"), 1) << "2M elements from 2 would bloat the model";
  EXPECT_EQ(Count(o, "RandomUniform"), 1);
  EXPECT_EQ(Count(o, "DequantizeLinear"), 1) << "quantized weights stay quantized";
}

TEST(OptimizerDeadCode, RemovesUnreadNodesAndInitializers) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y) <float[4] unused_w = {1.0, 2.0, 3.0, 4.0}> {
  t = Neg(x)
  dead = Mul(t, unused_w)
  y = Relu(t)
}
)");
  EXPECT_EQ(Count(o, "Mul"), 0);
  EXPECT_EQ(o.graph.initializers.size(), 0u);
}

TEST(OptimizerCommonSubexpression, MergesIdenticalNodesAndConstants) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y, float[4] z) <float[1] c1 = {3.0}, float[1] c2 = {3.0}> {
  a = Mul(x, c1)
  b = Mul(x, c2)
  e = Sigmoid(a)
  f = Sigmoid(b)
  y = Add(e, f)
  z = Softmax<axis = 0>(f)
}
)");
  EXPECT_EQ(Count(o, "Mul"), 1);
  EXPECT_EQ(Count(o, "Sigmoid"), 1);
  EXPECT_EQ(o.graph.initializers.size(), 1u);
}

TEST(OptimizerCommonSubexpression, KeepsBothGraphOutputsOfEqualNodes) {
  ir::Model o = OptimizeAndCompare(OptLevel::kAll, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y, float[4] z) {
  y = Relu(x)
  z = Relu(x)
}
)");
  EXPECT_EQ(Count(o, "Relu"), 2) << "two graph outputs need two names";
}

// Merges chain (b's duplicate c reads the merged a2), an If branch reading a merged value from the outer scope
// follows the rename, and a no-op Cast chain goes (Cast(Cast(x)) to x's own type).
TEST(OptimizerCommonSubexpression, ChainsSubgraphReadsAndCastChains) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x, bool c) => (float[4] y, float[4] z) {
  a1 = Neg(x)
  a2 = Neg(x)
  b1 = Exp(a1)
  b2 = Exp(a2)
  k1 = Cast<to = 1>(b2)
  k2 = Cast<to = 1>(k1)
  y = Add(b1, k2)
  z = If(c) <then_branch = t () => (float[4] o) { o = Sigmoid(b2) },
             else_branch = e () => (float[4] o) { o = Tanh(a2) }>
}
)");
  ir::Model o = Optimized(m, OptLevel::kBasic);
  EXPECT_EQ(Count(o, "Neg"), 1);
  EXPECT_EQ(Count(o, "Exp"), 1);
  EXPECT_EQ(Count(o, "Cast"), 0);
  for (bool branch : {true, false}) {
    auto feeds = RandomFeeds(m, 5);
    feeds[1].second = Value(Tensor::Scalar<bool>(branch));
    auto want = RunModel(m, feeds);
    auto got = RunModel(o, feeds);
    ASSERT_EQ(got.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(want[k].tensor().DoubleAt(j), got[k].tensor().DoubleAt(j));
    }
  }
}

TEST(OptimizerIdentity, RemovesIdentitiesKeepingGraphOutputNames) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y, float[4] passthrough, float[4] z) {
  a = Identity(x)
  b = Neg(a)
  y = Identity(b)
  passthrough = Identity(x)
  z = Identity(y)
}
)");
  // y's Identity goes (Neg now writes y); passthrough copies an input and z copies another output: both stay.
  EXPECT_EQ(Count(o, "Identity"), 2);
  EXPECT_EQ(Count(o, "Neg"), 1);
  EXPECT_EQ(o.graph.nodes[static_cast<size_t>(ir::FindProducer(o.graph, "y"))].op_type, "Neg");
}

TEST(OptimizerIdentity, SubgraphOuterReferencesFollow) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x, bool c) => (float[2] y) {
  t = Identity(x)
  y = If(c) <then_branch = then_g () => (float[2] o) { u = Identity(t)
                                                       o = Neg(u) },
             else_branch = else_g () => (float[2] o) { o = Identity(t) }>
}
)",
                                   /*trials=*/6);
  // The outer Identity goes and both branches read x; the then-branch's inner Identity goes; the else-branch's
  // output copies an outer value and stays.
  EXPECT_EQ(Count(o, "Identity"), 1);
  auto free = ir::FreeNames(o.graph.nodes[0].attributes[0].g ? *o.graph.nodes[0].attributes[0].g : ir::Graph{});
  EXPECT_EQ(free, std::vector<std::string>{"x"});
}

TEST(OptimizerIdentity, RemovesInferenceDropoutButNotOneWhoseMaskIsRead) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y, bool[4] mask) {
  a = Dropout(x)
  b, mask = Dropout(a)
  y = Relu(b)
}
)");
  EXPECT_EQ(Count(o, "Dropout"), 1);
}

TEST(OptimizerCast, RemovesCastsToTheSameTypeOnly) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y, int64[4] z) {
  a = Cast<to = 1>(x)
  b = Relu(a)
  c = Cast<to = 1>(b)
  y = Neg(c)
  z = Cast<to = 7>(y)
}
)");
  EXPECT_EQ(Count(o, "Cast"), 1);
}

TEST(OptimizerReshapeChain, MergesReshapesSqueezesAndUnsqueezes) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3, 4] x, float[3, 4] v) => (float[4, 6] y, float[1, 3, 4, 1] u, float[3, 4] s, float[3, 4] w) <int64[2] s1 = {6, 4}, int64[2] s2 = {4, -1}, int64[1] a0 = {0}, int64[1] a2 = {2}, int64[1] a3 = {3}> {
  r1 = Reshape(x, s1)
  y = Reshape(r1, s2)
  u1 = Unsqueeze(v, a0)
  u = Unsqueeze(u1, a3)
  q1 = Unsqueeze(v, a0)
  q2 = Neg(q1)
  q3 = Unsqueeze(q2, a0)
  q4 = Squeeze(q3, a0)
  s = Squeeze(q4, a0)
  w1 = Unsqueeze(v, a2)
  w2 = Squeeze(w1, a2)
  w = Neg(w2)
}
)");
  EXPECT_EQ(Count(o, "Reshape"), 1);
  EXPECT_EQ(Count(o, "Unsqueeze"), 2);  // u's pair as one, and q1
  EXPECT_EQ(Count(o, "Squeeze"), 1);    // q3/q4 cancel; s stays (its input is q1 through Neg)
}

TEST(OptimizerReshapeChain, OpsetElevenAxesAttributes) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[2, 1, 3, 1] x) => (float[2, 3] y, float[1, 2, 1, 1, 3, 1] z) {
  a = Squeeze<axes = [1]>(x)
  y = Squeeze<axes = [2]>(a)
  b = Unsqueeze<axes = [0]>(x)
  z = Unsqueeze<axes = [2]>(b)
}
)");
  EXPECT_EQ(Count(o, "Squeeze"), 1);
  EXPECT_EQ(Count(o, "Unsqueeze"), 1);
}

TEST(OptimizerTranspose, CancelsAndMergesPairs) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3, 4] x) => (float[2, 3, 4] y, float[4, 2, 3] z) {
  a = Transpose<perm = [0, 2, 1]>(x)
  b = Transpose<perm = [0, 2, 1]>(a)
  y = Relu(b)
  c = Transpose<perm = [1, 0, 2]>(x)
  z = Transpose<perm = [2, 1, 0]>(c)
}
)");
  EXPECT_EQ(Count(o, "Transpose"), 1);
}

// A gate in NHWC multiplying an NCHW map that goes to NHWC and back (converted TF squeeze-and-excitation): the map
// stays, the gate is transposed. Sub keeps its operand order; a rank-1 operand (broadcast) and a Binary read twice
// stay as they are.
TEST(OptimizerTranspose, SinksThroughBinaryElementwise) {
  ir::Model o = OptimizeAndCompare(OptLevel::kBasic, R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 3, 4, 5] x, float[1, 3] d) => (float[1, 3, 4, 5] y, float[1, 3, 4, 5] z, float[1, 3, 4, 5] w, float[1, 4, 5, 3] m3) <int64[4] s = {1, 1, 1, 3}, float[3] b = {1.0, 2.0, 3.0}> {
  t = Transpose<perm = [0, 2, 3, 1]>(x)
  r = Reshape(d, s)
  gate = Sigmoid(r)
  m = Mul(t, gate)
  y = Transpose<perm = [0, 3, 1, 2]>(m)
  m2 = Sub(gate, t)
  z = Transpose<perm = [0, 3, 1, 2]>(m2)
  m3 = Add(t, b)
  w = Transpose<perm = [0, 3, 1, 2]>(m3)
}
)");
  // y and z: the map stays NCHW (their Transposes of x gone); m3 is read twice (w and the output): its pair stays.
  EXPECT_EQ(Count(o, "Transpose"), 3);  // t (for m3), w, and the gate's (one: the two are the same node)
  for (const auto& n : o.graph.nodes) {
    if (n.op_type == "Mul" || n.op_type == "Sub") {
      EXPECT_EQ(n.inputs[n.op_type == "Mul" ? 0 : 1], "x") << n.op_type << " reads the map directly";
    }
  }
}

TEST(OptimizerLoop, OptimizesBodiesAndKeepsOuterReferences) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 n, float[2] x) => (float[2] y) {
  k = Constant<value = float[2] {0.5, 2.0}>()
  kk = Identity(k)
  y = Loop(n, "", x) <body = b (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out) {
    two = Constant<value = float {2.0}>()
    one = Constant<value = float {1.0}>()
    s = Div(two, one)
    t = Identity(acc)
    u = Mul(t, kk)
    acc_out = Add(u, s)
    c_out = Identity(c)
  }>
}
)");
  ir::Model o = Optimized(m);
  EXPECT_EQ(Count(o, "Div"), 0);
  EXPECT_EQ(Count(o, "Constant"), 0);
  EXPECT_EQ(Count(o, "Identity"), 1);  // c_out copies a body input: a subgraph output keeps its own name
  auto feeds = RandomFeeds(m, 7);
  feeds[0].second = Value(Tensor::Scalar<int64_t>(3));
  auto want = RunModel(m, feeds);
  auto got = RunModel(o, feeds);
  ASSERT_EQ(got.size(), 1u);
  for (int64_t k = 0; k < 2; ++k) EXPECT_FLOAT_EQ(want[0].tensor().DoubleAt(k), got[0].tensor().DoubleAt(k));
}

// ---- extended passes

TEST(OptimizerConvFusion, FoldsBatchNormAddAndMulIntoConv) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 5, 5] x) => (float[1, 3, 3, 3] y) <
    float[3, 2, 3, 3] w = {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 1.0, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8,
                           -0.9, 1.0, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 1.0, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6,
                           0.7, 0.8, -0.9, 1.0, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 1.0, 0.1, -0.2, 0.3, 0.4},
    float[3] b = {0.5, -1.0, 2.0}, float[3] scale = {1.5, 0.5, 2.0}, float[3] bias = {0.1, 0.2, 0.3},
    float[3] mean = {0.05, -0.1, 0.2}, float[3] var = {1.0, 0.25, 4.0},
    float[3, 1, 1] add_c = {1.0, 2.0, 3.0}, float[1, 3, 1, 1] mul_c = {2.0, -1.0, 0.5}> {
  c = Conv<pads = [0, 0, 0, 0]>(x, w, b)
  n = BatchNormalization<epsilon = 0.001>(c, scale, bias, mean, var)
  a = Add(add_c, n)
  y = Mul(a, mul_c)
}
)");
  ir::Model o = Optimized(m, OptLevel::kExtended);
  EXPECT_EQ(Ops(o), (std::map<std::string, int64_t>{{"Conv", 1}}));
  ExpectSameResults(m, o);
  // Basic does not fuse.
  EXPECT_EQ(Count(Optimized(m, OptLevel::kBasic), "BatchNormalization"), 1);
}

// A BatchNormalization after a Concat (DenseNet's pre-activation layers) becomes a depthwise 1x1 Conv, an [N, C] one
// a Mul and an Add; results as the unoptimized graph's. Opset 15: the statistics' types are separate from X's, so
// X's type is followed through Concat and MaxPool.
TEST(OptimizerBatchNorm, NormalizationWithoutConvBecomesDepthwiseConvOrScaleAndBias) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[1, 2, 4, 4] x, float[1, 1, 4, 4] z, float[2, 3] v) => (float[1, 3, 2, 2] y, float[2, 3] u) <
    float[3] scale = {1.5, 0.5, 2.0}, float[3] bias = {0.1, 0.2, -0.3}, float[3] mean = {0.05, -0.1, 0.2},
    float[3] var = {1.0, 0.25, 4.0}> {
  p = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
  q = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(z)
  c = Concat<axis = 1>(p, q)
  n = BatchNormalization<epsilon = 0.001>(c, scale, bias, mean, var)
  y = Relu(n)
  u = BatchNormalization(v, scale, bias, mean, var)
}
)");
  ir::Model o = Optimized(m, OptLevel::kExtended);
  EXPECT_EQ(Count(o, "BatchNormalization"), 0);
  EXPECT_EQ(Count(o, "Conv"), 1);
  EXPECT_EQ(Count(o, "Mul"), 1);
  EXPECT_EQ(Count(o, "Add"), 1);
  ExpectSameResults(m, o);
  ExpectSameResults(m, Optimized(m, OptLevel::kAll));
}

TEST(OptimizerConvFusion, FoldsZeroSpatialPadIntoConvPads) {
  // Pad-11 with pads as an input, and Pad-2 with the attribute; a Pad of the channel axis or a non-zero value stays.
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 4, 5] x) => (float[1, 1, 8, 6] y, float[1, 1, 4, 5] z) <
    float[1, 2, 2, 2] w = {0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 0.75, 1.0}, int64[8] p = {0, 0, 2, 1, 0, 0, 2, 1},
    int64[8] pc = {0, 1, 0, 0, 0, 0, 0, 0}, float[1, 3, 1, 1] w3 = {1.0, 2.0, 3.0}> {
  t = Pad(x, p)
  y = Conv<pads = [0, 0, 1, 0]>(t, w)
  u = Pad(x, pc)
  z = Conv(u, w3)
}
)");
  EXPECT_EQ(Count(o, "Pad"), 1);
  EXPECT_EQ(Count(o, "Conv"), 2);
}

// Pad + AveragePool as PyTorch exports avg_pool2d(padding=1): the pads move into the pool, which then counts them;
// a pool that excludes its own pads from the count, or rounds up (ceil_mode), keeps its Pad.
TEST(OptimizerConvFusion, FoldsZeroSpatialPadIntoAveragePool) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 5, 6] x) => (float[1, 2, 5, 6] y, float[1, 2, 6, 6] z, float[1, 2, 3, 3] w) <
    int64[8] p1 = {0, 0, 1, 1, 0, 0, 1, 1}, int64[8] p2 = {0, 0, 1, 0, 0, 0, 1, 1},
    int64[8] p3 = {0, 0, 0, 1, 0, 0, 1, 0}> {
  t = Pad(x, p1)
  y = AveragePool<kernel_shape = [3, 3]>(t)
  u = Pad(x, p2)
  z = AveragePool<kernel_shape = [3, 3], pads = [0, 0, 1, 1]>(u)
  v = Pad(x, p3)
  w = AveragePool<kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1>(v)
}
)");
  EXPECT_EQ(Count(o, "Pad"), 2);
  EXPECT_EQ(Count(o, "AveragePool"), 3);
}

// `count` weights as the text syntax writes them: 0.25, -0.5, 0.75, ... (no zeros, no repeats of sign).
std::string Weights(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += (i ? ", " : "") + std::to_string((i % 2 ? -0.25 : 0.25) * (1 + i % 7));
  return out;
}

// DeepLab's atrous pyramid at a small map: a 3x3 kernel dilated past the map meets it with its centre tap only (y:
// a 1x1 convolution, pads 0, dilation 1); dilated 2 along H over 5 rows with pads 2 every tap reaches some row, while
// along W (dilation 4, pads 0 and 4, 6 columns, stride 2: one output column) the last tap never does (z: kernel
// 3x2, end pad 0).
TEST(OptimizerConvFusion, TrimsDilatedTapsThatNeverReachTheInput) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 5, 6] x) => (float[1, 3, 5, 6] y, float[1, 3, 5, 1] z) <float[3, 2, 3, 3] w = {)" +
                                                            Weights(54) +
                                                            R"(}, float[3] b = {0.5, -1.0, 2.0}> {
  y = Conv<dilations = [6, 6], pads = [6, 6, 6, 6]>(x, w, b)
  z = Conv<kernel_shape = [3, 3], dilations = [2, 4], pads = [2, 0, 2, 4], strides = [1, 2]>(x, w)
}
)");
  ASSERT_EQ(Count(o, "Conv"), 2);
  for (const ir::Node& n : o.graph.nodes) {
    const ir::NamedTensor* w = o.graph.FindInitializer(n.inputs[1]);
    ASSERT_NE(w, nullptr);
    if (n.outputs[0] == "y") {
      EXPECT_EQ(w->tensor.shape(), (Shape{3, 2, 1, 1}));
      EXPECT_EQ(optimizer::AttrInts(n, "pads"), (std::vector<int64_t>{0, 0, 0, 0}));
      EXPECT_EQ(optimizer::AttrInts(n, "dilations"), (std::vector<int64_t>{1, 1}));
      EXPECT_EQ(w->tensor.data<float>()[0], 0.25f * 5);  // w[0, 0, 1, 1], the centre: Weights' value 4
    } else {
      EXPECT_EQ(w->tensor.shape(), (Shape{3, 2, 3, 2}));
      EXPECT_EQ(optimizer::AttrInts(n, "pads"), (std::vector<int64_t>{2, 0, 2, 0}));
      EXPECT_EQ(optimizer::AttrInts(n, "kernel_shape"), (std::vector<int64_t>{3, 2}));
    }
  }
}

// An undilated Conv, a dilated one whose taps all reach the input, and one whose dropped tap holds an infinity (the
// original's padding times it is NaN) stay as they are.
TEST(OptimizerConvFusion, KeepsTapsThatReachTheInputOrAreNotFinite) {
  ir::Model o = Optimized(Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 1, 5, 5] x) => (float[1, 1, 5, 5] y, float[1, 1, 5, 5] z, float[1, 1, 5, 5] u) <
    float[1, 1, 3, 3] w = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0},
    float[1, 1, 3, 3] v = {inf, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}> {
  y = Conv<pads = [1, 1, 1, 1]>(x, w)
  z = Conv<dilations = [2, 2], pads = [2, 2, 2, 2]>(x, w)
  u = Conv<dilations = [5, 5], pads = [5, 5, 5, 5]>(x, v)
}
)"),
                          OptLevel::kExtended);
  for (const ir::Node& n : o.graph.nodes) {
    const ir::NamedTensor* w = o.graph.FindInitializer(n.inputs[1]);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->tensor.shape(), (Shape{1, 1, 3, 3})) << n.outputs[0];
  }
}

TEST(OptimizerConvFusion, LeavesConvWhoseOutputIsReadTwice) {
  ir::Model o = OptimizeAndCompare(OptLevel::kAll, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 1, 3, 3] x) => (float[1, 1, 3, 3] y, float[1, 1, 3, 3] z) <float[1, 1, 1, 1] w = {2.0}, float[1] k = {3.0}> {
  c = Conv(x, w)
  y = Add(c, k)
  z = Relu(c)
}
)");
  EXPECT_EQ(Count(o, "Add"), 1);
}

TEST(OptimizerGemmFusion, FoldsAddAndScalarMul) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] a) => (float[2, 2] y) <float[2, 3] b = {1.0, 2.0, 3.0, -1.0, 0.5, 0.25}, float[2] c = {0.5, -0.5},
                                       float[1, 2] d = {1.0, 2.0}, float s = {3.0}> {
  g1 = Gemm<transB = 1, alpha = 0.5, beta = 2.0>(a, b, c)
  g2 = Add(g1, d)
  y = Mul(s, g2)
}
)");
  EXPECT_EQ(Ops(o), (std::map<std::string, int64_t>{{"Gemm", 1}}));
}

TEST(OptimizerMatMulAdd, BecomesGemmForMatricesOnly) {
  ir::Model o = OptimizeAndCompare(OptLevel::kAll, R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3, 1] x, float[2, 2, 3] x3) => (float[2, 2] y, float[2, 2, 2] y3) <float[3, 2] b = {1.0, 2.0, 3.0, -1.0, 0.5, 0.25}, float[2] c = {0.5, -0.5}> {
  f = Flatten(x)
  p = MatMul(f, b)
  y = Add(p, c)
  p3 = MatMul(x3, b)
  y3 = Add(c, p3)
}
)");
  EXPECT_EQ(Count(o, "Gemm"), 1);
  EXPECT_EQ(Count(o, "MatMul"), 1) << "the batched MatMul keeps its Add";
}

constexpr const char* kGeluModel = R"(
<ir_version: 8, opset_import: ["" : OPSET]>
g (float[2, 8] x) => (float[2, 8] y, float[2, 8] z, float[2, 8] w) <float sqrt2 = {1.4142135}, float one = {1.0}, float half = {0.5}, float rsqrt2 = {0.70710677}> {
  d = Div(x, sqrt2)
  e = Erf(d)
  a = Add(e, one)
  m = Mul(x, a)
  y = Mul(m, half)
  d2 = Mul(x, rsqrt2)
  e2 = Erf(d2)
  a2 = Add(one, e2)
  h2 = Mul(half, x)
  z = Mul(h2, a2)
  p = Neg(x)
  d3 = Div(p, sqrt2)
  e3 = Erf(d3)
  a3 = Add(e3, one)
  h3 = Mul(a3, half)
  w = Mul(p, h3)
}
)";

std::string WithOpset(std::string text, int opset) {
  text.replace(text.find("OPSET"), 5, std::to_string(opset));
  return text;
}

TEST(OptimizerGelu, FusesTheErfFormInEachOrder) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, WithOpset(kGeluModel, 20));
  EXPECT_EQ(Ops(o), (std::map<std::string, int64_t>{{"Gelu", 3}, {"Neg", 1}}));
}

TEST(OptimizerGelu, UsesThePrivateOperatorBeforeOpset20) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, WithOpset(kGeluModel, 13));
  EXPECT_EQ(Count(o, "ai.onyx.internal.Gelu"), 3);
  EXPECT_TRUE(o.OpsetVersion("ai.onyx.internal").has_value());
}

// HardSwish in the forms exporters write: (x * relu6(x + 3)) / 6, x * (relu6(3 + x) * (1/6)), x * HardSigmoid(x)
// with alpha 1/6; and two that must stay: relu6(x + 3) read elsewhere too (r), and x * relu6(x + 3) without /6.
constexpr const char* kHardSwishModel = R"(
<ir_version: 8, opset_import: ["" : OPSET]>
g (float[2, 8] x) => (float[2, 8] y, float[2, 8] z, float[2, 8] w, float[2, 8] v, float[2, 8] r, float[2, 8] u) <float three = {3.0}, float six = {6.0}, float zero = {0.0}, float sixth = {0.16666667}> {
  a = Add(x, three)
  c = Clip(a, zero, six)
  m = Mul(x, c)
  y = Div(m, six)
  a2 = Add(three, x)
  c2 = Clip(a2, zero, six)
  s2 = Mul(c2, sixth)
  z = Mul(s2, x)
  hs = HardSigmoid<alpha = 0.16666667, beta = 0.5>(x)
  w = Mul(x, hs)
  p = Neg(x)
  a4 = Add(p, three)
  r = Clip(a4, zero, six)
  m4 = Mul(p, r)
  v = Div(m4, six)
  q = Relu(x)
  a5 = Add(q, three)
  c5 = Clip(a5, zero, six)
  u = Mul(q, c5)
}
)";

TEST(OptimizerHardSwish, FusesEachExporterForm) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, WithOpset(kHardSwishModel, 14));
  EXPECT_EQ(Count(o, "HardSwish"), 3);
  EXPECT_EQ(Count(o, "Clip"), 2);  // r (read as an output too) and u (no division by 6) stay
}

TEST(OptimizerHardSwish, UsesThePrivateOperatorBeforeOpset14) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, WithOpset(kHardSwishModel, 13));
  EXPECT_EQ(Count(o, "ai.onyx.internal.HardSwish"), 3);
}

constexpr const char* kLayerNormModel = R"(
<ir_version: 8, opset_import: ["" : OPSET]>
g (float[2, 3, 8] x) => (float[2, 3, 8] y) <float two = {2.0}, float eps = {1e-5},
    float[8] gamma = {1.0, 0.5, 2.0, 1.5, -1.0, 0.25, 1.0, 3.0}, float[8] beta = {0.0, 0.1, -0.1, 0.2, 0.3, -0.3, 0.5, 1.0}> {
  m = ReduceMean<axes = [-1]>(x)
  d = Sub(x, m)
  p = Pow(d, two)
  v = ReduceMean<axes = [-1]>(p)
  e = Add(v, eps)
  s = Sqrt(e)
  n = Div(d, s)
  g1 = Mul(n, gamma)
  y = Add(g1, beta)
}
)";

TEST(OptimizerLayerNorm, FusesTheDecomposedForm) {
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, WithOpset(kLayerNormModel, 17));
  EXPECT_EQ(Ops(o), (std::map<std::string, int64_t>{{"LayerNormalization", 1}}));
  ir::Model o13 = OptimizeAndCompare(OptLevel::kExtended, WithOpset(kLayerNormModel, 13));
  EXPECT_EQ(Ops(o13), (std::map<std::string, int64_t>{{"ai.onyx.internal.LayerNormalization", 1}}));
}

// nn.GroupNorm as PyTorch exports it before opset 18: Reshape to [N, G, -1], InstanceNormalization with ones and
// zeros, Reshape back (to Shape(x), or a constant), Mul by gamma and Add of beta per channel.
std::string GroupNormModel(int opset, const std::string& back_shape) {
  std::string text = R"(
<ir_version: 8, opset_import: ["" : OPSET]>
g (float[2, 8, 3, 5] x) => (float[2, 8, 3, 5] y) <int64[3] grouped = {0, 2, -1}, BACK_INIT
    float[2] ones = {1.0, 1.0}, float[2] zeros = {0.0, 0.0},
    float[8, 1, 1] gamma = {1.0, 0.5, 2.0, 1.5, -1.0, 0.25, 1.0, 3.0},
    float[8, 1, 1] beta = {0.0, 0.1, -0.1, 0.2, 0.3, -0.3, 0.5, 1.0}> {
  r = Reshape(x, grouped)
  n = InstanceNormalization<epsilon = 0.001>(r, ones, zeros)
  BACK_SHAPE
  b = Reshape(n, back)
  m = Mul(b, gamma)
  y = Add(m, beta)
}
)";
  auto replace = [&text](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("OPSET", std::to_string(opset));
  if (back_shape.empty()) {  // Shape(x)
    replace("BACK_INIT", "");
    replace("BACK_SHAPE", "back = Shape(x)");
  } else {
    replace("BACK_INIT", "int64[4] back = {" + back_shape + "},");
    replace("BACK_SHAPE", "");
  }
  return text;
}

TEST(OptimizerGroupNorm, FusesTheExportedForm) {
  // Shape(x) or a constant for the second Reshape; the private operator before opset 21, ONNX's from 21.
  for (const std::string& back : {std::string(), std::string("2, 8, 3, 5")}) {
    ir::Model o = OptimizeAndCompare(OptLevel::kExtended, GroupNormModel(17, back));
    EXPECT_EQ(Ops(o), (std::map<std::string, int64_t>{{"ai.onyx.internal.GroupNormalization", 1}})) << back;
  }
  ir::Model o21 = OptimizeAndCompare(OptLevel::kExtended, GroupNormModel(21, ""));
  EXPECT_EQ(Ops(o21), (std::map<std::string, int64_t>{{"GroupNormalization", 1}}));
}

TEST(OptimizerGroupNorm, KeepsAReshapeToAnotherShape) {
  // The second Reshape does not restore x's shape (the same elements as [2, 8, 5, 3]): not a GroupNormalization.
  ir::Model o = OptimizeAndCompare(OptLevel::kExtended, GroupNormModel(17, "2, 8, 5, 3"));
  EXPECT_EQ(Count(o, "ai.onyx.internal.GroupNormalization"), 0);
  EXPECT_EQ(Count(o, "InstanceNormalization"), 1);
}

// A residual Add before the decomposed LayerNormalization, with a bias on the sum: ONNX Runtime fuses it into
// com.microsoft SkipLayerNormalization, which computes differently; only OptimizerOptions::ort_fusions does as well.
std::string SkipLayerNormModel(const std::string& a_shape = "2, 3, 8", const std::string& b_shape = "2, 3, 8") {
  std::string text = WithOpset(kLayerNormModel, 17);
  auto replace = [&text](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("g (float[2, 3, 8] x)", "g (float[" + a_shape + "] a, float[" + b_shape + "] b)");
  replace("<float two", "<float[8] bias = {0.5, -0.5, 0.25, 0.0, 1.0, -1.0, 0.125, 2.0}, float two");
  replace("  m = ReduceMean", "  r = Add(a, b)\n  x = Add(r, bias)\n  m = ReduceMean");
  return text;
}

// The optimizer as a session asking for ONNX Runtime's summation order runs it (OptimizerOptions::ort_fusions).
ir::Model OptimizedForOrt(ir::Model m) {
  optimizer::OptimizerOptions options;
  options.level = OptLevel::kAll;
  options.run_constant_model = ConstantModelRunner(1);
  options.ort_fusions = true;
  Status st = optimizer::OptimizeModel(m, options);
  EXPECT_TRUE(st.ok()) << st.message();
  return m;
}

TEST(OptimizerSkipLayerNorm, FusedOnlyForOnnxRuntimesArithmetic) {
  ir::Model original = Parse(SkipLayerNormModel());
  ir::Model own = Optimized(original, OptLevel::kAll);
  EXPECT_EQ(Count(own, "com.microsoft.SkipLayerNormalization"), 0);
  EXPECT_EQ(Count(own, "LayerNormalization"), 1);
  ir::Model ort = OptimizedForOrt(original);
  EXPECT_EQ(Ops(ort), (std::map<std::string, int64_t>{{"com.microsoft.SkipLayerNormalization", 1}}));
  const ir::Node& fused = ort.graph.nodes[0];
  EXPECT_EQ(fused.inputs, (std::vector<std::string>{"a", "b", "gamma", "beta", "bias"}));
  ExpectSameResults(original, ort);
}

TEST(OptimizerSkipLayerNorm, NeedsEqualShapesOfTheSum) {
  // b broadcasts over a: SkipLayerNormalization's skip may not be the larger operand, so nothing fuses.
  const std::string text = SkipLayerNormModel("2, 3, 8", "1, 3, 8");
  ir::Model m = OptimizedForOrt(Parse(text));
  EXPECT_EQ(Count(m, "com.microsoft.SkipLayerNormalization"), 0);
  EXPECT_EQ(Count(m, "LayerNormalization"), 1);
}

TEST(OptimizerSkipLayerNorm, SymbolicDimsDoNotFuse) {
  // ONNX Runtime fused none of a decoder's residual LayerNormalizations over [batch, seq, hidden] (measured).
  const std::string text = SkipLayerNormModel("N, 3, 8", "N, 3, 8");
  ir::Model m = OptimizedForOrt(Parse(text));
  EXPECT_EQ(Count(m, "com.microsoft.SkipLayerNormalization"), 0);
}

TEST(OptimizerMatMulScale, ScalarFactorsBecomeFusedMatMulAlphaForOnnxRuntimesArithmetic) {
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 4, 8] q, float[2, 8, 4] k, float[2, 4, 8] x, float[2, 8, 3] w) => (float[2, 4, 4] s, float[2, 4, 3] t)
    <float eight = {8.0}, float half = {0.5}> {
  p = MatMul(q, k)
  s = Div(p, eight)
  h = Mul(half, x)
  t = MatMul(h, w)
}
)";
  ir::Model original = Parse(text);
  ir::Model own = Optimized(original, OptLevel::kAll);
  EXPECT_EQ(Count(own, "com.microsoft.FusedMatMul"), 0);
  ir::Model ort = OptimizedForOrt(original);
  EXPECT_EQ(Ops(ort), (std::map<std::string, int64_t>{{"com.microsoft.FusedMatMul", 2}}));
  std::vector<float> alphas;
  for (const auto& n : ort.graph.nodes) alphas.push_back(n.FindAttribute("alpha")->f);
  std::sort(alphas.begin(), alphas.end());
  EXPECT_EQ(alphas, (std::vector<float>{0.125f, 0.5f}));
  ExpectSameResults(original, ort);
}

TEST(OptimizerLayerNorm, LeavesItWhenTheCenteredValueIsReadElsewhere) {
  std::string text = WithOpset(kLayerNormModel, 17);
  const std::string outputs = "=> (float[2, 3, 8] y)";
  text.replace(text.find(outputs), outputs.size(), "=> (float[2, 3, 8] y, float[2, 3, 8] d)");
  ir::Model o = OptimizeAndCompare(OptLevel::kAll, text);
  EXPECT_EQ(Count(o, "LayerNormalization"), 0);
}

// ---- the session face

TEST(OptimizerSession, LevelOptionAndSavedOptimizedModel) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4] y) {
  a = Identity(x)
  b = Constant<value = float {2.0}>()
  y = Mul(a, b)
}
)");
  const std::string path = (std::filesystem::temp_directory_path() / "onyx_optimizer_test.onnx").string();
  SessionOptions so;
  so.optimized_model_path = path;
  auto s = Session::Create(m, so);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->model().graph.nodes.size(), 1u) << "optimization is on by default (all)";
  EXPECT_EQ((*s)->optimizer_stats().nodes_before, 3);
  EXPECT_EQ((*s)->optimizer_stats().nodes_after, 1);
  auto saved = format::LoadModel(path);
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  EXPECT_EQ(saved->graph.nodes.size(), 1u);
  std::filesystem::remove(path);
  so = SessionOptions();
  so.optimization_level = OptLevel::kDisabled;
  auto plain = Session::Create(m, so);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->model().graph.nodes.size(), 3u);
}

TEST(OptimizerLevels, ParseNamesAndNumbers) {
  EXPECT_EQ(*optimizer::ParseOptLevel("disabled"), OptLevel::kDisabled);
  EXPECT_EQ(*optimizer::ParseOptLevel("basic"), OptLevel::kBasic);
  EXPECT_EQ(*optimizer::ParseOptLevel("extended"), OptLevel::kExtended);
  EXPECT_EQ(*optimizer::ParseOptLevel("all"), OptLevel::kAll);
  EXPECT_EQ(*optimizer::ParseOptLevel("99"), OptLevel::kAll);
  EXPECT_EQ(*optimizer::ParseOptLevel("1"), OptLevel::kBasic);
  EXPECT_FALSE(optimizer::ParseOptLevel("fast").ok());
  EXPECT_FALSE(optimizer::OptLevelFromInt(-1).ok());
}

}  // namespace
}  // namespace onyx
