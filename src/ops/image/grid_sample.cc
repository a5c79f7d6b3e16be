// GridSample (16, 20, 22): samples X (N, C, D1..Dr) at the normalized positions of grid (N, H1..Hr', r), whose
// last axis lists coordinates innermost-first (x, y, z...). Follows the ONNX reference (itself PyTorch's
// grid_sampler): out-of-range coordinates are first clamped (border) or reflected (reflection), then each tap
// reads zero (zeros), the clamped index (border) or the reflected index (reflection).
// Version 16 is 4-D only with modes bilinear/nearest/bicubic; from 20 any rank, modes linear/nearest/cubic.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/common/parallel.h"
#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

enum class SampleMode { kLinear, kNearest, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

// Reflects x into [lo, hi] by folding at the borders as often as needed (in double: no integer overflow for
// far-away coordinates).
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (!(range > 0)) return lo;  // a length-1 axis with align_corners: every coordinate folds onto it
  if (x < lo || x > hi) {
    const double dx = x < lo ? lo - x : x - hi;
    const double folds = std::floor(dx / range);
    const double r = dx - folds * range;
    const bool even = std::fmod(folds, 2.0) == 0;
    return (x < lo) == even ? lo + r : hi - r;
  }
  return x;
}

void CubicCoeffs(double t, double c[4]) {
  constexpr double a = -0.75;
  t = std::fabs(t);
  c[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  c[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
  c[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
}

class GridSampleKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    version_ = info.since_version();
    const std::string mode = info.GetString("mode", version_ >= 20 ? "linear" : "bilinear");
    if (mode == (version_ >= 20 ? "linear" : "bilinear")) {
      mode_ = SampleMode::kLinear;
    } else if (mode == "nearest") {
      mode_ = SampleMode::kNearest;
    } else if (mode == (version_ >= 20 ? "cubic" : "bicubic")) {
      mode_ = SampleMode::kCubic;
    } else {
      return info.Error("attribute 'mode' has unsupported value '" + mode + "'");
    }
    const std::string padding = info.GetString("padding_mode", "zeros");
    if (padding == "zeros") {
      padding_ = Padding::kZeros;
    } else if (padding == "border") {
      padding_ = Padding::kBorder;
    } else if (padding == "reflection") {
      padding_ = Padding::kReflection;
    } else {
      return info.Error("attribute 'padding_mode' has unsupported value '" + padding + "'");
    }
    align_corners_ = info.GetInt("align_corners", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* grid, ctx.TensorInput(1));
    const int64_t rank = x->rank();
    if (rank < 3 || (version_ < 20 && rank != 4)) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected " +
                             (version_ < 20 ? "(N, C, H, W)" : "(N, C, D1, ..., Dr)"));
    }
    const size_t r = static_cast<size_t>(rank - 2);
    if (grid->rank() != rank || grid->dim(0) != x->dim(0) || grid->dim(rank - 1) != static_cast<int64_t>(r)) {
      return InvalidArgument("input 'grid' (1) has shape " + ShapeToString(grid->shape()) + ", expected (" +
                             std::to_string(x->dim(0)) + ", ..., " + std::to_string(r) + ") for input 'X' " +
                             ShapeToString(x->shape()));
    }
    if (!IsFloatingPoint(grid->type())) return InvalidArgument("input 'grid' (1) must be a float tensor");
    if (mode_ != SampleMode::kNearest && !IsRealNumberType(x->type())) {
      return InvalidArgument("input 'X' (0) of type " + std::string(DataTypeName(x->type())) +
                             " can only be sampled with mode nearest");
    }
    const int64_t batch = x->dim(0), channels = x->dim(1);
    Shape out_shape = {batch, channels};
    for (size_t i = 0; i < r; ++i) out_shape.push_back(grid->dim(static_cast<int64_t>(i) + 1));
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    if (y.size() == 0) return Status::Ok();
    const int64_t out_spatial = ShapeProduct(out_shape, 2, out_shape.size());
    const int64_t in_spatial = ShapeProduct(x->shape(), 2, x->shape().size());
    // dims[i]: input length of spatial axis i (outermost first); strides likewise within one channel.
    std::vector<int64_t> dims(r), strides(r);
    for (size_t i = 0; i < r; ++i) dims[i] = x->dim(static_cast<int64_t>(i) + 2);
    for (size_t i = r; i-- > 0;) strides[i] = i + 1 == r ? 1 : strides[i + 1] * dims[i + 1];
    if (in_spatial == 0 && padding_ != Padding::kZeros) {
      return InvalidArgument("input 'X' (0) has an empty spatial axis: only padding_mode zeros can sample it");
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<double> g, ReadAsDoubles(*grid, "input 'grid' (1)"));

    // For each output position: per axis, the taps (index within the channel or -1 for a zero, weight).
    struct Tap {
      int64_t offset;  // -1: reads zero
      double weight;
    };
    const size_t ntaps = mode_ == SampleMode::kNearest ? 1 : mode_ == SampleMode::kLinear ? 2 : 4;
    std::vector<Tap> taps(r * ntaps);
    auto resolve = [&](int64_t i, size_t axis, double lo, double hi) -> int64_t {
      const int64_t d = dims[axis];
      switch (padding_) {
        case Padding::kZeros: return i >= 0 && i < d ? i : -1;
        case Padding::kBorder: return std::clamp<int64_t>(i, 0, d - 1);
        case Padding::kReflection:
          return std::clamp<int64_t>(static_cast<int64_t>(Reflect(static_cast<double>(i), lo, hi)), 0, d - 1);
      }
      return -1;
    };
    auto plan_taps = [&](const double* coords) {  // coords: grid values of one position, innermost axis first
      for (size_t axis = 0; axis < r; ++axis) {
        const double n = coords[r - 1 - axis];
        const double d = static_cast<double>(dims[axis]);
        double v = align_corners_ ? (n + 1) / 2 * (d - 1) : ((n + 1) * d - 1) / 2;
        const double lo = align_corners_ ? 0.0 : -0.5;
        const double hi = align_corners_ ? d - 1 : d - 0.5;
        if (mode_ == SampleMode::kNearest) {
          // Half to even, in every rank: the suite's volumetric cases expect it (PyTorch's 3-D kernel would round
          // half away from zero).
          v = std::nearbyint(v);
        }
        if (v < lo || v > hi) {
          if (padding_ == Padding::kBorder) v = std::clamp(v, 0.0, d - 1);
          if (padding_ == Padding::kReflection) v = Reflect(v, lo, hi);
        }
        Tap* t = &taps[axis * ntaps];
        if (std::isnan(v)) {  // a NaN coordinate reads zero
          for (size_t k = 0; k < ntaps; ++k) t[k] = {-1, 0.0};
          continue;
        }
        // Far outside (zeros padding) stays far outside; keeps the integer conversions below defined.
        v = std::clamp(v, -1.0e15, 1.0e15);
        if (mode_ == SampleMode::kNearest) {
          const int64_t i = resolve(static_cast<int64_t>(v), axis, lo, hi);
          t[0] = {i < 0 ? -1 : i * strides[axis], 1.0};
          continue;
        }
        const double f = std::floor(v);
        const int64_t i0 = static_cast<int64_t>(f);
        double c[4];
        int64_t first = i0;
        if (mode_ == SampleMode::kLinear) {
          c[0] = 1 - (v - f);
          c[1] = v - f;
        } else {
          CubicCoeffs(v - f, c);
          first = i0 - 1;
        }
        for (size_t k = 0; k < ntaps; ++k) {
          const int64_t i = resolve(first + static_cast<int64_t>(k), axis, lo, hi);
          t[k] = {i < 0 ? -1 : i * strides[axis], c[k]};
        }
      }
    };

    if (mode_ == SampleMode::kNearest) {
      std::vector<int64_t> src(static_cast<size_t>(y.size()));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t p = 0; p < out_spatial; ++p) {
          plan_taps(&g[static_cast<size_t>((b * out_spatial + p) * static_cast<int64_t>(r))]);
          int64_t off = 0;
          for (size_t axis = 0; axis < r && off >= 0; ++axis) {
            off = taps[axis].offset < 0 ? -1 : off + taps[axis].offset;
          }
          for (int64_t c = 0; c < channels; ++c) {
            src[static_cast<size_t>((b * channels + c) * out_spatial + p)] =
                off < 0 ? -1 : (b * channels + c) * in_spatial + off;
          }
        }
      }
      GatherElements(*x, src, y);
      return Status::Ok();
    }

    if (r == 2 && mode_ == SampleMode::kLinear && x->type() == DataType::kFloat) {
      // Bilinear on float planes: each position's four taps (offset, combined weight) planned once per batch entry,
      // then channel by channel (one plane in cache, the output written in order), channels over the threads. The
      // sums are the general path's below, in the same order: per row tap, its two column taps, then the rows;
      // taps outside (or of weight 0) are skipped, not multiplied.
      struct Bilinear {
        int64_t offset[4];  // -1: skipped
        double weight[4];
      };
      std::vector<Bilinear> plan(static_cast<size_t>(out_spatial));
      const float* in = x->data<float>();
      float* out = y.data<float>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t p = 0; p < out_spatial; ++p) {
          plan_taps(&g[static_cast<size_t>((b * out_spatial + p) * 2)]);
          Bilinear& q = plan[static_cast<size_t>(p)];
          for (size_t k0 = 0; k0 < 2; ++k0) {
            for (size_t k1 = 0; k1 < 2; ++k1) {
              const Tap& t0 = taps[k0];
              const Tap& t1 = taps[2 + k1];
              const bool skip = t0.offset < 0 || t0.weight == 0 || t1.offset < 0 || t1.weight == 0;
              q.offset[k0 * 2 + k1] = skip ? -1 : t0.offset + t1.offset;
              q.weight[k0 * 2 + k1] = 1.0 * t0.weight * t1.weight;
            }
          }
        }
        ParallelFor(channels, out_spatial * 4, [&](int64_t c0, int64_t c1) {
          for (int64_t c = c0; c < c1; ++c) {
            const float* channel = in + (b * channels + c) * in_spatial;
            float* o = out + (b * channels + c) * out_spatial;
            for (int64_t p = 0; p < out_spatial; ++p) {
              const Bilinear& q = plan[static_cast<size_t>(p)];
              double rows[2];
              for (int k0 = 0; k0 < 2; ++k0) {
                double sum = 0;
                for (int k1 = 0; k1 < 2; ++k1) {
                  const int64_t off = q.offset[k0 * 2 + k1];
                  if (off >= 0) sum += q.weight[k0 * 2 + k1] * static_cast<double>(channel[off]);
                }
                rows[k0] = sum;
              }
              o[p] = static_cast<float>(0.0 + rows[0] + rows[1]);
            }
          }
        });
      }
      return Status::Ok();
    }

    ONYX_ASSIGN_OR_RETURN(std::vector<double> in, ReadAsDoubles(*x, "input 'X' (0)"));
    std::vector<double> out(static_cast<size_t>(y.size()));
    auto accumulate = [&](auto&& self, size_t axis, const double* channel, int64_t offset, double w) -> double {
      if (axis == r) return w * channel[offset];
      double s = 0;
      for (size_t k = 0; k < ntaps; ++k) {
        const Tap& t = taps[axis * ntaps + k];
        if (t.offset < 0 || t.weight == 0) continue;
        s += self(self, axis + 1, channel, offset + t.offset, w * t.weight);
      }
      return s;
    };
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t p = 0; p < out_spatial; ++p) {
        plan_taps(&g[static_cast<size_t>((b * out_spatial + p) * static_cast<int64_t>(r))]);
        for (int64_t c = 0; c < channels; ++c) {
          const double* channel = in.data() + (b * channels + c) * in_spatial;
          out[static_cast<size_t>((b * channels + c) * out_spatial + p)] = accumulate(accumulate, 0, channel, 0, 1.0);
        }
      }
    }
    return WriteFromDoubles(out, y);
  }

 private:
  int version_ = 0;
  SampleMode mode_ = SampleMode::kLinear;
  Padding padding_ = Padding::kZeros;
  bool align_corners_ = false;
};

}  // namespace

void RegisterGridSampleOps(KernelRegistry& registry) {
  registry.Add("", "GridSample", 16, kLatestVersion, MakeFactory<GridSampleKernel>());
}

}  // namespace onyx::ops::image
