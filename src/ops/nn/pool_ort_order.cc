#include "ops/nn/pool_ort_order.h"

#include <algorithm>

#include "ops/common/parallel.h"

namespace onyx::ops::nn {
namespace {

constexpr int64_t kReductionBuffer = 2048;  // MLAS_POOL_REDUCTION_BUFFER_STACK
constexpr int64_t kReductionPadding = 3;    // MLAS_POOL_REDUCTION_BUFFER_PADDING

// The axes as MLAS sees them: depth, height, width, with unit leading axes for 1-D and 2-D.
struct Axes3 {
  WindowAxis d, h, w;
};

Axes3 Expand(const std::vector<WindowAxis>& axes) {
  WindowAxis unit;
  unit.in = unit.out = 1;
  Axes3 a{unit, unit, unit};
  if (axes.size() == 1) a.w = axes[0];
  if (axes.size() == 2) a.h = axes[0], a.w = axes[1];
  if (axes.size() == 3) a.d = axes[0], a.h = axes[1], a.w = axes[2];
  return a;
}

// [begin, end) of the input positions of output o along `a`, clipped to the input (MLAS's generic kernels).
void Clip(const WindowAxis& a, int64_t o, int64_t* begin, int64_t* end) {
  const int64_t start = o * a.stride - a.pad_begin;
  *begin = std::max<int64_t>(start, 0);
  *end = std::min<int64_t>(start + a.kernel, a.in);
}

// MlasPool{1,2,3}DKernel.
void GenericPlane(const Axes3& a, bool include_pad, const float* x, float* y) {
  const float kernel = static_cast<float>(a.d.kernel * a.h.kernel * a.w.kernel);
  for (int64_t od = 0; od < a.d.out; ++od) {
    int64_t d0, d1;
    Clip(a.d, od, &d0, &d1);
    for (int64_t oh = 0; oh < a.h.out; ++oh) {
      int64_t h0, h1;
      Clip(a.h, oh, &h0, &h1);
      for (int64_t ow = 0; ow < a.w.out; ++ow) {
        int64_t w0, w1;
        Clip(a.w, ow, &w0, &w1);
        float sum = 0.0f;
        for (int64_t d = d0; d < d1; ++d) {
          for (int64_t h = h0; h < h1; ++h) {
            const float* row = x + (d * a.h.in + h) * a.w.in;
            for (int64_t w = w0; w < w1; ++w) sum = sum + row[w];
          }
        }
        const int64_t count =
            std::max<int64_t>(d1 - d0, 0) * std::max<int64_t>(h1 - h0, 0) * std::max<int64_t>(w1 - w0, 0);
        *y++ = sum / (include_pad ? kernel : static_cast<float>(count));
      }
    }
  }
}

// MlasPool2DVectorKernel / MlasPool3DVectorKernel (three_d): per output row, the column sums of the window's rows
// (planes) in a buffer with zeros for the padding, then each output's window of column sums.
void VectorPlane(const Axes3& a, bool three_d, bool include_pad, const float* x, float* y, std::vector<float>& buf) {
  const int64_t width = a.w.in;
  const int64_t left = a.w.pad_begin;
  // Zeros past the padded width too: a ceil_mode window may reach there (MLAS reads its buffer's spare floats).
  const int64_t last_end = (a.w.out - 1) * a.w.stride + a.w.kernel;
  buf.assign(static_cast<size_t>(std::max(left + width + a.w.pad_end + kReductionPadding, last_end)), 0.0f);
  float* cols = buf.data() + left;
  const float kernel = static_cast<float>(a.d.kernel * a.h.kernel * a.w.kernel);
  for (int64_t od = 0; od < a.d.out; ++od) {
    int64_t d0 = 0, d1 = 1;
    if (three_d) Clip(a.d, od, &d0, &d1);
    for (int64_t oh = 0; oh < a.h.out; ++oh) {
      int64_t h0, h1;
      Clip(a.h, oh, &h0, &h1);
      // Row after row into the column sums (each column's additions in MLAS's order, the rows read contiguously:
      // the loop over a row vectorizes).
      if (three_d) {
        std::fill(cols, cols + width, 0.0f);
        for (int64_t d = d0; d < d1; ++d) {
          for (int64_t h = h0; h < h1; ++h) {
            const float* row = x + (d * a.h.in + h) * width;
            for (int64_t w = 0; w < width; ++w) cols[w] = cols[w] + row[w];
          }
        }
      } else if (h1 > h0) {
        std::copy(x + h0 * width, x + (h0 + 1) * width, cols);
        for (int64_t h = h0 + 1; h < h1; ++h) {
          const float* row = x + h * width;
          for (int64_t w = 0; w < width; ++w) cols[w] = cols[w] + row[w];
        }
      } else {  // a window of padding rows only (a pad as large as the kernel) sums nothing
        std::fill(cols, cols + width, 0.0f);
      }
      const float rows = static_cast<float>((d1 - d0) * (h1 - h0));
      for (int64_t ow = 0; ow < a.w.out; ++ow) {
        const int64_t start = ow * a.w.stride;  // in padded columns
        float sum = buf[static_cast<size_t>(start)];
        for (int64_t k = 1; k < a.w.kernel; ++k) sum = sum + buf[static_cast<size_t>(start + k)];
        float divisor = kernel;
        if (!include_pad) {
          const float lo = static_cast<float>(std::max(start, left));
          const float hi = static_cast<float>(std::min(start + a.w.kernel, left + width));
          divisor = std::max((hi - lo) * rows, 1.0f);
        }
        *y++ = sum / divisor;
      }
    }
  }
}

bool UsesVectorKernel(const std::vector<WindowAxis>& axes) {
  if (axes.size() < 2 || axes.back().stride > 2) return false;
  for (const WindowAxis& a : axes) {
    if (a.kernel > 32) return false;
  }
  int64_t remaining = kReductionBuffer - kReductionPadding;
  remaining = remaining >= axes.back().pad_begin ? remaining - axes.back().pad_begin : 0;
  remaining = remaining >= axes.back().pad_end ? remaining - axes.back().pad_end : 0;
  return remaining >= axes.back().in;
}

bool IsGlobal(const std::vector<WindowAxis>& axes) {
  for (const WindowAxis& a : axes) {
    if (a.kernel != a.in || a.stride != 1 || a.pad_begin != 0 || a.pad_end != 0) return false;
  }
  return true;
}

// AveragePool-19's loop (ONNX Runtime's pool_functors.h): windows clipped to the padded input, summed from 0.
void Opset19Plane(const std::vector<WindowAxis>& axes, bool include_pad, const float* x, float* y) {
  const size_t nd = axes.size();
  const Axes3 a = Expand(axes);
  const WindowAxis* ax[3] = {&a.d, &a.h, &a.w};
  int64_t endp[3] = {0, 0, 0};
  for (size_t i = 0; i < nd; ++i) endp[3 - nd + i] = axes[i].pad_end;
  for (int64_t od = 0; od < a.d.out; ++od) {
    for (int64_t oh = 0; oh < a.h.out; ++oh) {
      for (int64_t ow = 0; ow < a.w.out; ++ow) {
        const int64_t o[3] = {od, oh, ow};
        int64_t start[3], end[3];
        for (int i = 0; i < 3; ++i) {
          start[i] = o[i] * ax[i]->stride - ax[i]->pad_begin;
          end[i] = std::min(start[i] + ax[i]->kernel * ax[i]->dilation, ax[i]->in + endp[i]);
        }
        float sum = 0.0f;
        int64_t count = 0;
        for (int64_t d = start[0]; d < end[0]; d += a.d.dilation) {
          if (d < 0 || d >= a.d.in) continue;
          for (int64_t h = start[1]; h < end[1]; h += a.h.dilation) {
            if (h < 0 || h >= a.h.in) continue;
            for (int64_t w = start[2]; w < end[2]; w += a.w.dilation) {
              if (w < 0 || w >= a.w.in) continue;
              sum = sum + x[(d * a.h.in + h) * a.w.in + w];
              ++count;
            }
          }
        }
        if (count > 0) {
          if (include_pad) {
            int64_t taps = 1;
            for (int i = 0; i < 3; ++i) taps *= 1 + (end[i] - start[i] - 1) / ax[i]->dilation;
            sum = sum / static_cast<float>(taps);
          } else {
            sum = sum / static_cast<float>(count);
          }
        }
        *y++ = sum;
      }
    }
  }
}

}  // namespace

bool OrtAveragePoolAxesSupported(const std::vector<WindowAxis>& axes) { return !axes.empty() && axes.size() <= 3; }

float OrtGlobalAverage(const float* x, int64_t n) {
  float lanes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int l = 0; l < 4; ++l) lanes[l] = lanes[l] + x[i + l];
  }
  float sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
  for (; i < n; ++i) sum = sum + x[i];
  return sum / static_cast<float>(n);
}

void OrtAveragePool(const std::vector<WindowAxis>& axes, bool include_pad, bool own_loop, const float* x, float* y,
                    int64_t planes) {
  const int64_t in_size = InputSize(axes);
  const int64_t out_size = OutputSize(axes);
  bool dilated = false;
  for (const WindowAxis& a : axes) dilated |= a.dilation != 1;
  const Axes3 a = Expand(axes);
  ParallelFor(planes, std::max<int64_t>(out_size * KernelSize(axes), in_size), [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> buf;  // reused: no heap allocation per run
    for (int64_t p = lo; p < hi; ++p) {
      const float* src = x + p * in_size;
      float* dst = y + p * out_size;
      if (own_loop || dilated) {
        Opset19Plane(axes, include_pad, src, dst);
      } else if (IsGlobal(axes)) {
        dst[0] = OrtGlobalAverage(src, in_size);
      } else if (UsesVectorKernel(axes)) {
        VectorPlane(a, axes.size() == 3, include_pad, src, dst, buf);
      } else {
        GenericPlane(a, include_pad, src, dst);
      }
    }
  });
}

}  // namespace onyx::ops::nn
