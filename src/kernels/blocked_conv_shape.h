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

// Whether some tap of some output pixel falls outside the input: before it (pad_top, pad_left) or past its end (an
// output larger than the input's padded-free reach).
inline bool WindowPads(const BlockedConvShape& s) {
  const int64_t reach_h = (s.out_height - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1;
  const int64_t reach_w = (s.out_width - 1) * s.stride_w + (s.kernel_w - 1) * s.dilation_w + 1;
  return s.pad_top > 0 || s.pad_left > 0 || reach_h > s.pad_top + s.height || reach_w > s.pad_left + s.width;
}

// Whether input pixel i is output pixel i's one tap (a 1x1 stride-1 convolution without padding): the pixels of an
// image can then be taken as one row.
inline bool MapsPixelsOneToOne(const BlockedConvShape& s) {
  return s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_top == 0 &&
         s.pad_left == 0 && s.out_height == s.height && s.out_width == s.width;
}

}  // namespace onyx::kernels
