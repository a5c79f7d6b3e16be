// The exact int32 accumulators of an 8-bit depthwise convolution (ConvInteger / QLinearConv with one input channel
// per group), for the cases whose results must be the exact sums: uint8 weights (ONNX Runtime's U8U8 kernels widen
// both operands to 16 bits and never clip; TFLite's uint8 models convert to these), int8 activations (onyx's exact
// loops run them on CPUs without VNNI), and every case on CPUs whose int8 products are exact (VNNI, AMX).
//
// Why a kernel of its own: the general path turns a depthwise convolution into one GEMM per channel with a single
// output column (an im2col of 9 rows, then a matrix-vector product), slower than the reference loops on MobileNet's
// depthwise layers. Here each channel's input is centred once into a zero-padded int32 plane, and each output row is
// the sum over the kernel's taps of a weight times a row of that plane (vectorized over the row).
#pragma once

#include <cstdint>

namespace onyx::kernels {

struct DepthwiseInt8Dims {
  int64_t batch = 1;
  int64_t channels = 1;    // input channels (= groups)
  int64_t multiplier = 1;  // output channels per input channel
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // the bottom and right padding follow from the output size
};

// y[n][m][oy][ox] = sum over the taps (ky, kx) inside the image of (x[n][m / multiplier][iy][ix] - x_zp) *
// (w[m][ky][kx] - w_zp[m]), iy = oy * stride_h - pad_top + ky * dilation_h (ix likewise): padding taps add
// nothing. x is NCHW, w [channels * multiplier, 1, kernel_h, kernel_w], y NCHW int32 (wrapping on overflow as the
// reference loops). X and W are uint8_t or int8_t. Runs on `threads` OpenMP threads over (image, channel) pairs.
template <typename X, typename W>
void DepthwiseConvInt8(const DepthwiseInt8Dims& d, const X* x, int32_t x_zp, const W* w, const int32_t* w_zp,
                       int32_t* y, int threads);

}  // namespace onyx::kernels
