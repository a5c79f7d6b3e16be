// An 8-bit 2-D convolution of one group with any window (3x3 and wider, strides, dilations, padding) on channels-last
// images with the requantization fused, on AVX-512 VNNI, for the int8 path's [N, H, W, C] layout
// (ops/quant/qlinear_conv_nhwc.cc):
//   y[n, oy, ox, m] = Requantize(bias[m] + sum_{kh, kw, c} (x[n, oy*sh - pt + kh*dh, ox*sw - pl + kw*dw, c] - x_zp) *
//                                          w[m, c, kh, kw])
// (taps outside the image add nothing), requantized as kernels/int8_requantize.h's RequantizeValue, so the results
// are QLinearConv's bit for bit; optionally added to a residual as QLinearAdd (Int8ResidualAdd).
//
// A direct convolution on the VNNI tile of kernels/int8_gemm_vnni.h: tiles of up to 14 output pixels times panels of
// 32 output channels, 28 int32 sums in registers, each pixel's 4 channels of a tap broadcast straight from the image
// (channels last: 4 consecutive bytes) into `vpdpbusd`, the weights packed once as [panel][tap][group of 4 channels]
// [32 output channels][4]. No image rows are packed per tile: the window's taps are fixed offsets from each output
// pixel's first input pixel. Four tiles go over the weights of a few taps at a time (a third of L1), so that ResNet's
// 3x3 layers with 256-512 channels (150-600 KB of weights per panel) read them from L1, not L2, for each tile, and
// while the first of them goes over a chunk the next chunk is prefetched into L2. Where the window reaches past the
// border, or x is int8 (shifted to uint8 by +128), or C is not a multiple of 4, the image is first copied once per run
// into a padded uint8 buffer (borders = x's zero point, so they add nothing). Threads take contiguous ranges of output
// pixels. Where C is no multiple of 4 (a first layer's 1-3 channels), a window row's KW pixels are one tap of KW * C
// consecutive bytes (RowTapsPay): ResNet-50's first layer (7x7 x 3 channels, stride 2) 0.96 -> 0.60-0.64 ms in the
// model at 1 thread capped to VNNI, as fast as oneDNN's fused kernel (0.63-0.66), which QLinearConv keeps there.
//
// Where it runs: QLinearConv takes it only where oneDNN's primitive cannot requantize exactly itself (the float sums
// could pass 2^24: ResNet-50's 512-channel 3x3 layers, K = 4608) or oneDNN has no fast kernel, timed against oneDNN's
// int32 sums plus the requantization pass (tuning_cache.h). Measured on a Sapphire Rapids capped to VNNI (as an AMD
// Zen 4 or Intel Ice Lake runs it): those layers 0.36 against 0.46 ms at 1 thread, the QDQ model 1.4% faster; with AMX
// oneDNN keeps them. Against oneDNN's fused kernels on the other 3x3 layers it won alone with hot caches (15-23% on
// 256-channel layers) but lost in the model (cold image and weights), so it is not offered there.
#pragma once

#include <cstdint>
#include <vector>

#include "core/aligned_vector.h"
#include "kernels/int8_pointwise_nhwc.h"

namespace onyx::kernels {

struct DirectConvNhwcGeometry {
  int64_t batch = 1, in_channels = 1, out_channels = 1;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

class DirectConvNhwcInt8 {
 public:
  // Whether it runs here: AVX-512 VNNI on the CPU and in oneDNN's effective ISA (Int8VnniGemm::Supported).
  static bool Supported();
  // weights: [M, C, KH, KW] int8 (zero points 0); bias: M int32 or null; scales: 1 or M floats (x_scale *
  // w_scale[m] / y_scale); the input type (int8 when signed_input) and zero point; the output zero point and type.
  DirectConvNhwcInt8(const DirectConvNhwcGeometry& g, const int8_t* weights, const int32_t* bias,
                     const std::vector<float>& scales, int32_t x_zero_point, bool signed_input, int32_t y_zero_point,
                     bool signed_output);
  void Run(const void* x, void* y, int threads, const void* residual = nullptr,
           const Int8ResidualAdd* add = nullptr) const;
  bool signed_input() const { return signed_input_; }
  // Evicts the packed weights from every cache (FlushFromCaches), before a timed run that should find them as a model
  // whose weights outgrow the caches does (Int8Conv::EvictWeights, oneDNN's side of the same timing).
  void EvictWeights() const;
  // Whether a window row is one tap (RowTapsPay).
  bool row_taps() const { return row_taps_; }
  // Whether the kernel reads each window row as one tap of KW * C consecutive bytes (C not a multiple of 4, no
  // horizontal dilation, KW > 1): a first layer's 7 x 3 = 21 bytes as 6 groups of 4 instead of 7 pixels padded to 4
  // channels each (14% fewer products, one tap's pointer arithmetic for 6 groups instead of 1).
  static bool RowTapsPay(const DirectConvNhwcGeometry& g);

 private:
  DirectConvNhwcGeometry g_;
  bool row_taps_;                 // RowTapsPay: taps are window rows
  int64_t channels_;              // the image's channel stride as the tiles read it: C for row taps, else C rounded up
                                  // to a multiple of 4
  int64_t tap_groups_;            // groups of 4 bytes per tap: ceil(KW * C / 4) for row taps, else channels_ / 4
  int64_t taps_;                  // KH for row taps, else KH * KW
  int64_t panels_;                // ceil(M / 32)
  bool copy_input_;               // the image goes through the padded uint8 buffer
  int64_t src_h_, src_w_;         // the image's rows and columns as the tiles read it (padded or not)
  std::vector<int64_t> tap_offsets_;  // [taps_]: each tap's byte offset from a pixel's first input pixel
  AlignedVector<int8_t> packed_;      // [panel][tap][group][32 output channels][4 input bytes], 64-byte aligned
  std::vector<int32_t> offset_;   // [panels * 32]: bias - x_zero_point' * sum w (x_zero_point' shifted for int8 x)
  std::vector<float> scales_;     // [panels * 32]
  int32_t x_zero_point_, y_zero_point_;
  bool signed_input_, signed_output_;
  bool narrow_by_packs_ = false;  // every |scale| <= 0.5: no float clamp (int8_vnni_conv_epilogue.inc)
};

}  // namespace onyx::kernels
