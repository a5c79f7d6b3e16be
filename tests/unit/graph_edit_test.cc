// Graph editing on models written in the ONNX text syntax, checked by running them.
#include <gtest/gtest.h>

#include "ir/graph_edit.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

ir::Model Parse(const char* text) {
  auto m = text::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

std::vector<float> RunModel(const ir::Model& m, std::vector<float> x) {
  auto s = Session::Create(m);
  EXPECT_TRUE(s.ok()) << s.status().message();
  std::vector<Value> out;
  Status st = (*s)->Run({{"x", Tensor::FromVector<float>(x, {static_cast<int64_t>(x.size())})}}, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  auto v = out[0].tensor().values<float>();
  return {v.begin(), v.end()};
}

constexpr const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2] x) => (float[2] y) {
  a = Identity(x)
  b = Neg(a)
  unused = Relu(b)
  y = Abs(b)
}
)";

TEST(GraphEdit, RemovesAnIdentityByRewiringItsReaders) {
  ir::Model m = Parse(kModel);
  ASSERT_EQ(RunModel(m, {1, -2}), (std::vector<float>{1, 2}));
  EXPECT_EQ(ir::ReplaceAllUses(m.graph, "a", "x"), 1);
  EXPECT_EQ(ir::RemoveNodes(m.graph, [](const ir::Node& n) { return n.op_type == "Identity"; }), 1);
  EXPECT_EQ(m.graph.nodes.size(), 3u);
  EXPECT_EQ(RunModel(m, {1, -2}), (std::vector<float>{1, 2}));
}

TEST(GraphEdit, DeadNodesGoAndProducersConsumersAreFound) {
  ir::Model m = Parse(kModel);
  EXPECT_EQ(ir::FindProducer(m.graph, "b"), 1);
  EXPECT_EQ(ir::FindConsumers(m.graph, "b"), (std::vector<int>{2, 3}));
  EXPECT_EQ(ir::FindProducer(m.graph, "x"), -1);
  EXPECT_EQ(ir::RemoveDeadNodes(m.graph), 1);
  EXPECT_EQ(ir::FindProducer(m.graph, "unused"), -1);
  EXPECT_EQ(RunModel(m, {3, -4}), (std::vector<float>{3, 4}));
}

TEST(GraphEdit, GraphOutputsAndSubgraphReadsFollowARename) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[2] x) => (float[2] y) {
  t = Neg(x)
  c = Constant<value = bool {1}>()
  y = If(c) <then_branch = then_g () => (float[2] o) { o = Identity(t) },
             else_branch = else_g () => (float[2] o) { o = Identity(x) }>
}
)");
  ASSERT_EQ(RunModel(m, {1, 2}), (std::vector<float>{-1, -2}));
  EXPECT_EQ(ir::ReplaceAllUses(m.graph, "t", "x"), 1);  // the read inside then_branch
  EXPECT_EQ(ir::RemoveDeadNodes(m.graph), 1);           // Neg has no reader left
  EXPECT_EQ(RunModel(m, {1, 2}), (std::vector<float>{1, 2}));
  EXPECT_EQ(ir::UniqueValueName(m.graph, "x"), "x_1");
  EXPECT_EQ(ir::UniqueValueName(m.graph, "fresh"), "fresh");
}

}  // namespace
}  // namespace onyx
