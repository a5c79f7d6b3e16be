#include "ops/nn/conv_transpose_ort_order.h"

#include <omp.h>

#include <algorithm>

#include "kernels/sgemm_ort_order.h"

namespace onyx::ops::nn {
namespace {

std::vector<float>& ColumnBuffer() {
  thread_local std::vector<float> cols;
  return cols;
}

// Col2im of one group for 2-D (1-D as one row): each output channel zeroed, then its column rows [taps, pixels]
// added in tap order, a row of X's pixels at a time. Each channel only receives its own rows, so channels can run on
// separate threads without changing any output's order.
void Col2Im2D(const std::vector<WindowAxis>& axes, const float* cols, int64_t channels, float* y, int threads) {
  WindowAxis unit;
  unit.in = unit.out = 1;
  const WindowAxis& ah = axes.size() == 2 ? axes[0] : unit;
  const WindowAxis& aw = axes.back();
  const int64_t y_size = ah.in * aw.in;  // Y's pixels per channel
  const int64_t x_size = ah.out * aw.out;
  const int64_t taps = ah.kernel * aw.kernel;
  auto channel = [&](int64_t c) {
    float* yc = y + c * y_size;
    std::fill(yc, yc + y_size, 0.0f);
    for (int64_t kh = 0; kh < ah.kernel; ++kh) {
      for (int64_t kw = 0; kw < aw.kernel; ++kw) {
        const float* row = cols + (c * taps + kh * aw.kernel + kw) * x_size;
        // X's columns whose Y column is inside Y: [lo, hi).
        const int64_t shift = kw * aw.dilation - aw.pad_begin;
        int64_t lo = shift >= 0 ? 0 : (-shift + aw.stride - 1) / aw.stride;
        int64_t hi = aw.in - shift <= 0 ? 0 : (aw.in - shift + aw.stride - 1) / aw.stride;
        lo = std::min(lo, aw.out);
        hi = std::clamp(hi, lo, aw.out);
        for (int64_t h = 0; h < ah.out; ++h) {
          const int64_t yh = h * ah.stride - ah.pad_begin + kh * ah.dilation;
          if (yh < 0 || yh >= ah.in) continue;
          float* dst = yc + yh * aw.in + shift;
          const float* src = row + h * aw.out;
          if (aw.stride == 1) {
            for (int64_t w = lo; w < hi; ++w) dst[w] += src[w];
          } else {
            for (int64_t w = lo; w < hi; ++w) dst[w * aw.stride] += src[w];
          }
        }
      }
    }
  };
  if (threads > 1 && channels > 1 && channels * taps * x_size >= (int64_t{1} << 15)) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < channels; ++c) channel(c);
  } else {
    for (int64_t c = 0; c < channels; ++c) channel(c);
  }
}

}  // namespace

bool OrtTransposesFilter(int64_t channels_per_group, int64_t kernel_dim) {
  return channels_per_group > 1 && kernel_dim > 1;
}

std::vector<float> TransposeFilterPerGroup(const float* w, int64_t group, int64_t channels_per_group,
                                           int64_t kernel_dim) {
  std::vector<float> t(static_cast<size_t>(group * channels_per_group * kernel_dim));
  for (int64_t grp = 0; grp < group; ++grp) {
    const float* src = w + grp * channels_per_group * kernel_dim;
    float* dst = t.data() + grp * channels_per_group * kernel_dim;
    for (int64_t c = 0; c < channels_per_group; ++c) {
      for (int64_t j = 0; j < kernel_dim; ++j) dst[j * channels_per_group + c] = src[c * kernel_dim + j];
    }
  }
  return t;
}

void RunConvTransposeOrtOrder(const ConvTransposeGeometry& g, const float* x, const float* w, const float* w_transposed,
                              const float* bias, float* y, int ort_threads) {
  const int64_t cg = g.in_channels / g.group;
  const int64_t mg = g.out_channels / g.group;
  const int64_t kernel_dim = mg * KernelSize(g.axes);
  const int64_t x_size = OutputSize(g.axes);  // X's pixels: the GEMM's N
  const int64_t y_size = InputSize(g.axes);
  if (g.batch == 0 || g.out_channels == 0 || y_size == 0) return;
  std::vector<float>& cols = ColumnBuffer();
  if (cols.size() < static_cast<size_t>(kernel_dim * x_size)) cols.resize(static_cast<size_t>(kernel_dim * x_size));
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  kernels::OrtSgemmOptions options;
  options.ort_threads = ort_threads;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const float* xg = x + (n * g.in_channels + grp * cg) * x_size;
      float* yg = y + (n * g.out_channels + grp * mg) * y_size;
      // math::Gemm(Trans or NoTrans, NoTrans, M = kernel_dim, N = X's pixels, K = C/g): ldb = ldc = N.
      if (w_transposed != nullptr) {
        kernels::SgemmOrtOrder(false, false, kernel_dim, x_size, cg, 1.0f, w_transposed + grp * cg * kernel_dim, cg, xg,
                               x_size, 0.0f, cols.data(), x_size, options);
      } else {
        kernels::SgemmOrtOrder(true, false, kernel_dim, x_size, cg, 1.0f, w + grp * cg * kernel_dim, kernel_dim, xg,
                               x_size, 0.0f, cols.data(), x_size, options);
      }
      if (g.axes.size() <= 2) {
        Col2Im2D(g.axes, cols.data(), mg, yg, threads);
      } else {
        std::fill(yg, yg + mg * y_size, 0.0f);
        Col2ImAdd(g.axes, cols.data(), mg, yg);
      }
    }
    if (bias != nullptr) {
      for (int64_t m = 0; m < g.out_channels; ++m) {
        const float b = bias[m];
        float* row = y + (n * g.out_channels + m) * y_size;
        for (int64_t i = 0; i < y_size; ++i) row[i] = row[i] + b;
      }
    }
  }
}

}  // namespace onyx::ops::nn
