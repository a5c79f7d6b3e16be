// Opset conversion: per adapter, a text-syntax model converted up and down; the structure is asserted and, where
// both versions run, the outputs of the converted model are compared with the original's.
#include "version/opset_converter.h"

#include <gtest/gtest.h>

#include <string>

#include "checker/checker.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx::version {
namespace {

ir::Model Parse(std::string_view text) {
  auto m = text::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

ir::Model Convert(const ir::Model& m, int64_t target) {
  auto out = ConvertOpset(m, target);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  EXPECT_EQ(out->OpsetVersion("ai.onnx"), target);
  for (const auto& p : checker::CheckModel(*out)) ADD_FAILURE() << p.ToString();
  return std::move(out).value();
}

std::vector<float> RunFloat(const ir::Model& m, const std::vector<std::pair<std::string, Tensor>>& feeds) {
  auto session = Session::Create(m);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  std::vector<std::pair<std::string, Value>> values;
  for (const auto& [n, t] : feeds) values.emplace_back(n, Value(t));
  std::vector<Value> outs;
  Status s = (*session)->Run(values, {}, &outs);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  auto v = outs[0].tensor().values<float>();
  return {v.begin(), v.end()};
}

const ir::Node* FindOp(const ir::Graph& g, const std::string& op) {
  for (const auto& n : g.nodes) {
    if (n.op_type == op) return &n;
  }
  return nullptr;
}

TEST(OpsetConverterTest, ClipAttributesBecomeInputsAndBack) {
  ir::Model m = Parse(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[4] x) => (float[4] y) { [c] y = Clip<min = -1.0, max = 2.0>(x) })");
  ir::Model up = Convert(m, 11);
  const ir::Node* clip = FindOp(up.graph, "Clip");
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->name, "c");
  EXPECT_EQ(clip->inputs.size(), 3u);
  EXPECT_TRUE(clip->attributes.empty());
  Tensor x = Tensor::FromVector<float>({-3, 0, 1.5, 7}, {4});
  EXPECT_EQ(RunFloat(up, {{"x", x}}), (std::vector<float>{-1, 0, 1.5, 2}));
  ir::Model down = Convert(up, 6);
  clip = FindOp(down.graph, "Clip");
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->inputs.size(), 1u);
  ASSERT_NE(clip->FindAttribute("max"), nullptr);
  EXPECT_EQ(clip->FindAttribute("max")->f, 2.0f);
}

TEST(OpsetConverterTest, ReduceAxesUpAndDownRunTheSame) {
  ir::Model m = Parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3] x) => (float[2] y) { [r] y = ReduceMean<axes = [1], keepdims = 0>(x) })");
  ir::Model up = Convert(m, 18);
  EXPECT_EQ(FindOp(up.graph, "ReduceMean")->inputs.size(), 2u);
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(RunFloat(up, {{"x", x}}), RunFloat(m, {{"x", x}}));
  ir::Model down = Convert(up, 13);
  EXPECT_EQ(FindOp(down.graph, "ReduceMean")->FindAttribute("axes")->ints, (std::vector<int64_t>{1}));
}

TEST(OpsetConverterTest, RuntimeAxesCannotGoDown) {
  ir::Model m = Parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,1] x, int64[1] a) => (float[2] y) { [sq] y = Squeeze(x, a) })");
  auto down = ConvertOpset(m, 12);
  ASSERT_FALSE(down.ok());
  const std::string& msg = down.status().message();
  EXPECT_NE(msg.find("'sq' (Squeeze, opset 13 -> 12)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a constant"), std::string::npos) << msg;
}

TEST(OpsetConverterTest, HardSwishAndMishAreWrittenOutBelowTheirFirstVersion) {
  const std::vector<float> xs = {-5, -3, -1, 0, 0.5f, 2, 3, 6};
  for (auto [op, opset] : {std::pair<std::string, int64_t>{"HardSwish", 14}, {"Mish", 18}}) {
    ir::Model m = Parse("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) +
                        "]> g (float[8] x) => (float[8] y) { y = " + op + "(x) }");
    ir::Model down = Convert(m, opset - 1);
    EXPECT_EQ(FindOp(down.graph, op), nullptr) << op;
    const auto before = RunFloat(m, {{"x", Tensor::FromVector(xs, {8})}});
    const auto after = RunFloat(down, {{"x", Tensor::FromVector(xs, {8})}});
    ASSERT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-6) << op << " at " << xs[i];
  }
}

TEST(OpsetConverterTest, SoftmaxOnInnerAxisIsFlattenedFrom13) {
  ir::Model m = Parse(R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[2,2,2] x) => (float[2,2,2] y) { [s] y = Softmax<axis = 1>(x) })");
  ir::Model up = Convert(m, 13);
  EXPECT_NE(FindOp(up.graph, "Flatten"), nullptr);
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  std::vector<float> a = RunFloat(m, {{"x", x}}), b = RunFloat(up, {{"x", x}});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6);
}

TEST(OpsetConverterTest, SplitGetsNumOutputsAt18AndInputAt13) {
  ir::Model m = Parse(R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[4] x) => (float[1] a, float[3] b) { [sp] a, b = Split<split = [1, 3]>(x) })");
  ir::Model up = Convert(m, 18);
  EXPECT_EQ(FindOp(up.graph, "Split")->inputs.size(), 2u);
  ir::Model even = Parse(R"(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[4] x) => (float[2] a, float[2] b) { [sp] a, b = Split(x) })");
  EXPECT_EQ(FindOp(Convert(even, 18).graph, "Split")->FindAttribute("num_outputs")->i, 2);
  EXPECT_EQ(FindOp(Convert(Convert(even, 18), 12).graph, "Split")->FindAttribute("num_outputs"), nullptr);
}

TEST(OpsetConverterTest, UpsampleBecomesResize) {
  ir::Model m = Parse(R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[1,1,1,2] x, float[4] s) => (float[1,1,3,6] y) { [u] y = Upsample<mode = "nearest">(x, s) })");
  ir::Model up = Convert(m, 21);
  const ir::Node* r = FindOp(up.graph, "Resize");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->FindAttribute("nearest_mode")->s, "floor");
  Tensor x = Tensor::FromVector<float>({1, 2}, {1, 1, 1, 2});
  Tensor s = Tensor::FromVector<float>({1, 1, 3, 3}, {4});
  EXPECT_EQ(RunFloat(up, {{"x", x}, {"s", s}}), RunFloat(m, {{"x", x}, {"s", s}}));
}

TEST(OpsetConverterTest, OtherDomainsAndSubgraphsAreWalked) {
  ir::Model m = Parse(R"(
    <ir_version: 8, opset_import: ["" : 13, "com.example" : 1]>
    g (bool c, float[2,1] x) => (float[2] y) {
      [i] y = If(c) <then_branch = t () => (float[2] o) { [s1] o = Squeeze(x) },
                     else_branch = e () => (float[2] o2) { [r1] o2 = ReduceSum<keepdims = 0>(x, ax) }>
    })");
  // `ax` is not defined: add it as an initializer of the main graph so that the model is valid.
  ir::NamedTensor ax;
  ax.name = "ax";
  ax.tensor = Tensor::FromVector<int64_t>({1}, {1});
  m.graph.initializers.push_back(ax);
  auto down = ConvertOpset(m, 12);
  ASSERT_TRUE(down.ok()) << down.status().message();
  const ir::Node* r = FindOp(*down->graph.nodes[0].FindAttribute("else_branch")->g, "ReduceSum");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->FindAttribute("axes")->ints, (std::vector<int64_t>{1}));
  // The input model's subgraphs are untouched.
  EXPECT_EQ(FindOp(*m.graph.nodes[0].FindAttribute("else_branch")->g, "ReduceSum")->inputs.size(), 2u);
  EXPECT_EQ(down->OpsetVersion("com.example"), 1);
}

TEST(OpsetConverterTest, GroupNormalizationScaleGoesPerChannelAt21) {
  ir::Model m = Parse(R"(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,2] x, float[2] s, float[2] b) => (float[1,4,2] y) {
      [gn] y = GroupNormalization<num_groups = 2>(x, s, b) })");
  ir::Model up = Convert(m, 21);
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 5, 8, 13, 21, 34}, {1, 4, 2});
  Tensor s = Tensor::FromVector<float>({0.5f, 2}, {2});
  Tensor b = Tensor::FromVector<float>({1, -1}, {2});
  std::vector<float> before = RunFloat(m, {{"x", x}, {"s", s}, {"b", b}});
  std::vector<float> after = RunFloat(up, {{"x", x}, {"s", s}, {"b", b}});
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(before[i], after[i], 1e-5);
  // Down again only for constant scales that are the same within each group.
  auto down = ConvertOpset(up, 20);
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.status().message().find("(GroupNormalization, opset 21 -> 20)"), std::string::npos);
}

TEST(OpsetConverterTest, CastTypeNameBecomesNumberAt6) {
  ir::Model m = Parse(R"(
    <ir_version: 3, opset_import: ["" : 5]>
    g (float[2] x) => (int32[2] y) { [c] y = Cast<to = "INT32">(x) })");
  ir::Model up = Convert(m, 6);
  EXPECT_EQ(FindOp(up.graph, "Cast")->FindAttribute("to")->i, static_cast<int64_t>(DataType::kInt32));
  EXPECT_EQ(FindOp(Convert(up, 5).graph, "Cast")->FindAttribute("to")->s, "INT32");
}

TEST(OpsetConverterTest, LegacyBroadcastWithAxisGetsTrailingDims) {
  ir::Model m = Parse(R"(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3,2] a, float[3] b) => (float[2,3,2] y) { [add] y = Add<broadcast = 1, axis = 1>(a, b) })");
  ir::Model up = Convert(m, 7);
  const ir::Node* unsq = FindOp(up.graph, "Unsqueeze");
  ASSERT_NE(unsq, nullptr);
  EXPECT_EQ(unsq->FindAttribute("axes")->ints, (std::vector<int64_t>{1}));
  Tensor a = Tensor::FromVector<float>(std::vector<float>(12, 1.0f), {2, 3, 2});
  Tensor b = Tensor::FromVector<float>({10, 20, 30}, {3});
  std::vector<float> y = RunFloat(up, {{"a", a}, {"b", b}});
  EXPECT_EQ(y, (std::vector<float>{11, 11, 21, 21, 31, 31, 11, 11, 21, 21, 31, 31}));
}

}  // namespace
}  // namespace onyx::version
