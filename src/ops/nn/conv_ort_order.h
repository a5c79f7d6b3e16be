// Float convolution summed in ONNX Runtime's order (its CPU Conv kernel: MLAS's MlasConvPrepare / MlasConv), for
// sessions with KernelInfo::ort_summation_order(): outputs bit-identical to ONNX Runtime's unoptimized graph.
//
// What MLAS does, and so what this reproduces per output element (x86-64; kernels/sgemm_ort_order.h has the GEMM):
// - 1x1 kernel, unit strides, no padding ("GemmDirect"): one GEMM of W_g [M/g, C/g] by the input [C/g, HW];
//   through MlasGemm (its split over ONNX Runtime's threads) for one image and group, else one MlasSgemmOperation
//   per image and group. Also for kernels spanning the whole input width (or height with width 1) on one input
//   channel.
// - more filters than output pixels ("ExpandThenGemm"): im2col of the whole image, then MlasGemm.
// - otherwise ("ExpandThenGemmSegmented"): output pixels cut into one segment per ONNX Runtime thread (16-aligned,
//   one segment for several images or groups); within a segment K = C/g * kernel is summed in blocks whose size
//   depends on the segment's width (kernels::OrtSgemmStrideK), one GEMM per block (MLAS's M = 1 kernel, without
//   FMA, when a group has one filter, as in depthwise convolutions).
// - then the bias is added to each sum (MlasActivation, identity).
// - one exact shape, 2-D grouped convolutions of one input channel and two filters per group, 7x7, stride 2, pads 3
//   (MobileCLIP), runs MLAS's AVX-512F kernel on CPUs with AVX-512: per output an FMA chain down each kernel column,
//   the 7 columns added as _mm512_reduce_add_ps does; outputs whose window crosses the border one FMA chain over
//   the taps inside (that kernel is dispatched only under AVX-512, as onyx's ONYX_MAX_ISA allows).
// 1-D convolutions run as 2-D with one row, 3-D the same way (vol2col).
#pragma once

#include "ops/nn/conv_core.h"

namespace onyx::ops::nn {

// Whether ONNX Runtime's CPU Conv runs g through MLAS (1 to 3 spatial dims); others keep onyx's own order.
bool OrtConvApplies(const ConvGeometry& g);

// y = conv(x, w) (+ bias per output channel, when not null), in MLAS's order for ONNX Runtime running with
// `ort_threads` intra-op threads. x, w, y as in RunConv.
void RunConvOrtOrder(const ConvGeometry& g, const float* x, const float* w, const float* bias, float* y,
                     int ort_threads);

}  // namespace onyx::ops::nn
