// A float32 3x3 stride-1 convolution by Winograd's minimal filtering, F(2x2, 3x3) or F(4x4, 3x3), on the blocked
// layout (nChw8c or nChw16c; AVX2 + FMA code, 8 channels per vector): input tiles transformed to (m + 2)^2 matrices
// [tiles x C], one GEMM per transformed position against weights transformed and packed once (sgemm_packed.h, whose
// tile is the CPU's: AVX2 or AVX-512), the results transformed back with bias, an optional residual sum and an
// activation applied while they are in registers.
//
// Why: oneDNN 2.6 offers f32 Winograd only with AVX-512, so on AVX2 CPUs (AMD Zen 2/3, Intel client parts) every 3x3
// convolution ran direct: ResNet-50's 16 of them were ~47% of its time at 1 thread on an AMD EPYC, and oneDNN's
// direct kernel scaled 1.5x from 1 to 2 threads. F(4x4, 3x3) does 4x fewer multiplies per output (2.25x for
// F(2x2, 3x3)), and its GEMMs split evenly over threads. The results differ from a direct sum by rounding: F(2x2)
// about as much as direct summation, F(4x4) about 2.5x more at most (winograd_conv.cc gives the numbers). NchwcConv
// times it against its other candidates per shape (tuning_cache.h): oneDNN's direct kernel, and with AVX-512 also
// oneDNN's Winograd.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv_epilogue.h"
#include "kernels/sgemm_packed.h"

namespace onyx::kernels {

// The convolution's geometry: batch x in_channels x height x width in, batch x out_channels x out_height x
// out_width out; 3x3 window, stride 1, no dilation, `pad_top` / `pad_left` zero rows / columns before the input
// (those after it follow from the output size).
struct WinogradConvShape {
  int64_t batch = 1, in_channels = 0, out_channels = 0;
  int64_t height = 0, width = 0, out_height = 0, out_width = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t block = 8;  // channels per block of the layout: 8 (nChw8c) or 16 (nChw16c)
};

class WinogradConv {
 public:
  // Whether the kernel runs here (AVX2 + FMA) for this geometry: block 8 or 16, channel counts multiples of the
  // block, no negative pads (the output no smaller than the input minus the window's 2).
  static bool Supported(const WinogradConvShape& shape);

  // tile: 2 or 4 (outputs per tile side). weights: out_channels x in_channels x 3 x 3 (oihw); bias: out_channels
  // values or null. Both copied (transformed, on `threads` OpenMP threads), once for every geometry Run is given.
  WinogradConv(int tile, int64_t in_channels, int64_t out_channels, const float* weights, const float* bias,
               const ConvEpilogue& epilogue, int threads = 1);

  // The floats of scratch Run needs for `shape` on `threads` threads.
  int64_t ScratchFloats(const WinogradConvShape& shape, int threads) const;

  // src: blocked (batch, in_channels / block, height, width, block); dst: blocked (batch, out_channels / block,
  // out_height, out_width, block), holding the residual when the epilogue sums. shape: Supported, with this
  // convolution's channel counts. scratch: ScratchFloats(shape, threads) floats. On `threads` OpenMP threads.
  void Run(const WinogradConvShape& shape, const float* src, float* dst, float* scratch, int threads) const;

  // Calls f(data, bytes) for each buffer of transformed weights (to evict them before a timed run, tuning_cache.h).
  template <typename F>
  void ForEachWeightBuffer(const F& f) const {
    for (const PackedSgemm& g : gemms_) f(g.packed_data(), g.packed_bytes());
  }

 private:
  int tile_;
  int alpha_;  // tile + 2: the transformed tile's side
  int64_t in_channels_, out_channels_;
  std::vector<PackedSgemm> gemms_;  // one per transformed position: [in_channels, out_channels]
  std::vector<float> bias_;         // out_channels values (zeros without a bias)
  ConvEpilogue epilogue_;
};

}  // namespace onyx::kernels
