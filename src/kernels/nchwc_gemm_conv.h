// A float32 2-D convolution of one group between blocked tensors (nChw16c, AVX-512) computed as a matrix product on
// the packed-rows SGEMM tile (sgemm_tile.h): output pixels are the rows, (tap, input channel) the K dimension, output
// channels the columns. Bias, an optional residual sum and an activation are applied while the last K block's sums
// are in registers (conv_epilogue.h), as onyx's direct convolution applies them.
//
// Why: the direct kernel (nchwc_direct_conv.h) and oneDNN's run a register tile of 6 pixels x 64 channels whose
// weights stream from L2 for every 6 pixels: on an Intel Xeon (Sapphire Rapids) ResNet-50's 1x1 convolutions ran at
// 150-165 GFLOP/s of the core's 221, its 3x3 ones on 7x7 and strided maps at 115-160. Here each tile's pixels are
// first copied into the tile's order, 16 channels of one tap at a time through a register transpose
// (PackSgemmRowBlocks: an im2col of one tile, zeros where the window pads), and a 14-pixel x 32-channel tile (28
// accumulators) multiplies them by a K block of packed weights that stays in L1 while every tile of pixels of an
// L2-sized block passes over it; the next block of weights is prefetched into L2 meanwhile. A 1x1 stride-1
// convolution without padding reads its pixels where they are (consecutive pixels are 16 floats apart, so the tile's
// broadcasts still come from one pointer). NchwcConv times it against the other candidates per shape
// (tuning_cache.h).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/status.h"
#include "kernels/blocked_conv_shape.h"
#include "kernels/conv_epilogue.h"

namespace onyx::kernels {

class NchwcGemmConv {
 public:
  // Whether it runs here: a blocked input in blocks of 16, the packed-rows tile (AVX-512 under ONYX_MAX_ISA's cap),
  // positive sizes. Where the window pads (WindowPads), the kernel multiplies packed zeros by the weights: a caller
  // whose weights are not all finite keeps another kernel there (0 * inf is NaN where nothing is summed).
  static bool Supported(const BlockedConvShape& shape);

  // weights: out_channels x in_channels x kernel_h x kernel_w (oihw); bias: out_channels values or null. Both copied
  // into the kernel's layout (zeros in the channels that pad the last blocks).
  NchwcGemmConv(const BlockedConvShape& shape, const float* weights, const float* bias, const ConvEpilogue& epilogue);
  // The same kernel for another shape of `packed_like`'s weights, sharing its packed copy: for the same node at another
  // image size. A new image size built its own copy (zeroed, packed, faulted in): ~half of what ResNet-50 spent on
  // each new size. InvalidArgument where `shape` packs the weights otherwise (SharesPacking).
  static Result<std::shared_ptr<const NchwcGemmConv>> SharingWeights(const BlockedConvShape& shape,
                                                                     const NchwcGemmConv& packed_like,
                                                                     const float* bias, const ConvEpilogue& epilogue);
  // Whether a kernel for `shape` packs the weights as this one does (the packing depends on the channels and the
  // window only).
  bool SharesPacking(const BlockedConvShape& shape) const;

  // src: (batch, ceil(in_channels / 16), height, width, 16), its padding channels zero; dst: (batch,
  // ceil(out_channels / 16), out_height, out_width, 16), holding the residual when the epilogue sums; its padding
  // channels are left zero. On `threads` OpenMP threads; safe from several threads at once.
  void Run(const float* src, float* dst, int threads) const;

  // The packed weights (to evict them before a timed run, tuning_cache.h).
  const float* packed_data() const { return packed_.get(); }
  size_t packed_bytes() const { return packed_bytes_; }

 private:
  NchwcGemmConv(const BlockedConvShape& shape, const NchwcGemmConv& packed_like, const float* bias,
                const ConvEpilogue& epilogue);
  // The sizes that follow from the shape's channels and window (the packing's layout).
  void SetPackingSizes();
  // Panel p (32 output channels) of K block kb: kc rows of 32 floats, from the start of the packed weights.
  int64_t PanelOffset(int64_t kb, int64_t p) const;
  const float* Panel(int64_t kb, int64_t p) const { return packed_.get() + PanelOffset(kb, p); }

  BlockedConvShape shape_;
  int64_t in_blocks_ = 0, out_blocks_ = 0, panels_ = 0, taps_ = 0;
  int64_t k_ = 0;        // taps_ * in_blocks_ * 16, tap-major
  int64_t k_block_ = 0;  // K per block (a multiple of 16)
  size_t packed_bytes_ = 0;
  std::shared_ptr<const float> packed_;           // per K block, per panel: kc x 32 (shared by the node's other shapes)
  EpilogueChannels channels_;                     // panels_ * 32 values each
  ConvEpilogue epilogue_;
};

}  // namespace onyx::kernels
