// Small ONNX building blocks every TF operator family needs: typed scalar constants and casts. (ONNX wants both
// operands of Add, Clip, Where... of one element type, and int64 for shapes and indices where TF often has int32.)
#pragma once

#include <string>

#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

// A 0-D tensor of `type` (any fixed-size element type, bool included) holding `v`.
Result<Tensor> ScalarTensor(DataType type, double v);
// An initializer holding ScalarTensor(type, v), named after the node; an error naming the node for other types.
Result<std::string> ScalarConst(OpContext& ctx, DataType type, double v, const std::string& suffix);

// Cast(v) to `to`.
std::string CastTo(OpContext& ctx, const std::string& v, DataType to, const std::string& suffix);
// `v` as `type`: the value itself when it already has that type, else a Cast.
std::string AsType(OpContext& ctx, const TfValue& v, DataType type, const std::string& suffix);
// An int32/int64 value as int64 (ONNX's shape and index inputs).
inline std::string AsInt64(OpContext& ctx, const TfValue& v, const std::string& suffix) {
  return AsType(ctx, v, DataType::kInt64, suffix);
}

// The unsigned integer type of a width in bits (8, 16, 32; 64 otherwise): ONNX's BitShift takes only unsigned
// types, so bit operations on signed integers go through these.
DataType UnsignedOfWidth(int bits);

}  // namespace onyx::convert::tf
