#include "ops/control_flow/control_flow.h"

#include "ops/common/op_util.h"
#include "ops/tensor/tensor_util.h"

namespace onyx::ops::control_flow {

Result<bool> ReadBool(const Value& v, const std::string& what) {
  if (!v.is_tensor()) return InvalidArgument(what + " must be a bool tensor, got a " + v.KindName());
  const Tensor& t = v.tensor();
  if (t.type() != DataType::kBool) {
    return InvalidArgument(what + " must be a bool tensor, got " + TensorTypeString(t.type()));
  }
  if (t.size() != 1) {
    return InvalidArgument(what + " must hold exactly one element, got shape " + ShapeToString(t.shape()));
  }
  return t.data<bool>()[0];
}

Result<int64_t> ReadInt(const Value& v, const std::string& what) {
  if (!v.is_tensor()) return InvalidArgument(what + " must be an integer tensor, got a " + v.KindName());
  const Tensor& t = v.tensor();
  if (!IsInteger(t.type())) {
    return InvalidArgument(what + " must be an integer tensor, got " + TensorTypeString(t.type()));
  }
  if (t.size() != 1) {
    return InvalidArgument(what + " must hold exactly one element, got shape " + ShapeToString(t.shape()));
  }
  return t.IntAt(0);
}

namespace {

// Row-major strides of `shape` without axis `axis`, and the stride of that axis.
std::vector<int64_t> StridesWithout(const Shape& shape, int64_t axis, int64_t* axis_stride) {
  std::vector<int64_t> strides = RowMajorStrides(shape);
  *axis_stride = strides[static_cast<size_t>(axis)];
  strides.erase(strides.begin() + axis);
  return strides;
}

Shape ShapeWithout(const Shape& shape, int64_t axis) {
  Shape s = shape;
  s.erase(s.begin() + axis);
  return s;
}

}  // namespace

Tensor SliceAt(const Tensor& t, int64_t axis, int64_t index) {
  Shape out_shape = ShapeWithout(t.shape(), axis);
  Tensor out = Tensor::Allocate(t.type(), out_shape, /*zero=*/IsSubByte(t.type()));
  int64_t axis_stride = 0;
  std::vector<int64_t> src_strides = StridesWithout(t.shape(), axis, &axis_stride);
  movement::StridedCopy(t, index * axis_stride, src_strides, out, 0, RowMajorStrides(out_shape), out_shape);
  return out;
}

void WriteAt(const Tensor& item, Tensor& out, int64_t axis, int64_t index) {
  int64_t axis_stride = 0;
  std::vector<int64_t> dst_strides = StridesWithout(out.shape(), axis, &axis_stride);
  movement::StridedCopy(item, 0, RowMajorStrides(item.shape()), out, index * axis_stride, dst_strides, item.shape());
}

Result<Tensor> Stack(const std::vector<Tensor>& items, int64_t axis, const std::string& what,
                     const std::vector<int64_t>& order) {
  if (items.empty()) return InvalidArgument(what + ": nothing to stack");
  const Tensor& first = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].type() != first.type() || items[i].shape() != first.shape()) {
      return InvalidArgument(what + ": item " + std::to_string(i) + " (" + TensorTypeString(items[i].type()) + " " +
                             ShapeToString(items[i].shape()) + ") differs from item 0 (" +
                             TensorTypeString(first.type()) + " " + ShapeToString(first.shape()) + ")");
    }
  }
  Shape out_shape = first.shape();
  out_shape.insert(out_shape.begin() + axis, static_cast<int64_t>(items.size()));
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(out_shape));
  (void)n;
  Tensor out = Tensor::Allocate(first.type(), out_shape, /*zero=*/IsSubByte(first.type()));
  for (size_t i = 0; i < items.size(); ++i) {
    WriteAt(items[i], out, axis, order.empty() ? static_cast<int64_t>(i) : order[i]);
  }
  return out;
}

Result<Tensor> EmptyStacked(const ir::ValueInfo* declared, int64_t axis) {
  DataType type = DataType::kFloat;
  Shape shape;
  bool rank_known = false;
  if (declared != nullptr && declared->type && declared->type->is_tensor()) {
    if (declared->type->elem_type != DataType::kUndefined) type = declared->type->elem_type;
    if (declared->type->shape) {
      rank_known = true;
      for (const auto& d : *declared->type->shape) shape.push_back(d.is_value() ? d.value : 0);
    }
  }
  if (!rank_known) return Tensor::Allocate(type, {0});
  ONYX_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axis, static_cast<int64_t>(shape.size()) + 1));
  shape.insert(shape.begin() + a, 0);
  return Tensor::Allocate(type, shape);
}

DataType DeclaredSequenceElemType(const ir::ValueInfo* declared) {
  if (declared == nullptr || !declared->type) return DataType::kUndefined;
  const ir::TypeInfo* t = &*declared->type;
  if (t->kind == ir::TypeInfo::Kind::kOptional && t->elem) t = t->elem.get();
  if (t->kind != ir::TypeInfo::Kind::kSequence || !t->elem) return DataType::kUndefined;
  return t->elem->is_tensor() ? t->elem->elem_type : DataType::kUndefined;
}

}  // namespace onyx::ops::control_flow
