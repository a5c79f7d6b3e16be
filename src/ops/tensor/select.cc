// NonZero, Compress and ReverseSequence: selecting or reordering elements by a data-dependent rule.
#include <cmath>

#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

template <typename T>
bool IsNonZero(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return !v.empty();
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v) != 0.0f;  // -0 is zero, NaN is not
  } else {
    return v != T{};
  }
}

Status NonZeroCompute(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  // A scalar behaves as a 1-element vector (as numpy does).
  const Shape shape = x->rank() == 0 ? Shape{1} : x->shape();
  const size_t rank = shape.size();
  // Two passes: count (no branch), then each hit's coordinates written from an odometer over the last axis's rows
  // (no division per hit, no list of hits).
  return Dispatch<AllTypes>(x->type(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* in = x->data<T>();
    const int64_t size = x->size();
    int64_t n = 0;
    for (int64_t i = 0; i < size; ++i) n += IsNonZero(in[i]) ? 1 : 0;
    Tensor& out = ctx.AllocateOutput(0, DataType::kInt64, {static_cast<int64_t>(rank), n});
    if (n == 0) return Status::Ok();
    int64_t* o = out.data<int64_t>();
    const int64_t width = shape[rank - 1];
    std::vector<int64_t> lead(rank, 0);  // the row's coordinates on the leading axes
    int64_t j = 0;
    for (int64_t row = 0; row * width < size; ++row) {
      const T* r = in + row * width;
      for (int64_t c = 0; c < width; ++c) {
        if (!IsNonZero(r[c])) continue;
        for (size_t d = 0; d + 1 < rank; ++d) o[static_cast<int64_t>(d) * n + j] = lead[d];
        o[static_cast<int64_t>(rank - 1) * n + j] = c;
        ++j;
      }
      for (size_t d = rank - 1; d-- > 0;) {
        if (++lead[d] < shape[d]) break;
        lead[d] = 0;
      }
    }
    return Status::Ok();
  });
}

Status CompressCompute(const KernelInfo& info, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* cond, ctx.TensorInput(1));
  if (cond->type() != DataType::kBool || cond->rank() != 1) {
    return InvalidArgument("input 'condition' (1) must be a 1-D bool tensor, got " +
                           std::string(DataTypeName(cond->type())) + " " + ShapeToString(cond->shape()));
  }
  const bool has_axis = info.HasAttribute("axis");
  Shape view = has_axis ? x->shape() : Shape{x->size()};  // without an axis the input is flattened
  int64_t axis = 0;
  if (has_axis) {
    if (x->rank() == 0) return InvalidArgument("input 'input' (0) is a scalar; an axis cannot be given");
    ONYX_ASSIGN_OR_RETURN(axis, NormalizeAxis(info.GetInt("axis", 0), x->rank()));
  }
  const size_t ax = static_cast<size_t>(axis);
  const int64_t dim = view[ax];
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < cond->size(); ++i) {
    if (!cond->data<bool>()[i]) continue;
    if (i >= dim) {
      return InvalidArgument("input 'condition' (1) selects index " + std::to_string(i) +
                             " beyond the dimension " + std::to_string(dim) + " of the axis");
    }
    selected.push_back(i);
  }
  const int64_t outer = DimProduct(view, 0, ax), inner = DimProduct(view, ax + 1, view.size());
  Shape out_shape = view;
  out_shape[ax] = static_cast<int64_t>(selected.size());
  Tensor& out = ctx.AllocateOutput(0, x->type(), out_shape);
  const int64_t k = static_cast<int64_t>(selected.size());
  return DispatchCopy(x->type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C* in = x->data<C>();
    C* o = out.data<C>();
    for (int64_t b = 0; b < outer; ++b) {
      for (int64_t j = 0; j < k; ++j) {
        const C* src = in + (b * dim + selected[static_cast<size_t>(j)]) * inner;
        C* dst = o + (b * k + j) * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] = src[i];
      }
    }
    return Status::Ok();
  });
}

class ReverseSequenceKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    batch_axis_ = info.GetInt("batch_axis", 1);
    time_axis_ = info.GetInt("time_axis", 0);
    if ((batch_axis_ != 0 && batch_axis_ != 1) || (time_axis_ != 0 && time_axis_ != 1) || batch_axis_ == time_axis_) {
      return info.Error("attributes 'batch_axis' and 'time_axis' must be 0 and 1 in some order");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> lens, IntsInput(ctx, 1, "sequence_lens"));
    if (x->rank() < 2) return InvalidArgument("input 'input' (0) has shape " + ShapeToString(x->shape()) + ", expected rank >= 2");
    const int64_t batch = x->dim(batch_axis_), time = x->dim(time_axis_);
    if (static_cast<int64_t>(lens.size()) != batch) {
      return InvalidArgument("input 'sequence_lens' (1) has " + std::to_string(lens.size()) +
                             " entries, expected the batch size " + std::to_string(batch));
    }
    for (int64_t l : lens) {
      if (l < 0 || l > time) {
        return InvalidArgument("input 'sequence_lens' (1) has length " + std::to_string(l) +
                               " outside [0, " + std::to_string(time) + "]");
      }
    }
    const std::vector<int64_t> strides = RowMajorStrides(x->shape());
    const int64_t inner = DimProduct(x->shape(), 2, x->shape().size());
    const int64_t bs = strides[static_cast<size_t>(batch_axis_)], ts = strides[static_cast<size_t>(time_axis_)];
    Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
    return DispatchCopy(x->type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C* in = x->data<C>();
      C* o = out.data<C>();
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t len = lens[static_cast<size_t>(b)];
        for (int64_t t = 0; t < time; ++t) {
          const int64_t src_t = t < len ? len - 1 - t : t;
          const C* src = in + b * bs + src_t * ts;
          C* dst = o + b * bs + t * ts;
          for (int64_t i = 0; i < inner; ++i) dst[i] = src[i];
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t batch_axis_ = 1;
  int64_t time_axis_ = 0;
};

}  // namespace

void RegisterSelectOps(KernelRegistry& registry) {
  registry.AddFn("", "NonZero", 9, kLatestVersion, NonZeroCompute);
  registry.AddFn("", "Compress", 9, kLatestVersion, CompressCompute);
  registry.Add("", "ReverseSequence", 10, kLatestVersion, MakeFactory<ReverseSequenceKernel>());
}

}  // namespace onyx::ops::movement
