// ai.onnx.preview.training.Gradient, expanded into backward nodes at session creation; values worked by hand.
#include <gtest/gtest.h>

#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

Result<std::vector<Value>> RunText(const char* text, std::vector<std::pair<std::string, Value>> feeds) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, text::ParseModel(text));
  ONYX_ASSIGN_OR_RETURN(auto session, Session::Create(std::move(model)));
  std::vector<Value> out;
  ONYX_RETURN_IF_ERROR(session->Run(feeds, {}, &out));
  return out;
}

std::vector<float> Floats(const Value& v) {
  auto s = v.tensor().values<float>();
  return {s.begin(), s.end()};
}

TEST(Gradient, BroadcastMulReluDiv) {
  // y = Relu(x * b) / c with b broadcast over rows and c a scalar.
  auto out = RunText(R"(
<ir_version: 8, opset_import: ["" : 13, "ai.onnx.preview.training" : 1]>
g (float[2,2] x, float[2] b, float c) => (float[2,2] y, float[2,2] dx, float[2] db, float dc) {
  t = Mul(x, b)
  r = Relu(t)
  y = Div(r, c)
  dx, db, dc = ai.onnx.preview.training.Gradient<xs = ["x", "b", "c"], y = "y">(x, b, c)
}
)",
                     {{"x", Tensor::FromVector<float>({1, -2, 3, 4}, {2, 2})},
                      {"b", Tensor::FromVector<float>({2, 0.5f}, {2})},
                      {"c", Tensor::Scalar<float>(2)}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{1, 0, 3, 1}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{1, 0, 1, 0.25f}));
  EXPECT_EQ(Floats((*out)[2]), (std::vector<float>{2, 2}));
  EXPECT_EQ((*out)[3].tensor().shape(), Shape{});
  EXPECT_FLOAT_EQ(Floats((*out)[3])[0], -2.5f);
}

TEST(Gradient, MatMulAndAnUnusedInput) {
  auto out = RunText(R"(
<ir_version: 8, opset_import: ["" : 13, "ai.onnx.preview.training" : 1]>
g (float[1,2] a, float[2,1] b, float[3] z) => (float[1,1] y, float[1,2] da, float[2,1] db, float[3] dz) {
  y = MatMul(a, b)
  da, db, dz = ai.onnx.preview.training.Gradient<xs = ["a", "b", "z"], y = "y">(a, b, z)
}
)",
                     {{"a", Tensor::FromVector<float>({1, 2}, {1, 2})},
                      {"b", Tensor::FromVector<float>({3, 4}, {2, 1})},
                      {"z", Tensor::FromVector<float>({5, 6, 7}, {3})}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{11}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{3, 4}));  // Bᵀ
  EXPECT_EQ(Floats((*out)[2]), (std::vector<float>{1, 2}));  // Aᵀ
  EXPECT_EQ(Floats((*out)[3]), (std::vector<float>{0, 0, 0}));
}

TEST(Gradient, NamesAnOperatorItCannotDifferentiate) {
  auto out = RunText(R"(
<ir_version: 8, opset_import: ["" : 13, "ai.onnx.preview.training" : 1]>
g (float[2] x) => (float[2] y, float[2] dx) {
  y = Exp(x)
  dx = ai.onnx.preview.training.Gradient<xs = ["x"], y = "y">(x)
}
)",
                     {{"x", Tensor::FromVector<float>({0, 1}, {2})}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(out.status().message().find("operator Exp"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace onyx
