// com.microsoft.QLinearAveragePool(X, x_scale, x_zero_point, y_scale, y_zero_point) on uint8 or int8 images of 1 to
// 3 spatial dims, attributes as AveragePool's (kernel_shape, strides, pads, auto_pad, ceil_mode, count_include_pad)
// plus channels_last ([N, D1, ..., C] in and out), computed as ONNX Runtime computes it: X dequantized to float
// (x_scale * (q - x_zero_point)), each window summed in float in row-major order of its taps inside the image,
// divided by the tap count (the whole kernel's with count_include_pad), and quantized as
// saturate(round_half_even(mean / y_scale + y_zero_point)) (the zero point added before rounding, unlike
// QuantizeLinear). Dilations are ignored, as there. A window covering the whole image without padding takes ONNX
// Runtime's global-average path instead (an exact integer sum: QLinearGlobalAveragePool's arithmetic).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

template <typename Q>
Q QuantizeMean(float mean, float y_scale, int32_t y_zp) {
  constexpr int32_t lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  const int32_t v = static_cast<int32_t>(std::nearbyint(mean / y_scale + static_cast<float>(y_zp)));
  return static_cast<Q>(std::max(lo, std::min(v, hi)));
}

// out[i] = QuantizeMean(sums[i] / count) for i < n, four at a time with SSE2: the same two divisions and the addition,
// then cvtps2dq (round half to even, as nearbyint) on the value clamped to +-2^20 (which cannot change a saturated
// result) and saturating packs. The same bytes as QuantizeMean for finite sums.
template <typename Q>
void QuantizeMeans(const float* sums, int64_t n, float count, float y_scale, int32_t y_zp, Q* out) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 vc = _mm_set1_ps(count), vs = _mm_set1_ps(y_scale), vz = _mm_set1_ps(static_cast<float>(y_zp));
  const __m128 lo = _mm_set1_ps(-1048576.0f), hi = _mm_set1_ps(1048576.0f);
  for (; i + 4 <= n; i += 4) {
    __m128 t = _mm_add_ps(_mm_div_ps(_mm_div_ps(_mm_loadu_ps(sums + i), vc), vs), vz);
    t = _mm_min_ps(_mm_max_ps(t, lo), hi);
    const __m128i r16 = _mm_packs_epi32(_mm_cvtps_epi32(t), _mm_setzero_si128());
    const __m128i r8 = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(r16, r16) : _mm_packs_epi16(r16, r16);
    const int32_t bytes = _mm_cvtsi128_si32(r8);
    std::memcpy(out + i, &bytes, 4);
  }
#endif
  for (; i < n; ++i) out[i] = QuantizeMean<Q>(sums[i] / count, y_scale, y_zp);
}

// One average pooling's geometry and output parameters (three axes, unit ones after the real ones).
struct Pool {
  const std::vector<nn::WindowAxis>& axes;
  bool count_include_pad;
  int64_t kernel_size;
  float y_scale;
  int32_t y_zp;
  int64_t Count(int64_t taps) const { return count_include_pad ? kernel_size : taps; }
};

// [planes, H, W] floats to [planes, OH, OW]: each sum over the window's taps inside the image, row by row (ONNX
// Runtime's order). Outputs whose window lies inside the image along W are summed a row of outputs at a time (one
// running sum per output, the taps in the same order: the compiler vectorizes across outputs), the border ones one
// by one.
template <typename Q>
void PoolPlanes(const Pool& p, const float* f, int64_t planes, Q* out) {
  const nn::WindowAxis &ah = p.axes[0], &aw = p.axes[1];
  const int64_t in_plane = ah.in * aw.in, out_plane = ah.out * aw.out;
  const nn::IndexRange inner = nn::WholeWindowOutputs(aw);
  ParallelFor(planes, in_plane * 4, [&](int64_t lo, int64_t hi) {
    std::vector<float> acc(static_cast<size_t>(aw.out));
    for (int64_t pl = lo; pl < hi; ++pl) {
      const float* plane = f + pl * in_plane;
      Q* o = out + pl * out_plane;
      for (int64_t oh = 0; oh < ah.out; ++oh) {
        const nn::IndexRange r0 = nn::ValidTapRange(ah, oh);
        const int64_t b0 = oh * ah.stride - ah.pad_begin;
        Q* orow = o + oh * aw.out;
        for (int64_t ow = inner.first; ow < inner.last; ++ow) acc[static_cast<size_t>(ow)] = 0.0f;
        for (int64_t t0 = r0.first; t0 < r0.last; ++t0) {
          const float* row = plane + (b0 + t0) * aw.in - aw.pad_begin;
          for (int64_t t1 = 0; t1 < aw.kernel; ++t1) {
            const float* src = row + t1;
            float* a = acc.data();
            if (aw.stride == 1) {
              for (int64_t ow = inner.first; ow < inner.last; ++ow) a[ow] += src[ow];
            } else {
              for (int64_t ow = inner.first; ow < inner.last; ++ow) a[ow] += src[ow * aw.stride];
            }
          }
        }
        const auto inner_count = static_cast<float>(p.Count((r0.last - r0.first) * aw.kernel));
        QuantizeMeans<Q>(acc.data() + inner.first, inner.last - inner.first, inner_count, p.y_scale, p.y_zp,
                         orow + inner.first);
        for (int64_t ow = 0; ow < aw.out; ++ow) {
          if (ow >= inner.first && ow < inner.last) continue;  // done above
          const nn::IndexRange r1 = nn::ValidTapRange(aw, ow);
          const int64_t b1 = ow * aw.stride - aw.pad_begin;
          float sum = 0.0f;
          for (int64_t t0 = r0.first; t0 < r0.last; ++t0) {
            const float* row = plane + (b0 + t0) * aw.in + b1;
            for (int64_t t1 = r1.first; t1 < r1.last; ++t1) sum += row[t1];
          }
          const auto count = static_cast<float>(p.Count((r0.last - r0.first) * (r1.last - r1.first)));
          orow[ow] = QuantizeMean<Q>(sum / count, p.y_scale, p.y_zp);
        }
      }
    }
  });
}

// [N, H, W, C] floats to [N, OH, OW, C]: per output pixel one running sum per channel over the window's taps, row by
// row (ONNX Runtime's channels-last order), the channels vectorized.
template <typename Q>
void PoolPixels(const Pool& p, const float* f, int64_t batch, int64_t channels, Q* out) {
  const nn::WindowAxis &ah = p.axes[0], &aw = p.axes[1];
  const int64_t out_image = ah.out * aw.out;
  ParallelFor(batch * out_image, channels * p.kernel_size, [&](int64_t lo, int64_t hi) {
    std::vector<float> acc(static_cast<size_t>(channels));
    for (int64_t idx = lo; idx < hi; ++idx) {
      const int64_t n = idx / out_image, op = idx % out_image, oh = op / aw.out, ow = op % aw.out;
      const nn::IndexRange r0 = nn::ValidTapRange(ah, oh), r1 = nn::ValidTapRange(aw, ow);
      const int64_t b0 = oh * ah.stride - ah.pad_begin, b1 = ow * aw.stride - aw.pad_begin;
      float* a = acc.data();
      for (int64_t c = 0; c < channels; ++c) a[c] = 0.0f;
      for (int64_t t0 = r0.first; t0 < r0.last; ++t0) {
        for (int64_t t1 = r1.first; t1 < r1.last; ++t1) {
          const float* px = f + ((n * ah.in + b0 + t0) * aw.in + b1 + t1) * channels;
          for (int64_t c = 0; c < channels; ++c) a[c] += px[c];
        }
      }
      const auto count = static_cast<float>(p.Count((r0.last - r0.first) * (r1.last - r1.first)));
      QuantizeMeans<Q>(a, channels, count, p.y_scale, p.y_zp, out + idx * channels);
    }
  });
}

// Any rank (1 to 3 spatial axes), either layout: one output at a time.
template <typename Q>
void PoolAnyRank(const Pool& p, const float* f, int64_t batch, int64_t channels, bool channels_last, Q* out) {
  const auto& axes = p.axes;
  const int64_t in_image = axes[0].in * axes[1].in * axes[2].in;
  const int64_t out_image = axes[0].out * axes[1].out * axes[2].out;
  // Element strides of the three spatial axes and of the channels, per layout.
  const int64_t c_stride = channels_last ? 1 : in_image;
  const int64_t step = channels_last ? channels : 1;
  const int64_t s2 = step, s1 = axes[2].in * s2, s0 = axes[1].in * s1;
  const int64_t oc_stride = channels_last ? 1 : out_image, o_step = channels_last ? channels : 1;
  ParallelFor(batch * channels, in_image, [&](int64_t lo, int64_t hi) {
    for (int64_t nc = lo; nc < hi; ++nc) {
      const int64_t n = nc / channels, c = nc % channels;
      const float* img = f + n * channels * in_image + c * c_stride;
      Q* o = out + n * channels * out_image + c * oc_stride;
      int64_t op = 0;
      for (int64_t o0 = 0; o0 < axes[0].out; ++o0) {
        const nn::IndexRange r0 = nn::ValidTapRange(axes[0], o0);
        const int64_t b0 = o0 * axes[0].stride - axes[0].pad_begin;
        for (int64_t o1 = 0; o1 < axes[1].out; ++o1) {
          const nn::IndexRange r1 = nn::ValidTapRange(axes[1], o1);
          const int64_t b1 = o1 * axes[1].stride - axes[1].pad_begin;
          for (int64_t o2 = 0; o2 < axes[2].out; ++o2, ++op) {
            const nn::IndexRange r2 = nn::ValidTapRange(axes[2], o2);
            const int64_t b2 = o2 * axes[2].stride - axes[2].pad_begin;
            float sum = 0.0f;
            for (int64_t t0 = r0.first; t0 < r0.last; ++t0) {
              for (int64_t t1 = r1.first; t1 < r1.last; ++t1) {
                const float* q = img + (b0 + t0) * s0 + (b1 + t1) * s1 + b2 * s2;
                for (int64_t t2 = r2.first; t2 < r2.last; ++t2) sum += q[t2 * s2];
              }
            }
            const int64_t taps = (r0.last - r0.first) * (r1.last - r1.first) * (r2.last - r2.first);
            o[op * o_step] = QuantizeMean<Q>(sum / static_cast<float>(p.Count(taps)), p.y_scale, p.y_zp);
          }
        }
      }
    }
  });
}

class QLinearAveragePoolKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, true));
    attrs_.dilations.clear();  // ONNX Runtime's kernel reads no dilations
    count_include_pad_ = info.GetInt("count_include_pad", 0) != 0;
    channels_last_ = info.GetInt("channels_last", 0) != 0;
    if (attrs_.kernel_shape.size() > 3) {
      return info.Error("pooling over " + std::to_string(attrs_.kernel_shape.size()) +
                        " spatial dims is not supported (1 to 3)");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* xs_t, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* xz_t, nn::OptionalTensorInput(ctx, 2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* ys_t, ctx.TensorInput(3));
    ONYX_ASSIGN_OR_RETURN(const Tensor* yz_t, nn::OptionalTensorInput(ctx, 4));
    const DataType type = x->type();
    if (type != DataType::kUint8 && type != DataType::kInt8) {
      return InvalidArgument("input 'X' (0) must be uint8 or int8, got " + std::string(DataTypeName(type)));
    }
    ONYX_ASSIGN_OR_RETURN(float x_scale, ScalarScale(*xs_t, "input 'x_scale' (1)"));
    ONYX_ASSIGN_OR_RETURN(int32_t x_zp, ScalarZeroPoint(xz_t, type, "input 'x_zero_point' (2)"));
    ONYX_ASSIGN_OR_RETURN(float y_scale, ScalarScale(*ys_t, "input 'y_scale' (3)"));
    ONYX_ASSIGN_OR_RETURN(int32_t y_zp, ScalarZeroPoint(yz_t, type, "input 'y_zero_point' (4)"));
    const size_t spatial = attrs_.kernel_shape.size();
    if (x->rank() != static_cast<int64_t>(spatial + 2)) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected " +
                             std::to_string(spatial + 2) + " dims for a kernel of " + std::to_string(spatial));
    }
    // [N, C, spatial...] whatever the layout.
    const Shape& xs = x->shape();
    const int64_t batch = xs[0];
    const int64_t channels = channels_last_ ? xs.back() : xs[1];
    Shape in_spatial(xs.begin() + (channels_last_ ? 1 : 2), xs.end() - (channels_last_ ? 1 : 0));
    ONYX_ASSIGN_OR_RETURN(std::vector<nn::WindowAxis> axes, nn::ResolveWindow(attrs_, in_spatial, {}));
    while (axes.size() < 3) {  // unit axes after the real ones: one loop nest for 1 to 3 dims
      nn::WindowAxis unit;
      unit.in = unit.out = 1;
      axes.push_back(unit);
    }
    Shape out_shape{batch};
    if (!channels_last_) out_shape.push_back(channels);
    for (size_t a = 0; a < spatial; ++a) out_shape.push_back(axes[a].out);
    if (channels_last_) out_shape.push_back(channels);
    ONYX_RETURN_IF_ERROR(CheckedNumElements(out_shape).status());
    Tensor& y = ctx.AllocateOutput(0, type, out_shape);
    if (y.size() == 0) return Status::Ok();
    const int64_t in_image = axes[0].in * axes[1].in * axes[2].in;
    const int64_t kernel_size = axes[0].kernel * axes[1].kernel * axes[2].kernel;
    bool global = true;
    for (size_t a = 0; a < spatial; ++a) {
      global = global && axes[a].kernel == axes[a].in && axes[a].pad_begin == 0 && axes[a].pad_end == 0;
    }
    if (global) {
      if (type == DataType::kUint8) {
        return QLinearGlobalAverage(x->data<uint8_t>(), batch, channels, in_image, channels_last_, x_scale, x_zp,
                                    y_scale, y_zp, y.data<uint8_t>());
      }
      return QLinearGlobalAverage(x->data<int8_t>(), batch, channels, in_image, channels_last_, x_scale, x_zp, y_scale,
                                  y_zp, y.data<int8_t>());
    }
    auto run = [&](const auto* in, auto* out) {
      using Q = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
      // The image dequantized first, as ONNX Runtime does (x_scale * (q - x_zp), one table per byte value).
      float dequantized[256];
      for (int b = 0; b < 256; ++b) dequantized[b] = x_scale * static_cast<float>(ByteValue(type, b) - x_zp);
      // Kept from run to run (per calling thread: runs may overlap): no allocation, and no page faults on a fresh
      // megabyte, per run.
      thread_local std::vector<float> buffer;
      if (buffer.size() < static_cast<size_t>(x->size())) buffer.resize(static_cast<size_t>(x->size()));
      // A plain pointer for the workers: inside their lambdas `buffer` would name their own thread's vector.
      float* f = buffer.data();
      ParallelFor(x->size(), 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) f[i] = dequantized[static_cast<uint8_t>(in[i])];
      });
      const Pool p{axes, count_include_pad_, kernel_size, y_scale, y_zp};
      if (spatial == 2 && !channels_last_) {
        PoolPlanes<Q>(p, f, batch * channels, out);
      } else if (spatial == 2) {
        PoolPixels<Q>(p, f, batch, channels, out);
      } else {
        PoolAnyRank<Q>(p, f, batch, channels, channels_last_, out);
      }
    };
    if (type == DataType::kUint8) {
      run(x->data<uint8_t>(), y.data<uint8_t>());
    } else {
      run(x->data<int8_t>(), y.data<int8_t>());
    }
    return Status::Ok();
  }

 private:
  nn::WindowAttrs attrs_;
  bool count_include_pad_ = false;
  bool channels_last_ = false;
};

}  // namespace

void RegisterQLinearAveragePoolOps(KernelRegistry& registry) {
  registry.Add("com.microsoft", "QLinearAveragePool", 1, kLatestVersion, MakeFactory<QLinearAveragePoolKernel>());
}

}  // namespace onyx::ops::quant
