// Unit tests of quantize/weights.h: symmetric int8 weights per tensor and per channel (scales, rounding half to
// even, all-zero channels, reduce_range), blockwise int4/int8 (scale shape, nibble packing), int32 biases,
// activation parameters from ranges, and the error statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/low_precision.h"
#include "quantize/weights.h"

namespace onyx::quantize {
namespace {

Tensor Floats(std::vector<float> v, Shape shape) { return Tensor::FromVector<float>(v, std::move(shape)); }

std::vector<int> Int8s(const Tensor& t) {
  std::vector<int> out;
  for (int8_t v : t.values<int8_t>()) out.push_back(v);
  return out;
}

TEST(QuantizeWeights, PerTensorSymmetricScaleAndRounding) {
  // max |w| = 127 -> scale 1; 2.5 and -2.5 round half to even, 3.5 up.
  auto qt = QuantizeSymmetric(Floats({127, 2.5f, 3.5f, -2.5f, -127, 0}, {2, 3}), -1, false);
  ASSERT_TRUE(qt.ok()) << qt.status().message();
  EXPECT_EQ(qt->q.type(), DataType::kInt8);
  EXPECT_EQ(qt->scale.rank(), 0);
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[0], 1.0f);
  EXPECT_EQ(qt->zero_point.type(), DataType::kInt8);
  EXPECT_EQ(qt->zero_point.data<int8_t>()[0], 0);
  EXPECT_EQ(Int8s(qt->q), (std::vector<int>{127, 2, 4, -2, -127, 0}));
  EXPECT_EQ(qt->axis, -1);
}

TEST(QuantizeWeights, PerChannelScalesAlongAxis0AndZeroChannel) {
  // Conv-like [2, 3]: channel 0 max 2.54 -> 0.02, channel 1 all zeros -> scale 1 (not 0).
  auto qt = QuantizeSymmetric(Floats({2.54f, -1.27f, 0.02f, 0, 0, 0}, {2, 3}), 0, false);
  ASSERT_TRUE(qt.ok());
  ASSERT_EQ(qt->scale.shape(), (Shape{2}));
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[0], 0.02f);
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[1], 1.0f);
  EXPECT_EQ(qt->zero_point.shape(), (Shape{2}));
  EXPECT_EQ(Int8s(qt->q), (std::vector<int>{127, -64, 1, 0, 0, 0}));  // -1.27/0.02 = -63.5 -> -64 (even)
}

TEST(QuantizeWeights, PerChannelAlongAxis1ForMatMulColumns) {
  // MatMul [K=2, N=2]: column 0 max 1.27, column 1 max 12.7.
  auto qt = QuantizeSymmetric(Floats({1.27f, 12.7f, -0.635f, 6.35f}, {2, 2}), 1, false);
  ASSERT_TRUE(qt.ok());
  EXPECT_NEAR(qt->scale.data<float>()[0], 0.01f, 1e-7);
  EXPECT_NEAR(qt->scale.data<float>()[1], 0.1f, 1e-6);
  EXPECT_EQ(Int8s(qt->q), (std::vector<int>{127, 127, -64, 64}));
}

TEST(QuantizeWeights, ReduceRangeUses7Bits) {
  auto qt = QuantizeSymmetric(Floats({6.4f, -6.4f, 3.2f}, {3}), -1, true);
  ASSERT_TRUE(qt.ok());
  EXPECT_NEAR(qt->scale.data<float>()[0], 0.1f, 1e-7);
  EXPECT_EQ(Int8s(qt->q), (std::vector<int>{64, -64, 32}));
}

TEST(QuantizeWeights, ErrorOfRandomWeightsWithinHalfAScale) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 0.05f);
  std::vector<float> w(64 * 27);
  for (float& v : w) v = dist(rng);
  auto qt = QuantizeSymmetric(Floats(w, {64, 3, 3, 3}), 0, false);
  ASSERT_TRUE(qt.ok());
  float max_scale = 0;
  for (float s : qt->scale.values<float>()) max_scale = std::max(max_scale, s);
  EXPECT_GT(qt->error.cosine, 0.9999);
  EXPECT_LE(qt->error.max_abs_error, max_scale / 2 * 1.0001);
  EXPECT_GT(qt->error.max_abs_error, 0);
}

TEST(QuantizeWeights, RejectsNonFloat) {
  EXPECT_FALSE(QuantizeSymmetric(Tensor::FromVector<int64_t>({1, 2}, {2}), -1, false).ok());
  EXPECT_FALSE(QuantizeSymmetric(Floats({1, 2}, {2}), 1, false).ok());  // axis out of range
}

TEST(QuantizeWeights, BlockwiseInt4ScalesAndPacking) {
  // [K=5, N=2], blocks of 2 along K -> scales [3, 2]; column 0 block 0 max 7 -> scale 1.
  std::vector<float> w = {7, 0.875f, -3,  -0.4375f,  // block 0: column 1 max 0.875 -> scale 0.125
                          1, 0.07f,  -14, 0,         // block 1: column 0 max 14 -> scale 2
                          4, 0.0f};                  // block 2 (a single row)
  auto qt = QuantizeBlockwise(Floats(w, {5, 2}), 2, 4);
  ASSERT_TRUE(qt.ok()) << qt.status().message();
  EXPECT_EQ(qt->q.type(), DataType::kInt4);
  EXPECT_EQ(qt->q.shape(), (Shape{5, 2}));
  EXPECT_EQ(qt->q.nbytes(), 5u);
  ASSERT_EQ(qt->scale.shape(), (Shape{3, 2}));
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[1], 0.125f);
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[2], 2.0f);
  EXPECT_FLOAT_EQ(qt->scale.data<float>()[5], 1.0f);  // all-zero block
  EXPECT_FALSE(qt->zero_point.defined());
  EXPECT_EQ(qt->block_size, 2);
  EXPECT_EQ(qt->axis, 0);
  // -0.4375 / 0.125 = -3.5 -> -4 and 1 / 2 = 0.5 -> 0 (half to even).
  const std::vector<int> want = {7, 7, -3, -4, 0, 7, -7, 0, 7, 0};
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(GetInt4(qt->q.raw(), i), want[static_cast<size_t>(i)]) << "element " << i;
  // Packing as ONNX packs int4: element 2i in the low nibble, 2i+1 in the high nibble of byte i.
  const uint8_t* bytes = static_cast<const uint8_t*>(qt->q.raw());
  EXPECT_EQ(bytes[0], 0x77);
  EXPECT_EQ(bytes[1], static_cast<uint8_t>((-3 & 0xf) | ((-4 & 0xf) << 4)));
  auto back = Dequantize(*qt);
  ASSERT_TRUE(back.ok());
  EXPECT_FLOAT_EQ(back->data<float>()[6], -14.0f);
  EXPECT_FLOAT_EQ(back->data<float>()[3], -0.5f);
}

TEST(QuantizeWeights, BlockwiseInt8AndBadArguments) {
  auto qt = QuantizeBlockwise(Floats({127, -1, 0.5f, 2}, {4, 1}), 4, 8);
  ASSERT_TRUE(qt.ok());
  EXPECT_EQ(qt->q.type(), DataType::kInt8);
  EXPECT_EQ(qt->scale.shape(), (Shape{1, 1}));
  EXPECT_EQ(Int8s(qt->q), (std::vector<int>{127, -1, 0, 2}));
  EXPECT_FALSE(QuantizeBlockwise(Floats({1, 2, 3}, {3}), 32, 4).ok());  // not 2-D
  EXPECT_FALSE(QuantizeBlockwise(Floats({1, 2}, {2, 1}), 32, 3).ok());  // bits
}

TEST(QuantizeWeights, BiasToInt32WithInputTimesWeightScales) {
  auto qt = QuantizeBias(Floats({1.0f, -0.5f, 0.25f}, {3}), std::vector<float>{0.01f, 0.001f, 0.5f});
  ASSERT_TRUE(qt.ok());
  EXPECT_EQ(qt->q.type(), DataType::kInt32);
  EXPECT_EQ(qt->q.data<int32_t>()[0], 100);
  EXPECT_EQ(qt->q.data<int32_t>()[1], -500);
  EXPECT_EQ(qt->q.data<int32_t>()[2], 0);  // 0.5 -> 0 (half to even)
  EXPECT_EQ(qt->axis, 0);
  EXPECT_FALSE(QuantizeBias(Floats({1, 2}, {2}), std::vector<float>{1, 2, 3}).ok());
}

TEST(QuantizeWeights, ActivationParams) {
  auto [s, zp] = ActivationParams(0.0f, 2.55f, DataType::kUint8);
  EXPECT_NEAR(s, 0.01f, 1e-7);
  EXPECT_EQ(zp, 0);
  std::tie(s, zp) = ActivationParams(-1.0f, 1.0f, DataType::kUint8);
  EXPECT_NEAR(s, 2.0f / 255, 1e-7);
  // 1 / float(2 / 255) is 127.49999 in float32 (as in ONNX Runtime's numpy arithmetic): zero point 127.
  EXPECT_EQ(zp, 127);
  std::tie(s, zp) = ActivationParams(-1.0f, 1.0f, DataType::kInt8);
  EXPECT_EQ(zp, -1);
  std::tie(s, zp) = ActivationParams(1.0f, 2.0f, DataType::kUint8);  // widened to contain 0
  EXPECT_NEAR(s, 2.0f / 255, 1e-7);
  EXPECT_EQ(zp, 0);
  std::tie(s, zp) = ActivationParams(-3.0f, -1.0f, DataType::kInt8);
  EXPECT_EQ(zp, 127);
  std::tie(s, zp) = ActivationParams(0.0f, 0.0f, DataType::kUint8);
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(zp, 0);
  // The zero point makes 0 exact, and the ends of the range stay within half a step.
  std::tie(s, zp) = ActivationParams(-0.7f, 3.1f, DataType::kUint8);
  EXPECT_EQ(FakeQuantize(0.0f, s, zp, 0, 255), 0.0f);
  EXPECT_NEAR(FakeQuantize(3.1f, s, zp, 0, 255), 3.1f, s / 2 + 1e-6);
  EXPECT_NEAR(FakeQuantize(-0.7f, s, zp, 0, 255), -0.7f, s / 2 + 1e-6);
  EXPECT_NEAR(FakeQuantize(100.0f, s, zp, 0, 255), (255 - zp) * s, 1e-5);  // saturates
}

TEST(QuantizeWeights, ErrorStats) {
  ErrorStats e = CompareValues(std::vector<float>{1, 2, 3}, std::vector<float>{1, 2, 3});
  EXPECT_NEAR(e.cosine, 1.0, 1e-12);
  EXPECT_EQ(e.max_abs_error, 0);
  e = CompareValues(std::vector<float>{1, 0}, std::vector<float>{0, 1});
  EXPECT_NEAR(e.cosine, 0.0, 1e-12);
  EXPECT_EQ(e.max_abs_error, 1);
  ErrorAccumulator acc;
  acc.Add(std::vector<float>{1, 0}, std::vector<float>{1, 0});
  acc.Add(std::vector<float>{0, 1}, std::vector<float>{0, -1});
  EXPECT_NEAR(acc.Get().cosine, 0.0, 1e-12);
  EXPECT_EQ(acc.Get().max_abs_error, 2);
}

}  // namespace
}  // namespace onyx::quantize
