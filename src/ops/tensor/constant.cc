// Operators that create tensors: Constant, ConstantOfShape, Range, EyeLike, OneHot.
#include <cmath>
#include <limits>

#include "format/tensor_proto.h"
#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

// The dense tensor of a serialized SparseTensorProto: zeros (empty strings) except at `indices`, which are either
// [NNZ] linear positions or [NNZ, rank] coordinates.
Result<Tensor> DenseFromSparse(const std::string& bytes) {
  pb::SparseTensorProto proto;
  if (!proto.ParseFromString(bytes)) return InvalidArgument("attribute 'sparse_value' is not a valid SparseTensorProto");
  ONYX_ASSIGN_OR_RETURN(Tensor values, format::TensorFromProto(proto.values(), nullptr));
  ONYX_ASSIGN_OR_RETURN(Tensor indices, format::TensorFromProto(proto.indices(), nullptr));
  Shape dims(proto.dims().begin(), proto.dims().end());
  ONYX_ASSIGN_OR_RETURN(int64_t total, CheckedNumElements(dims));
  const int64_t nnz = values.size();
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (values.rank() != 1 || indices.type() != DataType::kInt64 || IsSubByte(values.type())) {
    return InvalidArgument("attribute 'sparse_value' needs 1-D values and int64 indices");
  }
  const bool linear = indices.rank() == 1 && indices.size() == nnz;
  const bool coords = indices.rank() == 2 && indices.dim(0) == nnz && indices.dim(1) == rank;
  if (!linear && !coords) {
    return InvalidArgument("attribute 'sparse_value' has indices of shape " + ShapeToString(indices.shape()) +
                           " for " + std::to_string(nnz) + " values of a rank-" + std::to_string(rank) + " tensor");
  }
  std::vector<int64_t> src_of(static_cast<size_t>(total), -1);
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  const int64_t* ip = indices.data<int64_t>();
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t pos = 0;
    if (linear) {
      pos = ip[i];
    } else {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t c = ip[i * rank + d];
        if (c < 0 || c >= dims[static_cast<size_t>(d)]) return InvalidArgument("attribute 'sparse_value' has an index out of range");
        pos += c * strides[static_cast<size_t>(d)];
      }
    }
    if (pos < 0 || pos >= total) return InvalidArgument("attribute 'sparse_value' has an index out of range");
    src_of[static_cast<size_t>(pos)] = i;
  }
  Tensor dense = Tensor::Allocate(values.type(), dims, /*zero=*/true);
  ONYX_RETURN_IF_ERROR(DispatchCopy(values.type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    for (int64_t p = 0; p < total; ++p) {
      if (src_of[static_cast<size_t>(p)] >= 0) dense.data<C>()[p] = values.data<C>()[src_of[static_cast<size_t>(p)]];
    }
    return Status::Ok();
  }));
  return dense;
}

// The value is built once from whichever attribute holds it; every run hands out the same (shared) tensor.
class ConstantKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    int count = 0;
    for (const char* name : {"value", "sparse_value", "value_float", "value_floats", "value_int", "value_ints",
                             "value_string", "value_strings"}) {
      count += info.HasAttribute(name) ? 1 : 0;
    }
    if (count != 1) return info.Error("exactly one of the value attributes must be given, found " + std::to_string(count));
    if (const Tensor* t = info.GetTensor("value")) {
      value_ = *t;
    } else if (const ir::Attribute* sparse = info.node().FindAttribute("sparse_value")) {
      auto dense = DenseFromSparse(sparse->sparse_tensor);
      if (!dense.ok()) return info.Error(dense.status().message());
      value_ = std::move(dense).value();
    } else if (info.HasAttribute("value_float")) {
      value_ = Tensor::Scalar<float>(info.GetFloat("value_float", 0.0f));
    } else if (info.HasAttribute("value_floats")) {
      std::vector<float> v = info.GetFloats("value_floats");
      value_ = Tensor::FromVector<float>(v, {static_cast<int64_t>(v.size())});
    } else if (info.HasAttribute("value_int")) {
      value_ = Tensor::Scalar<int64_t>(info.GetInt("value_int", 0));
    } else if (info.HasAttribute("value_ints")) {
      std::vector<int64_t> v = info.GetInts("value_ints");
      value_ = Tensor::FromVector<int64_t>(v, {static_cast<int64_t>(v.size())});
    } else if (info.HasAttribute("value_string")) {
      value_ = Tensor::Scalar<std::string>(info.GetString("value_string"));
    } else {
      std::vector<std::string> v = info.GetStrings("value_strings");
      value_ = Tensor::FromVector<std::string>(v, {static_cast<int64_t>(v.size())});
    }
    if (!value_.defined()) return info.Error("attribute 'value' holds no tensor");
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    // A view of the value (its storage shared, its shape in a vector the frame recycles): no allocation per run.
    ctx.SetOutputView(0, value_, value_.shape());
    return Status::Ok();
  }

 private:
  Tensor value_;
};

class ConstantOfShapeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (const Tensor* t = info.GetTensor("value")) {
      if (t->size() != 1) return info.Error("attribute 'value' must hold exactly one element, has " + std::to_string(t->size()));
      value_ = *t;
    } else {
      value_ = Tensor::Scalar<float>(0.0f);
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsInput(ctx, 0, "input"));
    if (ctx.input(0).rank() != 1) return InvalidArgument("input 'input' (0) must be a 1-D shape");
    ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(shape));
    (void)n;
    // A buffer of the frame's pool filled in one pass (a Faster R-CNN's [proposals, 256, 7, 7] of zeros took 4 ms
    // through a fresh allocation and the strided copy).
    return FillWith(value_, ctx.AllocateOutput(0, value_.type(), std::move(shape)));
  }

 private:
  Tensor value_;
};

using RangeTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                            uint32_t, uint64_t>;

// Output 0 of ctx as a 1-D tensor of n elements of `type`, its shape [n] made in a vector of the calling thread
// (the frame copies it into a recycled one): no allocation per run.
Tensor& AllocateVectorOutput(KernelContext& ctx, DataType type, int64_t n) {
  thread_local Shape thread_shape(1);
  thread_shape[0] = n;
  return ctx.AllocateOutput(0, type, static_cast<const Shape&>(thread_shape));
}

Status RangeCompute(const KernelInfo&, KernelContext& ctx) {
  const Tensor* in[3];
  for (size_t i = 0; i < 3; ++i) {
    ONYX_ASSIGN_OR_RETURN(in[i], ctx.TensorInput(i));
    if (in[i]->size() != 1 || in[i]->type() != in[0]->type()) {
      return InvalidArgument("inputs 'start', 'limit' and 'delta' must be scalars of one type; input " +
                             std::to_string(i) + " is " + std::string(DataTypeName(in[i]->type())) + " " +
                             ShapeToString(in[i]->shape()));
    }
  }
  return Dispatch<RangeTypes>(in[0]->type(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    int64_t n = 0;
    if constexpr (std::is_integral_v<T>) {
      // Exact integer arithmetic (128-bit so that int64/uint64 extremes cannot overflow).
      const __int128 start = in[0]->data<T>()[0], limit = in[1]->data<T>()[0], delta = in[2]->data<T>()[0];
      if (delta == 0) return InvalidArgument("input 'delta' (2) is 0");
      const __int128 span = limit - start;
      const __int128 count = span / delta + ((span % delta != 0) && ((span > 0) == (delta > 0)) ? 1 : 0);
      if (count > (__int128{1} << 40)) return InvalidArgument("Range would produce too many elements");
      n = count > 0 ? static_cast<int64_t>(count) : 0;
      Tensor& out = AllocateVectorOutput(ctx, in[0]->type(), n);
      for (int64_t i = 0; i < n; ++i) out.data<T>()[i] = static_cast<T>(start + i * delta);
    } else {
      const double start = ToDouble(in[0]->data<T>()[0]), limit = ToDouble(in[1]->data<T>()[0]);
      const double delta = ToDouble(in[2]->data<T>()[0]);
      if (delta == 0) return InvalidArgument("input 'delta' (2) is 0");
      const double count = std::ceil((limit - start) / delta);
      if (!(count <= static_cast<double>(int64_t{1} << 40))) {
        if (std::isnan(count)) return InvalidArgument("Range bounds are not finite");
        return InvalidArgument("Range would produce too many elements");
      }
      n = count > 0 ? static_cast<int64_t>(count) : 0;
      Tensor& out = AllocateVectorOutput(ctx, in[0]->type(), n);
      using CT = ComputeType<T>;
      for (int64_t i = 0; i < n; ++i) {
        out.data<T>()[i] = T(static_cast<CT>(static_cast<CT>(start) + static_cast<CT>(i) * static_cast<CT>(delta)));
      }
    }
    return Status::Ok();
  });
}

class EyeLikeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    k_ = info.GetInt("k", 0);
    if (info.HasAttribute("dtype")) {
      const int64_t d = info.GetInt("dtype", 0);
      if (!IsValidDataType(static_cast<int32_t>(d))) return info.Error("attribute 'dtype' " + std::to_string(d) + " is not a valid type");
      dtype_ = static_cast<DataType>(d);
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() != 2) return InvalidArgument("input 'input' (0) has shape " + ShapeToString(x->shape()) + ", expected rank 2");
    const DataType type = dtype_ == DataType::kUndefined ? x->type() : dtype_;
    const int64_t rows = x->dim(0), cols = x->dim(1);
    return Dispatch<AllFixedTypes>(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, type, {rows, cols});
      T* o = out.data<T>();
      for (int64_t i = 0; i < rows * cols; ++i) o[i] = FromDouble<T>(0.0);
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t j = i + k_;
        if (j >= 0 && j < cols) o[i * cols + j] = FromDouble<T>(1.0);
      }
      return Status::Ok();
    });
  }

 private:
  int64_t k_ = 0;
  DataType dtype_ = DataType::kUndefined;
};

class OneHotKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", -1);
    negative_indices_ = info.since_version() >= 11;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* indices, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* depth_t, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* values, ctx.TensorInput(2));
    auto numeric = [](DataType t) { return (IsInteger(t) && !IsSubByte(t)) || IsFloatingPoint(t); };
    if (!numeric(indices->type())) {
      return InvalidArgument("input 'indices' (0) has element type " + std::string(DataTypeName(indices->type())) +
                             ", expected a numeric type");
    }
    if (depth_t->size() != 1 || !numeric(depth_t->type())) {
      return InvalidArgument("input 'depth' (1) must hold exactly one number");
    }
    const double depth_d = depth_t->DoubleAt(0);
    if (!(depth_d >= 1) || depth_d > static_cast<double>(int64_t{1} << 40)) {
      return InvalidArgument("input 'depth' (1) is " + std::to_string(depth_d) + ", expected a positive count");
    }
    const int64_t depth = static_cast<int64_t>(depth_d);
    if (values->size() != 2 || values->rank() != 1) {
      return InvalidArgument("input 'values' (2) has shape " + ShapeToString(values->shape()) + ", expected [2]");
    }
    const int64_t rank = indices->rank();
    if (axis_ < -rank - 1 || axis_ > rank) {
      return InvalidArgument("attribute 'axis' " + std::to_string(axis_) + " is out of range for output rank " + std::to_string(rank + 1));
    }
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank + 1 : axis_);
    Shape out_shape = indices->shape();
    out_shape.insert(out_shape.begin() + static_cast<int64_t>(axis), depth);
    ONYX_ASSIGN_OR_RETURN(int64_t total, CheckedNumElements(out_shape));
    (void)total;
    const int64_t outer = DimProduct(indices->shape(), 0, axis);
    const int64_t inner = DimProduct(indices->shape(), axis, indices->shape().size());
    Tensor& out = ctx.AllocateOutput(0, values->type(), out_shape);
    return DispatchCopy(values->type(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C off = values->data<C>()[0], on = values->data<C>()[1];
      C* o = out.data<C>();
      for (int64_t b = 0; b < outer; ++b) {
        for (int64_t j = 0; j < inner; ++j) {
          int64_t idx = static_cast<int64_t>(indices->DoubleAt(b * inner + j));
          if (idx < 0 && negative_indices_) idx += depth;
          for (int64_t d = 0; d < depth; ++d) o[(b * depth + d) * inner + j] = d == idx ? on : off;
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
  bool negative_indices_ = true;
};

}  // namespace

void RegisterConstantOps(KernelRegistry& registry) {
  registry.Add("", "Constant", 1, kLatestVersion, MakeFactory<ConstantKernel>());
  registry.Add("", "ConstantOfShape", 9, kLatestVersion, MakeFactory<ConstantOfShapeKernel>());
  registry.AddFn("", "Range", 11, kLatestVersion, RangeCompute);
  registry.Add("", "EyeLike", 9, kLatestVersion, MakeFactory<EyeLikeKernel>());
  registry.Add("", "OneHot", 9, kLatestVersion, MakeFactory<OneHotKernel>());
}

}  // namespace onyx::ops::movement
