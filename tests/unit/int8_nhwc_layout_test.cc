// The 8-bit layout pass (optimizer/int8_nhwc_layout.h): which nodes go channels last, where the Transposes go, and
// that the rewritten graph gives byte-identical results to the channels-first one (the kernels compute the same
// integer sums and requantization in either layout). Convolutions with a zero output zero point take the fused
// requantization inside oneDNN, the others the separate pass; both are covered.
#include "optimizer/int8_nhwc_layout.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "kernels/int8_gemm.h"
#include "op_test_helpers.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

// x (uint8 [1,8,9,9]) -> QLinearConv 3x3 pad 1 (y zp 0) -> c1 -> MaxPool 3x3 s2 (internal) -> p
//   -> QLinearConv 1x1 (y zp 7) -> c2 ; QLinearAdd(c2, c3) where c3 = QLinearConv 1x1 of p (y zp 3)
//   -> s -> QLinearGlobalAveragePool (internal) -> g. Outputs: c1 (also read channels last), s, g.
const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (uint8[1,8,9,9] x) => (uint8[1,16,9,9] c1, uint8[1,16,4,4] s, uint8[1,16,1,1] g) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {5}>()
  w1 = Constant<value = int8[16,8,3,3] {W1}>()
  w1s = Constant<value = float[16] {WS}>()
  b1 = Constant<value = int32[16] {B}>()
  s1 = Constant<value = float {0.5}>()
  z0 = Constant<value = uint8 {0}>()
  wz = Constant<value = int8 {0}>()
  c1 = QLinearConv<pads = [1,1,1,1]>(x, xs, xz, w1, w1s, wz, s1, z0, b1)
  p = ai.onyx.internal.MaxPool<kernel_shape = [3,3], strides = [2,2]>(c1)
  w2 = Constant<value = int8[16,16,1,1] {W2}>()
  z7 = Constant<value = uint8 {7}>()
  z3 = Constant<value = uint8 {3}>()
  s2 = Constant<value = float {0.25}>()
  c2 = QLinearConv(p, s1, z0, w2, w1s, wz, s2, z7)
  c3 = QLinearConv(p, s1, z0, w2, w1s, wz, s2, z3)
  s3 = Constant<value = float {0.3}>()
  s = ai.onyx.internal.QLinearAdd(c2, s2, z7, c3, s2, z3, s3, z7)
  g = ai.onyx.internal.QLinearGlobalAveragePool(s, s3, z7, s3, z7)
}
)";

std::string ModelText() {
  std::string t = kModel;
  auto put = [&](const std::string& key, const std::string& v) {
    t.replace(t.find("{" + key + "}"), key.size() + 2, "{" + v + "}");
  };
  put("W1", testing::RandomIntsText(16 * 8 * 9, -127, 127, 1));
  put("W2", testing::RandomIntsText(16 * 16, -127, 127, 2));
  put("B", testing::RandomIntsText(16, -3000, 3000, 3));
  std::string ws;
  for (int i = 0; i < 16; ++i) ws += (i ? "," : "") + std::to_string(0.001 * (i + 1));
  put("WS", ws);
  return t;
}

std::vector<Value> RunModel(const ir::Model& m, const Tensor& x) {
  SessionOptions o;
  o.optimization_level = optimizer::OptLevel::kDisabled;  // the graph as given
  auto s = Session::Create(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  std::vector<Value> out;
  const Status st = (*s)->Run({{"x", Value(x)}}, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

TEST(Int8NhwcLayout, ChannelsLastRegionWithTransposesOnlyAtItsEdges) {
  auto m = text::ParseModel(ModelText());
  ASSERT_TRUE(m.ok()) << m.status().message();
  ir::Model rewritten = *m;
  auto n = optimizer::ApplyInt8NhwcLayout(rewritten);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 3);
  auto h = ir::OperatorHistogram(rewritten.graph);
  EXPECT_EQ(h["ai.onyx.internal.QLinearConv"], 3);
  EXPECT_EQ(h["QLinearConv"], 0);
  // In: x. Out: c1 (a graph output) and s (an output, also read by the pooling, which reads it channels last).
  EXPECT_EQ(h["Transpose"], 3);
  for (const auto& node : rewritten.graph.nodes) {
    if (node.op_type == "MaxPool" || node.op_type == "QLinearGlobalAveragePool") {
      const auto* a = node.FindAttribute("channels_last");
      ASSERT_NE(a, nullptr) << node.op_type;
      EXPECT_EQ(a->i, 1);
    }
  }

  Tensor x = Tensor::Allocate(DataType::kUint8, {1, 8, 9, 9}, false);
  std::mt19937 rng(7);
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>(rng() % 256);
  const std::vector<Value> expected = RunModel(*m, x);
  const std::vector<Value> got = RunModel(rewritten, x);
  ASSERT_EQ(expected.size(), 3u);
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& e = expected[i].tensor();
    const Tensor& g = got[i].tensor();
    ASSERT_EQ(e.shape(), g.shape()) << "output " << i;
    int64_t differing = 0;
    for (int64_t k = 0; k < e.size(); ++k) differing += e.data<uint8_t>()[k] != g.data<uint8_t>()[k];
    EXPECT_EQ(differing, 0) << "output " << i << " of " << e.size();
  }
}

TEST(Int8NhwcLayout, LeavesGraphsWithoutConstantInt8WeightsAlone) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[1,2,3,3] x, int8[2,2,1,1] w) => (uint8[1,2,3,3] y) {
  s = Constant<value = float {0.1}>()
  z = Constant<value = uint8 {0}>()
  wz = Constant<value = int8 {0}>()
  y = QLinearConv(x, s, z, w, s, wz, s, z)
}
)";
  auto m = text::ParseModel(text);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const size_t nodes = m->graph.nodes.size();
  auto n = optimizer::ApplyInt8NhwcLayout(*m);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0);
  EXPECT_EQ(m->graph.nodes.size(), nodes);
}

}  // namespace
}  // namespace onyx
