#include "ops/nn/nn_util.h"

#include "ops/common/op_util.h"

namespace onyx::ops::nn {

std::vector<double> ToDoubleVector(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) out[static_cast<size_t>(i)] = t.DoubleAt(i);
  return out;
}

int64_t ShapeProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) p *= shape[i];
  return p;
}

Status CheckScalarParam(const Tensor& t, const std::string& what) {
  if (t.size() != 1 || t.rank() > 1) {
    return InvalidArgument(what + " must be a scalar or a 1-element 1-D tensor, got shape " + ShapeToString(t.shape()));
  }
  return Status::Ok();
}

}  // namespace onyx::ops::nn

namespace onyx::ops::nn {

Result<std::vector<int32_t>> CenteredInt32(const Tensor& q, const std::vector<int32_t>& zero_point, int64_t block) {
  std::vector<int32_t> out(static_cast<size_t>(q.size()));
  ONYX_RETURN_IF_ERROR(Dispatch<Quant8Types>(q.type(), [&](auto tag) {
    using Q = typename decltype(tag)::type;
    const Q* src = q.data<Q>();
    const int64_t nzp = static_cast<int64_t>(zero_point.size());
    if (nzp == 1) {
      const int32_t z = zero_point[0];
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int32_t>(src[i]) - z;
    } else {
      for (int64_t i = 0; i < q.size(); ++i) {
        out[static_cast<size_t>(i)] = static_cast<int32_t>(src[i]) - zero_point[static_cast<size_t>((i / block) % nzp)];
      }
    }
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<int32_t>> CenteredInt32Broadcast(const Tensor& q, const Tensor* zero_point, const Shape& zp_shape,
                                                    const std::string& zp_name) {
  if (zero_point == nullptr) return CenteredInt32(q, {0}, 1);
  if (zero_point->type() != q.type()) {
    return InvalidArgument(zp_name + " has type " + std::string(DataTypeName(zero_point->type())) + ", expected " +
                           std::string(DataTypeName(q.type())) + " like the tensor it applies to");
  }
  if (zero_point->size() == 1) return CenteredInt32(q, Int32Values(*zero_point), 1);
  auto shape = BroadcastShapes(q.shape(), zp_shape);
  if (!shape.ok() || *shape != q.shape()) {
    return InvalidArgument(zp_name + " with shape " + ShapeToString(zero_point->shape()) + " does not broadcast to " +
                           ShapeToString(q.shape()));
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> out, CenteredInt32(q, {0}, 1));
  const std::vector<int32_t> zp = Int32Values(*zero_point);
  std::vector<int64_t> strides[1] = {BroadcastStrides(zp_shape, q.shape())};
  ForEachStrided(q.shape(), strides, [&](int64_t i, const int64_t* off) {
    out[static_cast<size_t>(i)] -= zp[static_cast<size_t>(off[0])];
  });
  return out;
}

Result<const Tensor*> OptionalTensorInput(const KernelContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return static_cast<const Tensor*>(nullptr);
  return ctx.TensorInput(i);
}

std::vector<int32_t> Int32Values(const Tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) out[static_cast<size_t>(i)] = static_cast<int32_t>(t.IntAt(i));
  return out;
}

}  // namespace onyx::ops::nn
