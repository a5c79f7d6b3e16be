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
#include <string>
#include <vector>

#include "kernels/int8_requantize.h"
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
    const int64_t out_image = axes[0].out * axes[1].out * axes[2].out;
    const int64_t kernel_size = axes[0].kernel * axes[1].kernel * axes[2].kernel;
    bool global = true;
    for (size_t a = 0; a < spatial; ++a) {
      global = global && axes[a].kernel == axes[a].in && axes[a].pad_begin == 0 && axes[a].pad_end == 0;
    }
    auto run = [&](const auto* in, auto* out) {
      using Q = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
      if (global) {
        GlobalAverage(in, x_scale, x_zp, y_scale, y_zp, batch, channels, in_image, out);
        return;
      }
      float dequantized[256];
      for (int b = 0; b < 256; ++b) dequantized[b] = x_scale * static_cast<float>(ByteValue(type, b) - x_zp);
      // Element strides of the three spatial axes and of the channels, per layout.
      const int64_t c_stride = channels_last_ ? 1 : in_image;
      const int64_t step = channels_last_ ? channels : 1;
      const int64_t s2 = step, s1 = axes[2].in * s2, s0 = axes[1].in * s1;
      const int64_t oc_stride = channels_last_ ? 1 : out_image, o_step = channels_last_ ? channels : 1;
      ParallelFor(batch * channels, in_image, [&](int64_t lo, int64_t hi) {
        for (int64_t nc = lo; nc < hi; ++nc) {
          const int64_t n = nc / channels, c = nc % channels;
          const Q* img = in + n * channels * in_image + c * c_stride;
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
                    const Q* p = img + (b0 + t0) * s0 + (b1 + t1) * s1 + b2 * s2;
                    for (int64_t t2 = r2.first; t2 < r2.last; ++t2) {
                      sum += dequantized[static_cast<uint8_t>(p[t2 * s2])];
                    }
                  }
                }
                const int64_t count = count_include_pad_
                                          ? kernel_size
                                          : (r0.last - r0.first) * (r1.last - r1.first) * (r2.last - r2.first);
                o[op * o_step] = QuantizeMean<Q>(sum / static_cast<float>(count), y_scale, y_zp);
              }
            }
          }
        }
      });
    };
    if (type == DataType::kUint8) {
      run(x->data<uint8_t>(), y.data<uint8_t>());
    } else {
      run(x->data<int8_t>(), y.data<int8_t>());
    }
    return Status::Ok();
  }

 private:
  // MLAS's global average (as QLinearGlobalAveragePool): the exact int32 sum less x_zp * size, requantized with the
  // float scale x_scale / (y_scale * size).
  template <typename Q>
  void GlobalAverage(const Q* in, float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, int64_t batch,
                     int64_t channels, int64_t size, Q* out) const {
    const float scale = x_scale / (y_scale * static_cast<float>(size));
    ParallelFor(batch * channels, size, [&](int64_t lo, int64_t hi) {
      for (int64_t nc = lo; nc < hi; ++nc) {
        const int64_t n = nc / channels, c = nc % channels;
        const int64_t base = channels_last_ ? n * size * channels + c : nc * size;
        const int64_t stride = channels_last_ ? channels : 1;
        int32_t sum = -x_zp * static_cast<int32_t>(size);
        for (int64_t i = 0; i < size; ++i) sum += in[base + i * stride];
        out[channels_last_ ? n * channels + c : nc] = kernels::RequantizeValue<Q>(sum, scale, y_zp);
      }
    });
  }

  nn::WindowAttrs attrs_;
  bool count_include_pad_ = false;
  bool channels_last_ = false;
};

}  // namespace

void RegisterQLinearAveragePoolOps(KernelRegistry& registry) {
  registry.Add("com.microsoft", "QLinearAveragePool", 1, kLatestVersion, MakeFactory<QLinearAveragePoolKernel>());
}

}  // namespace onyx::ops::quant
