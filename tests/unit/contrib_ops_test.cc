// The com.microsoft operators (src/ops/contrib) against ONNX Runtime 1.30: every case under tests/data/contrib
// (one-node models with random inputs; outputs computed by ORT, see tests/contrib/README.md) runs its node's kernel
// straight from the registry and compares every output. The kernels are also reached through sessions by
// `onyx conformance tests/data/contrib` (tests/contrib/check_contrib.sh); this test pins the kernels themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "format/model_io.h"
#include "format/tensor_proto.h"
#include "runtime/kernel_registry.h"
#include "testing/compare.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

std::string CaseRoot() { return std::string(ONYX_SOURCE_DIR) + "/tests/data/contrib"; }

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(CaseRoot())) {
    if (fs::exists(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Runs the one node of `name` on its data set; "" when every output matches ORT's.
std::string RunCase(const std::string& name) {
  const fs::path dir = fs::path(CaseRoot()) / name;
  auto model = format::LoadModel((dir / "model.onnx").string());
  if (!model.ok()) return "load: " + model.status().message();
  const ir::Graph& g = model->graph;
  if (g.nodes.size() != 1) return "expected one node";
  const ir::Node& node = g.nodes[0];
  const KernelFactory* factory = KernelRegistry::Global().Find(node.domain, node.op_type, 1);
  if (factory == nullptr) return "no kernel for " + node.domain + "." + node.op_type;
  KernelInfo info(node, 1, 1, [](const ir::Graph&) -> Result<std::shared_ptr<const GraphPlan>> {
    return Unsupported("no subgraphs here");
  });
  auto kernel = (*factory)(info);
  if (!kernel.ok()) return "init: " + kernel.status().message();

  // Graph inputs in order are input_0.pb, input_1.pb, ...
  std::map<std::string, Value> feeds;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    auto t = format::LoadTensorFile((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    if (!t.ok()) return "input " + std::to_string(i) + ": " + t.status().message();
    feeds[g.inputs[i].name] = Value(std::move(t).value());
  }
  // Initializers (the constant-weight cases) are fed like inputs here: the kernel takes its run-time path for them;
  // `onyx conformance` (tests/contrib/check_contrib.sh) runs them as the session's constants.
  for (const auto& init : g.initializers) feeds[init.name] = Value(init.tensor);
  std::vector<const Value*> inputs;
  for (const auto& in : node.inputs) inputs.push_back(in.empty() ? nullptr : &feeds.at(in));
  std::vector<Value> outputs(node.outputs.size());
  KernelContext ctx(inputs, &outputs, nullptr, 1);
  if (Status s = (*kernel)->Compute(ctx); !s.ok()) return "compute: " + s.message();

  std::string problems;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    auto expected =
        format::LoadTensorFile((dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb")).string());
    if (!expected.ok()) return "output file " + std::to_string(i) + ": " + expected.status().message();
    size_t slot = 0;
    while (slot < node.outputs.size() && node.outputs[slot] != g.outputs[i].name) ++slot;
    if (slot == node.outputs.size() || outputs[slot].empty()) {
      problems += " output '" + g.outputs[i].name + "' not produced;";
      continue;
    }
    // float32 results of reordered sums (GEMMs, row statistics) and vectorized transcendental functions.
    const testing::Tolerance tol{1e-4, 1e-5};
    if (Status s = testing::CompareValues(outputs[slot], Value(std::move(expected).value()), tol); !s.ok()) {
      problems += " output '" + g.outputs[i].name + "': " + s.message() + ";";
    }
  }
  return problems;
}

TEST(ContribOpsTest, MatchOnnxRuntime) {
  const std::vector<std::string> names = CaseNames();
  EXPECT_GE(names.size(), 50u) << "cases missing under " << CaseRoot();
  int passed = 0;
  for (const auto& name : names) {
    const std::string problem = RunCase(name);
    if (problem.empty()) {
      ++passed;
    } else {
      ADD_FAILURE() << name << ": " << problem;
    }
  }
  EXPECT_EQ(passed, static_cast<int>(names.size()));
}

// Each operator has several cases (attributes and optional inputs).
TEST(ContribOpsTest, EveryOperatorCovered) {
  std::map<std::string, int> per_op;
  for (const auto& name : CaseNames()) {
    auto model = format::LoadModel(CaseRoot() + "/" + name + "/model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().message();
    ++per_op[model->graph.nodes.at(0).op_type];
  }
  for (const char* op :
       {"Attention", "MultiHeadAttention", "GroupQueryAttention", "SkipLayerNormalization",
        "SkipSimplifiedLayerNormalization", "SimplifiedLayerNormalization", "FastGelu", "BiasGelu", "QuickGelu", "Gelu",
        "RotaryEmbedding", "MatMulNBits", "EmbedLayerNormalization", "FusedMatMul"}) {
    EXPECT_GE(per_op[op], 3) << op;
  }
}

TEST(ContribOpsTest, BadInputsAreErrorsNamingTheInput) {
  // MatMulNBits with a B of the wrong size: an error, not a crash.
  ir::Node node;
  node.op_type = "MatMulNBits";
  node.domain = "com.microsoft";
  node.inputs = {"A", "B", "scales"};
  node.outputs = {"Y"};
  node.attributes = {ir::IntAttr("K", 32), ir::IntAttr("N", 2), ir::IntAttr("block_size", 16)};
  const KernelFactory* factory = KernelRegistry::Global().Find("com.microsoft", "MatMulNBits", 1);
  ASSERT_NE(factory, nullptr);
  KernelInfo info(node, 1, 1, {});
  auto kernel = (*factory)(info);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  Value a(Tensor::Allocate(DataType::kFloat, {1, 32}, true));
  Value b(Tensor::Allocate(DataType::kUint8, {2, 2, 3}, true));
  Value scales(Tensor::Allocate(DataType::kFloat, {4}, true));
  std::vector<Value> outputs(1);
  KernelContext ctx({&a, &b, &scales}, &outputs, nullptr, 1);
  const Status s = (*kernel)->Compute(ctx);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'B'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace onyx
