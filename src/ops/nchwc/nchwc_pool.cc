// NchwcPool: MaxPool, AveragePool and their global forms on blocked float32 tensors through oneDNN's pooling.
// The padding channels stay zero (the pool of zeros), so the logical channel count is the padded one.
#include <memory>
#include <mutex>
#include <string>

#include "ir/nchwc_ops.h"
#include "kernels/dnnl_util.h"
#include "ops/nchwc/nchwc_block.h"
#include "ops/nchwc/nchwc_ops.h"
#include "ops/nn/window.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nchwc {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

class NchwcPoolKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(block_, ParseBlock(info));
    mode_ = info.GetString("mode");
    if (mode_ == "max") {
      alg_ = dnnl::algorithm::pooling_max;
    } else if (mode_ == "avg") {
      alg_ = info.GetInt("count_include_pad", 0) != 0 ? dnnl::algorithm::pooling_avg_include_padding
                                                      : dnnl::algorithm::pooling_avg_exclude_padding;
    } else if (mode_ == "global_avg") {
      alg_ = dnnl::algorithm::pooling_avg_exclude_padding;
    } else if (mode_ == "global_max") {
      alg_ = dnnl::algorithm::pooling_max;
    } else {
      return info.Error("unknown pooling mode '" + mode_ + "'");
    }
    global_ = mode_.rfind("global_", 0) == 0;
    if (!global_) ONYX_RETURN_IF_ERROR(attrs_.Parse(info, true));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat || x->rank() != 5 || x->dim(4) != block_) {
      return InvalidArgument("input 0 has shape " + ShapeToString(x->shape()) + ", expected a blocked float32 tensor");
    }
    std::shared_ptr<const Built> built;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (built_ == nullptr || built_->input_shape != x->shape()) {
        ONYX_ASSIGN_OR_RETURN(built_, Build(x->shape(), ctx.num_threads()));
      }
      built = built_;
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, built->output_shape);
    if (y.size() == 0) return Status::Ok();
    const kernels::ScopedOmpThreads threads(kernels::PrimitiveThreads(built->flops, ctx.num_threads()));
    return kernels::DnnlCall("NchwcPool", [&] {
      // The arguments built once (no allocation per run) unless another run of this node holds them.
      std::unique_lock<std::mutex> args_lock(args_mutex_, std::try_to_lock);
      kernels::DnnlArgs local;
      kernels::DnnlArgs& args = args_lock.owns_lock() ? args_ : local;
      if (!args_lock.owns_lock() || args_for_ != built) {
        args.Clear();
        args.Add(DNNL_ARG_SRC, built->pd.src_desc());
        args.Add(DNNL_ARG_DST, built->pd.dst_desc());
        args.AddScratchpad(built->pd.scratchpad_desc());
        if (args_lock.owns_lock()) args_for_ = built;
      }
      args.Set(DNNL_ARG_SRC, x->data<float>());
      args.Set(DNNL_ARG_DST, y.data<float>());
      args.Execute(built->primitive);
    });
  }

 private:
  // The pooling for one input shape.
  struct Built {
    Shape input_shape;   // blocked [N, C/b, H, W, b]
    Shape output_shape;  // blocked
    int64_t flops = 0;   // for the thread count
    dnnl::pooling_v2_forward::primitive_desc pd;
    dnnl::pooling_v2_forward primitive;
  };

  Result<std::shared_ptr<const Built>> Build(const Shape& input_shape, int session_threads) const {
    auto built = std::make_shared<Built>();
    built->input_shape = input_shape;
    const Shape spatial{input_shape[2], input_shape[3]};
    std::vector<nn::WindowAxis> axes;
    if (global_) {
      for (int64_t d : spatial) axes.push_back(nn::WindowAxis{d, d, 1, 1, 0, 0, 1});
    } else {
      ONYX_ASSIGN_OR_RETURN(axes, nn::ResolveWindow(attrs_, spatial, {}));
    }
    built->output_shape = {input_shape[0], input_shape[1], axes[0].out, axes[1].out, block_};
    // Small poolings stay on one thread (kernels/dnnl_util.h). A window read costs about as much as 8 flops of a
    // convolution (memory-bound, no reuse), so the split pays off from about 512K reads.
    int64_t window_reads = NumElements(input_shape);
    for (const auto& a : axes) {
      if (a.in > 0) window_reads = window_reads / a.in * a.out * a.kernel;
    }
    built->flops = 8 * window_reads;
    const Shape logical{input_shape[0], input_shape[1] * block_, input_shape[2], input_shape[3]};
    memory::dims kernel, strides, dilations, pad_l, pad_r;
    for (const auto& a : axes) {
      kernel.push_back(a.kernel);
      strides.push_back(a.stride);
      dilations.push_back(a.dilation - 1);
      pad_l.push_back(a.pad_begin);
      // ceil_mode: oneDNN sizes the output by floor, so extend the right padding to the window ONNX's rounding
      // adds (ONNX's ceil mode never starts a window inside the right padding; ResolveWindow guarantees that).
      pad_r.push_back((a.out - 1) * a.stride + (a.kernel - 1) * a.dilation + 1 - a.in - a.pad_begin);
    }
    // oneDNN reads OpenMP's thread count when it creates the primitive too.
    const kernels::ScopedOmpThreads threads(kernels::PrimitiveThreads(built->flops, session_threads));
    ONYX_RETURN_IF_ERROR(kernels::DnnlCall("NchwcPool: creating the pooling", [&] {
      const memory::dims src_dims(logical.begin(), logical.end());
      const memory::dims dst_dims{logical[0], logical[1], axes[0].out, axes[1].out};
      const memory::desc src_md(src_dims, memory::data_type::f32, BlockedTag(block_));
      const memory::desc dst_md(dst_dims, memory::data_type::f32, BlockedTag(block_));
      const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg_, src_md, dst_md, strides,
                                                kernel, dilations, pad_l, pad_r);
      built->pd = dnnl::pooling_v2_forward::primitive_desc(desc, kernels::UserScratchpadAttr(), kernels::DnnlEngine());
      built->primitive = dnnl::pooling_v2_forward(built->pd);
    }));
    return std::shared_ptr<const Built>(std::move(built));
  }

  std::string mode_;
  int block_ = ir::nchwc::kDefaultBlock;
  dnnl::algorithm alg_ = dnnl::algorithm::pooling_max;
  bool global_ = false;
  nn::WindowAttrs attrs_;
  std::mutex mutex_;  // guards built_
  std::shared_ptr<const Built> built_;
  std::mutex args_mutex_;  // guards args_ and args_for_
  kernels::DnnlArgs args_;
  std::shared_ptr<const Built> args_for_;  // what args_ were built for
};

}  // namespace

void RegisterNchwcPool(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, kPool, 1, 1, MakeFactory<NchwcPoolKernel>());
}

}  // namespace onyx::ops::nchwc
