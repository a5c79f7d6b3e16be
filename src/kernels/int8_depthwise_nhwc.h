// An 8-bit depthwise convolution on channels-last images with the requantization fused, for QLinearConv groups of one
// input and one output channel each (MobileNet's 3x3 layers) on the int8 path's [N, H, W, C] layout
// (ops/quant/qlinear_conv_nhwc.cc): y[n, oy, ox, c] = Requantize(bias[c] + sum over the taps inside the image of
// (x[n, iy, ix, c] - x_zero_point) * w[c, ky, kx]), RequantizeValue of kernels/int8_requantize.h (MLAS's float
// product, clamp, round half to even, zero point), so the results are QLinearConv's bit for bit. Padding taps add
// nothing (they hold the zero point, as ONNX specifies).
//
// Why a kernel of its own: oneDNN's int8 depthwise kernel on AVX2 multiplies one 32-bit lane per product (measured:
// MobileNet-v2's depthwise layers 25% behind ONNX Runtime's MLAS kernels). Here 16 channels go through 16-bit lanes:
// |x - x_zero_point| <= 255 and |w| <= 128, so each product fits int16 exactly (<= 32640); products are widened to
// int32 for the sum: the exact sums, as MLAS's (which never pairs depthwise products).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace onyx::kernels {

struct DepthwiseNhwcGeometry {
  int64_t batch = 1, channels = 1;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

class DepthwiseNhwcInt8 {
 public:
  // Whether this CPU runs the kernel (AVX2).
  static bool Available();
  // weights: [C, 1, KH, KW] int8 (zero points 0); bias: C int32 or null; scales: C floats (x_scale * w_scale[c] /
  // y_scale, formed by the caller); the output zero point and type (int8 when signed_output, else uint8); the input
  // type (int8 when signed_input).
  DepthwiseNhwcInt8(const DepthwiseNhwcGeometry& g, const int8_t* weights, const int32_t* bias,
                    const std::vector<float>& scales, int32_t x_zero_point, bool signed_input, int32_t y_zero_point,
                    bool signed_output);
  // x: [N, H, W, C], y: [N, OH, OW, C] (8-bit as constructed). Splits output rows between up to `threads` OpenMP
  // threads.
  void Run(const void* x, void* y, int threads) const;
  bool signed_input() const { return signed_input_; }
  // Evicts the packed weights from every cache (FlushFromCaches), before a timed run that should find them as a model
  // whose weights outgrow the caches does (Int8Conv::EvictWeights, oneDNN's side of the same timing).
  void EvictWeights() const;

 private:
  DepthwiseNhwcGeometry g_;
  int64_t padded_channels_;           // C rounded up to 16
  std::vector<int16_t> w16_;          // [taps][padded_channels_]
  std::vector<int16_t> w_pairs_;      // [padded_channels_ / 16][pairs of taps][2][16], interleaved (see the .cc)
  std::vector<int64_t> tap_offsets_;  // [2 * pairs]: input offset of each tap from the window's first
  std::vector<int32_t> bias_;         // [padded_channels_]
  std::vector<float> scales_;         // [padded_channels_]
  int32_t x_zero_point_, y_zero_point_;
  bool signed_input_, signed_output_;
};

}  // namespace onyx::kernels
