// A float32 convolution of plain (NCD...) tensors on oneDNN's blocked kernels, for the convolutions the blocked
// layout pass (optimizer/nchwc_rewriter, 2-D only) leaves to the Conv operator: 3-D ones (video and volumetric
// networks). The weights are reordered into the primitive's layout once; each run reorders the input into its
// layout and the output back, which costs a pass over each but leaves the arithmetic to oneDNN's direct kernels
// instead of an im2col and a GEMM (whose patch matrix of 27 taps is the traffic that bounds a 3x3x3 convolution):
// measured on an Intel Xeon (Sapphire Rapids) at 1 thread, torchvision's R3D-18 ran 760 -> 450 ms (ONNX Runtime,
// im2col + GEMM too: 700).
#pragma once

#include <cstdint>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "core/status.h"

namespace onyx::kernels {

struct FloatConvShape {
  int64_t batch = 1, in_channels = 0, out_channels = 0, group = 1;
  std::vector<int64_t> in, kernel, out;                       // spatial sizes, one per axis
  std::vector<int64_t> stride, dilation, pad_begin, pad_end;  // per axis; dilation as ONNX's (1: none)
};

class DnnlFloatConv {
 public:
  // The convolution of `shape` on oneDNN with `threads` threads, weights [M, C / group, k...] and bias [M] (or null)
  // copied; null where oneDNN has only its reference loops for it (or no blocked kernels run here).
  static Result<std::unique_ptr<DnnlFloatConv>> Create(const FloatConvShape& shape, const float* weights,
                                                       const float* bias, int threads);

  // x: [N, C, in...]; y: [N, M, out...], both plain. Runs may overlap (the layout buffers are the thread's).
  Status Run(const float* x, float* y) const;

  // Writes the weights back in their plain layout [M, C / group, k...] (the caller's copy may be gone).
  Status CopyPlainWeights(float* out) const;

 private:
  DnnlFloatConv() = default;

  int threads_ = 1;
  dnnl::convolution_forward primitive_;
  dnnl::memory::desc plain_src_, plain_dst_, plain_weights_, src_, dst_, scratchpad_;
  dnnl::memory weights_, bias_;
};

}  // namespace onyx::kernels
