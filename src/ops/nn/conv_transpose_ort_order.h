// Float ConvTranspose summed in ONNX Runtime's order (its CPU ConvTranspose kernel), for sessions with
// KernelInfo::ort_summation_order(): outputs bit-identical to ONNX Runtime's unoptimized graph.
//
// What ONNX Runtime does, per image and group (core/providers/cpu/nn/conv_transpose.cc), and so what this
// reproduces per output element:
// - one GEMM through MlasGemm and its split over ONNX Runtime's threads: cols [M/g * kernel, X's pixels] =
//   W_g^T x X_g [C/g, pixels], K = C/g input channels. A constant W (an initializer) was transposed once at session
//   creation (ConvTranspose<float>::PrePack, when C/g > 1 and M/g * kernel > 1): then A = W_g^T is read as is
//   (NoTrans), and MLAS's K blocks grow while N is small (kernels/sgemm_ort_order.h). Otherwise (W computed, e.g. by
//   a DequantizeLinear at level disabled) math::Gemm(CblasTrans, ...): A read transposed, K blocks of 128 while
//   N < K, and for one pixel MLAS's M = 1 kernel the other way round. Same products, other sums;
// - col2im: the group's output zeroed, then every column entry added into the output position its tap maps to,
//   taps in row-major kernel order (Col2im for 2-D, Col2imNd's accumulating walk otherwise: the same order per
//   output element), so each output is ((0 + t0) + t1) + ... over the taps that reach it;
// - after all groups of an image, the bias added to each output (Eigen's rowwise +=: one addition).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/nn/window.h"

namespace onyx::ops::nn {

struct ConvTransposeGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;   // X's C (W's dim 0)
  int64_t out_channels = 0;  // Y's M (W's dim 1 times group)
  int64_t group = 1;
  // Seen from Y as a convolution over it: in = Y's spatial size, out = X's (ConvTranspose's kernel resolves them
  // so, with the padding ONNX defines).
  std::vector<WindowAxis> axes;
};

// Whether ONNX Runtime's PrePack transposes a constant W of C/g input channels per group and M/g * kernel
// columns (it leaves a single row or column alone).
bool OrtTransposesFilter(int64_t channels_per_group, int64_t kernel_dim);

// W [C, M/g, k...] as PrePack leaves it: per group, W_g [C/g, M/g * kernel] transposed to [M/g * kernel, C/g].
std::vector<float> TransposeFilterPerGroup(const float* w, int64_t group, int64_t channels_per_group,
                                           int64_t kernel_dim);

// y = ConvTranspose(x, w) (+ bias per output channel, when not null) in ONNX Runtime's order for `ort_threads`
// intra-op threads. x [N, C, X...], w [C, M/g, k...], y [N, M, Y...], all contiguous float. w_transposed: null, or
// TransposeFilterPerGroup(w) for a constant W that ONNX Runtime transposes (OrtTransposesFilter).
void RunConvTransposeOrtOrder(const ConvTransposeGeometry& g, const float* x, const float* w, const float* w_transposed,
                              const float* bias, float* y, int ort_threads);

}  // namespace onyx::ops::nn
