// kernels::LookupBytes (kernels/int8_lookup.h) on every Highway target this CPU runs, and QLinearConcat's
// requantization through it: each of the 256 byte values, for several scale and zero-point pairs (ties, saturation at
// either end, uint8 and int8), against the scalar definition computed here, channels first and channels last.
#include "kernels/int8_lookup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hwy_test_targets.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

TEST(Int8LookupTest, EveryByteOnEveryTargetRowsAndTails) {
  std::mt19937 rng(7);
  std::vector<uint8_t> table(256);
  for (auto& v : table) v = static_cast<uint8_t>(rng());
  for (int64_t target : HwyTargetsToTest(HWY_AVX3_DL)) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    // Widths around the vector sizes (16, 32, 64 bytes) and below them; strided rows (the concatenation's case)
    // and contiguous ones; every byte value appears at every position modulo 64 over the rows.
    for (int64_t width : {1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 256, 300, 1000}) {
      for (int64_t gap : {0, 3, 64}) {
        const int64_t rows = 9, x_pitch = width + gap, y_pitch = width + 2 * gap;
        std::vector<uint8_t> x(static_cast<size_t>(rows * x_pitch));
        for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<uint8_t>(k * 37 + width);
        const uint8_t kUntouched = 0xA5;
        std::vector<uint8_t> y(static_cast<size_t>(rows * y_pitch), kUntouched);
        kernels::LookupBytes(table.data(), x.data(), x_pitch, y.data(), y_pitch, rows, width);
        int64_t wrong = 0, touched_outside = 0;
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t k = 0; k < y_pitch; ++k) {
            const uint8_t got = y[static_cast<size_t>(r * y_pitch + k)];
            if (k < width) {
              wrong += got != table[x[static_cast<size_t>(r * x_pitch + k)]];
            } else {
              touched_outside += got != kUntouched;
            }
          }
        }
        EXPECT_EQ(wrong, 0) << "width " << width << " gap " << gap;
        EXPECT_EQ(touched_outside, 0) << "width " << width << " gap " << gap;
      }
    }
  }
}

TEST(Int8LookupTest, AllByteValuesInOneRun) {
  std::vector<uint8_t> table(256), x(256 * 5 + 3), y(x.size());
  for (int b = 0; b < 256; ++b) table[static_cast<size_t>(b)] = static_cast<uint8_t>(255 - b);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<uint8_t>(k);
  for (int64_t target : HwyTargetsToTest(HWY_AVX3_DL)) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    std::fill(y.begin(), y.end(), 0);
    const int64_t n = static_cast<int64_t>(x.size());
    kernels::LookupBytes(table.data(), x.data(), n, y.data(), n, 1, n);
    for (size_t k = 0; k < x.size(); ++k) ASSERT_EQ(y[k], static_cast<uint8_t>(255 - (k % 256))) << k;
  }
}

// QLinearConcat's table, by its definition (ONNX Runtime's: dequantize in float32, then QuantizeLinear's rounding):
// saturate(round_half_even((x_scale * float(q - x_zp)) / y_scale) + y_zp).
int32_t ScalarRequant(int32_t q, float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, bool is_signed) {
  const float dequantized = x_scale * static_cast<float>(q - x_zp);
  const float quotient = dequantized / y_scale;
  const double lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const double rounded = std::nearbyint(static_cast<double>(quotient));  // ties to even (default rounding mode)
  return static_cast<int32_t>(std::clamp(rounded + y_zp, lo, hi));
}

struct Params {
  const char* scale_text;  // as the model text writes it (exactly the float below)
  float scale;
  int32_t zero_point;
};

struct RequantCase {
  bool is_signed;
  Params x, y;
};

// x0: [2, C0, 3, 5] with every byte value (its element k holds (37 k + 11) mod 256), requantized; x1: [2, 2, 3, 5]
// with Y's parameters, copied. Channels last, the layout pass's form, has rows of C0 + 2 bytes.
void CheckConcat(const RequantCase& c, int64_t c0, bool channels_last) {
  SCOPED_TRACE(std::string(c.is_signed ? "int8" : "uint8") + " x " + c.x.scale_text + "/" +
               std::to_string(c.x.zero_point) + " y " + c.y.scale_text + "/" + std::to_string(c.y.zero_point) + " C0 " +
               std::to_string(c0) + (channels_last ? " channels last" : ""));
  const std::string type = c.is_signed ? "int8" : "uint8";
  const int64_t n = 2, h = 3, w = 5, c1 = 2;
  auto dims = [&](int64_t ch) {
    return channels_last
               ? std::to_string(n) + "," + std::to_string(h) + "," + std::to_string(w) + "," + std::to_string(ch)
               : std::to_string(n) + "," + std::to_string(ch) + "," + std::to_string(h) + "," + std::to_string(w);
  };
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 17, \"ai.onyx.internal\" : 1]>\ng (" + type + "[" +
                           dims(c0) + "] x0, " + type + "[" + dims(c1) + "] x1) => (" + type + "[" + dims(c0 + c1) +
                           "] y) {\n" + "  s0 = Constant<value = float {" + c.x.scale_text + "}>()\n" +
                           "  z0 = Constant<value = " + type + " {" + std::to_string(c.x.zero_point) + "}>()\n" +
                           "  ys = Constant<value = float {" + c.y.scale_text + "}>()\n" +
                           "  yz = Constant<value = " + type + " {" + std::to_string(c.y.zero_point) + "}>()\n" +
                           "  y = ai.onyx.internal.QLinearConcat<axis = 1" +
                           (channels_last ? ", channels_last = 1" : "") + ">(ys, yz, x0, s0, z0, x1, ys, yz)\n}\n";
  auto model = text::ParseModel(text);
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions options;
  options.optimization_level = optimizer::OptLevel::kDisabled;
  auto session = Session::Create(*model, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const DataType dt = c.is_signed ? DataType::kInt8 : DataType::kUint8;
  const Shape s0 = channels_last ? Shape{n, h, w, c0} : Shape{n, c0, h, w};
  const Shape s1 = channels_last ? Shape{n, h, w, c1} : Shape{n, c1, h, w};
  Tensor x0 = Tensor::Allocate(dt, s0, false), x1 = Tensor::Allocate(dt, s1, false);
  uint8_t* p0 = static_cast<uint8_t*>(x0.raw());
  uint8_t* p1 = static_cast<uint8_t*>(x1.raw());
  for (int64_t k = 0; k < x0.size(); ++k) p0[k] = static_cast<uint8_t>(37 * k + 11);
  for (int64_t k = 0; k < x1.size(); ++k) p1[k] = static_cast<uint8_t>(91 * k + 5);
  ASSERT_GE(x0.size(), 256);  // every byte value (37 is odd: 256 consecutive k give all of them)
  for (int64_t target : HwyTargetsToTest(HWY_AVX3_DL)) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    std::vector<Value> out;
    const Status st = (*session)->Run({{"x0", Value(x0)}, {"x1", Value(x1)}}, {}, &out);
    ASSERT_TRUE(st.ok()) << st.message();
    const uint8_t* y = static_cast<const uint8_t*>(out.at(0).tensor().raw());
    int64_t wrong = 0;
    const int64_t pixels = h * w;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t p = 0; p < pixels; ++p) {
        for (int64_t ch = 0; ch < c0 + c1; ++ch) {
          const int64_t at = channels_last ? (b * pixels + p) * (c0 + c1) + ch : (b * (c0 + c1) + ch) * pixels + p;
          uint8_t expected;
          if (ch < c0) {
            const uint8_t in = p0[channels_last ? (b * pixels + p) * c0 + ch : (b * c0 + ch) * pixels + p];
            const int32_t q = c.is_signed ? static_cast<int8_t>(in) : in;
            expected = static_cast<uint8_t>(
                ScalarRequant(q, c.x.scale, c.x.zero_point, c.y.scale, c.y.zero_point, c.is_signed));
          } else {
            const int64_t k = ch - c0;
            expected = p1[channels_last ? (b * pixels + p) * c1 + k : (b * c1 + k) * pixels + p];
          }
          wrong += y[at] != expected;
        }
      }
    }
    EXPECT_EQ(wrong, 0) << "of " << out.at(0).tensor().size();
  }
}

TEST(Int8LookupTest, QLinearConcatTableMatchesScalarDefinitionForEveryByte) {
  const RequantCase cases[] = {
      // Halving: every odd (q - zp) lands on a tie, rounded to even.
      {false, {"0.25", 0.25f, 0}, {"0.5", 0.5f, 0}},
      {false, {"0.5", 0.5f, 10}, {"1.0", 1.0f, 128}},
      // Saturates at 255 for the large bytes.
      {false, {"0.02", 0.02f, 0}, {"0.013", 0.013f, 3}},
      // Saturates at both ends.
      {false, {"3.0", 3.0f, 200}, {"0.5", 0.5f, 0}},
      // Same scale, other zero point: a table, not a copy.
      {false, {"0.1", 0.1f, 17}, {"0.1", 0.1f, 140}},
      {true, {"0.1", 0.1f, -5}, {"0.07", 0.07f, 12}},
      {true, {"1.0", 1.0f, 127}, {"0.25", 0.25f, -128}},
      {true, {"0.75", 0.75f, 3}, {"1.5", 1.5f, -1}},
      {true, {"0.05", 0.05f, 0}, {"0.05", 0.05f, -100}},
  };
  for (const RequantCase& c : cases) {
    for (int64_t c0 : {int64_t{18}, int64_t{70}}) {
      for (bool channels_last : {false, true}) CheckConcat(c, c0, channels_last);
    }
  }
}

}  // namespace
}  // namespace onyx
