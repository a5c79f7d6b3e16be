// Concat and Split: joining tensors along an axis and cutting one apart.
#include <memory>

#include "ops/common/kept_plan.h"
#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

class ConcatKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (info.since_version() >= 4 && !info.HasAttribute("axis")) return info.Error("attribute 'axis' is required");
    axis_ = info.GetInt("axis", 1);  // version 1 defaults to 1
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    const size_t n = ctx.num_inputs();
    if (n == 0) return InvalidArgument("Concat needs at least one input");
    ONYX_ASSIGN_OR_RETURN(
        std::shared_ptr<const Plan> plan,
        plan_.FindOrMake([&](const Plan& p) { return Matches(ctx, p); }, [&] { return MakePlan(ctx); }));
    size_t first = 0;  // inputs before this one are in place already
    Tensor* out = nullptr;
    if (n >= 2 && plan->appends && ctx.IsSubgraphInput(0)) {
      // A loop's accumulator: Concat(carried value, this iteration's part) along the outermost axis, the result
      // carried to the next iteration (an exported Python list append: Mask R-CNN pastes its masks so). Copying
      // the whole accumulator every iteration is quadratic (1.7 GB copied per run of 100 masks of 512x512); where
      // the carried buffer has room the parts are appended after it, and a new accumulator gets twice its size of
      // room, so the copies sum to a few times the final size.
      out = ctx.GrowInputAsOutput(0, 0, plan->out_shape);
      if (out != nullptr) {
        first = 1;
      } else {
        const size_t bytes = DataTypeStorageBytes(plan->type, static_cast<size_t>(NumElements(plan->out_shape)));
        out = &ctx.AllocateOutputWithRoom(0, plan->type, plan->out_shape, 2 * bytes);
      }
    } else {
      out = &ctx.AllocateOutput(0, plan->type, plan->out_shape);
    }
    for (size_t i = first; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      StridedCopy(t, 0, plan->in_strides[i], *out, plan->offsets[i], plan->out_strides, t.shape());
    }
    return Status::Ok();
  }

 private:
  // The copies for one list of input shapes: each input's strides and where it starts in the output.
  struct Plan {
    DataType type = DataType::kUndefined;
    std::vector<Shape> in_shapes;
    Shape out_shape;
    std::vector<int64_t> out_strides;
    std::vector<std::vector<int64_t>> in_strides;
    std::vector<int64_t> offsets;  // in elements of the output
    // Every output axis before the concatenation axis is 1: input 0's elements are the output's first ones, in
    // order, so the output can grow out of input 0's buffer. Not for strings or sub-byte types.
    bool appends = false;
  };

  static bool Matches(const KernelContext& ctx, const Plan& plan) {
    if (ctx.num_inputs() != plan.in_shapes.size()) return false;
    for (size_t i = 0; i < plan.in_shapes.size(); ++i) {
      if (!ctx.has_input(i) || !ctx.input_value(i).is_tensor()) return false;
      const Tensor& t = ctx.input(i);
      if (t.type() != plan.type || t.shape() != plan.in_shapes[i]) return false;
    }
    return true;
  }

  Result<std::shared_ptr<const Plan>> MakePlan(const KernelContext& ctx) const {
    std::vector<const Tensor*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(i));
      inputs.push_back(t);
    }
    const Tensor& first = *inputs[0];
    if (first.rank() == 0) return InvalidArgument("input 0 is a scalar; Concat needs tensors of rank >= 1");
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, first.rank()));
    const size_t ax = static_cast<size_t>(axis);
    auto plan = std::make_shared<Plan>();
    plan->type = first.type();
    Shape& out_shape = plan->out_shape;
    out_shape = first.shape();
    out_shape[ax] = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = *inputs[i];
      bool compatible = t.rank() == first.rank() && t.type() == first.type();
      for (size_t d = 0; compatible && d < out_shape.size(); ++d)
        compatible = d == ax || t.dim(static_cast<int64_t>(d)) == first.dim(static_cast<int64_t>(d));
      if (!compatible) {
        return InvalidArgument("input " + std::to_string(i) + " (" + std::string(DataTypeName(t.type())) + " " +
                               ShapeToString(t.shape()) + ") does not match input 0 (" +
                               std::string(DataTypeName(first.type())) + " " + ShapeToString(first.shape()) +
                               ") outside axis " + std::to_string(axis));
      }
      out_shape[ax] += t.dim(axis);
    }
    plan->out_strides = RowMajorStrides(out_shape);
    int64_t offset = 0;
    for (const Tensor* t : inputs) {
      plan->in_shapes.push_back(t->shape());
      plan->in_strides.push_back(RowMajorStrides(t->shape()));
      plan->offsets.push_back(offset * plan->out_strides[ax]);
      offset += t->dim(axis);
    }
    plan->appends = plan->type != DataType::kString && !IsSubByte(plan->type) &&
                    std::all_of(out_shape.begin(), out_shape.begin() + axis, [](int64_t d) { return d == 1; });
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  int64_t axis_ = 1;
  KeptPlan<Plan> plan_;  // the last run's input shapes and type, and the copies they gave
};

class SplitKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    since_ = info.since_version();
    axis_ = info.GetInt("axis", 0);
    has_split_attr_ = since_ < 13 && info.HasAttribute("split");
    split_attr_ = info.GetInts("split");
    num_outputs_attr_ = since_ >= 18 ? info.GetInt("num_outputs", 0) : 0;
    if (since_ >= 18 && info.HasAttribute("num_outputs")) {
      if (info.has_input(1)) return info.Error("attributes 'num_outputs' and input 'split' are both given");
      if (num_outputs_attr_ < 1) return info.Error("attribute 'num_outputs' must be positive");
      if (static_cast<size_t>(num_outputs_attr_) != info.num_outputs()) {
        return info.Error("attribute 'num_outputs' is " + std::to_string(num_outputs_attr_) + " but the node has " +
                          std::to_string(info.num_outputs()) + " outputs");
      }
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const bool split_given = (since_ == 1 || since_ >= 13) && ctx.has_input(1);
    const Tensor* split_input = nullptr;
    if (split_given) {
      ONYX_ASSIGN_OR_RETURN(split_input, ctx.TensorInput(1));
    }
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                          plan_.FindOrMake(
                              [&](const Plan& p) {
                                return p.in_shape == x->shape() && p.split_given == split_given &&
                                       p.out_shapes.size() == ctx.num_outputs() &&
                                       (split_input == nullptr || HoldsInts(*split_input, p.split_input));
                              },
                              [&] { return MakePlan(ctx, *x, split_given); }));
    for (size_t i = 0; i < plan->out_shapes.size(); ++i) {
      Tensor& out = ctx.AllocateOutput(i, x->type(), plan->out_shapes[i]);
      StridedCopy(*x, plan->offsets[i], plan->in_strides, out, 0, plan->out_strides[i], plan->out_shapes[i]);
    }
    return Status::Ok();
  }

 private:
  // The copies for one input shape and split: each output's shape and strides and where it starts in the input.
  struct Plan {
    Shape in_shape;
    bool split_given = false;
    std::vector<int64_t> split_input;  // the split input as given
    std::vector<int64_t> in_strides;
    std::vector<Shape> out_shapes;
    std::vector<std::vector<int64_t>> out_strides;
    std::vector<int64_t> offsets;  // in elements of the input
  };

  Result<std::shared_ptr<const Plan>> MakePlan(const KernelContext& ctx, const Tensor& input, bool split_given) const {
    const Tensor* x = &input;
    auto plan = std::make_shared<Plan>();
    plan->in_shape = x->shape();
    plan->split_given = split_given;
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, x->rank()));
    if (x->rank() == 0) return InvalidArgument("input 'input' (0) is a scalar; Split needs rank >= 1");
    const int64_t dim = x->dim(axis);
    const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> split;
    bool has_split = has_split_attr_;
    if (has_split) split = split_attr_;
    if (split_given) {
      has_split = true;
      ONYX_ASSIGN_OR_RETURN(split, IntsInput(ctx, 1, "split"));
      plan->split_input = split;
    }
    if (!has_split) {
      const int64_t parts = num_outputs_attr_ > 0 ? num_outputs_attr_ : n_out;
      if (parts < 1) return InvalidArgument("Split has no outputs");
      if (num_outputs_attr_ > 0) {  // uneven: every chunk ceil(dim/parts) but the last
        const int64_t chunk = (dim + parts - 1) / parts;
        int64_t left = dim;
        for (int64_t i = 0; i < parts; ++i) {
          split.push_back(std::min(chunk, left));
          left -= split.back();
        }
      } else {
        if (dim % parts != 0) {
          return InvalidArgument("dimension " + std::to_string(dim) + " of axis " + std::to_string(axis) +
                                 " cannot be split evenly into " + std::to_string(parts) + " outputs");
        }
        split.assign(static_cast<size_t>(parts), dim / parts);
      }
    }
    if (static_cast<int64_t>(split.size()) != n_out) {
      return InvalidArgument("'split' has " + std::to_string(split.size()) + " entries but the node has " +
                             std::to_string(n_out) + " outputs");
    }
    int64_t sum = 0;
    for (int64_t s : split) {
      if (s < 0) return InvalidArgument("'split' " + ShapeToString(split) + " has a negative entry");
      sum += s;
    }
    if (sum != dim) {
      return InvalidArgument("'split' " + ShapeToString(split) + " sums to " + std::to_string(sum) + ", but axis " +
                             std::to_string(axis) + " has dimension " + std::to_string(dim));
    }
    plan->in_strides = RowMajorStrides(x->shape());
    int64_t offset = 0;
    for (size_t i = 0; i < split.size(); ++i) {
      Shape shape = x->shape();
      shape[static_cast<size_t>(axis)] = split[i];
      plan->out_strides.push_back(RowMajorStrides(shape));
      plan->out_shapes.push_back(std::move(shape));
      plan->offsets.push_back(offset * plan->in_strides[static_cast<size_t>(axis)]);
      offset += split[i];
    }
    return std::shared_ptr<const Plan>(std::move(plan));
  }

 private:
  int since_ = 0;
  int64_t axis_ = 0;
  bool has_split_attr_ = false;
  std::vector<int64_t> split_attr_;
  int64_t num_outputs_attr_ = 0;
  KeptPlan<Plan> plan_;  // the last run's input shape and split, and the copies they gave
};

}  // namespace

void RegisterConcatSplitOps(KernelRegistry& registry) {
  registry.Add("", "Concat", 1, kLatestVersion, MakeFactory<ConcatKernel>());
  registry.Add("", "Split", 1, kLatestVersion, MakeFactory<SplitKernel>());
}

}  // namespace onyx::ops::movement
