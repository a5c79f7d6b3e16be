// The optimizer's attention fusion (src/optimizer/attention_fusion.cc) on torch exports (tests/data/contrib/fusion,
// made by tests/contrib/make_fusion_models.py): the fusion happens (FusedAttention nodes, no Softmax left) and the
// fused model gives ONNX Runtime's outputs of the unfused one, as the unfused run does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "format/model_io.h"
#include "format/tensor_proto.h"
#include "runtime/session.h"
#include "testing/compare.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

int CountOps(const ir::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

// Runs the case at `level`; returns the number of FusedAttention and Softmax nodes after optimization.
std::pair<int, int> RunAndCompare(const std::string& name, optimizer::OptLevel level) {
  const fs::path dir = fs::path(ONYX_SOURCE_DIR) / "tests/data/contrib/fusion" / name;
  auto model = format::LoadModel((dir / "model.onnx").string());
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return {-1, -1};
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < model->graph.inputs.size(); ++i) {
    auto t = format::LoadTensorFile((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    EXPECT_TRUE(t.ok()) << t.status().message();
    feeds.emplace_back(model->graph.inputs[i].name, Value(std::move(t).value()));
  }
  std::vector<std::string> names;
  for (const auto& o : model->graph.outputs) names.push_back(o.name);
  SessionOptions options;
  options.optimization_level = level;
  options.intra_op_num_threads = 1;
  auto session = Session::Create(std::move(model).value(), options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {-1, -1};
  std::vector<Value> outputs;
  const Status run = (*session)->Run(feeds, names, &outputs);
  EXPECT_TRUE(run.ok()) << run.message();
  for (size_t i = 0; run.ok() && i < names.size(); ++i) {
    auto expected =
        format::LoadTensorFile((dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb")).string());
    EXPECT_TRUE(expected.ok());
    if (!expected.ok()) break;
    const Status s = testing::CompareValues(outputs[i], Value(std::move(expected).value()), {1e-4, 1e-5});
    EXPECT_TRUE(s.ok()) << name << " output " << names[i] << ": " << s.message();
  }
  const ir::Graph& g = (*session)->model().graph;
  return {CountOps(g, "FusedAttention"), CountOps(g, "Softmax")};
}

struct FusionCase {
  const char* name;
  int attentions;
};

class AttentionFusionTest : public ::testing::TestWithParam<FusionCase> {};

TEST_P(AttentionFusionTest, FusesAndMatchesOnnxRuntime) {
  const FusionCase c = GetParam();
  const auto [fused, softmax] = RunAndCompare(c.name, optimizer::OptLevel::kAll);
  EXPECT_EQ(fused, c.attentions);
  EXPECT_EQ(softmax, 0);
  const auto [fused_basic, softmax_basic] = RunAndCompare(c.name, optimizer::OptLevel::kBasic);
  EXPECT_EQ(fused_basic, 0);  // an extended pass
  EXPECT_EQ(softmax_basic, c.attentions);
}

INSTANTIATE_TEST_SUITE_P(TorchExports, AttentionFusionTest,
                         ::testing::Values(FusionCase{"gpt2_tiny", 2}, FusionCase{"mha_tiny", 2},
                                           FusionCase{"broadcast_mask", 1}),
                         [](const ::testing::TestParamInfo<FusionCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace onyx
