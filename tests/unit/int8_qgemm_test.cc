// com.microsoft.QGemm (src/ops/quant/qgemm.cc) against its definition computed here: transposes, alpha, C broadcast
// in the int32 sum, per-column B parameters, float and 8-bit results, the packed (constant B) and unpacked paths,
// and bad parameters. (Bit-exactness against ONNX Runtime: ctest quant_bit_exact on tests/data/quant/qdq_s8_gemm.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/int8_gemm.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

struct Case {
  int64_t m = 3, k = 40, n = 6;
  bool trans_a = false, trans_b = true;
  float alpha = 1.0f;
  bool per_column = false;
  Shape bias_shape = {};  // empty: no C; else the broadcast shape given
  bool quantized_out = false;
  bool constant_b = true;
};

// The int32 sums by definition. Weights within [-64, 64], so that no pair of products can saturate where the CPU
// adds them in int16 pairs (kernels/int8_gemm.h): the definition holds on every CPU.
std::vector<int32_t> Sums(const Case& c, const std::vector<uint8_t>& a, uint8_t az, const std::vector<int8_t>& b,
                          const std::vector<int8_t>& bz, const std::vector<int32_t>& bias) {
  std::vector<int32_t> acc(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      int32_t s = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const int32_t x = a[static_cast<size_t>(c.trans_a ? p * c.m + i : i * c.k + p)] - az;
        const int32_t w = b[static_cast<size_t>(c.trans_b ? j * c.k + p : p * c.n + j)] -
                          bz[bz.size() == 1 ? 0 : static_cast<size_t>(j)];
        s += x * w;
      }
      if (!bias.empty()) {
        const int64_t rows = c.bias_shape.size() == 2 ? c.bias_shape[0] : 1;
        const int64_t cols = c.bias_shape.empty() ? 1 : c.bias_shape.back();
        s += bias[static_cast<size_t>((rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j))];
      }
      acc[static_cast<size_t>(i * c.n + j)] = s;
    }
  }
  return acc;
}

void Check(const Case& c) {
  std::vector<uint8_t> a(static_cast<size_t>(c.m * c.k));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  std::vector<int8_t> b(static_cast<size_t>(c.k * c.n));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>(static_cast<int>((i * 53 + 5) % 129) - 64);
  const uint8_t az = 121;
  const size_t scales = c.per_column ? static_cast<size_t>(c.n) : 1;
  std::vector<float> bs(scales);
  std::vector<int8_t> bz(scales, 0);
  for (size_t j = 0; j < scales; ++j) bs[j] = 0.001f * static_cast<float>(j + 1);
  if (!c.constant_b) {
    for (size_t j = 0; j < scales; ++j) bz[j] = static_cast<int8_t>(j % 3) - 1;  // nonzero zero points
  }
  std::vector<int32_t> bias;
  int64_t bias_count = 1;
  for (int64_t d : c.bias_shape) bias_count *= d;
  if (!c.bias_shape.empty() || bias_count > 1) {
    for (int64_t i = 0; i < bias_count; ++i) bias.push_back(static_cast<int32_t>(i * 97 % 1000) - 500);
  }
  const float as = 0.02f, ys = 0.3f;
  const uint8_t yz = 100;
  Shape bz_shape = c.per_column ? Shape{c.n} : Shape{};
  OpTest t = Op("QGemm", 1, "com.microsoft");
  t.Attr("transA", int64_t{c.trans_a}).Attr("transB", int64_t{c.trans_b}).Attr("alpha", c.alpha);
  t.Input(U8(a, c.trans_a ? Shape{c.k, c.m} : Shape{c.m, c.k}))
      .Input(F({as}, {}))
      .Input(U8({az}, {}))
      .Input(T_<int8_t>(b, c.trans_b ? Shape{c.n, c.k} : Shape{c.k, c.n}))
      .Input(F(bs, bz_shape))
      .Input(T_<int8_t>(bz, bz_shape))
      .Input(bias.empty() ? Value() : Value(I32(bias, c.bias_shape)));
  if (c.quantized_out) t.Input(F({ys}, {})).Input(U8({yz}, {}));
  if (c.constant_b) t.constant_inputs = {3, 5};
  const Tensor y = RunOk(t);
  ASSERT_EQ(y.shape(), (Shape{c.m, c.n}));
  const std::vector<int32_t> acc = Sums(c, a, az, b, bz, bias);
  for (int64_t i = 0; i < c.m * c.n; ++i) {
    const size_t j = static_cast<size_t>(c.per_column ? i % c.n : 0);
    float scale = c.alpha * as * bs[j];
    if (!c.quantized_out) {
      ASSERT_EQ(y.data<float>()[i], static_cast<float>(acc[static_cast<size_t>(i)]) * scale) << i;
      continue;
    }
    scale /= ys;
    const float v = std::nearbyint(static_cast<float>(acc[static_cast<size_t>(i)]) * scale) + yz;
    ASSERT_EQ(y.data<uint8_t>()[i], static_cast<uint8_t>(std::fmin(std::fmax(v, 0.0f), 255.0f))) << i;
  }
}

TEST(QGemm, FloatResultPackedWeights) { Check({}); }

TEST(QGemm, TransposesAlphaAndBiasBroadcasts) {
  Check({.trans_a = true, .trans_b = false, .alpha = 0.5f, .bias_shape = {6}});
  Check({.m = 4, .bias_shape = {4, 1}});
  Check({.m = 2, .n = 3, .bias_shape = {2, 3}});
  Check({.bias_shape = {1}});
}

TEST(QGemm, PerColumnAndQuantizedResult) {
  Check({.per_column = true, .quantized_out = true});
  Check({.m = 1, .k = 300, .n = 17, .per_column = true, .bias_shape = {17}, .quantized_out = true});
}

TEST(QGemm, UnpackedWeightsWithZeroPoints) {
  Check({.per_column = true, .constant_b = false});
  Check({.trans_b = false, .bias_shape = {6}, .quantized_out = true, .constant_b = false});
}

TEST(QGemm, BadParameters) {
  OpTest t = Op("QGemm", 1, "com.microsoft");
  t.Input(U8({1, 2, 3, 4}, {2, 2}))
      .Input(F({0.1f, 0.2f}, {2}))  // A's scale must be one value
      .Input(U8({0}, {}))
      .Input(T_<int8_t>({1, 2, 3, 4}, {2, 2}))
      .Input(F({0.1f}, {}))
      .Input(T_<int8_t>({0}, {}));
  ExpectError(t, "a_scale");
  OpTest u = Op("QGemm", 1, "com.microsoft");
  u.Input(U8({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input(F({0.1f}, {}))
      .Input(U8({0}, {}))
      .Input(T_<int8_t>({1, 2, 3, 4}, {2, 2}))  // K 3 against 2
      .Input(F({0.1f}, {}))
      .Input(T_<int8_t>({0}, {}));
  ExpectError(u, "do not multiply");
}

}  // namespace
}  // namespace onyx
