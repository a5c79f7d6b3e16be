#include "kernels/int8_conv.h"

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
};

namespace {
constexpr int64_t kMarginPixels = 64;
}  // namespace

Int8Conv::Int8Conv(const Int8ConvDims& dims, int threads, std::unique_ptr<Impl> impl)
    : dims_(dims), threads_(threads), impl_(std::move(impl)) {}

Int8Conv::~Int8Conv() = default;

const char* Int8Conv::implementation() const { return impl_->pd.impl_info_str(); }

Result<std::unique_ptr<Int8Conv>> Int8Conv::Create(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                                                   int threads) {
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
    const memory::desc dst_md(dst_dims, Dt::s32, Tag::nhwc);
    const memory::desc w_any(w_dims, Dt::s8, Tag::any);
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                               src_md, w_any, dst_md, {d.stride_h, d.stride_w},
                                               {d.dilation_h - 1, d.dilation_w - 1}, {d.pad_top, d.pad_left},
                                               {d.pad_bottom, d.pad_right});
    dnnl::primitive_attr attr;
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
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
