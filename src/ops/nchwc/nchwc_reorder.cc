// NchwcReorder: float32 [N, C, H, W] <-> blocked [N, ceil(C/b), H, W, b] through oneDNN's reorder (which writes
// zeros into the padding channels of a blocked result), or by a copy where the images have one pixel.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include "ir/nchwc_ops.h"
#include "kernels/dnnl_util.h"
#include "ops/nchwc/nchwc_block.h"
#include "ops/nchwc/nchwc_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nchwc {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

class NchwcReorderKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(block_, ParseBlock(info));
    to_blocked_ = info.GetInt("to_blocked", 1) != 0;
    channels_ = info.GetInt("channels", -1);
    if (!to_blocked_ && channels_ < 1)
      return info.Error("attribute 'channels' is required to leave the blocked layout");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat) return InvalidArgument("input 0 must be float32");
    if (to_blocked_ && x->rank() != 4) {
      return InvalidArgument("input 0 has shape " + ShapeToString(x->shape()) + ", expected rank 4");
    }
    if (!to_blocked_ && (x->rank() != 5 || x->dim(4) != block_ || x->dim(1) != (channels_ + block_ - 1) / block_)) {
      return InvalidArgument("blocked input 0 has shape " + ShapeToString(x->shape()) + " for " +
                             std::to_string(channels_) + " channels");
    }
    std::shared_ptr<const Built> built;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (built_ == nullptr || built_->input_shape != x->shape()) {
        ONYX_ASSIGN_OR_RETURN(built_, Build(x->shape()));
      }
      built = built_;
    }
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, built->output_shape);
    if (y.size() == 0) return Status::Ok();
    if (x->dim(2) * x->dim(3) == 1) {
      OnePixelImages(*x, y);
      return Status::Ok();
    }
    return kernels::DnnlCall("NchwcReorder", [&] {
      // The arguments built once (no allocation per run) unless another run of this node holds them.
      std::unique_lock<std::mutex> args_lock(args_mutex_, std::try_to_lock);
      kernels::DnnlArgs local;
      kernels::DnnlArgs& args = args_lock.owns_lock() ? args_ : local;
      if (!args_lock.owns_lock() || args_for_ != built) {
        args.Clear();
        args.Add(DNNL_ARG_FROM, built->src_md);
        args.Add(DNNL_ARG_TO, built->dst_md);
        if (args_lock.owns_lock()) args_for_ = built;
      }
      args.Set(DNNL_ARG_FROM, x->data<float>());
      args.Set(DNNL_ARG_TO, y.data<float>());
      args.Execute(built->primitive);
    });
  }

 private:
  // Images of one pixel (a global pooling's result, before a classifier): an image's blocked channels are its plain
  // ones followed by the zero padding of the last block, so the reorder is a copy. oneDNN's reorder took 9-20 us for
  // 1280-2048 channels (its generic loops and a parallel region), a whole convolution's time in MobileNet-v2's tail.
  void OnePixelImages(const Tensor& x, Tensor& y) const {
    const int64_t images = x.dim(0);
    const int64_t channels = to_blocked_ ? x.dim(1) : channels_;
    const int64_t blocked_channels = (channels + block_ - 1) / block_ * block_;
    const float* from = x.data<float>();
    float* to = y.data<float>();
    for (int64_t n = 0; n < images; ++n) {
      if (to_blocked_) {
        std::copy_n(from + n * channels, channels, to + n * blocked_channels);
        std::fill(to + n * blocked_channels + channels, to + (n + 1) * blocked_channels, 0.0f);
      } else {
        std::copy_n(from + n * blocked_channels, channels, to + n * channels);
      }
    }
  }

  // The reorder for one input shape (created once: a reorder primitive per run costs its creation every time).
  struct Built {
    Shape input_shape;
    Shape output_shape;
    memory::desc src_md, dst_md;
    dnnl::reorder primitive;  // none for images of one pixel (OnePixelImages)
  };

  Result<std::shared_ptr<const Built>> Build(const Shape& input_shape) const {
    auto built = std::make_shared<Built>();
    built->input_shape = input_shape;
    memory::dims dims;
    const Shape& x = input_shape;
    if (to_blocked_) {
      dims = {x[0], x[1], x[2], x[3]};
      built->output_shape = {x[0], (x[1] + block_ - 1) / block_, x[2], x[3], block_};
    } else {
      dims = {x[0], channels_, x[2], x[3]};
      built->output_shape = {x[0], channels_, x[2], x[3]};
    }
    if (x[2] * x[3] == 1) return std::shared_ptr<const Built>(std::move(built));  // OnePixelImages: no primitive
    ONYX_RETURN_IF_ERROR(kernels::DnnlCall("NchwcReorder: creating the reorder", [&] {
      const memory::desc plain(dims, memory::data_type::f32, Tag::nchw);
      const memory::desc blocked(dims, memory::data_type::f32, BlockedTag(block_));
      built->src_md = to_blocked_ ? plain : blocked;
      built->dst_md = to_blocked_ ? blocked : plain;
      built->primitive = dnnl::reorder(
          dnnl::reorder::primitive_desc(kernels::DnnlEngine(), built->src_md, kernels::DnnlEngine(), built->dst_md));
    }));
    return std::shared_ptr<const Built>(std::move(built));
  }

  int block_ = ir::nchwc::kDefaultBlock;
  bool to_blocked_ = true;
  int64_t channels_ = -1;
  std::mutex mutex_;  // guards built_
  std::shared_ptr<const Built> built_;
  std::mutex args_mutex_;  // guards args_ and args_for_
  kernels::DnnlArgs args_;
  std::shared_ptr<const Built> args_for_;  // what args_ were built for
};

}  // namespace

void RegisterNchwcReorder(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, kReorder, 1, 1, MakeFactory<NchwcReorderKernel>());
}

}  // namespace onyx::ops::nchwc
