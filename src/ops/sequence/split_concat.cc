// SplitToSequence (a tensor cut along an axis into a sequence of parts) and ConcatFromSequence (a sequence's
// tensors joined along an existing axis or stacked along a new one).
#include "ops/common/op_util.h"
#include "ops/control_flow/control_flow.h"
#include "ops/sequence/sequence.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::sequence {
namespace {

// The part of `t` from `start` to `start + len` along `axis` (a copy).
Tensor SliceRange(const Tensor& t, int64_t axis, int64_t start, int64_t len) {
  Shape shape = t.shape();
  shape[static_cast<size_t>(axis)] = len;
  Tensor out = Tensor::Allocate(t.type(), shape, /*zero=*/IsSubByte(t.type()));
  const std::vector<int64_t> strides = RowMajorStrides(t.shape());
  movement::StridedCopy(t, start * strides[static_cast<size_t>(axis)], strides, out, 0, RowMajorStrides(shape),
                        shape);
  return out;
}

class SplitToSequenceKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 0);
    keepdims_ = info.GetInt("keepdims", 1);
    if (keepdims_ != 0 && keepdims_ != 1) {
      return info.Error("attribute 'keepdims' is " + std::to_string(keepdims_) + ", expected 0 or 1");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() == 0) return InvalidArgument("input 'input' (0) is a scalar; SplitToSequence needs rank >= 1");
    auto normalized = NormalizeAxis(axis_, x->rank());
    if (!normalized.ok()) return normalized.status().WithContext("attribute 'axis'");
    const int64_t axis = *normalized;
    const int64_t dim = x->dim(axis);
    SequenceValue out;
    out.elem_type = x->type();
    if (!ctx.has_input(1)) {
      // One part per index along the axis, which keepdims=0 drops.
      for (int64_t i = 0; i < dim; ++i) {
        Tensor part = SliceRange(*x, axis, i, 1);
        if (keepdims_ == 0) {
          Shape s = part.shape();
          s.erase(s.begin() + axis);
          ONYX_ASSIGN_OR_RETURN(part, part.Reshaped(s));
        }
        out.items.emplace_back(std::move(part));
      }
      ctx.SetOutput(0, std::move(out));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(const Tensor* split, ctx.TensorInput(1));
    if (split->type() != DataType::kInt32 && split->type() != DataType::kInt64) {
      return InvalidArgument("input 'split' (1) must be int32 or int64, got " + TensorTypeString(split->type()));
    }
    std::vector<int64_t> sizes;
    if (split->rank() == 0) {
      const int64_t chunk = split->IntAt(0);
      if (chunk <= 0) return InvalidArgument("input 'split' (1) is " + std::to_string(chunk) + "; it must be positive");
      for (int64_t start = 0; start < dim; start += chunk) sizes.push_back(std::min(chunk, dim - start));
    } else if (split->rank() == 1) {
      int64_t sum = 0;
      for (int64_t i = 0; i < split->size(); ++i) {
        const int64_t s = split->IntAt(i);
        if (s < 0) {
          return InvalidArgument("input 'split' (1) entry " + std::to_string(i) + " is " + std::to_string(s) +
                                 "; split sizes cannot be negative");
        }
        sizes.push_back(s);
        sum += s;
      }
      if (sum != dim) {
        return InvalidArgument("input 'split' (1) sums to " + std::to_string(sum) + " but axis " +
                               std::to_string(axis) + " of input 'input' " + ShapeToString(x->shape()) + " has " +
                               std::to_string(dim));
      }
    } else {
      return InvalidArgument("input 'split' (1) must be a scalar or 1-D, got shape " +
                             ShapeToString(split->shape()));
    }
    int64_t start = 0;
    for (int64_t s : sizes) {
      out.items.emplace_back(SliceRange(*x, axis, start, s));
      start += s;
    }
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  int64_t keepdims_ = 1;
};

class ConcatFromSequenceKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(axis_, info.GetRequiredInt("axis"));
    new_axis_ = info.GetInt("new_axis", 0);
    if (new_axis_ != 0 && new_axis_ != 1) {
      return info.Error("attribute 'new_axis' is " + std::to_string(new_axis_) + ", expected 0 or 1");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const SequenceValue* seq, SequenceInput(ctx, 0, "'input_sequence' (0)"));
    if (seq->items.empty()) {
      return InvalidArgument("input 'input_sequence' (0) is empty; the output's shape cannot be determined");
    }
    std::vector<Tensor> items;
    items.reserve(seq->items.size());
    for (size_t i = 0; i < seq->items.size(); ++i) {
      if (!seq->items[i].is_tensor()) {
        return InvalidArgument("item " + std::to_string(i) + " of input 'input_sequence' (0) is a " +
                               seq->items[i].KindName() + ", not a tensor");
      }
      items.push_back(seq->items[i].tensor());
    }
    const Tensor& first = items[0];
    if (new_axis_ == 1) {
      auto axis = NormalizeAxis(axis_, first.rank() + 1);
      if (!axis.ok()) return axis.status().WithContext("attribute 'axis' (with new_axis=1)");
      ONYX_ASSIGN_OR_RETURN(Tensor out, control_flow::Stack(items, *axis, "input 'input_sequence' (0)"));
      ctx.SetOutput(0, std::move(out));
      return Status::Ok();
    }
    if (first.rank() == 0) {
      return InvalidArgument("the items of input 'input_sequence' (0) are scalars; concatenating needs rank >= 1");
    }
    auto normalized = NormalizeAxis(axis_, first.rank());
    if (!normalized.ok()) return normalized.status().WithContext("attribute 'axis'");
    const int64_t axis = *normalized;
    const size_t ax = static_cast<size_t>(axis);
    Shape out_shape = first.shape();
    out_shape[ax] = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const Tensor& t = items[i];
      bool ok = t.type() == first.type() && t.rank() == first.rank();
      for (size_t d = 0; ok && d < out_shape.size(); ++d) ok = d == ax || t.shape()[d] == first.shape()[d];
      if (!ok) {
        return InvalidArgument("item " + std::to_string(i) + " (" + TensorTypeString(t.type()) + " " +
                               ShapeToString(t.shape()) + ") of input 'input_sequence' (0) does not match item 0 (" +
                               TensorTypeString(first.type()) + " " + ShapeToString(first.shape()) +
                               ") outside axis " + std::to_string(axis));
      }
      out_shape[ax] += t.dim(axis);
    }
    Tensor out = Tensor::Allocate(first.type(), out_shape, /*zero=*/IsSubByte(first.type()));
    const std::vector<int64_t> out_strides = RowMajorStrides(out_shape);
    int64_t offset = 0;
    for (const Tensor& t : items) {
      movement::StridedCopy(t, 0, RowMajorStrides(t.shape()), out, offset * out_strides[ax], out_strides, t.shape());
      offset += t.dim(axis);
    }
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  int64_t new_axis_ = 0;
};

}  // namespace

void RegisterSplitConcatOps(KernelRegistry& registry) {
  registry.Add("", "SplitToSequence", 11, kLatestVersion, MakeFactory<SplitToSequenceKernel>());
  registry.Add("", "ConcatFromSequence", 11, kLatestVersion, MakeFactory<ConcatFromSequenceKernel>());
}

}  // namespace onyx::ops::sequence
