#include "convert/tf/emit.h"

#include <type_traits>

namespace onyx::convert::tf {

Result<Tensor> ScalarTensor(DataType type, double v) {
  Tensor out;
  ONYX_RETURN_IF_ERROR(Dispatch<AllFixedTypes>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      out = Tensor::Scalar<bool>(v != 0);
    } else {
      out = Tensor::Scalar<T>(FromDouble<T>(v));
    }
    return Status::Ok();
  }));
  return out;
}

Result<std::string> ScalarConst(OpContext& ctx, DataType type, double v, const std::string& suffix) {
  auto t = ScalarTensor(type, v);
  if (!t.ok())
    return Unsupported(ctx.node.Where() + ": no constant of element type " + std::string(DataTypeName(type)));
  return ctx.b.Constant(ctx.Name(suffix), std::move(t).value());
}

std::string CastTo(OpContext& ctx, const std::string& v, DataType to, const std::string& suffix) {
  return ctx.b.Op1("Cast", {v}, ctx.Name(suffix), {ir::IntAttr("to", static_cast<int64_t>(to))});
}

std::string AsType(OpContext& ctx, const TfValue& v, DataType type, const std::string& suffix) {
  if (v.type == type) return v.name;
  return CastTo(ctx, v.name, type, suffix);
}

DataType UnsignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return DataType::kUint8;
    case 16:
      return DataType::kUint16;
    case 32:
      return DataType::kUint32;
    default:
      return DataType::kUint64;
  }
}

}  // namespace onyx::convert::tf
