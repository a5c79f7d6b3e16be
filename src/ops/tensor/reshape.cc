// Operators that change only the shape of a tensor (the output shares the input's storage), plus Identity, Shape
// and Size.
#include <algorithm>
#include <memory>

#include "ir/nchwc_ops.h"
#include "ops/common/kept_plan.h"
#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

// The output shape of Reshape: 0 copies the input dimension (unless allowzero), -1 is inferred.
Result<Shape> ReshapeTarget(const Shape& in, const std::vector<int64_t>& requested, bool allowzero) {
  Shape out(requested.size());
  int64_t infer_at = -1;
  int64_t known = 1;
  bool has_zero = false;
  for (size_t i = 0; i < requested.size(); ++i) {
    int64_t d = requested[i];
    if (d == -1) {
      if (infer_at >= 0) return InvalidArgument("shape " + ShapeToString(requested) + " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (d < -1)
      return InvalidArgument("shape " + ShapeToString(requested) + " has invalid dimension " + std::to_string(d));
    if (d == 0) {
      has_zero = true;
      if (!allowzero) {
        if (i >= in.size()) {
          return InvalidArgument("shape " + ShapeToString(requested) + " copies dimension " + std::to_string(i) +
                                 " (0) but the input " + ShapeToString(in) + " has rank " + std::to_string(in.size()));
        }
        d = in[i];
      }
    }
    out[i] = d;
    if (d != 0 && known > (int64_t{1} << 62) / d)
      return InvalidArgument("shape " + ShapeToString(requested) + " is too large");
    known *= d;
  }
  const int64_t total = NumElements(in);
  if (infer_at >= 0) {
    if (allowzero && has_zero) {
      return InvalidArgument("shape " + ShapeToString(requested) + " has both 0 and -1 while allowzero is set");
    }
    if (known == 0 || total % known != 0) {
      return InvalidArgument("cannot reshape " + ShapeToString(in) + " to " + ShapeToString(requested) +
                             ": the -1 dimension cannot be inferred");
    }
    out[static_cast<size_t>(infer_at)] = total / known;
  } else if (known != total) {
    return InvalidArgument("cannot reshape " + ShapeToString(in) + " (" + std::to_string(total) + " elements) to " +
                           ShapeToString(out) + " (" + std::to_string(known) + " elements)");
  }
  return out;
}

class ReshapeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    since_ = info.since_version();
    allowzero_ = info.GetInt("allowzero", 0) != 0;
    if (since_ < 5) {
      if (!info.HasAttribute("shape")) return info.Error("attribute 'shape' is required");
      shape_attr_ = info.GetInts("shape");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    const Tensor* shape = nullptr;
    if (since_ >= 5) {
      ONYX_ASSIGN_OR_RETURN(shape, ctx.TensorInput(1));
    }
    auto fits = [&](const Resolved& r) {
      return r.in_shape == data->shape() &&
             (shape == nullptr || (shape->rank() == 1 && HoldsInts(*shape, r.requested)));
    };
    auto resolve = [&]() -> Result<std::shared_ptr<const Resolved>> {
      std::vector<int64_t> requested = shape_attr_;
      if (shape != nullptr) {
        if (shape->rank() != 1) {
          return InvalidArgument("input 'shape' (1) has shape " + ShapeToString(shape->shape()) + ", expected 1-D");
        }
        ONYX_ASSIGN_OR_RETURN(requested, IntsInput(ctx, 1, "shape"));
      }
      ONYX_ASSIGN_OR_RETURN(Shape out_shape, ReshapeTarget(data->shape(), requested, allowzero_));
      if (NumElements(out_shape) != data->size()) {
        return InvalidArgument("cannot reshape " + ShapeToString(data->shape()) + " to " + ShapeToString(out_shape));
      }
      return std::make_shared<const Resolved>(Resolved{data->shape(), std::move(requested), std::move(out_shape)});
    };
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Resolved> resolved, resolved_.FindOrMake(fits, resolve));
    ctx.SetOutputView(0, *data, resolved->out_shape);
    return Status::Ok();
  }

 private:
  struct Resolved {
    Shape in_shape;
    std::vector<int64_t> requested;
    Shape out_shape;
  };
  KeptPlan<Resolved> resolved_;  // the last run's input shape and requested shape, and what they gave
  int since_ = 0;
  bool allowzero_ = false;
  std::vector<int64_t> shape_attr_;
};

// Squeeze and Unsqueeze: axes are an attribute before version 13 and an input from 13 on.
class SqueezeKernel : public OpKernel {
 public:
  explicit SqueezeKernel(bool unsqueeze) : unsqueeze_(unsqueeze) {}
  Status Init(const KernelInfo& info) override {
    axes_from_input_ = info.since_version() >= 13;
    if (!axes_from_input_) {
      has_axes_ = info.HasAttribute("axes");
      axes_ = info.GetInts("axes");
      if (unsqueeze_ && !has_axes_) return info.Error("attribute 'axes' is required");
    } else if (unsqueeze_ && !info.has_input(1)) {
      return info.Error("input 'axes' (1) is required");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    const Tensor* axes_input = nullptr;
    if (axes_from_input_ && ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(axes_input, ctx.TensorInput(1));
    }
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Resolved> resolved,
                          resolved_.FindOrMake(
                              [&](const Resolved& r) {
                                return r.in_shape == data->shape() && r.axes_given == (axes_input != nullptr) &&
                                       (axes_input == nullptr || HoldsInts(*axes_input, r.axes));
                              },
                              [&] { return Resolve(ctx, *data, axes_input != nullptr); }));
    ctx.SetOutputView(0, *data, resolved->out_shape);
    return Status::Ok();
  }

 private:
  struct Resolved {
    Shape in_shape;
    bool axes_given = false;
    std::vector<int64_t> axes;  // the axes input as given
    Shape out_shape;
  };

  Result<std::shared_ptr<const Resolved>> Resolve(const KernelContext& ctx, const Tensor& data, bool axes_given) const {
    auto resolved = std::make_shared<Resolved>();
    resolved->in_shape = data.shape();
    resolved->axes_given = axes_given;
    bool has_axes = has_axes_;
    std::vector<int64_t> axes = axes_;
    if (axes_given) {
      has_axes = true;
      ONYX_ASSIGN_OR_RETURN(axes, IntsInput(ctx, 1, "axes"));
      resolved->axes = axes;
    }
    const Shape& in = data.shape();
    Shape& out = resolved->out_shape;
    if (unsqueeze_) {
      const int64_t out_rank = data.rank() + static_cast<int64_t>(axes.size());
      ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> norm, NormalizeAxes(axes, out_rank));
      std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
      for (int64_t a : norm) inserted[static_cast<size_t>(a)] = true;
      size_t next = 0;
      for (int64_t i = 0; i < out_rank; ++i) out.push_back(inserted[static_cast<size_t>(i)] ? 1 : in[next++]);
    } else if (!has_axes) {
      for (int64_t d : in) {
        if (d != 1) out.push_back(d);
      }
    } else {
      ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> norm, NormalizeAxes(axes, data.rank()));
      for (int64_t a : norm) {
        if (in[static_cast<size_t>(a)] != 1) {
          return InvalidArgument("cannot squeeze axis " + std::to_string(a) + " of shape " + ShapeToString(in) +
                                 ": its dimension is not 1");
        }
      }
      for (size_t i = 0; i < in.size(); ++i) {
        if (std::find(norm.begin(), norm.end(), static_cast<int64_t>(i)) == norm.end()) out.push_back(in[i]);
      }
    }
    if (NumElements(out) != data.size()) {
      return InvalidArgument("cannot reshape " + ShapeToString(in) + " to " + ShapeToString(out));
    }
    return std::shared_ptr<const Resolved>(std::move(resolved));
  }

 private:
  bool unsqueeze_;
  bool axes_from_input_ = false;
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
  KeptPlan<Resolved> resolved_;  // the last run's input shape and axes, and the output shape they gave
};

class FlattenKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 1);
    if (info.since_version() < 11 && axis_ < 0)
      return info.Error("attribute 'axis' must not be negative before version 11");
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    const int64_t rank = data->rank();
    if (axis_ < -rank || axis_ > rank) {
      return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for rank " +
                             std::to_string(rank));
    }
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    // [outer, inner] in a vector of the calling thread: the frame copies it into a recycled one.
    thread_local Shape thread_out_shape(2);
    thread_out_shape[0] = DimProduct(data->shape(), 0, axis);
    thread_out_shape[1] = DimProduct(data->shape(), axis, data->shape().size());
    ctx.SetOutputView(0, *data, thread_out_shape);
    return Status::Ok();
  }

 private:
  int64_t axis_ = 1;
};

// Shape, and NchwcShape (ir/nchwc_ops.h): the logical NCHW shape of a blocked [N, C/b, H, W, b] tensor.
class ShapeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    start_ = info.GetInt("start", 0);
    has_end_ = info.HasAttribute("end");
    end_ = info.GetInt("end", 0);
    if (info.op_type() == ir::nchwc::kShape) {
      channels_ = info.GetInt("channels", 0);
      if (channels_ < 1) return info.Error("attribute 'channels' must be positive");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    if (channels_ > 0 && data->rank() != 5) {
      return InvalidArgument("blocked input 0 has shape " + ShapeToString(data->shape()) + ", expected rank 5");
    }
    const auto dim = [&](int64_t d) { return channels_ > 0 && d == 1 ? channels_ : data->dim(d); };
    const int64_t rank = channels_ > 0 ? 4 : data->rank();
    auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    const int64_t start = clamp(start_);
    const int64_t end = has_end_ ? clamp(end_) : rank;
    const int64_t n = std::max<int64_t>(end - start, 0);
    // The output's shape [n] in a vector of the calling thread: the frame copies it into a recycled one.
    thread_local Shape thread_out_shape(1);
    thread_out_shape[0] = n;
    Tensor& out = ctx.AllocateOutput(0, DataType::kInt64, static_cast<const Shape&>(thread_out_shape));
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = dim(start + i);
    return Status::Ok();
  }

 private:
  int64_t channels_ = 0;  // NchwcShape: the blocked input's logical channels
  int64_t start_ = 0;
  int64_t end_ = 0;
  bool has_end_ = false;
};

}  // namespace

void RegisterReshapeOps(KernelRegistry& registry) {
  registry.Add("", "Reshape", 1, kLatestVersion, MakeFactory<ReshapeKernel>());
  registry.Add("", "Squeeze", 1, kLatestVersion, [](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<SqueezeKernel>(false);
    ONYX_RETURN_IF_ERROR(k->Init(info));
    return std::unique_ptr<OpKernel>(std::move(k));
  });
  registry.Add("", "Unsqueeze", 1, kLatestVersion, [](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<SqueezeKernel>(true);
    ONYX_RETURN_IF_ERROR(k->Init(info));
    return std::unique_ptr<OpKernel>(std::move(k));
  });
  registry.Add("", "Flatten", 1, kLatestVersion, MakeFactory<FlattenKernel>());
  registry.Add("", "Shape", 1, kLatestVersion, MakeFactory<ShapeKernel>());
  registry.Add(ir::kInternalDomain, ir::nchwc::kShape, 1, 1, MakeFactory<ShapeKernel>());
  registry.AddFn("", "Size", 1, kLatestVersion, [](const KernelInfo&, KernelContext& ctx) -> Status {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ctx.AllocateOutput(0, DataType::kInt64, {}).data<int64_t>()[0] = data->size();
    return Status::Ok();
  });
  // Identity passes any value through: tensors, sequences and optionals (an empty optional stays empty).
  registry.AddFn("", "Identity", 1, kLatestVersion, [](const KernelInfo&, KernelContext& ctx) -> Status {
    ctx.SetOutput(0, ctx.has_input(0) ? ctx.input_value(0) : Value::None());
    return Status::Ok();
  });
}

}  // namespace onyx::ops::movement
