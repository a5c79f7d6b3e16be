// An 8-bit 1x1 convolution (any stride, no padding, one group) on channels-last images with the requantization fused,
// on AVX-512 VNNI, for the int8 path's [N, H, W, C] layout (ops/quant/qlinear_conv_nhwc.cc):
//   y[n, oy, ox, m] = Requantize(bias[m] + sum_c (x[n, oy * sh, ox * sw, c] - x_zero_point) * w[m, c])
// with RequantizeValue of kernels/int8_requantize.h (MLAS's float product, clamp, round half to even, zero point)
// applied to the sums while they are in registers, so the results are QLinearConv's bit for bit.
//
// A matrix product of pixels by channels: tiles of up to 14 output pixels (uint8 rows of a stride-1 image with C a
// multiple of 4 read where they lie; others packed group-major, 4 channels of each pixel in turn, as
// kernels/int8_gemm_vnni.h packs A) times panels of 32 output channels holding
// all C (a dword per output channel and group of 4 input channels), every input channel summed in one tile call by
// `vpdpbusd` into 28 int32 registers, then requantized and stored as bytes. int8 x is shifted to uint8 (+128); the
// zero point's share, x_zero_point * sum_c w[m, c], and the bias are one int32 per output channel, added to the sums
// (wrapping, as the reference's int32 sums and bias). Threads take contiguous ranges of output pixels.
//
// Why: oneDNN 2.6's VNNI 1x1 kernels ran ResNet-50's int8 1x1 layers at 42-68% of the VNNI peak on an Intel Xeon
// (Sapphire Rapids) capped to VNNI (as AMD Zen 4 or Ice Lake run them), those with 64-256 input channels lowest:
// the requantization of each output weighs as much as its sums there, and a pass over int32 sums in memory costs
// more. QLinearConv times this kernel against oneDNN's per shape (tuning_cache.h).
#pragma once

#include <cstdint>
#include <vector>

#include "core/aligned_vector.h"
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

// The VNNI convolution tiles' weights, for this 1x1 kernel and the direct one (int8_direct_conv_nhwc.h): weights
// [M, C, taps] int8 into packed [ceil(M / 32) panels][taps][ceil(C / 4) groups][32 output channels][4] (zero-padded,
// sized by the caller), and per output channel offset[o] = bias[o] - x_zero_point' * sum of w[o] (x_zero_point' =
// x_zero_point + 128 for int8 x, which runs as uint8; wrapping as the reference's int32 sums) and scale[o] (scales: 1
// or M values); offset and scale hold the panels' 32 entries each.
void PackVnniConvWeights(const int8_t* weights, int64_t m, int64_t c, int64_t taps, const int32_t* bias,
                         const std::vector<float>& scales, int32_t x_zero_point, bool signed_input, int8_t* packed,
                         int32_t* offset, float* scale);

// Whether the VNNI convolution tiles without an add may narrow their results by saturating packs instead of clamping
// in float first (every |scale| <= 0.5): float(acc) * scale then stays within +-2^30 for any int32 sum, so its
// conversion to int32 (round half to even) and the zero point's addition cannot overflow, and the packs' saturation
// to the output type's range gives RequantizeValue's clamp (rounding is monotonic and the float clamp's bounds, qmin -
// zp and qmax - zp, are integers: clamping before or after rounding gives the same integer).
bool ScalesNarrowByPacks(const std::vector<float>& scales);

// For the VNNI convolution tiles (this kernel and the direct one): rows[r] = the first input pixel (the window's top
// left) of output pixels p0 .. p0 + count - 1 of an [N, out_h, out_w] output over `image` [N, in_h, in_w] of
// `pixel_bytes` per pixel, stepping along the output rows (no division per pixel).
void TileInputRows(const uint8_t* image, int64_t p0, int count, int64_t out_h, int64_t out_w, int64_t in_h,
                   int64_t in_w, int64_t stride_h, int64_t stride_w, int64_t pixel_bytes, const uint8_t** rows);

struct PointwiseNhwcGeometry {
  int64_t batch = 1, in_channels = 1, out_channels = 1;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t stride_h = 1, stride_w = 1;
};

class PointwiseNhwcInt8 {
 public:
  // Whether it runs here: AVX-512 VNNI on the CPU and in oneDNN's effective ISA (Int8VnniGemm::Supported).
  static bool Supported();
  // weights: [M, C] int8 (the [M, C, 1, 1] tensor; zero points 0); bias: M int32 or null; scales: M floats (x_scale *
  // w_scale[m] / y_scale, formed by the caller); the input type (int8 when signed_input) and zero point; the output
  // zero point and type (int8 when signed_output, else uint8).
  PointwiseNhwcInt8(const PointwiseNhwcGeometry& g, const int8_t* weights, const int32_t* bias,
                    const std::vector<float>& scales, int32_t x_zero_point, bool signed_input, int32_t y_zero_point,
                    bool signed_output);
  // x: [N, H, W, C], y: [N, OH, OW, M] (8-bit as constructed). On up to `threads` OpenMP threads. With `add`,
  // y = QLinearAdd of the convolution's result and `residual` ([N, OH, OW, M], y's type; it may be y itself).
  void Run(const void* x, void* y, int threads, const void* residual = nullptr,
           const Int8ResidualAdd* add = nullptr) const;
  bool signed_input() const { return signed_input_; }
  // Whether this geometry runs software-pipelined tiles (uint8 x read in place, the weights within half of L2, 32+
  // output channels): 10 pixels per tile, each tile's epilogue between the next tile's products; else (or with
  // set_pipelined_tiles(false), where timing finds them slower on the CPU at hand) tiles of 14 pixels, each epilogue
  // after its own products. Set before the kernel runs on other threads.
  bool PipelinedTilesApply() const;
  void set_pipelined_tiles(bool on) { pipelined_tiles_ = on; }
  // Evicts the packed weights from every cache (FlushFromCaches), before a timed run that should find them as a model
  // whose weights outgrow the caches does (Int8Conv::EvictWeights, oneDNN's side of the same timing).
  void EvictWeights() const;

 private:
  // Whether the tiles read x's uint8 rows where they lie (stride 1, C a multiple of 4) instead of packing them.
  bool ReadsRowsInPlace() const;
  PointwiseNhwcGeometry g_;
  int64_t groups_;               // ceil(C / 4)
  int64_t panels_;               // ceil(M / 32)
  AlignedVector<int8_t> packed_;  // [panel][group][32 output channels][4 input channels], 64-byte aligned
  std::vector<int32_t> offset_;  // [panels * 32]: bias - x_zero_point' * sum_c w (x_zero_point' shifted for int8 x)
  std::vector<float> scales_;    // [panels * 32]
  int32_t y_zero_point_;
  bool signed_input_, signed_output_;
  bool pipelined_tiles_ = true;
  bool narrow_by_packs_ = false;  // every |scale| <= 0.5: no float clamp (int8_vnni_conv_epilogue.inc)
};

}  // namespace onyx::kernels
