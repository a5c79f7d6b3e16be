// The TensorFlow converter's pieces: proto3-JSON attribute decoding, and the semantics of operators whose ONNX
// translation is not one to one (integer floor division and modulo, Pack/Unpack). The real models are run by
// tests/convert/tf/run_tf_models.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "convert/tf/converter.h"
#include "convert/tf/tf_node.h"
#include "runtime/session.h"

namespace onyx::convert::tf {
namespace {

TEST(TfNode, DecodesBase64AndProto3JsonAttributes) {
  EXPECT_EQ(*DecodeBase64("U0FNRQ=="), "SAME");
  EXPECT_EQ(*DecodeBase64("TkhXQw"), "NHWC");  // padding optional
  EXPECT_FALSE(DecodeBase64("U0F*RQ==").ok());
  const nlohmann::json j = nlohmann::json::parse(R"({
    "name": "conv", "op": "Conv2D", "input": ["x", "w:1", "^control"],
    "attr": {"strides": {"list": {"i": ["1", "2", "2", "1"]}}, "padding": {"s": "VkFMSUQ="},
             "num_args": {"i": "3"}, "T": {"type": "DT_FLOAT"}, "use_cudnn_on_gpu": {"b": true},
             "fused_ops": {"list": {"s": ["Qmlhc0FkZA==", "UmVsdQ=="]}}, "alpha": {"f": 0.25},
             "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "8"}]}}}})");
  auto n = ParseNode(j);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->inputs, (std::vector<std::string>{"x", "w:1"}));  // the control input is dropped
  EXPECT_EQ(*n->Ints("strides"), (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_EQ(*n->String("padding"), "VALID");
  EXPECT_EQ(*n->Int("num_args"), 3);
  EXPECT_EQ(*n->Type("T"), DataType::kFloat);
  EXPECT_TRUE(n->BoolOr("use_cudnn_on_gpu", false));
  EXPECT_EQ(n->FloatOr("alpha", 0), 0.25f);
  EXPECT_EQ(*n->Strings("fused_ops"), (std::vector<std::string>{"BiasAdd", "Relu"}));
  bool known = false;
  EXPECT_EQ(*n->Shape("shape", &known), (std::vector<int64_t>{-1, 8}));
  EXPECT_TRUE(known);
  EXPECT_FALSE(n->Int("missing").ok());
  EXPECT_TRUE(n->Ints("missing")->empty());
  EXPECT_FALSE(ParseNode(nlohmann::json::parse(R"({"op": "Relu"})")).ok());
}

// Writes `nodes` as a graph-model's model.json in a fresh folder; returns its path.
std::string WriteGraphModel(const std::string& name, const std::string& nodes) {
  const auto dir = std::filesystem::temp_directory_path() / ("onyx_tf_convert_test_" + name);
  std::filesystem::create_directories(dir);
  const auto path = dir / "model.json";
  std::ofstream(path) << R"({"format": "graph-model", "modelTopology": {"node": [)" << nodes
                      << R"(]}, "weightsManifest": []})";
  return path.string();
}

std::vector<Value> RunConverted(const ir::Model& model, std::vector<std::pair<std::string, Value>> feeds) {
  auto session = Session::Create(model);
  EXPECT_TRUE(session.ok()) << session.status().message();
  std::vector<Value> outputs;
  if (session.ok()) {
    Status st = (*session)->Run(feeds, {}, &outputs);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  return outputs;
}

std::vector<int32_t> Ints(const Value& v) {
  const Tensor& t = v.tensor();
  EXPECT_EQ(t.type(), DataType::kInt32);
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.size());
}

TEST(TfConvert, IntegerFloorDivisionAndModuloRoundTowardNegativeInfinity) {
  // ONNX's integer Div truncates toward zero: -7 / 2 would give -3 where TF's FloorDiv gives -4.
  const std::string path = WriteGraphModel("floordiv", R"(
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_INT32"},
                                                "shape": {"shape": {"dim": [{"size": "5"}]}}}},
    {"name": "two", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}, "value": {"tensor": {
        "dtype": "DT_INT32", "tensorShape": {}, "intVal": [2]}}}},
    {"name": "q", "op": "FloorDiv", "input": ["x", "two"], "attr": {"T": {"type": "DT_INT32"}}},
    {"name": "r", "op": "FloorMod", "input": ["x", "two"], "attr": {"T": {"type": "DT_INT32"}}},
    {"name": "Identity", "op": "Identity", "input": ["q"]},
    {"name": "Identity_1", "op": "Identity", "input": ["r"]})");
  auto model = ConvertTfjsGraphModel(path, {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->graph.inputs.size(), 1u);
  EXPECT_EQ(model->graph.inputs[0].name, "x:0");
  ASSERT_EQ(model->graph.outputs.size(), 2u);
  EXPECT_EQ(model->graph.outputs[0].name, "Identity:0");
  auto out = RunConverted(*model, {{"x:0", Value(Tensor::FromVector<int32_t>({-7, -1, 0, 5, 7}, {5}))}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Ints(out[0]), (std::vector<int32_t>{-4, -1, 0, 2, 3}));
  EXPECT_EQ(Ints(out[1]), (std::vector<int32_t>{1, 1, 0, 1, 1}));
}

TEST(TfConvert, PackAndUnpackAlongAnAxis) {
  const std::string path = WriteGraphModel("pack", R"(
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_INT32"},
                                                "shape": {"shape": {"dim": [{"size": "2"}, {"size": "3"}]}}}},
    {"name": "u", "op": "Unpack", "input": ["x"], "attr": {"num": {"i": "3"}, "axis": {"i": "1"}}},
    {"name": "p", "op": "Pack", "input": ["u:2", "u:0"], "attr": {"N": {"i": "2"}, "axis": {"i": "0"}}},
    {"name": "Identity", "op": "Identity", "input": ["p"]})");
  auto model = ConvertTfjsGraphModel(path, {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto out = RunConverted(*model, {{"x:0", Value(Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}))}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2}));
  EXPECT_EQ(Ints(out[0]), (std::vector<int32_t>{3, 6, 1, 4}));  // columns 2 and 0 of x, stacked as rows
}

TEST(TfConvert, ListsUnsupportedOperatorsAndRejectsBrokenGraphs) {
  auto model = ConvertTfjsGraphModel(WriteGraphModel("unsupported", R"(
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
    {"name": "a", "op": "Erfinv", "input": ["x"]},
    {"name": "b", "op": "Lgamma", "input": ["a"]},
    {"name": "Identity", "op": "Identity", "input": ["b"]})"),
                                     {});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(model.status().message().find("Erfinv, Lgamma"), std::string::npos) << model.status().message();

  model = ConvertTfjsGraphModel(WriteGraphModel("dangling", R"(
    {"name": "Identity", "op": "Identity", "input": ["nowhere"]})"),
                                {});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("nowhere"), std::string::npos) << model.status().message();

  model = ConvertTfjsGraphModel(WriteGraphModel("cycle", R"(
    {"name": "a", "op": "Relu", "input": ["b"]},
    {"name": "b", "op": "Relu", "input": ["a"]},
    {"name": "Identity", "op": "Identity", "input": ["b"]})"),
                                {});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("cycle"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace onyx::convert::tf
