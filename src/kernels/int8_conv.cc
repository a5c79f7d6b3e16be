#include "kernels/int8_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_util.h"

namespace onyx::kernels {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct Int8Conv::Impl {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory weights;
  // NCHW -> NHWC of one image into a buffer with margin (Int8Conv::OutputSlack): a reorder, or a copy when the two
  // layouts are the same (one channel or one pixel).
  bool reorder_source = false;
  memory::desc nchw_src;
  dnnl::reorder to_nhwc;
  bool amx = false;    // an AMX kernel: may touch whole 16-pixel tiles past the image (OutputSlack)
  bool fused = false;  // requantizes into an 8-bit destination
  memory bias;         // s32 [M] when fused with a bias
};

namespace {
constexpr int64_t kMarginPixels = 64;
}  // namespace

Int8Conv::Int8Conv(const Int8ConvDims& dims, int threads, std::unique_ptr<Impl> impl)
    : dims_(dims), threads_(threads), impl_(std::move(impl)) {}

Int8Conv::~Int8Conv() = default;

const char* Int8Conv::implementation() const { return impl_->pd.impl_info_str(); }

bool FusedRequantIsExact(const int8_t* weights, int64_t out_channels, int64_t per_channel,
                         const std::vector<int32_t>& bias, int32_t source_low, int32_t source_high) {
  // Each term (x - x_zero_point) * w lies in [low * w, high * w] (w > 0) or [high * w, low * w] (w < 0): the sum
  // of a channel lies within -(|low| P + high N) .. high P + |low| N, P and N the sums of its positive weights and
  // of its negative weights' magnitudes. float(acc) + float(bias) is then float(acc + bias): both terms exact.
  constexpr int64_t kExactFloat = int64_t{1} << 24;
  const int64_t low = std::abs(static_cast<int64_t>(source_low)), high = source_high;
  for (int64_t m = 0; m < out_channels; ++m) {
    int64_t positive = 0, negative = 0;
    const int8_t* w = weights + m * per_channel;
    for (int64_t k = 0; k < per_channel; ++k) (w[k] > 0 ? positive : negative) += std::abs(static_cast<int32_t>(w[k]));
    const int64_t b = bias.empty() ? 0 : std::abs(static_cast<int64_t>(bias[static_cast<size_t>(m)]));
    if (std::max(high * positive + low * negative, low * positive + high * negative) >= kExactFloat ||
        b >= kExactFloat) {
      return false;
    }
  }
  return true;
}

bool Int8Conv::fused_requant() const { return impl_->fused; }

Result<std::unique_ptr<Int8Conv>> Int8Conv::Create(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                                                   int threads, const Int8ConvRequant* requant) {
  auto impl = std::make_unique<Impl>();
  std::string impl_name;
  const ScopedOmpThreads scoped(threads);
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 convolution", [&] {
    const Dt src_type = signed_source ? Dt::s8 : Dt::u8;
    // One image per primitive call (see OutputSlack).
    const memory::dims src_dims{1, d.in_channels, d.in_h, d.in_w};
    const memory::dims dst_dims{1, d.out_channels, d.out_h, d.out_w};
    const int64_t cg = d.in_channels / d.group, mg = d.out_channels / d.group;
    const memory::dims w_dims = d.group == 1 ? memory::dims{d.out_channels, cg, d.kernel_h, d.kernel_w}
                                             : memory::dims{d.group, mg, cg, d.kernel_h, d.kernel_w};
    const memory::desc src_md(src_dims, src_type, Tag::nhwc);
    const Dt dst_type = requant == nullptr ? Dt::s32 : requant->signed_output ? Dt::s8 : Dt::u8;
    const memory::desc dst_md(dst_dims, dst_type, Tag::nhwc);
    const memory::desc w_any(w_dims, Dt::s8, Tag::any);
    const bool with_bias = requant != nullptr && !requant->bias.empty();
    const memory::desc bias_md({d.out_channels}, Dt::s32, Tag::x);
    const auto desc =
        with_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, src_md, w_any, bias_md, dst_md,
                                                    {d.stride_h, d.stride_w}, {d.dilation_h - 1, d.dilation_w - 1},
                                                    {d.pad_top, d.pad_left}, {d.pad_bottom, d.pad_right})
                  : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, src_md, w_any, dst_md,
                                                    {d.stride_h, d.stride_w}, {d.dilation_h - 1, d.dilation_w - 1},
                                                    {d.pad_top, d.pad_left}, {d.pad_bottom, d.pad_right});
    dnnl::primitive_attr attr;
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (requant != nullptr) {
      attr.set_output_scales(requant->scales.size() == 1 ? 0 : 1 << 1, requant->scales);
      impl->fused = true;
      if (with_bias) {
        impl->bias = memory(bias_md, DnnlEngine());
        std::memcpy(impl->bias.get_data_handle(), requant->bias.data(), requant->bias.size() * sizeof(int32_t));
      }
    }
    impl->pd = dnnl::convolution_forward::primitive_desc(desc, attr, DnnlEngine());
    impl_name = impl->pd.impl_info_str();
    if (impl_name.rfind("ref", 0) == 0) return;  // refused below
    impl->conv = dnnl::convolution_forward(impl->pd);
    memory plain({w_dims, Dt::s8, d.group == 1 ? Tag::oihw : Tag::goihw}, DnnlEngine(), const_cast<int8_t*>(weights));
    impl->weights = memory(impl->pd.weights_desc(), DnnlEngine());
    dnnl::reorder(plain, impl->weights).execute(DnnlStream(), plain, impl->weights);
    impl->reorder_source = d.in_channels > 1 && d.in_h * d.in_w > 1;
    if (impl->reorder_source) {
      impl->nchw_src = memory::desc(src_dims, src_type, Tag::nchw);
      impl->to_nhwc = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), impl->nchw_src, DnnlEngine(), src_md));
    }
    DnnlStream().wait();
  }));
  if (impl_name.rfind("ref", 0) == 0) {
    return Unsupported("oneDNN has only its reference int8 convolution (" + impl_name + ") for this shape");
  }
  impl->amx = impl_name.find("amx") != std::string::npos;
  return std::unique_ptr<Int8Conv>(new Int8Conv(d, threads, std::move(impl)));
}

Status Int8Conv::Run(const void* x, int32_t x_zero_point, int32_t* y) const {
  const ScopedOmpThreads scoped(threads_);
  const int64_t image_bytes = dims_.in_channels * dims_.in_h * dims_.in_w;  // 8-bit elements
  const int64_t out_image = dims_.out_channels * dims_.out_h * dims_.out_w;
  // Uninitialized: the reorder or copy writes every byte the convolution uses; the margin is only over-read.
  std::unique_ptr<uint8_t[]> nhwc(new uint8_t[static_cast<size_t>(image_bytes + kMarginPixels * dims_.in_channels)]);
  return DnnlCall("int8 convolution", [&] {
    int32_t zp = x_zero_point;
    memory zp_mem({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
    for (int64_t n = 0; n < dims_.batch; ++n) {
      const uint8_t* image = static_cast<const uint8_t*>(x) + n * image_bytes;
      if (impl_->reorder_source) {
        memory from(impl_->nchw_src, DnnlEngine(), const_cast<uint8_t*>(image));
        memory to(impl_->pd.src_desc(), DnnlEngine(), nhwc.get());
        impl_->to_nhwc.execute(DnnlStream(), from, to);
      } else {
        std::memcpy(nhwc.get(), image, static_cast<size_t>(image_bytes));
      }
      memory src_mem(impl_->pd.src_desc(), DnnlEngine(), nhwc.get());
      memory dst_mem(impl_->pd.dst_desc(), DnnlEngine(), y + n * out_image);
      impl_->conv.execute(DnnlStream(), {{DNNL_ARG_SRC, src_mem},
                                         {DNNL_ARG_WEIGHTS, impl_->weights},
                                         {DNNL_ARG_DST, dst_mem},
                                         {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zp_mem}});
    }
    DnnlStream().wait();
  });
}

}  // namespace onyx::kernels

namespace onyx::kernels {

Status Int8Conv::RunNhwc(const void* x, int32_t x_zero_point, void* y) const {
  const ScopedOmpThreads scoped(threads_);
  const int64_t image_bytes = dims_.in_channels * dims_.in_h * dims_.in_w;  // 8-bit elements
  const int64_t out_pixels = dims_.out_h * dims_.out_w;
  const int64_t out_image = dims_.out_channels * out_pixels;
  const size_t out_element = impl_->fused ? 1 : sizeof(int32_t);
  // The AMX kernels read and write whole tiles of 16 pixels: only a pixel count that is not a multiple of 16 can
  // touch memory past the last image, and only then do the source (and an 8-bit destination, which has no slack) go
  // through buffers with margin.
  const bool ragged = impl_->amx && ((dims_.in_h * dims_.in_w) % 16 != 0 || out_pixels % 16 != 0);
  std::unique_ptr<uint8_t[]> source, destination;
  if (ragged) {
    source.reset(new uint8_t[static_cast<size_t>(image_bytes + kMarginPixels * dims_.in_channels)]);
    if (impl_->fused)
      destination.reset(new uint8_t[static_cast<size_t>(out_image + kMarginPixels * dims_.out_channels)]);
  }
  return DnnlCall("int8 convolution", [&] {
    int32_t zp = x_zero_point;
    memory zp_mem({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
    for (int64_t n = 0; n < dims_.batch; ++n) {
      const uint8_t* image = static_cast<const uint8_t*>(x) + n * image_bytes;
      if (source != nullptr) {
        std::memcpy(source.get(), image, static_cast<size_t>(image_bytes));
        image = source.get();
      }
      uint8_t* out = static_cast<uint8_t*>(y) + static_cast<size_t>(n * out_image) * out_element;
      memory src_mem(impl_->pd.src_desc(), DnnlEngine(), const_cast<uint8_t*>(image));
      memory dst_mem(impl_->pd.dst_desc(), DnnlEngine(), destination != nullptr ? destination.get() : out);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src_mem},
                                           {DNNL_ARG_WEIGHTS, impl_->weights},
                                           {DNNL_ARG_DST, dst_mem},
                                           {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zp_mem}};
      if (impl_->bias) args.emplace(DNNL_ARG_BIAS, impl_->bias);
      impl_->conv.execute(DnnlStream(), args);
      if (destination != nullptr) {
        DnnlStream().wait();
        std::memcpy(out, destination.get(), static_cast<size_t>(out_image));
      }
    }
    DnnlStream().wait();
  });
}

}  // namespace onyx::kernels
