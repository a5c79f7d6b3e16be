// Unit tests of QuantizeLinear / DequantizeLinear on the low-precision types (float8, float4e2m1, int4/uint4,
// int2/uint2, float8e8m0 scales): rounding ties, saturation on and off, clamping of the packed integers, packing
// of odd element counts, per-axis and blocked parameters, and the version gates, which the backend suite leaves out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/float16.h"
#include "core/low_precision.h"
#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers

// A packed 4-bit or 2-bit integer tensor (int4, uint4, int2, uint2) from its values.
Tensor Packed(DataType type, const std::vector<int64_t>& values, Shape shape) {
  Tensor t = Tensor::Allocate(type, std::move(shape), /*zero=*/true);
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t idx = static_cast<int64_t>(i);
    switch (type) {
      case DataType::kInt4: SetInt4(t.raw(), idx, values[i]); break;
      case DataType::kUint4: SetUint4(t.raw(), idx, values[i]); break;
      case DataType::kInt2: SetInt2(t.raw(), idx, values[i]); break;
      case DataType::kUint2: SetUint2(t.raw(), idx, values[i]); break;
      default: ADD_FAILURE() << "not a packed integer type";
    }
  }
  return t;
}

// A byte-per-element tensor (float8) from its bit patterns.
Tensor Bytes(DataType type, const std::vector<uint8_t>& bits, Shape shape) {
  Tensor t = Tensor::Allocate(type, std::move(shape));
  for (size_t i = 0; i < bits.size(); ++i) t.data<uint8_t>()[i] = bits[i];
  return t;
}

// A float4e2m1 tensor from its 4-bit codes.
Tensor Float4(const std::vector<uint8_t>& codes, Shape shape) {
  Tensor t = Tensor::Allocate(DataType::kFloat4E2M1, std::move(shape), /*zero=*/true);
  for (size_t i = 0; i < codes.size(); ++i) SetPackedNibble(t.raw(), static_cast<int64_t>(i), codes[i]);
  return t;
}

std::vector<int64_t> PackedValues(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.size(); ++i) {
    switch (t.type()) {
      case DataType::kInt4: out.push_back(GetInt4(t.raw(), i)); break;
      case DataType::kUint4: out.push_back(GetUint4(t.raw(), i)); break;
      case DataType::kInt2: out.push_back(GetInt2(t.raw(), i)); break;
      case DataType::kUint2: out.push_back(GetUint2(t.raw(), i)); break;
      case DataType::kFloat4E2M1: out.push_back(GetPackedNibble(t.raw(), i)); break;
      default: out.push_back(t.data<uint8_t>()[i]);
    }
  }
  return out;
}

using testing::ExpectFloats;

// Dequantized values are exact: each element must equal the expected one (a NaN any NaN); the shape is not checked.
void ExpectFloats(const Tensor& t, const std::vector<float>& expected) {
  ExpectFloats(t, t.shape(), expected, /*tol=*/0.0f);
}

// ---- QuantizeLinear ----

TEST(QuantizeLowPrecisionTest, Float8E4M3FNTiesSaturationAndNaN) {
  // 1.0625 lies half-way between 1 (0x38) and 1.125 (0x39): even 0x38; 1.1875 between 0x39 and 0x3A: even 0x3A.
  const std::vector<float> x = {0, 1, 1.0625f, 1.1875f, 448, 500, -1000, kInf, kNaN};
  auto sat = Op("QuantizeLinear", 19);
  sat.Input(F(x, {9})).Input(F({1}, {})).Input(Bytes(DataType::kFloat8E4M3FN, {0}, {}));
  Tensor y = RunOk(sat);
  ASSERT_EQ(y.type(), DataType::kFloat8E4M3FN);
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{0x00, 0x38, 0x38, 0x3A, 0x7E, 0x7E, 0xFE, 0x7E, 0x7F}));

  auto nosat = Op("QuantizeLinear", 19);
  nosat.Input(F(x, {9})).Input(F({1}, {})).Input(Bytes(DataType::kFloat8E4M3FN, {0}, {})).Attr("saturate",
                                                                                                 int64_t{0});
  // Out of range: NaN (e4m3fn has no infinity).
  EXPECT_EQ(PackedValues(RunOk(nosat)),
            (std::vector<int64_t>{0x00, 0x38, 0x38, 0x3A, 0x7E, 0x7F, 0xFF, 0x7F, 0x7F}));
}

TEST(QuantizeLowPrecisionTest, Float8E5M2SaturateAndScale) {
  // x / 2: 1 -> 0.5 (0x38), 1e6 -> past the largest 57344 (0x7B), -inf.
  auto sat = Op("QuantizeLinear", 21);
  sat.Input(F({1, 1e6f, -kInf}, {3})).Input(F({2}, {})).Attr("output_dtype", int64_t{19});
  Tensor y = RunOk(sat);
  ASSERT_EQ(y.type(), DataType::kFloat8E5M2);
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{0x38, 0x7B, 0xFB}));
  auto nosat = Op("QuantizeLinear", 21);
  nosat.Input(F({1, 1e6f, -kInf}, {3})).Input(F({2}, {})).Attr("output_dtype", int64_t{19});
  nosat.Attr("saturate", int64_t{0});
  EXPECT_EQ(PackedValues(RunOk(nosat)), (std::vector<int64_t>{0x38, 0x7C, 0xFC}));  // +inf, -inf
}

TEST(QuantizeLowPrecisionTest, Int4PerAxisClampsAndRoundsHalfToEven) {
  auto t = Op("QuantizeLinear", 21);
  t.Input(F({-20, 2.5f, 3.5f, 15, -0.5f, 7.4f}, {2, 3}))
      .Input(F({1, 1}, {2}))
      .Input(Packed(DataType::kInt4, {0, 1}, {2}))
      .Attr("axis", int64_t{0});
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt4);
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{-8, 2, 4, 7, 1, 7}));
}

TEST(QuantizeLowPrecisionTest, Uint4OddCountPacksLowNibbleFirst) {
  auto t = Op("QuantizeLinear", 21);
  t.Input(F({1, 2, 3, 100, -3}, {5})).Input(F({1}, {})).Input(Packed(DataType::kUint4, {0}, {}));
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kUint4);
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{1, 2, 3, 15, 0}));
  ASSERT_EQ(y.nbytes(), 3u);
  const uint8_t* b = static_cast<const uint8_t*>(y.raw());
  EXPECT_EQ(b[0], 0x21);
  EXPECT_EQ(b[1], 0xF3);
  EXPECT_EQ(b[2], 0x00);  // the unused high nibble of the last byte is zero
}

TEST(QuantizeLowPrecisionTest, Int2AndUint2BlockedWithZeroPoints) {
  // Blocks of 2 along axis 1: scales 1 and 0.5, zero points (int2) 0 and -1.
  auto t = Op("QuantizeLinear", 25);
  t.Input(F({-5, 0.6f, 0.2f, 1}, {1, 4}))
      .Input(F({1, 0.5f}, {1, 2}))
      .Input(Packed(DataType::kInt2, {0, -1}, {1, 2}))
      .Attr("block_size", int64_t{2});
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kInt2);
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{-2, 1, -1, 1}));  // 0.2/0.5 = 0.4 -> 0 - 1; 1/0.5 - 1 = 1

  auto u = Op("QuantizeLinear", 25);
  u.Input(F({-1, 0.5f, 1.5f, 2.5f, 9}, {5})).Input(F({1}, {})).Attr("output_dtype", int64_t{25});
  Tensor yu = RunOk(u);
  ASSERT_EQ(yu.type(), DataType::kUint2);
  EXPECT_EQ(PackedValues(yu), (std::vector<int64_t>{0, 0, 2, 2, 3}));
}

TEST(QuantizeLowPrecisionTest, Float4E2M1TiesAndSaturation) {
  // Codes: 0 0, 1 0.5, 2 1, 3 1.5, 4 2, 5 3, 6 4, 7 6; bit 3 is the sign.
  // 0.25 ties to 0; 0.75 ties to 1 (even code 2); 5 ties to 4 (code 6); 100 saturates to 6; -3 is 0xD.
  auto t = Op("QuantizeLinear", 23);
  t.Input(F({0.25f, 0.75f, 5, 100, -3}, {5})).Input(F({1}, {})).Attr("output_dtype", int64_t{23});
  Tensor y = RunOk(t);
  ASSERT_EQ(y.type(), DataType::kFloat4E2M1);
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{0x0, 0x2, 0x6, 0x7, 0xD}));
}

TEST(QuantizeLowPrecisionTest, EmptyInputGivesEmptyPackedOutput) {
  auto t = Op("QuantizeLinear", 21);
  t.Input(F({}, {0, 3})).Input(F({1}, {})).Input(Packed(DataType::kInt4, {0}, {}));
  Tensor y = RunOk(t);
  EXPECT_EQ(y.type(), DataType::kInt4);
  EXPECT_EQ(y.shape(), (Shape{0, 3}));
  EXPECT_EQ(y.size(), 0);
}

TEST(QuantizeLowPrecisionTest, PrecisionAttributeRoundsTheQuotient) {
  // 2049 / 1 in float16 precision rounds to 2048 (float16 has 11 significant bits); in float it stays 2049.
  auto f16 = Op("QuantizeLinear", 23);
  f16.Input(F({2049}, {1})).Input(F({1}, {})).Attr("output_dtype", int64_t{5}).Attr("precision", int64_t{10});
  EXPECT_EQ(RunOk(f16).data<int16_t>()[0], 2048);
  auto f32 = Op("QuantizeLinear", 23);
  f32.Input(F({2049}, {1})).Input(F({1}, {})).Attr("output_dtype", int64_t{5});
  EXPECT_EQ(RunOk(f32).data<int16_t>()[0], 2049);
  auto bad = Op("QuantizeLinear", 23);
  bad.Input(F({1}, {1})).Input(F({1}, {})).Attr("precision", int64_t{6});
  ExpectError(bad, "precision");
}

TEST(QuantizeLowPrecisionTest, VersionGatesAndBadTypes) {
  auto int4_at_19 = Op("QuantizeLinear", 19);
  int4_at_19.Input(F({1}, {1})).Input(F({1}, {})).Input(Packed(DataType::kInt4, {0}, {}));
  ExpectError(int4_at_19, "version 21");
  auto int2_at_23 = Op("QuantizeLinear", 23);
  int2_at_23.Input(F({1}, {1})).Input(F({1}, {})).Input(Packed(DataType::kInt2, {0}, {}));
  ExpectError(int2_at_23, "version 25");
  auto e8m0_out = Op("QuantizeLinear", 25);
  e8m0_out.Input(F({1}, {1})).Input(F({1}, {})).Attr("output_dtype", int64_t{24});
  ExpectError(e8m0_out, "output_dtype");
  auto mismatch = Op("QuantizeLinear", 21);
  mismatch.Input(F({1}, {1})).Input(F({1}, {})).Input(Packed(DataType::kInt4, {0}, {}));
  mismatch.Attr("output_dtype", int64_t{21});
  ExpectError(mismatch, "output_dtype");
}

// ---- DequantizeLinear ----

TEST(DequantizeLowPrecisionTest, Int4PerAxisAndUint4Blocked) {
  auto t = Op("DequantizeLinear", 21);
  t.Input(Packed(DataType::kInt4, {-8, 7, 3, -1}, {2, 2}))
      .Input(F({1, 0.5f}, {2}))
      .Input(Packed(DataType::kInt4, {1, -2}, {2}))
      .Attr("axis", int64_t{-1});
  ExpectFloats(RunOk(t), {-9, 4.5f, 2, 0.5f});

  auto blocked = Op("DequantizeLinear", 21);
  blocked.Input(Packed(DataType::kUint4, {15, 0, 8}, {3}))
      .Input(F({2, 0.25f}, {2}))
      .Input(Packed(DataType::kUint4, {8, 0}, {2}))
      .Attr("axis", int64_t{0})
      .Attr("block_size", int64_t{2});
  ExpectFloats(RunOk(blocked), {14, -16, 2});  // the last block holds one element
}

TEST(DequantizeLowPrecisionTest, Int2AndUint2) {
  auto t = Op("DequantizeLinear", 25);
  t.Input(Packed(DataType::kInt2, {-2, -1, 0, 1, 1}, {5})).Input(F({3}, {}));
  ExpectFloats(RunOk(t), {-6, -3, 0, 3, 3});
  auto u = Op("DequantizeLinear", 25);
  u.Input(Packed(DataType::kUint2, {0, 1, 2, 3}, {4})).Input(F({0.5f}, {})).Input(Packed(DataType::kUint2, {1}, {}));
  ExpectFloats(RunOk(u), {-0.5f, 0, 0.5f, 1});
}

TEST(DequantizeLowPrecisionTest, Float8SpecialValuesAndFloat16Output) {
  // e4m3fn: 0x38 = 1, 0xFE = -448, 0x7F = NaN, 0x01 = 2^-9 (smallest subnormal).
  auto t = Op("DequantizeLinear", 19);
  t.Input(Bytes(DataType::kFloat8E4M3FN, {0x38, 0xFE, 0x7F, 0x01}, {4})).Input(F({2}, {}));
  ExpectFloats(RunOk(t), {2, -896, kNaN, std::ldexp(1.0f, -8)});
  // e5m2 0x7C = inf, 0x3C = 1; a float16 scale gives a float16 output.
  auto h = Op("DequantizeLinear", 19);
  h.Input(Bytes(DataType::kFloat8E5M2, {0x7C, 0x3C}, {2}))
      .Input(Tensor::FromVector<Float16>({Float16(0.5f)}, {}));
  Tensor y = RunOk(h);
  ASSERT_EQ(y.type(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[0]), kInf);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[1]), 0.5f);
}

TEST(DequantizeLowPrecisionTest, Float4E2M1) {
  auto t = Op("DequantizeLinear", 23);
  t.Input(Float4({0x1, 0x7, 0xD, 0x8, 0x4}, {5})).Input(F({2}, {}));
  ExpectFloats(RunOk(t), {1, 12, -6, -0.0f, 4});
}

TEST(DequantizeLowPrecisionTest, Float8E8M0ScaleNeedsOutputDtype) {
  // e8m0 bits 127 = 1, 130 = 8, 125 = 0.25.
  auto t = Op("DequantizeLinear", 24);
  t.Input(Packed(DataType::kInt4, {3, -2, 5}, {3}))
      .Input(Bytes(DataType::kFloat8E8M0, {127, 130, 125}, {3}))
      .Attr("axis", int64_t{0})
      .Attr("output_dtype", int64_t{1});
  ExpectFloats(RunOk(t), {3, -16, 1.25f});
  auto missing = Op("DequantizeLinear", 24);
  missing.Input(Packed(DataType::kInt4, {3}, {1})).Input(Bytes(DataType::kFloat8E8M0, {127}, {}));
  ExpectError(missing, "output_dtype");
  auto old = Op("DequantizeLinear", 23);
  old.Input(Packed(DataType::kInt4, {3}, {1}))
      .Input(Bytes(DataType::kFloat8E8M0, {127}, {}))
      .Attr("output_dtype", int64_t{1});
  ExpectError(old, "version 24");
}

TEST(DequantizeLowPrecisionTest, ZeroPointTypeAndShapeErrors) {
  auto type = Op("DequantizeLinear", 21);
  type.Input(Packed(DataType::kInt4, {1, 2}, {2})).Input(F({1}, {})).Input(Packed(DataType::kUint4, {0}, {}));
  ExpectError(type, "x_zero_point");
  auto shape = Op("DequantizeLinear", 21);
  shape.Input(Packed(DataType::kInt4, {1, 2, 3, 4}, {2, 2}))
      .Input(F({1, 2, 3}, {3}))
      .Input(Packed(DataType::kInt4, {0, 0, 0}, {3}));
  ExpectError(shape, "x_scale");
  auto old = Op("DequantizeLinear", 13);
  old.Input(Bytes(DataType::kFloat8E4M3FN, {0x38}, {1})).Input(F({1}, {}));
  ExpectError(old, "version 19");
}

TEST(QuantizeLowPrecisionTest, Int4RoundTrip) {
  auto q = Op("QuantizeLinear", 21);
  q.Input(F({-2.2f, -0.2f, 0.9f, 2.1f}, {4})).Input(F({0.25f}, {})).Input(Packed(DataType::kInt4, {-1}, {}));
  Tensor y = RunOk(q);
  EXPECT_EQ(PackedValues(y), (std::vector<int64_t>{-8, -2, 3, 7}));  // -8.8-1 -> -8, -0.8-1 -> -2, 3.6-1, 8.4-1
  auto d = Op("DequantizeLinear", 21);
  d.Input(y).Input(F({0.25f}, {})).Input(Packed(DataType::kInt4, {-1}, {}));
  ExpectFloats(RunOk(d), {-1.75f, -0.25f, 1, 2});
}

}  // namespace
}  // namespace onyx
