#include "ops/nn/conv_core.h"

#include <string>

#include "kernels/dnnl_util.h"
#include "kernels/int8_conv.h"
#include "kernels/int8_gemm.h"

namespace onyx::ops::nn {

Result<ConvGeometry> ResolveConv(const WindowAttrs& attrs, int64_t group, const Shape& x, const Shape& w) {
  if (x.size() < 3) {
    return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x) +
                           ", expected [N, C, D1, ...] with at least one spatial dim");
  }
  if (w.size() != x.size()) {
    return InvalidArgument("input 'W' (1) has shape " + ShapeToString(w) + ", expected rank " +
                           std::to_string(x.size()) + " like X " + ShapeToString(x));
  }
  ConvGeometry g;
  g.batch = x[0];
  g.in_channels = x[1];
  g.out_channels = w[0];
  g.group = group;
  if (g.in_channels % group != 0 || g.out_channels % group != 0) {
    return InvalidArgument("X channels " + std::to_string(g.in_channels) + " and W output channels " +
                           std::to_string(g.out_channels) + " must both be divisible by group " +
                           std::to_string(group));
  }
  if (w[1] != g.in_channels / group) {
    return InvalidArgument("input 'W' (1) has shape " + ShapeToString(w) + ": dim 1 should be C / group = " +
                           std::to_string(g.in_channels / group) + " for X " + ShapeToString(x));
  }
  ONYX_ASSIGN_OR_RETURN(g.axes, ResolveWindow(attrs, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end())));
  g.out_shape = {g.batch, g.out_channels};
  for (const auto& a : g.axes) g.out_shape.push_back(a.out);
  return g;
}

kernels::Int8ConvDims Int8ConvDimsOf(const ConvGeometry& g) {
  kernels::Int8ConvDims d;
  d.batch = g.batch;
  d.in_channels = g.in_channels;
  d.out_channels = g.out_channels;
  d.group = g.group;
  const WindowAxis* h = g.axes.size() == 2 ? &g.axes[0] : nullptr;  // 1-D runs as 2-D with one row
  const WindowAxis& w = g.axes.back();
  if (h != nullptr) {
    d.in_h = h->in, d.out_h = h->out, d.kernel_h = h->kernel, d.stride_h = h->stride, d.dilation_h = h->dilation;
    d.pad_top = h->pad_begin, d.pad_bottom = h->pad_end;
  }
  d.in_w = w.in, d.out_w = w.out, d.kernel_w = w.kernel, d.stride_w = w.stride, d.dilation_w = w.dilation;
  d.pad_left = w.pad_begin, d.pad_right = w.pad_end;
  return d;
}

std::vector<float> QLinearConvScales(const Tensor& x_scale, const Tensor& w_scale, const Tensor& y_scale,
                                     int64_t out_channels) {
  const float xs = static_cast<float>(x_scale.DoubleAt(0));
  const float ys = static_cast<float>(y_scale.DoubleAt(0));
  std::vector<float> scales(static_cast<size_t>(out_channels));
  for (int64_t m = 0; m < out_channels; ++m) {
    const float ws = static_cast<float>(w_scale.DoubleAt(w_scale.size() == 1 ? 0 : m));
    scales[static_cast<size_t>(m)] = xs * ws / ys;
  }
  return scales;
}

PackedInt8Conv::PackedInt8Conv() = default;
PackedInt8Conv::~PackedInt8Conv() = default;

void PackedInt8Conv::Init(const KernelInfo& info, size_t w_index, size_t w_zp_index) {
  if (kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kReferenceOnly) return;
  const Tensor* w = info.ConstantInput(w_index);
  if (w == nullptr || w->type() != DataType::kInt8 || (w->rank() != 3 && w->rank() != 4)) return;
  if (info.has_input(w_zp_index)) {
    const Tensor* z = info.ConstantInput(w_zp_index);
    if (z == nullptr || z->type() != DataType::kInt8) return;
    for (int64_t i = 0; i < z->size(); ++i) {
      if (z->data<int8_t>()[i] != 0) return;
    }
  }
  // Without VNNI oneDNN's convolution pairs products in saturating int16 in its own layout: only weights that no
  // pairing can clip take it; the others go the GEMM way, which splits them (kernels/int8_gemm.h).
  // One input channel per group (depthwise): oneDNN's depthwise kernel widens each product to int32 (exact; the
  // exactness tests pass on such CPUs), nothing to pair.
  if (w->dim(1) != 1 && !kernels::Int8WeightsCannotClip(w->data<int8_t>(), w->size())) return;
  weights_ = *w;
  enabled_ = true;
}

Result<bool> PackedInt8Conv::Run(const ConvGeometry& g, const Tensor& x, const Tensor* x_zp, int threads,
                                 std::unique_ptr<int32_t[]>* acc) {
  if (!enabled_ || (x.type() != DataType::kUint8 && x.type() != DataType::kInt8)) return false;
  if (!kernels::Int8GemmUsable(x.type() == DataType::kInt8)) return false;
  const kernels::Int8ConvDims d = Int8ConvDimsOf(g);
  if (d.batch * d.out_h * d.out_w * d.out_channels == 0 || d.in_channels == 0) return false;
  const bool is_signed = x.type() == DataType::kInt8;
  const int run_threads = kernels::Int8ConvThreads(d, threads);  // depthwise counted by its real cost
  std::shared_ptr<kernels::Int8Conv> conv;
  {
    // Session::Run may be called from several threads; the primitive is rebuilt only when its inputs change.
    std::lock_guard<std::mutex> lock(mutex_);
    const Key key{d, is_signed, run_threads};
    if (refused_ && refused_key_ == key) return false;
    if (conv_ == nullptr || !(key_ == key)) {
      auto made = kernels::Int8Conv::Create(d, is_signed, weights_.data<int8_t>(), run_threads);
      if (!made.ok()) {  // oneDNN has no fast kernel for this shape: not asked again for it
        refused_ = true;
        refused_key_ = key;
        return false;
      }
      conv_ = std::move(*made);
      key_ = key;
    }
    conv = conv_;
  }
  int32_t xz = 0;
  if (x_zp != nullptr) xz = is_signed ? x_zp->data<int8_t>()[0] : x_zp->data<uint8_t>()[0];
  acc->reset(new int32_t[static_cast<size_t>(d.batch * d.out_h * d.out_w * d.out_channels + conv->OutputSlack())]);
  ONYX_RETURN_IF_ERROR(conv->Run(x.raw(), xz, acc->get()));
  return true;
}

}  // namespace onyx::ops::nn
