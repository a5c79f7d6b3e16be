// The geometry of a float32 2-D convolution of one group whose output is in the blocked layout (nChw16c with
// AVX-512, nChw8c with AVX2), as onyx's own blocked kernels take it (nchwc_direct_conv.h, nchwc_gemm_conv.h).
#pragma once

#include <cstdint>

namespace onyx::kernels {

struct BlockedConvShape {
  int64_t block = 16;         // channels per block of the blocked tensors: 16 (AVX-512) or 8 (AVX2)
  bool input_blocked = true;  // false: the input is plain NCHW
  int64_t batch = 1, in_channels = 0, out_channels = 0;
  int64_t height = 0, width = 0, out_height = 0, out_width = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // those after the input follow from the output size
};

}  // namespace onyx::kernels
