// The prepacked int8 convolution (kernels/int8_conv.h through ConvInteger and QLinearConv with constant weights)
// against direct loops written here from the ONNX definitions: sum over the taps of (x - x_zero_point) * w, padding
// taps counting as the zero point, then for QLinearConv bias, the float scale x_scale * w_scale / y_scale, round half
// to even, the zero point and saturation. Awkward shapes: odd sizes, strides, asymmetric pads, dilations, groups,
// depthwise, 1-D, batch 2; uint8 and int8 activations; two runs per session (the second reuses the primitive).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/int8_gemm.h"
#include "op_test_helpers.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

struct ConvCase {
  std::vector<int64_t> x_shape;  // [N, C, spatial...]
  int64_t out_channels = 1, group = 1;
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  bool signed_x = false;
  int32_t x_zp = 0;
};

std::string Ints(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string Dims(const std::vector<int64_t>& v) { return "[" + Ints(v) + "]"; }

// Output spatial sizes and the reference accumulators [N, M, out...] (int64, then checked to fit int32).
std::vector<int64_t> ReferenceConv(const ConvCase& c, const std::vector<int32_t>& x, const std::vector<int8_t>& w,
                                   std::vector<int64_t>* out_spatial) {
  const size_t rank = c.kernel.size();
  const int64_t n_img = c.x_shape[0], ch = c.x_shape[1], cg = ch / c.group, mg = c.out_channels / c.group;
  std::vector<int64_t> in(c.x_shape.begin() + 2, c.x_shape.end()), out(rank);
  for (size_t d = 0; d < rank; ++d) {
    out[d] = (in[d] + c.pads[d] + c.pads[d + rank] - (c.kernel[d] - 1) * c.dilations[d] - 1) / c.strides[d] + 1;
  }
  *out_spatial = out;
  const int64_t in_h = rank == 2 ? in[0] : 1, in_w = in.back();
  const int64_t out_h = rank == 2 ? out[0] : 1, out_w = out.back();
  const int64_t k_h = rank == 2 ? c.kernel[0] : 1, k_w = c.kernel.back();
  const int64_t s_h = rank == 2 ? c.strides[0] : 1, s_w = c.strides.back();
  const int64_t d_h = rank == 2 ? c.dilations[0] : 1, d_w = c.dilations.back();
  const int64_t p_h = rank == 2 ? c.pads[0] : 0, p_w = c.pads[rank - 1];
  std::vector<int64_t> acc(static_cast<size_t>(n_img * c.out_channels * out_h * out_w));
  size_t i = 0;
  for (int64_t n = 0; n < n_img; ++n) {
    for (int64_t m = 0; m < c.out_channels; ++m) {
      const int64_t g = m / mg;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow, ++i) {
          int64_t sum = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            for (int64_t kh = 0; kh < k_h; ++kh) {
              for (int64_t kw = 0; kw < k_w; ++kw) {
                const int64_t ih = oh * s_h - p_h + kh * d_h, iw = ow * s_w - p_w + kw * d_w;
                if (ih < 0 || iw < 0 || ih >= in_h || iw >= in_w) continue;  // x - zero point = 0
                const int64_t xv = x[static_cast<size_t>(((n * ch + g * cg + ci) * in_h + ih) * in_w + iw)] - c.x_zp;
                sum += xv * w[static_cast<size_t>(((m * cg + ci) * k_h + kh) * k_w + kw)];
              }
            }
          }
          acc[i] = sum;
        }
      }
    }
  }
  return acc;
}

// Random x (as int32 values of its 8-bit type) and w, the model text, and the model with w (and the QLinear
// parameters) as initializers.
struct Built {
  std::vector<int32_t> x;
  std::vector<int8_t> w;
  Tensor x_tensor;
  ir::Model model;
};

Built Build(const ConvCase& c, bool qlinear, const std::vector<float>& w_scales, const std::vector<int32_t>& bias,
            int32_t y_zp, bool signed_y, unsigned seed) {
  Built b;
  std::mt19937 rng(seed);
  const std::string xt = c.signed_x ? "int8" : "uint8";
  int64_t x_size = 1, w_size = c.out_channels * (c.x_shape[1] / c.group);
  for (auto d : c.x_shape) x_size *= d;
  for (auto k : c.kernel) w_size *= k;
  std::uniform_int_distribution<int> xd(c.signed_x ? -128 : 0, c.signed_x ? 127 : 255), wd(-128, 127);
  b.x_tensor = Tensor::Allocate(c.signed_x ? DataType::kInt8 : DataType::kUint8, c.x_shape);
  for (int64_t i = 0; i < x_size; ++i) {
    const int v = xd(rng);
    b.x.push_back(v);
    if (c.signed_x) {
      b.x_tensor.data<int8_t>()[i] = static_cast<int8_t>(v);
    } else {
      b.x_tensor.data<uint8_t>()[i] = static_cast<uint8_t>(v);
    }
  }
  for (int64_t i = 0; i < w_size; ++i) b.w.push_back(static_cast<int8_t>(wd(rng)));
  std::vector<int64_t> w_shape{c.out_channels, c.x_shape[1] / c.group};
  w_shape.insert(w_shape.end(), c.kernel.begin(), c.kernel.end());
  const std::string attrs = "<group = " + std::to_string(c.group) + ", strides = " + Dims(c.strides) +
                            ", dilations = " + Dims(c.dilations) + ", pads = " + Dims(c.pads) + ">";
  std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\ng (" + xt + Dims(c.x_shape) + " x) => (";
  std::string body;
  const std::string xzp = xt + " xz = Constant<value = " + xt + " {" + std::to_string(c.x_zp) + "}>()\n";
  if (qlinear) {
    text += std::string(signed_y ? "int8" : "uint8") + " y) {\n";
    std::string ws;
    for (size_t i = 0; i < w_scales.size(); ++i) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(w_scales[i]));  // round-trips the float
      ws += (i ? "," : "") + std::string(buf);
    }
    body = "  xz = Constant<value = " + xt + " {" + std::to_string(c.x_zp) + "}>()\n" +
           "  xs = Constant<value = float {0.0173}>()\n" + "  ws = Constant<value = float[" +
           std::to_string(w_scales.size()) + "] {" + ws + "}>()\n" + "  wz = Constant<value = int8 {0}>()\n" +
           "  ys = Constant<value = float {0.0917}>()\n" + "  yz = Constant<value = " + (signed_y ? "int8" : "uint8") +
           " {" + std::to_string(y_zp) + "}>()\n";
    std::string bi;
    for (size_t i = 0; i < bias.size(); ++i) bi += (i ? "," : "") + std::to_string(bias[i]);
    if (!bias.empty()) body += "  b = Constant<value = int32[" + std::to_string(bias.size()) + "] {" + bi + "}>()\n";
    body += "  y = QLinearConv" + attrs + "(x, xs, xz, w, ws, wz, ys, yz" + (bias.empty() ? "" : ", b") + ")\n}\n";
  } else {
    text += "int32 y) {\n";
    body = "  xz = Constant<value = " + xt + " {" + std::to_string(c.x_zp) + "}>()\n  y = ConvInteger" + attrs +
           "(x, w, xz)\n}\n";
  }
  auto parsed = text::ParseModel(text + body);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text + body;
  if (!parsed.ok()) return b;
  b.model = *parsed;
  Tensor wt = Tensor::Allocate(DataType::kInt8, w_shape);
  for (size_t i = 0; i < b.w.size(); ++i) wt.data<int8_t>()[i] = b.w[i];
  b.model.graph.initializers.push_back(ir::NamedTensor{"w", "", wt, {}, {}});
  return b;
}

template <typename Q>
Q ReferenceRequantize(int64_t acc, int32_t bias, float scale, int32_t zp) {
  const int32_t a = static_cast<int32_t>(acc) + bias;
  const float v = static_cast<float>(a) * scale;  // float product, as ONNX Runtime (MLAS)
  const double r = std::nearbyint(static_cast<double>(v)) + zp;
  const double lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(r < lo ? lo : r > hi ? hi : r);
}

void RunCase(const ConvCase& c, int threads, unsigned seed) {
  // Checked against the exact definition: only where the int8 products are exact (VNNI/AMX). Without VNNI they
  // saturate in pairs as ONNX Runtime's do (kernels/int8_gemm.h; Int8GemmTest.WithoutVnniPairsSaturateAsOnnxRuntime).
  if (kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kSaturatingPairs) {
    GTEST_SKIP() << "no VNNI: 8-bit products saturate in pairs as ONNX Runtime's on this CPU";
  }
  SessionOptions options;
  options.intra_op_num_threads = threads;
  // ConvInteger.
  {
    Built b = Build(c, false, {}, {}, 0, false, seed);
    std::vector<int64_t> out;
    const std::vector<int64_t> want = ReferenceConv(c, b.x, b.w, &out);
    auto session = Session::Create(b.model, options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    testing::ExpectRunsGiveInt32(**session, "x", b.x_tensor, want, "ConvInteger ");
  }
  // QLinearConv, per-channel scales and a bias, int8 and uint8 outputs.
  for (bool signed_y : {false, true}) {
    std::mt19937 rng(seed + 7);
    std::uniform_real_distribution<float> sd(0.001f, 0.02f);
    std::uniform_int_distribution<int32_t> bd(-20000, 20000);
    std::vector<float> scales;
    std::vector<int32_t> bias;
    for (int64_t m = 0; m < c.out_channels; ++m) {
      scales.push_back(sd(rng));
      bias.push_back(bd(rng));
    }
    const int32_t y_zp = signed_y ? -17 : 121;
    Built b = Build(c, true, scales, bias, y_zp, signed_y, seed);
    std::vector<int64_t> out;
    const std::vector<int64_t> acc = ReferenceConv(c, b.x, b.w, &out);
    auto session = Session::Create(b.model, options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    std::vector<Value> got;
    Status st = (*session)->Run({{"x", b.x_tensor}}, {}, &got);
    ASSERT_TRUE(st.ok()) << st.message();
    const Tensor& y = got[0].tensor();
    ASSERT_EQ(y.size(), static_cast<int64_t>(acc.size()));
    int64_t pixels = 1;
    for (auto d : out) pixels *= d;
    int bad = 0;
    for (size_t i = 0; i < acc.size() && bad < 5; ++i) {
      const size_t m = (i / static_cast<size_t>(pixels)) % static_cast<size_t>(c.out_channels);
      // The combined scale in float, as ONNX Runtime forms it: x_scale * w_scale / y_scale.
      const float mult = 0.0173f * scales[m] / 0.0917f;
      const int want = signed_y ? ReferenceRequantize<int8_t>(acc[i], bias[m], mult, y_zp)
                                : ReferenceRequantize<uint8_t>(acc[i], bias[m], mult, y_zp);
      const int have = signed_y ? y.data<int8_t>()[i] : y.data<uint8_t>()[i];
      if (have != want) {
        ADD_FAILURE() << "QLinearConv element " << i << ": " << have << " vs " << want;
        ++bad;
      }
    }
  }
}

TEST(Int8Conv, PointwiseUint8) {
  RunCase({{1, 16, 5, 7}, 24, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, 131}, 1, 1);
}

TEST(Int8Conv, Strided3x3AsymmetricPadsInt8) {
  RunCase({{2, 13, 11, 9}, 20, 1, {3, 3}, {2, 2}, {1, 1}, {1, 0, 2, 1}, true, -7}, 2, 2);
}

TEST(Int8Conv, DilatedUint8) { RunCase({{1, 8, 12, 10}, 16, 1, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, false, 3}, 1, 3); }

TEST(Int8Conv, Depthwise) {
  RunCase({{1, 32, 14, 13}, 32, 32, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, 128}, 2, 4);
  RunCase({{1, 24, 15, 15}, 24, 24, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, 5}, 1, 5);
}

TEST(Int8Conv, Grouped) { RunCase({{1, 24, 9, 9}, 48, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, 77}, 1, 6); }

TEST(Int8Conv, OneDimensional) { RunCase({{2, 6, 31}, 10, 1, {5}, {2}, {1}, {2, 1}, false, 200}, 1, 7); }

TEST(Int8Conv, FirstLayer7x7) {
  RunCase({{1, 3, 33, 31}, 16, 1, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, false, 99}, 2, 8);
}

// 64 input channels pick oneDNN's AMX 1x1 kernel where the CPU has AMX; it writes whole tiles of 16 pixels, past the
// end of 36-pixel images (kernels/int8_conv.h, OutputSlack): batch 2, 24 and 64 output channels.
TEST(Int8Conv, PointwiseAmxTilesPastTheImage) {
  RunCase({{2, 64, 6, 6}, 24, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, 17}, 1, 9);
  RunCase({{2, 64, 6, 6}, 64, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, 250}, 2, 10);
  RunCase({{1, 128, 5, 3}, 40, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, -100}, 1, 11);
}

}  // namespace
}  // namespace onyx
