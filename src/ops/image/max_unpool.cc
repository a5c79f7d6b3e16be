// MaxUnpool (9, 11, 22): the partial inverse of MaxPool. Scatters X into a zero tensor at the flat indices I
// (as MaxPool's Indices output gives them: over the whole N x C x spatial tensor) of the shape MaxPool's input
// had, (in - 1) * stride - pad_begin - pad_end + kernel per spatial axis; an explicit output_shape may only add
// room at the end of each axis, which stays zero.
#include <string>
#include <vector>

#include "ops/image/image_ops.h"
#include "ops/image/image_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::image {
namespace {

class MaxUnpoolKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    kernel_ = info.GetInts("kernel_shape");
    if (kernel_.empty()) return info.Error("attribute 'kernel_shape' is required");
    const size_t r = kernel_.size();
    strides_ = info.GetInts("strides", std::vector<int64_t>(r, 1));
    pads_ = info.GetInts("pads", std::vector<int64_t>(2 * r, 0));
    if (strides_.size() != r || pads_.size() != 2 * r) {
      return info.Error("attributes 'strides' and 'pads' must have " + std::to_string(r) + " and " +
                        std::to_string(2 * r) + " elements");
    }
    for (size_t i = 0; i < r; ++i) {
      if (kernel_[i] < 1 || strides_[i] < 1) return info.Error("kernel_shape and strides must be >= 1");
      if (pads_[i] < 0 || pads_[i + r] < 0) return info.Error("pads must be >= 0");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(1));
    const size_t r = kernel_.size();
    if (x->rank() != static_cast<int64_t>(r) + 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected rank " +
                             std::to_string(r + 2) + " for a kernel_shape of " + std::to_string(r) + " axes");
    }
    if (indices->shape() != x->shape() || !IsInteger(indices->type())) {
      return InvalidArgument("input 'I' (1) has shape " + ShapeToString(indices->shape()) +
                             ", expected integer indices of the shape of 'X' " + ShapeToString(x->shape()));
    }
    Shape inferred = {x->dim(0), x->dim(1)};
    for (size_t i = 0; i < r; ++i) {
      const int64_t v = (x->dim(static_cast<int64_t>(i) + 2) - 1) * strides_[i] - pads_[i] - pads_[i + r] + kernel_[i];
      if (v < 0) return InvalidArgument("the inferred output shape has a negative dimension " + std::to_string(v));
      inferred.push_back(v);
    }
    Shape out_shape = inferred;
    if (ctx.has_input(2)) {
      const Tensor& os = ctx.input(2);
      if (!IsInteger(os.type())) return InvalidArgument("input 'output_shape' (2) must be int64");
      out_shape = os.ToInt64Vector();
      if (out_shape.size() != inferred.size()) {
        return InvalidArgument("input 'output_shape' (2) is " + ShapeToString(out_shape) + ", expected rank " +
                               std::to_string(inferred.size()));
      }
      for (size_t i = 0; i < out_shape.size(); ++i) {
        if (out_shape[i] < inferred[i]) {
          return InvalidArgument("input 'output_shape' (2) " + ShapeToString(out_shape) +
                                 " is smaller than the inferred shape " + ShapeToString(inferred));
        }
      }
    }
    ONYX_RETURN_IF_ERROR(CheckOutputShape(out_shape, "the output shape"));
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    const int64_t inferred_total = NumElements(inferred);
    // Position in y of flat index k of the inferred shape (they differ when output_shape is larger).
    const std::vector<int64_t> in_strides = RowMajorStrides(inferred), out_strides = RowMajorStrides(out_shape);
    std::vector<int64_t> src(static_cast<size_t>(y.size()), -1);
    for (int64_t i = 0; i < x->size(); ++i) {
      int64_t k = indices->IntAt(i);
      if (k < 0 || k >= inferred_total) {
        return InvalidArgument("input 'I' (1) element " + std::to_string(i) + " is " + std::to_string(k) +
                               ", outside [0, " + std::to_string(inferred_total) + ")");
      }
      int64_t pos = 0;
      for (size_t d = 0; d < inferred.size(); ++d) {
        pos += (k / in_strides[d]) * out_strides[d];
        k %= in_strides[d];
      }
      src[static_cast<size_t>(pos)] = i;
    }
    GatherElements(*x, src, y);
    return Status::Ok();
  }

 private:
  std::vector<int64_t> kernel_, strides_, pads_;
};

}  // namespace

void RegisterMaxUnpoolOps(KernelRegistry& registry) {
  registry.Add("", "MaxUnpool", 9, kLatestVersion, MakeFactory<MaxUnpoolKernel>());
}

}  // namespace onyx::ops::image
