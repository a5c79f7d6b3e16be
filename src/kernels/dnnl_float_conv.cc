#include "kernels/dnnl_float_conv.h"

#include <cstring>
#include <string>

#include "kernels/dnnl_util.h"
#include "kernels/thread_buffers.h"

namespace onyx::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// The plain layouts for `spatial` axes: activations, weights, grouped weights.
struct PlainTags {
  Tag data, weights, grouped;
};

PlainTags TagsFor(size_t spatial) {
  switch (spatial) {
    case 1:
      return {Tag::ncw, Tag::oiw, Tag::goiw};
    case 2:
      return {Tag::nchw, Tag::oihw, Tag::goihw};
    default:
      return {Tag::ncdhw, Tag::oidhw, Tag::goidhw};
  }
}

}  // namespace

Result<std::unique_ptr<DnnlFloatConv>> DnnlFloatConv::Create(const FloatConvShape& s, const float* weights,
                                                             const float* bias, int threads) {
  const size_t spatial = s.in.size();
  if (spatial < 1 || spatial > 3 || !BlockedConvolutionIsFast()) return std::unique_ptr<DnnlFloatConv>();
  const PlainTags tags = TagsFor(spatial);
  memory::dims src{s.batch, s.in_channels}, dst{s.batch, s.out_channels}, w;
  if (s.group > 1)
    w = {s.group, s.out_channels / s.group, s.in_channels / s.group};
  else
    w = {s.out_channels, s.in_channels};
  memory::dims strides, dilations, pad_l, pad_r;
  for (size_t i = 0; i < spatial; ++i) {
    src.push_back(s.in[i]);
    dst.push_back(s.out[i]);
    w.push_back(s.kernel[i]);
    strides.push_back(s.stride[i]);
    dilations.push_back(s.dilation[i] - 1);
    pad_l.push_back(s.pad_begin[i]);
    pad_r.push_back(s.pad_end[i]);
  }
  std::unique_ptr<DnnlFloatConv> conv(new DnnlFloatConv());
  conv->threads_ = threads;
  const Status status = DnnlCall("float convolution", [&] {
    const ScopedOmpThreads scoped(threads);
    const auto f32 = memory::data_type::f32;
    conv->plain_src_ = memory::desc(src, f32, tags.data);
    conv->plain_dst_ = memory::desc(dst, f32, tags.data);
    conv->plain_weights_ = memory::desc(w, f32, s.group > 1 ? tags.grouped : tags.weights);
    const memory::desc& plain_w = conv->plain_weights_;
    const memory::desc any_src(src, f32, Tag::any), any_dst(dst, f32, Tag::any), any_w(w, f32, Tag::any);
    const memory::desc bias_md({s.out_channels}, f32, Tag::x);
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto alg = dnnl::algorithm::convolution_direct;
    const auto desc = bias != nullptr ? dnnl::convolution_forward::desc(kind, alg, any_src, any_w, bias_md, any_dst,
                                                                        strides, dilations, pad_l, pad_r)
                                      : dnnl::convolution_forward::desc(kind, alg, any_src, any_w, any_dst, strides,
                                                                        dilations, pad_l, pad_r);
    const dnnl::convolution_forward::primitive_desc pd(desc, UserScratchpadAttr(), DnnlEngine());
    // Reference loops, or oneDNN's own im2col + GEMM: nothing gained over the Conv operator's.
    const std::string implementation = pd.impl_info_str();
    if (implementation.rfind("ref", 0) == 0 || implementation.rfind("gemm", 0) == 0) return;
    conv->primitive_ = dnnl::convolution_forward(pd);
    conv->src_ = pd.src_desc();
    conv->dst_ = pd.dst_desc();
    conv->scratchpad_ = pd.scratchpad_desc();
    memory user_w(plain_w, DnnlEngine(), const_cast<float*>(weights));  // read only
    conv->weights_ = memory(pd.weights_desc(), DnnlEngine());
    dnnl::reorder(user_w, conv->weights_).execute(DnnlStream(), user_w, conv->weights_);
    if (bias != nullptr) {
      conv->bias_ = memory(bias_md, DnnlEngine());
      std::memcpy(conv->bias_.get_data_handle(), bias, static_cast<size_t>(s.out_channels) * sizeof(float));
    }
    DnnlStream().wait();
  });
  if (!status.ok()) return status;
  if (!conv->primitive_) return std::unique_ptr<DnnlFloatConv>();
  return conv;
}

Status DnnlFloatConv::Run(const float* x, float* y) const {
  return DnnlCall("float convolution", [&] {
    const ScopedOmpThreads scoped(threads_);
    dnnl::stream& stream = DnnlStream();
    memory user_x(plain_src_, DnnlEngine(), const_cast<float*>(x));  // read only
    memory user_y(plain_dst_, DnnlEngine(), y);
    // The input and output in the primitive's layouts in the thread's buffers (thread_buffers.h): kept per node they
    // held every 3-D layer's activations for the session's lifetime (R3D-18: peak RSS 222 -> 518 MB).
    memory src = user_x, dst = user_y;
    if (src_ != plain_src_) {
      src = memory(src_, DnnlEngine(), ThreadBuffer(ThreadBufferSlot::kIntermediate, src_.get_size()));
      dnnl::reorder(user_x, src).execute(stream, user_x, src);
    }
    if (dst_ != plain_dst_) {
      dst = memory(dst_, DnnlEngine(), ThreadBuffer(ThreadBufferSlot::kIntermediate2, dst_.get_size()));
    }
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst}};
    if (bias_) args.emplace(DNNL_ARG_BIAS, bias_);
    if (scratchpad_.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, ThreadScratchpad(scratchpad_));
    primitive_.execute(stream, args);
    if (dst_ != plain_dst_) dnnl::reorder(dst, user_y).execute(stream, dst, user_y);
    stream.wait();
  });
}

Status DnnlFloatConv::CopyPlainWeights(float* out) const {
  return DnnlCall("float convolution weights", [&] {
    memory plain(plain_weights_, DnnlEngine(), out);
    memory reordered = weights_;  // a handle: the reorder only reads it
    dnnl::reorder(reordered, plain).execute(DnnlStream(), reordered, plain);
    DnnlStream().wait();
  });
}

}  // namespace onyx::kernels
