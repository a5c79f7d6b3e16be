// The TensorFlow converter on malformed input: valid JSON whose fields have the wrong JSON type (a number where an
// object is expected, a string where a list is), functions that call themselves, and the rule that picks a graph's
// outputs without a signature. Each malformed model must give one error naming the file (and the node where there
// is one), never an exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "convert/tf/converter.h"
#include "runtime/session.h"

namespace onyx::convert::tf {
namespace {

// Writes `model_json` as model.json (and `weights` as weights.bin) in a fresh folder; returns the model's path.
std::string WriteModel(const std::string& name, const std::string& model_json, const std::string& weights = "") {
  const auto dir = std::filesystem::temp_directory_path() / ("onyx_tf_robustness_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "model.json") << model_json;
  if (!weights.empty()) std::ofstream(dir / "weights.bin", std::ios::binary) << weights;
  return (dir / "model.json").string();
}

std::string Topology(const std::string& nodes, const std::string& extra = "") {
  return R"({"format": "graph-model", "modelTopology": {"node": [)" + nodes + "]" + extra + "}}";
}

const char* kInput = R"({"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
                          "shape": {"shape": {"dim": [{"size": "2"}]}}}})";

// Converts and expects an error mentioning each of `words` (and the file).
void ExpectError(const std::string& name, const std::string& model_json, const std::vector<std::string>& words) {
  const std::string path = WriteModel(name, model_json);
  Result<ir::Model> model = Status::Ok();
  ASSERT_NO_THROW(model = ConvertTfjsGraphModel(path, {}));
  ASSERT_FALSE(model.ok()) << name << ": converted";
  const std::string& message = model.status().message();
  EXPECT_NE(message.find(path), std::string::npos) << name << ": " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << name << ": " << message;
  for (const auto& w : words) EXPECT_NE(message.find(w), std::string::npos) << name << ": " << message;
}

TEST(TfConvertRobustness, WronglyTypedFieldsGiveOneLineErrors) {
  const std::string relu = R"({"name": "r", "op": "Relu", "input": ["x"], "attr": {"T": {"type": "DT_FLOAT"}}})";
  ExpectError("attr_number", Topology(R"({"name": "x", "op": "Placeholder", "attr": 5})"), {"'x'", "attr"});
  ExpectError("input_string", Topology(std::string(kInput) + R"(, {"name": "r", "op": "Relu", "input": "x"})"),
              {"'r'", "input"});
  ExpectError("dim_string",
              Topology(R"({"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
                                         "shape": {"shape": {"dim": "2"}}}}, )" +
                       relu),
              {"'x'", "dim"});
  ExpectError("shape_number",
              Topology(R"({"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
                                           "shape": {"shape": 7}}}, )" +
                       relu),
              {"'x'", "shape"});
  ExpectError("unknown_rank_string",
              Topology(R"({"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"},
                           "shape": {"shape": {"unknownRank": "yes"}}}}, )" +
                       relu),
              {"'x'", "unknownRank"});
  ExpectError("const_value_string", Topology(R"({"name": "c", "op": "Const", "attr": {"value": "abc"}},
                                                 {"name": "r", "op": "Relu", "input": ["c"]})"),
              {"'c'"});
  ExpectError("const_shape_list",
              Topology(R"({"name": "c", "op": "Const", "attr": {"value": {"tensor": {"dtype": "DT_FLOAT",
                           "tensorShape": [1], "floatVal": [1]}}}}, {"name": "r", "op": "Relu", "input": ["c"]})"),
              {"'c'", "tensorShape"});
  ExpectError("const_value_object",
              Topology(R"({"name": "c", "op": "Const", "attr": {"value": {"tensor": {"dtype": "DT_FLOAT",
                           "tensorShape": {}, "floatVal": [{"a": 1}]}}}}, {"name": "r", "op": "Relu", "input": ["c"]})"),
              {"'c'", "number"});
  ExpectError("const_dtype_number", Topology(R"({"name": "c", "op": "Const", "attr": {"value": {"tensor": {"dtype": 1,
                           "floatVal": [1]}}}}, {"name": "r", "op": "Relu", "input": ["c"]})"),
              {"'c'", "dtype"});
  ExpectError("squeeze_list_number", Topology(std::string(kInput) + R"(, {"name": "s", "op": "Squeeze", "input": ["x"],
                                                   "attr": {"squeeze_dims": {"list": 3}}})"),
              {"'s'", "squeeze_dims"});
  ExpectError("node_number", Topology(R"(3)"), {"name"});
  ExpectError("signature_list",
              R"({"modelTopology": {"node": [)" + std::string(kInput) + "," + relu +
                  R"(]}, "signature": {"outputs": ["r:0"]}})",
              {"signature"});
  ExpectError("signature_name_number",
              R"({"modelTopology": {"node": [)" + std::string(kInput) + "," + relu +
                  R"(]}, "signature": {"outputs": {"r:0": {"name": 4}}}})",
              {"signature", "name"});
  ExpectError("library_function_object", Topology(std::string(kInput) + "," + relu, R"(, "library": {"function": {}})"),
              {"library"});
  ExpectError("library_number", Topology(std::string(kInput) + "," + relu, R"(, "library": 1)"), {"library"});
  ExpectError("weights_dtype_number",
              R"({"modelTopology": {"node": [)" + std::string(kInput) + "," + relu +
                  R"(]}, "weightsManifest": [{"paths": [], "weights": [{"name": "w", "shape": [], "dtype": 7}]}]})",
              {"'w'", "dtype"});
  ExpectError("initializer_list",
              R"({"modelTopology": {"node": [)" + std::string(kInput) + "," + relu + R"(]}, "modelInitializer": []})",
              {"modelInitializer"});
}

// f(x) = PartitionedCall(f, x): the recursion ends at the depth limit with an error.
TEST(TfConvertRobustness, FunctionsCallingThemselvesStopAtTheDepthLimit) {
  const std::string function = R"({"signature": {"name": "f", "inputArg": [{"name": "a", "type": "DT_FLOAT"}],
      "outputArg": [{"name": "b", "type": "DT_FLOAT"}]},
    "nodeDef": [{"name": "again", "op": "PartitionedCall", "input": ["a"], "attr": {"f": {"func": {"name": "f"}}}}],
    "ret": {"b": "again:output:0"}})";
  ExpectError("recursion",
              Topology(std::string(kInput) + R"(, {"name": "call", "op": "PartitionedCall", "input": ["x"],
                       "attr": {"f": {"func": {"name": "f"}}}})",
                       R"(, "library": {"function": [)" + function + "]}"),
              {"nested more than", "'f'"});
  ExpectError("missing_function",
              Topology(std::string(kInput) + R"(, {"name": "call", "op": "PartitionedCall", "input": ["x"],
                       "attr": {"f": {"func": {"name": "nowhere"}}}})"),
              {"'call'", "nowhere"});
  ExpectError("func_attr_string",
              Topology(std::string(kInput) + R"(, {"name": "call", "op": "PartitionedCall", "input": ["x"],
                       "attr": {"f": {"func": "g"}}})",
                       R"(, "library": {"function": [)" + function + "]}"),
              {"'call'", "'f'"});
}

std::vector<float> Floats(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.size());
}

// Without a signature every tensor no node reads is an output (three heads: three outputs), Asserts and NoOps aside.
TEST(TfConvertRobustness, WithoutASignatureEveryUnreadTensorIsAnOutput) {
  const std::string path = WriteModel("three_heads", Topology(std::string(kInput) + R"(,
    {"name": "head_relu", "op": "Relu", "input": ["x"], "attr": {"T": {"type": "DT_FLOAT"}}},
    {"name": "head_neg", "op": "Neg", "input": ["x"], "attr": {"T": {"type": "DT_FLOAT"}}},
    {"name": "head_abs", "op": "Abs", "input": ["x"], "attr": {"T": {"type": "DT_FLOAT"}}},
    {"name": "check", "op": "NoOp", "input": ["^head_abs"]})"));
  TfConvertReport report;
  auto model = ConvertTfjsGraphModel(path, {}, &report);
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->graph.outputs.size(), 3u);
  EXPECT_EQ(model->graph.outputs[0].name, "head_relu:0");
  EXPECT_EQ(model->graph.outputs[1].name, "head_neg:0");
  EXPECT_EQ(model->graph.outputs[2].name, "head_abs:0");
  EXPECT_NE(report.outputs_rule.find("no signature"), std::string::npos) << report.outputs_rule;

  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<Value> out;
  ASSERT_TRUE((*session)->Run({{"x:0", Value(Tensor::FromVector<float>({-1.5f, 2}, {2}))}}, {}, &out).ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 2}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{1.5f, 2}));
}

// The signature decides the outputs, in the order model.json stores them (not sorted by key).
TEST(TfConvertRobustness, TheSignatureOrdersTheOutputsAsStored) {
  const std::string path = WriteModel("signature_order", R"({"modelTopology": {"node": [)" + std::string(kInput) + R"(,
    {"name": "b", "op": "Relu", "input": ["x"]}, {"name": "a", "op": "Neg", "input": ["x"]},
    {"name": "unused", "op": "Abs", "input": ["x"]}]},
    "signature": {"outputs": {"z_key": {"name": "b:0"}, "a_key": {"name": "a:0"}}}})");
  TfConvertReport report;
  auto model = ConvertTfjsGraphModel(path, {}, &report);
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->graph.outputs.size(), 2u);
  EXPECT_EQ(model->graph.outputs[0].name, "b:0");
  EXPECT_EQ(model->graph.outputs[1].name, "a:0");
  EXPECT_NE(report.outputs_rule.find("signature"), std::string::npos);
}

// String weights: each string is its byte length (uint32, little-endian) then its bytes.
TEST(TfConvertRobustness, StringWeightsAreRead) {
  std::string weights;
  for (const std::string s : {"ab", "", "xyz"}) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    weights.append(reinterpret_cast<const char*>(&n), 4);
    weights += s;
  }
  const std::string model_json = R"({"modelTopology": {"node": [
      {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_STRING"}, "shape": {"shape": {"dim": [{"size": "3"}]}}}},
      {"name": "table", "op": "HashTableV2", "attr": {"key_dtype": {"type": "DT_STRING"}, "value_dtype": {"type": "DT_INT64"}}},
      {"name": "keys", "op": "Const", "attr": {"dtype": {"type": "DT_STRING"}}},
      {"name": "values", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"}, "value": {"tensor": {"dtype": "DT_INT64",
          "tensorShape": {"dim": [{"size": "3"}]}, "int64Val": ["5", "6", "7"]}}}},
      {"name": "default", "op": "Const", "attr": {"dtype": {"type": "DT_INT64"}, "value": {"tensor": {"dtype": "DT_INT64",
          "tensorShape": {}, "int64Val": ["-1"]}}}},
      {"name": "import", "op": "LookupTableImportV2", "input": ["table", "keys", "values"]},
      {"name": "find", "op": "LookupTableFindV2", "input": ["table", "x", "default", "^import"],
       "attr": {"Tout": {"type": "DT_INT64"}}}]},
    "weightsManifest": [{"paths": ["weights.bin"], "weights": [{"name": "keys", "shape": [3], "dtype": "string"}]}]})";
  const std::string path = WriteModel("string_weights", model_json, weights);
  auto model = ConvertTfjsGraphModel(path, {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->graph.outputs.size(), 1u);  // the import is no output
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Tensor x = Tensor::Allocate(DataType::kString, {3});
  x.data<std::string>()[0] = "xyz";
  x.data<std::string>()[1] = "";
  x.data<std::string>()[2] = "abc";
  std::vector<Value> out;
  Status st = (*session)->Run({{"x:0", Value(x)}}, {}, &out);
  ASSERT_TRUE(st.ok()) << st.message();
  const Tensor& y = out[0].tensor();
  ASSERT_EQ(y.type(), DataType::kInt64);
  EXPECT_EQ(std::vector<int64_t>(y.data<int64_t>(), y.data<int64_t>() + 3), (std::vector<int64_t>{7, 6, -1}));

  // A string running past the shards' end is an error naming the weight.
  const std::string truncated =
      WriteModel("string_weights_truncated", model_json, weights.substr(0, weights.size() - 1));
  auto bad = ConvertTfjsGraphModel(truncated, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'keys'"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace onyx::convert::tf

namespace onyx::convert::tf {
namespace {

// Weight shards are opened through the safe file layer: a shard that is a symlink (to a file outside the folder, or
// to /dev/zero, which would exhaust memory) or that leaves the folder is refused with an error naming it.
TEST(TfConvertRobustness, WeightShardsStayInsideTheModelsFolder) {
  const std::string nodes = std::string(kInput) +
                            R"(, {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
                               {"name": "y", "op": "AddV2", "input": ["x", "w"], "attr": {"T": {"type": "DT_FLOAT"}}})";
  auto with_shard = [&](const std::string& shard) {
    return R"({"format": "graph-model", "modelTopology": {"node": [)" + nodes +
           R"(]}, "weightsManifest": [{"paths": [")" + shard +
           R"("], "weights": [{"name": "w", "shape": [2], "dtype": "float32"}]}]})";
  };
  const std::string ok_path = WriteModel("shard_ok", with_shard("weights.bin"), std::string(8, '\0'));
  auto ok = ConvertTfjsGraphModel(ok_path, {});
  ASSERT_TRUE(ok.ok()) << ok.status().message();

  const auto dir = std::filesystem::path(WriteModel("shard_links", with_shard("zero.bin")));
  std::filesystem::create_symlink("/dev/zero", dir.parent_path() / "zero.bin");
  auto zero = ConvertTfjsGraphModel(dir.string(), {});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("symlink"), std::string::npos) << zero.status().message();

  ExpectError("shard_escape", with_shard("../shard_ok/weights.bin"), {"weight shard", "leaves the model's folder"});
  ExpectError("shard_absolute", with_shard("/etc/passwd"), {"weight shard", "absolute path"});
}

}  // namespace
}  // namespace onyx::convert::tf
