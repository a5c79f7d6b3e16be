// NchwcConv: a 2-D float32 convolution through oneDNN's convolution primitive, reading plain or blocked input and
// writing blocked output, with bias, an optional residual sum and an activation fused as post-ops. The weights
// are reordered into the primitive's layout once; the primitive is rebuilt only when the input shape changes.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "kernels/dnnl_util.h"
#include "ops/nchwc/nchwc_names.h"
#include "ops/nchwc/nchwc_ops.h"
#include "ops/nn/conv_core.h"
#include "ops/nn/window.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nchwc {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using kernels::DnnlCall;
using kernels::DnnlEngine;
using kernels::DnnlStream;
using kernels::PrimitiveThreads;
using kernels::ScopedOmpThreads;

struct Activation {
  std::optional<dnnl::algorithm> alg;
  float alpha = 0;
  float beta = 0;
};

Result<Activation> ParseActivation(const KernelInfo& info) {
  const std::string name = info.GetString("activation");
  Activation a;
  a.alpha = info.GetFloat("activation_alpha", 0);
  a.beta = info.GetFloat("activation_beta", 0);
  if (name.empty()) return a;
  if (name == "Relu") {
    a.alg = dnnl::algorithm::eltwise_relu;
    a.alpha = 0;
  } else if (name == "LeakyRelu") {
    a.alg = dnnl::algorithm::eltwise_relu;
  } else if (name == "Clip") {
    a.alg = dnnl::algorithm::eltwise_clip;
  } else if (name == "Tanh") {
    a.alg = dnnl::algorithm::eltwise_tanh;
  } else if (name == "HardSwish") {
    a.alg = dnnl::algorithm::eltwise_hardswish;  // x * relu6(x + 3) / 6, ONNX's fixed alpha 1/6 and beta 0.5
  } else {
    return info.Error("unknown fused activation '" + name + "'");
  }
  return a;
}

class NchwcConvKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, false));
    group_ = info.GetInt("group", 1);
    input_blocked_ = info.GetInt("input_blocked", 0) != 0;
    ONYX_ASSIGN_OR_RETURN(activation_, ParseActivation(info));
    has_sum_ = info.has_input(3);
    const Tensor* w = info.ConstantInput(1);
    if (w == nullptr || w->type() != DataType::kFloat || w->rank() != 4) {
      return info.Error("input 'W' must be a float32 initializer of rank 4");
    }
    weights_ = *w;
    if (info.has_input(2)) {
      const Tensor* b = info.ConstantInput(2);
      if (b == nullptr || b->type() != DataType::kFloat || b->rank() != 1 || b->dim(0) != w->dim(0)) {
        return info.Error("input 'B' must be a float32 initializer of shape [" + std::to_string(w->dim(0)) + "]");
      }
      bias_ = *b;
    }
    if (group_ < 1 || w->dim(0) % group_ != 0) return info.Error("attribute 'group' does not divide W's dim 0");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat) return InvalidArgument("input 'X' (0) must be float32");
    const int64_t channels = weights_.dim(1) * group_;
    Shape logical = x->shape();
    if (input_blocked_) {
      if (x->rank() != 5 || x->dim(4) != kBlock || x->dim(1) != (channels + kBlock - 1) / kBlock) {
        return InvalidArgument("blocked input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [N, " +
                               std::to_string((channels + kBlock - 1) / kBlock) + ", H, W, 16]");
      }
      logical = {x->dim(0), channels, x->dim(2), x->dim(3)};
    }
    ONYX_ASSIGN_OR_RETURN(nn::ConvGeometry g, nn::ResolveConv(attrs_, group_, logical, weights_.shape()));
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward primitive;
    memory packed_weights;
    int64_t out_pixels = 1;
    for (size_t d = 2; d < g.out_shape.size(); ++d) out_pixels *= g.out_shape[d];
    const int64_t flops =
        2 * g.batch * weights_.dim(0) * out_pixels * weights_.dim(1) * weights_.dim(2) * weights_.dim(3);
    const ScopedOmpThreads threads(PrimitiveThreads(flops, ctx.num_threads()));
    {
      // Session::Run may be called from several threads; the primitive is rebuilt only for a new input shape.
      std::lock_guard<std::mutex> lock(mutex_);
      if (logical != built_for_) ONYX_RETURN_IF_ERROR(Build(g, logical));
      pd = pd_;
      primitive = primitive_;
      packed_weights = packed_weights_;
    }
    const int64_t m = weights_.dim(0);
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat,
                                   {g.batch, (m + kBlock - 1) / kBlock, g.out_shape[2], g.out_shape[3], kBlock});
    if (has_sum_) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* sum, ctx.TensorInput(3));
      if (sum->shape() != y.shape() || sum->type() != DataType::kFloat) {
        return InvalidArgument("fused residual input has shape " + ShapeToString(sum->shape()) + ", expected " +
                               ShapeToString(y.shape()) + " (run with graph optimization off for this model)");
      }
      std::memcpy(y.data<float>(), sum->data<float>(), y.nbytes());
    }
    return DnnlCall("NchwcConv", [&] {
      memory src(pd.src_desc(), DnnlEngine(), const_cast<float*>(x->data<float>()));
      memory dst(pd.dst_desc(), DnnlEngine(), y.data<float>());
      std::unordered_map<int, memory> args{
          {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, packed_weights}, {DNNL_ARG_DST, dst}};
      if (bias_.size() > 0) {
        args.emplace(DNNL_ARG_BIAS, memory(pd.bias_desc(), DnnlEngine(), const_cast<float*>(bias_.data<float>())));
      }
      primitive.execute(DnnlStream(), args);
      DnnlStream().wait();
    });
  }

 private:
  Status Build(const nn::ConvGeometry& g, const Shape& logical) {
    return DnnlCall("NchwcConv: creating the convolution", [&] {
      const int64_t m = weights_.dim(0);
      const memory::dims src_dims(logical.begin(), logical.end());
      const memory::dims dst_dims{g.batch, m, g.out_shape[2], g.out_shape[3]};
      memory::dims w_dims;
      if (group_ > 1) {
        w_dims = {group_, m / group_, weights_.dim(1), weights_.dim(2), weights_.dim(3)};
      } else {
        w_dims = {m, weights_.dim(1), weights_.dim(2), weights_.dim(3)};
      }
      const memory::desc src_md(src_dims, memory::data_type::f32, input_blocked_ ? Tag::nChw16c : Tag::nchw);
      const memory::desc dst_md(dst_dims, memory::data_type::f32, Tag::nChw16c);
      const memory::desc w_any(w_dims, memory::data_type::f32, Tag::any);
      const memory::desc b_md({m}, memory::data_type::f32, Tag::x);
      memory::dims strides, dilations, pad_l, pad_r;
      for (const auto& a : g.axes) {
        strides.push_back(a.stride);
        dilations.push_back(a.dilation - 1);
        pad_l.push_back(a.pad_begin);
        pad_r.push_back(a.pad_end);
      }
      dnnl::post_ops ops;
      if (has_sum_) ops.append_sum(1.0f);
      if (activation_.alg) ops.append_eltwise(1.0f, *activation_.alg, activation_.alpha, activation_.beta);
      dnnl::primitive_attr attr;
      attr.set_post_ops(ops);
      auto make_desc = [&](dnnl::algorithm alg) {
        return bias_.size() > 0 ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, src_md,
                                                                  w_any, b_md, dst_md, strides, dilations, pad_l, pad_r)
                                : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg, src_md,
                                                                  w_any, dst_md, strides, dilations, pad_l, pad_r);
      };
      // Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions where oneDNN has it (about 2.25x fewer multiplies);
      // direct convolution everywhere else, and wherever oneDNN declines Winograd for this shape or these
      // post-ops. Its input/output transforms cost in proportion to (channels in + out) x pixels and its
      // multiplies run as small GEMMs over the 2x2 tiles, so it pays off with many tiles or many channels:
      // measured inside the whole graph, SqueezeNet's 55x55 and 27x27 expand convs (16/32 -> 64/128 channels)
      // gain 25-35%, its 13x13 ones (48/64 channels) lose; ResNet-50's 14x14 and 7x7 convs (256/512) gain.
      const int64_t out_pixels_2d = g.out_shape[2] * g.out_shape[3];
      const int64_t fewer_channels = std::min(weights_.dim(0), weights_.dim(1));
      const bool winograd_shape = group_ == 1 && weights_.dim(2) == 3 && weights_.dim(3) == 3 &&
                                  strides == memory::dims{1, 1} && dilations == memory::dims{0, 0} &&
                                  fewer_channels >= 16 && weights_.dim(0) >= 64 &&
                                  (out_pixels_2d >= 400 || fewer_channels >= 128);
      bool built = false;
      if (winograd_shape) {
        try {
          pd_ = dnnl::convolution_forward::primitive_desc(make_desc(dnnl::algorithm::convolution_winograd), attr,
                                                          DnnlEngine());
          built = true;
        } catch (const dnnl::error&) {
          built = false;
        }
      }
      if (!built) {
        pd_ = dnnl::convolution_forward::primitive_desc(make_desc(dnnl::algorithm::convolution_direct), attr,
                                                        DnnlEngine());
      }
      primitive_ = dnnl::convolution_forward(pd_);
      if (!packed_weights_ || packed_weights_.get_desc() != pd_.weights_desc()) {
        const memory::desc plain(w_dims, memory::data_type::f32, group_ > 1 ? Tag::goihw : Tag::oihw);
        memory src(plain, DnnlEngine(), const_cast<float*>(weights_.data<float>()));
        packed_weights_ = memory(pd_.weights_desc(), DnnlEngine());
        dnnl::reorder(src, packed_weights_).execute(DnnlStream(), src, packed_weights_);
        DnnlStream().wait();
      }
      built_for_ = logical;
    });
  }

  nn::WindowAttrs attrs_;
  int64_t group_ = 1;
  bool input_blocked_ = false;
  bool has_sum_ = false;
  Activation activation_;
  Tensor weights_;
  Tensor bias_;
  std::mutex mutex_;
  Shape built_for_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward primitive_;
  memory packed_weights_;
};

}  // namespace

void RegisterNchwcConv(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, kConv, 1, 1, MakeFactory<NchwcConvKernel>());
}

}  // namespace onyx::ops::nchwc
