// Unit tests of the static quantizer's additions: bias correction (quantize/bias_correction.h: the corrected bias
// is b - E[dW x] over the calibration samples, a missing bias is added) and the preparation folds
// (quantize/prepare.h: Pad, BatchNormalization and MatMul + Add folded, standard ONNX only).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "format/npy.h"
#include "ir/graph_edit.h"
#include "quantize/bias_correction.h"
#include "quantize/graph_util.h"
#include "quantize/prepare.h"
#include "quantize/weights.h"
#include "text/parser.h"

namespace onyx::quantize {
namespace {

namespace fs = std::filesystem;

ir::Model Parse(const std::string& text) {
  auto m = text::ParseModel(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

// A calibration folder with x.npy stacking `rows` samples of `shape` (without the batch axis) drawn from N(mean, 1).
struct Samples {
  fs::path dir;
  Tensor all;
  Samples(const std::string& name, int64_t rows, Shape shape, float mean) {
    dir = fs::temp_directory_path() / ("onyx_bias_correction_" + name + "_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    shape.insert(shape.begin(), rows);
    all = Tensor::Allocate(DataType::kFloat, shape);
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(mean, 1.0f);
    float* v = all.data<float>();
    for (int64_t i = 0; i < all.size(); ++i) v[i] = normal(rng);
    EXPECT_TRUE(format::SaveNpy(all, (dir / "x.npy").string()).ok());
  }
  ~Samples() { fs::remove_all(dir); }
};

std::vector<double> Column(const Tensor& t, int64_t c) {
  std::vector<double> out;
  for (int64_t r = 0; r < t.dim(0); ++r) out.push_back(t.data<float>()[r * t.dim(1) + c]);
  return out;
}

TEST(QuantizeBiasCorrection, GemmBiasLosesTheMeanWeightError) {
  // Per-tensor scale 1.27 / 127 = 0.01: every other weight is off its grid by up to half a step.
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 3] x) => (float[1, 2] y) <float[3, 2] w = {0.303, -0.1149, 1.27, 0.0551, -0.6238, 0.9012},
                                      float[2] b = {0.5, -0.25}> {
  y = Gemm(x, w, b)
}
)");
  Samples samples("gemm", 16, {3}, 2.0f);
  ASSERT_TRUE(ir::TopologicalSort(m.graph).ok());
  auto data = CalibrationSet::Open(samples.dir.string(), m.graph, 0);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const Tensor w = *ConstantTensor(m.graph, "w");
  QuantizeOptions options;
  auto corrected = CorrectBiases(m, {{0, -1}}, *data, options);
  ASSERT_TRUE(corrected.ok()) << corrected.status().message();
  EXPECT_EQ(*corrected, 1);
  // Expected: b_j - sum_i (Wq - W)[i, j] * mean(x_i), with Wq from the quantizer's own rounding.
  auto qt = QuantizeSymmetric(w, -1, false);
  ASSERT_TRUE(qt.ok());
  auto wq = Dequantize(*qt);
  ASSERT_TRUE(wq.ok());
  const Tensor* b = ConstantTensor(m.graph, m.graph.nodes[0].inputs[2]);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(m.graph.nodes[0].inputs[2], "b") << "a bias only this Gemm reads keeps its name";
  const double want_b[2] = {0.5, -0.25};
  double largest = 0;
  for (int64_t j = 0; j < 2; ++j) {
    double err = 0;
    for (int64_t i = 0; i < 3; ++i) {
      const std::vector<double> xi = Column(samples.all, i);
      double mean = 0;
      for (double v : xi) mean += v / static_cast<double>(xi.size());
      err += (wq->data<float>()[i * 2 + j] - w.data<float>()[i * 2 + j]) * mean;
    }
    largest = std::max(largest, std::fabs(err));
    EXPECT_NEAR(b->data<float>()[j], want_b[j] - err, 1e-6) << "channel " << j;
  }
  EXPECT_GT(largest, 1e-3) << "the weights' rounding error must be visible for the test to mean anything";
}

TEST(QuantizeBiasCorrection, ConvWithoutBiasGetsOne) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 2, 3, 3] x) => (float[1, 2, 3, 3] y) <float[2, 2, 1, 1] w = {0.303, -0.1149, 1.27, 0.0551}> {
  y = Conv(x, w)
}
)");
  Samples samples("conv", 8, {2, 3, 3}, 1.0f);
  auto data = CalibrationSet::Open(samples.dir.string(), m.graph, 0);
  ASSERT_TRUE(data.ok()) << data.status().message();
  QuantizeOptions options;
  auto corrected = CorrectBiases(m, {{0, 0}}, *data, options);  // per channel: axis 0
  ASSERT_TRUE(corrected.ok()) << corrected.status().message();
  EXPECT_EQ(*corrected, 1);
  ASSERT_EQ(m.graph.nodes[0].inputs.size(), 3u);
  const Tensor* b = ConstantTensor(m.graph, m.graph.nodes[0].inputs[2]);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->shape(), (Shape{2}));
  // Output channel 1 (1.27, 0.0551) has scale 0.01: 1.27 is exact and 0.0551 -> 0.06, so its correction is
  // -(0.06 - 0.0551) * mean(x_1) (x_1 ~ N(1, 1) over 72 values).
  double mean1 = 0;
  const float* x = samples.all.data<float>();
  for (int64_t s = 0; s < 8; ++s) {
    for (int64_t p = 0; p < 9; ++p) mean1 += x[s * 18 + 9 + p] / 72.0;
  }
  const float dw = 6 * 0.01f - 0.0551f;
  EXPECT_NEAR(b->data<float>()[1], -dw * mean1, 1e-6);
}

TEST(QuantizePrepare, FoldsPadBatchNormAndMatMulAddIntoStandardOnnx) {
  ir::Model m = Parse(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 1, 4, 4] x) => (float[1, 2] y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}, float[2, 1, 3, 3] w =
    {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 1.0, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8},
    float[2] s = {1.5, 0.5}, float[2] bb = {0.1, 0.2}, float[2] mu = {0.05, -0.1}, float[2] var = {1.0, 0.25},
    float[2, 2] fw = {1.0, 2.0, 3.0, 4.0}, float[2] fb = {0.5, -0.5}> {
  p = Pad(x, pads)
  c = Conv(p, w)
  n = BatchNormalization(c, s, bb, mu, var)
  r = Relu(n)
  i = Identity(r)
  gp = GlobalAveragePool(i)
  f = Flatten(gp)
  mm = MatMul(f, fw)
  y = Add(mm, fb)
}
)");
  QuantizeReport report;
  ASSERT_TRUE(PrepareForQuantization(m, 1, &report).ok());
  const auto ops = ir::OperatorHistogram(m.graph);
  EXPECT_EQ(ops, (std::map<std::string, int64_t>{
                     {"Conv", 1}, {"Relu", 1}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}}));
  for (const auto& n : m.graph.nodes) EXPECT_TRUE(n.domain.empty()) << n.Describe();
  EXPECT_EQ(report.notes.size(), 4u) << "FusePadConv, FuseConvBatchNorm, FuseMatMulAdd, EliminateIdentity";
}

}  // namespace
}  // namespace onyx::quantize
