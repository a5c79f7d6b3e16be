// ConvInteger with uint8 weights and non-zero weight zero points (TFLite's and TensorFlow 1's quantized models, as
// onyx's converter writes them): the prepacked path (ops/nn/conv_core.h, PackedInt8Conv) shifts W to int8 and adds
// (128 - wz[m]) times the taps' sum of x - xz, from an extra output channel of ones (one group) or a second
// primitive (depthwise). Against sum((x - xz) * (w - wz[m])) written here from the ONNX definition (padding taps count
// as the zero point), two runs per session: dense, strided first layer, pointwise, depthwise, per-channel zero
// points, batch 2, grouped (another path), 1-D.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "op_test_helpers.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

struct Case {
  std::vector<int64_t> x_shape;  // [N, C, spatial...]
  int64_t out_channels = 1, group = 1;
  std::vector<int64_t> kernel, strides, pads;  // pads: begins then ends
  int32_t x_zp = 0;
  std::vector<int32_t> w_zp;  // one value or one per output channel
};

std::string Ints(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return "[" + s + "]";
}

void CheckCase(const Case& c, int threads, unsigned seed) {
  const size_t rank = c.kernel.size();
  const int64_t n_img = c.x_shape[0], ch = c.x_shape[1], cg = ch / c.group, mg = c.out_channels / c.group;
  std::vector<int64_t> in(c.x_shape.begin() + 2, c.x_shape.end()), out(rank);
  for (size_t d = 0; d < rank; ++d) out[d] = (in[d] + c.pads[d] + c.pads[d + rank] - c.kernel[d]) / c.strides[d] + 1;
  const int64_t in_h = rank == 2 ? in[0] : 1, in_w = in.back(), out_h = rank == 2 ? out[0] : 1, out_w = out.back();
  const int64_t k_h = rank == 2 ? c.kernel[0] : 1, k_w = c.kernel.back();
  const int64_t s_h = rank == 2 ? c.strides[0] : 1, s_w = c.strides.back();
  const int64_t p_h = rank == 2 ? c.pads[0] : 0, p_w = c.pads[rank - 1];

  std::mt19937 rng(seed);
  Tensor x = Tensor::Allocate(DataType::kUint8, c.x_shape);
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
  std::vector<int64_t> w_shape{c.out_channels, cg};
  w_shape.insert(w_shape.end(), c.kernel.begin(), c.kernel.end());
  Tensor w = Tensor::Allocate(DataType::kUint8, w_shape);
  for (int64_t i = 0; i < w.size(); ++i) w.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
  Tensor wz = Tensor::Allocate(DataType::kUint8, c.w_zp.size() == 1 ? Shape{} : Shape{c.out_channels});
  for (size_t i = 0; i < c.w_zp.size(); ++i) wz.data<uint8_t>()[i] = static_cast<uint8_t>(c.w_zp[i]);

  std::vector<int64_t> want;
  for (int64_t n = 0; n < n_img; ++n) {
    for (int64_t m = 0; m < c.out_channels; ++m) {
      const int64_t g = m / mg, zw = c.w_zp[c.w_zp.size() == 1 ? 0 : static_cast<size_t>(m)];
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          int64_t sum = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            for (int64_t kh = 0; kh < k_h; ++kh) {
              for (int64_t kw = 0; kw < k_w; ++kw) {
                const int64_t ih = oh * s_h - p_h + kh, iw = ow * s_w - p_w + kw;
                if (ih < 0 || iw < 0 || ih >= in_h || iw >= in_w) continue;  // x - zero point = 0
                const int64_t xv = x.data<uint8_t>()[((n * ch + g * cg + ci) * in_h + ih) * in_w + iw] - c.x_zp;
                sum += xv * (w.data<uint8_t>()[((m * cg + ci) * k_h + kh) * k_w + kw] - zw);
              }
            }
          }
          want.push_back(sum);
        }
      }
    }
  }

  const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\ng (uint8" + Ints(c.x_shape) +
                           " x) => (int32 y) {\n  xz = Constant<value = uint8 {" + std::to_string(c.x_zp) +
                           "}>()\n  y = ConvInteger<group = " + std::to_string(c.group) +
                           ", strides = " + Ints(c.strides) + ", pads = " + Ints(c.pads) + ">(x, w, xz, wz)\n}\n";
  auto parsed = text::ParseModel(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ir::Model model = *parsed;
  model.graph.initializers.push_back(ir::NamedTensor{"w", "", w, {}, {}});
  model.graph.initializers.push_back(ir::NamedTensor{"wz", "", wz, {}, {}});
  SessionOptions options;
  options.intra_op_num_threads = threads;
  auto session = Session::Create(model, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  testing::ExpectRunsGiveInt32(**session, "x", x, want, "");
}

TEST(Int8ConvUint8Weights, DenseAndFirstLayer) {
  CheckCase({{1, 16, 9, 11}, 24, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, 131, {119}}, 1, 1);
  CheckCase({{1, 3, 33, 32}, 8, 1, {3, 3}, {2, 2}, {0, 0, 1, 1}, 128, {151}}, 2, 2);
  CheckCase({{2, 8, 10, 10}, 40, 1, {3, 3}, {1, 1}, {1, 0, 2, 1}, 0, {7}}, 1, 3);
}

TEST(Int8ConvUint8Weights, Pointwise) {
  CheckCase({{1, 8, 16, 16}, 16, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, 0, {128}}, 1, 4);
  CheckCase({{1, 64, 7, 5}, 100, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, 250, {3}}, 2, 5);
}

TEST(Int8ConvUint8Weights, PerChannelZeroPoints) {
  std::vector<int32_t> zps;
  for (int m = 0; m < 12; ++m) zps.push_back(20 * m + 5);
  CheckCase({{1, 10, 8, 8}, 12, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, 77, zps}, 1, 6);
  std::vector<int32_t> dw_zps;
  for (int m = 0; m < 16; ++m) dw_zps.push_back(255 - 15 * m);
  CheckCase({{1, 16, 12, 12}, 16, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}, 9, dw_zps}, 2, 7);
}

TEST(Int8ConvUint8Weights, Depthwise) {
  CheckCase({{1, 32, 14, 13}, 32, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}, 128, {140}}, 1, 8);
  CheckCase({{2, 24, 15, 15}, 24, 24, {3, 3}, {2, 2}, {0, 0, 1, 1}, 0, {0}}, 2, 9);
}

TEST(Int8ConvUint8Weights, GroupedAndOneDimensional) {
  CheckCase({{1, 24, 9, 9}, 48, 4, {3, 3}, {1, 1}, {1, 1, 1, 1}, 77, {100}}, 1, 10);
  CheckCase({{2, 6, 31}, 10, 1, {5}, {2}, {2, 1}, 200, {33}}, 1, 11);
}

}  // namespace
}  // namespace onyx
