// Float AveragePool in ONNX Runtime's summation order, for sessions with KernelInfo::ort_summation_order(): every
// 1-D, 2-D and 3-D case, where pool.cc's always-on ONNX Runtime order covers the common 2-D windows only.
//
// ONNX Runtime runs AveragePool-7..11 on MLAS's pooling (lib/pooling.cpp), which picks per shape:
// - a window equal to the input (no padding, unit strides): the global kernel, four lane sums (pool.cc's
//   GlobalAverage);
// - 2-D or 3-D with a last stride of at most 2, kernels of at most 32 and the padded width within its 2,045-float
//   buffer: the vector kernel, which sums each input column down the window's rows (2-D: from the first row; 3-D:
//   from 0, plane by plane), then each output's window of column sums left to right (padding columns 0), divided by
//   the kernel size or by (columns inside the input) x (rows inside the input);
// - otherwise a plain loop: the window's elements inside the input, from 0, in row-major order, divided by the
//   kernel size (count_include_pad, even for ceil_mode windows past the padding) or by their count.
// AveragePool-19, and earlier versions with ceil_mode and count_include_pad both set, run ONNX Runtime's own loop:
// every window from 0 in row-major order (dilations honoured), divided by its count inside the input or, with
// count_include_pad, by its taps up to the end of the padded input (checked against ONNX Runtime 1.30's outputs).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/nn/window.h"

namespace onyx::ops::nn {

// Whether OrtAveragePool handles these axes (1 to 3 of them).
bool OrtAveragePoolAxesSupported(const std::vector<WindowAxis>& axes);

// y = AveragePool(x) over `planes` planes (N * C) in ONNX Runtime's order. `own_loop`: ONNX Runtime's own loop
// instead of MLAS's kernels (AveragePool-19, and, in ONNX Runtime, earlier versions with ceil_mode and
// count_include_pad both set); dilated windows always take it.
void OrtAveragePool(const std::vector<WindowAxis>& axes, bool include_pad, bool own_loop, const float* x, float* y,
                    int64_t planes);

// The average of n values as MLAS's global pooling kernel sums them: four lane sums over the whole groups of four,
// reduced as (l0 + l2) + (l1 + l3), then the rest one by one, divided by n. (GlobalAveragePool, and a window that
// covers the whole input.)
float OrtGlobalAverage(const float* x, int64_t n);

}  // namespace onyx::ops::nn
