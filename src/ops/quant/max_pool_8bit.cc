// ai.onyx.internal.MaxPool: MaxPool of a 2-D uint8 or int8 image batch [N, C, H, W] (attributes as ONNX MaxPool:
// kernel_shape, strides, pads, dilations, auto_pad, ceil_mode; no Indices output). The QDQ fusion emits it for
// DQ -> MaxPool -> Q groups with equal parameters (the maximum commutes with a positive-scale dequantization, so
// this is exactly what ONNX Runtime's dropped group computes); onyx's general MaxPool handles 8-bit data too but with
// its N-D reference loops, ~20x slower on ResNet-50's first pooling. With channels_last = 1 (from the int8 layout
// pass, optimizer/int8_nhwc_layout.h) the image is [N, H, W, C] and the output [N, OH, OW, C]: the maximum then runs
// over whole pixels of contiguous channels, in vectors (kernels::MaxPoolRow).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/int8_pool.h"
#include "ops/common/parallel.h"
#include "ops/nn/window.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

class MaxPool8BitKernel : public OpKernel {
 public:
  // nhwc_op: ONNX Runtime's com.microsoft NhwcMaxPool, channels last without the attribute.
  explicit MaxPool8BitKernel(bool nhwc_op = false) : nhwc_op_(nhwc_op) {}

  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, true));
    if (attrs_.kernel_shape.size() != 2) return info.Error("only 2-D pooling is supported");
    if (info.num_outputs() > 1) return info.Error("the Indices output is not supported");
    channels_last_ = nhwc_op_ || info.GetInt("channels_last", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if ((x->type() != DataType::kUint8 && x->type() != DataType::kInt8) || x->rank() != 4) {
      return InvalidArgument(std::string("input 'X' (0) must be a uint8 or int8 ") +
                             (channels_last_ ? "[N, H, W, C]" : "[N, C, H, W]") + " tensor, got " +
                             std::string(DataTypeName(x->type())) + " " + ShapeToString(x->shape()));
    }
    if (channels_last_) return ComputeChannelsLast(ctx, *x);
    ONYX_ASSIGN_OR_RETURN(std::vector<nn::WindowAxis> axes,
                          nn::ResolveWindow(attrs_, Shape{x->dim(2), x->dim(3)}, Shape{}));
    const nn::WindowAxis& h = axes[0];
    const nn::WindowAxis& w = axes[1];
    Tensor& y = ctx.AllocateOutput(0, x->type(), {x->dim(0), x->dim(1), h.out, w.out});
    const int64_t planes = x->dim(0) * x->dim(1);
    auto run = [&](const auto* in, auto* out) {
      using Q = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
      ParallelFor(planes, h.in * w.in, [&](int64_t lo, int64_t hi) {
        for (int64_t p = lo; p < hi; ++p) {
          const Q* src = in + p * h.in * w.in;
          Q* dst = out + p * h.out * w.out;
          // Separable, per output row: the maximum over the window's rows inside the image, pixel by pixel of a
          // whole input row (contiguous, vectorized), then over the window's columns of that row, tap by tap over
          // the output pixels whose tap falls inside (no branch in the loops). A window with no tap inside stays
          // the type's lowest value, as before.
          // (8-bit pointers may alias anything: the loops go through __restrict locals, or the compiler reloads
          // and does not vectorize.)
          thread_local std::vector<Q> column_max_of_thread;
          column_max_of_thread.resize(static_cast<size_t>(w.in));
          Q* __restrict cm = column_max_of_thread.data();
          const int64_t in_w = w.in, out_w = w.out, stride = w.stride;
          for (int64_t oh = 0; oh < h.out; ++oh) {
            std::fill(cm, cm + in_w, std::numeric_limits<Q>::lowest());
            for (int64_t kh = 0; kh < h.kernel; ++kh) {
              const int64_t ih = oh * h.stride - h.pad_begin + kh * h.dilation;
              if (ih < 0 || ih >= h.in) continue;
              const Q* __restrict row = src + ih * in_w;
              for (int64_t iw = 0; iw < in_w; ++iw) cm[iw] = std::max(cm[iw], row[iw]);
            }
            Q* __restrict out_row = dst + oh * out_w;
            std::fill(out_row, out_row + out_w, std::numeric_limits<Q>::lowest());
            for (int64_t kw = 0; kw < w.kernel; ++kw) {
              // iw = ow * stride + shift must lie in [0, in): ow in [first, last).
              const int64_t shift = kw * w.dilation - w.pad_begin;
              const int64_t first = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
              const int64_t last = in_w - 1 - shift < 0 ? 0 : std::min<int64_t>(out_w, (in_w - 1 - shift) / stride + 1);
              for (int64_t ow = first; ow < last; ++ow) out_row[ow] = std::max(out_row[ow], cm[ow * stride + shift]);
            }
          }
        }
      });
    };
    if (x->type() == DataType::kUint8) {
      run(x->data<uint8_t>(), y.data<uint8_t>());
    } else {
      run(x->data<int8_t>(), y.data<int8_t>());
    }
    return Status::Ok();
  }

  Status ComputeChannelsLast(KernelContext& ctx, const Tensor& x) {
    ONYX_ASSIGN_OR_RETURN(std::vector<nn::WindowAxis> axes,
                          nn::ResolveWindow(attrs_, Shape{x.dim(1), x.dim(2)}, Shape{}));
    const nn::WindowAxis& h = axes[0];
    const nn::WindowAxis& w = axes[1];
    const int64_t c = x.dim(3);
    Tensor& y = ctx.AllocateOutput(0, x.type(), {x.dim(0), h.out, w.out, c});
    const int64_t max_taps = h.kernel * w.kernel;
    auto run = [&](const auto* in, auto* out) {
      ParallelFor(x.dim(0) * h.out, w.out * c * max_taps, [&](int64_t lo, int64_t hi) {
        // Per output row, each pixel's taps inside the image as offsets from the row's first window row inside the
        // image (kernels::MaxPoolRow); buffers of the calling thread, kept from run to run. The offsets depend on
        // the row only through which window rows fall inside the image [kh_lo, kh_hi): rebuilt where that changes
        // (the top and bottom borders), not per row (ResNet-50's first pooling: 28K offsets a run).
        thread_local std::vector<int64_t> offsets_of_thread;
        thread_local std::vector<int32_t> counts_of_thread;
        std::vector<int64_t>& offsets = offsets_of_thread;
        std::vector<int32_t>& counts = counts_of_thread;
        if (offsets.size() < static_cast<size_t>(w.out * max_taps))
          offsets.resize(static_cast<size_t>(w.out * max_taps));
        if (counts.size() < static_cast<size_t>(w.out)) counts.resize(static_cast<size_t>(w.out));
        int64_t built_lo = -1, built_hi = -1;
        for (int64_t row = lo; row < hi; ++row) {
          const int64_t n = row / h.out, oh = row % h.out;
          const int64_t top = oh * h.stride - h.pad_begin;  // input row of window row 0
          int64_t kh_lo = 0, kh_hi = h.kernel;
          while (kh_lo < kh_hi && top + kh_lo * h.dilation < 0) ++kh_lo;
          while (kh_hi > kh_lo && top + (kh_hi - 1) * h.dilation >= h.in) --kh_hi;
          if (kh_lo != built_lo || kh_hi != built_hi) {
            for (int64_t ow = 0; ow < w.out; ++ow) {
              int32_t taps = 0;
              int64_t* tap = offsets.data() + ow * max_taps;
              for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
                for (int64_t kw = 0; kw < w.kernel; ++kw) {
                  const int64_t iw = ow * w.stride - w.pad_begin + kw * w.dilation;
                  if (iw >= 0 && iw < w.in) tap[taps++] = ((kh - kh_lo) * h.dilation * w.in + iw) * c;
                }
              }
              counts[static_cast<size_t>(ow)] = taps;
            }
            built_lo = kh_lo;
            built_hi = kh_hi;
          }
          // (a window wholly in the padding has no taps: any row of the image serves as the base)
          const int64_t first_row = kh_lo < kh_hi ? top + kh_lo * h.dilation : 0;
          kernels::MaxPoolRow(in + (n * h.in + first_row) * w.in * c, offsets.data(), counts.data(), max_taps, w.out, c,
                              out + (n * h.out + oh) * w.out * c);
        }
      });
    };
    if (x.type() == DataType::kUint8) {
      run(x.data<uint8_t>(), y.data<uint8_t>());
    } else {
      run(x.data<int8_t>(), y.data<int8_t>());
    }
    return Status::Ok();
  }

 private:
  bool channels_last_ = false;
  nn::WindowAttrs attrs_;
  bool nhwc_op_ = false;
};

}  // namespace

void RegisterMaxPool8BitOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "MaxPool", 1, kLatestVersion, MakeFactory<MaxPool8BitKernel>());
  registry.Add("com.microsoft", "NhwcMaxPool", 1, kLatestVersion,
               [](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
                 auto k = std::make_unique<MaxPool8BitKernel>(true);
                 ONYX_RETURN_IF_ERROR(k->Init(info));
                 return std::unique_ptr<OpKernel>(std::move(k));
               });
}

}  // namespace onyx::ops::quant
