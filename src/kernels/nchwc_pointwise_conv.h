// A float32 1x1 convolution between blocked tensors (nChw16c, AVX-512) computed as a matrix product on the packed-rows
// SGEMM tile (sgemm_tile.h): output pixels are the rows, input channels the K dimension, output channels the
// columns. Bias, an optional residual sum and an activation are applied while the last K block's sums are in registers
// (conv_epilogue.h), as onyx's direct convolution applies them.
//
// Why: a 1x1 convolution is a GEMM, and the direct kernel (nchwc_direct_conv.h) and oneDNN's 1x1 kernel both run a
// register tile of 6 pixels x 64 channels whose weights stream from L2 for every 6 pixels: on an Intel Xeon (Sapphire
// Rapids) ResNet-50's 1x1 convolutions ran at 150-165 GFLOP/s of the core's 221. Here each tile's pixels are first
// copied into the tile's order (16 channels at a time, a register transpose: PackSgemmRowBlocks), and a 14-pixel x
// 32-channel tile (28 accumulators) multiplies them by a K block of packed weights that stays in L1 while every tile
// of pixels of an L2-sized block passes over it; the next block of weights is prefetched into L2 meanwhile. Strided
// 1x1 convolutions (ResNet's downsampling) gather their pixels the same way. NchwcConv times it against the other
// candidates per shape (tuning_cache.h).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "kernels/conv_epilogue.h"

namespace onyx::kernels {

struct PointwiseConvShape {
  int64_t batch = 1, in_channels = 0, out_channels = 0;
  int64_t height = 0, width = 0, out_height = 0, out_width = 0;
  int64_t stride_h = 1, stride_w = 1;
};

class NchwcPointwiseConv {
 public:
  // Whether it runs here: the packed-rows tile (AVX-512 under ONYX_MAX_ISA's cap), positive sizes, an output of
  // (height - 1) / stride + 1 rows and columns (no padding).
  static bool Supported(const PointwiseConvShape& shape);

  // weights: out_channels x in_channels (oihw with 1x1 taps); bias: out_channels values or null. Both copied into the
  // kernel's layout (zeros in the channels that pad the last blocks).
  NchwcPointwiseConv(const PointwiseConvShape& shape, const float* weights, const float* bias,
                     const ConvEpilogue& epilogue);

  // src: (batch, ceil(in_channels / 16), height, width, 16), its padding channels zero; dst: (batch,
  // ceil(out_channels / 16), out_height, out_width, 16), holding the residual when the epilogue sums; its padding
  // channels are left zero. On `threads` OpenMP threads; safe from several threads at once.
  void Run(const float* src, float* dst, int threads) const;

  // The packed weights (to evict them before a timed run, tuning_cache.h).
  const float* packed_data() const { return packed_.get(); }
  size_t packed_bytes() const { return packed_bytes_; }

 private:
  struct FreeAligned {
    void operator()(float* p) const { std::free(p); }
  };
  // Panel p (32 output channels) of K block kb: kc rows of 32 floats.
  const float* Panel(int64_t kb, int64_t p) const;

  PointwiseConvShape shape_;
  int64_t in_blocks_ = 0, out_blocks_ = 0, panels_ = 0;
  int64_t k_ = 0;        // in_blocks_ * 16
  int64_t k_block_ = 0;  // input channels per K block (a multiple of 16)
  size_t packed_bytes_ = 0;
  std::unique_ptr<float[], FreeAligned> packed_;  // per K block, per panel: kc x 32
  std::vector<float> bias_;                       // panels_ * 32 values, zero past out_channels
  std::vector<float> lane_mask_;                  // all bits set for a real output channel, 0 for padding
  ConvEpilogue epilogue_;
};

}  // namespace onyx::kernels
