// The conformance runner's comparisons: values as ONNX's runner compares them, and random draws (Bernoulli,
// Random*) by element type, shape and support.
#include <gtest/gtest.h>

#include <filesystem>

#include "format/model_io.h"
#include "format/tensor_proto.h"
#include "testing/compare.h"
#include "testing/conformance.h"
#include "text/parser.h"

namespace onyx::testing {
namespace {
namespace fs = std::filesystem;

Value Floats(std::vector<float> v, Shape shape) { return Value(Tensor::FromVector(v, std::move(shape))); }

TEST(CompareValues, ToleranceNanAndShape) {
  EXPECT_TRUE(CompareValues(Floats({1.0f, 2.0f}, {2}), Floats({1.0005f, 2.0f}, {2})).ok());
  EXPECT_FALSE(CompareValues(Floats({1.0f, 2.0f}, {2}), Floats({1.01f, 2.0f}, {2})).ok());
  EXPECT_TRUE(CompareValues(Floats({NAN}, {1}), Floats({NAN}, {1})).ok());
  EXPECT_FALSE(CompareValues(Floats({0.0f}, {1}), Floats({NAN}, {1})).ok());
  Status st = CompareValues(Floats({1, 2}, {1, 2}), Floats({1, 2}, {2}));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("shape"), std::string::npos) << st.message();
}

TEST(CompareRandomDraws, ChecksTypeShapeAndBernoulliSupport) {
  // Different draws from the same distribution pass.
  EXPECT_TRUE(CompareRandomDraws(Floats({0, 1, 1, 0}, {4}), Floats({1, 1, 0, 0}, {4})).ok());
  // A value no Bernoulli draw takes fails, naming the element.
  Status st = CompareRandomDraws(Floats({0, 0.5f, 1, 0}, {4}), Floats({1, 1, 0, 0}, {4}));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[1]"), std::string::npos) << st.message();
  // Shape and element type still have to match.
  EXPECT_FALSE(CompareRandomDraws(Floats({0, 1, 1}, {3}), Floats({1, 1, 0, 0}, {4})).ok());
  EXPECT_FALSE(
      CompareRandomDraws(Value(Tensor::FromVector<double>({0, 1, 1, 0}, {4})), Floats({1, 1, 0, 0}, {4})).ok());
  // Expected draws that are not all 0/1 (RandomUniform, say) give no support to check against: a failure, not a pass.
  EXPECT_FALSE(CompareRandomDraws(Floats({0.25f, 0.5f}, {2}), Floats({0.3f, 0.7f}, {2})).ok());
}

// Writes a one-node case folder: model.onnx and test_data_set_0 with one input and the given expected output.
fs::path WriteCase(const std::string& name, const std::string& model_text, const Tensor& input,
                   const Tensor& expected) {
  fs::path dir = fs::temp_directory_path() / ("onyx_conformance_runner_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "test_data_set_0");
  auto model = text::ParseModel(model_text);
  EXPECT_TRUE(model.ok()) << model.status().message();
  EXPECT_TRUE(format::SaveModel(*model, (dir / "model.onnx").string()).ok());
  EXPECT_TRUE(format::SaveTensorFile(input, "x", (dir / "test_data_set_0" / "input_0.pb").string()).ok());
  EXPECT_TRUE(format::SaveTensorFile(expected, "y", (dir / "test_data_set_0" / "output_0.pb").string()).ok());
  return dir;
}

CaseResult RunOne(const fs::path& dir) {
  TestCase c;
  c.name = "unit/" + dir.filename().string();
  c.model_path = (dir / "model.onnx").string();
  c.dir = dir.string();
  ConformanceOptions options;
  options.isolate = true;  // the outcome and the random-draws flag must survive the child process
  return RunCase(c, options);
}

TEST(ConformanceRunner, BernoulliCasesAreCheckedAsDrawsNotValues) {
  const std::string bernoulli = R"(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[6] x) => (float[6] y) { y = Bernoulli(x) }
  )";
  // p = 0 and p = 1 are certain; the expected sample disagrees with them, as another implementation's draw may.
  Tensor p = Tensor::FromVector<float>({0, 1, 0, 1, 0.5f, 0.5f}, {6});
  CaseResult r = RunOne(WriteCase("bernoulli", bernoulli, p, Tensor::FromVector<float>({1, 0, 1, 0, 1, 0}, {6})));
  EXPECT_EQ(r.outcome, CaseOutcome::kPass) << r.message;
  EXPECT_TRUE(r.random_draws);

  // The same outputs from a deterministic model are compared by value, and fail.
  const std::string identity = R"(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[6] x) => (float[6] y) { y = Identity(x) }
  )";
  r = RunOne(WriteCase("identity", identity, Tensor::FromVector<float>({0, 1, 0, 1, 1, 1}, {6}),
                       Tensor::FromVector<float>({1, 0, 1, 0, 1, 0}, {6})));
  EXPECT_EQ(r.outcome, CaseOutcome::kFail);
  EXPECT_FALSE(r.random_draws);
}

TEST(ConformanceRunner, RandomUniformSamplesAreNotPassedUnchecked) {
  const std::string uniform = R"(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[4] x) => (float[4] y) { y = RandomUniformLike <seed = 1.0> (x) }
  )";
  Tensor x = Tensor::FromVector<float>({0, 0, 0, 0}, {4});
  CaseResult r = RunOne(WriteCase("uniform", uniform, x, Tensor::FromVector<float>({0.1f, 0.2f, 0.3f, 0.4f}, {4})));
  EXPECT_EQ(r.outcome, CaseOutcome::kFail) << r.message;
  EXPECT_TRUE(r.random_draws);
  EXPECT_NE(r.message.find("support"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace onyx::testing
