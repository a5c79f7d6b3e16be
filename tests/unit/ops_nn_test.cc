// Unit tests of the NeuralNet family (MatMul, Gemm, Conv, ConvTranspose, pooling, normalization, LRN and the
// quantized operators): the cases the ONNX backend suite leaves out (empty tensors, batch broadcasting, integer
// wraparound, groups and dilations worked by hand, padding semantics, NaN, old-version semantics, bad attributes).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"
#include "ops/nn/window.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

Tensor I8(std::vector<int8_t> values, Shape shape) { return T_<int8_t>(std::move(values), std::move(shape)); }

// ---- MatMul ----

TEST(NeuralNetMatMulTest, BatchDimsOnlyOnB) {
  auto t = Op("MatMul", 13);
  t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(F({1, 0, 0, 0, 0, 1}, {2, 3, 1}));
  ExpectFloats(RunOk(t), {2, 2, 1}, {1, 4, 3, 6});
}

TEST(NeuralNetMatMulTest, OneDimensionalOperands) {
  auto dot = Op("MatMul", 13);
  dot.Input(F({1, 2, 3}, {3})).Input(F({4, 5, 6}, {3}));
  ExpectFloats(RunOk(dot), {}, {32});
  auto vec_batch = Op("MatMul", 13);
  vec_batch.Input(F({1, 2, 1}, {3})).Input(F({1, 0, 0, 1, 1, 1, 2, 0, 0, 0, 0, 2}, {2, 3, 2}));
  ExpectFloats(RunOk(vec_batch), {2, 2}, {2, 3, 2, 2});
}

TEST(NeuralNetMatMulTest, EmptyInnerDimensionGivesZeros) {
  auto t = Op("MatMul", 13);
  t.Input(F({}, {2, 0})).Input(F({}, {0, 3}));
  ExpectFloats(RunOk(t), {2, 3}, {0, 0, 0, 0, 0, 0});
  auto rows = Op("MatMul", 13);
  rows.Input(F({}, {4, 0, 2})).Input(F({1, 2, 3, 4}, {2, 2}));
  EXPECT_EQ(RunOk(rows).shape(), (Shape{4, 0, 2}));
}

TEST(NeuralNetMatMulTest, Int32WrapsAround) {
  auto t = Op("MatMul", 13);
  t.Input(I32({std::numeric_limits<int32_t>::max(), 1}, {1, 2})).Input(I32({1, 1}, {2, 1}));
  EXPECT_EQ(Values<int32_t>(RunOk(t)), (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
}

TEST(NeuralNetMatMulTest, MismatchedInnerDimsIsAnError) {
  auto t = Op("MatMul", 13);
  t.Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(F({1, 2, 3, 4}, {2, 2}));
  ExpectError(t, "inner dimensions");
}

TEST(NeuralNetMatMulTest, Float16) {
  auto t = Op("MatMul", 13);
  t.Input(T_<Float16>({Float16(1.0f), Float16(2.0f)}, {1, 2}))
      .Input(T_<Float16>({Float16(3.0f), Float16(0.5f)}, {2, 1}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 4.0f);
}

// ---- Gemm ----

TEST(NeuralNetGemmTest, TransposesAlphaBetaAndRowBias) {
  auto t = Op("Gemm", 13);
  t.Input(F({1, 4, 2, 5, 3, 6}, {3, 2}))
      .Input(F({1, 0, 0, 0, 1, 0}, {2, 3}))
      .Input(F({10, 20}, {2}))
      .Attr("transA", int64_t{1})
      .Attr("transB", int64_t{1})
      .Attr("alpha", 2.0f)
      .Attr("beta", 0.5f);
  ExpectFloats(RunOk(t), {2, 2}, {7, 14, 13, 20});
}

TEST(NeuralNetGemmTest, Int64WithoutC) {
  auto t = Op("Gemm", 13);
  t.Input(I64({1, 2, 3, 4}, {2, 2})).Input(I64({5, 6, 7, 8}, {2, 2}));
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{19, 22, 43, 50}));
}

TEST(NeuralNetGemmTest, ColumnBiasAndBadShapes) {
  auto t = Op("Gemm", 11);
  t.Input(F({1, 2}, {2, 1})).Input(F({3, 4}, {1, 2})).Input(F({100, 200}, {2, 1}));
  ExpectFloats(RunOk(t), {2, 2}, {103, 104, 206, 208});
  auto bad_c = Op("Gemm", 11);
  bad_c.Input(F({1, 2}, {2, 1})).Input(F({3, 4}, {1, 2})).Input(F({1, 2, 3}, {3}));
  ExpectError(bad_c, "does not broadcast");
  auto bad_k = Op("Gemm", 11);
  bad_k.Input(F({1, 2}, {2, 1})).Input(F({3, 4}, {2, 1}));
  ExpectError(bad_k, "op(B)");
}

TEST(NeuralNetGemmTest, ConstantTransposedWeightsMatchFedWeights) {
  // A constant B with transB is transposed once at creation (the fast path); the same B fed as an input takes the
  // general path. Bias shapes [N], [1, N], [M, 1] and none; alpha/beta not 1; awkward sizes.
  const int64_t m = 5, k = 37, n = 19;
  std::vector<float> a(m * k), b(n * k), bias(n), col(m);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.11f * static_cast<float>(i));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) - 7.5f;
  for (size_t i = 0; i < col.size(); ++i) col[i] = 3.0f * static_cast<float>(i);
  const std::vector<std::pair<Tensor, bool>> biases = {
      {F(bias, {n}), true}, {F(bias, {1, n}), true}, {F(col, {m, 1}), true}, {Tensor(), false}};
  for (const auto& [c, with_c] : biases) {
    for (bool constant_b : {false, true}) {
      auto t = Op("Gemm", 13);
      t.Input(F(a, {m, k})).Input(F(b, {n, k}));
      if (with_c) t.Input(c);
      t.Attr("transB", int64_t{1}).Attr("alpha", 0.5f).Attr("beta", 2.0f);
      t.constant_inputs = constant_b ? std::vector<size_t>{1} : std::vector<size_t>{};
      const Tensor y = RunOk(t);
      std::vector<float> want(static_cast<size_t>(m * n));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(a[i * k + p]) * b[j * k + p];
          double cv = !with_c ? 0.0 : c.size() == n ? bias[static_cast<size_t>(j)] : col[static_cast<size_t>(i)];
          want[static_cast<size_t>(i * n + j)] = static_cast<float>(0.5 * acc + 2.0 * cv);
        }
      }
      ASSERT_EQ(y.shape(), (Shape{m, n}));
      for (int64_t i = 0; i < y.size(); ++i) {
        EXPECT_NEAR(y.data<float>()[i], want[static_cast<size_t>(i)], 1e-4)
            << "element " << i << ", constant B " << constant_b << ", C " << with_c;
      }
    }
  }
}

// ---- Conv ----

TEST(NeuralNetConvTest, DepthwiseGroupsWithPadsAndBias) {
  auto t = Op("Conv", 11);
  t.Input(F({1, 2, 3, 4, 5, 6}, {1, 2, 3}))
      .Input(F({1, 1, 1, -1}, {2, 1, 2}))
      .Input(F({10, 20}, {2}))
      .Attr("group", int64_t{2})
      .Attr("pads", std::vector<int64_t>{1, 1});
  ExpectFloats(RunOk(t), {1, 2, 4}, {11, 13, 15, 13, 16, 19, 19, 26});
}

TEST(NeuralNetConvTest, Dilations2D) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  auto t = Op("Conv", 11);
  t.Input(F(x, {1, 1, 4, 4})).Input(F({1, 1, 1, 1}, {1, 1, 2, 2})).Attr("dilations", std::vector<int64_t>{2, 2});
  ExpectFloats(RunOk(t), {1, 1, 2, 2}, {20, 24, 36, 40});
}

TEST(NeuralNetConvTest, SameUpperAndSameLowerPadDifferentEnds) {
  auto upper = Op("Conv", 11);
  upper.Input(F({1, 2, 3, 4}, {1, 1, 4})).Input(F({1, 10}, {1, 1, 2})).Attr("auto_pad", std::string("SAME_UPPER"));
  ExpectFloats(RunOk(upper), {1, 1, 4}, {21, 32, 43, 4});
  auto lower = Op("Conv", 11);
  lower.Input(F({1, 2, 3, 4}, {1, 1, 4})).Input(F({1, 10}, {1, 1, 2})).Attr("auto_pad", std::string("SAME_LOWER"));
  ExpectFloats(RunOk(lower), {1, 1, 4}, {10, 21, 32, 43});
}

TEST(NeuralNetConvTest, ThreeDimensionalAndFloat16) {
  auto t = Op("Conv", 11);
  t.Input(F({1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 2, 2, 2})).Input(F({1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 2, 2, 2}));
  ExpectFloats(RunOk(t), {1, 1, 1, 1, 1}, {36});
  std::vector<Float16> xh, wh;
  for (int i = 1; i <= 8; ++i) xh.push_back(Float16(static_cast<float>(i)));
  for (int i = 0; i < 8; ++i) wh.push_back(Float16(0.5f));
  auto h = Op("Conv", 22);
  h.Input(T_<Float16>(xh, {1, 1, 2, 2, 2})).Input(T_<Float16>(wh, {1, 1, 2, 2, 2}));
  Tensor y = RunOk(h);
  ASSERT_EQ(y.type(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), 18.0f);
}

TEST(NeuralNetConvTest, PointwiseKernelAndEmptyBatch) {
  auto t = Op("Conv", 11);
  t.Input(F({1, 2, 3, 4}, {1, 2, 2})).Input(F({1, 0, 0, 1, 1, 1}, {3, 2, 1}));
  ExpectFloats(RunOk(t), {1, 3, 2}, {1, 2, 3, 4, 4, 6});
  auto empty = Op("Conv", 11);
  empty.Input(F({}, {0, 1, 3})).Input(F({1, 1}, {1, 1, 2}));
  EXPECT_EQ(RunOk(empty).shape(), (Shape{0, 1, 2}));
}

TEST(NeuralNetConvTest, BadAttributesAndShapesAreErrors) {
  auto odd_pads = Op("Conv", 11);
  odd_pads.Input(F({1, 2, 3}, {1, 1, 3})).Input(F({1}, {1, 1, 1})).Attr("pads", std::vector<int64_t>{1, 1, 1});
  ExpectError(odd_pads, "pads");
  auto zero_stride = Op("Conv", 11);
  zero_stride.Input(F({1, 2, 3}, {1, 1, 3})).Input(F({1}, {1, 1, 1})).Attr("strides", std::vector<int64_t>{0});
  ExpectError(zero_stride, "strides");
  auto channels = Op("Conv", 11);
  channels.Input(F({1, 2, 3, 4}, {1, 2, 2})).Input(F({1, 1, 1}, {1, 3, 1}));
  ExpectError(channels, "C / group");
  auto too_big = Op("Conv", 11);
  too_big.Input(F({1, 2}, {1, 1, 2})).Input(F({1, 1, 1}, {1, 1, 3}));
  ExpectError(too_big, "exceeds the padded input");
}

// ---- ConvTranspose ----

TEST(NeuralNetConvTransposeTest, StridesOutputPaddingAndPads) {
  auto t = Op("ConvTranspose", 11);
  t.Input(F({1, 2, 3}, {1, 1, 3})).Input(F({1, 1}, {1, 1, 2})).Attr("strides", std::vector<int64_t>{2});
  ExpectFloats(RunOk(t), {1, 1, 6}, {1, 1, 2, 2, 3, 3});
  auto op = Op("ConvTranspose", 11);
  op.Input(F({1, 2, 3}, {1, 1, 3}))
      .Input(F({1, 1}, {1, 1, 2}))
      .Attr("strides", std::vector<int64_t>{2})
      .Attr("output_padding", std::vector<int64_t>{1});
  ExpectFloats(RunOk(op), {1, 1, 7}, {1, 1, 2, 2, 3, 3, 0});
  auto pads = Op("ConvTranspose", 11);
  pads.Input(F({1, 2, 3}, {1, 1, 3}))
      .Input(F({1, 1}, {1, 1, 2}))
      .Attr("strides", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{1, 1});
  ExpectFloats(RunOk(pads), {1, 1, 4}, {1, 2, 2, 3});
}

TEST(NeuralNetConvTransposeTest, GroupsAndChannelMismatch) {
  auto t = Op("ConvTranspose", 11);
  t.Input(F({1, 2, 3, 4}, {1, 2, 2})).Input(F({2, 3}, {2, 1, 1})).Input(F({0, 1}, {2})).Attr("group", int64_t{2});
  ExpectFloats(RunOk(t), {1, 2, 2}, {2, 4, 10, 13});
  auto bad = Op("ConvTranspose", 11);
  bad.Input(F({1, 2, 3, 4}, {1, 2, 2})).Input(F({2, 3, 4}, {3, 1, 1}));
  ExpectError(bad, "dim 0 must equal");
}

TEST(NeuralNetConvTransposeTest, DisjointTapsAgainstTheDefinition) {
  // Stride equal to the kernel (2x3, strides 2x3), no padding: every output position gets one tap (the fast
  // scatter); against the definition y[n][g*mg+m][i*kh+a][j*kw+b] = bias + sum_c x[n][g*cg+c][i][j] *
  // w[g*cg+c][m][a][b], with 2 images and 2 groups.
  const int64_t n = 2, group = 2, cg = 3, mg = 2, h = 3, w = 4, kh = 2, kw = 3;
  std::vector<float> x(static_cast<size_t>(n * group * cg * h * w)), wt(static_cast<size_t>(group * cg * mg * kh * kw)),
      b(static_cast<size_t>(group * mg));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = static_cast<float>((i * 5) % 9) * 0.25f - 1.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) + 0.5f;
  const int64_t oh = h * kh, ow = w * kw;
  std::vector<float> expected(static_cast<size_t>(n * group * mg * oh * ow));
  for (int64_t in = 0; in < n; ++in)
    for (int64_t g = 0; g < group; ++g)
      for (int64_t m = 0; m < mg; ++m)
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j)
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t bb = 0; bb < kw; ++bb) {
                float v = b[static_cast<size_t>(g * mg + m)];
                for (int64_t c = 0; c < cg; ++c) {
                  v += x[static_cast<size_t>(((in * group + g) * cg + c) * h * w + i * w + j)] *
                       wt[static_cast<size_t>((((g * cg + c) * mg + m) * kh + a) * kw + bb)];
                }
                expected[static_cast<size_t>(((in * group + g) * mg + m) * oh * ow + (i * kh + a) * ow + j * kw + bb)] =
                    v;
              }
  auto t = Op("ConvTranspose", 11);
  t.Input(F(x, {n, group * cg, h, w}))
      .Input(F(wt, {group * cg, mg, kh, kw}))
      .Input(F(b, {group * mg}))
      .Attr("group", group)
      .Attr("strides", std::vector<int64_t>{kh, kw});
  const Tensor y = RunOk(t);
  ASSERT_EQ(y.shape(), (Shape{n, group * mg, oh, ow}));
  for (int64_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(y.data<float>()[i], expected[static_cast<size_t>(i)], 1e-4f) << "at " << i;
  }
}

// The patch matrix of one channel by definition, tap by tap in row-major order (rows: kernel positions, columns:
// output positions): f(offset within the channel), or f(-1) where the tap falls in padding.
template <typename F>
void ForEachPatchTap(const std::vector<ops::nn::WindowAxis>& axes, F&& f) {
  const size_t nd = axes.size();
  std::vector<int64_t> kidx(nd, 0), oidx(nd, 0);
  for (int64_t kk = 0; kk < ops::nn::KernelSize(axes); ++kk) {
    std::fill(oidx.begin(), oidx.end(), 0);
    for (int64_t o = 0; o < ops::nn::OutputSize(axes); ++o) {
      int64_t off = 0;
      for (size_t d = 0; d < nd && off >= 0; ++d) {
        const int64_t pos = oidx[d] * axes[d].stride - axes[d].pad_begin + kidx[d] * axes[d].dilation;
        off = pos < 0 || pos >= axes[d].in ? -1 : off * axes[d].in + pos;
      }
      f(off);
      for (size_t d = nd; d-- > 0;) {
        if (++oidx[d] < axes[d].out) break;
        oidx[d] = 0;
      }
    }
    for (size_t d = nd; d-- > 0;) {
      if (++kidx[d] < axes[d].kernel) break;
      kidx[d] = 0;
    }
  }
}

// Col2ImAdd's row loop against the patch matrix tap by tap (one addition per tap, in the matrix's order): bit for
// bit, for 1-D, 2-D and 3-D geometries with overlapping and disjoint taps, strides above the kernel, pads on both
// sides, dilation.
TEST(NeuralNetConvTransposeTest, Col2ImRowsMatchThePatchWalk) {
  auto axis = [](int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end) {
    ops::nn::WindowAxis a;
    a.in = in, a.kernel = kernel, a.stride = stride, a.dilation = dilation, a.pad_begin = pad_begin;
    a.pad_end = pad_end;
    a.out = (in + pad_begin + pad_end - (dilation * (kernel - 1) + 1)) / stride + 1;
    return a;
  };
  const std::vector<std::vector<ops::nn::WindowAxis>> cases = {
      {axis(30, 4, 2, 1, 1, 1), axis(19, 4, 2, 1, 1, 1)},
      {axis(17, 3, 3, 1, 0, 2), axis(23, 5, 2, 1, 2, 0)},
      {axis(15, 3, 2, 2, 2, 1), axis(14, 3, 4, 2, 0, 3)},
      {axis(40, 8, 4, 1, 2, 2)},
      {axis(28, 2, 2, 1, 0, 0), axis(30, 2, 2, 1, 0, 0)},  // disjoint taps (a 2x2 stride-2 upsampling)
      {axis(5, 2, 2, 1, 0, 0), axis(9, 3, 2, 1, 1, 1), axis(11, 4, 3, 2, 1, 2)}};
  for (const auto& axes : cases) {
    const int64_t channels = 3, in_size = ops::nn::InputSize(axes);
    const int64_t cols_size = channels * ops::nn::KernelSize(axes) * ops::nn::OutputSize(axes);
    const std::vector<float> cols = UniformFloats(static_cast<size_t>(cols_size), 17, -1.0f, 1.0f);
    std::vector<float> got(static_cast<size_t>(channels * in_size), 0.25f), want = got;
    ops::nn::Col2ImAdd(axes, cols.data(), channels, got.data());
    const float* c = cols.data();
    for (int64_t ch = 0; ch < channels; ++ch) {
      float* xc = want.data() + ch * in_size;
      ForEachPatchTap(axes, [&](int64_t off) {
        if (off >= 0) xc[off] += *c;
        ++c;
      });
    }
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i])) << axes.size() << "-D at " << i;
    }
  }
}

// ---- Pooling ----

TEST(NeuralNetPoolTest, MaxPoolIndicesBothStorageOrders) {
  auto t = Op("MaxPool", 12);
  t.num_outputs = 2;
  t.Input(F({1, 2, 3, 4, 5, 9, -1, -2, -3, -4, -5, -9}, {1, 2, 2, 3})).Attr("kernel_shape", std::vector<int64_t>{2, 2});
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {1, 2, 1, 2}, {5, 9, -1, -2});
  EXPECT_EQ(Values<int64_t>((*r)[1].tensor()), (std::vector<int64_t>{4, 5, 6, 7}));
  t.Attr("storage_order", int64_t{1});
  r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<int64_t>((*r)[1].tensor()), (std::vector<int64_t>{3, 5, 6, 8}));
}

// The 2-D float MaxPool (separable: along W, then H) against the window-by-window definition, over strides,
// dilations, unequal pads and ceil mode, with a NaN that must reach every window holding it and windows wholly in
// the padding (the lowest float).
TEST(NeuralNetPoolTest, MaxPool2dMatchesItsDefinition) {
  struct Case {
    std::vector<int64_t> kernel, strides, dilations, pads;
    int64_t ceil;
  };
  const Case cases[] = {{{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 0},
                        {{3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 1},
                        {{2, 3}, {1, 2}, {2, 1}, {1, 0, 0, 3}, 0},
                        {{3, 2}, {3, 1}, {1, 3}, {2, 2, 2, 2}, 1},
                        {{1, 1}, {2, 3}, {1, 1}, {0, 0, 0, 0}, 0}};
  const int64_t n = 2, c = 3, h = 11, w = 9;
  std::vector<float> x(static_cast<size_t>(n * c * h * w));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  x[static_cast<size_t>(((1 * c + 2) * h + 5) * w + 4)] = std::numeric_limits<float>::quiet_NaN();
  for (const Case& cs : cases) {
    auto t = Op("MaxPool", 12);
    t.Input(F(x, {n, c, h, w}))
        .Attr("kernel_shape", cs.kernel)
        .Attr("strides", cs.strides)
        .Attr("dilations", cs.dilations)
        .Attr("pads", cs.pads)
        .Attr("ceil_mode", cs.ceil);
    const Tensor y = RunOk(t);
    ASSERT_EQ(y.rank(), 4);
    const int64_t oh_n = y.dim(2), ow_n = y.dim(3);
    for (int64_t p = 0; p < n * c; ++p) {
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          float want = std::numeric_limits<float>::lowest();
          bool nan = false;
          for (int64_t kh = 0; kh < cs.kernel[0]; ++kh) {
            for (int64_t kw = 0; kw < cs.kernel[1]; ++kw) {
              const int64_t ih = oh * cs.strides[0] - cs.pads[0] + kh * cs.dilations[0];
              const int64_t iw = ow * cs.strides[1] - cs.pads[1] + kw * cs.dilations[1];
              if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
              const float v = x[static_cast<size_t>((p * h + ih) * w + iw)];
              nan = nan || std::isnan(v);
              want = std::max(want, v);
            }
          }
          const float got = y.data<float>()[(p * oh_n + oh) * ow_n + ow];
          if (nan) {
            EXPECT_TRUE(std::isnan(got)) << "plane " << p << " (" << oh << ", " << ow << ")";
          } else {
            EXPECT_EQ(got, want) << "plane " << p << " (" << oh << ", " << ow << ")";
          }
        }
      }
    }
  }
}

// Float MaxPool of 1 and 3 spatial axes (pooled axis by axis) against the same pooling in double (the window-by-window
// loop): pads, strides, dilations, ceil_mode and a NaN.
TEST(NeuralNetPoolTest, MaxPool1dAnd3dMatchTheWindowLoop) {
  struct Case {
    Shape x;
    std::vector<int64_t> kernel, strides, dilations, pads;
    int64_t ceil;
  };
  const Case cases[] = {
      {{2, 3, 17}, {3}, {2}, {1}, {1, 1}, 0},
      {{1, 2, 13}, {4}, {1}, {2}, {0, 3}, 1},
      {{1, 3, 6, 8, 10}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, 0},
      {{2, 2, 5, 7, 9}, {3, 2, 3}, {1, 2, 2}, {1, 1, 2}, {1, 0, 1, 1, 1, 2}, 1},
      {{1, 1, 4, 5, 6}, {1, 3, 1}, {2, 1, 3}, {1, 1, 1}, {0, 1, 0, 0, 1, 0}, 0},
  };
  for (const Case& cs : cases) {
    const int64_t count = NumElements(cs.x);
    std::vector<float> x(static_cast<size_t>(count));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) - 50.0f;
    x[static_cast<size_t>(count / 3)] = std::numeric_limits<float>::quiet_NaN();
    auto pool = [&](Tensor input) {
      auto t = Op("MaxPool", 12);
      t.Input(std::move(input))
          .Attr("kernel_shape", cs.kernel)
          .Attr("strides", cs.strides)
          .Attr("dilations", cs.dilations)
          .Attr("pads", cs.pads)
          .Attr("ceil_mode", cs.ceil);
      return RunOk(t);
    };
    const Tensor y = pool(F(x, cs.x));
    const Tensor want = pool(T_<double>(std::vector<double>(x.begin(), x.end()), cs.x));
    ASSERT_EQ(y.shape(), want.shape());
    const std::vector<double> w = Values<double>(want);
    for (int64_t i = 0; i < y.size(); ++i) {
      const float got = y.data<float>()[i];
      if (std::isnan(w[static_cast<size_t>(i)])) {
        EXPECT_TRUE(std::isnan(got)) << ShapeToString(cs.x) << " output " << i;
      } else {
        EXPECT_EQ(got, static_cast<float>(w[static_cast<size_t>(i)])) << ShapeToString(cs.x) << " output " << i;
      }
    }
  }
}

TEST(NeuralNetPoolTest, MaxPoolInt8PaddingIsNotZero) {
  auto t = Op("MaxPool", 12);
  t.Input(I8({-5, -7, -6}, {1, 1, 3}))
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{1, 1});
  EXPECT_EQ(Values<int8_t>(RunOk(t)), (std::vector<int8_t>{-5, -5, -6, -6}));
}

TEST(NeuralNetPoolTest, CeilModeAddsPartialWindow) {
  auto floor_mode = Op("MaxPool", 12);
  floor_mode.Input(F({1, 2, 3, 4, 5}, {1, 1, 5}))
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2});
  ExpectFloats(RunOk(floor_mode), {1, 1, 2}, {2, 4});
  auto ceil_mode = floor_mode;
  ceil_mode.Attr("ceil_mode", int64_t{1});
  ExpectFloats(RunOk(ceil_mode), {1, 1, 3}, {2, 4, 5});
  auto avg = Op("AveragePool", 19);
  avg.Input(F({1, 2, 3, 4, 5}, {1, 1, 5}))
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2})
      .Attr("ceil_mode", int64_t{1});
  ExpectFloats(RunOk(avg), {1, 1, 3}, {1.5f, 3.5f, 5});
}

TEST(NeuralNetPoolTest, AveragePoolCountIncludePad) {
  auto t = Op("AveragePool", 19);
  t.Input(F({1, 2, 3}, {1, 1, 3}))
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{1, 1});
  ExpectFloats(RunOk(t), {1, 1, 4}, {1, 1.5f, 2.5f, 3});
  t.Attr("count_include_pad", int64_t{1});
  ExpectFloats(RunOk(t), {1, 1, 4}, {0.5f, 1.5f, 2.5f, 1.5f});
}

TEST(NeuralNetPoolTest, LpPoolAndGlobalPools) {
  auto p1 = Op("LpPool", 18);
  p1.Input(F({-1, 2, -3}, {1, 1, 3})).Attr("kernel_shape", std::vector<int64_t>{2}).Attr("p", int64_t{1});
  ExpectFloats(RunOk(p1), {1, 1, 2}, {3, 5});
  auto p2 = Op("LpPool", 18);
  p2.Input(F({-1, 2, -3}, {1, 1, 3})).Attr("kernel_shape", std::vector<int64_t>{2});
  ExpectFloats(RunOk(p2), {1, 1, 2}, {std::sqrt(5.0f), std::sqrt(13.0f)});
  auto gmax = Op("GlobalMaxPool", 22);
  gmax.Input(F({1, kNaN, 3, -2}, {1, 2, 2}));
  ExpectFloats(RunOk(gmax), {1, 2, 1}, {kNaN, 3});
  auto gavg = Op("GlobalAveragePool", 22);
  gavg.Input(F({1, 2, 3, 4}, {1, 1, 2, 2}));
  ExpectFloats(RunOk(gavg), {1, 1, 1, 1}, {2.5f});
  auto glp = Op("GlobalLpPool", 22);
  glp.Input(F({3, 4}, {1, 1, 2}));
  ExpectFloats(RunOk(glp), {1, 1, 1}, {5});
}

TEST(NeuralNetPoolTest, MissingKernelShapeIsAnError) {
  auto t = Op("MaxPool", 12);
  t.Input(F({1, 2, 3}, {1, 1, 3}));
  ExpectError(t, "kernel_shape");
  auto rank = Op("AveragePool", 19);
  rank.Input(F({1, 2, 3}, {3})).Attr("kernel_shape", std::vector<int64_t>{2});
  ExpectError(rank, "expected [N, C, D1, ...]");
}

// ---- Normalization ----

TEST(NeuralNetNormTest, BatchNormInferenceVersion9) {
  auto t = Op("BatchNormalization", 9);
  t.Input(F({1, 2}, {1, 2, 1}))
      .Input(F({2, 3}, {2}))
      .Input(F({1, 1}, {2}))
      .Input(F({0, 1}, {2}))
      .Input(F({1, 4}, {2}))
      .Attr("epsilon", 0.0f);
  ExpectFloats(RunOk(t), {1, 2, 1}, {3, 2.5f});
  auto bad = Op("BatchNormalization", 9);
  bad.Input(F({1, 2}, {1, 2, 1}))
      .Input(F({2, 3, 4}, {3}))
      .Input(F({1, 1}, {2}))
      .Input(F({0, 1}, {2}))
      .Input(F({1, 4}, {2}));
  ExpectError(bad, "scale");
}

TEST(NeuralNetNormTest, BatchNormTrainingModeUpdatesRunningStats) {
  auto t = Op("BatchNormalization", 15);
  t.num_outputs = 3;
  t.Input(F({1, 2, 3, 4}, {2, 1, 2}))
      .Input(F({1}, {1}))
      .Input(F({0}, {1}))
      .Input(F({0}, {1}))
      .Input(F({1}, {1}))
      .Attr("epsilon", 0.0f)
      .Attr("training_mode", int64_t{1});
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const float s = std::sqrt(1.25f);
  ExpectFloats((*r)[0].tensor(), {2, 1, 2}, {-1.5f / s, -0.5f / s, 0.5f / s, 1.5f / s});
  ExpectFloats((*r)[1].tensor(), {1}, {0.25f});
  ExpectFloats((*r)[2].tensor(), {1}, {1.025f});
}

TEST(NeuralNetNormTest, LayerNormOutputsMeanAndInvStdDev) {
  auto t = Op("LayerNormalization", 17);
  t.num_outputs = 3;
  t.Input(F({1, 3, -1, 1}, {2, 2})).Input(F({2, 3}, {2})).Input(F({1, 0}, {2})).Attr("epsilon", 0.0f);
  auto r = RunOp(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectFloats((*r)[0].tensor(), {2, 2}, {-1, 3, -1, 3});
  ExpectFloats((*r)[1].tensor(), {2, 1}, {2, 0});
  ExpectFloats((*r)[2].tensor(), {2, 1}, {1, 1});
  auto all = Op("LayerNormalization", 17);
  all.Input(F({1, 3, -1, 1}, {2, 2})).Input(F({1, 1, 1, 1}, {2, 2})).Attr("axis", int64_t{-2}).Attr("epsilon", 0.0f);
  const float r2 = std::sqrt(2.0f);
  ExpectFloats(RunOk(all), {2, 2}, {0, 2 / r2, -2 / r2, 0});
  auto bad_axis = Op("LayerNormalization", 17);
  bad_axis.Input(F({1, 2}, {2})).Input(F({1, 1}, {2})).Attr("axis", int64_t{3});
  ExpectError(bad_axis, "axis");
}

TEST(NeuralNetNormTest, GroupNormScalePerGroupThenPerChannel) {
  auto v18 = Op("GroupNormalization", 18);
  v18.Input(F({1, 3, 10, 20}, {1, 4, 1}))
      .Input(F({2, 3}, {2}))
      .Input(F({0, 1}, {2}))
      .Attr("num_groups", int64_t{2})
      .Attr("epsilon", 0.0f);
  ExpectFloats(RunOk(v18), {1, 4, 1}, {-2, 2, -2, 4});
  auto v21 = Op("GroupNormalization", 21);
  v21.Input(F({1, 3, 10, 20}, {1, 4, 1}))
      .Input(F({1, 2, 3, 4}, {4}))
      .Input(F({0, 0, 0, 1}, {4}))
      .Attr("num_groups", int64_t{2})
      .Attr("epsilon", 0.0f);
  ExpectFloats(RunOk(v21), {1, 4, 1}, {-1, 2, -3, 5});
  auto bad = Op("GroupNormalization", 21);
  bad.Input(F({1, 2, 3}, {1, 3, 1})).Input(F({1, 1, 1}, {3})).Input(F({0, 0, 0}, {3})).Attr("num_groups", int64_t{2});
  ExpectError(bad, "divisible");
}

TEST(NeuralNetNormTest, InstanceNormConstantChannel) {
  auto t = Op("InstanceNormalization", 22);
  t.Input(F({1, 3, 5, 5}, {1, 2, 2})).Input(F({1, 1}, {2})).Input(F({0, 7}, {2}));
  ExpectFloats(RunOk(t), {1, 2, 2}, {-1, 1, 7, 7}, 1e-4f);
}

TEST(NeuralNetNormTest, MeanVarianceNormalizationAxes) {
  auto t = Op("MeanVarianceNormalization", 13);
  t.Input(F({1, 3, 2, 2}, {2, 2})).Attr("axes", std::vector<int64_t>{1});
  ExpectFloats(RunOk(t), {2, 2}, {-1, 1, 0, 0});
}

// The float paths (statistics in double lanes, the normalization in float with the mean split in two floats)
// against the same inputs as double (the generic double path): a channel whose mean dwarfs its spread (1000 +- 1),
// planes of odd sizes (vector tails), InstanceNormalization 2-D and 3-D, GroupNormalization per group and per
// channel, MeanVarianceNormalization on trailing axes (by N = 1) and on others.
TEST(NeuralNetNormTest, FloatPathsMatchDoubleInputs) {
  auto check = [](OpTest f, const std::vector<Tensor>& inputs) {
    OpTest d = f;
    for (const Tensor& t : inputs) {
      f.Input(t);
      std::vector<double> v(t.data<float>(), t.data<float>() + t.size());
      d.Input(T_<double>(v, t.shape()));
    }
    const Tensor got = RunOk(f), want = RunOk(d);
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < got.size(); ++i) {
      const double w = want.data<double>()[i];
      ASSERT_NEAR(got.data<float>()[i], w, 1e-6 * (1 + std::fabs(w))) << f.op_type << " at " << i;
    }
  };
  auto data = [](Shape shape, uint64_t seed) {
    Tensor t = NormalTensor(shape, seed);
    for (int64_t i = 0; i < t.size() / shape[0] / shape[1]; ++i) t.data<float>()[i] += 1000.0f;  // channel 0
    return t;
  };
  check(Op("InstanceNormalization", 22), {data({2, 3, 7, 9}, 1), NormalTensor({3}, 2), NormalTensor({3}, 3)});
  check(Op("InstanceNormalization", 22), {data({1, 4, 3, 5, 7}, 4), NormalTensor({4}, 5), NormalTensor({4}, 6)});
  auto g18 = Op("GroupNormalization", 18);
  g18.Attr("num_groups", int64_t{2});
  check(g18, {data({2, 4, 5, 7}, 7), NormalTensor({2}, 8), NormalTensor({2}, 9)});
  auto g21 = Op("GroupNormalization", 21);
  g21.Attr("num_groups", int64_t{3});
  check(g21, {data({1, 6, 5, 3}, 10), NormalTensor({6}, 11), NormalTensor({6}, 12)});
  check(Op("MeanVarianceNormalization", 13), {data({1, 3, 11, 13}, 13)});
  auto trailing = Op("MeanVarianceNormalization", 13);
  trailing.Attr("axes", std::vector<int64_t>{2, 3});
  check(trailing, {data({2, 3, 11, 13}, 14)});
  check(Op("MeanVarianceNormalization", 13), {data({2, 3, 5, 5}, 15)});  // axes 0, 2, 3 with N = 2: not trailing
}

TEST(NeuralNetNormTest, LrnWindowIsAsymmetricForEvenSize) {
  auto odd = Op("LRN", 13);
  odd.Input(F({1, 2, 3}, {1, 3, 1})).Attr("size", int64_t{3}).Attr("alpha", 3.0f).Attr("beta", 1.0f);
  ExpectFloats(RunOk(odd), {1, 3, 1}, {1.0f / 6, 2.0f / 15, 3.0f / 14});
  auto even = Op("LRN", 13);
  even.Input(F({1, 2, 3}, {1, 3, 1})).Attr("size", int64_t{2}).Attr("alpha", 2.0f).Attr("beta", 1.0f);
  ExpectFloats(RunOk(even), {1, 3, 1}, {1.0f / 6, 2.0f / 14, 3.0f / 10});
  auto missing = Op("LRN", 13);
  missing.Input(F({1, 2, 3}, {1, 3, 1}));
  ExpectError(missing, "size");
}

// ---- Quantization ----

TEST(NeuralNetQuantizeTest, RoundsHalfToEvenAndSaturates) {
  auto t = Op("QuantizeLinear", 13);
  t.Input(F({0, 2.5f, 3.5f, -2.5f, -1000, 1000}, {6})).Input(F({1}, {})).Input(U8({128}, {}));
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{128, 130, 132, 126, 0, 255}));
}

TEST(NeuralNetQuantizeTest, PerAxisNegativeAxisAndInt8) {
  auto t = Op("QuantizeLinear", 13);
  t.Input(F({1, 2, 3, 4}, {2, 2})).Input(F({1, 2}, {2})).Input(I8({0, -1}, {2})).Attr("axis", int64_t{-2});
  EXPECT_EQ(Values<int8_t>(RunOk(t)), (std::vector<int8_t>{1, 2, 1, 1}));
  auto bad = Op("QuantizeLinear", 13);
  bad.Input(F({1, 2, 3, 4}, {2, 2})).Input(F({1, 2, 3}, {3})).Input(I8({0, 0, 0}, {3}));
  ExpectError(bad, "y_scale");
}

TEST(NeuralNetQuantizeTest, OutputDtypeAndBlocks) {
  auto t = Op("QuantizeLinear", 21);
  t.Input(F({40000, -3.5f}, {2})).Input(F({1}, {})).Attr("output_dtype", int64_t{5});  // int16
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt16);
  EXPECT_EQ(Values<int16_t>(y), (std::vector<int16_t>{32767, -4}));
  auto blocked = Op("QuantizeLinear", 21);
  blocked.Input(F({1, 2, 3, 4}, {1, 4})).Input(F({1, 2}, {1, 2})).Attr("block_size", int64_t{2});
  EXPECT_EQ(Values<uint8_t>(RunOk(blocked)), (std::vector<uint8_t>{1, 2, 2, 2}));
}

TEST(NeuralNetQuantizeTest, DequantizeInt32AndPerAxis) {
  auto t = Op("DequantizeLinear", 13);
  t.Input(I32({-2, 0, 1000000}, {3})).Input(F({0.5f}, {}));
  ExpectFloats(RunOk(t), {3}, {-1, 0, 500000});
  auto axis = Op("DequantizeLinear", 13);
  axis.Input(U8({10, 20, 30, 40}, {2, 2})).Input(F({1, 0.5f}, {2})).Input(U8({10, 20}, {2}));
  ExpectFloats(RunOk(axis), {2, 2}, {0, 0, 20, 10});
}

TEST(NeuralNetQuantizeTest, DynamicQuantizeLinear) {
  auto zeros = Op("DynamicQuantizeLinear", 11);
  zeros.num_outputs = 3;
  zeros.Input(F({0, 0}, {2}));
  auto r = RunOp(zeros);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<uint8_t>((*r)[0].tensor()), (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(Values<uint8_t>((*r)[2].tensor()), (std::vector<uint8_t>{0}));
  auto mixed = Op("DynamicQuantizeLinear", 11);
  mixed.num_outputs = 3;
  mixed.Input(F({-1, 3}, {2}));
  r = RunOp(mixed);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<uint8_t>((*r)[0].tensor()), (std::vector<uint8_t>{0, 255}));
  ExpectFloats((*r)[1].tensor(), {}, {4.0f / 255});
  EXPECT_EQ(Values<uint8_t>((*r)[2].tensor()), (std::vector<uint8_t>{64}));
}

TEST(NeuralNetQuantizeTest, MatMulIntegerPerRowAndPerColumnZeroPoints) {
  auto rows = Op("MatMulInteger", 10);
  rows.Input(U8({1, 2, 3, 4}, {2, 2})).Input(U8({5, 6, 7, 8}, {2, 2})).Input(U8({1, 3}, {2})).Input(U8({5}, {}));
  EXPECT_EQ(Values<int32_t>(RunOk(rows)), (std::vector<int32_t>{2, 3, 2, 3}));
  auto cols = Op("MatMulInteger", 10);
  cols.Input(U8({1, 2, 3, 4}, {2, 2})).Input(U8({5, 6, 7, 8}, {2, 2})).Input(U8({1, 3}, {2})).Input(U8({5, 6}, {2}));
  EXPECT_EQ(Values<int32_t>(RunOk(cols)), (std::vector<int32_t>{2, 2, 2, 2}));
}

TEST(NeuralNetQuantizeTest, ConvIntegerPerChannelWeightZeroPoint) {
  auto t = Op("ConvInteger", 10);
  t.Input(U8({1, 2, 3}, {1, 1, 3})).Input(U8({3, 5}, {2, 1, 1})).Input(U8({1}, {})).Input(U8({1, 5}, {2}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{0, 2, 4, 0, 0, 0}));
}

TEST(NeuralNetQuantizeTest, QLinearMatMulPerColumnScale) {
  auto t = Op("QLinearMatMul", 21);
  t.Input(U8({2, 4}, {1, 2}))
      .Input(F({0.5f}, {}))
      .Input(U8({0}, {}))
      .Input(U8({1, 2, 3, 4}, {2, 2}))
      .Input(F({1, 0.5f}, {2}))
      .Input(U8({0}, {}))
      .Input(F({1}, {}))
      .Input(U8({10}, {}));
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{17, 15}));
}

TEST(NeuralNetQuantizeTest, QLinearConvWithBias) {
  auto t = Op("QLinearConv", 10);
  t.Input(U8({10, 20}, {1, 1, 2}))
      .Input(F({0.1f}, {}))
      .Input(U8({0}, {}))
      .Input(U8({2}, {1, 1, 1}))
      .Input(F({0.5f}, {}))
      .Input(U8({0}, {}))
      .Input(F({0.2f}, {}))
      .Input(U8({5}, {}))
      .Input(I32({11}, {1}));
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{13, 18}));
}

}  // namespace
}  // namespace onyx
