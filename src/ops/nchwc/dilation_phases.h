// A convolution dilated along W computed undilated along W over the input's horizontal dilation phases (as
// TensorFlow's atrous convolution goes through SpaceToBatch, along one axis): output column o = j * d + r reads
// padded-input columns (j + t) * d + r for taps t, so the columns of one residue r form a sub-image on which the
// same weights run undilated and unpadded along W. The d phase sub-images are laid side by side in one row, each
// sub_in columns wide: one convolution (H dilation and H pads as they were, W undilated and unpadded) covers them
// all; the kernel_w - 1 output columns that straddle two phases are computed and dropped.
//
// Why: oneDNN 2.6's JIT convolutions decline W dilations of 4 and more on AVX2 (only its reference loops take them
// in the blocked layout; they take any H dilation); the GEMM-based fallback through plain layouts ran M-LSD's
// 5-dilated 3x3 convolution 2x slower than ONNX Runtime's. Laid side by side the phases keep the rows long, which
// the JIT kernels need to run at speed (a batch of d x d small sub-images ran 12-dilated ones 1.6x slower).
// Everything here works on the blocked layout [N, C/b, H, W, b].
#pragma once

#include <cstdint>

namespace onyx::ops::nchwc {

struct PhaseLayout {
  int64_t images = 1;          // N x channel blocks of the tensor moved (the input's, or the output's)
  int64_t rows = 1;            // H of the tensor moved (the same in the full and the phase tensors)
  int64_t block = 8;
  int64_t dilation = 1;        // d along W
  int64_t pad_begin = 0;       // W padding before the input
  int64_t in = 0;              // input columns
  int64_t out = 0;             // output columns of the dilated convolution
  int64_t sub_out = 0;         // output columns of one phase: ceil(out / d)
  int64_t sub_in = 0;          // input columns of one phase: sub_out + kernel_w - 1
  int64_t PhaseInWidth() const { return dilation * sub_in; }
  int64_t PhaseOutWidth() const { return dilation * sub_in - (sub_in - sub_out); }  // the undilated conv's output
};

// The W geometry of a convolution with kernel width `kernel`, W dilation `dilation`, `pad_begin` and `out` output
// columns from `in` input columns; images and rows are the caller's.
PhaseLayout MakePhaseLayout(int64_t in, int64_t out, int64_t kernel, int64_t dilation, int64_t pad_begin);

// x [N, C/b, H, in, b] -> phases [N, C/b, H, PhaseInWidth(), b]: phase r's column j at r * sub_in + j, holding input
// column j * d + r - pad_begin (zeros in the padding). l.rows = H, l.images = N x input channel blocks.
void GatherInputPhases(const PhaseLayout& l, const float* x, float* phases);

// Outputs: phases [N, C/b, H_out, PhaseOutWidth(), b] (phase r's column j at r * sub_in + j) -> y [N, C/b, H_out,
// out, b], dropping the straddling columns and those past the output; and y -> phases (zeros where y has none), to
// sum a residual onto. l.rows = H_out, l.images = N x output channel blocks.
void ScatterOutputPhases(const PhaseLayout& l, const float* phases, float* y);
void GatherOutputPhases(const PhaseLayout& l, const float* y, float* phases);

}  // namespace onyx::ops::nchwc
