// A float32 2-D convolution computed directly (no transform) into the blocked layout (nChw16c with AVX-512, nChw8c
// with AVX2): any window, stride, dilation and padding, one group, from a blocked input or from a plain NCHW one
// (the first convolution of an image network, 1 to 4 input channels). Bias, an optional residual sum and an
// activation are applied while the sums are in registers (conv_epilogue.h).
//
// Why a kernel of its own: on an Intel Xeon (Ice Lake, AVX-512) oneDNN 2.6's direct kernel ran ResNet-50's stride-2
// 3x3 convolutions at 65-90 GFLOP/s and its 7x7 stride-2 first convolution at ~70, against ~130 for ONNX Runtime's
// (a ~5 ms gap of its 65 ms), and its 1x1 kernel at ~115 against ~140. The scheme is the classic register tile: a
// run of up to 6 output pixels of one row times up to 4 output-channel blocks (24 vector accumulators with AVX-512,
// 12 with AVX2), each input value broadcast once per tap and input channel and multiplied into every block, the
// weights packed so that the tile's blocks are contiguous. Input channels are taken in chunks whose weights stay
// cached over every pixel of the image (in L1 where the tile's whole output fits in a quarter of L2, else in half of
// L2); the tile's sums are kept in the output between chunks. While a chunk multiplies, each tile call prefetches its
// share of the weights read next into L2: a layer's weights come from memory (a model's weights outgrow the caches),
// and without it every chunk's first tile waited for them (ResNet-50's 7x7 layers, 9.4 MB of weights per 3x3
// convolution, ran 20% slower). NchwcConv times it against oneDNN's candidates per shape (tuning_cache.h).
//
// Two orders of the output pixels: by rows (a row's pixels whose taps fall inside the input in runs of 6; those at a
// padded border, and what is left of a row, one to five at a time), or gathered: the input copied into a buffer with
// its zero padding written out, then every 6 consecutive output pixels one tile, across row ends. Rows of 7, 13, 14 or
// 28 pixels (ResNet-50's and SqueezeNet's late layers, stride-2 ones) leave many short tiles, whose few multiply-adds
// per weight load run far below the FMA peak: gathered, those layers ran 7-18% faster alone on an Intel Xeon (Ice
// Lake), for the copy of a small input; where the rows are long the copy does not pay. Timed per shape too.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/status.h"
#include "kernels/blocked_conv_shape.h"
#include "kernels/conv_epilogue.h"

namespace onyx::kernels {

class NchwcDirectConv {
 public:
  // Whether the kernel runs here for this geometry: block 16 with AVX-512F, block 8 with AVX2 + FMA (the CPU's, under
  // ONYX_MAX_ISA's cap), positive sizes, a plain input of at most 4 channels (wider ones are blocked first).
  static bool Supported(const BlockedConvShape& shape);

  enum class Order { kRows, kGathered };

  // weights: out_channels x in_channels x kernel_h x kernel_w (oihw); bias: out_channels values or null. Both are
  // copied into the kernel's layout (zeros in the channels that pad the last blocks).
  // kGathered needs finite weights where the convolution pads (a written-out zero times an infinite weight would be
  // NaN where the convolution sums nothing): with others the kernel keeps the rows order.
  NchwcDirectConv(const BlockedConvShape& shape, const float* weights, const float* bias, const ConvEpilogue& epilogue,
                  Order order = Order::kRows);
  // The same kernel for another shape of `packed_like`'s weights, sharing its packed copy (the same node at another
  // image size; NchwcGemmConv::SharingWeights's reason). InvalidArgument where `shape` packs them otherwise.
  static Result<std::shared_ptr<const NchwcDirectConv>> SharingWeights(const BlockedConvShape& shape,
                                                                       const NchwcDirectConv& packed_like,
                                                                       const float* bias, const ConvEpilogue& epilogue,
                                                                       Order order);
  // Whether a kernel for `shape` packs the weights as this one does (block, input layout, channels, window).
  bool SharesPacking(const BlockedConvShape& shape) const;

  Order order() const { return order_; }

  // The floats of the buffer Run needs: one padded image of the gathered order (0 where the input is used as it is).
  int64_t ScratchFloats() const;

  // The packed weights (to evict them before a timed run, tuning_cache.h).
  const float* packed_data() const { return packed_.get(); }
  size_t packed_bytes() const { return packed_bytes_; }

  // src: blocked (batch, ceil(in_channels / block), height, width, block), its padding channels zero, or plain
  // (batch, in_channels, height, width); dst: blocked (batch, ceil(out_channels / block), out_height, out_width,
  // block), holding the residual when the epilogue sums; its padding channels are left zero. scratch:
  // ScratchFloats() floats (null where that is 0). On `threads` OpenMP threads.
  void Run(const float* src, float* dst, float* scratch, int threads) const;

  // Cache lines of packed weights from `begin` (those NextWeights names).
  struct Region {
    const char* begin = nullptr;
    int64_t lines = 0;
  };

 private:
  void RunRows(const float* src, float* dst, int threads) const;
  void RunGathered(const float* src, float* dst, float* scratch, int threads) const;
  // The packed weights read after chunk [c0, c0 + groups) of tile t (the calls of that chunk prefetch them): the tile's
  // next chunk, else the next tile's first; none after the last.
  Region NextWeights(int64_t t, int64_t c0, int64_t groups) const;
  NchwcDirectConv(const BlockedConvShape& shape, const NchwcDirectConv& packed_like, const float* bias,
                  const ConvEpilogue& epilogue, Order order);
  // The sizes that follow from the shape (the packing's and the chunks').
  void SetSizes();
  // The input as the gathered order reads it where the window pads (WindowPads): padded height and width.
  int64_t PaddedHeight() const;
  int64_t PaddedWidth() const;

  BlockedConvShape shape_;
  Order order_ = Order::kRows;
  int max_blocks_ = 4;        // output-channel blocks per tile
  int64_t out_blocks_ = 0;    // ceil(out_channels / block)
  int64_t in_groups_ = 0;     // input channel blocks (blocked input) or input channels (plain)
  int64_t group_width_ = 1;   // channels per input group: block or 1
  int64_t chunk_groups_ = 0;  // input groups per chunk
  int64_t tile_floats_ = 0;   // packed floats per tile of output blocks
  bool weights_finite_ = true;  // every weight finite (the gathered order needs it where the window pads)
  // Packed weights: per tile of output blocks (max_blocks_ blocks, fewer in the last), per input group, per tap, per
  // channel of the group: the tile's blocks, each `block` output channels. 64-byte aligned: every weight vector load
  // stays in one cache line. Shared by the kernels of the node's other image sizes.
  size_t packed_bytes_ = 0;
  std::shared_ptr<const float> packed_;
  EpilogueChannels channels_;                     // out_blocks_ * block values each
  ConvEpilogue epilogue_;
};

}  // namespace onyx::kernels
