// What onyx's own 8-bit channels-last convolution kernels share (kernels/int8_pointwise_nhwc.h for 1x1 windows,
// kernels/int8_direct_conv_nhwc.h for the others): one way to run them, so that QLinearConv
// (ops/quant/qlinear_conv_nhwc.cc) times either against oneDNN and runs the faster, and the residual add they can
// take into their epilogue.
#pragma once

#include "kernels/int8_qlinear_add.h"

namespace onyx::kernels {

// A QLinearAdd of the convolution's 8-bit result and a residual of the same layout, type and shape, fused into the
// epilogue (ResNet's residual connections): with QLinearAdd's A and B as kernels/int8_qlinear_add.h names them and
// its ratios and fixed term, c = saturate(round_half_even(fma(A, ratio_a, fma(B, ratio_b, fixed)))) per element, the
// convolution's requantized value being A (`conv_is_a`) or B. The same operations as QLinearAddSpans, so the same
// bits as the two operators one after the other.
struct Int8ResidualAdd {
  QLinearAddParams params;
  bool conv_is_a = true;
};

class Int8NhwcConvKernel {
 public:
  virtual ~Int8NhwcConvKernel() = default;
  // x: [N, H, W, C], y: [N, OH, OW, M] (8-bit as constructed). On up to `threads` OpenMP threads. With `add`,
  // y = QLinearAdd of the convolution's result and `residual` ([N, OH, OW, M], y's type; it may be y itself).
  virtual void Run(const void* x, void* y, int threads, const void* residual = nullptr,
                   const Int8ResidualAdd* add = nullptr) const = 0;
  // Whether x is int8 (else uint8).
  virtual bool signed_input() const = 0;
};

}  // namespace onyx::kernels
