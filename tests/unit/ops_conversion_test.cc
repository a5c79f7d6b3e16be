// Unit tests of the Conversion family (Cast, CastLike, BitCast): the conversion engine between every kind of
// type (float -> integer truncation and wrapping, bool, float16/bfloat16, float8 with and without saturation,
// float8e8m0 rounding modes, packed 4-/2-bit types, number <-> string formatting and parsing) and the kernels'
// attributes across versions (Cast-1's string 'to', saturate from 19, round_mode from 25, bad attributes).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/float16.h"
#include "core/low_precision.h"
#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"
#include "ops/conversion/cast.h"

namespace onyx {
namespace {

using ops::CastOptions;
using ops::CastTensor;
using testing::kInf;
using testing::kNaN;
using testing::OpTest;
using testing::RunOk;
using testing::RunOp;
using testing::Values;

template <typename T>
Tensor T_(std::vector<T> values, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
  return Tensor::FromVector<T>(values, std::move(shape));
}

Tensor Strings(std::vector<std::string> values) { return T_<std::string>(std::move(values)); }

Tensor Bools(std::vector<bool> values) {
  Tensor t = Tensor::Allocate(DataType::kBool, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i];
  return t;
}

Tensor Bytes(DataType type, std::vector<uint8_t> bits) {
  Tensor t = Tensor::Allocate(type, {static_cast<int64_t>(bits.size())});
  for (size_t i = 0; i < bits.size(); ++i) t.data<uint8_t>()[i] = bits[i];
  return t;
}

// The shared reader of a bool tensor; it goes by another name here, where Bools builds one.
std::vector<bool> BoolValues(const Tensor& t) { return testing::Bools(t); }

Tensor CastOk(const Tensor& in, DataType to, CastOptions options = {}) {
  auto r = CastTensor(in, to, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return Tensor();
  EXPECT_EQ(r->type(), to);
  EXPECT_EQ(r->shape(), in.shape());
  return *r;
}

std::vector<int> Int4Values(const Tensor& t) {
  std::vector<int> out;
  for (int64_t i = 0; i < t.size(); ++i) {
    switch (t.type()) {
      case DataType::kInt4:
        out.push_back(GetInt4(t.raw(), i));
        break;
      case DataType::kUint4:
        out.push_back(GetUint4(t.raw(), i));
        break;
      case DataType::kInt2:
        out.push_back(GetInt2(t.raw(), i));
        break;
      case DataType::kUint2:
        out.push_back(GetUint2(t.raw(), i));
        break;
      case DataType::kFloat4E2M1:
        out.push_back(GetPackedNibble(t.raw(), i));
        break;
      default:
        out.push_back(-100);
    }
  }
  return out;
}

// ---- float -> integer ----

TEST(CastEngineTest, FloatToIntegerTruncatesTowardZero) {
  EXPECT_EQ(Values<int32_t>(CastOk(T_<float>({1.9f, -1.9f, 0.5f, -0.5f, 2.5f, -0.0f}), DataType::kInt32)),
            (std::vector<int32_t>{1, -1, 0, 0, 2, 0}));
  EXPECT_EQ(Values<int64_t>(CastOk(T_<double>({1e15 + 0.75, -3.99}), DataType::kInt64)),
            (std::vector<int64_t>{1000000000000000, -3}));
}

TEST(CastEngineTest, FloatOutOfRangeWrapsThroughInt64) {
  EXPECT_EQ(Values<uint8_t>(CastOk(T_<float>({300.5f, -1.0f, 3e9f}), DataType::kUint8)),
            (std::vector<uint8_t>{44, 255, 0}));
  EXPECT_EQ(Values<int32_t>(CastOk(T_<float>({3e9f}), DataType::kInt32)), (std::vector<int32_t>{-1294967296}));
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Values<int64_t>(CastOk(T_<float>({kNaN, kInf, -kInf, 1e19f}), DataType::kInt64)),
            (std::vector<int64_t>{kMin, kMin, kMin, kMin}));
  EXPECT_EQ(Values<int32_t>(CastOk(T_<float>({kNaN}), DataType::kInt32)), (std::vector<int32_t>{0}));
  // uint64 takes [2^63, 2^64) exactly.
  EXPECT_EQ(Values<uint64_t>(CastOk(T_<double>({1e19, -1.0}), DataType::kUint64)),
            (std::vector<uint64_t>{10000000000000000000ull, 18446744073709551615ull}));
}

// ---- integer <-> integer and float ----

TEST(CastEngineTest, IntegerToIntegerWraps) {
  EXPECT_EQ(Values<int8_t>(CastOk(T_<int64_t>({200, -1, 65541, -129}), DataType::kInt8)),
            (std::vector<int8_t>{-56, -1, 5, 127}));
  EXPECT_EQ(Values<uint32_t>(CastOk(T_<int32_t>({-1, 7}), DataType::kUint32)), (std::vector<uint32_t>{4294967295u, 7}));
  EXPECT_EQ(Values<int64_t>(CastOk(T_<uint64_t>({18446744073709551615ull}), DataType::kInt64)),
            (std::vector<int64_t>{-1}));
  EXPECT_EQ(Values<int16_t>(CastOk(T_<uint8_t>({255}), DataType::kInt16)), (std::vector<int16_t>{255}));
}

TEST(CastEngineTest, IntegerToFloat) {
  EXPECT_EQ(Values<float>(CastOk(T_<uint64_t>({18446744073709551615ull}), DataType::kFloat)),
            (std::vector<float>{18446744073709551616.0f}));
  EXPECT_EQ(Values<double>(CastOk(T_<int64_t>({-9007199254740993}), DataType::kDouble)),
            (std::vector<double>{-9007199254740992.0}));
  EXPECT_EQ(Values<float>(CastOk(T_<int8_t>({-128, 127}), DataType::kFloat)), (std::vector<float>{-128, 127}));
  // float16 overflows to infinity; 2049 is a tie between 2048 and 2050 in float16 -> even 2048.
  const Tensor h = CastOk(T_<int32_t>({70000, 2049, -3}), DataType::kFloat16);
  EXPECT_EQ(h.data<Float16>()[0].bits, 0x7c00);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[1]), 2048.0f);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[2]), -3.0f);
}

// ---- bool ----

TEST(CastEngineTest, Bool) {
  EXPECT_EQ(BoolValues(CastOk(T_<float>({0.0f, -0.0f, kNaN, 0.1f, -kInf}), DataType::kBool)),
            (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ(BoolValues(CastOk(T_<int64_t>({0, 2, -1, 256}), DataType::kBool)),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(Values<float>(CastOk(Bools({true, false}), DataType::kFloat)), (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(Values<uint64_t>(CastOk(Bools({true, false}), DataType::kUint64)), (std::vector<uint64_t>{1, 0}));
  EXPECT_EQ(Int4Values(CastOk(Bools({true, false, true}), DataType::kInt4)), (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(BoolValues(CastOk(Bytes(DataType::kFloat8E4M3FN, {0x00, 0x80, 0x01, 0x7f}), DataType::kBool)),
            (std::vector<bool>{false, false, true, true}));
}

// ---- float16 / bfloat16 ----

TEST(CastEngineTest, HalfAndBFloat16RoundToNearestEven) {
  const Tensor h = CastOk(T_<float>({1.0f, 65504.0f, 65520.0f, kNaN, -0.0f}), DataType::kFloat16);
  EXPECT_EQ(h.data<Float16>()[0].bits, 0x3c00);
  EXPECT_EQ(h.data<Float16>()[1].bits, 0x7bff);
  EXPECT_EQ(h.data<Float16>()[2].bits, 0x7c00);  // half way to the next binade: rounds to infinity
  EXPECT_TRUE(std::isnan(static_cast<float>(h.data<Float16>()[3])));
  EXPECT_EQ(h.data<Float16>()[4].bits, 0x8000);
  // From double, rounded once.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(CastOk(T_<double>({above_tie}), DataType::kFloat16).data<Float16>()[0].bits, 0x3c01);
  const Tensor b = CastOk(T_<float>({1.00390625f, 1.01171875f}), DataType::kBFloat16);
  EXPECT_EQ(b.data<BFloat16>()[0].bits, 0x3f80);  // tie -> even
  EXPECT_EQ(b.data<BFloat16>()[1].bits, 0x3f82);  // tie -> even (up)
  EXPECT_EQ(Values<double>(CastOk(b, DataType::kDouble)), (std::vector<double>{1.0, 1.015625}));
}

// ---- float8 ----

TEST(CastEngineTest, Float8SaturateOption) {
  const Tensor x = T_<float>({1000.0f, -kInf, kNaN, 0.46875f});
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E4M3FN)), (std::vector<uint8_t>{0x7e, 0xfe, 0x7f, 0x2f}));
  CastOptions no_sat;
  no_sat.saturate = false;
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E4M3FN, no_sat)),
            (std::vector<uint8_t>{0x7f, 0xff, 0x7f, 0x2f}));
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E5M2, no_sat)), (std::vector<uint8_t>{0x64, 0xfc, 0x7e, 0x38}));
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E5M2FNUZ, no_sat)),
            (std::vector<uint8_t>{0x68, 0x80, 0x80, 0x3c}));
  // saturate does not apply to integer sources within range, nor to other destinations.
  EXPECT_EQ(Values<uint8_t>(CastOk(T_<int32_t>({240, 100000}), DataType::kFloat8E4M3FNUZ)),
            (std::vector<uint8_t>{0x7f, 0x7f}));
}

TEST(CastEngineTest, EveryFloat8CodeSurvivesFloatAndFloat16) {
  for (DataType t : {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                     DataType::kFloat8E5M2FNUZ, DataType::kFloat8E8M0}) {
    std::vector<uint8_t> all(256);
    for (int i = 0; i < 256; ++i) all[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
    const Tensor codes = Bytes(t, all);
    CastOptions options;
    options.saturate = false;
    options.round_mode = E8M0Rounding::kDown;
    for (DataType via : {DataType::kFloat, DataType::kFloat16, DataType::kDouble}) {
      if (t == DataType::kFloat8E8M0 && via == DataType::kFloat16) continue;  // beyond float16's range
      const Tensor back = CastOk(CastOk(codes, via), t, options);
      for (int i = 0; i < 256; ++i) {
        const float v = Float8ToFloat(t, static_cast<uint8_t>(i));
        if (std::isnan(v)) {
          EXPECT_TRUE(std::isnan(Float8ToFloat(t, back.data<uint8_t>()[i])));
        } else {
          EXPECT_EQ(back.data<uint8_t>()[i], i) << DataTypeName(t) << " via " << DataTypeName(via);
        }
      }
    }
  }
}

TEST(CastEngineTest, Float8ToOtherTypes) {
  const Tensor x = Bytes(DataType::kFloat8E4M3FN, {0x38, 0xc0, 0x7e, 0x7f, 0x01});
  const Tensor f = CastOk(x, DataType::kFloat);
  EXPECT_EQ(f.data<float>()[0], 1.0f);
  EXPECT_EQ(f.data<float>()[1], -2.0f);
  EXPECT_EQ(f.data<float>()[2], 448.0f);
  EXPECT_TRUE(std::isnan(f.data<float>()[3]));
  EXPECT_EQ(f.data<float>()[4], 0.001953125f);
  EXPECT_EQ(Values<int32_t>(CastOk(x, DataType::kInt32))[2], 448);
  // Between float8 types: e4m3fn 448 -> e4m3fnuz saturates to 240; NaN stays NaN; fnuz's exponent bias is one
  // larger, so e4m3fn's smallest subnormal is fnuz's second.
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E4M3FNUZ)),
            (std::vector<uint8_t>{0x40, 0xc8, 0x7f, 0x80, 0x02}));
}

TEST(CastEngineTest, Float8E8M0RoundModes) {
  const Tensor x = T_<float>({1.5f, 1.25f, 3.0f, 0.124f, 0.0f});
  CastOptions options;
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E8M0, options)),
            (std::vector<uint8_t>{0x80, 0x80, 0x81, 0x7c, 0x00}));
  options.round_mode = E8M0Rounding::kDown;
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E8M0, options)),
            (std::vector<uint8_t>{0x7f, 0x7f, 0x80, 0x7b, 0x00}));
  options.round_mode = E8M0Rounding::kNearest;
  EXPECT_EQ(Values<uint8_t>(CastOk(x, DataType::kFloat8E8M0, options)),
            (std::vector<uint8_t>{0x80, 0x7f, 0x81, 0x7c, 0x00}));
  // From double the reference goes through float first.
  EXPECT_EQ(Values<uint8_t>(CastOk(T_<double>({1.0 + 1e-12}), DataType::kFloat8E8M0)), (std::vector<uint8_t>{0x7f}));
}

// ---- packed types ----

TEST(CastEngineTest, SubByteIntegersWrapLikeTheReference) {
  std::vector<float> in;
  for (int v = -9; v <= 15; ++v) in.push_back(static_cast<float>(v));
  const Tensor x = T_<float>(in, {5, 5});
  const Tensor i4 = CastOk(x, DataType::kInt4);
  EXPECT_EQ(i4.nbytes(), 13u);
  EXPECT_EQ(Int4Values(i4), (std::vector<int>{7, -8, -7, -6, -5, -4, -3, -2, -1, 0,  1,  2, 3,
                                              4, 5,  6,  7,  -8, -7, -6, -5, -4, -3, -2, -1}));
  EXPECT_EQ(i4.data<uint8_t>()[12] >> 4, 0);  // padding nibble is zero
  EXPECT_EQ(Int4Values(CastOk(x, DataType::kUint4)),
            (std::vector<int>{7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(Int4Values(CastOk(T_<float>({-3, -2, -1, 0, 1, 2, 3, 1.9f}), DataType::kInt2)),
            (std::vector<int>{1, -2, -1, 0, 1, -2, -1, 1}));
  EXPECT_EQ(Int4Values(CastOk(T_<int64_t>({-1, 4, 5}), DataType::kUint2)), (std::vector<int>{3, 0, 1}));
  // Back to wider types.
  EXPECT_EQ(Values<int8_t>(CastOk(i4, DataType::kInt8))[0], 7);
  EXPECT_EQ(Values<int8_t>(CastOk(i4, DataType::kInt8))[1], -8);
  EXPECT_EQ(Values<float>(CastOk(CastOk(x, DataType::kUint4), DataType::kFloat))[0], 7.0f);
  // int4 -> uint4 keeps the bits.
  EXPECT_EQ(Int4Values(CastOk(i4, DataType::kUint4))[1], 8);
}

TEST(CastEngineTest, Float4E2M1) {
  const Tensor x = T_<float>({0.48f, 0.25f, 1.05f, -3.5f, -8.0f, 9.0f, kNaN, -kInf, -0.0f});
  const Tensor f4 = CastOk(x, DataType::kFloat4E2M1);
  EXPECT_EQ(Int4Values(f4), (std::vector<int>{0x1, 0x0, 0x2, 0xe, 0xf, 0x7, 0x8, 0xf, 0x8}));
  EXPECT_EQ(Values<float>(CastOk(f4, DataType::kFloat))[3], -4.0f);
  EXPECT_EQ(Values<int32_t>(CastOk(f4, DataType::kInt32))[5], 6);
  // From double, rounded once: just above the 1.25 tie rounds up to 1.5.
  EXPECT_EQ(Int4Values(CastOk(T_<double>({1.25 + 1e-12, 1.25}), DataType::kFloat4E2M1)), (std::vector<int>{3, 2}));
}

// ---- strings ----

TEST(CastEngineTest, NumbersToStrings) {
  EXPECT_EQ(Values<std::string>(CastOk(T_<float>({1.5f, 1.0f, 0.1f, 1e20f, 1e-5f, -0.0f, kNaN, kInf, -kInf,
                                                  123456789.0f, 0.039187793f, 100000.0f, 0.0001f}),
                                       DataType::kString)),
            (std::vector<std::string>{"1.5", "1.0", "0.1", "1e+20", "1e-05", "-0.0", "nan", "inf", "-inf",
                                      "1.2345679e+08", "0.039187793", "100000.0", "1e-04"}));  // float 0.0001 < 1e-4
  EXPECT_EQ(Values<std::string>(CastOk(T_<double>({0.1, 1e16, 123456789.0, 2.5e-7}), DataType::kString)),
            (std::vector<std::string>{"0.1", "1e+16", "123456789.0", "2.5e-07"}));
  EXPECT_EQ(Values<std::string>(CastOk(T_<float>({0.1f, 1000.0f, 65504.0f, 0.5f}), DataType::kString)).size(), 4u);
  const Tensor h = CastOk(T_<float>({0.1f, 1000.0f, 65504.0f, 0.5f}), DataType::kFloat16);
  EXPECT_EQ(Values<std::string>(CastOk(h, DataType::kString)),
            (std::vector<std::string>{"0.1", "1e+03", "6.55e+04", "0.5"}));
  EXPECT_EQ(Values<std::string>(CastOk(T_<int64_t>({-5, 9223372036854775807}), DataType::kString)),
            (std::vector<std::string>{"-5", "9223372036854775807"}));
  EXPECT_EQ(Values<std::string>(CastOk(T_<uint64_t>({18446744073709551615ull}), DataType::kString)),
            (std::vector<std::string>{"18446744073709551615"}));
  EXPECT_EQ(Values<std::string>(CastOk(Bools({true, false}), DataType::kString)),
            (std::vector<std::string>{"True", "False"}));
  EXPECT_EQ(Values<std::string>(CastOk(CastOk(T_<int32_t>({-8, 7}), DataType::kInt4), DataType::kString)),
            (std::vector<std::string>{"-8", "7"}));
  const Tensor bf = CastOk(T_<float>({1.0f, 0.1f}), DataType::kBFloat16);
  EXPECT_EQ(Values<std::string>(CastOk(bf, DataType::kString)), (std::vector<std::string>{"1", "0.100098"}));
  EXPECT_EQ(Values<std::string>(CastOk(Bytes(DataType::kFloat8E4M3FN, {0x2f, 0x7f}), DataType::kString)),
            (std::vector<std::string>{"0.46875", "nan"}));
}

TEST(CastEngineTest, StringsToNumbers) {
  const Tensor f = CastOk(Strings({"1.5", " -2 ", "+3", "1e-5", "1E8", "INF", "+INF", "-inf", "NaN", "nan", "Infinity",
                                   "0.47892547", "1e999"}),
                          DataType::kFloat);
  const std::vector<float> v = Values<float>(f);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], -2.0f);
  EXPECT_EQ(v[2], 3.0f);
  EXPECT_EQ(v[3], 1e-5f);
  EXPECT_EQ(v[4], 1e8f);
  EXPECT_EQ(v[5], kInf);
  EXPECT_EQ(v[6], kInf);
  EXPECT_EQ(v[7], -kInf);
  EXPECT_TRUE(std::isnan(v[8]));
  EXPECT_TRUE(std::isnan(v[9]));
  EXPECT_EQ(v[10], kInf);
  EXPECT_EQ(std::bit_cast<uint32_t>(v[11]), 0x3ef535b8u);  // official test data
  EXPECT_EQ(v[12], kInf);
  EXPECT_EQ(Values<double>(CastOk(Strings({"0.1"}), DataType::kDouble)), (std::vector<double>{0.1}));
  EXPECT_EQ(Values<int32_t>(CastOk(Strings({"100.5", "-7", "1e3", " 42 "}), DataType::kInt32)),
            (std::vector<int32_t>{100, -7, 1000, 42}));
  EXPECT_EQ(Values<uint8_t>(CastOk(Strings({"-7", "256"}), DataType::kUint8)), (std::vector<uint8_t>{249, 0}));
  EXPECT_EQ(Values<uint64_t>(CastOk(Strings({"18446744073709551615"}), DataType::kUint64)),
            (std::vector<uint64_t>{18446744073709551615ull}));
  EXPECT_EQ(Values<int64_t>(CastOk(Strings({"9223372036854775807", "-9223372036854775808"}), DataType::kInt64)),
            (std::vector<int64_t>{9223372036854775807, std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(BoolValues(CastOk(Strings({"true", "False", "0", "2.5", "TRUE"}), DataType::kBool)),
            (std::vector<bool>{true, false, false, true, true}));
  EXPECT_EQ(Values<uint8_t>(CastOk(Strings({"448", "1000", "-inf"}), DataType::kFloat8E4M3FN)),
            (std::vector<uint8_t>{0x7e, 0x7e, 0xfe}));
  EXPECT_EQ(CastOk(Strings({"0.1"}), DataType::kFloat16).data<Float16>()[0].bits, 0x2e66);
  EXPECT_EQ(Int4Values(CastOk(Strings({"-8", "9"}), DataType::kInt4)), (std::vector<int>{-8, -7}));
}

TEST(CastEngineTest, StringRoundTrips) {
  const Tensor x = T_<float>({0.9767611f, 3.14159274f, -1.5e-30f, 7e22f, 16777216.0f});
  const Tensor back = CastOk(CastOk(x, DataType::kString), DataType::kFloat);
  EXPECT_EQ(Values<float>(back), Values<float>(x));
  const Tensor d = T_<double>({0.1, 1.0 / 3.0, -2.2250738585072014e-308, 1.7976931348623157e308});
  EXPECT_EQ(Values<double>(CastOk(CastOk(d, DataType::kString), DataType::kDouble)), Values<double>(d));
}

TEST(CastEngineTest, BadStringsAreErrors) {
  for (const char* bad : {"abc", "", "1.5x", "--1", "0x10 z"}) {
    auto r = CastTensor(Strings({"1", bad}), DataType::kFloat);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("element 1"), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(CastTensor(Strings({"seven"}), DataType::kInt64).ok());
  EXPECT_FALSE(CastTensor(Strings({"yes"}), DataType::kBool).ok());
}

// ---- shapes and identity ----

TEST(CastEngineTest, EmptyAndSameType) {
  const Tensor empty = CastOk(Tensor::Allocate(DataType::kFloat, {0, 3}), DataType::kInt4);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(CastOk(Tensor::Allocate(DataType::kString, {2, 0}), DataType::kDouble).size(), 0);
  const Tensor x = T_<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor same = CastOk(x, DataType::kFloat);
  EXPECT_EQ(Values<float>(same), Values<float>(x));
  EXPECT_FALSE(same.shares_storage_with(x));
  EXPECT_EQ(Values<std::string>(CastOk(Strings({"a", "b"}), DataType::kString)), (std::vector<std::string>{"a", "b"}));
  const Tensor scalar = CastOk(Tensor::Scalar<int32_t>(-3), DataType::kFloat);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.data<float>()[0], -3.0f);
}

TEST(CastEngineTest, ComplexIsUnsupported) {
  EXPECT_FALSE(CastTensor(T_<float>({1}), DataType::kComplex64).ok());
  EXPECT_FALSE(CastTensor(T_<std::complex<float>>({{1, 2}}), DataType::kFloat).ok());
}

// ---- the kernels ----

OpTest CastOp(int64_t opset, Tensor x) {
  OpTest t;
  t.op_type = "Cast";
  t.opset = opset;
  t.inputs.push_back(std::move(x));
  return t;
}

TEST(CastKernelTest, EveryVersionReadsTo) {
  for (int64_t opset : {6, 9, 13, 19, 21, 23, 24, 25}) {
    const Tensor y = RunOk(CastOp(opset, T_<float>({1.7f, -2.2f})).Attr("to", int64_t{6}));
    EXPECT_EQ(y.type(), DataType::kInt32) << opset;
    EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, -2})) << opset;
  }
}

TEST(CastKernelTest, Cast1NamesTheTypeAsAString) {
  const Tensor y = RunOk(CastOp(1, T_<float>({1.7f, -2.2f})).Attr("to", std::string("INT64")));
  EXPECT_EQ(y.type(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, -2}));
  EXPECT_FALSE(RunOp(CastOp(1, T_<float>({1})).Attr("to", std::string("FLOAT99"))).ok());
}

TEST(CastKernelTest, SaturateFrom19) {
  const Tensor x = T_<float>({1000.0f});
  EXPECT_EQ(RunOk(CastOp(19, x).Attr("to", int64_t{17}).Attr("saturate", int64_t{0})).data<uint8_t>()[0], 0x7f);
  EXPECT_EQ(RunOk(CastOp(19, x).Attr("to", int64_t{17})).data<uint8_t>()[0], 0x7e);
  EXPECT_EQ(RunOk(CastOp(21, x).Attr("to", int64_t{19}).Attr("saturate", int64_t{0})).data<uint8_t>()[0], 0x64);
}

TEST(CastKernelTest, RoundModeFrom25) {
  const Tensor x = T_<float>({1.5f, 1.25f});
  auto run = [&](const std::string& mode) {
    return Values<uint8_t>(RunOk(CastOp(25, x).Attr("to", int64_t{24}).Attr("round_mode", mode)));
  };
  EXPECT_EQ(run("up"), (std::vector<uint8_t>{0x80, 0x80}));
  EXPECT_EQ(run("down"), (std::vector<uint8_t>{0x7f, 0x7f}));
  EXPECT_EQ(run("nearest"), (std::vector<uint8_t>{0x80, 0x7f}));
  EXPECT_EQ(Values<uint8_t>(RunOk(CastOp(25, x).Attr("to", int64_t{24}))), (std::vector<uint8_t>{0x80, 0x80}));
  auto bad = RunOp(CastOp(25, x).Attr("to", int64_t{24}).Attr("round_mode", std::string("sideways")));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sideways"), std::string::npos) << bad.status().message();
}

TEST(CastKernelTest, BadToIsAnError) {
  EXPECT_FALSE(RunOp(CastOp(13, T_<float>({1}))).ok());                           // missing
  EXPECT_FALSE(RunOp(CastOp(13, T_<float>({1})).Attr("to", int64_t{14})).ok());   // complex64
  EXPECT_FALSE(RunOp(CastOp(13, T_<float>({1})).Attr("to", int64_t{0})).ok());    // undefined
  EXPECT_FALSE(RunOp(CastOp(13, T_<float>({1})).Attr("to", int64_t{999})).ok());  // not a type
  EXPECT_FALSE(RunOp(CastOp(13, T_<float>({1})).Attr("to", 1.0f)).ok());          // wrong attribute type
}

TEST(CastKernelTest, StringsThroughTheKernel) {
  const Tensor y = RunOk(CastOp(13, T_<float>({0.5f, 2.0f}, {2, 1})).Attr("to", int64_t{8}));
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  EXPECT_EQ(Values<std::string>(y), (std::vector<std::string>{"0.5", "2.0"}));
  EXPECT_FALSE(RunOp(CastOp(13, Strings({"one"})).Attr("to", int64_t{1})).ok());
}

TEST(CastKernelTest, CastLikeTakesTheTargetsType) {
  OpTest t;
  t.op_type = "CastLike";
  t.opset = 21;
  t.inputs.push_back(T_<float>({2.9f, -0.5f, 1000.0f}));
  t.inputs.push_back(T_<int64_t>({0}));
  EXPECT_EQ(Values<int64_t>(RunOk(t)), (std::vector<int64_t>{2, 0, 1000}));
  t.inputs[1] = Bytes(DataType::kFloat8E4M3FN, {0});
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{0x44, 0xb0, 0x7e}));
  t.Attr("saturate", int64_t{0});
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{0x44, 0xb0, 0x7f}));
  // An empty target still gives its type.
  t.inputs[1] = Tensor::Allocate(DataType::kString, {0});
  EXPECT_EQ(Values<std::string>(RunOk(t)), (std::vector<std::string>{"2.9", "-0.5", "1000.0"}));
}

TEST(CastKernelTest, CastLikeRoundMode) {
  OpTest t;
  t.op_type = "CastLike";
  t.opset = 25;
  t.inputs.push_back(T_<float>({1.5f}));
  t.inputs.push_back(Bytes(DataType::kFloat8E8M0, {0x7f}));
  t.Attr("round_mode", std::string("down"));
  EXPECT_EQ(Values<uint8_t>(RunOk(t)), (std::vector<uint8_t>{0x7f}));
}

// ---- BitCast ----

OpTest BitCastOp(Tensor x, int64_t to) {
  OpTest t;
  t.op_type = "BitCast";
  t.opset = 26;
  t.inputs.push_back(std::move(x));
  t.Attr("to", to);
  return t;
}

TEST(BitCastKernelTest, ReinterpretsBits) {
  const Tensor y = RunOk(BitCastOp(T_<float>({1.0f, -0.0f, kNaN}, {3, 1}), 6));
  EXPECT_EQ(y.shape(), (Shape{3, 1}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{0x3f800000, static_cast<int32_t>(0x80000000u), 0x7fc00000}));
  EXPECT_EQ(Values<int8_t>(RunOk(BitCastOp(T_<uint8_t>({255, 128}), 3))), (std::vector<int8_t>{-1, -128}));
  // Packed types keep their packing.
  const Tensor i4 = CastOk(T_<int32_t>({-1, 2, -8}), DataType::kInt4);
  EXPECT_EQ(Int4Values(RunOk(BitCastOp(i4, 21))), (std::vector<int>{15, 2, 8}));
  EXPECT_EQ(RunOk(BitCastOp(Tensor::Allocate(DataType::kDouble, {0, 2}), 7)).shape(), (Shape{0, 2}));
}

TEST(BitCastKernelTest, WidthMismatchAndStringsAreErrors) {
  EXPECT_FALSE(RunOp(BitCastOp(T_<float>({1.0f}), 7)).ok());
  EXPECT_FALSE(RunOp(BitCastOp(T_<float>({1.0f}), 8)).ok());
  EXPECT_FALSE(RunOp(BitCastOp(Strings({"a"}), 2)).ok());
  EXPECT_FALSE(RunOp(BitCastOp(T_<float>({1.0f}), 99)).ok());
}

}  // namespace
}  // namespace onyx
