#include "ops/nn/conv_ort_order.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/sgemm_ort_order.h"
#include "ops/nn/window.h"

namespace onyx::ops::nn {
namespace {

constexpr int64_t kThreadAlignN = 16;                // MLAS_SGEMM_STRIDEN_THREAD_ALIGN
constexpr double kThreadComplexity = 64.0 * 1024.0;  // MLAS_SGEMM_THREAD_COMPLEXITY
constexpr int64_t kMaxThreads = 16;                  // MLAS_MAXIMUM_THREAD_COUNT

enum class Algorithm { kGemmDirect, kExpandThenGemm, kSegmented, kMultiplier2x7x7 };

// MlasConvPrepare's choice for g (per image and group: fc filters of k = cg * kernel taps, `out` pixels).
struct Plan {
  Algorithm algorithm = Algorithm::kSegmented;
  bool trans_b = false;       // GemmDirect: the input read as B^T
  int64_t ldb = 0;            // GemmDirect: B's row stride within the input
  int64_t thread_stride = 0;  // Segmented, one image and group: output pixels per thread segment
};

Plan Prepare(const ConvGeometry& g, int dop) {
  const int64_t cg = g.in_channels / g.group;
  const int64_t fc = g.out_channels / g.group;
  const int64_t k = cg * KernelSize(g.axes);
  const int64_t out = OutputSize(g.axes);
  bool strides_one = true, dilations_one = true, padding_zero = true;
  for (const WindowAxis& a : g.axes) {
    strides_one &= a.stride == 1;
    dilations_one &= a.dilation == 1;
    padding_zero &= a.pad_begin == 0 && a.pad_end == 0;
  }
  Plan plan;
  if (strides_one && padding_zero) {
    if (k == cg) {
      plan.algorithm = Algorithm::kGemmDirect;
      plan.ldb = out;
      return plan;
    }
    if (g.axes.size() <= 2 && dilations_one && cg == 1) {  // 1-D runs as 2-D with one row
      const WindowAxis& w = g.axes.back();
      const int64_t in_h = g.axes.size() == 2 ? g.axes[0].in : 1;
      const int64_t kernel_h = g.axes.size() == 2 ? g.axes[0].kernel : 1;
      if (w.kernel == w.in) {
        plan.algorithm = Algorithm::kGemmDirect;
        plan.trans_b = true;
        plan.ldb = w.in;
        return plan;
      }
      if (kernel_h == in_h && w.kernel == 1) {
        plan.algorithm = Algorithm::kGemmDirect;
        plan.ldb = w.in;
        return plan;
      }
    }
  }
  if (fc > out) {
    plan.algorithm = Algorithm::kExpandThenGemm;
    return plan;
  }
  // MLAS's kernel for one exact shape (MobileCLIP's grouped projection): 2-D, one input channel and two filters
  // per group, 7x7, stride 2, pads 3, on its AVX-512F dispatch (a single output pixel takes the branch above).
  if (g.axes.size() == 2 && g.group > 1 && cg == 1 && fc == 2 &&
      kernels::OrtSgemmActivePath() == kernels::OrtSgemmPath::kAvx512) {
    bool exact = true;
    for (const WindowAxis& a : g.axes) {
      exact &= a.kernel == 7 && a.stride == 2 && a.dilation == 1 && a.pad_begin == 3 && a.pad_end == 3;
    }
    if (exact) {
      plan.algorithm = Algorithm::kMultiplier2x7x7;
      return plan;
    }
  }
  const double complexity = static_cast<double>(fc) * static_cast<double>(out) * static_cast<double>(k);
  int64_t threads = complexity < kThreadComplexity * kMaxThreads
                        ? static_cast<int64_t>(complexity / kThreadComplexity) + 1
                        : kMaxThreads;
  threads = std::min<int64_t>(threads, std::max(dop, 1));
  int64_t stride = out / threads;
  if (stride * threads != out) ++stride;
  if (threads > 1) {
    stride = (stride + kThreadAlignN - 1) / kThreadAlignN * kThreadAlignN;
    if (stride >= out) {
      threads = 1;
    } else if (stride * (threads - 1) >= out) {
      --threads;
    }
  }
  plan.thread_stride = stride;
  return plan;
}

// The patch matrix [cg * kernel, out] of one image and group, as Im2Col builds it, for 2-D windows (1-D as one row)
// without its per-element callback: rows copied in runs, channels split over threads when `threads` > 1.
void Im2Col2D(const std::vector<WindowAxis>& axes, const float* x, int64_t channels, float* cols, int threads) {
  const WindowAxis one;  // in = 1, kernel = 1, out = 1
  WindowAxis unit = one;
  unit.in = unit.out = 1;
  const WindowAxis& ah = axes.size() == 2 ? axes[0] : unit;
  const WindowAxis& aw = axes.back();
  const int64_t in_size = ah.in * aw.in;
  const int64_t out = ah.out * aw.out;
  const int64_t taps = ah.kernel * aw.kernel;
  auto channel = [&](int64_t c) {
    const float* xc = x + c * in_size;
    for (int64_t kh = 0; kh < ah.kernel; ++kh) {
      for (int64_t kw = 0; kw < aw.kernel; ++kw) {
        float* row = cols + (c * taps + kh * aw.kernel + kw) * out;
        // Output columns whose input column is inside the image: [lo, hi).
        const int64_t shift = kw * aw.dilation - aw.pad_begin;
        int64_t lo = shift >= 0 ? 0 : (-shift + aw.stride - 1) / aw.stride;
        int64_t hi = aw.in - shift <= 0 ? 0 : (aw.in - shift + aw.stride - 1) / aw.stride;
        lo = std::min(lo, aw.out);
        hi = std::clamp(hi, lo, aw.out);
        for (int64_t oh = 0; oh < ah.out; ++oh) {
          float* dst = row + oh * aw.out;
          const int64_t ih = oh * ah.stride - ah.pad_begin + kh * ah.dilation;
          if (ih < 0 || ih >= ah.in) {
            std::fill(dst, dst + aw.out, 0.0f);
            continue;
          }
          const float* src = xc + ih * aw.in + shift;
          std::fill(dst, dst + lo, 0.0f);
          if (aw.stride == 1) {
            std::copy(src + lo, src + hi, dst + lo);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * aw.stride];
          }
          std::fill(dst + hi, dst + aw.out, 0.0f);
        }
      }
    }
  };
  if (threads > 1 && channels > 1 && channels * taps * out >= (int64_t{1} << 16)) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < channels; ++c) channel(c);
  } else {
    for (int64_t c = 0; c < channels; ++c) channel(c);
  }
}

// MlasConvDepthwiseMultiplier2CHWKernel7x7S2Avx512F for one image and group: x one channel, w two 7x7 filters,
// y two output planes. Outputs whose window lies inside the image: per kernel column a lane summing its 7 rows with
// FMA from 0, then _mm512_reduce_add_ps over the 16 lanes (7..15 zero) as GCC's tree adds them. Border outputs: one
// scalar sum over the taps inside the image, row by row (`acc += x * w`, which ONNX Runtime's build compiles to an
// FMA: measured, the unfused form differs from its outputs).
// Taken only on AVX-512 CPUs (Prepare), so the FMA instructions are there: std::fma then compiles to one instruction
// instead of a library call.
__attribute__((target("avx2,fma"))) void Multiplier2x7x7(const std::vector<WindowAxis>& axes, const float* x,
                                                         const float* w, float* y) {
  const WindowAxis& ah = axes[0];
  const WindowAxis& aw = axes[1];
  const int64_t out = ah.out * aw.out;
  for (int64_t oh = 0; oh < ah.out; ++oh) {
    const int64_t iy = oh * 2 - 3;
    const bool inside_y = iy >= 0 && iy + 7 <= ah.in;
    for (int64_t ow = 0; ow < aw.out; ++ow) {
      const int64_t ix = ow * 2 - 3;
      const bool inside = inside_y && ix >= 0 && ix + 7 <= aw.in;
      for (int64_t f = 0; f < 2; ++f) {
        const float* wf = w + f * 49;
        float result;
        if (inside) {
          float lane[8] = {};
          for (int64_t kh = 0; kh < 7; ++kh) {
            const float* row = x + (iy + kh) * aw.in + ix;
            for (int64_t kw = 0; kw < 7; ++kw) lane[kw] = std::fma(row[kw], wf[kh * 7 + kw], lane[kw]);
          }
          // Upper 256 bits (zeros) + lower, then upper 128 + lower, then lanes {0,1} + {2,3}, then 0 + 1.
          float t[8];
          for (int i = 0; i < 8; ++i) t[i] = 0.0f + lane[i];
          const float u0 = t[4] + t[0], u1 = t[5] + t[1], u2 = t[6] + t[2], u3 = t[7] + t[3];
          result = (u0 + u2) + (u1 + u3);
        } else {
          float acc = 0.0f;
          for (int64_t kh = 0; kh < 7; ++kh) {
            const int64_t ih = iy + kh;
            if (ih < 0 || ih >= ah.in) continue;
            for (int64_t kw = 0; kw < 7; ++kw) {
              const int64_t iw = ix + kw;
              if (iw < 0 || iw >= aw.in) continue;
              acc = std::fma(x[ih * aw.in + iw], wf[kh * 7 + kw], acc);
            }
          }
          result = acc;
        }
        y[f * out + oh * aw.out + ow] = result;
      }
    }
  }
}

std::vector<float>& ColumnBuffer() {
  thread_local std::vector<float> cols;
  return cols;
}

// MlasConvOperation over output pixels [s, s + count) of one image and group, given its patch matrix
// cols [k, out]: K blocks of the segment's StrideK, each one MlasSgemmOperation (beta 0 for the first, 1 after).
void SegmentProduct(const float* w, const float* cols, float* y, int64_t fc, int64_t k, int64_t out, int64_t s,
                    int64_t count) {
  const int64_t stride_k = kernels::OrtSgemmStrideK(count, k, false);
  if (fc == 1 || out == 1) {
    // MLAS's M1 kernels (one filter; or one output pixel, where MlasSgemmOperation swaps A and B): per K block.
    for (int64_t k0 = 0; k0 < k; k0 += stride_k) {
      const int64_t kc = std::min(stride_k, k - k0);
      kernels::SgemmOrtOperation(false, false, fc, count, kc, 1.0f, w + k0, k, cols + k0 * out + s, out,
                                 k0 == 0 ? 0.0f : 1.0f, y + s, out);
    }
    return;
  }
  kernels::SgemmOrtBlocks(false, false, fc, count, k, 1.0f, w, k, cols + s, out, 0.0f, y + s, out, stride_k);
}

}  // namespace

bool OrtConvApplies(const ConvGeometry& g) { return !g.axes.empty() && g.axes.size() <= 3; }

void RunConvOrtOrder(const ConvGeometry& g, const float* x, const float* w, const float* bias, float* y,
                     int ort_threads) {
  const int64_t cg = g.in_channels / g.group;
  const int64_t fc = g.out_channels / g.group;
  const int64_t k = cg * KernelSize(g.axes);
  const int64_t in_size = InputSize(g.axes);
  const int64_t out = OutputSize(g.axes);
  const int64_t images = g.batch * g.group;
  if (images == 0 || out == 0 || fc == 0) return;
  const Plan plan = Prepare(g, ort_threads);
  // MlasConv runs several images or groups as separate whole-image products (one thread each in ONNX Runtime);
  // one image and group goes through MlasGemm's or the segments' split.
  const bool single = images == 1;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();

  auto one_image = [&](int64_t bg) {
    const int64_t group = bg % g.group;
    const float* xg = x + bg * cg * in_size;
    const float* wg = w + group * fc * k;
    float* yg = y + bg * fc * out;
    if (plan.algorithm == Algorithm::kMultiplier2x7x7) {
      Multiplier2x7x7(g.axes, xg, wg, yg);
    } else if (plan.algorithm == Algorithm::kGemmDirect) {
      if (single) {
        kernels::OrtSgemmOptions options;
        options.ort_threads = ort_threads;
        kernels::SgemmOrtOrder(false, plan.trans_b, fc, out, k, 1.0f, wg, k, xg, plan.ldb, 0.0f, yg, out, options);
      } else {
        kernels::SgemmOrtOperation(false, plan.trans_b, fc, out, k, 1.0f, wg, k, xg, plan.ldb, 0.0f, yg, out);
      }
    } else {
      std::vector<float>& cols = ColumnBuffer();
      if (cols.size() < static_cast<size_t>(k * out)) cols.resize(static_cast<size_t>(k * out));
      if (g.axes.size() <= 2) {
        Im2Col2D(g.axes, xg, cg, cols.data(), single ? threads : 1);
      } else {
        Im2Col(g.axes, xg, cg, cols.data());
      }
      if (plan.algorithm == Algorithm::kExpandThenGemm) {
        kernels::OrtSgemmOptions options;
        options.ort_threads = ort_threads;
        kernels::SgemmOrtOrder(false, false, fc, out, k, 1.0f, wg, k, cols.data(), out, 0.0f, yg, out, options);
      } else if (single && plan.thread_stride < out) {
        // Segments summing in the same K blocks (all wider than 64 pixels, say) run as one product: the same bits
        // with one parallel region.
        const int64_t first_k = kernels::OrtSgemmStrideK(plan.thread_stride, k, false);
        const int64_t last = out - (out - 1) / plan.thread_stride * plan.thread_stride;
        if (fc > 1 && out > 1 && kernels::OrtSgemmStrideK(last, k, false) == first_k) {
          kernels::SgemmOrtBlocks(false, false, fc, out, k, 1.0f, wg, k, cols.data(), out, 0.0f, yg, out, first_k);
        } else {
          for (int64_t s = 0; s < out; s += plan.thread_stride) {
            SegmentProduct(wg, cols.data(), yg, fc, k, out, s, std::min(plan.thread_stride, out - s));
          }
        }
      } else {
        SegmentProduct(wg, cols.data(), yg, fc, k, out, 0, out);
      }
    }
    if (bias != nullptr) {
      for (int64_t m = 0; m < fc; ++m) {
        const float b = bias[group * fc + m];
        float* row = yg + m * out;
        for (int64_t i = 0; i < out; ++i) row[i] = row[i] + b;
      }
    }
  };

  if (images > 1 && threads > 1 && fc * out * k * images >= (int64_t{1} << 16)) {
#pragma omp parallel for schedule(static) num_threads(static_cast <int>(std::min <int64_t>(threads, images)))
    for (int64_t bg = 0; bg < images; ++bg) one_image(bg);
  } else {
    for (int64_t bg = 0; bg < images; ++bg) one_image(bg);
  }
}

}  // namespace onyx::ops::nn
