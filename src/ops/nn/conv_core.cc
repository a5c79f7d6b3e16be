#include "ops/nn/conv_core.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/int8_conv.h"
#include "kernels/int8_gemm.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_util.h"

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

bool MlasPairsAcrossTaps(const ConvGeometry& g, DataType x_type) {
  int64_t taps = 1;
  for (const WindowAxis& a : g.axes) taps *= a.kernel;
  return kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kSaturatingPairs && x_type == DataType::kUint8 &&
         g.group == 1 && g.in_channels % 2 == 1 && taps > 1 && g.axes.size() == 2;
}

bool WeightsMayPairAcrossTaps(const Tensor& w) {
  return kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kSaturatingPairs && w.rank() == 4 &&
         w.dim(1) % 2 == 1 && w.dim(2) * w.dim(3) > 1;
}

std::vector<int8_t> WeightsKhwc(const Tensor& w) {
  const int64_t m_count = w.dim(0), cg = w.dim(1), kernel = w.size() / std::max<int64_t>(1, m_count * cg);
  const int64_t kp = (kernel * cg + 3) / 4 * 4;
  std::vector<int8_t> out(static_cast<size_t>(m_count * kp), 0);
  for (int64_t m = 0; m < m_count; ++m) {
    for (int64_t ci = 0; ci < cg; ++ci) {
      for (int64_t t = 0; t < kernel; ++t) {
        out[static_cast<size_t>(m * kp + t * cg + ci)] = w.data<int8_t>()[(m * cg + ci) * kernel + t];
      }
    }
  }
  return out;
}

namespace {

// memcpy for the short runs of an im2col row (a few taps of a few channels): sizes from 4 to 64 bytes as two
// overlapping fixed-size copies each (inlined moves, no call), longer ones through memcpy.
inline void CopyRun(uint8_t* dst, const uint8_t* src, int64_t n) {
  if (n >= 32 && n <= 64) {
    std::memcpy(dst, src, 32);
    std::memcpy(dst + n - 32, src + n - 32, 32);
  } else if (n >= 16 && n < 32) {
    std::memcpy(dst, src, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8 && n < 16) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4 && n < 8) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n));
  }
}

}  // namespace

bool Im2colGemmSums(const ConvGeometry& g, const uint8_t* x, bool channels_last, int32_t xz, const int8_t* w_khwc,
                    int threads, int32_t* acc) {
  const WindowAxis& ah = g.axes[0];
  const WindowAxis& aw = g.axes[1];
  const int64_t c = g.in_channels, k = ah.kernel * aw.kernel * c, plane = ah.in * aw.in;
  const int64_t kp = (k + 3) / 4 * 4;  // rows padded with zeros, as MLAS packs them (and WeightsKhwc's rows)
  const int64_t pixels = g.batch * ah.out * aw.out;
  if (!channels_last) {
    // Channels first: the image channels last once (buffer of the calling thread), then the same rows.
    thread_local std::vector<uint8_t> nhwc_of_thread;
    std::vector<uint8_t>& nhwc = nhwc_of_thread;
    nhwc.resize(static_cast<size_t>(g.batch * plane * c));
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t ci = 0; ci < c; ++ci) {
        const uint8_t* src = x + (n * c + ci) * plane;
        uint8_t* dst = nhwc.data() + n * plane * c + ci;
        for (int64_t i = 0; i < plane; ++i) dst[i * c] = src[i];
      }
    }
    x = nhwc.data();
  }
  thread_local std::vector<uint8_t> rows_of_thread;
  std::vector<uint8_t>& rows = rows_of_thread;
  rows.resize(static_cast<size_t>(pixels * kp));
  const int64_t span = aw.kernel * c;  // a kernel row's taps, contiguous in the image when undilated and inside
  ParallelFor(pixels, k, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const int64_t n = p / (ah.out * aw.out), oh = p / aw.out % ah.out, ow = p % aw.out;
      const int64_t iw0 = ow * aw.stride - aw.pad_begin;
      const bool row_inside = aw.dilation == 1 && iw0 >= 0 && iw0 + aw.kernel <= aw.in;
      uint8_t* row = rows.data() + p * kp;
      std::fill(row + k, row + kp, uint8_t{0});
      for (int64_t kh = 0; kh < ah.kernel; ++kh, row += span) {
        const int64_t ih = oh * ah.stride - ah.pad_begin + kh * ah.dilation;
        if (ih < 0 || ih >= ah.in) {
          std::fill(row, row + span, static_cast<uint8_t>(xz));
          continue;
        }
        const uint8_t* src = x + ((n * ah.in + ih) * aw.in) * c;
        if (row_inside) {
          CopyRun(row, src + iw0 * c, span);
          continue;
        }
        for (int64_t kw = 0; kw < aw.kernel; ++kw) {
          const int64_t iw = iw0 + kw * aw.dilation;
          uint8_t* tap = row + kw * c;
          if (iw < 0 || iw >= aw.in) {
            std::fill(tap, tap + c, static_cast<uint8_t>(xz));
          } else {
            CopyRun(tap, src + iw * c, c);
          }
        }
      }
    }
  });
  return kernels::GemmInt8<uint8_t>(false, true, pixels, g.out_channels, kp, rows.data(), kp, static_cast<uint8_t>(xz),
                                    w_khwc, kp, 0, acc, g.out_channels, threads);
}

PackedInt8Conv::PackedInt8Conv() = default;
PackedInt8Conv::~PackedInt8Conv() = default;

void PackedInt8Conv::Init(const KernelInfo& info, size_t w_index, size_t w_zp_index) {
  if (kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kReferenceOnly) return;
  const Tensor* w = info.ConstantInput(w_index);
  if (w == nullptr || (w->type() != DataType::kInt8 && w->type() != DataType::kUint8) ||
      (w->rank() != 3 && w->rank() != 4)) {
    return;
  }
  const int64_t m_count = w->dim(0);
  std::vector<int32_t> w_zero_points(static_cast<size_t>(m_count), 0);
  if (info.has_input(w_zp_index)) {
    const Tensor* z = info.ConstantInput(w_zp_index);
    if (z == nullptr || z->type() != w->type() || (z->size() != 1 && z->size() != m_count)) return;
    const std::vector<int32_t> values = Int32Values(*z);
    for (int64_t m = 0; m < m_count; ++m) w_zero_points[static_cast<size_t>(m)] = values[z->size() == 1 ? 0 : m];
  }
  Tensor weights = *w;
  if (w->type() == DataType::kUint8) {
    // Only where oneDNN's products are exact (VNNI/AMX): ONNX Runtime's U8U8 kernels never clip, and W - 128 spans the
    // whole int8 range, whose neighbouring products oneDNN's AVX2 kernels would add in saturating pairs. Elsewhere
    // the exact int16-pair GEMM runs them (QuantizedConv).
    if (kernels::Int8GemmArithmetic() != kernels::Int8Arithmetic::kExact) return;
    // uint8 weights (TFLite's and TensorFlow 1's quantized models) with any zero points: W - wz = (W - 128) + (128 -
    // wz), so sum((x - xz) * (W - wz)) = sum((x - xz) * (W - 128)) + (128 - wz) * sum((x - xz)) over the taps. W - 128
    // is int8; the second sum is the same convolution with weights of one (for one group an extra output channel,
    // for depthwise a second primitive), added per output channel in Run.
    const int64_t group = info.GetInt("group", 1);
    const bool depthwise = group == m_count && w->dim(1) == 1;
    if (group != 1 && !depthwise) return;
    const int64_t per_channel = w->size() / std::max<int64_t>(m_count, 1);
    Shape shape = w->shape();
    if (!depthwise) shape[0] = m_count + 1;
    weights = Tensor::Allocate(DataType::kInt8, shape);
    const uint8_t* src = w->data<uint8_t>();
    int8_t* dst = weights.data<int8_t>();
    for (int64_t i = 0; i < w->size(); ++i) dst[i] = static_cast<int8_t>(src[i] ^ 0x80);
    if (depthwise) {
      ones_weights_ = Tensor::Allocate(DataType::kInt8, w->shape());
      std::fill(ones_weights_.data<int8_t>(), ones_weights_.data<int8_t>() + w->size(), int8_t{1});
    } else {
      std::fill(dst + w->size(), dst + w->size() + per_channel, int8_t{1});
    }
    weight_offsets_.resize(static_cast<size_t>(m_count));
    for (int64_t m = 0; m < m_count; ++m) {
      weight_offsets_[static_cast<size_t>(m)] = 128 - w_zero_points[static_cast<size_t>(m)];
    }
  } else {
    for (int32_t z : w_zero_points) {
      if (z != 0) return;  // oneDNN takes no weight zero point
    }
  }
  // Without VNNI oneDNN's convolution pairs products in saturating int16 in its own layout: only weights that no
  // pairing can clip take it; the others go the GEMM way, which splits them (kernels/int8_gemm.h).
  // One input channel per group (depthwise): oneDNN's depthwise kernel widens each product to int32 (exact; the
  // exactness tests pass on such CPUs), nothing to pair.
  if (w->dim(1) != 1 && !kernels::Int8WeightsCannotClip(weights.data<int8_t>(), weights.size())) return;
  // ConvInteger: ONNX Runtime's sums are exact where oneDNN's pairs could clip (no VNNI), so there only weights within
  // [-64, 64] (255 * 64 * 2 < 32767: no pair clips) take oneDNN's convolution; the others the GEMM way, split.
  if (info.op_type() == "ConvInteger" && w->dim(1) != 1 &&
      kernels::Int8GemmArithmetic() == kernels::Int8Arithmetic::kSaturatingPairs &&
      !kernels::Int8WeightsInSevenBits(weights.data<int8_t>(), weights.size())) {
    return;
  }
  weights_ = std::move(weights);
  enabled_ = true;
  // x's zero point (input 2 of ConvInteger and QLinearConv) where it is a constant: the primitive is built for it
  // (kernels::Int8Conv::Create; 0 brings in oneDNN's brgemm kernels).
  if (!info.has_input(2)) {
    constant_x_zero_point_ = 0;
  } else if (const Tensor* xz = info.ConstantInput(2);
             xz != nullptr && xz->size() == 1 && (xz->type() == DataType::kUint8 || xz->type() == DataType::kInt8)) {
    constant_x_zero_point_ = Int32Values(*xz)[0];
  }
  // QLinearConv only (ConvInteger's sums are exact, above), int8 weights.
  if (info.op_type() == "QLinearConv" && weight_offsets_.empty() && WeightsMayPairAcrossTaps(*w)) {
    weights_khwc_ = WeightsKhwc(*w);
  }
}

Result<bool> PackedInt8Conv::Run(const ConvGeometry& g, const Tensor& x, const Tensor* x_zp, int threads,
                                 std::unique_ptr<int32_t[]>* acc) {
  if (!enabled_ || (x.type() != DataType::kUint8 && x.type() != DataType::kInt8)) return false;
  if (!kernels::Int8GemmUsable(x.type() == DataType::kInt8)) return false;
  if (!weights_khwc_.empty() && MlasPairsAcrossTaps(g, x.type())) {
    const int32_t xz = x_zp != nullptr ? x_zp->data<uint8_t>()[0] : 0;
    acc->reset(new int32_t[static_cast<size_t>(g.batch * OutputSize(g.axes) * g.out_channels)]);
    return Im2colGemmSums(g, x.data<uint8_t>(), false, xz, weights_khwc_.data(), threads, acc->get());
  }
  const bool unsigned_weights = !weight_offsets_.empty();
  const bool ones_primitive = unsigned_weights && ones_weights_.size() > 0;
  kernels::Int8ConvDims d = Int8ConvDimsOf(g);
  if (d.batch * d.out_h * d.out_w * d.out_channels == 0 || d.in_channels == 0) return false;
  if (unsigned_weights && !ones_primitive) {
    if (d.group != 1) return false;
    d.out_channels += 1;  // the channel of ones (Init)
  }
  const bool is_signed = x.type() == DataType::kInt8;
  const int run_threads = kernels::Int8ConvThreads(d, threads);  // depthwise counted by its real cost
  std::shared_ptr<kernels::Int8Conv> conv, ones;
  {
    // Session::Run may be called from several threads; the primitive is rebuilt only when its inputs change.
    std::lock_guard<std::mutex> lock(mutex_);
    const Key key{d, is_signed, run_threads};
    if (refused_ && refused_key_ == key) return false;
    if (conv_ == nullptr || !(key_ == key)) {
      auto made = kernels::Int8Conv::Create(d, is_signed, weights_.data<int8_t>(), run_threads, nullptr, {},
                                            constant_x_zero_point_);
      Result<std::unique_ptr<kernels::Int8Conv>> made_ones = std::unique_ptr<kernels::Int8Conv>();
      if (made.ok() && ones_primitive) {
        made_ones = kernels::Int8Conv::Create(d, is_signed, ones_weights_.data<int8_t>(), run_threads, nullptr, {},
                                              constant_x_zero_point_);
      }
      if (!made.ok() || !made_ones.ok()) {  // oneDNN has no fast kernel for this shape: not asked again for it
        refused_ = true;
        refused_key_ = key;
        return false;
      }
      conv_ = std::move(*made);
      ones_conv_ = std::move(*made_ones);
      key_ = key;
    }
    conv = conv_;
    ones = ones_conv_;
  }
  int32_t xz = 0;
  if (x_zp != nullptr) xz = is_signed ? x_zp->data<int8_t>()[0] : x_zp->data<uint8_t>()[0];
  // Sums this kernel could round (Int8Conv::SumsExactFor, ResultExact): the caller's exact way.
  if (!conv->SumsExactFor(x.raw()) || (ones != nullptr && !ones->SumsExactFor(x.raw()))) return false;
  const int64_t pixels = d.batch * d.out_h * d.out_w;
  acc->reset(new int32_t[static_cast<size_t>(pixels * d.out_channels + conv->OutputSlack())]);
  ONYX_RETURN_IF_ERROR(conv->Run(x.raw(), xz, acc->get()));
  if (!conv->ResultExact(acc->get())) return false;
  if (!unsigned_weights) return true;
  // The uint8 weights' part: + (128 - wz[m]) * sum(x - xz) over the taps of output m (Init), in int32 as ONNX's
  // int32 result wraps.
  const int64_t m_count = g.out_channels;
  const int32_t* offsets = weight_offsets_.data();
  int32_t* out = acc->get();
  auto add = [](int32_t a, int32_t factor, int32_t sum) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(factor) * static_cast<uint32_t>(sum));
  };
  if (ones != nullptr) {
    std::unique_ptr<int32_t[]> sums(new int32_t[static_cast<size_t>(pixels * m_count + ones->OutputSlack())]);
    ONYX_RETURN_IF_ERROR(ones->Run(x.raw(), xz, sums.get()));
    if (!ones->ResultExact(sums.get())) return false;
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t m = 0; m < m_count; ++m)
        out[p * m_count + m] = add(out[p * m_count + m], offsets[m], sums[p * m_count + m]);
    }
    return true;
  }
  // One group: channel M of each pixel holds its sum; the pixels' M sums move down over it, in order (a pixel's
  // results land at or before where they are read).
  for (int64_t p = 0; p < pixels; ++p) {
    const int32_t* row = out + p * (m_count + 1);
    const int32_t sum = row[m_count];
    int32_t* dst = out + p * m_count;
    for (int64_t m = 0; m < m_count; ++m) dst[m] = add(row[m], offsets[m], sum);
  }
  return true;
}

}  // namespace onyx::ops::nn
