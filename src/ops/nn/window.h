// Sliding-window geometry shared by Conv, ConvTranspose and the pooling operators: the attributes as written on
// the node (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode), resolved per spatial axis against the
// actual input shape, and the im2col / col2im walks over one channel's patches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "runtime/kernel.h"

namespace onyx::ops::nn {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct WindowAttrs {
  std::vector<int64_t> kernel_shape;  // empty: taken from the weights
  std::vector<int64_t> strides;       // empty: all 1
  std::vector<int64_t> dilations;     // empty: all 1
  std::vector<int64_t> pads;          // [x1_begin, x2_begin, ..., x1_end, x2_end, ...]; empty: all 0
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;

  // Reads the attributes that the node has (absent ones keep their defaults) and checks their values.
  Status Parse(const KernelInfo& info, bool kernel_shape_required);
};

// One spatial axis of a window operation. Output position o reads input positions
// o * stride - pad_begin + j * dilation for j in [0, kernel).
struct WindowAxis {
  int64_t in = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;
  int64_t out = 0;
};

// Resolves the window against the input's spatial dims. `kernel` holds the kernel dims when the operator takes
// them from a weight tensor (empty for pooling, which needs kernel_shape); the sizes of strides, dilations and
// pads must match the number of spatial dims. Output sizes follow auto_pad and ceil_mode as ONNX defines them.
Result<std::vector<WindowAxis>> ResolveWindow(const WindowAttrs& attrs, const Shape& in_spatial, const Shape& kernel);

// A contiguous range [first, last) of indices (empty when first == last).
struct IndexRange {
  int64_t first = 0, last = 0;
};

// The taps t of output index o along axis a that read inside the input (o * stride - pad_begin + t * dilation in
// [0, in)): always a contiguous range of [0, kernel).
IndexRange ValidTapRange(const WindowAxis& a, int64_t o);

// The output indices along axis a whose every tap reads inside the input (no padding in their window): contiguous.
IndexRange WholeWindowOutputs(const WindowAxis& a);

int64_t OutputSize(const std::vector<WindowAxis>& axes);  // product of out
int64_t InputSize(const std::vector<WindowAxis>& axes);   // product of in
int64_t KernelSize(const std::vector<WindowAxis>& axes);  // product of kernel

// Advances a row-major multi-index over the first `dims` axes, each bounded by `bound` (&WindowAxis::out for output
// positions, &WindowAxis::kernel for kernel positions), back to zeros after the last.
inline void NextWindowIndex(std::vector<int64_t>& idx, size_t dims, const std::vector<WindowAxis>& axes,
                            int64_t WindowAxis::*bound) {
  for (size_t d = dims; d-- > 0;) {
    if (++idx[d] < axes[d].*bound) return;
    idx[d] = 0;
  }
}

// Whether the patch matrix of a channel is the channel itself (1x1 kernel, unit strides, no padding).
bool IsPointwise(const std::vector<WindowAxis>& axes);

// Columns [o_begin, o_end) of the patch matrix of `channels` consecutive channels of x: cols is
// [channels * kernel, o_end - o_begin] row-major, `pad` where a tap falls in padding. Rows are copied as runs (pad,
// one contiguous copy, pad) where the last axis has unit stride. The patch matrix's rows are kernel positions and its
// columns output positions, both row-major; walking it with a call per tap, or on a walker calling once per run,
// R3D-18's im2col measured 3-5% slower than this loop written out. Lets a large
// convolution run im2col and its GEMM one cache-sized slab of output positions at a time.
template <typename T>
void Im2ColColumns(const std::vector<WindowAxis>& axes, const T* x, int64_t channels, int64_t o_begin, int64_t o_end,
                   T* cols, T pad = T(0)) {
  const size_t nd = axes.size();
  if (nd == 0 || o_begin >= o_end) return;
  const int64_t in_size = InputSize(axes);
  std::vector<int64_t> in_strides(nd, 1);
  for (size_t d = nd - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * axes[d].in;
  const WindowAxis& last = axes[nd - 1];
  const int64_t kernel_count = KernelSize(axes);
  std::vector<int64_t> kidx(nd, 0), oidx(nd, 0);
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * in_size;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t kk = 0; kk < kernel_count; ++kk) {
      // The output position o_begin as indices over all axes but the last, and its column in the last.
      int64_t row = o_begin / last.out, col = o_begin % last.out;
      for (size_t d = nd - 1; d-- > 0;) {
        oidx[d] = row % axes[d].out;
        row /= axes[d].out;
      }
      const int64_t shift = kidx[nd - 1] * last.dilation - last.pad_begin;
      for (int64_t o = o_begin; o < o_end;) {
        int64_t base = 0;
        bool valid = true;
        for (size_t d = 0; d + 1 < nd; ++d) {
          const int64_t pos = oidx[d] * axes[d].stride - axes[d].pad_begin + kidx[d] * axes[d].dilation;
          if (pos < 0 || pos >= axes[d].in) valid = false;
          base += pos * in_strides[d];
        }
        const int64_t stop = std::min(last.out, col + (o_end - o));
        if (!valid) {
          cols = std::fill_n(cols, stop - col, pad);
        } else if (last.stride == 1) {
          // Inside the input for j + shift in [0, in): zeros, one contiguous copy, zeros.
          const int64_t lo = std::clamp<int64_t>(-shift, col, stop),
                        hi = std::clamp<int64_t>(last.in - shift, lo, stop);
          cols = std::fill_n(cols, lo - col, pad);
          cols = std::copy(xc + base + lo + shift, xc + base + hi + shift, cols);
          cols = std::fill_n(cols, stop - hi, pad);
        } else {
          for (int64_t j = col; j < stop; ++j) {
            const int64_t pos = j * last.stride + shift;
            *cols++ = pos >= 0 && pos < last.in ? xc[base + pos] : pad;
          }
        }
        o += stop - col;
        col = 0;
        NextWindowIndex(oidx, nd - 1, axes, &WindowAxis::out);
      }
      NextWindowIndex(kidx, nd, axes, &WindowAxis::kernel);
    }
  }
}

// The whole patch matrix [channels * kernel, out] of `channels` consecutive channels of x (zeros for padding).
template <typename T>
void Im2Col(const std::vector<WindowAxis>& axes, const T* x, int64_t channels, T* cols) {
  Im2ColColumns(axes, x, channels, 0, OutputSize(axes), cols);
}

// The adjoint of Im2Col: adds each patch-matrix entry into the input position it came from, in the patch matrix's
// order (channel, kernel position, output position: one addition per tap). Row by row of output columns, each row's
// valid columns found once per kernel column, where a call per tap cost a 4x4 stride-2 ConvTranspose 45% of its
// time and a 3-D one 41% (the disjoint 2x2 stride-2 case of U-Nets and Mask R-CNN's mask head included: 178 -> 138
// ms for the latter). No spatial axes: nothing to add.
template <typename T>
void Col2ImAdd(const std::vector<WindowAxis>& axes, const T* cols, int64_t channels, T* x) {
  if (axes.empty()) return;
  const size_t nd = axes.size();
  const WindowAxis& aw = axes[nd - 1];
  const int64_t in_size = InputSize(axes), out_size = OutputSize(axes), kernel_size = KernelSize(axes);
  const int64_t leading = out_size / std::max<int64_t>(aw.out, 1);
  std::vector<int64_t> in_strides(nd, 1);
  for (size_t d = nd - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * axes[d].in;
  std::vector<int64_t> kidx(nd, 0), oidx(nd, 0);
  for (int64_t c = 0; c < channels; ++c) {
    T* xc = x + c * in_size;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t kk = 0; kk < kernel_size; ++kk) {
      const T* src = cols + (c * kernel_size + kk) * out_size;
      const int64_t shift = kidx[nd - 1] * aw.dilation - aw.pad_begin;  // column o reads o * stride + shift
      const int64_t o_lo = std::clamp<int64_t>(shift >= 0 ? 0 : (-shift + aw.stride - 1) / aw.stride, 0, aw.out);
      const int64_t o_hi =
          std::clamp<int64_t>(aw.in - shift <= 0 ? 0 : (aw.in - shift + aw.stride - 1) / aw.stride, o_lo, aw.out);
      std::fill(oidx.begin(), oidx.end(), 0);
      for (int64_t row = 0; row < leading; ++row) {
        int64_t base = 0;
        bool valid = true;
        for (size_t d = 0; d + 1 < nd; ++d) {
          const int64_t pos = oidx[d] * axes[d].stride - axes[d].pad_begin + kidx[d] * axes[d].dilation;
          valid = valid && pos >= 0 && pos < axes[d].in;
          base += pos * in_strides[d];
        }
        if (valid) {
          T* dst = xc + base;
          const T* srow = src + row * aw.out;
          for (int64_t o = o_lo; o < o_hi; ++o) dst[o * aw.stride + shift] += srow[o];
        }
        NextWindowIndex(oidx, nd - 1, axes, &WindowAxis::out);
      }
      NextWindowIndex(kidx, nd, axes, &WindowAxis::kernel);
    }
  }
}

}  // namespace onyx::ops::nn
