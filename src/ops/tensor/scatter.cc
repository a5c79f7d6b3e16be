// Scatter (old), ScatterElements and ScatterND: a copy of `data` with `updates` written (or combined by a
// reduction) at positions given by `indices`. Duplicate indices are applied in order.
#include <algorithm>

#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Result<Reduction> ParseReduction(const KernelInfo& info) {
  const std::string r = info.GetString("reduction", "none");
  const int v = info.since_version();
  if (r == "none") return Reduction::kNone;
  if (v >= 16 && r == "add") return Reduction::kAdd;
  if (v >= 16 && r == "mul") return Reduction::kMul;
  if (v >= 18 && r == "max") return Reduction::kMax;
  if (v >= 18 && r == "min") return Reduction::kMin;
  return info.Error("attribute 'reduction' '" + r + "' is not supported at this version");
}

// `current` combined with `update` by `reduction` (kNone: the update), in T's compute type.
template <typename T>
T Reduce(Reduction reduction, T current, T update) {
  using CT = ComputeType<T>;
  const CT a = static_cast<CT>(current), b = static_cast<CT>(update);
  switch (reduction) {
    case Reduction::kAdd:
      return T(static_cast<CT>(a + b));
    case Reduction::kMul:
      return T(static_cast<CT>(a * b));
    case Reduction::kMax:
      return T(std::max(a, b));
    case Reduction::kMin:
      return T(std::min(a, b));
    case Reduction::kNone:
      break;
  }
  return update;
}

// Writes updates[i] into out[dst[i] + k] for k < slice, combining by `reduction`.
Status Apply(Reduction reduction, const Tensor& updates, const std::vector<int64_t>& dst, int64_t slice, Tensor& out) {
  if (reduction == Reduction::kNone) {
    return DispatchCopy(out.type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C* u = updates.data<C>();
      C* o = out.data<C>();
      for (size_t i = 0; i < dst.size(); ++i) {
        for (int64_t k = 0; k < slice; ++k) o[dst[i] + k] = u[static_cast<int64_t>(i) * slice + k];
      }
      return Status::Ok();
    });
  }
  return Dispatch<NumericTypes>(out.type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* u = updates.data<T>();
    T* o = out.data<T>();
    for (size_t i = 0; i < dst.size(); ++i) {
      for (int64_t k = 0; k < slice; ++k) {
        T& at = o[dst[i] + k];
        at = Reduce(reduction, at, u[static_cast<int64_t>(i) * slice + k]);
      }
    }
    return Status::Ok();
  });
}

Status CheckCommon(const Tensor& data, const Tensor& indices, const Tensor& updates) {
  if (indices.type() != DataType::kInt32 && indices.type() != DataType::kInt64) {
    return InvalidArgument("input 'indices' (1) has element type " + std::string(DataTypeName(indices.type())) +
                           ", expected int32 or int64");
  }
  if (updates.type() != data.type()) {
    return InvalidArgument("input 'updates' (2) has element type " + std::string(DataTypeName(updates.type())) +
                           " but 'data' has " + std::string(DataTypeName(data.type())));
  }
  return Status::Ok();
}

// Scatter and ScatterElements.
class ScatterElementsKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 0);
    ONYX_ASSIGN_OR_RETURN(reduction_, ParseReduction(info));
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* updates, ctx.TensorInput(2));
    ONYX_RETURN_IF_ERROR(CheckCommon(*data, *indices, *updates));
    if (data->rank() == 0) return InvalidArgument("input 'data' (0) is a scalar; it needs rank >= 1");
    if (indices->shape() != updates->shape() || indices->rank() != data->rank()) {
      return InvalidArgument("inputs 'indices' " + ShapeToString(indices->shape()) + " and 'updates' " +
                             ShapeToString(updates->shape()) + " must have the same shape, of the rank of 'data' " +
                             ShapeToString(data->shape()));
    }
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, data->rank()));
    for (int64_t d = 0; d < data->rank(); ++d) {
      if (d != axis && indices->dim(d) > data->dim(d)) {
        return InvalidArgument("input 'indices' (1) shape " + ShapeToString(indices->shape()) +
                               " exceeds 'data' shape " + ShapeToString(data->shape()) + " on axis " + std::to_string(d));
      }
    }
    // The output is data's own buffer where nothing reads data afterwards, else a copy of it.
    Tensor* out = ctx.ReuseInputAsOutput(0, 0);
    if (out == nullptr) {
      out = &ctx.AllocateOutput(0, data->type(), data->shape());
      ONYX_RETURN_IF_ERROR(DispatchCopy(data->type(), [&](auto tag) {
        using C = typename decltype(tag)::type;
        std::copy_n(data->data<C>(), data->size(), out->data<C>());
        return Status::Ok();
      }));
    }
    if (indices->type() == DataType::kInt32) return Scatter<int32_t>(*indices, *updates, axis, *out);
    return Scatter<int64_t>(*indices, *updates, axis, *out);
  }

 private:
  // Each update written to (or combined into) its position in `out` (tensor_util.h, ForEachElementIndex).
  template <typename I>
  Status Scatter(const Tensor& indices, const Tensor& updates, int64_t axis, Tensor& out) const {
    const std::vector<int64_t> strides = RowMajorStrides(out.shape());
    auto scatter = [&](auto tag, auto combine) -> Status {
      using T = typename decltype(tag)::type;
      const T* u = updates.data<T>();
      T* o = out.data<T>();
      return ForEachElementIndex<I>(indices, strides, axis, out.dim(axis),
                                    [&](int64_t i, int64_t at) { o[at] = combine(o[at], u[i]); });
    };
    if (reduction_ == Reduction::kNone) {
      return DispatchCopy(out.type(), [&](auto tag) {
        using C = typename decltype(tag)::type;
        return scatter(tag, [](const C&, const C& update) -> const C& { return update; });
      });
    }
    return Dispatch<NumericTypes>(out.type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const Reduction reduction = reduction_;
      return scatter(tag, [reduction](T current, T update) { return Reduce(reduction, current, update); });
    });
  }

  int64_t axis_ = 0;
  Reduction reduction_ = Reduction::kNone;
};

class ScatterNDKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(reduction_, ParseReduction(info));
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* updates, ctx.TensorInput(2));
    ONYX_RETURN_IF_ERROR(CheckCommon(*data, *indices, *updates));
    const int64_t r = data->rank(), q = indices->rank();
    if (r < 1 || q < 1) return InvalidArgument("inputs 'data' and 'indices' must have rank >= 1");
    const int64_t k = indices->dim(q - 1);
    if (k < 1 || k > r) {
      return InvalidArgument("the last dimension of 'indices' " + ShapeToString(indices->shape()) +
                             " must be in [1, " + std::to_string(r) + "]");
    }
    const Shape& ds = data->shape();
    Shape expected(indices->shape().begin(), indices->shape().end() - 1);
    expected.insert(expected.end(), ds.begin() + k, ds.end());
    if (updates->shape() != expected) {
      return InvalidArgument("input 'updates' (2) has shape " + ShapeToString(updates->shape()) + ", expected " +
                             ShapeToString(expected));
    }
    const std::vector<int64_t> strides = RowMajorStrides(ds);
    const int64_t n = DimProduct(indices->shape(), 0, static_cast<size_t>(q - 1));
    const int64_t slice = DimProduct(ds, static_cast<size_t>(k), ds.size());
    std::vector<int64_t> dst(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dim = ds[static_cast<size_t>(j)];
        const int64_t v = indices->IntAt(i * k + j);
        if (v < -dim || v >= dim) {
          return InvalidArgument("index " + std::to_string(v) + " in 'indices' is out of range for dimension " +
                                 std::to_string(j) + " of 'data' " + ShapeToString(ds));
        }
        off += (v < 0 ? v + dim : v) * strides[static_cast<size_t>(j)];
      }
      dst[static_cast<size_t>(i)] = off;
    }
    Tensor out = data->Clone();
    ONYX_RETURN_IF_ERROR(Apply(reduction_, *updates, dst, slice, out));
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  Reduction reduction_ = Reduction::kNone;
};

}  // namespace

void RegisterScatterOps(KernelRegistry& registry) {
  registry.Add("", "Scatter", 9, kLatestVersion, MakeFactory<ScatterElementsKernel>());
  registry.Add("", "ScatterElements", 11, kLatestVersion, MakeFactory<ScatterElementsKernel>());
  registry.Add("", "ScatterND", 11, kLatestVersion, MakeFactory<ScatterNDKernel>());
}

}  // namespace onyx::ops::movement
