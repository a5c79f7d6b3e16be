// Shape and type inference (src/infer): symbolic arithmetic, data propagation through shape computations,
// control flow, sequences, optionals, functions, conflicts with declared types, and the real models.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string_view>

#include "format/model_io.h"
#include "infer/dim_math.h"
#include "infer/shape_inference.h"
#include "text/parser.h"

namespace onyx::infer {
namespace {

// Parses `text` (failing the test if it does not parse) and, unless `keep_output_types`, drops the graph outputs'
// declared types, so that what inference gives them is what the test sees.
ir::Model Parse(const std::string& text, bool keep_output_types = false) {
  auto model = text::ParseModel(text);
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return {};
  if (!keep_output_types) {
    for (auto& o : model->graph.outputs) o.type.reset();
  }
  return std::move(*model);
}

// Parses `text` as Parse does, infers strictly (failing the test on an error), and returns the model.
ir::Model Infer(const std::string& text, bool keep_output_types = false) {
  ir::Model model = Parse(text, keep_output_types);
  Status st = InferShapes(model);
  EXPECT_TRUE(st.ok()) << st.message();
  return model;
}

// Strict inference of `model` fails, with a message containing each of `fragments`.
void ExpectInferenceError(ir::Model model, const std::vector<std::string>& fragments) {
  Status st = InferShapes(model);
  ASSERT_FALSE(st.ok());
  for (const auto& f : fragments) EXPECT_NE(st.message().find(f), std::string::npos) << st.message();
}

// Parses `text` keeping every declared type and infers leniently (strict off): what strict inference would fail
// on is reported in `diagnostics` instead. Returns the model.
ir::Model InferLeniently(const std::string& text, std::vector<std::string>* diagnostics) {
  ir::Model model = Parse(text, /*keep_output_types=*/true);
  InferOptions o;
  o.strict = false;
  o.diagnostics = diagnostics;
  Status st = InferShapes(model, o);
  EXPECT_TRUE(st.ok()) << st.message();
  return model;
}

// The inferred type of `name` in the main graph ("float[N,3]"), or "none".
std::string TypeOf(const ir::Model& m, const std::string& name) {
  for (const auto& vi : m.graph.outputs) {
    if (vi.name == name) return vi.type ? vi.type->ToShortString() : "none";
  }
  for (const auto& vi : m.graph.value_info) {
    if (vi.name == name) return vi.type ? vi.type->ToShortString() : "none";
  }
  return "none";
}

TEST(InferDimMath, NumbersAndSymbols) {
  using ir::Dim;
  EXPECT_EQ(DimMul(Dim::Param("N"), Dim::Value(2)).ToString(), "N*2");
  EXPECT_EQ(DimAdd(Dim::Param("N"), Dim::Param("N")).ToString(), "N*2");
  EXPECT_EQ(DimSub(Dim::Param("seq_len"), Dim::Value(1)).ToString(), "seq_len-1");
  EXPECT_EQ(DimSub(Dim::Param("N"), DimSub(Dim::Param("M"), Dim::Value(1))).ToString(), "N-(M-1)");
  EXPECT_EQ(DimMul(DimAdd(Dim::Param("N"), Dim::Value(1)), Dim::Value(3)).ToString(), "(N+1)*3");
  EXPECT_EQ(DimAdd(DimSub(Dim::Param("T"), Dim::Value(1)), Dim::Value(1)).ToString(), "T");
  EXPECT_EQ(DimFloorDiv(Dim::Param("N*C*H"), Dim::Param("N")).ToString(), "C*H");
  EXPECT_EQ(DimFloorDiv(Dim::Param("H*W"), Dim::Value(2)).ToString(), "H*W/2");
  EXPECT_EQ(DimFloorDiv(Dim::Value(7), Dim::Value(2)).value, 3);
  EXPECT_EQ(DimFloorDiv(Dim::Value(-7), Dim::Value(2)).value, -4);
  EXPECT_EQ(DimCeilDiv(Dim::Value(7), Dim::Value(2)).value, 4);
  EXPECT_EQ(DimSub(Dim::Param("N"), Dim::Param("N")).value, 0);
  EXPECT_EQ(DimMul(Dim{}, Dim::Value(0)).value, 0);
  EXPECT_EQ(DimAdd(Dim{}, Dim::Value(1)).kind, Dim::Kind::kUnknown);
  EXPECT_EQ(DimFloorDiv(Dim::Param("N"), Dim::Value(0)).kind, Dim::Kind::kUnknown);
}

// Dims from a hostile file can be huge: arithmetic that would overflow int64 gives an unknown dim, never undefined
// behaviour (found by the libFuzzer target fuzz_onnx_model: a Reshape whose dims multiply past 2^63).
TEST(InferDimMath, OverflowGivesAnUnknownDim) {
  using ir::Dim;
  const int64_t big = int64_t{1} << 40;
  EXPECT_FALSE(DimMul(Dim::Value(big), Dim::Value(big)).is_value());
  EXPECT_FALSE(DimAdd(Dim::Value(INT64_MAX), Dim::Value(1)).is_value());
  EXPECT_FALSE(DimSub(Dim::Value(INT64_MIN), Dim::Value(1)).is_value());
  EXPECT_EQ(DimMul(Dim::Value(big), Dim::Value(4)).value, big * 4);
  EXPECT_EQ(DimSub(Dim::Param("N"), Dim::Value(INT64_MIN)).kind == Dim::Kind::kValue, false);
}

TEST(InferSymbolic, ArithmeticOnDims) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3] x, float[seq_len, 4] s, float[1, 3, H, W] img, float[8, 3, 3, 3] w, float[3, 5] m3, float[1, 3] bias)
    => (c, sl, p, cv, mm, b)
    <int64[1] one = {1}, int64[1] big = {9223372036854775807}, int64[1] zero = {0}, int64[4] pads = {1, 0, 2, 0}> {
  c = Concat<axis = 0>(x, x)
  sl = Slice(s, one, big, zero)
  p = Pad(x, pads)
  cv = Conv<kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]>(img, w)
  mm = MatMul(x, m3)
  b = Add(x, bias)
}
)");
  EXPECT_EQ(TypeOf(m, "c"), "float[N*2,3]");
  EXPECT_EQ(TypeOf(m, "sl"), "float[seq_len-1,4]");
  EXPECT_EQ(TypeOf(m, "p"), "float[N+3,3]");
  EXPECT_EQ(TypeOf(m, "cv"), "float[1,8,(H-1)/2+1,(W-1)/2+1]");
  EXPECT_EQ(TypeOf(m, "mm"), "float[N,5]");
  EXPECT_EQ(TypeOf(m, "b"), "float[N,3]");
}

// Slices whose bounds count from the end have a length that does not depend on the sliced size.
TEST(InferSymbolic, SliceFromTheEnd) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, T] x) => (last3, mid, rev, tail)
    <int64[1] m4 = {-4}, int64[1] m1 = {-1}, int64[1] m3 = {-3}, int64[1] big = {9223372036854775807},
     int64[1] small = {-9223372036854775807}, int64[1] one = {1}, int64[1] m2 = {-2}> {
  last3 = Slice(x, m3, big, one)
  mid = Slice(x, m4, m1, one)
  rev = Slice(x, m1, small, one, m1)
  tail = Slice(x, m2, small, one, m1)
}
)");
  EXPECT_EQ(TypeOf(m, "last3"), "float[N,3]");
  EXPECT_EQ(TypeOf(m, "mid"), "float[N,3]");
  EXPECT_EQ(TypeOf(m, "rev"), "float[N,T]");
  EXPECT_EQ(TypeOf(m, "tail"), "float[N,T-1]");
}

TEST(InferDataPropagation, ShapeGatherConcatReshape) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, C, H, W] x) => (flat, ones, r, half) <int64[1] zero = {0}, int64[1] one = {1}, int64[1] two = {2}, int64[1] four = {4}, int64[1] minus_one = {-1},
 int64 zero_s = {0}, int64 one_s = {1}, int64 two_s = {2}> {
  s = Shape(x)
  n = Gather<axis = 0>(s, zero_s)
  n1 = Unsqueeze(n, zero)
  shape = Concat<axis = 0>(n1, minus_one)
  flat = Reshape(x, shape)
  hw = Slice(s, two, four)
  ones = ConstantOfShape<value = int64[1] {1}>(hw)
  cnt = Size(x)
  len = Div(cnt, n)
  r = Range(zero_s, len, one_s)
  c = Gather<axis = 0>(s, one_s)
  c2 = Mul(c, two_s)
  hs = Concat<axis = 0>(n1, c2_1, minus_one)
  c2_1 = Unsqueeze(c2, zero)
  half = Reshape(x, hs)
}
)");
  EXPECT_EQ(TypeOf(m, "s"), "int64[4]");
  EXPECT_EQ(TypeOf(m, "flat"), "float[N,C*H*W]");
  EXPECT_EQ(TypeOf(m, "ones"), "int64[H,W]");
  EXPECT_EQ(TypeOf(m, "cnt"), "int64[]");
  EXPECT_EQ(TypeOf(m, "r"), "int64[C*H*W]");
  EXPECT_EQ(TypeOf(m, "half"), "float[N,C*2,H*W/2]");
}

TEST(InferDataPropagation, OffLeavesComputedShapesUnknown) {
  ir::Model model = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 6] x) => (y) {
  s = Shape(x)
  y = Reshape(x, s)
})");
  InferOptions o;
  o.data_propagation = false;
  ASSERT_TRUE(InferShapes(model, o).ok());
  EXPECT_EQ(TypeOf(model, "y"), "float[unk__0,unk__1]");
}

TEST(InferControlFlow, IfBranchesUnion) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[N, 3] x, float[N, 4] z) => (y, w) {
  y, w = If(c) <
    then_branch = t () => (a, b) { a = Identity(x)  b = Relu(x) },
    else_branch = e () => (a, b) { a = Identity(z)  b = Sigmoid(x) }>
})");
  // Unknown dims get fresh symbols (as ONNX names them), so that later operators can match them.
  EXPECT_EQ(TypeOf(m, "y"), "float[N,unk__0]");
  EXPECT_EQ(TypeOf(m, "w"), "float[N,3]");
}

TEST(InferControlFlow, IfBranchesWithDifferentElementTypesFail) {
  ExpectInferenceError(Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x, int64[2] z) => (y) {
  y = If(c) <
    then_branch = t () => (a) { a = Identity(x) },
    else_branch = e () => (a) { a = Identity(z) }>
})"),
                       {"(If, opset 16)", "else_branch"});
}

// The exporter pattern `if x.shape[1] == 1: x = x.squeeze(1)`: the branches differ in rank, but the
// condition is computed from shapes, so only the taken branch gives the output's type. Nested in an If
// whose condition is an input (both of its branches do the same), as silero_vad_v4_legacy does; the batch
// symbol must reach the outer outputs.
TEST(InferControlFlow, IfWithConditionComputedFromShapesTakesThatBranch) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[N, 1, T] x, float[2, N, 8] h) => (y, r, hn)
    <int64 one_s = {1}, int64 zero_s = {0}, int64 two_s = {2}, int64[1] one = {1}, int64[1] zero = {0}> {
  s = Shape(x)
  d1 = Gather<axis = 0>(s, one_s)
  squeezable = Equal(d1, one_s)
  rank = Shape(s)
  rank_s = Squeeze(rank, zero)
  is_2d = Equal(rank_s, two_s)
  hs = Shape(h)
  hd = Gather<axis = 0>(hs, zero_s)
  has_state = Cast<to = 9>(hd)
  y, hn = If(c) <
    then_branch = t () => (yt, ht) {
      sq = If(squeezable) <
        then_branch = a () => (o) { o = Squeeze(x, one) },
        else_branch = b () => (o) { o = Identity(x) }>
      yt = ReduceMean<axes = [1], keepdims = 0>(sq)
      ht = If(has_state) <
        then_branch = a2 () => (o) { o = Identity(h) },
        else_branch = b2 () => (o) { o = Constant<value = float[1] {0.0}>() }>
    },
    else_branch = e () => (ye, he) {
      ye = ReduceMax<axes = [1, 2], keepdims = 0>(x)
      he = Neg(h)
    }>
  r = If(is_2d) <
    then_branch = t3 () => (o) { o = Unsqueeze(x, zero) },
    else_branch = e3 () => (o) { o = Identity(x) }>
}
)");
  EXPECT_EQ(TypeOf(m, "squeezable"), "bool[]");
  EXPECT_EQ(TypeOf(m, "y"), "float[N]");
  EXPECT_EQ(TypeOf(m, "r"), "float[N,1,T]");
  EXPECT_EQ(TypeOf(m, "hn"), "float[2,N,8]");
}

// The branch that is not taken never runs: what it would compute (a Squeeze of an axis that is not 1)
// is not an error of the If.
TEST(InferControlFlow, IfBranchNotTakenMayNotApply) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3] x) => (y) <int64 one_s = {1}, int64[1] one = {1}> {
  xs = Shape(x)
  d1 = Gather<axis = 0>(xs, one_s)
  squeezable = Equal(d1, one_s)
  y = If(squeezable) <
    then_branch = a () => (o) { o = Squeeze(x, one) },
    else_branch = b () => (o) { o = Identity(x) }>
}
)";
  auto m = Infer(text);  // strict
  EXPECT_EQ(TypeOf(m, "y"), "float[N,3]");
  // Not strict: nothing is reported about the branch either.
  std::vector<std::string> diagnostics;
  auto lenient = InferLeniently(text, &diagnostics);
  EXPECT_TRUE(diagnostics.empty()) << (diagnostics.empty() ? "" : diagnostics[0]);
  EXPECT_EQ(TypeOf(lenient, "y"), "float[N,3]");
}

// With a condition nothing is known about, both branches count (their union).
TEST(InferControlFlow, IfWithUnknownConditionStillUnionsBranches) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1, T] x, float[M] v) => (y) <int64 zero_s = {0}, int64[1] one = {1}> {
  vs = Shape(v)
  d = Gather<axis = 0>(vs, zero_s)
  c = Equal(d, zero_s)
  y = If(c) <
    then_branch = a () => (o) { o = Squeeze(x, one) },
    else_branch = b () => (o) { o = Identity(x) }>
}
)");
  EXPECT_EQ(TypeOf(m, "y"), "float");  // ranks 2 and 3: no shape
}

TEST(InferDataPropagation, ComparisonsLogicAndWhere) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 2, 2] x, float[N, 3] z) => (y, w)
    <int64[2] t = {0, 4}, int64[1] zero = {0}, int64[1] two = {2}, int64 three_s = {3}, int64 one_s = {1},
     int64 zero_s = {0}> {
  m = Equal(t, zero)
  xs = Shape(x)
  sh = Slice(xs, zero, two)
  target = Where(m, sh, t)
  y = Reshape(x, target)
  zs = Shape(z)
  d1 = Gather<axis = 0>(zs, one_s)
  small = Less(d1, three_s)
  big = Not(small)
  zn = Gather<axis = 0>(zs, zero_s)
  xn = Gather<axis = 0>(xs, zero_s)
  same = Equal(zn, xn)
  both = And(big, same)
  w = If(both) <
    then_branch = a () => (o) { o = Identity(z) },
    else_branch = b () => (o) { o = Identity(x) }>
}
)");
  EXPECT_EQ(TypeOf(m, "y"), "float[N,4]");
  EXPECT_EQ(TypeOf(m, "w"), "float[N,3]");  // N == N and not 3 < 3: the then_branch
}

TEST(InferControlFlow, LoopCarriedAndScanOutputs) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x, float[2] acc0) => (acc, grow, stacked) <int64 trips = {5}> {
  acc, grow, stacked = Loop(trips, , acc0, x) <body = b (int64 i, bool cond, float[2] a, float[K] g) => (co, ao, go, so) {
    co = Identity(cond)
    ao = Add(a, a)
    go = Concat<axis = 0>(g, g)
    so = Mul(a, a)
  }>
}
)");
  EXPECT_EQ(TypeOf(m, "acc"), "float[2]");
  // The concatenated value grows each iteration: only its rank is known.
  EXPECT_EQ(TypeOf(m, "grow").substr(0, 11), "float[unk__");
  EXPECT_EQ(TypeOf(m, "stacked"), "float[5,2]");
}

TEST(InferControlFlow, ScanOverAxis) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] init, float[T, 2] xs) => (final, ys) {
  final, ys = Scan(init, xs) <num_scan_inputs = 1, scan_output_axes = [1], body = b (float[2] s, float[2] x) => (so, y) {
    so = Add(s, x)
    y = Identity(so)
  }>
})");
  EXPECT_EQ(TypeOf(m, "final"), "float[2]");
  EXPECT_EQ(TypeOf(m, "ys"), "float[2,T]");
}

TEST(InferSequences, ConstructAtInsertLength) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3] a, float[N, 3] b, float[M, 3] c) => (s, e, s2, n, cat, parts) <int64 zero = {0}> {
  s = SequenceConstruct(a, b)
  e = SequenceAt(s, zero)
  s2 = SequenceInsert(s, c)
  n = SequenceLength(s2)
  cat = ConcatFromSequence<axis = 0>(s2)
  parts = SplitToSequence<axis = 1, keepdims = 0>(a)
}
)");
  EXPECT_EQ(TypeOf(m, "s"), "seq(tensor(float))");
  EXPECT_EQ(TypeOf(m, "n"), "int64[]");
  EXPECT_EQ(TypeOf(m, "e"), "float[N,3]");
  EXPECT_EQ(TypeOf(m, "cat").substr(0, 11), "float[unk__");
  // The element shapes, which ToShortString does not show for sequences.
  for (const auto& vi : m.graph.outputs) {
    if (vi.name == "s2") {
      EXPECT_EQ(vi.type->elem->ToShortString().substr(0, 11), "float[unk__");
    }
    if (vi.name == "parts") {
      EXPECT_EQ(vi.type->elem->ToShortString(), "float[N]");
    }
  }
}

TEST(InferSequences, OptionalRoundTrip) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (o, v, h) {
  o = Optional(x)
  v = OptionalGetElement(o)
  h = OptionalHasElement(o)
})");
  EXPECT_EQ(TypeOf(m, "o"), "optional(tensor(float))");
  EXPECT_EQ(TypeOf(m, "v"), "float[N]");
  EXPECT_EQ(TypeOf(m, "h"), "bool[]");
}

TEST(InferFunctions, ModelLocalFunctionBody) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[N, 4] x) => (y) {
  y = local.Twice<axis = 1>(x)
}
<domain: "local", opset_import: ["" : 17]>
Twice <axis> (a) => (b) {
  b = Concat<axis: int = @axis>(a, a)
})");
  EXPECT_EQ(TypeOf(m, "y"), "float[N,8]");
}

TEST(InferConflicts, DeclaredTypeContradictedIsAnErrorNamingNodeOperatorAndValue) {
  const char* text = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[N, 3] x) => (float[N, 3] y) <float[N, 4] t> {
  t = Relu(x)
  y = Identity(t)
})";
  ir::Model model = Parse(text, /*keep_output_types=*/true);
  ASSERT_FALSE(model.graph.nodes.empty());
  model.graph.nodes[0].name = "relu_1";
  ExpectInferenceError(std::move(model), {"node 'relu_1' (Relu, opset 13)", "'t'", "dim 1 is 3 vs declared 4"});

  // Not strict: a diagnostic, and the declared type stays.
  std::vector<std::string> diagnostics;
  auto lenient = InferLeniently(text, &diagnostics);
  // The conflict on 't', then (since the declared type of 't' is kept) one on the output 'y'.
  ASSERT_EQ(diagnostics.size(), 2u);
  EXPECT_NE(diagnostics[0].find("'t'"), std::string::npos) << diagnostics[0];
  EXPECT_NE(diagnostics[1].find("'y'"), std::string::npos) << diagnostics[1];
  EXPECT_EQ(TypeOf(lenient, "t"), "float[N,4]");
}

TEST(InferConflicts, ElementTypeConflict) {
  ExpectInferenceError(Parse(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (int64[2] y) {
  y = Relu(x)
})",
                             /*keep_output_types=*/true),
                       {"element type float vs declared int64"});
}

TEST(InferConflicts, LessSpecificDeclarationsAreCompleted) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x) => (float[N, ?] y) {
  y = Transpose(x)
})",
                 /*keep_output_types=*/true);
  EXPECT_EQ(TypeOf(m, "y"), "float[3,2]");
}

TEST(InferErrors, BroadcastMismatchIsReported) {
  ExpectInferenceError(Parse(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] x, float[4] z) => (y) {
  y = Add(x, z)
})",
                             /*keep_output_types=*/true),
                       {"(Add, opset 13)", "cannot broadcast"});
}

TEST(InferUnknownOps, LeaveOutputsUnknown) {
  auto m = Infer(R"(<ir_version: 8, opset_import: ["" : 13, "com.vendor" : 1]>
g (float[2] x) => (y, z) {
  y = com.vendor.Mystery(x)
  z = Relu(y)
})");
  EXPECT_EQ(TypeOf(m, "y"), "none");
  EXPECT_EQ(TypeOf(m, "z"), "none");
}

TEST(InferVersions, SqueezeAndReduceAxesMovedToInputs) {
  auto m11 = Infer(R"(<ir_version: 7, opset_import: ["" : 11]>
g (float[N, 1, 3] x) => (sq, rs) {
  sq = Squeeze<axes = [1]>(x)
  rs = ReduceSum<axes = [2], keepdims = 0>(x)
})");
  EXPECT_EQ(TypeOf(m11, "sq"), "float[N,3]");
  EXPECT_EQ(TypeOf(m11, "rs"), "float[N,1]");
  auto m18 = Infer(R"(<ir_version: 8, opset_import: ["" : 18]>
g (float[N, 1, 3] x) => (sq, rm, sp0, sp1) <int64[1] one = {1}, int64[1] two = {2}> {
  sq = Squeeze(x, one)
  rm = ReduceMean<keepdims = 1>(x, two)
  sp0, sp1 = Split<axis = 2, num_outputs = 2>(x)
}
)");
  EXPECT_EQ(TypeOf(m18, "sq"), "float[N,3]");
  EXPECT_EQ(TypeOf(m18, "rm"), "float[N,1,1]");
  EXPECT_EQ(TypeOf(m18, "sp0"), "float[N,1,2]");
  EXPECT_EQ(TypeOf(m18, "sp1"), "float[N,1,1]");
}

// Removes every declared type a graph and its subgraphs carry for values other than graph inputs (outputs,
// value_info), so that inference starts from the inputs alone.
void StripDeclaredTypes(ir::Graph& g) {
  g.value_info.clear();
  for (auto& o : g.outputs) o.type.reset();
  for (auto& n : g.nodes) {
    for (auto& a : n.attributes) {
      if (a.g) StripDeclaredTypes(*a.g);
      for (auto& sub : a.graphs) {
        if (sub) StripDeclaredTypes(*sub);
      }
    }
  }
}

// The symbols a dim expression names ("(sequence-64)/64+1" names sequence; ceil() is not a symbol).
std::vector<std::string> SymbolsOf(const std::string& expr) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&](char next) {
    bool number = !cur.empty() && cur.find_first_not_of("0123456789") == std::string::npos;
    if (!cur.empty() && !number && !(cur == "ceil" && next == '(')) out.push_back(cur);
    cur.clear();
  };
  for (char ch : expr) {
    if (std::string_view("+-*/() ").find(ch) != std::string_view::npos) {
      flush(ch);
    } else {
      cur += ch;
    }
  }
  flush('\0');
  return out;
}

// Every model in ../shared/models/onnx gets complete output shapes from its inputs alone: each dim a
// number, or a symbol of the graph inputs or an expression of them, never a generated one.
TEST(InferRealModels, EveryOutputFullyShapedFromInputs) {
  std::filesystem::path dir = std::filesystem::path(ONYX_SHARED_DIR) / "models" / "onnx";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " not found";
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".onnx") continue;
    ++models;
    auto model = format::LoadModel(entry.path().string());
    ASSERT_TRUE(model.ok()) << model.status().message();
    std::vector<std::optional<ir::TypeInfo>> declared;
    for (auto& o : model->graph.outputs) declared.push_back(o.type);
    StripDeclaredTypes(model->graph);
    std::set<std::string> input_symbols;
    for (const auto& in : model->graph.inputs) {
      if (!in.type || !in.type->shape) continue;
      for (const auto& d : *in.type->shape) {
        if (d.is_param()) input_symbols.insert(d.param);
      }
    }
    Status st = InferShapes(*model);
    ASSERT_TRUE(st.ok()) << entry.path() << ": " << st.message();
    for (size_t i = 0; i < model->graph.outputs.size(); ++i) {
      const auto& o = model->graph.outputs[i];
      ASSERT_TRUE(o.type && o.type->is_tensor() && o.type->shape)
          << entry.path() << ": output '" << o.name << "' has no shape";
      EXPECT_NE(o.type->elem_type, DataType::kUndefined) << entry.path() << ": output '" << o.name << "'";
      for (const auto& d : *o.type->shape) {
        ASSERT_TRUE(d.is_value() || d.is_param())
            << entry.path() << ": output '" << o.name << "' is " << o.type->ToShortString();
        if (!d.is_param()) continue;
        auto symbols = SymbolsOf(d.param);
        EXPECT_FALSE(symbols.empty()) << d.param;
        for (const auto& sym : symbols) {
          EXPECT_EQ(input_symbols.count(sym), 1u)
              << entry.path() << ": output '" << o.name << "' is " << o.type->ToShortString() << ": '" << sym
              << "' is not a dim of the graph inputs";
        }
      }
      // And it agrees with what the model declares.
      std::string conflict;
      if (declared[i]) {
        EXPECT_TRUE(MergeTypes(*declared[i], *o.type, &conflict).has_value())
            << entry.path() << ": output '" << o.name << "': " << conflict;
      }
    }
  }
  EXPECT_GE(models, 5);
}

TEST(InferRealModelsHelpers, SymbolsOfExpressions) {
  EXPECT_EQ(SymbolsOf("(sequence-64)/64+1"), std::vector<std::string>{"sequence"});
  EXPECT_EQ(SymbolsOf("ceil(N/2)*C"), (std::vector<std::string>{"N", "C"}));
  EXPECT_TRUE(SymbolsOf("12").empty());
}

}  // namespace
}  // namespace onyx::infer
