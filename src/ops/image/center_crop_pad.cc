// CenterCropPad (18): crops or zero-pads the given axes of the input to `shape`, keeping the content centered;
// when the difference is odd the extra element goes to the end (start offset = difference / 2, rounded down).
#include <string>
#include <vector>

#include "ops/common/op_util.h"
#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

class CenterCropPadKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    has_axes_ = info.HasAttribute("axes");
    axes_ = info.GetInts("axes");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* shape_t, ctx.TensorInput(1));
    if (!IsInteger(shape_t->type()) || shape_t->rank() != 1) {
      return InvalidArgument("input 'shape' (1) must be a 1-D int32 or int64 tensor");
    }
    const std::vector<int64_t> shape = shape_t->ToInt64Vector();
    const int64_t rank = x->rank();
    std::vector<int64_t> axes;
    if (has_axes_) {
      ONYX_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes_, rank));
    } else {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    if (shape.size() != axes.size()) {
      return InvalidArgument("input 'shape' (1) has " + std::to_string(shape.size()) + " elements, expected " +
                             std::to_string(axes.size()) + " (one per axis)");
    }
    Shape out_shape = x->shape();
    // offset[d]: output index minus input index along axis d (negative when cropping).
    std::vector<int64_t> offset(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      const size_t d = static_cast<size_t>(axes[i]);
      if (shape[i] < 0) return InvalidArgument("input 'shape' (1) has a negative size " + std::to_string(shape[i]));
      const int64_t in = out_shape[d];
      out_shape[d] = shape[i];
      offset[d] = shape[i] >= in ? (shape[i] - in) / 2 : -((in - shape[i]) / 2);
    }
    ONYX_RETURN_IF_ERROR(CheckOutputShape(out_shape, "input 'shape' (1)"));
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    const std::vector<int64_t> in_strides = RowMajorStrides(x->shape());
    std::vector<int64_t> src(static_cast<size_t>(y.size()));
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < y.size(); ++i) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank && off >= 0; ++d) {
        const int64_t p = idx[static_cast<size_t>(d)] - offset[static_cast<size_t>(d)];
        off = p < 0 || p >= x->dim(d) ? -1 : off + p * in_strides[static_cast<size_t>(d)];
      }
      src[static_cast<size_t>(i)] = off;
      for (int64_t d = rank; d-- > 0;) {
        if (++idx[static_cast<size_t>(d)] < out_shape[static_cast<size_t>(d)]) break;
        idx[static_cast<size_t>(d)] = 0;
      }
    }
    GatherElements(*x, src, y);
    return Status::Ok();
  }

 private:
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

}  // namespace

void RegisterCenterCropPadOps(KernelRegistry& registry) {
  registry.Add("", "CenterCropPad", 18, kLatestVersion, MakeFactory<CenterCropPadKernel>());
}

}  // namespace onyx::ops::image
