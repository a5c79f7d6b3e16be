// NchwcReorder: float32 [N, C, H, W] <-> blocked [N, ceil(C/b), H, W, b] through oneDNN's reorder (which writes
// zeros into the padding channels of a blocked result).
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
    memory::dims dims;
    Tensor* y = nullptr;
    if (to_blocked_) {
      if (x->rank() != 4)
        return InvalidArgument("input 0 has shape " + ShapeToString(x->shape()) + ", expected rank 4");
      dims = {x->dim(0), x->dim(1), x->dim(2), x->dim(3)};
      y = &ctx.AllocateOutput(0, DataType::kFloat,
                              {x->dim(0), (x->dim(1) + block_ - 1) / block_, x->dim(2), x->dim(3), block_});
    } else {
      if (x->rank() != 5 || x->dim(4) != block_ || x->dim(1) != (channels_ + block_ - 1) / block_) {
        return InvalidArgument("blocked input 0 has shape " + ShapeToString(x->shape()) + " for " +
                               std::to_string(channels_) + " channels");
      }
      dims = {x->dim(0), channels_, x->dim(2), x->dim(3)};
      y = &ctx.AllocateOutput(0, DataType::kFloat, {x->dim(0), channels_, x->dim(2), x->dim(3)});
    }
    if (y->size() == 0) return Status::Ok();
    return kernels::DnnlCall("NchwcReorder", [&] {
      const memory::desc plain(dims, memory::data_type::f32, Tag::nchw);
      const memory::desc blocked(dims, memory::data_type::f32, BlockedTag(block_));
      memory src(to_blocked_ ? plain : blocked, kernels::DnnlEngine(), const_cast<float*>(x->data<float>()));
      memory dst(to_blocked_ ? blocked : plain, kernels::DnnlEngine(), y->data<float>());
      dnnl::reorder(src, dst).execute(kernels::DnnlStream(), src, dst);
      kernels::DnnlStream().wait();
    });
  }

 private:
  int block_ = ir::nchwc::kDefaultBlock;
  bool to_blocked_ = true;
  int64_t channels_ = -1;
};

}  // namespace

void RegisterNchwcReorder(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, kReorder, 1, 1, MakeFactory<NchwcReorderKernel>());
}

}  // namespace onyx::ops::nchwc
