// Gather, GatherElements and GatherND: reading elements or slices at positions given by an index tensor.
#include <memory>

#include "ops/common/kept_plan.h"
#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

// Index i of `indices` checked against [-dim, dim) and made non-negative.
Result<int64_t> IndexAt(const Tensor& indices, int64_t i, int64_t dim) {
  int64_t v = indices.IntAt(i);
  if (v < -dim || v >= dim) {
    return InvalidArgument("index " + std::to_string(v) + " (element " + std::to_string(i) +
                           " of 'indices') is out of range for a dimension of " + std::to_string(dim));
  }
  return v < 0 ? v + dim : v;
}

Status CheckIndexType(const Tensor& indices) {
  if (indices.type() != DataType::kInt32 && indices.type() != DataType::kInt64) {
    return InvalidArgument("input 'indices' (1) has element type " + std::string(DataTypeName(indices.type())) +
                           ", expected int32 or int64");
  }
  return Status::Ok();
}

class GatherKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(CheckIndexType(*indices));
    if (data->rank() == 0) return InvalidArgument("input 'data' (0) is a scalar; Gather needs rank >= 1");
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, data->rank()));
    const Shape& ds = data->shape();
    const size_t ax = static_cast<size_t>(axis);
    std::shared_ptr<const Shapes> shapes =
        shapes_.Find([&](const Shapes& s) { return s.data == ds && s.indices == indices->shape(); });
    if (shapes == nullptr) {
      Shape out_shape(ds.begin(), ds.begin() + axis);
      out_shape.insert(out_shape.end(), indices->shape().begin(), indices->shape().end());
      out_shape.insert(out_shape.end(), ds.begin() + axis + 1, ds.end());
      shapes = std::make_shared<const Shapes>(Shapes{ds, indices->shape(), std::move(out_shape)});
      shapes_.Keep(shapes);
    }
    const int64_t outer = DimProduct(ds, 0, ax), dim = ds[ax], inner = DimProduct(ds, ax + 1, ds.size());
    const int64_t n_idx = indices->size();
    // The checked indices in the calling thread's vector, reused from run to run.
    thread_local std::vector<int64_t> thread_idx;
    std::vector<int64_t>& idx = thread_idx;
    idx.resize(static_cast<size_t>(n_idx));
    for (int64_t i = 0; i < n_idx; ++i) {
      ONYX_ASSIGN_OR_RETURN(idx[static_cast<size_t>(i)], IndexAt(*indices, i, dim));
    }
    Tensor& out = ctx.AllocateOutput(0, data->type(), shapes->out);
    return DispatchCopy(data->type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C* in = data->data<C>();
      C* o = out.data<C>();
      for (int64_t b = 0; b < outer; ++b) {
        for (int64_t j = 0; j < n_idx; ++j) {
          const C* src = in + (b * dim + idx[static_cast<size_t>(j)]) * inner;
          C* dst = o + (b * n_idx + j) * inner;
          for (int64_t k = 0; k < inner; ++k) dst[k] = src[k];
        }
      }
      return Status::Ok();
    });
  }

 private:
  struct Shapes {
    Shape data, indices, out;
  };
  int64_t axis_ = 0;
  KeptPlan<Shapes> shapes_;  // the last run's input shapes and the output shape they gave
};

class GatherElementsKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(CheckIndexType(*indices));
    if (data->rank() == 0) return InvalidArgument("input 'data' (0) is a scalar; GatherElements needs rank >= 1");
    if (indices->rank() != data->rank()) {
      return InvalidArgument("input 'indices' (1) has rank " + std::to_string(indices->rank()) +
                             " but 'data' has rank " + std::to_string(data->rank()));
    }
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, data->rank()));
    for (int64_t d = 0; d < data->rank(); ++d) {
      if (d != axis && indices->dim(d) > data->dim(d)) {
        return InvalidArgument("input 'indices' (1) shape " + ShapeToString(indices->shape()) +
                               " exceeds 'data' shape " + ShapeToString(data->shape()) + " on axis " +
                               std::to_string(d));
      }
    }
    const std::vector<int64_t> strides = RowMajorStrides(data->shape());
    Tensor& out = ctx.AllocateOutput(0, data->type(), indices->shape());
    // One pass, each element read from its position (tensor_util.h, ForEachElementIndex): no list of positions.
    return DispatchCopy(data->type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C* in = data->data<C>();
      C* o = out.data<C>();
      auto gather = [&](int64_t i, int64_t at) { o[i] = in[at]; };
      if (indices->type() == DataType::kInt32) {
        return ForEachElementIndex<int32_t>(*indices, strides, axis, data->dim(axis), gather);
      }
      return ForEachElementIndex<int64_t>(*indices, strides, axis, data->dim(axis), gather);
    });
  }

 private:
  int64_t axis_ = 0;
};

class GatherNDKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    batch_dims_ = info.GetInt("batch_dims", 0);
    if (batch_dims_ < 0) return info.Error("attribute 'batch_dims' must not be negative");
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* data, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(1));
    if (indices->type() != DataType::kInt64) {
      return InvalidArgument("input 'indices' (1) has element type " + std::string(DataTypeName(indices->type())) +
                             ", expected int64");
    }
    const int64_t r = data->rank(), q = indices->rank(), b = batch_dims_;
    if (r < 1 || q < 1) return InvalidArgument("inputs 'data' and 'indices' must have rank >= 1");
    if (b >= std::min(r, q)) {
      return InvalidArgument("batch_dims " + std::to_string(b) + " must be less than the ranks of 'data' (" +
                             std::to_string(r) + ") and 'indices' (" + std::to_string(q) + ")");
    }
    for (int64_t d = 0; d < b; ++d) {
      if (data->dim(d) != indices->dim(d)) {
        return InvalidArgument("batch dimension " + std::to_string(d) + " differs: 'data' " +
                               ShapeToString(data->shape()) + ", 'indices' " + ShapeToString(indices->shape()));
      }
    }
    const int64_t m = indices->dim(q - 1);
    if (m < 1 || m > r - b) {
      return InvalidArgument("the last dimension of 'indices' " + ShapeToString(indices->shape()) + " must be in [1, " +
                             std::to_string(r - b) + "]");
    }
    const Shape& ds = data->shape();
    Shape out_shape(indices->shape().begin(), indices->shape().end() - 1);
    out_shape.insert(out_shape.end(), ds.begin() + b + m, ds.end());
    const int64_t batches = DimProduct(ds, 0, static_cast<size_t>(b));
    const int64_t batch_block = DimProduct(ds, static_cast<size_t>(b), ds.size());
    const int64_t slice = DimProduct(ds, static_cast<size_t>(b + m), ds.size());
    const int64_t per_batch = DimProduct(indices->shape(), static_cast<size_t>(b), static_cast<size_t>(q - 1));
    const std::vector<int64_t> strides = RowMajorStrides(ds);
    // Source offset of every gathered slice.
    std::vector<int64_t> src(static_cast<size_t>(batches * per_batch));
    const int64_t* ip = indices->data<int64_t>();
    for (int64_t bt = 0; bt < batches; ++bt) {
      for (int64_t j = 0; j < per_batch; ++j) {
        const int64_t* tuple = ip + (bt * per_batch + j) * m;
        int64_t off = bt * batch_block;
        for (int64_t k = 0; k < m; ++k) {
          const int64_t dim = ds[static_cast<size_t>(b + k)];
          int64_t v = tuple[k];
          if (v < -dim || v >= dim) {
            return InvalidArgument("index " + std::to_string(v) + " in 'indices' is out of range for dimension " +
                                   std::to_string(b + k) + " of 'data' " + ShapeToString(ds));
          }
          off += (v < 0 ? v + dim : v) * strides[static_cast<size_t>(b + k)];
        }
        src[static_cast<size_t>(bt * per_batch + j)] = off;
      }
    }
    Tensor& out = ctx.AllocateOutput(0, data->type(), out_shape);
    return DispatchCopy(data->type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C* in = data->data<C>();
      C* o = out.data<C>();
      for (size_t i = 0; i < src.size(); ++i) {
        for (int64_t k = 0; k < slice; ++k) o[static_cast<int64_t>(i) * slice + k] = in[src[i] + k];
      }
      return Status::Ok();
    });
  }

 private:
  int64_t batch_dims_ = 0;
};

}  // namespace

void RegisterGatherOps(KernelRegistry& registry) {
  registry.Add("", "Gather", 1, kLatestVersion, MakeFactory<GatherKernel>());
  registry.Add("", "GatherElements", 11, kLatestVersion, MakeFactory<GatherElementsKernel>());
  registry.Add("", "GatherND", 11, kLatestVersion, MakeFactory<GatherNDKernel>());
}

}  // namespace onyx::ops::movement
