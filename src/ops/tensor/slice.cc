// Slice: starts/ends/axes as attributes in version 1, as inputs (plus steps) from version 10.
#include <algorithm>
#include <memory>

#include "ops/common/kept_plan.h"
#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

class SliceKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    attrs_ = info.since_version() < 10;
    if (attrs_) {
      if (!info.HasAttribute("starts") || !info.HasAttribute("ends")) {
        return info.Error("attributes 'starts' and 'ends' are required");
      }
      starts_ = info.GetInts("starts");
      ends_ = info.GetInts("ends");
      has_axes_ = info.HasAttribute("axes");
      axes_ = info.GetInts("axes");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(
        std::shared_ptr<const Planned> planned,
        planned_.FindOrMake([&](const Planned& p) { return p.in_shape == data->shape() && SameIndexInputs(ctx, p); },
                            [&] { return Plan(ctx, *data); }));
    Tensor& out = ctx.AllocateOutput(0, data->type(), planned->out_shape);
    StridedCopy(*data, planned->src_offset, planned->src_strides, out, 0, planned->dst_strides, planned->out_shape);
    return Status::Ok();
  }

 private:
  // One slicing resolved: the index inputs it was resolved from (opset 10+), the output shape and the copy.
  struct Planned {
    Shape in_shape;
    std::vector<int64_t> inputs[4];  // starts, ends, axes, steps as given (empty when absent)
    bool given[4] = {false, false, false, false};
    Shape out_shape;
    int64_t src_offset = 0;
    std::vector<int64_t> src_strides, dst_strides;
  };

  bool SameIndexInputs(const KernelContext& ctx, const Planned& p) const {
    if (attrs_) return true;
    for (size_t i = 0; i < 4; ++i) {
      const bool given = ctx.has_input(i + 1);
      if (given != p.given[i]) return false;
      if (given && (!ctx.input_value(i + 1).is_tensor() || !HoldsInts(ctx.input(i + 1), p.inputs[i]))) return false;
    }
    return true;
  }

  Result<std::shared_ptr<const Planned>> Plan(const KernelContext& ctx, const Tensor& data) const {
    auto planned = std::make_shared<Planned>();
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    bool has_axes = has_axes_;
    if (!attrs_) {
      ONYX_ASSIGN_OR_RETURN(starts, IntsInput(ctx, 1, "starts"));
      ONYX_ASSIGN_OR_RETURN(ends, IntsInput(ctx, 2, "ends"));
      if (ctx.has_input(3)) {
        has_axes = true;
        ONYX_ASSIGN_OR_RETURN(axes, IntsInput(ctx, 3, "axes"));
      }
      if (ctx.has_input(4)) {
        ONYX_ASSIGN_OR_RETURN(steps, IntsInput(ctx, 4, "steps"));
      }
      planned->inputs[0] = starts;
      planned->inputs[1] = ends;
      planned->inputs[2] = has_axes ? axes : std::vector<int64_t>{};
      planned->inputs[3] = steps;
      for (size_t i = 0; i < 4; ++i) planned->given[i] = ctx.has_input(i + 1);
    }
    const size_t n = starts.size();
    if (ends.size() != n) {
      return InvalidArgument("'starts' has " + std::to_string(n) + " entries but 'ends' has " +
                             std::to_string(ends.size()));
    }
    if (!has_axes) {
      axes.resize(n);
      for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
    }
    if (steps.empty()) steps.assign(n, 1);
    if (axes.size() != n || steps.size() != n) {
      return InvalidArgument("'axes' and 'steps' must have as many entries as 'starts' (" + std::to_string(n) + ")");
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> norm_axes, NormalizeAxes(axes, data.rank()));

    const Shape& in = data.shape();
    planned->in_shape = in;
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    Shape out_shape = in;
    std::vector<int64_t> src_strides = in_strides;
    int64_t src_offset = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t a = static_cast<size_t>(norm_axes[i]);
      const int64_t dim = in[a];
      const int64_t step = std::max(steps[i], -INT64_MAX);  // keeps -step representable
      if (step == 0) return InvalidArgument("'steps' has a 0 for axis " + std::to_string(a));
      int64_t start = starts[i], end = ends[i];
      if (start < 0) start += dim;
      if (end < 0) end += dim;
      int64_t count;
      if (dim == 0) {
        count = 0;
      } else if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        count = end > start ? (end - start - 1) / step + 1 : 0;
      } else {
        start = std::clamp<int64_t>(start, 0, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        count = start > end ? (start - end - 1) / -step + 1 : 0;
      }
      out_shape[a] = count;
      if (count > 0) src_offset += start * in_strides[a];
      src_strides[a] = in_strides[a] * step;
    }
    planned->dst_strides = RowMajorStrides(out_shape);
    planned->out_shape = std::move(out_shape);
    planned->src_strides = std::move(src_strides);
    planned->src_offset = src_offset;
    return std::shared_ptr<const Planned>(std::move(planned));
  }

  bool attrs_ = false;
  bool has_axes_ = false;
  std::vector<int64_t> starts_, ends_, axes_;
  KeptPlan<Planned> planned_;  // the last run's input shape and index inputs, and the copy they gave
};

}  // namespace

void RegisterSliceOps(KernelRegistry& registry) {
  registry.Add("", "Slice", 1, kLatestVersion, MakeFactory<SliceKernel>());
}

}  // namespace onyx::ops::movement
