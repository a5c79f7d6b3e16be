// Conv in ONNX Runtime's summation order (ops/nn/conv_ort_order.h) as a session runs it: on at optimization level
// disabled (SessionOptions::ort_summation_order unset) or when asked, off otherwise; the result is exactly
// RunConvOrtOrder's for the session's thread count, close to the fast path's, and the order matters (another
// K blocking gives other bits). Whether the order is ONNX Runtime's is checked against its outputs by
// tests/data/quant/conv_ort_order (tests/quant/check_bit_exact.py).
#include "ops/nn/conv_ort_order.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kernels/sgemm_ort_order.h"
#include "op_test_helpers.h"

namespace onyx {
namespace {

struct ConvCase {
  std::string label;
  int64_t c, h, w, m, k, stride, pad, group;
};

// y = Conv(x, W, B), W and B initializers, in a session with these settings.
Tensor RunConv(const ConvCase& cs, const Tensor& x, const Tensor& w, const Tensor& b, optimizer::OptLevel level,
               std::optional<bool> ort_order, int threads) {
  testing::OpTest t = testing::Op("Conv", 17)
                          .Attr("kernel_shape", std::vector<int64_t>{cs.k, cs.k})
                          .Attr("strides", std::vector<int64_t>{cs.stride, cs.stride})
                          .Attr("pads", std::vector<int64_t>{cs.pad, cs.pad, cs.pad, cs.pad})
                          .Attr("group", cs.group)
                          .Input(Value(x))
                          .Input(Value(w))
                          .Input(Value(b));
  t.constant_inputs = {1, 2};
  t.options.optimization_level = level;
  t.options.ort_summation_order = ort_order;
  t.options.intra_op_num_threads = threads;
  return testing::RunOk(t);
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data<float>(), b.data<float>(), a.size() * sizeof(float)) == 0;
}

const std::vector<ConvCase>& Cases() {
  static const std::vector<ConvCase> cases = {
      {"pointwise", 32, 14, 14, 48, 1, 1, 0, 1},   // MLAS: GEMM on the input
      {"3x3", 24, 17, 15, 40, 3, 1, 1, 1},         // im2col, segments per thread
      {"7x7 s2", 3, 40, 40, 16, 7, 2, 3, 1},       // im2col, K = 147
      {"few pixels", 64, 5, 5, 72, 3, 1, 1, 1},    // more filters than pixels: im2col + MlasGemm
      {"depthwise", 16, 20, 20, 16, 3, 1, 1, 16},  // MLAS's M = 1 kernel
      {"grouped", 16, 12, 12, 24, 3, 2, 1, 4},
  };
  return cases;
}

TEST(ConvOrtOrder, SessionAtLevelDisabledRunsTheOrtOrder) {
  for (const ConvCase& cs : Cases()) {
    const Tensor x = testing::NormalTensor({1, cs.c, cs.h, cs.w}, 1);
    const Tensor w = testing::NormalTensor({cs.m, cs.c / cs.group, cs.k, cs.k}, 2);
    const Tensor b = testing::NormalTensor({cs.m}, 3);
    // What the kernel must compute: RunConvOrtOrder for the same geometry.
    ops::nn::ConvGeometry g;
    g.batch = 1, g.in_channels = cs.c, g.out_channels = cs.m, g.group = cs.group;
    for (int64_t in : {cs.h, cs.w}) {
      ops::nn::WindowAxis a;
      a.in = in, a.kernel = cs.k, a.stride = cs.stride, a.pad_begin = a.pad_end = cs.pad;
      a.out = (in + 2 * cs.pad - cs.k) / cs.stride + 1;
      g.axes.push_back(a);
    }
    g.out_shape = {1, cs.m, g.axes[0].out, g.axes[1].out};
    for (int threads : {1, 2}) {
      Tensor want = Tensor::Allocate(DataType::kFloat, Shape(g.out_shape));
      ops::nn::RunConvOrtOrder(g, x.data<float>(), w.data<float>(), b.data<float>(), want.data<float>(), threads);
      const Tensor disabled = RunConv(cs, x, w, b, optimizer::OptLevel::kDisabled, std::nullopt, threads);
      EXPECT_TRUE(SameBits(disabled, want)) << cs.label << " threads=" << threads;
      const Tensor asked = RunConv(cs, x, w, b, optimizer::OptLevel::kBasic, true, threads);
      EXPECT_TRUE(SameBits(asked, want)) << cs.label << " threads=" << threads << " (asked at level basic)";
      // The fast path (flag off) sums in another order but to nearly the same values.
      const Tensor fast = RunConv(cs, x, w, b, optimizer::OptLevel::kDisabled, false, threads);
      ASSERT_EQ(fast.shape(), want.shape());
      for (int64_t i = 0; i < want.size(); ++i) {
        const float a = want.data<float>()[i], f = fast.data<float>()[i];
        ASSERT_NEAR(a, f, 1e-4f * std::max(1.0f, std::abs(a))) << cs.label << " element " << i;
      }
    }
  }
}

TEST(ConvOrtOrder, TheBlockingMatters) {
  // The 3x3 case's K = 216 spans two of MLAS's 128-blocks: summing it in one block (as a plain loop would) changes
  // some outputs' last bits, so the comparison above can tell the orders apart.
  const ConvCase cs = Cases()[1];
  const int64_t k = cs.c * cs.k * cs.k;
  ASSERT_GT(k, 128);
  const Tensor x = testing::NormalTensor({1, cs.c, cs.h, cs.w}, 1);
  const Tensor w = testing::NormalTensor({cs.m, cs.c, cs.k, cs.k}, 2);
  const Tensor b = testing::NormalTensor({cs.m}, 3);
  const Tensor ort = RunConv(cs, x, w, b, optimizer::OptLevel::kDisabled, std::nullopt, 1);
  // The same convolution through SgemmOrtBlocks with one block, then the bias.
  const int64_t out = cs.h * cs.w;
  std::vector<float> cols(static_cast<size_t>(k * out), 0.0f);
  for (int64_t c = 0; c < cs.c; ++c) {
    for (int64_t kh = 0; kh < 3; ++kh) {
      for (int64_t kw = 0; kw < 3; ++kw) {
        for (int64_t oh = 0; oh < cs.h; ++oh) {
          for (int64_t ow = 0; ow < cs.w; ++ow) {
            const int64_t ih = oh + kh - 1, iw = ow + kw - 1;
            if (ih < 0 || ih >= cs.h || iw < 0 || iw >= cs.w) continue;
            cols[static_cast<size_t>(((c * 3 + kh) * 3 + kw) * out + oh * cs.w + ow)] =
                x.data<float>()[(c * cs.h + ih) * cs.w + iw];
          }
        }
      }
    }
  }
  Tensor one_block = Tensor::Allocate(DataType::kFloat, {1, cs.m, cs.h, cs.w});
  float* y = one_block.data<float>();
  kernels::SgemmOrtBlocks(false, false, cs.m, out, k, 1.0f, w.data<float>(), k, cols.data(), out, 0.0f, y, out, k);
  for (int64_t m = 0; m < cs.m; ++m) {
    for (int64_t i = 0; i < out; ++i) y[m * out + i] = y[m * out + i] + b.data<float>()[m];
  }
  EXPECT_FALSE(SameBits(ort, one_block));
  // With MLAS's blocks of 128 it is the session's result exactly.
  kernels::SgemmOrtBlocks(false, false, cs.m, out, k, 1.0f, w.data<float>(), k, cols.data(), out, 0.0f, y, out, 128);
  for (int64_t m = 0; m < cs.m; ++m) {
    for (int64_t i = 0; i < out; ++i) y[m * out + i] = y[m * out + i] + b.data<float>()[m];
  }
  EXPECT_TRUE(SameBits(ort, one_block));
}

}  // namespace
}  // namespace onyx
