#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {

Status BinaryBroadcast::Init(const KernelInfo& info) {
  legacy_ = info.since_version() < 7;
  if (!legacy_) return Status::Ok();
  const int64_t broadcast = info.GetInt("broadcast", 0);
  if (broadcast != 0 && broadcast != 1) {
    return info.Error("attribute 'broadcast' is " + std::to_string(broadcast) + ", expected 0 or 1");
  }
  broadcast_ = broadcast == 1;
  if (info.HasAttribute("axis")) axis_ = info.GetInt("axis", 0);
  return Status::Ok();
}

Status BinaryBroadcast::Resolve(const Tensor& a, const Tensor& b, Tensor* b_view, Shape* out_shape) const {
  if (!legacy_) {
    ONYX_ASSIGN_OR_RETURN(*out_shape, BroadcastShapes(a.shape(), b.shape()));
    *b_view = b;
    return Status::Ok();
  }
  *out_shape = a.shape();
  if (!broadcast_) {
    if (a.shape() != b.shape()) {
      return InvalidArgument("inputs 'A' " + ShapeToString(a.shape()) + " and 'B' " + ShapeToString(b.shape()) +
                             " differ in shape and attribute 'broadcast' is not 1 (required before opset 7)");
    }
    *b_view = b;
    return Status::Ok();
  }
  if (b.size() == 1) {
    ONYX_ASSIGN_OR_RETURN(*b_view, b.Reshaped({}));
    return Status::Ok();
  }
  const int64_t rank_a = a.rank();
  const int64_t rank_b = b.rank();
  int64_t axis = axis_.has_value() ? *axis_ : rank_a - rank_b;
  if (axis_.has_value() && axis < 0) axis += rank_a;
  if (axis < 0 || axis + rank_b > rank_a) {
    return InvalidArgument("input 'B' " + ShapeToString(b.shape()) + " cannot broadcast onto 'A' " +
                           ShapeToString(a.shape()) + " at axis " + std::to_string(axis_.value_or(axis)));
  }
  Shape shape(static_cast<size_t>(rank_a), 1);
  for (int64_t i = 0; i < rank_b; ++i) {
    const int64_t d = b.dim(i);
    if (d != 1 && d != a.dim(axis + i)) {
      return InvalidArgument("input 'B' " + ShapeToString(b.shape()) + " cannot broadcast onto 'A' " +
                             ShapeToString(a.shape()) + " at axis " + std::to_string(axis) + ": dimension " +
                             std::to_string(i) + " is " + std::to_string(d) + ", expected " +
                             std::to_string(a.dim(axis + i)) + " or 1");
    }
    shape[static_cast<size_t>(axis + i)] = d;
  }
  ONYX_ASSIGN_OR_RETURN(*b_view, b.Reshaped(std::move(shape)));
  return Status::Ok();
}

Status CheckSameType(const Tensor& a, const Tensor& b, const char* name_a, const char* name_b) {
  if (a.type() != b.type()) {
    return InvalidArgument("inputs '" + std::string(name_a) + "' (" + std::string(DataTypeName(a.type())) + ") and '" +
                           std::string(name_b) + "' (" + std::string(DataTypeName(b.type())) +
                           ") must have the same element type");
  }
  return Status::Ok();
}

}  // namespace onyx::ops::elementwise
