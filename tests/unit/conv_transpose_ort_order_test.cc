// ConvTranspose in ONNX Runtime's summation order (ops/nn/conv_transpose_ort_order.h) as a session runs it: on at
// optimization level disabled or when asked; a constant W takes ONNX Runtime's transposed-once path, a computed W
// the transposed-A GEMM; the order per output (GEMM K chain, taps in kernel order from zero, bias last) checked
// against a scalar restatement of it; the two GEMM forms sum differently. Whether the order is ONNX Runtime's is
// checked against its outputs by tests/data/ort_order/conv_transpose (ctest quant_ort_order).
#include "ops/nn/conv_transpose_ort_order.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "op_test_helpers.h"

namespace onyx {
namespace {

struct Case {
  std::string label;
  Shape x;  // [N, C, spatial...]
  Shape w;  // [C, M/g, k...]
  int64_t group = 1;
  int64_t stride = 1, pad = 0, dilation = 1, out_pad = 0;
};

size_t Dims(const Case& cs) { return cs.x.size() - 2; }

// y = ConvTranspose(x, W, B) in a session with these settings: W and B initializers, or (w_fed) W fed at run time,
// as a W computed in the graph.
Tensor RunConvTranspose(const Case& cs, const Tensor& x, const Tensor& w, const Tensor& b, bool w_fed,
                        optimizer::OptLevel level, std::optional<bool> ort_order, int threads) {
  const size_t nd = Dims(cs);
  testing::OpTest t = testing::Op("ConvTranspose", 17)
                          .Attr("strides", std::vector<int64_t>(nd, cs.stride))
                          .Attr("dilations", std::vector<int64_t>(nd, cs.dilation))
                          .Attr("pads", std::vector<int64_t>(2 * nd, cs.pad))
                          .Attr("output_padding", std::vector<int64_t>(nd, cs.out_pad))
                          .Attr("group", cs.group)
                          .Input(Value(x))
                          .Input(Value(w))
                          .Input(Value(b));
  t.constant_inputs = w_fed ? std::vector<size_t>{2} : std::vector<size_t>{1, 2};
  t.options.optimization_level = level;
  t.options.ort_summation_order = ort_order;
  t.options.intra_op_num_threads = threads;
  return testing::RunOk(t);
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data<float>(), b.data<float>(), a.size() * sizeof(float)) == 0;
}

// The geometry the kernel resolves for cs (explicit pads: Y = (X - 1) * stride + out_pad + (k - 1) * d + 1 - 2p).
ops::nn::ConvTransposeGeometry Geometry(const Case& cs) {
  ops::nn::ConvTransposeGeometry g;
  g.batch = cs.x[0], g.in_channels = cs.x[1], g.out_channels = cs.w[1] * cs.group, g.group = cs.group;
  for (size_t d = 0; d < Dims(cs); ++d) {
    ops::nn::WindowAxis a;
    a.out = cs.x[d + 2], a.kernel = cs.w[d + 2], a.stride = cs.stride, a.dilation = cs.dilation;
    a.pad_begin = a.pad_end = cs.pad;
    a.in = (a.out - 1) * cs.stride + cs.out_pad + (a.kernel - 1) * cs.dilation + 1 - 2 * cs.pad;
    g.axes.push_back(a);
  }
  return g;
}

Shape OutShape(const ops::nn::ConvTransposeGeometry& g) {
  Shape s = {g.batch, g.out_channels};
  for (const auto& a : g.axes) s.push_back(a.in);
  return s;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"2x2 s2, K 192 over 16 pixels", {1, 192, 4, 4}, {192, 8, 2, 2}, 1, 2, 0, 1, 0},
      {"3x3 s2 p1 op1", {1, 24, 9, 7}, {24, 16, 3, 3}, 1, 2, 1, 1, 1},
      {"grouped 4x4 s2 p1", {2, 16, 6, 6}, {16, 3, 4, 4}, 4, 2, 1, 1, 0},
      {"dilated", {1, 8, 7, 9}, {8, 6, 3, 3}, 1, 1, 2, 2, 0},
      {"depthwise (one channel per group: W not transposed)", {1, 12, 8, 8}, {12, 1, 3, 3}, 12, 2, 1, 1, 1},
      {"1-D", {1, 160, 12}, {160, 8, 4}, 1, 2, 1, 1, 0},
      {"3-D", {1, 140, 3, 3, 2}, {140, 4, 3, 3, 3}, 1, 2, 1, 1, 0},
  };
  return cases;
}

TEST(ConvTransposeOrtOrder, SessionRunsTheOrtOrder) {
  for (const Case& cs : Cases()) {
    const Tensor x = testing::NormalTensor(cs.x, 1);
    const Tensor w = testing::NormalTensor(cs.w, 2);
    const ops::nn::ConvTransposeGeometry g = Geometry(cs);
    const Tensor b = testing::NormalTensor({g.out_channels}, 3);
    const int64_t cg = cs.x[1] / cs.group;
    const int64_t kernel_dim = w.size() / cs.w[0];
    const std::vector<float> wt = ops::nn::TransposeFilterPerGroup(w.data<float>(), cs.group, cg, kernel_dim);
    const bool transposed = ops::nn::OrtTransposesFilter(cg, kernel_dim);
    for (int threads : {1, 2}) {
      const std::string label = cs.label + " threads=" + std::to_string(threads);
      // A constant W: ONNX Runtime's transposed-once filter (where it transposes).
      Tensor want = Tensor::Allocate(DataType::kFloat, OutShape(g));
      ops::nn::RunConvTransposeOrtOrder(g, x.data<float>(), w.data<float>(), transposed ? wt.data() : nullptr,
                                        b.data<float>(), want.data<float>(), threads);
      EXPECT_TRUE(
          SameBits(RunConvTranspose(cs, x, w, b, false, optimizer::OptLevel::kDisabled, std::nullopt, threads), want))
          << label;
      EXPECT_TRUE(SameBits(RunConvTranspose(cs, x, w, b, false, optimizer::OptLevel::kBasic, true, threads), want))
          << label << " (asked at level basic)";
      // A W fed at run time: read transposed by the GEMM.
      Tensor want_fed = Tensor::Allocate(DataType::kFloat, OutShape(g));
      ops::nn::RunConvTransposeOrtOrder(g, x.data<float>(), w.data<float>(), nullptr, b.data<float>(),
                                        want_fed.data<float>(), threads);
      EXPECT_TRUE(SameBits(RunConvTranspose(cs, x, w, b, true, optimizer::OptLevel::kDisabled, std::nullopt, threads),
                           want_fed))
          << label << " (W fed)";
      // The fast path (flag off) sums in another order to nearly the same values.
      const Tensor fast = RunConvTranspose(cs, x, w, b, false, optimizer::OptLevel::kDisabled, false, threads);
      ASSERT_EQ(fast.shape(), want.shape()) << label;
      for (int64_t i = 0; i < want.size(); ++i) {
        const float a = want.data<float>()[i], f = fast.data<float>()[i];
        ASSERT_NEAR(a, f, 1e-4f * std::max(1.0f, std::abs(a))) << label << " element " << i;
      }
    }
  }
}

// ONNX Runtime's order restated one output at a time, for K = C/g <= 128 (one MLAS K block, no M = 1 kernel):
// each column entry an FMA chain over the input channels from 0, then per output ((0 + t0) + t1) + ... over the taps
// that reach it in row-major kernel order, then + bias.
std::vector<float> ScalarOrder(const Case& cs, const ops::nn::ConvTransposeGeometry& g, const float* x, const float* w,
                               const float* b) {
  const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group;
  const int64_t x_size = ops::nn::OutputSize(g.axes), y_size = ops::nn::InputSize(g.axes);
  const int64_t taps = ops::nn::KernelSize(g.axes);
  const size_t nd = Dims(cs);
  std::vector<float> y(static_cast<size_t>(g.batch * g.out_channels * y_size), 0.0f);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      for (int64_t m = 0; m < mg; ++m) {
        float* ym = y.data() + (n * g.out_channels + grp * mg + m) * y_size;
        for (int64_t t = 0; t < taps; ++t) {
          std::vector<int64_t> tap(nd);
          for (int64_t r = t, d = static_cast<int64_t>(nd) - 1; d >= 0; --d) {
            tap[static_cast<size_t>(d)] = r % g.axes[static_cast<size_t>(d)].kernel;
            r /= g.axes[static_cast<size_t>(d)].kernel;
          }
          for (int64_t p = 0; p < x_size; ++p) {
            int64_t off = 0;
            bool inside = true;
            for (int64_t r = p, d = static_cast<int64_t>(nd) - 1; d >= 0; --d) {
              const ops::nn::WindowAxis& a = g.axes[static_cast<size_t>(d)];
              const int64_t pos = (r % a.out) * a.stride - a.pad_begin + tap[static_cast<size_t>(d)] * a.dilation;
              r /= a.out;
              inside &= pos >= 0 && pos < a.in;
              int64_t scale = 1;
              for (size_t e = static_cast<size_t>(d) + 1; e < nd; ++e) scale *= g.axes[e].in;
              off += pos * scale;
            }
            if (!inside) continue;
            float acc = 0.0f;
            for (int64_t c = 0; c < cg; ++c) {
              acc = std::fma(w[((grp * cg + c) * mg + m) * taps + t],
                             x[(n * g.in_channels + grp * cg + c) * x_size + p], acc);
            }
            ym[off] += acc;
          }
        }
        for (int64_t i = 0; i < y_size; ++i) ym[i] += b[grp * mg + m];
      }
    }
  }
  return y;
}

TEST(ConvTransposeOrtOrder, MatchesTheOrderRestated) {
  const std::vector<Case> cases = {
      {"3x3 s2 p1 op1", {1, 24, 9, 7}, {24, 16, 3, 3}, 1, 2, 1, 1, 1},
      {"grouped dilated", {2, 16, 5, 6}, {16, 3, 3, 3}, 4, 2, 2, 2, 1},
      {"1-D", {1, 100, 9}, {100, 5, 4}, 1, 3, 1, 1, 2},
      {"3-D", {1, 20, 3, 4, 2}, {20, 3, 2, 3, 3}, 1, 2, 1, 1, 0},
  };
  for (const Case& cs : cases) {
    const Tensor x = testing::NormalTensor(cs.x, 4);
    const Tensor w = testing::NormalTensor(cs.w, 5);
    const ops::nn::ConvTransposeGeometry g = Geometry(cs);
    const Tensor b = testing::NormalTensor({g.out_channels}, 6);
    const std::vector<float> want = ScalarOrder(cs, g, x.data<float>(), w.data<float>(), b.data<float>());
    const int64_t cg = cs.x[1] / cs.group, kernel_dim = w.size() / cs.w[0];
    const std::vector<float> wt = ops::nn::TransposeFilterPerGroup(w.data<float>(), cs.group, cg, kernel_dim);
    for (int threads : {1, 2}) {
      for (const float* w_transposed : {static_cast<const float*>(nullptr), wt.data()}) {
        std::vector<float> got(want.size());
        ops::nn::RunConvTransposeOrtOrder(g, x.data<float>(), w.data<float>(), w_transposed, b.data<float>(),
                                          got.data(), threads);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0)
            << cs.label << " threads=" << threads << (w_transposed ? " (W transposed)" : "");
      }
    }
  }
}

TEST(ConvTransposeOrtOrder, TheTransposedFilterSumsDifferently) {
  // K = 192 input channels over 16 pixels: read transposed, MLAS sums K in blocks of 128; the transposed-once filter
  // (A not transposed) lets its K stride grow to one block. Same products, other last bits somewhere.
  const Case cs = Cases()[0];
  const Tensor x = testing::NormalTensor(cs.x, 7);
  const Tensor w = testing::NormalTensor(cs.w, 8);
  const ops::nn::ConvTransposeGeometry g = Geometry(cs);
  const int64_t kernel_dim = w.size() / cs.w[0];
  ASSERT_TRUE(ops::nn::OrtTransposesFilter(cs.x[1], kernel_dim));
  const std::vector<float> wt = ops::nn::TransposeFilterPerGroup(w.data<float>(), 1, cs.x[1], kernel_dim);
  Tensor read_transposed = Tensor::Allocate(DataType::kFloat, OutShape(g));
  Tensor transposed_once = Tensor::Allocate(DataType::kFloat, OutShape(g));
  ops::nn::RunConvTransposeOrtOrder(g, x.data<float>(), w.data<float>(), nullptr, nullptr,
                                    read_transposed.data<float>(), 1);
  ops::nn::RunConvTransposeOrtOrder(g, x.data<float>(), w.data<float>(), wt.data(), nullptr,
                                    transposed_once.data<float>(), 1);
  EXPECT_FALSE(SameBits(read_transposed, transposed_once));
  for (int64_t i = 0; i < read_transposed.size(); ++i) {
    ASSERT_NEAR(read_transposed.data<float>()[i], transposed_once.data<float>()[i], 1e-4f) << i;
  }
}

TEST(ConvTransposeOrtOrder, FilterTransposition) {
  // PrePack leaves a single row or column alone.
  EXPECT_FALSE(ops::nn::OrtTransposesFilter(1, 9));
  EXPECT_FALSE(ops::nn::OrtTransposesFilter(16, 1));
  EXPECT_TRUE(ops::nn::OrtTransposesFilter(2, 2));
  // Two groups of W_g [2, 3] -> [3, 2].
  const std::vector<float> w = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
  const std::vector<float> want = {0, 3, 1, 4, 2, 5, 10, 13, 11, 14, 12, 15};
  EXPECT_EQ(ops::nn::TransposeFilterPerGroup(w.data(), 2, 2, 3), want);
}

}  // namespace
}  // namespace onyx
