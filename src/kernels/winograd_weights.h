// Float 3x3 convolution weights transformed into oneDNN's Winograd weight layouts, fast.
//
// Why: oneDNN (2.6, as Debian ships it) transforms weights for its Winograd convolutions with scalar loops that read
// one output channel per step, in_channels * 9 floats apart: ~20 ns per weight on this Xeon, 46 ms for one 512x512
// layer, 158 ms of ResNet-50's first run (and of every cold tuning run that times a Winograd candidate). The same
// sums computed here, tile by tile in the order oneDNN's reorder computes them, give the same bytes.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace onyx::kernels {

// Writes `weights` (plain oihw, `oc` x `ic` x 3 x 3) into `out`, a buffer of layout `md` (a oneDNN Winograd weights
// descriptor: format kind wino, wino_format aaOio or aaOBiOo (F(2x2, 3x3)) or OBaaIBOIio (F(4x4, 3x3)), float, no
// scales). Returns false, writing nothing, for any other descriptor (the caller then uses oneDNN's reorder).
bool TransformWinogradWeights(const float* weights, int64_t oc, int64_t ic, const dnnl::memory::desc& md, float* out);

}  // namespace onyx::kernels
