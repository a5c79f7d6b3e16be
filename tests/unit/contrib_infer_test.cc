// Shape inference of the com.microsoft operators (src/infer/ops_contrib.cc), called through a registry holding
// only that family's functions: output types and shapes for the layouts the kernels accept, with symbolic dims.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "infer/op_registry.h"

namespace onyx::infer {
void RegisterContribInference(OpInferenceRegistry& r);  // src/infer/ops_contrib.cc
}

namespace onyx {
namespace {

using infer::InferenceContext;

ir::Dim D(int64_t v) { return ir::Dim::Value(v); }
ir::Dim P(const char* p) { return ir::Dim::Param(p); }

struct Inferred {
  std::vector<std::string> shapes;  // ToShortString of each output ("" when not set)
};

// Infers one node of `domain`.`op` with tensor inputs of these types (nullopt: input absent).
Inferred Infer(const char* domain, const char* op, const std::vector<std::optional<ir::TypeInfo>>& inputs,
               size_t num_outputs, std::vector<ir::Attribute> attrs = {}) {
  infer::OpInferenceRegistry registry;
  infer::RegisterContribInference(registry);
  const infer::InferenceFn fn = registry.Find(domain, op);
  EXPECT_NE(fn, nullptr) << op;
  ir::Node node;
  node.op_type = op;
  node.domain = domain;
  node.attributes = std::move(attrs);
  std::vector<InferenceContext::InputInfo> infos(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    node.inputs.push_back(inputs[i] ? "in" + std::to_string(i) : "");
    if (inputs[i]) infos[i].type = &*inputs[i];
  }
  for (size_t i = 0; i < num_outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
  InferenceContext ctx(node, 1, 1, infos, nullptr, false);
  Inferred r;
  if (fn == nullptr) return r;
  const Status s = fn(ctx);
  EXPECT_TRUE(s.ok()) << s.message();
  for (const auto& o : ctx.outputs()) r.shapes.push_back(o.type ? o.type->ToShortString() : "");
  return r;
}

ir::TypeInfo F(std::vector<ir::Dim> dims) { return ir::TypeInfo::Tensor(DataType::kFloat, std::move(dims)); }
ir::TypeInfo I32(std::vector<ir::Dim> dims) { return ir::TypeInfo::Tensor(DataType::kInt32, std::move(dims)); }

TEST(ContribInferTest, AttentionWithPast) {
  const auto r = Infer(
      "com.microsoft", "Attention",
      {F({P("B"), P("S"), D(24)}), F({D(24), D(72)}), F({D(72)}), std::nullopt, F({D(2), P("B"), D(3), P("P"), D(8)})},
      2, {ir::IntAttr("num_heads", 3)});
  ASSERT_EQ(r.shapes.size(), 2u);
  EXPECT_EQ(r.shapes[0], "float[B,S,24]");
  EXPECT_EQ(r.shapes[1], "float[2,B,3,P+S,8]");
}

TEST(ContribInferTest, AttentionQkvSizes) {
  const auto r = Infer("com.microsoft", "Attention", {F({D(2), D(5), D(24)}), F({D(24), D(60)})}, 1,
                       {ir::IntAttr("num_heads", 3), ir::IntsAttr("qkv_hidden_sizes", {24, 24, 12})});
  EXPECT_EQ(r.shapes.at(0), "float[2,5,12]");
}

TEST(ContribInferTest, MultiHeadAttentionPresent) {
  const auto r = Infer("com.microsoft", "MultiHeadAttention",
                       {F({D(2), D(4), D(16)}), F({D(2), D(4), D(16)}), F({D(2), D(4), D(16)}), std::nullopt,
                        std::nullopt, std::nullopt, F({D(2), D(2), D(3), D(8)}), F({D(2), D(2), D(3), D(8)})},
                       3, {ir::IntAttr("num_heads", 2)});
  EXPECT_EQ(r.shapes.at(0), "float[2,4,16]");
  EXPECT_EQ(r.shapes.at(1), "float[2,2,7,8]");
  EXPECT_EQ(r.shapes.at(2), "float[2,2,7,8]");
}

TEST(ContribInferTest, GroupQueryAttentionPacked) {
  const auto r =
      Infer("com.microsoft", "GroupQueryAttention",
            {F({D(1), D(4), D(128)}), std::nullopt, std::nullopt, std::nullopt, std::nullopt, I32({D(1)}), I32({})}, 3,
            {ir::IntAttr("num_heads", 4), ir::IntAttr("kv_num_heads", 2)});
  EXPECT_EQ(r.shapes.at(0), "float[1,4,64]");  // head size 128 / (4 + 2 * 2) = 16
  EXPECT_EQ(r.shapes.at(1), "float[1,2,?,16]");
}

TEST(ContribInferTest, NormalizationsAndMatMulNBits) {
  auto r = Infer("com.microsoft", "SkipLayerNormalization",
                 {F({P("B"), D(5), D(32)}), F({P("B"), D(5), D(32)}), F({D(32)})}, 4);
  EXPECT_EQ(r.shapes.at(0), "float[B,5,32]");
  EXPECT_EQ(r.shapes.at(2), "float[B,5,1]");
  EXPECT_EQ(r.shapes.at(3), "float[B,5,32]");
  r = Infer("", "SimplifiedLayerNormalization", {F({D(2), D(3), D(8)}), F({D(3), D(8)})}, 2, {ir::IntAttr("axis", 1)});
  EXPECT_EQ(r.shapes.at(1), "float[2,1,1]");
  r = Infer("com.microsoft", "EmbedLayerNormalization",
            {I32({D(2), D(7)}), std::nullopt, F({D(30), D(32)}), F({D(16), D(32)})}, 2);
  EXPECT_EQ(r.shapes.at(0), "float[2,7,32]");
  EXPECT_EQ(r.shapes.at(1), "int32[2]");
  r = Infer("com.microsoft", "MatMulNBits", {F({P("M"), D(64)})}, 1,
            {ir::IntAttr("K", 64), ir::IntAttr("N", 24), ir::IntAttr("block_size", 32)});
  EXPECT_EQ(r.shapes.at(0), "float[M,24]");
  r = Infer("ai.onyx.internal", "FusedAttention",
            {F({D(2), D(3), D(4), D(8)}), F({D(2), D(3), D(8), D(5)}), F({D(2), D(3), D(5), D(6)})}, 1);
  EXPECT_EQ(r.shapes.at(0), "float[2,3,4,6]");
}

}  // namespace
}  // namespace onyx
