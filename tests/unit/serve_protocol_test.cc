// The Open Inference Protocol mapping behind `onyx serve`: datatypes, requests (JSON and binary tensors) and
// responses. The HTTP side is tested end to end by tests/cli/serve_test.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "serve/inference_protocol.h"
#include "serve/metrics.h"
#include "text/parser.h"

namespace onyx::serve {
namespace {

using nlohmann::json;

Result<InferRequest> Parse(const std::string& body) { return ParseInferRequest(body, body.size()); }

TEST(ServeProtocol, DatatypesRoundTrip) {
  for (DataType t : {DataType::kBool, DataType::kUint8, DataType::kUint16, DataType::kUint32, DataType::kUint64,
                     DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kFloat16,
                     DataType::kBFloat16, DataType::kFloat, DataType::kDouble, DataType::kString}) {
    auto name = ProtocolDatatype(t);
    ASSERT_TRUE(name.ok()) << DataTypeName(t);
    auto back = DataTypeFromProtocol(*name);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, t) << *name;
  }
  EXPECT_EQ(*ProtocolDatatype(DataType::kFloat), "FP32");
  EXPECT_EQ(*ProtocolDatatype(DataType::kString), "BYTES");
  EXPECT_FALSE(ProtocolDatatype(DataType::kComplex64).ok());
  EXPECT_FALSE(DataTypeFromProtocol("FLOAT").ok());
}

TEST(ServeProtocol, ParsesJsonTensorsFlatOrNested) {
  auto req = Parse(R"({"id": "7", "inputs": [
      {"name": "a", "shape": [2, 2], "datatype": "FP32", "data": [[1, 2.5], [null, -4]]},
      {"name": "b", "shape": [3], "datatype": "INT8", "data": [-128, 0, 127]},
      {"name": "c", "shape": [2], "datatype": "BOOL", "data": [true, false]},
      {"name": "d", "shape": [1], "datatype": "BYTES", "data": ["hello"]},
      {"name": "e", "shape": [1], "datatype": "FP16", "data": [0.5]}],
    "outputs": [{"name": "y", "parameters": {"binary_data": true}}, {"name": "z"}]})");
  ASSERT_TRUE(req.ok()) << req.status().message();
  EXPECT_EQ(req->id, "7");
  ASSERT_EQ(req->feeds.size(), 5u);
  const Tensor& a = req->feeds[0].second.tensor();
  EXPECT_EQ(a.shape(), (Shape{2, 2}));
  EXPECT_EQ(a.data<float>()[1], 2.5f);
  EXPECT_TRUE(std::isnan(a.data<float>()[2]));  // null stands for NaN
  EXPECT_EQ(req->feeds[1].second.tensor().data<int8_t>()[0], -128);
  EXPECT_EQ(req->feeds[2].second.tensor().data<bool>()[1], false);
  EXPECT_EQ(req->feeds[3].second.tensor().data<std::string>()[0], "hello");
  EXPECT_EQ(static_cast<float>(req->feeds[4].second.tensor().data<Float16>()[0]), 0.5f);
  EXPECT_EQ(req->output_names, (std::vector<std::string>{"y", "z"}));
  EXPECT_TRUE(req->binary_output.at("y"));
  EXPECT_EQ(req->binary_output.count("z"), 0u);
}

TEST(ServeProtocol, RejectsBadRequestsNamingTheProblem) {
  auto error = [](const std::string& body) {
    auto req = Parse(body);
    EXPECT_FALSE(req.ok()) << body;
    return req.ok() ? std::string() : req.status().message();
  };
  EXPECT_NE(error("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error("[]").find("JSON object"), std::string::npos);
  EXPECT_NE(error("{}").find("'inputs'"), std::string::npos);
  EXPECT_NE(error(R"({"inputs": [{"shape": [1], "datatype": "FP32", "data": [1]}]})").find("'name'"),
            std::string::npos);
  std::string m = error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FP99", "data": [1]}]})");
  EXPECT_NE(m.find("'x'"), std::string::npos);
  EXPECT_NE(m.find("FP99"), std::string::npos);
  m = error(R"({"inputs": [{"name": "x", "shape": [2, 2], "datatype": "FP32", "data": [1, 2, 3]}]})");
  EXPECT_NE(m.find("3 elements"), std::string::npos) << m;
  m = error(R"({"inputs": [{"name": "x", "shape": [2], "datatype": "INT8", "data": [1, 300]}]})");
  EXPECT_NE(m.find("range"), std::string::npos) << m;
  EXPECT_NE(m.find("element 1"), std::string::npos) << m;
  m = error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "INT32", "data": [1.5]}]})");
  EXPECT_NE(m.find("integer"), std::string::npos) << m;
  m = error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "UINT8", "data": [-1]}]})");
  EXPECT_NE(m.find("range"), std::string::npos) << m;
  m = error(R"({"inputs": [{"name": "x", "shape": [-1], "datatype": "FP32", "data": []}]})");
  EXPECT_NE(m.find("non-negative"), std::string::npos) << m;
  m = error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "BOOL", "data": [1]}]})");
  EXPECT_NE(m.find("true or false"), std::string::npos) << m;
  // Nesting deeper than any tensor is refused instead of recursing without bound.
  std::string deep = R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FP32", "data": )" + std::string(100, '[') +
                     "1" + std::string(100, ']') + "}]}";
  EXPECT_NE(error(deep).find("nested"), std::string::npos);
}

TEST(ServeProtocol, ParsesBinaryTensorsAfterTheJson) {
  const std::string header = R"({"inputs": [
      {"name": "f", "shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 8}},
      {"name": "s", "shape": [2], "datatype": "BYTES", "parameters": {"binary_data_size": 11}},
      {"name": "b", "shape": [3], "datatype": "BOOL", "parameters": {"binary_data_size": 3}}]})";
  std::string body = header;
  const float f[2] = {1.5f, -2.0f};
  body.append(reinterpret_cast<const char*>(f), sizeof f);
  const uint32_t len_ab = 2, len_xyz = 1;
  body.append(reinterpret_cast<const char*>(&len_ab), 4).append("ab");
  body.append(reinterpret_cast<const char*>(&len_xyz), 4).append("z");
  body.append("\x01\x00\x01", 3);
  auto req = ParseInferRequest(body, header.size());
  ASSERT_TRUE(req.ok()) << req.status().message();
  EXPECT_EQ(req->feeds[0].second.tensor().data<float>()[1], -2.0f);
  EXPECT_EQ(req->feeds[1].second.tensor().data<std::string>()[0], "ab");
  EXPECT_EQ(req->feeds[1].second.tensor().data<std::string>()[1], "z");
  EXPECT_EQ(req->feeds[2].second.tensor().data<bool>()[1], false);
  EXPECT_EQ(req->feeds[2].second.tensor().data<bool>()[2], true);

  // Bytes that belong to no input, a size past the end, a header length past the body, and a byte count that does
  // not match the shape are all errors.
  EXPECT_FALSE(ParseInferRequest(body + "x", header.size()).ok());
  EXPECT_FALSE(ParseInferRequest(body.substr(0, body.size() - 1), header.size()).ok());
  EXPECT_FALSE(ParseInferRequest(body, body.size() + 1).ok());
  const std::string wrong = R"({"inputs": [{"name": "f", "shape": [3], "datatype": "FP32",
                                            "parameters": {"binary_data_size": 8}}]})";
  auto bad = ParseInferRequest(wrong + std::string(8, '\0'), wrong.size());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("needs 12"), std::string::npos) << bad.status().message();
}

TEST(ServeProtocol, AlignedBinaryInputsAreViewsOfTheBody) {
  const std::string header = R"({"inputs": [{"name": "f", "shape": [2, 8], "datatype": "FP32",
                                             "parameters": {"binary_data_size": 64}},
                                            {"name": "g", "shape": [3], "datatype": "FP32",
                                             "parameters": {"binary_data_size": 12}}]})";
  const size_t pad = (64 - header.size() % 64) % 64;
  std::shared_ptr<void> block = Tensor::AllocateBlock(pad + header.size() + 76);
  char* start = static_cast<char*>(block.get()) + pad;
  std::memcpy(start, header.data(), header.size());
  float* binary = reinterpret_cast<float*>(start + header.size());
  for (int i = 0; i < 19; ++i) binary[i] = static_cast<float>(i);
  auto req = ParseInferRequest(std::string_view(start, header.size() + 76), header.size(), kNoElementLimit, block);
  ASSERT_TRUE(req.ok()) << req.status().message();
  // The binary part starts 64-byte aligned: the first input is a view of the body.
  const Tensor& f = req->feeds[0].second.tensor();
  const Tensor& g = req->feeds[1].second.tensor();
  EXPECT_EQ(f.data<float>(), binary);
  EXPECT_EQ(f.data<float>()[15], 15.0f);
  EXPECT_EQ(g.data<float>()[2], 18.0f);
  block.reset();  // the request keeps the body alive
  EXPECT_EQ(f.data<float>()[3], 3.0f);
  // Without an owner, or with bytes that do not fit the shape, a copy or the error as before.
  auto copied = ParseInferRequest(std::string_view(start, header.size() + 76), header.size());
  ASSERT_TRUE(copied.ok());
  EXPECT_NE(copied->feeds[0].second.tensor().data<float>(), binary);
}

TEST(ServeProtocol, BuildsJsonAndBinaryResponses) {
  InferRequest req;
  req.id = "r";
  req.binary_output["bits"] = true;
  std::vector<Value> outputs = {Value(Tensor::FromVector<float>({1.0f, NAN, 3.0f}, {1, 3})),
                                Value(Tensor::FromVector<bool>({true, false}, {2})),
                                Value(Tensor::FromVector<std::string>({"hi"}, {1}))};
  size_t json_size = 0;
  auto body = BuildInferResponse("m", req, {"y", "bits", "s"}, outputs, &json_size);
  ASSERT_TRUE(body.ok()) << body.status().message();
  json j = json::parse(body->substr(0, json_size));
  EXPECT_EQ(j["model_name"], "m");
  EXPECT_EQ(j["id"], "r");
  EXPECT_EQ(j["outputs"][0]["datatype"], "FP32");
  EXPECT_EQ(j["outputs"][0]["shape"], json::array({1, 3}));
  EXPECT_EQ(j["outputs"][0]["data"][0], 1.0);
  EXPECT_TRUE(j["outputs"][0]["data"][1].is_null());  // NaN
  EXPECT_EQ(j["outputs"][1]["parameters"]["binary_data_size"], 2);
  EXPECT_EQ(body->substr(json_size), std::string("\x01\x00", 2));
  EXPECT_EQ(j["outputs"][2]["data"][0], "hi");

  // The protocol carries tensors only.
  std::vector<Value> seq = {Value(SequenceValue{})};
  auto none = BuildInferResponse("m", req, {"q"}, seq, &json_size);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("'q'"), std::string::npos);
}

TEST(ServeProtocol, MetadataListsInputsAndOutputsWithDynamicDims) {
  auto model = text::ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 3] x, int64[2] k) => (float[N, 3] y) { y = Relu(x) }
  )");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto session = Session::Create(std::move(model).value());
  ASSERT_TRUE(session.ok()) << session.status().message();
  json meta = ModelMetadata(**session, "relu");
  EXPECT_EQ(meta["name"], "relu");
  EXPECT_EQ(meta["platform"], "onnx");
  EXPECT_EQ(meta["inputs"][0], (json{{"name", "x"}, {"datatype", "FP32"}, {"shape", {-1, 3}}}));
  EXPECT_EQ(meta["inputs"][1], (json{{"name", "k"}, {"datatype", "INT64"}, {"shape", {2}}}));
  EXPECT_EQ(meta["outputs"][0]["shape"], json::array({-1, 3}));
}

TEST(ServeMetrics, PrometheusTextCountsAndCumulativeBuckets) {
  InferenceMetrics m;
  m.Record(true, 0.0, 0.0004, 0.0004);  // <= every bucket
  m.Record(true, 0.001, 0.02, 0.03);    // first counted at le="0.05"
  m.Record(false, 0.0, 0.0, 10.0);      // only in +Inf
  const std::string text = m.PrometheusText("a\"b");
  auto has = [&](const std::string& line) { return text.find(line + "\n") != std::string::npos; };
  EXPECT_TRUE(has(R"(onyx_inference_requests_total{model="a\"b",status="success"} 2)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_requests_total{model="a\"b",status="failure"} 1)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_request_duration_seconds_bucket{model="a\"b",le="0.0005"} 1)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_request_duration_seconds_bucket{model="a\"b",le="0.025"} 1)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_request_duration_seconds_bucket{model="a\"b",le="0.05"} 2)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_request_duration_seconds_bucket{model="a\"b",le="2.5"} 2)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_request_duration_seconds_bucket{model="a\"b",le="+Inf"} 3)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_request_duration_seconds_count{model="a\"b"} 3)")) << text;
  EXPECT_TRUE(has(R"(onyx_inference_compute_seconds_total{model="a\"b"} 0.0204)")) << text;
}

}  // namespace
}  // namespace onyx::serve
