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

// A Const node with int32 values of shape [n] (or a scalar when `scalar`).
std::string IntConst(const std::string& name, const std::vector<int>& values) {
  std::string list;
  for (int v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
  return R"({"name": ")" + name + R"(", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}, "value": {"tensor": {
      "dtype": "DT_INT32", "tensorShape": {"dim": [{"size": ")" +
         std::to_string(values.size()) + R"("}]}, "intVal": [)" + list + "]}}}}";
}

std::string FloatConst(const std::string& name, const std::vector<float>& values) {
  std::string list;
  for (float v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
  return R"({"name": ")" + name + R"(", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {
      "dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": ")" +
         std::to_string(values.size()) + R"("}]}, "floatVal": [)" + list + "]}}}}";
}

// x: int32 [2, 3, 4] holding 0..23.
std::vector<Value> RunStridedSlice(const std::string& name, const std::vector<int>& begin, const std::vector<int>& end,
                                   const std::vector<int>& strides, const std::string& masks) {
  const std::string path = WriteGraphModel(name, R"(
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_INT32"}, "shape": {"shape": {"dim": [
        {"size": "2"}, {"size": "3"}, {"size": "4"}]}}}},
    )" + IntConst("b", begin) + "," + IntConst("e", end) + "," + IntConst("s", strides) + R"(,
    {"name": "y", "op": "StridedSlice", "input": ["x", "b", "e", "s"], "attr": {)" + masks + R"(}},
    {"name": "Identity", "op": "Identity", "input": ["y"]})");
  auto model = ConvertTfjsGraphModel(path, {});
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return {};
  std::vector<int32_t> x(24);
  for (int i = 0; i < 24; ++i) x[static_cast<size_t>(i)] = i;
  return RunConverted(*model, {{"x:0", Value(Tensor::FromVector<int32_t>(x, {2, 3, 4}))}});
}

TEST(TfConvert, StridedSliceMasks) {
  // x[:, 1:3]
  auto out = RunStridedSlice("ss_range", {0, 1}, {0, 3}, {1, 1}, R"("begin_mask": {"i": "1"}, "end_mask": {"i": "1"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(Ints(out[0])[0], 4);    // x[0, 1, 0]
  EXPECT_EQ(Ints(out[0])[8], 16);   // x[1, 1, 0]
  // x[..., 0]: an ellipsis, then one index that drops the last axis.
  out = RunStridedSlice("ss_ellipsis", {0, 0}, {0, 1}, {1, 1},
                        R"("ellipsis_mask": {"i": "1"}, "shrink_axis_mask": {"i": "2"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 3}));
  EXPECT_EQ(Ints(out[0]), (std::vector<int32_t>{0, 4, 8, 12, 16, 20}));
  // x[1, ::-1, tf.newaxis]: index, reversed range, new axis.
  out = RunStridedSlice("ss_mixed", {1, 0, 0}, {2, 0, 0}, {1, -1, 1},
                        R"("begin_mask": {"i": "2"}, "end_mask": {"i": "2"}, "shrink_axis_mask": {"i": "1"},
                            "new_axis_mask": {"i": "4"})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{3, 1, 4}));
  EXPECT_EQ(Ints(out[0])[0], 20);  // x[1, 2, 0]
  EXPECT_EQ(Ints(out[0])[11], 15);  // x[1, 0, 3]
}

TEST(TfConvert, FusedBatchNormAndSplitV) {
  const std::string path = WriteGraphModel("batchnorm", R"(
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [
        {"size": "1"}, {"size": "1"}, {"size": "2"}, {"size": "2"}]}}}},
    )" + FloatConst("scale", {2, 3}) + "," + FloatConst("offset", {1, 0}) + "," + FloatConst("mean", {0.5f, 1}) + "," +
                                           FloatConst("variance", {4, 9}) + R"(,
    {"name": "bn", "op": "FusedBatchNormV3", "input": ["x", "scale", "offset", "mean", "variance"],
     "attr": {"epsilon": {"f": 0}, "data_format": {"s": "TkhXQw=="}}},
    )" + IntConst("sizes", {1, 3}) + R"(,
    {"name": "axis", "op": "Const", "attr": {"dtype": {"type": "DT_INT32"}, "value": {"tensor": {
        "dtype": "DT_INT32", "tensorShape": {}, "intVal": [3]}}}},
    {"name": "flat", "op": "Reshape", "input": ["bn", "shape"]},
    )" + IntConst("shape", {1, 1, 1, 4}) + R"(,
    {"name": "parts", "op": "SplitV", "input": ["flat", "sizes", "axis"], "attr": {"num_split": {"i": "2"}}},
    {"name": "Identity", "op": "Identity", "input": ["parts:1"]})");
  auto model = ConvertTfjsGraphModel(path, {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  // (x - mean) * scale / sqrt(variance) + offset per channel (last axis): [1.5, 3, 0.5, 1] -> [2, 2, 1, 0].
  auto out = RunConverted(*model, {{"x:0", Value(Tensor::FromVector<float>({1.5f, 3, 0.5f, 1}, {1, 1, 2, 2}))}});
  ASSERT_EQ(out.size(), 1u);
  const Tensor& t = out[0].tensor();
  ASSERT_EQ(t.shape(), (Shape{1, 1, 1, 3}));
  EXPECT_FLOAT_EQ(t.data<float>()[0], 2.0f);
  EXPECT_FLOAT_EQ(t.data<float>()[1], 1.0f);
  EXPECT_FLOAT_EQ(t.data<float>()[2], 0.0f);
}

TEST(TfConvert, BatchNormFusedIntoAConvolutionIsFoldedIntoItsWeights) {
  // 1x1 convolution with weight 2, then batch norm (scale 3, offset 1, mean 0, variance 1, epsilon 0), then Relu:
  // y = relu(3 * 2x + 1).
  const std::string path = WriteGraphModel("fused_bn", R"(
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [
        {"size": "1"}, {"size": "1"}, {"size": "2"}, {"size": "1"}]}}}},
    {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {
        "dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "1"}, {"size": "1"}, {"size": "1"}, {"size": "1"}]},
        "floatVal": [2]}}}},
    )" + FloatConst("scale", {3}) + "," + FloatConst("offset", {1}) + "," + FloatConst("mean", {0}) + "," +
                                           FloatConst("variance", {1}) + R"(,
    {"name": "conv", "op": "_FusedConv2D", "input": ["x", "w", "scale", "offset", "mean", "variance"], "attr": {
        "strides": {"list": {"i": ["1", "1", "1", "1"]}}, "padding": {"s": "VkFMSUQ="}, "epsilon": {"f": 0},
        "fused_ops": {"list": {"s": ["RnVzZWRCYXRjaE5vcm0=", "UmVsdQ=="]}}, "num_args": {"i": "4"}}},
    {"name": "Identity", "op": "Identity", "input": ["conv"]})");
  auto model = ConvertTfjsGraphModel(path, {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto out = RunConverted(*model, {{"x:0", Value(Tensor::FromVector<float>({-1, 1}, {1, 1, 2, 1}))}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].tensor().data<float>()[0], 0.0f);
  EXPECT_FLOAT_EQ(out[0].tensor().data<float>()[1], 7.0f);
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
