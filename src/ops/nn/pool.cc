// MaxPool (with the optional Indices output), AveragePool and LpPool over 1-D..N-D windows, and their Global*
// forms that pool each channel's whole spatial extent.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/pool_ort_order.h"
#include "ops/nn/window.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

using MaxPoolTypes = TypeList<float, double, Float16, BFloat16, int8_t, uint8_t>;

// Per spatial axis and output coordinate: the input positions a window covers inside the input, and how many of
// its taps fall inside the padded input (what AveragePool divides by when count_include_pad is set).
struct AxisTaps {
  std::vector<std::vector<int64_t>> valid;
  std::vector<int64_t> padded_count;
};

// max(a, b) where a NaN in either gives NaN (as numpy's maximum, ONNX's reference).
inline float NanMax(float a, float b) { return (b > a || b != b) ? b : a; }

std::vector<AxisTaps> BuildTaps(const std::vector<WindowAxis>& axes) {
  std::vector<AxisTaps> taps(axes.size());
  for (size_t d = 0; d < axes.size(); ++d) {
    const WindowAxis& a = axes[d];
    taps[d].valid.resize(static_cast<size_t>(a.out));
    taps[d].padded_count.resize(static_cast<size_t>(a.out));
    for (int64_t o = 0; o < a.out; ++o) {
      int64_t padded = 0;
      for (int64_t j = 0; j < a.kernel; ++j) {
        const int64_t pos = o * a.stride - a.pad_begin + j * a.dilation;
        if (pos >= 0 && pos < a.in) taps[d].valid[static_cast<size_t>(o)].push_back(pos);
        if (pos >= -a.pad_begin && pos < a.in + a.pad_end) ++padded;
      }
      taps[d].padded_count[static_cast<size_t>(o)] = padded;
    }
  }
  return taps;
}

// Max pooling of one plane [in_0, ..., in_{d-1}] into [out_0, ..., out_{d-1}] axis by axis, as max is separable: the
// last axis first, row by row (the columns whose whole window lies inside the row tap by tap, vectorized where the
// stride is 1; the border columns over their valid taps), then each earlier axis over contiguous runs of the axes
// already reduced after it. Padding is skipped (max over the valid taps); NaN propagates. Intermediates in the
// thread's scratch: no allocation per run once a shape has run.
void SeparableMaxPool(const float* src, float* dst, const std::vector<WindowAxis>& axes,
                      const std::vector<AxisTaps>& taps) {
  thread_local std::vector<float> ping, pong;
  const size_t d = axes.size();
  // Pass 1: the last axis, into dst when it is the only one.
  const WindowAxis& aw = axes[d - 1];
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < d; ++k) rows *= axes[k].in;
  float* first = dst;
  if (d > 1) {
    ping.resize(static_cast<size_t>(rows * aw.out));
    first = ping.data();
  }
  const IndexRange whole = WholeWindowOutputs(aw);
  const int64_t ow_lo = whole.first, ow_hi = whole.last;
  const float* src_end = src + rows * aw.in;  // the plane's end: the rows before it may be read past their end
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = src + r * aw.in;
    float* m = first + r * aw.out;
    std::fill(m, m + aw.out, std::numeric_limits<float>::lowest());
    for (int64_t ow = 0; ow < aw.out; ++ow) {
      if (ow == ow_lo) ow = ow_hi;  // the inside columns below, tap by tap
      if (ow >= aw.out) break;
      for (int64_t w : taps[d - 1].valid[static_cast<size_t>(ow)]) m[ow] = NanMax(m[ow], row[w]);
    }
    if (aw.stride == 2 && aw.dilation == 1) {  // the usual downsampling: the taps' even lanes, vectorized
      const float* from = row + 2 * ow_lo - aw.pad_begin;
      kernels::NanMaxTapsStride2(m + ow_lo, from, ow_hi - ow_lo, aw.kernel, src_end - from);
      continue;
    }
    for (int64_t t = 0; t < aw.kernel; ++t) {
      const float* from = row + t * aw.dilation - aw.pad_begin;
      if (aw.stride == 1) {
#pragma omp simd
        for (int64_t ow = ow_lo; ow < ow_hi; ++ow) m[ow] = NanMax(m[ow], from[ow]);
      } else {
        for (int64_t ow = ow_lo; ow < ow_hi; ++ow) m[ow] = NanMax(m[ow], from[ow * aw.stride]);
      }
    }
  }
  // The earlier axes, last to first: [outer, in_k, inner] -> [outer, out_k, inner], inner the axes reduced so far.
  const float* cur = first;
  int64_t inner = aw.out;
  for (size_t k = d - 1; k-- > 0;) {
    const WindowAxis& a = axes[k];
    int64_t outer = 1;
    for (size_t j = 0; j < k; ++j) outer *= axes[j].in;
    float* next = dst;
    if (k > 0) {
      std::vector<float>& buffer = cur == ping.data() ? pong : ping;
      buffer.resize(static_cast<size_t>(outer * a.out * inner));
      next = buffer.data();
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t ok = 0; ok < a.out; ++ok) {
        float* out = next + (o * a.out + ok) * inner;
        std::fill(out, out + inner, std::numeric_limits<float>::lowest());
        for (int64_t i : taps[k].valid[static_cast<size_t>(ok)])
          kernels::NanMaxInto(out, cur + (o * a.in + i) * inner, inner);
      }
    }
    cur = next;
    inner *= a.out;
  }
}

// Calls f(out_linear, window) for every output position of one plane, where window(g) calls g(in_offset, pos)
// for each input element in the window (pos: per-axis positions) and window.padded_count is the padded tap count.
template <typename F>
void ForEachWindow(const std::vector<WindowAxis>& axes, const std::vector<AxisTaps>& taps, F&& f) {
  const size_t nd = axes.size();
  std::vector<int64_t> in_strides(nd, 1);
  for (size_t d = nd; d-- > 1;) in_strides[d - 1] = in_strides[d] * axes[d].in;
  std::vector<int64_t> oidx(nd, 0);
  std::vector<size_t> tidx(nd, 0);
  std::vector<int64_t> pos(nd, 0);
  const int64_t total = OutputSize(axes);
  for (int64_t o = 0; o < total; ++o) {
    int64_t padded = 1;
    bool empty = false;
    for (size_t d = 0; d < nd; ++d) {
      padded *= taps[d].padded_count[static_cast<size_t>(oidx[d])];
      if (taps[d].valid[static_cast<size_t>(oidx[d])].empty()) empty = true;
    }
    auto visit = [&](auto&& g) {
      if (empty) return;
      std::fill(tidx.begin(), tidx.end(), 0);
      while (true) {
        int64_t off = 0;
        for (size_t d = 0; d < nd; ++d) {
          pos[d] = taps[d].valid[static_cast<size_t>(oidx[d])][tidx[d]];
          off += pos[d] * in_strides[d];
        }
        g(off, pos);
        size_t d = nd;
        while (d > 0) {
          --d;
          if (++tidx[d] < taps[d].valid[static_cast<size_t>(oidx[d])].size()) break;
          tidx[d] = 0;
          if (d == 0) return;
        }
      }
    };
    f(o, visit, padded);
    for (size_t d = nd; d-- > 0;) {
      if (++oidx[d] < axes[d].out) break;
      oidx[d] = 0;
    }
  }
}

// Float average pooling in ONNX Runtime's summation order (its MLAS pooling kernels, pool_ort_order.h) even without
// KernelInfo::ort_summation_order, so that a quantize step after the pool rounds the same value: a 1-ulp difference
// in the average flips a later quantization.
//
// Whether a float AveragePool of 1 to 3 spatial axes takes that order always: no dilation, no window that reaches
// past the padded input (ceil_mode), and every window overlapping the input. 2-D only until session 30: a 3-D one
// then ran window by window in double, 10-29x ONNX Runtime's time (2x2x2 over 32 x 32 x 64 x 64: 26.7 ms against
// 2.5; this order 4.5).
bool OrtAveragePoolApplies(const std::vector<WindowAxis>& axes) {
  if (axes.empty() || axes.size() > 3) return false;
  for (const WindowAxis& a : axes) {
    if (a.dilation != 1 || a.in <= 0 || a.out <= 0 || a.pad_begin >= a.kernel || a.pad_end >= a.kernel) return false;
    if ((a.out - 1) * a.stride + a.kernel > a.in + a.pad_begin + a.pad_end) return false;
  }
  return true;
}

class PoolKernel : public OpKernel {
 public:
  explicit PoolKernel(PoolKind kind) : kind_(kind) {}

  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, true));
    count_include_pad_ = info.GetInt("count_include_pad", 0) != 0;
    storage_order_ = info.GetInt("storage_order", 0);
    if (storage_order_ != 0 && storage_order_ != 1) {
      return info.Error("attribute 'storage_order' must be 0 or 1, got " + std::to_string(storage_order_));
    }
    if (kind_ == PoolKind::kLp) {
      p_ = info.since_version() == 1 ? info.GetFloat("p", 2.0f) : static_cast<double>(info.GetInt("p", 2));
      if (!(p_ > 0)) return info.Error("attribute 'p' must be positive");
    }
    // ONNX Runtime runs AveragePool-7..11 through MLAS's pooling kernels, AveragePool-19 (dilations) through its
    // own loop that sums every window row by row.
    mlas_order_ = info.since_version() < 19;
    ort_order_ = info.ort_summation_order();
    want_indices_ = kind_ == PoolKind::kMax && info.num_outputs() > 1 && !info.node().outputs[1].empty();
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const Shape& xs = x->shape();
    if (xs.size() < 3) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(xs) + ", expected [N, C, D1, ...]");
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<WindowAxis> axes, ResolveWindow(attrs_, Shape(xs.begin() + 2, xs.end()), {}));
    Shape out_shape = {xs[0], xs[1]};
    for (const auto& a : axes) out_shape.push_back(a.out);
    const std::vector<AxisTaps> taps = BuildTaps(axes);
    const int64_t planes = xs[0] * xs[1];
    const int64_t in_size = InputSize(axes);
    const int64_t out_size = OutputSize(axes);
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    int64_t* indices = nullptr;
    if (want_indices_) indices = ctx.AllocateOutput(1, DataType::kInt64, out_shape).data<int64_t>();
    // Column-major strides for storage_order = 1 indices.
    std::vector<int64_t> col_strides(axes.size(), 1);
    for (size_t d = 1; d < axes.size(); ++d) col_strides[d] = col_strides[d - 1] * axes[d - 1].in;

    if (kind_ == PoolKind::kMax && x->type() == DataType::kFloat && indices == nullptr) {
      // Float without Indices, any number of spatial axes: separably (SeparableMaxPool). An ONNX Runtime-like 0.05 ms
      // for M-LSD's 3x3 pooling of 160 x 160 where the window-by-window loop took 0.56; a 3-D U-Net's 2x2x2 pooling
      // of 32 channels of 32 x 64 x 64 took 33 ms window by window, 3.9 so (ONNX Runtime 2.0).
      const float* in = x->data<float>();
      float* out = y.data<float>();
      ParallelFor(planes, out_size * 8 + in_size, [&](int64_t lo, int64_t hi) {
        for (int64_t pl = lo; pl < hi; ++pl) SeparableMaxPool(in + pl * in_size, out + pl * out_size, axes, taps);
      });
      return Status::Ok();
    }
    if (kind_ == PoolKind::kAverage && x->type() == DataType::kFloat && ort_order_ &&
        OrtAveragePoolAxesSupported(axes)) {
      // Every 1-D to 3-D case in ONNX Runtime's order (pool_ort_order.h), ceil_mode and dilations included.
      OrtAveragePool(axes, count_include_pad_, !mlas_order_ || (attrs_.ceil_mode && count_include_pad_),
                     x->data<float>(), y.data<float>(), planes);
      return Status::Ok();
    }
    if (kind_ == PoolKind::kAverage && x->type() == DataType::kFloat && OrtAveragePoolApplies(axes)) {
      // Always on for these 2-D windows: MLAS's kernels (AveragePool-7..11) or ONNX Runtime's own loop (19); unlike
      // the full order above, ceil_mode with count_include_pad keeps MLAS's kernels here.
      OrtAveragePool(axes, count_include_pad_, !mlas_order_, x->data<float>(), y.data<float>(), planes);
      return Status::Ok();
    }
    if (kind_ == PoolKind::kMax) {
      return Dispatch<MaxPoolTypes>(x->type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using CT = ComputeType<T>;
        const T* in = x->data<T>();
        T* out = y.data<T>();
        for (int64_t pl = 0; pl < planes; ++pl) {
          const T* src = in + pl * in_size;
          ForEachWindow(axes, taps, [&](int64_t o, auto&& window, int64_t) {
            CT best = std::numeric_limits<CT>::lowest();
            int64_t best_off = -1;
            int64_t best_col = -1;
            window([&](int64_t off, const std::vector<int64_t>& pos) {
              const CT v = static_cast<CT>(src[off]);
              // NaN propagates (its first position is the index), as in ONNX's reference (numpy's max).
              if (best_off < 0 || v > best || (v != v && best == best)) {
                best = v;
                best_off = off;
                if (storage_order_ == 1) {
                  best_col = 0;
                  for (size_t d = 0; d < pos.size(); ++d) best_col += pos[d] * col_strides[d];
                }
              }
            });
            out[pl * out_size + o] = static_cast<T>(best);
            if (indices != nullptr) {
              const int64_t local = storage_order_ == 1 ? best_col : best_off;
              indices[pl * out_size + o] = local < 0 ? -1 : pl * in_size + local;
            }
          });
        }
        return Status::Ok();
      });
    }
    // The window-by-window loop, planes over the threads; LpPool's usual p = 2 (and 1) without pow per element.
    const bool p1 = p_ == 1.0, p2 = p_ == 2.0;
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      ParallelFor(planes, out_size * 8 + in_size, [&](int64_t plane_lo, int64_t plane_hi) {
        for (int64_t pl = plane_lo; pl < plane_hi; ++pl) {
          const T* src = in + pl * in_size;
          ForEachWindow(axes, taps, [&](int64_t o, auto&& window, int64_t padded) {
            double acc = 0;
            int64_t count = 0;
            if (kind_ == PoolKind::kAverage) {
              window([&](int64_t off, const std::vector<int64_t>&) {
                acc += static_cast<double>(static_cast<ComputeType<T>>(src[off]));
                ++count;
              });
              const double divisor = static_cast<double>(count_include_pad_ ? padded : count);
              out[pl * out_size + o] = FromDouble<T>(acc / divisor);
            } else {
              window([&](int64_t off, const std::vector<int64_t>&) {
                const double v = std::fabs(static_cast<double>(static_cast<ComputeType<T>>(src[off])));
                acc += p2 ? v * v : (p1 ? v : std::pow(v, p_));
              });
              out[pl * out_size + o] = FromDouble<T>(p2 ? std::sqrt(acc) : (p1 ? acc : std::pow(acc, 1.0 / p_)));
            }
          });
        }
      });
      return Status::Ok();
    });
  }

 private:
  PoolKind kind_;
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
  int64_t storage_order_ = 0;
  double p_ = 2.0;
  bool want_indices_ = false;
  bool mlas_order_ = true;
  bool ort_order_ = false;  // KernelInfo::ort_summation_order
};

template <PoolKind kKind>
Result<std::unique_ptr<OpKernel>> MakePool(const KernelInfo& info) {
  auto k = std::make_unique<PoolKernel>(kKind);
  ONYX_RETURN_IF_ERROR(k->Init(info));
  return std::unique_ptr<OpKernel>(std::move(k));
}

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, D1, ...] -> [N, C, 1, ...].
class GlobalPoolKernel : public OpKernel {
 public:
  explicit GlobalPoolKernel(PoolKind kind) : kind_(kind) {}

  Status Init(const KernelInfo& info) override {
    if (kind_ == PoolKind::kLp) {
      p_ = info.since_version() == 1 ? info.GetFloat("p", 2.0f) : static_cast<double>(info.GetInt("p", 2));
      if (!(p_ > 0)) return info.Error("attribute 'p' must be positive");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const Shape& xs = x->shape();
    if (xs.size() < 3) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(xs) + ", expected [N, C, D1, ...]");
    }
    Shape out_shape = xs;
    for (size_t d = 2; d < out_shape.size(); ++d) out_shape[d] = 1;
    const int64_t planes = xs[0] * xs[1];
    const int64_t in_size = ShapeProduct(xs, 2, xs.size());
    if (in_size == 0 && planes > 0 && kind_ == PoolKind::kMax) {
      return InvalidArgument("input 'X' (0) with shape " + ShapeToString(xs) + " has empty spatial dims");
    }
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    if (kind_ != PoolKind::kLp && x->type() == DataType::kFloat && in_size > 0) {
      const float* in = x->data<float>();
      float* out = y.data<float>();
      const bool average = kind_ == PoolKind::kAverage;
      ParallelFor(planes, in_size, [&](int64_t lo, int64_t hi) {
        for (int64_t pl = lo; pl < hi; ++pl) {
          // The maximum exactly as the loop below (NaN propagates), through vector_math's row reduction.
          out[pl] = average ? OrtGlobalAverage(in + pl * in_size, in_size)
                            : kernels::ReduceRowMax(in + pl * in_size, in_size);
        }
      });
      return Status::Ok();
    }
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      for (int64_t pl = 0; pl < planes; ++pl) {
        const T* src = in + pl * in_size;
        double acc = kind_ == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t i = 0; i < in_size; ++i) {
          const double v = static_cast<double>(static_cast<ComputeType<T>>(src[i]));
          switch (kind_) {
            case PoolKind::kMax:
              if (std::isnan(v) || v > acc) acc = v;  // NaN propagates
              break;
            case PoolKind::kAverage:
              acc += v;
              break;
            case PoolKind::kLp:
              acc += std::pow(std::fabs(v), p_);
              break;
          }
        }
        if (kind_ == PoolKind::kAverage) acc /= static_cast<double>(in_size);
        if (kind_ == PoolKind::kLp) acc = std::pow(acc, 1.0 / p_);
        out[pl] = FromDouble<T>(acc);
      }
      return Status::Ok();
    });
  }

 private:
  PoolKind kind_;
  double p_ = 2.0;
};

template <PoolKind kKind>
Result<std::unique_ptr<OpKernel>> MakeGlobalPool(const KernelInfo& info) {
  auto k = std::make_unique<GlobalPoolKernel>(kKind);
  ONYX_RETURN_IF_ERROR(k->Init(info));
  return std::unique_ptr<OpKernel>(std::move(k));
}

}  // namespace

void RegisterPoolOps(KernelRegistry& registry) {
  registry.Add("", "MaxPool", 1, kLatestVersion, MakePool<PoolKind::kMax>);
  registry.Add("", "AveragePool", 1, kLatestVersion, MakePool<PoolKind::kAverage>);
  registry.Add("", "LpPool", 1, kLatestVersion, MakePool<PoolKind::kLp>);
  registry.Add("", "GlobalMaxPool", 1, kLatestVersion, MakeGlobalPool<PoolKind::kMax>);
  registry.Add("", "GlobalAveragePool", 1, kLatestVersion, MakeGlobalPool<PoolKind::kAverage>);
  registry.Add("", "GlobalLpPool", 1, kLatestVersion, MakeGlobalPool<PoolKind::kLp>);
}

}  // namespace onyx::ops::nn
