// The convolution shared by Conv, ConvInteger and QLinearConv: shape checks, then per image and group an im2col
// followed by one GEMM (W_group [M/g, C/g * kernel] x patches [C/g * kernel, out]).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/int8_conv.h"
#include "kernels/parallel_tasks.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/nn/window.h"
#include "runtime/kernel.h"

namespace onyx::ops::nn {

struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;   // C
  int64_t out_channels = 0;  // M
  int64_t group = 1;
  std::vector<WindowAxis> axes;
  Shape out_shape;  // [N, M, out...]
};

// Checks X [N, C, D1..Dn] and W [M, C/group, k1..kn] against each other and the attributes.
Result<ConvGeometry> ResolveConv(const WindowAttrs& attrs, int64_t group, const Shape& x, const Shape& w);

// y = conv(x, w) without bias, for T in {float, double, int32_t}.
template <typename T>
void RunConv(const ConvGeometry& g, const T* x, const T* w, T* y, int threads = 1) {
  const int64_t in_size = InputSize(g.axes);
  const int64_t out_size = OutputSize(g.axes);
  const int64_t kernel_size = KernelSize(g.axes);
  const int64_t cg = g.in_channels / g.group;
  const int64_t mg = g.out_channels / g.group;
  const int64_t patch_rows = cg * kernel_size;
  const bool pointwise = IsPointwise(g.axes);
  // The patch matrix a slab of output positions at a time, each slab about 2 MiB (kept in cache for its GEMM):
  // whole, a 3-D convolution's matrix took hundreds of MB, written, faulted in and read back on every run
  // (R3D-18's 3x3x3 layers on 16x56x56: 347 MB, 30 GFLOP/s against 75 for ONNX Runtime's). A slab keeps at least 64
  // positions, so narrow products still reach the GEMM's speed.
  const int64_t slab =
      pointwise ? out_size
                : std::min(out_size, std::max<int64_t>(64, (int64_t{1} << 19) / std::max<int64_t>(1, patch_rows)));
  const int64_t slabs = (out_size + slab - 1) / slab;
  auto run_slab = [&](int64_t n, int64_t gi, int64_t o0) {
    const T* xg = x + (n * g.in_channels + gi * cg) * in_size;
    T* yg = y + (n * g.out_channels + gi * mg) * out_size;
    const T* wg = w + gi * mg * patch_rows;
    if (pointwise) {
      Gemm<T>(false, false, mg, out_size, patch_rows, T(1), wg, patch_rows, xg, out_size, T(0), yg, out_size);
      return;
    }
    thread_local std::vector<T> cols;
    cols.resize(static_cast<size_t>(patch_rows * slab));
    const int64_t len = std::min(slab, out_size - o0);
    Im2ColColumns(g.axes, xg, cg, o0, o0 + len, cols.data());
    Gemm<T>(false, false, mg, len, patch_rows, T(1), wg, patch_rows, cols.data(), len, T(0), yg + o0, out_size);
  };
  const int64_t tasks = g.batch * g.group * slabs;
  if (threads > 1 && !pointwise && tasks >= 2 * threads) {
    // Slabs on the threads, each GEMM on its own thread (im2col is then parallel too).
    kernels::RunTasks(tasks, threads,
                      [&](int64_t t) { run_slab(t / (g.group * slabs), t / slabs % g.group, t % slabs * slab); });
    return;
  }
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t gi = 0; gi < g.group; ++gi) {
      for (int64_t s = 0; s < slabs; ++s) run_slab(n, gi, s * slab);
    }
  }
}

// The dims of oneDNN's int8 convolution (kernels/int8_conv.h) for `g`, 2-D or 1-D (as 2-D with one row).
kernels::Int8ConvDims Int8ConvDimsOf(const ConvGeometry& g);

// Per output channel, the float scale QLinearConv requantizes its int32 sums with: x_scale * w_scale[m] / y_scale,
// multiplied in that order in float as ONNX Runtime does (x_scale, y_scale one value; w_scale one or out_channels).
std::vector<float> QLinearConvScales(const Tensor& x_scale, const Tensor& w_scale, const Tensor& y_scale,
                                     int64_t out_channels);

// Whether ONNX Runtime's MLAS pairs a QLinearConv's products across kernel taps: on CPUs whose uint8 x int8 products
// add in saturating int16 pairs (kernels/int8_gemm.h), MLAS runs a convolution its symmetric direct kernel does not
// take (input channels not a multiple of 4, among others) as an im2col in (kh, kw, c) order times the weights, pairing
// neighbours along that order. With an odd channel count and more than one tap, pairs then join the last channel of a
// tap to the first of the next, where oneDNN's convolution (and any even channel count) pairs channels within a tap,
// and the saturated sums differ (an RGB stem, C = 3: 10% of its outputs on random images). Such convolutions take
// Im2colGemmSums, which pairs as MLAS does. 2-D, one group, uint8 x.
bool MlasPairsAcrossTaps(const ConvGeometry& g, DataType x_type);
// What MlasPairsAcrossTaps can be for convolutions of these weights ([M, C/group, KH, KW]): whether the reorder below
// is worth holding.
bool WeightsMayPairAcrossTaps(const Tensor& w);
// Weights [M, C/group, KH, KW] reordered to [M, KH, KW, C/group] (int8), each row padded with zeros to a multiple of 4
// (as MLAS packs them; kernels/int8_gemm.h Int8PadsDepth).
std::vector<int8_t> WeightsKhwc(const Tensor& w);
// The int32 sums as MLAS computes them for such a convolution, channels last [N, OH, OW, M]: im2col rows of uint8
// [pixels, KH * KW * C] in (kh, kw, c) order, taps outside the image holding the zero point (as MLAS's im2col fills
// them), times `w_khwc` (WeightsKhwc), on the int8 GEMM that pairs along K as MLAS's QGEMM does. x is [N, H, W, C]
// when channels_last, else [N, C, H, W]. False where the GEMM declines (the caller then sums another way).
bool Im2colGemmSums(const ConvGeometry& g, const uint8_t* x, bool channels_last, int32_t xz, const int8_t* w_khwc,
                    int threads, int32_t* acc);

// The prepacked int8 path of ConvInteger and QLinearConv (kernels/int8_conv.h, oneDNN's convolution primitive):
// available when W is a constant int8 tensor of rank 3 or 4 whose zero point, if given, is a constant of zeros
// (oneDNN takes no weight zero point), or a constant uint8 one with constant zero points of one group or depthwise
// (shifted to int8, the zero points' part added from sums over the taps: see Init), where oneDNN's int8 kernels run
// for x's type (kernels::Int8GemmUsable). The weights are reordered into the primitive's layout when it is built:
// for each new input shape, type or thread count.
class PackedInt8Conv {
 public:
  PackedInt8Conv();
  ~PackedInt8Conv();
  // w_index / w_zp_index: W's and its zero point's input positions.
  void Init(const KernelInfo& info, size_t w_index, size_t w_zp_index);
  // The int32 accumulators sum((x - x_zero_point) * w) channels last, [N, out..., M], into `acc` (resized), and true;
  // false when the path does not apply to x (the caller computes the reference way). x_zp is already validated.
  Result<bool> Run(const ConvGeometry& g, const Tensor& x, const Tensor* x_zp, int threads,
                   std::unique_ptr<int32_t[]>* acc);

 private:
  struct Key {
    kernels::Int8ConvDims dims;
    bool is_signed = false;
    int threads = 1;
    bool operator==(const Key&) const = default;
  };
  Tensor weights_;
  bool enabled_ = false;
  std::vector<int8_t> weights_khwc_;  // QLinearConv's where WeightsMayPairAcrossTaps, for Im2colGemmSums
  std::optional<int32_t> constant_x_zero_point_;
  std::mutex mutex_;
  std::vector<int32_t> weight_offsets_;      // uint8 weights: 128 - wz[m] per output channel; empty for int8 ones
  Tensor ones_weights_;                      // uint8 depthwise weights: the second primitive's, all ones
  std::shared_ptr<kernels::Int8Conv> conv_;  // built for key_
  std::shared_ptr<kernels::Int8Conv> ones_conv_;  // uint8 depthwise weights: the sums of x over the taps
  Key key_;
  bool refused_ = false;  // oneDNN had no fast kernel for refused_key_: those inputs take the reference path
  Key refused_key_;
};

}  // namespace onyx::ops::nn
