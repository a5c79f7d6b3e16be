// Resize (10, 11, 13, 18, 19) and its deprecated predecessor Upsample (1, 7, 9, 10).
//
// Every output element is a weighted sum of input elements, separable over the axes: for each axis and output
// index we compute the input coordinate (coordinate_transformation_mode), then the taps (input index, weight) of
// the interpolation mode. Tap positions outside the input repeat the edge element, as the ONNX reference's edge
// padding does; exclude_outside instead drops them and renormalizes. Nearest mode only moves elements, so it
// works for every element type; linear and cubic compute in double.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/nchwc_ops.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
// kSimple: Resize-10 and Upsample, which truncate the coordinate when upsampling and round it up when
// downsampling (their documented examples depend on it).
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };
enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

struct Tap {
  int64_t index;
  double weight;
};

struct AxisPlan {
  std::vector<std::vector<Tap>> taps;  // per output index
  std::vector<bool> outside;           // per output index: tf_crop_and_resize extrapolates
};

struct ResizeParams {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation_value = 0;
};

double CubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// The input coordinate of output index x along one axis. `out_len` is the real-valued output length
// (scale * input length), which the reference uses even when the integer output length differs.
double SourceCoordinate(Coord coord, double x, double scale, int64_t in_len, int64_t out_int, double roi_start,
                        double roi_end, bool* outside) {
  const double out_len = scale * static_cast<double>(in_len);
  const double in_d = static_cast<double>(in_len);
  switch (coord) {
    case Coord::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    case Coord::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out_int) / out_len;
      const double offset = in_d / 2 * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case Coord::kPytorchHalfPixel:
      return out_int > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case Coord::kAlignCorners:
      return out_len == 1 ? 0.0 : x * (in_d - 1) / (out_len - 1);
    case Coord::kAsymmetric:
      return x / scale;
    case Coord::kTfHalfPixelForNn:
      return (x + 0.5) / scale;
    case Coord::kTfCropAndResize: {
      double v = out_len == 1 ? (roi_end - roi_start) * (in_d - 1) / 2
                              : x * (roi_end - roi_start) * (in_d - 1) / (out_len - 1);
      v += roi_start * (in_d - 1);
      *outside = !(v >= 0 && v <= in_d - 1);  // NaN (from a NaN roi) extrapolates too
      return v;
    }
  }
  return 0;
}

// The input coordinate as ONNX Runtime computes it: in float, with the integer output length, and the index itself
// on an axis whose scale is exactly 1. Nearest indices and bilinear weights follow from it, and a coordinate that
// rounds differently moves a pixel (tf_crop_and_resize is not computed here).
float OrtCoordinate(Coord coord, int64_t x_int, float scale, int64_t out_int, int64_t in_int) {
  const float x = static_cast<float>(x_int);
  if (scale == 1.0f) return x;
  const float out_len = static_cast<float>(out_int), in_len = static_cast<float>(in_int);
  switch (coord) {
    case Coord::kHalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case Coord::kHalfPixelSymmetric: {
      const float adjustment = out_len / (scale * in_len);
      const float offset = in_len / 2 * (1 - adjustment);
      // ONNX Runtime writes this one with double constants, so the sum runs in double.
      return static_cast<float>(offset + (x + 0.5) / scale - 0.5);
    }
    case Coord::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Coord::kAlignCorners:
      return out_len == 1 ? 0.0f : x * (in_len - 1) / (out_len - 1);
    case Coord::kAsymmetric:
      return x / scale;
    case Coord::kTfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case Coord::kTfCropAndResize:
      break;
  }
  return 0.0f;
}

// align_corners divides by the real output length (scale * input length) in the ONNX specification and by the
// integer one in ONNX Runtime: where they differ, onyx follows the specification (and its backend tests).
bool OrtAgreesWithSpec(Coord coord, int64_t in_len, int64_t out_len, double scale) {
  return coord != Coord::kAlignCorners || scale * static_cast<double>(in_len) == static_cast<double>(out_len);
}

int64_t NearestIndex(double x, NearestMode mode, bool downsampling) {
  const double f = std::floor(x);
  if (x == f) return static_cast<int64_t>(f);
  const double r = x - f;
  bool up = false;
  switch (mode) {
    case NearestMode::kRoundPreferFloor:
      up = r > 0.5;
      break;
    case NearestMode::kRoundPreferCeil:
      up = r >= 0.5;
      break;
    case NearestMode::kFloor:
      up = false;
      break;
    case NearestMode::kCeil:
      up = true;
      break;
    case NearestMode::kSimple:
      up = downsampling;
      break;
  }
  return static_cast<int64_t>(f) + (up ? 1 : 0);
}

AxisPlan PlanAxis(const ResizeParams& p, int64_t in_len, int64_t out_len, double scale, double roi_start,
                  double roi_end) {
  AxisPlan plan;
  plan.taps.resize(static_cast<size_t>(out_len));
  plan.outside.assign(static_cast<size_t>(out_len), false);
  const auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in_len - 1); };
  for (int64_t o = 0; o < out_len; ++o) {
    bool outside = false;
    const double x =
        SourceCoordinate(p.coord, static_cast<double>(o), scale, in_len, out_len, roi_start, roi_end, &outside);
    plan.outside[static_cast<size_t>(o)] = outside;
    std::vector<Tap>& taps = plan.taps[static_cast<size_t>(o)];
    if (outside) continue;
    if (p.mode == Mode::kNearest) {
      const double xn = p.coord == Coord::kTfCropAndResize || !OrtAgreesWithSpec(p.coord, in_len, out_len, scale)
                            ? x
                            : OrtCoordinate(p.coord, o, static_cast<float>(scale), out_len, in_len);
      taps.push_back({clamp(NearestIndex(xn, p.nearest, scale < 1)), 1.0});
      continue;
    }
    // Taps sit at base + i; ratio in (0, 1] is the coordinate's distance past base.
    const int64_t base = static_cast<int64_t>(std::ceil(x)) - 1;
    const double ratio = x - static_cast<double>(base);
    std::vector<std::pair<int64_t, double>> raw;
    if (p.mode == Mode::kLinear) {
      if (p.antialias) {
        const double s = std::min(scale, 1.0);
        const int64_t start = static_cast<int64_t>(std::floor(-1 / s)) + 1;
        const int64_t count = 2 - 2 * start;
        for (int64_t i = start; i < start + count; ++i) {
          raw.emplace_back(base + i, std::clamp(1 - std::fabs((static_cast<double>(i) - ratio) * s), 0.0, 1.0));
        }
      } else {
        raw.emplace_back(base, 1 - ratio);
        raw.emplace_back(base + 1, ratio);
      }
    } else {
      if (p.antialias) {
        const double s = std::min(scale, 1.0);
        const int64_t start = static_cast<int64_t>(std::floor(-2 / s)) + 1;
        const int64_t end = 2 - start;
        for (int64_t i = start; i < end; ++i) {
          raw.emplace_back(base + i, CubicKernel(s * (static_cast<double>(i) - ratio), p.cubic_a));
        }
      } else {
        for (int64_t i = -1; i <= 2; ++i)
          raw.emplace_back(base + i, CubicKernel(static_cast<double>(i) - ratio, p.cubic_a));
      }
    }
    if (p.exclude_outside) {
      for (auto& [idx, w] : raw) {
        if (idx < 0 || idx >= in_len) w = 0;
      }
    }
    if (p.antialias || p.exclude_outside) {
      double sum = 0;
      for (const auto& t : raw) sum += t.second;
      if (sum != 0) {
        for (auto& t : raw) t.second /= sum;
      }
    }
    for (const auto& [idx, w] : raw) {
      if (w != 0) taps.push_back({clamp(idx), w});
    }
  }
  return plan;
}

// floor(length * scale) (or rounded half up), refusing results that do not fit an int64.
Result<int64_t> ScaledLength(int64_t length, double scale, bool round_half_up) {
  const double v = std::floor(static_cast<double>(length) * scale + (round_half_up ? 0.5 : 0.0));
  if (!(v < 9.0e18)) return InvalidArgument("scale " + std::to_string(scale) + " gives an output length too large");
  return static_cast<int64_t>(v);
}

// Whether axis plan `plan` maps every output index to the same input index with weight 1.
bool IsIdentityAxis(const AxisPlan& plan, int64_t in_len) {
  if (static_cast<int64_t>(plan.taps.size()) != in_len) return false;
  for (size_t o = 0; o < plan.taps.size(); ++o) {
    const auto& t = plan.taps[o];
    if (plan.outside[o] || t.size() != 1 || t[0].index != static_cast<int64_t>(o) || t[0].weight != 1.0) return false;
  }
  return true;
}

// An axis plan's taps flattened: for output index o, taps [start[o], start[o+1]), weights in float.
struct FlatTaps {
  std::vector<int64_t> start, index;
  std::vector<float> weight;
};

FlatTaps Flatten(const AxisPlan& plan) {
  FlatTaps f;
  f.start.push_back(0);
  for (const auto& taps : plan.taps) {
    for (const Tap& t : taps) {
      f.index.push_back(t.index);
      f.weight.push_back(static_cast<float>(t.weight));
    }
    f.start.push_back(static_cast<int64_t>(f.index.size()));
  }
  return f;
}

// One axis of ONNX Runtime's bilinear resize (TryResizeBilinearLikeOrt): per output index the two input indices and
// their weights.
struct OrtAxisWeights {
  std::vector<int64_t> i1, i2;
  std::vector<float> d1, d2;
};

OrtAxisWeights PlanOrtAxis(Coord coord, int64_t in_len, int64_t out_len, double scale) {
  OrtAxisWeights a;
  for (int64_t o = 0; o < out_len; ++o) {
    float c = OrtCoordinate(coord, o, static_cast<float>(scale), out_len, in_len);
    c = std::max(0.0f, std::min(c, static_cast<float>(in_len - 1)));
    const int64_t i1 = std::min(static_cast<int64_t>(c), in_len - 1);
    const int64_t i2 = std::min(i1 + 1, in_len - 1);
    a.i1.push_back(i1);
    a.i2.push_back(i2);
    a.d1.push_back(i1 == i2 ? 0.5f : std::fabs(c - static_cast<float>(i1)));
    a.d2.push_back(i1 == i2 ? 0.5f : std::fabs(c - static_cast<float>(i2)));
  }
  return a;
}

// Whether linear resizing of an H x W image takes ONNX Runtime's bilinear formula (else the separable float taps).
bool BilinearLikeOrt(const ResizeParams& p, int64_t h_in, int64_t h_out, double scale_h, int64_t w_in, int64_t w_out,
                     double scale_w) {
  return p.mode == Mode::kLinear && !p.antialias && !p.exclude_outside && p.coord != Coord::kTfCropAndResize &&
         OrtAgreesWithSpec(p.coord, h_in, h_out, scale_h) && OrtAgreesWithSpec(p.coord, w_in, w_out, scale_w);
}

// The float loops shared by plain and blocked images: planes of [H, W, lanes] floats, lanes = 1 for plain [.., H, W]
// tensors and the channel block b for blocked [N, C/b, H, W, b] ones. Each lane computes what a plain image computes,
// in the same order, so the blocked Resize is bit-identical to the plain one.

// One output pixel of ONNX Runtime's bilinear formula: o = w11 * a11 + w12 * a12 + w21 * a21 + w22 * a22 per lane,
// left to right. The pointers do not alias (the output is a fresh tensor): the lanes vectorize (omp simd: GCC keeps
// the loop scalar otherwise once inlined).
inline void BilinearPixel(float* __restrict o, const float* __restrict a11, const float* __restrict a12,
                          const float* __restrict a21, const float* __restrict a22, float w11, float w12, float w21,
                          float w22, int64_t lanes) {
  if (lanes == 1) {
    o[0] = w11 * a11[0] + w12 * a12[0] + w21 * a21[0] + w22 * a22[0];
    return;
  }
#pragma omp simd
  for (int64_t c = 0; c < lanes; ++c) o[c] = w11 * a11[c] + w12 * a12[c] + w21 * a21[c] + w22 * a22[c];
}

// ONNX Runtime's bilinear resize of every plane (see TryResizeBilinearLikeOrt), parallel over output rows.
void BilinearLikeOrtPlanes(const float* in, float* out, int64_t planes, int64_t lanes, int64_t h_in, int64_t w_in,
                           int64_t h_out, int64_t w_out, const OrtAxisWeights& ah, const OrtAxisWeights& aw) {
  ParallelFor(planes * h_out, w_out * lanes * 8, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const auto uy = static_cast<size_t>(row % h_out);
      const float* plane = in + row / h_out * h_in * w_in * lanes;
      const float* row1 = plane + ah.i1[uy] * w_in * lanes;
      const float* row2 = plane + ah.i2[uy] * w_in * lanes;
      const float dy1 = ah.d1[uy], dy2 = ah.d2[uy];
      float* dst = out + row * w_out * lanes;
      for (int64_t ox = 0; ox < w_out; ++ox) {
        const auto ux = static_cast<size_t>(ox);
        const float dx1 = aw.d1[ux], dx2 = aw.d2[ux];
        BilinearPixel(dst + ox * lanes, row1 + aw.i1[ux] * lanes, row1 + aw.i2[ux] * lanes, row2 + aw.i1[ux] * lanes,
                      row2 + aw.i2[ux] * lanes, dx2 * dy2, dx1 * dy2, dx2 * dy1, dx1 * dy1, lanes);
      }
    }
  });
}

// One axis of float taps: src [in_len, inner] -> dst [out_len, inner], each output row the sum of its taps' rows
// (from 0, in tap order; whole rows at a time, vectorized; a single column, inner == 1, tap by tap).
void TapsAlongAxis(const float* src, float* dst, int64_t out_len, int64_t inner, const FlatTaps& t) {
  for (int64_t j = 0; j < out_len; ++j) {
    const int64_t k0 = t.start[static_cast<size_t>(j)], k1 = t.start[static_cast<size_t>(j) + 1];
    if (inner == 1) {
      float acc = 0.0f;
      for (int64_t k = k0; k < k1; ++k) acc += t.weight[static_cast<size_t>(k)] * src[t.index[static_cast<size_t>(k)]];
      dst[j] = acc;
      continue;
    }
    float* row = dst + j * inner;
    std::fill(row, row + inner, 0.0f);
    for (int64_t k = k0; k < k1; ++k) {
      const float w = t.weight[static_cast<size_t>(k)];
      const float* in_row = src + t.index[static_cast<size_t>(k)] * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) row[i] += w * in_row[i];
    }
  }
}

// The separable float taps of every plane (see TryResizeFloatPlanes): its rows along W into a scratch
// [H_in, W_out, lanes], then those along H.
void SeparableTapsPlanes(const float* in, float* out, int64_t planes, int64_t lanes, int64_t h_in, int64_t w_in,
                         int64_t h_out, int64_t w_out, const FlatTaps& th, const FlatTaps& tw) {
  ParallelFor(planes, (h_in + h_out) * w_out * lanes * 2, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(static_cast<size_t>(h_in * w_out * lanes));
    for (int64_t plane = begin; plane < end; ++plane) {
      const float* src = in + plane * h_in * w_in * lanes;
      for (int64_t r = 0; r < h_in; ++r) {
        TapsAlongAxis(src + r * w_in * lanes, scratch.data() + r * w_out * lanes, w_out, lanes, tw);
      }
      TapsAlongAxis(scratch.data(), out + plane * h_out * w_out * lanes, h_out, w_out * lanes, th);
    }
  });
}

// Float images resized over their last two axes only (the common upsampling in vision models): per plane, the
// rows are first interpolated along W into a scratch [H_in, W_out], then combined along H, in float with the
// same taps as the general path (which computes in double: results differ by float rounding only).
bool TryResizeFloatPlanes(const std::vector<AxisPlan>& plans, const Tensor& x, Tensor& y) {
  const size_t rank = x.shape().size();
  if (x.type() != DataType::kFloat || rank < 2) return false;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (!IsIdentityAxis(plans[d], x.dim(static_cast<int64_t>(d)))) return false;
  }
  for (size_t d = rank - 2; d < rank; ++d) {
    for (bool o : plans[d].outside) {
      if (o) return false;
    }
  }
  const int64_t h_in = x.dim(static_cast<int64_t>(rank - 2)), w_in = x.dim(static_cast<int64_t>(rank - 1));
  const int64_t h_out = y.dim(static_cast<int64_t>(rank - 2)), w_out = y.dim(static_cast<int64_t>(rank - 1));
  // The scratch [H_in, W_out] must not outgrow both planes (a tall input resized into a wide output would need
  // H_in x W_out): the general path needs no intermediate.
  int64_t scratch = 0;
  if (__builtin_mul_overflow(h_in, w_out, &scratch) || scratch > std::max(h_in * w_in, h_out * w_out)) return false;
  const int64_t planes = h_in * w_in == 0 ? 0 : x.size() / (h_in * w_in);
  SeparableTapsPlanes(x.data<float>(), y.data<float>(), planes, 1, h_in, w_in, h_out, w_out, Flatten(plans[rank - 2]),
                      Flatten(plans[rank - 1]));
  return true;
}

// Float tensors resized over any axes (a 3-D U-Net's trilinear upsampling, beyond TryResizeFloatPlanes' last two):
// one axis at a time, from the last resized axis to the first, each pass [outer, in, inner] -> [outer, out, inner]
// with the same taps as the general path, in float (results differ by float rounding only); rows of `inner` values
// are combined whole (vectorized), outer blocks over the threads. No extrapolated (outside) outputs.
bool TryResizeFloatSeparable(const std::vector<AxisPlan>& plans, const Tensor& x, Tensor& y) {
  const size_t rank = x.shape().size();
  if (x.type() != DataType::kFloat) return false;
  std::vector<size_t> axes;  // the resized ones
  for (size_t d = 0; d < rank; ++d) {
    for (bool o : plans[d].outside) {
      if (o) return false;
    }
    if (!IsIdentityAxis(plans[d], x.dim(static_cast<int64_t>(d)))) axes.push_back(d);
  }
  if (axes.empty()) return false;
  {
    // No intermediate may outgrow both X and Y (axes shrunk after others grew): else the general path, which
    // needs none.
    Shape s = x.shape();
    const int64_t limit = std::max(x.size(), y.size());
    for (size_t n = axes.size(); n-- > 1;) {
      s[axes[n]] = y.dim(static_cast<int64_t>(axes[n]));
      int64_t count = 1;
      for (int64_t dim : s) {
        if (__builtin_mul_overflow(count, dim, &count) || count > limit) return false;
      }
    }
  }
  Shape shape = x.shape();
  std::vector<float> a, b;  // the passes' intermediate tensors (the first reads X, the last writes Y)
  const float* src_all = x.data<float>();
  for (size_t n = axes.size(); n-- > 0;) {
    const size_t d = axes[n];
    const int64_t in_len = shape[d], out_len = y.dim(static_cast<int64_t>(d));
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= shape[k];
    for (size_t k = d + 1; k < rank; ++k) inner *= shape[k];
    const FlatTaps t = Flatten(plans[d]);
    float* dst_all;
    if (n == 0) {
      dst_all = y.data<float>();
    } else {
      b.assign(static_cast<size_t>(outer * out_len * inner), 0.0f);
      dst_all = b.data();
    }
    ParallelFor(outer, out_len * inner * 2, [&](int64_t lo, int64_t hi) {
      for (int64_t o = lo; o < hi; ++o) {
        TapsAlongAxis(src_all + o * in_len * inner, dst_all + o * out_len * inner, out_len, inner, t);
      }
    });
    shape[d] = out_len;
    std::swap(a, b);
    src_all = a.data();
  }
  return true;
}

// Bilinear resizing of float [H, W] or [N, C, H, W] images exactly as ONNX Runtime computes it, so that a quantize
// step after the Resize sees the same value: per axis, the coordinate c (OrtCoordinate) clamped to [0, in - 1],
// i1 = int(c), i2 = min(i1 + 1, in - 1), weights d1 = |c - i1| and d2 = |c - i2| (both 0.5 where i1 == i2), and
// y = ((dx2 * dy2) * X11 + (dx1 * dy2) * X21) + (dx2 * dy1) * X12 + (dx1 * dy1) * X22 in float, left to right.
//
// 8-bit images (a quantized model's, which ONNX Runtime runs as 8-bit data where it drops the QDQ around a Resize)
// take the same float formula on the values as floats, the result truncated toward zero into the type (its
// static_cast), as ONNX's reference (astype) does too.
bool TryResizeBilinearLikeOrt(const ResizeParams& p, const Tensor& x, const std::vector<double>& scales, Tensor& y) {
  const size_t rank = x.shape().size();
  const bool bytes = x.type() == DataType::kUint8 || x.type() == DataType::kInt8;
  if ((x.type() != DataType::kFloat && !bytes) || (rank != 2 && rank != 4)) return false;
  if (rank == 4 && (scales[0] != 1.0 || scales[1] != 1.0 || y.dim(0) != x.dim(0) || y.dim(1) != x.dim(1))) {
    return false;
  }
  const int64_t h_in = x.dim(static_cast<int64_t>(rank - 2)), w_in = x.dim(static_cast<int64_t>(rank - 1));
  const int64_t h_out = y.dim(static_cast<int64_t>(rank - 2)), w_out = y.dim(static_cast<int64_t>(rank - 1));
  if (!BilinearLikeOrt(p, h_in, h_out, scales[rank - 2], w_in, w_out, scales[rank - 1])) return false;
  const OrtAxisWeights ah = PlanOrtAxis(p.coord, h_in, h_out, scales[rank - 2]);
  const OrtAxisWeights aw = PlanOrtAxis(p.coord, w_in, w_out, scales[rank - 1]);
  const int64_t planes = x.size() / (h_in * w_in);
  if (!bytes) {
    BilinearLikeOrtPlanes(x.data<float>(), y.data<float>(), planes, 1, h_in, w_in, h_out, w_out, ah, aw);
    return true;
  }
  std::vector<float> in(static_cast<size_t>(x.size())), out(static_cast<size_t>(y.size()));
  auto run = [&](const auto* xd, auto* yd) {
    using Q = std::remove_const_t<std::remove_pointer_t<decltype(xd)>>;
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(xd[i]);
    BilinearLikeOrtPlanes(in.data(), out.data(), planes, 1, h_in, w_in, h_out, w_out, ah, aw);
    constexpr float lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
    for (size_t i = 0; i < out.size(); ++i) yd[i] = static_cast<Q>(std::clamp(std::trunc(out[i]), lo, hi));
  };
  if (x.type() == DataType::kUint8) {
    run(x.data<uint8_t>(), y.data<uint8_t>());
  } else {
    run(x.data<int8_t>(), y.data<int8_t>());
  }
  return true;
}

// Nearest-neighbour resizing of the last two axes only (the others kept), no output outside the input: each output
// row copies the elements its source row holds at the per-column source indices, for any type of 1, 2, 4 or 8 bytes
// (8-bit images of a quantized model: ONNX Runtime runs a QDQ model's nearest Resize on them). The same source
// elements as the general loop below, without its per-element index walk (3.3 ms -> ~0.1 ms on a [1, 128, 40, 40]
// uint8 upsampling).
bool TryResizeNearestPlanes(const std::vector<AxisPlan>& plans, const Tensor& x, Tensor& y) {
  const size_t rank = plans.size();
  const int bits = DataTypeBits(x.type());
  if (rank < 2 || x.type() == DataType::kString || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return false;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (x.dim(static_cast<int64_t>(d)) != y.dim(static_cast<int64_t>(d))) return false;
    for (size_t o = 0; o < plans[d].taps.size(); ++o) {
      if (plans[d].outside[o] || plans[d].taps[o].size() != 1 || plans[d].taps[o][0].index != static_cast<int64_t>(o)) {
        return false;
      }
    }
  }
  std::vector<int64_t> rows, cols;
  for (size_t d : {rank - 2, rank - 1}) {
    std::vector<int64_t>& idx = d == rank - 2 ? rows : cols;
    for (size_t o = 0; o < plans[d].taps.size(); ++o) {
      if (plans[d].outside[o] || plans[d].taps[o].empty()) return false;
      idx.push_back(plans[d].taps[o][0].index);
    }
  }
  const int64_t h_in = x.dim(static_cast<int64_t>(rank - 2)), w_in = x.dim(static_cast<int64_t>(rank - 1));
  const auto h_out = static_cast<int64_t>(rows.size()), w_out = static_cast<int64_t>(cols.size());
  const int64_t planes = x.size() / std::max<int64_t>(1, h_in * w_in);
  // A 2x upsampling along W (cols[c] == c / 2: what nearest upsampling by 2 gives in any coordinate mode that keeps
  // pixel 0 first) duplicates each element in a loop the compiler vectorizes, instead of gathering by index.
  bool doubled = w_out == 2 * w_in;
  for (int64_t c = 0; doubled && c < w_out; ++c) doubled = cols[static_cast<size_t>(c)] == c / 2;
  auto run = [&](const auto* in, auto* out) {
    // Whole output rows per task, so that a row whose source row is the previous row's (nearest upsampling along H)
    // is a copy of that row.
    ParallelFor(planes * h_out, w_out, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t source_row = rows[static_cast<size_t>(r % h_out)];
        auto* dst = out + r * w_out;
        if (r > lo && r % h_out != 0 && rows[static_cast<size_t>(r % h_out - 1)] == source_row) {
          std::copy(dst - w_out, dst, dst);
          continue;
        }
        const auto* src = in + (r / h_out) * h_in * w_in + source_row * w_in;
        if (doubled) {
          for (int64_t c = 0; c < w_in; ++c) dst[2 * c] = dst[2 * c + 1] = src[c];
        } else {
          for (int64_t c = 0; c < w_out; ++c) dst[c] = src[cols[static_cast<size_t>(c)]];
        }
      }
    });
  };
  switch (bits) {
    case 8:
      run(static_cast<const uint8_t*>(x.raw()), static_cast<uint8_t*>(y.raw()));
      break;
    case 16:
      run(static_cast<const uint16_t*>(x.raw()), static_cast<uint16_t*>(y.raw()));
      break;
    case 32:
      run(static_cast<const uint32_t*>(x.raw()), static_cast<uint32_t*>(y.raw()));
      break;
    default:
      run(static_cast<const uint64_t*>(x.raw()), static_cast<uint64_t*>(y.raw()));
  }
  return true;
}

// Nearest-neighbour resizing of the middle axes of a channels-last image ([N, H, W, C]: the 8-bit layout pass's
// upsamplings, optimizer/int8_nhwc_layout.cc), the first and last axes kept, no output outside the input: each output
// pixel copies its source pixel's C values, and an output row whose source row is the previous row's copies that row.
bool TryResizeNearestPixels(const std::vector<AxisPlan>& plans, const Tensor& x, Tensor& y) {
  const int bits = DataTypeBits(x.type());
  if (plans.size() != 4 || x.type() == DataType::kString || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
    return false;
  }
  for (size_t d : {size_t{0}, size_t{3}}) {
    if (x.dim(static_cast<int64_t>(d)) != y.dim(static_cast<int64_t>(d))) return false;
    for (size_t o = 0; o < plans[d].taps.size(); ++o) {
      if (plans[d].outside[o] || plans[d].taps[o].size() != 1 || plans[d].taps[o][0].index != static_cast<int64_t>(o)) {
        return false;
      }
    }
  }
  std::vector<int64_t> rows, cols;
  for (size_t d : {size_t{1}, size_t{2}}) {
    std::vector<int64_t>& idx = d == 1 ? rows : cols;
    for (size_t o = 0; o < plans[d].taps.size(); ++o) {
      if (plans[d].outside[o] || plans[d].taps[o].empty()) return false;
      idx.push_back(plans[d].taps[o][0].index);
    }
  }
  const int64_t h_in = x.dim(1), w_in = x.dim(2);
  const auto h_out = static_cast<int64_t>(rows.size()), w_out = static_cast<int64_t>(cols.size());
  const auto pixel_bytes = static_cast<size_t>(x.dim(3) * bits / 8);
  const size_t row_bytes = pixel_bytes * static_cast<size_t>(w_out);
  const auto* in = static_cast<const uint8_t*>(x.raw());
  auto* out = static_cast<uint8_t*>(y.raw());
  ParallelFor(x.dim(0) * h_out, static_cast<int64_t>(row_bytes) / 4 + 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t oy = r % h_out;
      uint8_t* dst = out + static_cast<size_t>(r) * row_bytes;
      if (r > lo && oy != 0 && rows[static_cast<size_t>(oy - 1)] == rows[static_cast<size_t>(oy)]) {
        std::memcpy(dst, dst - row_bytes, row_bytes);
        continue;
      }
      const uint8_t* src = in + static_cast<size_t>((r / h_out) * h_in + rows[static_cast<size_t>(oy)]) *
                                    static_cast<size_t>(w_in) * pixel_bytes;
      for (int64_t ox = 0; ox < w_out; ++ox) {
        const uint8_t* from = src + static_cast<size_t>(cols[static_cast<size_t>(ox)]) * pixel_bytes;
        if (pixel_bytes <= 512) {
          CopyShortRun(dst + static_cast<size_t>(ox) * pixel_bytes, from, pixel_bytes);
        } else {
          std::memcpy(dst + static_cast<size_t>(ox) * pixel_bytes, from, pixel_bytes);
        }
      }
    }
  });
  return true;
}

// Computes Y from X given per-axis scales and output shape (all full-rank), ROI start/end per axis.
Status RunResize(const ResizeParams& p, const Tensor& x, const std::vector<double>& scales, const Shape& out_shape,
                 const std::vector<double>& roi_start, const std::vector<double>& roi_end, KernelContext& ctx) {
  const size_t rank = x.shape().size();
  for (size_t d = 0; d < rank; ++d) {
    if (x.dim(static_cast<int64_t>(d)) == 0 && out_shape[d] != 0) {
      return InvalidArgument("input 'X' has shape " + ShapeToString(x.shape()) +
                             ": an empty axis cannot be resized to " + std::to_string(out_shape[d]));
    }
  }
  ONYX_RETURN_IF_ERROR(CheckOutputShape(out_shape, "the output shape"));
  Tensor& y = ctx.AllocateOutput(0, x.type(), out_shape);
  if (y.size() == 0) return Status::Ok();
  if (TryResizeBilinearLikeOrt(p, x, scales, y)) return Status::Ok();
  std::vector<AxisPlan> plans(rank);
  for (size_t d = 0; d < rank; ++d) {
    plans[d] = PlanAxis(p, x.dim(static_cast<int64_t>(d)), out_shape[d], scales[d], roi_start[d], roi_end[d]);
  }
  if (p.mode != Mode::kNearest && TryResizeFloatPlanes(plans, x, y)) return Status::Ok();
  if (p.mode != Mode::kNearest && TryResizeFloatSeparable(plans, x, y)) return Status::Ok();
  if (p.mode == Mode::kNearest && TryResizeNearestPlanes(plans, x, y)) return Status::Ok();
  if (p.mode == Mode::kNearest && TryResizeNearestPixels(plans, x, y)) return Status::Ok();
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  const int64_t total = y.size();
  std::vector<int64_t> idx(rank, 0);
  auto advance = [&]() {
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_shape[d]) return;
      idx[d] = 0;
    }
  };
  auto any_outside = [&]() {
    for (size_t d = 0; d < rank; ++d) {
      if (plans[d].outside[static_cast<size_t>(idx[d])]) return true;
    }
    return false;
  };

  if (p.mode == Mode::kNearest) {
    std::vector<int64_t> src(static_cast<size_t>(total));
    bool extrapolated = false;
    for (int64_t i = 0; i < total; ++i, advance()) {
      if (any_outside()) {
        src[static_cast<size_t>(i)] = -1;
        extrapolated = true;
        continue;
      }
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off += plans[d].taps[static_cast<size_t>(idx[d])][0].index * in_strides[d];
      src[static_cast<size_t>(i)] = off;
    }
    GatherElements(x, src, y);
    if (extrapolated && p.extrapolation_value != 0) {
      if (!IsRealNumberType(x.type())) {
        return InvalidArgument("extrapolation_value needs a numeric input 'X', got " +
                               std::string(DataTypeName(x.type())));
      }
      ONYX_ASSIGN_OR_RETURN(std::vector<double> values, ReadAsDoubles(y, "output 'Y'"));
      for (int64_t i = 0; i < total; ++i) {
        if (src[static_cast<size_t>(i)] < 0) values[static_cast<size_t>(i)] = p.extrapolation_value;
      }
      ONYX_RETURN_IF_ERROR(WriteFromDoubles(values, y));
    }
    return Status::Ok();
  }

  ONYX_ASSIGN_OR_RETURN(std::vector<double> in, ReadAsDoubles(x, "input 'X'"));
  std::vector<double> out(static_cast<size_t>(total));
  // Sums the product of the taps of axes d.. for the current output index.
  auto accumulate = [&](auto&& self, size_t d, int64_t offset, double weight) -> double {
    if (d == rank) return weight * in[static_cast<size_t>(offset)];
    double s = 0;
    for (const Tap& t : plans[d].taps[static_cast<size_t>(idx[d])]) {
      s += self(self, d + 1, offset + t.index * in_strides[d], weight * t.weight);
    }
    return s;
  };
  for (int64_t i = 0; i < total; ++i, advance()) {
    out[static_cast<size_t>(i)] = any_outside() ? p.extrapolation_value : accumulate(accumulate, 0, 0, 1.0);
  }
  // Integer results truncated toward zero (ONNX's reference casts with astype; ONNX Runtime with static_cast), then
  // saturated.
  if (IsInteger(y.type())) {
    for (double& v : out) v = std::trunc(v);
  }
  return WriteFromDoubles(out, y);
}

// Resizes a blocked image [N, C/b, H, W, b] (ir/nchwc_ops.h: NchwcResize) of `channels` logical channels over H and
// W, with per-lane the same arithmetic as the plain paths above (nearest: the same source pixel; linear: ONNX
// Runtime's bilinear formula or the separable float taps, in the same order): bit-identical results, b lanes at a
// time, and the padding channels stay zero. The batch and channel axes must keep their sizes.
Status RunBlockedResize(const ResizeParams& p, const Tensor& x, int64_t channels, const std::vector<double>& scales,
                        const Shape& out_shape, const std::vector<double>& roi_start,
                        const std::vector<double>& roi_end, KernelContext& ctx) {
  const int64_t n = x.dim(0), blocks = x.dim(1), h_in = x.dim(2), w_in = x.dim(3), b = x.dim(4);
  if (out_shape[0] != n || out_shape[1] != channels) {
    return InvalidArgument("the blocked layout's resize keeps the batch and channel axes, but the output shape is " +
                           ShapeToString(out_shape) + " for input [" + std::to_string(n) + ", " +
                           std::to_string(channels) + ", " + std::to_string(h_in) + ", " + std::to_string(w_in) +
                           "] (run with graph optimization level basic)");
  }
  const int64_t h_out = out_shape[2], w_out = out_shape[3];
  ONYX_RETURN_IF_ERROR(CheckOutputShape(out_shape, "the output shape"));
  if ((h_in == 0 || w_in == 0) && h_out * w_out != 0) {
    return InvalidArgument("input 'X' has an empty image axis that cannot be resized to " + ShapeToString(out_shape));
  }
  Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, Shape{n, blocks, h_out, w_out, b});
  if (y.size() == 0) return Status::Ok();
  const float* in = x.data<float>();
  float* out = y.data<float>();
  if (p.mode == Mode::kNearest) {
    const AxisPlan ph = PlanAxis(p, h_in, h_out, scales[2], roi_start[2], roi_end[2]);
    const AxisPlan pw = PlanAxis(p, w_in, w_out, scales[3], roi_start[3], roi_end[3]);
    for (const AxisPlan* plan : {&ph, &pw}) {
      for (size_t o = 0; o < plan->taps.size(); ++o) {
        if (plan->outside[o]) return Internal("blocked resize: extrapolation is not supported");
      }
    }
    ParallelFor(n * blocks * h_out, w_out * b, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {  // plane row / h_out, output row row % h_out
        const int64_t oy = row % h_out;
        const float* src = in + (row / h_out * h_in + ph.taps[static_cast<size_t>(oy)][0].index) * w_in * b;
        float* dst = out + row * w_out * b;
        for (int64_t ox = 0; ox < w_out; ++ox) {
          const float* pixel = src + pw.taps[static_cast<size_t>(ox)][0].index * b;
          std::copy(pixel, pixel + b, dst + ox * b);
        }
      }
    });
    return Status::Ok();
  }
  if (p.mode != Mode::kLinear || p.antialias || p.coord == Coord::kTfCropAndResize) {
    return Internal("blocked resize: only nearest and linear modes without antialiasing or cropping run blocked");
  }
  if (BilinearLikeOrt(p, h_in, h_out, scales[2], w_in, w_out, scales[3])) {
    BilinearLikeOrtPlanes(in, out, n * blocks, b, h_in, w_in, h_out, w_out,
                          PlanOrtAxis(p.coord, h_in, h_out, scales[2]), PlanOrtAxis(p.coord, w_in, w_out, scales[3]));
    return Status::Ok();
  }
  SeparableTapsPlanes(in, out, n * blocks, b, h_in, w_in, h_out, w_out,
                      Flatten(PlanAxis(p, h_in, h_out, scales[2], roi_start[2], roi_end[2])),
                      Flatten(PlanAxis(p, w_in, w_out, scales[3], roi_start[3], roi_end[3])));
  return Status::Ok();
}

Result<Mode> ParseMode(const KernelInfo& info, const std::string& s, bool allow_cubic, bool allow_bilinear) {
  if (s == "nearest") return Mode::kNearest;
  if (s == "linear" || (allow_bilinear && s == "bilinear")) return Mode::kLinear;
  if (allow_cubic && s == "cubic") return Mode::kCubic;
  return info.Error("attribute 'mode' is '" + s + "', expected " +
                    (allow_cubic ? "nearest, linear or cubic" : "nearest or linear"));
}

// Where a resize goes: per-axis scales, the output shape and the ROI (tf_crop_and_resize), all of full rank.
struct ResizeTarget {
  std::vector<double> scales;
  Shape out_shape;
  std::vector<double> roi_start, roi_end;
};

// What Upsample and Resize share: the plain form, and the blocked one (NchwcResize, ir/nchwc_ops.h), which carries
// the original operator and version as attributes and reads X as [N, C/b, H, W, b].
class ResizeKernelBase : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (info.op_type() == ir::nchwc::kResize) {
      ONYX_ASSIGN_OR_RETURN(onnx_op_, info.GetRequiredString("onnx_op"));
      ONYX_ASSIGN_OR_RETURN(const int64_t version, info.GetRequiredInt("onnx_version"));
      version_ = static_cast<int>(version);
      ONYX_ASSIGN_OR_RETURN(block_, info.GetRequiredInt(ir::nchwc::kBlockAttr));
      ONYX_ASSIGN_OR_RETURN(channels_, info.GetRequiredInt("channels"));
      if (!ir::nchwc::IsValidBlock(block_) || channels_ < 1) return info.Error("invalid 'block' or 'channels'");
    } else {
      onnx_op_ = info.op_type();
      version_ = info.since_version();
    }
    return InitAttributes(info);
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (block_ == 0) {
      ONYX_ASSIGN_OR_RETURN(ResizeTarget t, Resolve(x->shape(), ctx));
      return RunResize(params_, *x, t.scales, t.out_shape, t.roi_start, t.roi_end, ctx);
    }
    if (x->type() != DataType::kFloat || x->rank() != 5 || x->dim(4) != block_ ||
        x->dim(1) != (channels_ + block_ - 1) / block_) {
      return InvalidArgument("blocked input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected float [N, " +
                             std::to_string((channels_ + block_ - 1) / block_) + ", H, W, " + std::to_string(block_) +
                             "]");
    }
    const Shape logical{x->dim(0), channels_, x->dim(2), x->dim(3)};
    ONYX_ASSIGN_OR_RETURN(ResizeTarget t, Resolve(logical, ctx));
    return RunBlockedResize(params_, *x, channels_, t.scales, t.out_shape, t.roi_start, t.roi_end, ctx);
  }

 protected:
  virtual Status InitAttributes(const KernelInfo& info) = 0;
  // The target for an input of shape `x_shape` (the logical NCHW shape of a blocked input).
  virtual Result<ResizeTarget> Resolve(const Shape& x_shape, KernelContext& ctx) const = 0;

  std::string onnx_op_;  // Upsample or Resize
  int version_ = 0;      // its since_version
  ResizeParams params_;

 private:
  int64_t block_ = 0;  // set for the blocked form
  int64_t channels_ = 0;
};

// Upsample (all versions) and Resize-10: output = floor(input * scale), asymmetric coordinates.
class UpsampleKernel : public ResizeKernelBase {
 protected:
  Status InitAttributes(const KernelInfo& info) override {
    const bool is_resize = onnx_op_ == "Resize";
    ONYX_ASSIGN_OR_RETURN(params_.mode,
                          ParseMode(info, info.GetString("mode", "nearest"), false, !is_resize && version_ == 1));
    params_.coord = Coord::kAsymmetric;
    params_.nearest = NearestMode::kSimple;
    if (!is_resize && version_ == 1) {
      attr_scales_ = {1.0, 1.0, info.GetFloat("height_scale", 1.0f), info.GetFloat("width_scale", 1.0f)};
      if (!info.HasAttribute("height_scale") || !info.HasAttribute("width_scale")) {
        return info.Error("attributes 'height_scale' and 'width_scale' are required");
      }
    } else if (!is_resize && version_ == 7) {
      if (!info.HasAttribute("scales")) return info.Error("attribute 'scales' is required");
      for (float s : info.GetFloats("scales")) attr_scales_.push_back(s);
    }
    for (double s : attr_scales_) {
      if (!(s > 0)) return info.Error("attribute scales must be positive, got " + std::to_string(s));
    }
    use_attr_scales_ = !is_resize && version_ < 9;
    return Status::Ok();
  }

  Result<ResizeTarget> Resolve(const Shape& x_shape, KernelContext& ctx) const override {
    std::vector<double> scales = attr_scales_;
    if (!use_attr_scales_) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* s, ctx.TensorInput(1));
      ONYX_ASSIGN_OR_RETURN(scales, ReadAsDoubles(*s, "input 'scales' (1)"));
    }
    const size_t rank = x_shape.size();
    if (scales.size() != rank) {
      return InvalidArgument("scales have " + std::to_string(scales.size()) + " elements, expected one per axis of " +
                             "input 'X' " + ShapeToString(x_shape));
    }
    Shape out_shape(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (!(scales[d] > 0)) return InvalidArgument("scales must be positive, got " + std::to_string(scales[d]));
      ONYX_ASSIGN_OR_RETURN(out_shape[d], ScaledLength(x_shape[d], scales[d], false));
    }
    return ResizeTarget{scales, out_shape, std::vector<double>(rank, 0.0), std::vector<double>(rank, 1.0)};
  }

 private:
  std::vector<double> attr_scales_;
  bool use_attr_scales_ = false;
};

// Resize-11 and later: inputs X, roi, scales, sizes.
class ResizeKernel : public ResizeKernelBase {
 protected:
  Status InitAttributes(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(params_.mode, ParseMode(info, info.GetString("mode", "nearest"), true, false));
    const std::string coord = info.GetString("coordinate_transformation_mode", "half_pixel");
    if (coord == "half_pixel") {
      params_.coord = Coord::kHalfPixel;
    } else if (coord == "half_pixel_symmetric" && version_ >= 19) {
      params_.coord = Coord::kHalfPixelSymmetric;
    } else if (coord == "pytorch_half_pixel") {
      params_.coord = Coord::kPytorchHalfPixel;
    } else if (coord == "align_corners") {
      params_.coord = Coord::kAlignCorners;
    } else if (coord == "asymmetric") {
      params_.coord = Coord::kAsymmetric;
    } else if (coord == "tf_half_pixel_for_nn" && version_ == 11) {
      params_.coord = Coord::kTfHalfPixelForNn;
    } else if (coord == "tf_crop_and_resize") {
      params_.coord = Coord::kTfCropAndResize;
    } else {
      return info.Error("attribute 'coordinate_transformation_mode' has unsupported value '" + coord + "'");
    }
    const std::string nearest = info.GetString("nearest_mode", "round_prefer_floor");
    if (nearest == "round_prefer_floor") {
      params_.nearest = NearestMode::kRoundPreferFloor;
    } else if (nearest == "round_prefer_ceil") {
      params_.nearest = NearestMode::kRoundPreferCeil;
    } else if (nearest == "floor") {
      params_.nearest = NearestMode::kFloor;
    } else if (nearest == "ceil") {
      params_.nearest = NearestMode::kCeil;
    } else {
      return info.Error("attribute 'nearest_mode' has unsupported value '" + nearest + "'");
    }
    params_.cubic_a = info.GetFloat("cubic_coeff_a", -0.75f);
    params_.exclude_outside = info.GetInt("exclude_outside", 0) != 0;
    params_.extrapolation_value = info.GetFloat("extrapolation_value", 0.0f);
    if (version_ >= 18) {
      params_.antialias = info.GetInt("antialias", 0) != 0;
      axes_ = info.GetInts("axes");
      const std::string policy = info.GetString("keep_aspect_ratio_policy", "stretch");
      if (policy == "stretch") {
        policy_ = AspectPolicy::kStretch;
      } else if (policy == "not_larger") {
        policy_ = AspectPolicy::kNotLarger;
      } else if (policy == "not_smaller") {
        policy_ = AspectPolicy::kNotSmaller;
      } else {
        return info.Error("attribute 'keep_aspect_ratio_policy' has unsupported value '" + policy + "'");
      }
    }
    if (params_.antialias && params_.mode == Mode::kNearest) {
      // The reference rejects it; antialiasing only changes the linear and cubic filters.
      return info.Error("attribute 'antialias' is only supported with mode linear or cubic");
    }
    return Status::Ok();
  }

  Result<ResizeTarget> Resolve(const Shape& x_shape, KernelContext& ctx) const override {
    const auto rank = static_cast<int64_t>(x_shape.size());
    std::vector<int64_t> axes;
    if (axes_.empty()) {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    } else {
      ONYX_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes_, rank));
    }
    const size_t naxes = axes.size();
    const bool has_scales = ctx.has_input(2) && ctx.input(2).size() > 0;
    const bool has_sizes = ctx.has_input(3) && ctx.input(3).size() > 0;
    if (has_scales && has_sizes) return InvalidArgument("only one of inputs 'scales' and 'sizes' may be given");
    if (!has_scales && !has_sizes) return InvalidArgument("one of inputs 'scales' (2) and 'sizes' (3) is required");

    std::vector<double> scales(static_cast<size_t>(rank), 1.0);
    Shape out_shape = x_shape;
    if (has_scales) {
      ONYX_ASSIGN_OR_RETURN(std::vector<double> s, ReadAsDoubles(ctx.input(2), "input 'scales' (2)"));
      if (s.size() != naxes) {
        return InvalidArgument("input 'scales' (2) has " + std::to_string(s.size()) + " elements, expected " +
                               std::to_string(naxes));
      }
      for (size_t i = 0; i < naxes; ++i) {
        if (!(s[i] > 0)) return InvalidArgument("input 'scales' (2) must be positive, got " + std::to_string(s[i]));
        const size_t d = static_cast<size_t>(axes[i]);
        scales[d] = s[i];
        ONYX_ASSIGN_OR_RETURN(out_shape[d], ScaledLength(x_shape[d], s[i], false));
      }
    } else {
      const Tensor& sizes_t = ctx.input(3);
      if (!IsInteger(sizes_t.type())) return InvalidArgument("input 'sizes' (3) must be int64");
      const std::vector<int64_t> sizes = sizes_t.ToInt64Vector();
      if (sizes.size() != naxes) {
        return InvalidArgument("input 'sizes' (3) has " + std::to_string(sizes.size()) + " elements, expected " +
                               std::to_string(naxes));
      }
      for (size_t i = 0; i < naxes; ++i) {
        const size_t d = static_cast<size_t>(axes[i]);
        const int64_t in = x_shape[d];
        if (sizes[i] < 0) return InvalidArgument("input 'sizes' (3) has a negative size " + std::to_string(sizes[i]));
        if (in == 0 && sizes[i] != 0) {
          return InvalidArgument("input 'X' axis " + std::to_string(d) + " is empty and cannot be resized to " +
                                 std::to_string(sizes[i]));
        }
        out_shape[d] = sizes[i];
        scales[d] = in == 0 ? 1.0 : static_cast<double>(sizes[i]) / static_cast<double>(in);
      }
      if (policy_ != AspectPolicy::kStretch) {
        double s = scales[static_cast<size_t>(axes[0])];
        for (int64_t a : axes) {
          const double v = scales[static_cast<size_t>(a)];
          s = policy_ == AspectPolicy::kNotLarger ? std::min(s, v) : std::max(s, v);
        }
        for (int64_t a : axes) {
          const size_t d = static_cast<size_t>(a);
          scales[d] = s;
          ONYX_ASSIGN_OR_RETURN(out_shape[d], ScaledLength(x_shape[d], s, true));
        }
      }
    }

    std::vector<double> roi_start(static_cast<size_t>(rank), 0.0), roi_end(static_cast<size_t>(rank), 1.0);
    if (params_.coord == Coord::kTfCropAndResize) {
      if (!ctx.has_input(1) || ctx.input(1).size() == 0) {
        return InvalidArgument("coordinate_transformation_mode tf_crop_and_resize needs input 'roi' (1)");
      }
      ONYX_ASSIGN_OR_RETURN(std::vector<double> roi, ReadAsDoubles(ctx.input(1), "input 'roi' (1)"));
      if (roi.size() != 2 * naxes) {
        return InvalidArgument("input 'roi' (1) has " + std::to_string(roi.size()) + " elements, expected " +
                               std::to_string(2 * naxes));
      }
      for (size_t i = 0; i < naxes; ++i) {
        roi_start[static_cast<size_t>(axes[i])] = roi[i];
        roi_end[static_cast<size_t>(axes[i])] = roi[naxes + i];
      }
    }
    return ResizeTarget{scales, out_shape, roi_start, roi_end};
  }

 private:
  std::vector<int64_t> axes_;
  AspectPolicy policy_ = AspectPolicy::kStretch;
};

}  // namespace

void RegisterResizeOps(KernelRegistry& registry) {
  registry.Add("", "Upsample", 1, 10, MakeFactory<UpsampleKernel>());
  registry.Add("", "Resize", 10, 10, MakeFactory<UpsampleKernel>());
  registry.Add("", "Resize", 11, kLatestVersion, MakeFactory<ResizeKernel>());
  // The blocked form: Upsample's and Resize-10's semantics or Resize-11+'s, as its attributes say.
  const KernelFactory upsample = MakeFactory<UpsampleKernel>(), resize = MakeFactory<ResizeKernel>();
  registry.Add(ir::kInternalDomain, ir::nchwc::kResize, 1, 1,
               [upsample, resize](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
                 const bool resize_11 = info.GetString("onnx_op") == "Resize" && info.GetInt("onnx_version", 0) >= 11;
                 return resize_11 ? resize(info) : upsample(info);
               });
}

}  // namespace onyx::ops::image
