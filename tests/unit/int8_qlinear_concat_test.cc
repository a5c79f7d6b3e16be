// ai.onyx.internal.QLinearConcat (ops/quant/qlinear_concat.cc) against ONNX Runtime 1.30's com.microsoft
// QLinearConcat: the expected outputs below were produced by onnxruntime-node (CPU) on the same models and inputs
// (a copied input, table inputs whose values fall on rounding ties, uint8 and int8, axis 1 and -1), and the
// channels-last form gives the same bytes transposed. Inputs: x0[j] = j, x1[j] = 7j + 3, x2[j] = 255 - 5j (mod 256,
// as bytes). tests/quant/qlinear_concat_reference.py regenerates the expected arrays.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "optimizer/int8_nhwc_layout.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

// ORT output of case "u8" (uint8, dims [1, 4, 4, 32]).
const int kOrt_u8[] = {
    128, 128, 129, 130, 130, 130, 131, 132, 132, 132, 133, 134, 134, 134, 135, 136, 136, 136, 137, 138, 138, 138, 139,
    140, 140, 140, 141, 142, 142, 142, 143, 144, 144, 144, 145, 146, 146, 146, 147, 148, 148, 148, 149, 150, 150, 150,
    151, 152, 152, 152, 153, 154, 154, 154, 155, 156, 156, 156, 157, 158, 158, 158, 159, 160, 160, 160, 161, 162, 162,
    162, 163, 164, 164, 164, 165, 166, 166, 166, 167, 168, 168, 168, 169, 170, 170, 170, 171, 172, 172, 172, 173, 174,
    174, 174, 175, 176, 176, 176, 177, 178, 178, 178, 179, 180, 180, 180, 181, 182, 182, 182, 183, 184, 184, 184, 185,
    186, 186, 186, 187, 188, 188, 188, 189, 190, 190, 190, 191, 192, 192, 192, 193, 194, 194, 194, 195, 196, 196, 196,
    197, 198, 198, 198, 199, 200, 200, 200, 201, 202, 202, 202, 203, 204, 204, 204, 205, 206, 206, 206, 207, 208, 208,
    208, 209, 210, 210, 210, 211, 212, 212, 212, 213, 214, 214, 214, 215, 216, 216, 216, 217, 218, 218, 218, 219, 220,
    220, 220, 221, 222, 222, 222, 223, 224, 224, 224, 225, 226, 226, 226, 227, 228, 228, 228, 229, 230, 230, 230, 231,
    232, 232, 232, 233, 234, 234, 234, 235, 236, 236, 236, 237, 238, 238, 238, 239, 240, 240, 240, 241, 242, 242, 242,
    243, 244, 244, 244, 245, 246, 246, 246, 247, 248, 248, 248, 249, 250, 250, 250, 251, 252, 252, 252, 253, 254, 254,
    254, 255, 255, 3,   10,  17,  24,  31,  38,  45,  52,  59,  66,  73,  80,  87,  94,  101, 108, 115, 122, 129, 136,
    143, 150, 157, 164, 171, 178, 185, 192, 199, 206, 213, 220, 227, 234, 241, 248, 255, 6,   13,  20,  27,  34,  41,
    48,  55,  62,  69,  76,  83,  90,  97,  104, 111, 118, 125, 132, 139, 146, 153, 160, 167, 174, 181, 188, 195, 202,
    209, 216, 223, 230, 237, 244, 251, 2,   9,   16,  23,  30,  37,  44,  51,  58,  65,  72,  79,  86,  93,  100, 107,
    114, 121, 128, 135, 142, 149, 156, 163, 170, 177, 184, 191, 198, 205, 212, 219, 226, 233, 240, 247, 254, 5,   12,
    19,  26,  33,  40,  47,  54,  61,  68,  75,  82,  89,  96,  103, 110, 117, 124, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 250, 245, 240, 235,
    230, 225, 220, 215, 210, 205, 200, 195, 190, 185, 180, 175, 170, 165, 160, 155, 150, 145, 140, 135, 130, 125, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 251, 246, 241, 236, 231, 226, 221, 216, 211, 206, 201, 196, 191, 186, 181, 176, 171, 166, 161, 156, 151, 146,
    141, 136, 131, 126, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255,
};

// ORT output of case "s8" (int8, dims [2, 4, 56]).
const int kOrt_s8[] = {
    9,    10,   10,   11,   12,   12,   13,   13,   14,   15,   15,   16,   16,   17,   18,   18,   19,   19,   20,
    21,   21,   22,   22,   23,   24,   24,   25,   25,   26,   27,   27,   28,   21,   78,   127,  127,  127,  127,
    127,  127,  127,  127,  127,  127,  127,  127,  127,  127,  -1,   -6,   -11,  -16,  -21,  -26,  -31,  -36,  28,
    29,   30,   30,   31,   31,   32,   33,   33,   34,   34,   35,   36,   36,   37,   38,   38,   39,   39,   40,
    41,   41,   42,   42,   43,   44,   44,   45,   45,   46,   47,   47,   127,  127,  -128, -128, -128, -128, -128,
    -128, -128, -128, -128, -128, -128, -128, -128, -128, -41,  -46,  -51,  -56,  -61,  -66,  -71,  -76,  48,   48,
    49,   50,   50,   51,   51,   52,   53,   53,   54,   54,   55,   56,   56,   57,   57,   58,   59,   59,   60,
    60,   61,   62,   62,   63,   63,   64,   65,   65,   66,   66,   -128, -128, -124, -68,  -11,  45,   102,  127,
    127,  127,  127,  127,  127,  127,  127,  127,  -81,  -86,  -91,  -96,  -101, -106, -111, -116, 67,   68,   68,
    69,   69,   70,   71,   71,   72,   72,   73,   74,   74,   75,   75,   76,   77,   77,   78,   78,   79,   80,
    80,   81,   81,   82,   83,   83,   84,   84,   85,   86,   127,  127,  127,  127,  127,  127,  127,  -128, -128,
    -128, -128, -128, -128, -128, -128, -128, -121, -126, 125,  120,  115,  110,  105,  100,  -68,  -67,  -67,  -66,
    -65,  -65,  -64,  -64,  -63,  -62,  -62,  -61,  -61,  -60,  -59,  -59,  -58,  -58,  -57,  -56,  -56,  -55,  -55,
    -54,  -53,  -53,  -52,  -52,  -51,  -50,  -50,  -49,  -128, -128, -128, -128, -128, -128, -128, -100, -43,  13,
    70,   126,  127,  127,  127,  127,  95,   90,   85,   80,   75,   70,   65,   60,   -49,  -48,  -47,  -47,  -46,
    -46,  -45,  -44,  -44,  -43,  -43,  -42,  -41,  -41,  -40,  -40,  -39,  -38,  -38,  -37,  -37,  -36,  -35,  -35,
    -34,  -34,  -33,  -32,  -32,  -31,  -31,  -30,  127,  127,  127,  127,  127,  127,  127,  127,  127,  127,  127,
    -128, -128, -128, -128, -128, 55,   50,   45,   40,   35,   30,   25,   20,   -29,  -29,  -28,  -28,  -27,  -26,
    -26,  -25,  -24,  -24,  -23,  -23,  -22,  -21,  -21,  -20,  -20,  -19,  -18,  -18,  -17,  -17,  -16,  -15,  -15,
    -14,  -14,  -13,  -12,  -12,  -11,  -11,  -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
    -76,  -19,  37,   94,   15,   10,   5,    0,    -5,   -10,  -15,  -20,  -10,  -9,   -9,   -8,   -8,   -7,   -6,
    -6,   -5,   -5,   -4,   -3,   -3,   -2,   -2,   -1,   0,    0,    1,    1,    2,    3,    3,    4,    4,    5,
    6,    6,    7,    7,    8,    9,    127,  127,  127,  127,  127,  127,  127,  127,  127,  127,  127,  127,  127,
    127,  127,  127,  -25,  -30,  -35,  -40,  -45,  -50,  -55,  -60,
};
struct Case {
  const char* type;
  int axis;
  std::vector<Shape> shapes;
  std::vector<std::pair<std::string, int>> params;  // scale (as text), zero point per input
  std::pair<std::string, int> y;
  const int* expected;
  Shape out_shape;
};

std::string Dims(const Shape& s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t;
}

std::string ModelText(const Case& c, bool channels_last) {
  std::string ins, outs, body, args;
  auto shape_of = [&](const Shape& s) { return channels_last ? Shape{s[0], s[2], s[3], s[1]} : s; };
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    const std::string n = std::to_string(i);
    ins += std::string(i ? ", " : "") + c.type + "[" + Dims(shape_of(c.shapes[i])) + "] x" + n;
    body += "  s" + n + " = Constant<value = float {" + c.params[i].first + "}>()\n";
    body += "  z" + n + " = Constant<value = " + c.type + " {" + std::to_string(c.params[i].second) + "}>()\n";
    args += ", x" + n + ", s" + n + ", z" + n;
  }
  const std::string attrs = "axis = " + std::to_string(c.axis) + (channels_last ? ", channels_last = 1" : "");
  return std::string("<ir_version: 8, opset_import: [\"\" : 17, \"ai.onyx.internal\" : 1]>\ng (") + ins + ") => (" +
         c.type + "[" + Dims(shape_of(c.out_shape)) + "] y) {\n" + body + "  ys = Constant<value = float {" +
         c.y.first + "}>()\n  yz = Constant<value = " + c.type + " {" + std::to_string(c.y.second) +
         "}>()\n  y = ai.onyx.internal.QLinearConcat<" + attrs + ">(ys, yz" + args + ")\n}\n";
}

// Byte j of input i (see the top).
uint8_t InputByte(size_t i, int64_t j) { return static_cast<uint8_t>(i == 0 ? j : i == 1 ? j * 7 + 3 : 255 - j * 5); }

// The [N, C, H, W] index of channels-last element k of a tensor of `nchw` shape.
int64_t ChannelsFirstIndex(const Shape& nchw, int64_t k) {
  const int64_t c = nchw[1], h = nchw[2], w = nchw[3];
  const int64_t ci = k % c, wi = (k / c) % w, hi = (k / (c * w)) % h, ni = k / (c * w * h);
  return ((ni * c + ci) * h + hi) * w + wi;
}

void Check(const Case& c, bool channels_last) {
  SCOPED_TRACE(std::string(c.type) + (channels_last ? " channels last" : ""));
  auto m = text::ParseModel(ModelText(c, channels_last));
  ASSERT_TRUE(m.ok()) << m.status().message();
  SessionOptions o;
  o.optimization_level = optimizer::OptLevel::kDisabled;
  auto s = Session::Create(*m, o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const DataType type = std::string(c.type) == "uint8" ? DataType::kUint8 : DataType::kInt8;
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    const Shape& nchw = c.shapes[i];
    Tensor x = Tensor::Allocate(type, channels_last ? Shape{nchw[0], nchw[2], nchw[3], nchw[1]} : nchw, false);
    uint8_t* p = static_cast<uint8_t*>(x.raw());
    for (int64_t k = 0; k < x.size(); ++k) p[k] = InputByte(i, channels_last ? ChannelsFirstIndex(nchw, k) : k);
    feeds.emplace_back("x" + std::to_string(i), Value(std::move(x)));
  }
  std::vector<Value> out;
  const Status st = (*s)->Run(feeds, {}, &out);
  ASSERT_TRUE(st.ok()) << st.message();
  const Tensor& y = out.at(0).tensor();
  const uint8_t* got = static_cast<const uint8_t*>(y.raw());
  int64_t differing = 0;
  for (int64_t k = 0; k < y.size(); ++k) {
    const int64_t ref = channels_last ? ChannelsFirstIndex(c.out_shape, k) : k;
    differing += got[k] != static_cast<uint8_t>(c.expected[ref]);
  }
  EXPECT_EQ(differing, 0) << "of " << y.size();
}

// uint8, axis 1: x0 by a table whose values are ties (scale 0.5 into 1.0), x1 copied (Y's scale and zero point),
// x2 by a table (Y's scale, another zero point).
const Case kUint8{"uint8",
                  1,
                  {{1, 2, 4, 32}, {1, 1, 4, 32}, {1, 1, 4, 32}},
                  {{"0.5", 0}, {"1.0", 128}, {"1.0", 3}},
                  {"1.0", 128},
                  kOrt_u8,
                  {1, 4, 4, 32}};
// int8, axis -1: x0 and x1 by tables (an odd scale; ties), x2 copied.
const Case kInt8{"int8",
                 -1,
                 {{2, 4, 32}, {2, 4, 16}, {2, 4, 8}},
                 {{"0.0186584", -7}, {"0.25", 1}, {"0.031", 5}},
                 {"0.031", 5},
                 kOrt_s8,
                 {2, 4, 56}};

TEST(Int8QLinearConcat, MatchesOnnxRuntimeUint8) { Check(kUint8, false); }
TEST(Int8QLinearConcat, MatchesOnnxRuntimeInt8) { Check(kInt8, false); }
TEST(Int8QLinearConcat, ChannelsLastGivesTheSameBytesTransposed) { Check(kUint8, true); }

// x (uint8 [1,8,9,9]) -> two QLinearConv 1x1 (16 and 8 outputs, other output scales) -> QLinearConcat axis 1
// (the second input requantized, the first copied) -> QLinearConv 3x3 -> y: the layout pass keeps the concatenation
// channels last (Transposes only at x and y), with the same bytes as the graph as given.
TEST(Int8QLinearConcat, LayoutPassKeepsTheConcatenationChannelsLast) {
  std::mt19937 rng(4);
  auto values = [&](int n) {
    std::string t;
    for (int i = 0; i < n; ++i) t += (i ? "," : "") + std::to_string(static_cast<int>(rng() % 255) - 127);
    return t;
  };
  const std::string text = R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (uint8[1,8,9,9] x) => (uint8[1,8,9,9] y) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {100}>()
  wz = Constant<value = int8 {0}>()
  ws = Constant<value = float {0.004}>()
  wa = Constant<value = int8[16,8,1,1] {)" +
                           values(128) + R"(}>()
  wb = Constant<value = int8[8,8,1,1] {)" +
                           values(64) + R"(}>()
  sa = Constant<value = float {0.05}>()
  za = Constant<value = uint8 {7}>()
  sb = Constant<value = float {0.03}>()
  zb = Constant<value = uint8 {0}>()
  a = QLinearConv(x, xs, xz, wa, ws, wz, sa, za)
  b = QLinearConv(x, xs, xz, wb, ws, wz, sb, zb)
  c = ai.onyx.internal.QLinearConcat<axis = 1>(sa, za, a, sa, za, b, sb, zb)
  wc = Constant<value = int8[8,24,3,3] {)" +
                           values(8 * 24 * 9) + R"(}>()
  sy = Constant<value = float {0.1}>()
  zy = Constant<value = uint8 {3}>()
  y = QLinearConv<pads = [1,1,1,1]>(c, sa, za, wc, ws, wz, sy, zy)
}
)";
  auto m = text::ParseModel(text);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ir::Model rewritten = *m;
  auto n = optimizer::ApplyInt8NhwcLayout(rewritten);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 3);
  EXPECT_EQ(ir::OperatorHistogram(rewritten.graph)["Transpose"], 2);
  for (const auto& node : rewritten.graph.nodes) {
    if (node.op_type == "QLinearConcat") {
      const auto* a = node.FindAttribute("channels_last");
      ASSERT_NE(a, nullptr);
      EXPECT_EQ(a->i, 1);
    }
  }
  Tensor x = Tensor::Allocate(DataType::kUint8, {1, 8, 9, 9}, false);
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>(rng() % 256);
  auto run = [&](const ir::Model& model) {
    SessionOptions o;
    o.optimization_level = optimizer::OptLevel::kDisabled;
    auto s = Session::Create(model, o);
    EXPECT_TRUE(s.ok()) << s.status().message();
    std::vector<Value> out;
    if (s.ok()) {
      EXPECT_TRUE((*s)->Run({{"x", Value(x)}}, {}, &out).ok());
    }
    return out;
  };
  const std::vector<Value> want = run(*m), got = run(rewritten);
  ASSERT_EQ(want.size(), 1u);
  ASSERT_EQ(got.size(), 1u);
  const Tensor& e = want[0].tensor();
  const Tensor& g = got[0].tensor();
  ASSERT_EQ(e.shape(), g.shape());
  int64_t differing = 0;
  for (int64_t k = 0; k < e.size(); ++k) differing += e.data<uint8_t>()[k] != g.data<uint8_t>()[k];
  EXPECT_EQ(differing, 0) << "of " << e.size();
}

}  // namespace
}  // namespace onyx
