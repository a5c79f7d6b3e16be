// Elementwise ops TF has beyond ONNX's opset 17: truncating division, the x*f(y) ops that are 0 where x is 0
// (Xdivy, Xlogy, Xlog1py), Erfc, TF1 aliases (Inv, BiasAddV1), and the bitwise ops (ONNX's Bitwise* are opset 18):
// shifts through ONNX's unsigned BitShift, Or/Xor bit by bit with exact integer arithmetic, Invert as -1 - x.
#include <type_traits>

#include "convert/tf/emit.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {

Result<TfValue> Delegate(OpContext& ctx, const std::string& op, std::vector<TfValue> inputs, int port) {
  const auto& table = OpTable();
  auto fn = table.find(op);
  if (fn == table.end()) return Internal(ctx.node.Where() + ": no converter for " + op);
  OpContext sub(ctx.b, ctx.node, std::move(inputs));
  sub.functions = ctx.functions;
  ONYX_RETURN_IF_ERROR(fn->second(sub));
  auto out = sub.outputs().find(port);
  if (out == sub.outputs().end())
    return Internal(ctx.node.Where() + ": " + op + " set no output " + std::to_string(port));
  return out->second;
}

namespace {

Status RequireFloat(OpContext& ctx, const TfValue& x) {
  if (IsFloatingPoint(x.type)) return Status::Ok();
  return Unsupported(ctx.node.Where() + ": element type " + std::string(DataTypeName(x.type)) +
                     " (TensorFlow defines this operator on floating-point types)");
}

Status RequireInteger(OpContext& ctx, const TfValue& x, const TfValue& y) {
  if (IsInteger(x.type) && !IsSubByte(x.type) && y.type == x.type) return Status::Ok();
  return Unsupported(ctx.node.Where() + ": element types " + std::string(DataTypeName(x.type)) + " and " +
                     std::string(DataTypeName(y.type)) + " (bitwise ops take two integers of one type)");
}

// An alias of another op's converter, on the same inputs.
template <const char* kOp>
Status Alias(OpContext& ctx) {
  std::vector<TfValue> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(v);
  }
  ONYX_ASSIGN_OR_RETURN(TfValue out, Delegate(ctx, kOp, std::move(ins)));
  ctx.SetOutputValue(0, out);
  return Status::Ok();
}
constexpr char kReciprocal[] = "Reciprocal";
constexpr char kBiasAdd[] = "BiasAdd";

// TruncateDiv: integer Div already truncates toward zero (TF's integer Div); floats truncate the quotient.
Status TruncateDiv(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  if (!IsFloatingPoint(x.type)) {
    ctx.SetOutput(0, ctx.b.Op1("Div", {x.name, y.name}, ctx.Name()), x.type);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  const std::string q = ctx.b.Op1("Div", {x.name, y.name}, ctx.Name("quotient"));
  const std::string negative = ctx.b.Op1("Less", {q, zero}, ctx.Name("negative"));
  ctx.SetOutput(
      0,
      ctx.b.Op1("Where",
                {negative, ctx.b.Op1("Ceil", {q}, ctx.Name("ceil")), ctx.b.Op1("Floor", {q}, ctx.Name("floor"))},
                ctx.Name()),
      x.type);
  return Status::Ok();
}

// TruncateMod: C's fmod / % (the dividend's sign), ONNX Mod with fmod=1 for integers and floats.
Status TruncateMod(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Mod", {x.name, y.name}, ctx.Name(), {ir::IntAttr("fmod", 1)}), x.type);
  return Status::Ok();
}

// Xdivy / Xlogy / Xlog1py(x, y): 0 where x == 0 (whatever y is: 0 * inf and 0 / 0 are 0 there), else x / y,
// x * log(y), x * log1p(y).
enum class XOp { kDivy, kLogy, kLog1py };
template <XOp kOp>
Status XFunction(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  std::string value;
  if (kOp == XOp::kDivy) {
    value = ctx.b.Op1("Div", {x.name, y.name}, ctx.Name("quotient"));
  } else {
    std::string f;
    if (kOp == XOp::kLogy) {
      f = ctx.b.Op1("Log", {y.name}, ctx.Name("log"));
    } else {
      ONYX_ASSIGN_OR_RETURN(TfValue l, Delegate(ctx, "Log1p", {y}));
      f = l.name;
    }
    value = ctx.b.Op1("Mul", {x.name, f}, ctx.Name("product"));
  }
  const std::string x_zero = ctx.b.Op1("Equal", {x.name, zero}, ctx.Name("x_is_zero"));
  // Where broadcasts the zero to the shape of x and y together, as TF's result.
  ctx.SetOutput(0, ctx.b.Op1("Where", {x_zero, zero, value}, ctx.Name()), x.type);
  return Status::Ok();
}

// Erfc = 1 - erf(x).
Status Erfc(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  ctx.SetOutput(0, ctx.b.Op1("Sub", {one, ctx.b.Op1("Erf", {x.name}, ctx.Name("erf"))}, ctx.Name()), x.type);
  return Status::Ok();
}

// Invert: ~x is -1 - x for signed integers (two's complement, never overflows) and max - x for unsigned ones.
Status Invert(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireInteger(ctx, x, x));
  Tensor all_ones;
  ONYX_RETURN_IF_ERROR(Dispatch<AllFixedTypes>(x.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      all_ones = Tensor::Scalar<T>(static_cast<T>(~T{0}));
    return Status::Ok();
  }));
  ctx.SetOutput(0, ctx.b.Op1("Sub", {ctx.b.Constant(ctx.Name("all_ones"), std::move(all_ones)), x.name}, ctx.Name()),
                x.type);
  return Status::Ok();
}

// LeftShift / RightShift(x, y): TF clamps y to [0, bits - 1]. Bits move as unsigned of x's width (ONNX's BitShift
// takes only those); a signed right shift is arithmetic: for negative x it is ~((~x) >> y), the logical shift of
// the non-negative ~x.
template <bool kLeft>
Status Shift(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireInteger(ctx, x, y));
  const int bits = DataTypeBits(x.type);
  const DataType u = UnsignedOfWidth(bits);
  ONYX_ASSIGN_OR_RETURN(std::string lo, ScalarConst(ctx, y.type, 0, "shift_min"));
  ONYX_ASSIGN_OR_RETURN(std::string hi, ScalarConst(ctx, y.type, bits - 1, "shift_max"));
  const std::string amount =
      AsType(ctx, {ctx.b.Op1("Clip", {y.name, lo, hi}, ctx.Name("shift_clamped")), y.type, nullptr}, u, "shift_bits");
  const char* direction = kLeft ? "LEFT" : "RIGHT";
  auto shift = [&](const std::string& v, const std::string& tag) {
    return ctx.b.Op1("BitShift", {AsType(ctx, {v, x.type, nullptr}, u, tag + "_bits"), amount}, ctx.Name(tag),
                     {ir::StringAttr("direction", direction)});
  };
  const bool is_signed = u != x.type;
  if (kLeft || !is_signed) {
    ctx.SetOutput(0, AsType(ctx, {shift(x.name, "shifted"), u, nullptr}, x.type, ""), x.type);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string minus_one, ScalarConst(ctx, x.type, -1, "minus_one"));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  const std::string inverted = ctx.b.Op1("Sub", {minus_one, x.name}, ctx.Name("inverted"));
  const std::string pos = CastTo(ctx, shift(x.name, "shifted"), x.type, "shifted_signed");
  const std::string neg =
      ctx.b.Op1("Sub", {minus_one, CastTo(ctx, shift(inverted, "inverted_shifted"), x.type, "inverted_shifted_signed")},
                ctx.Name("negative_shifted"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {ctx.b.Op1("Less", {x.name, zero}, ctx.Name("negative")), neg, pos}, ctx.Name()),
                x.type);
  return Status::Ok();
}

template <typename U>
Tensor BitConstant(int bits, bool powers) {
  std::vector<U> v(static_cast<size_t>(bits));
  for (int k = 0; k < bits; ++k) v[static_cast<size_t>(k)] = powers ? static_cast<U>(U{1} << k) : static_cast<U>(k);
  return Tensor::FromVector<U>(v, {bits});
}

// BitwiseOr / BitwiseXor at opset 17: x and y as unsigned of their width (uint32 at least: ReduceSum takes no
// narrower type) gain a last axis over the bit positions k; bit k is (v >> k) mod 2; the result bit is max(bx, by)
// (or) or (bx + by) mod 2 (xor), and the sum over k of 2^k * bit is exact (distinct powers of two never carry).
template <bool kXor>
Status BitwiseOrXor(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireInteger(ctx, x, y));
  const int bits = DataTypeBits(x.type);
  const DataType same_width = UnsignedOfWidth(bits);
  const DataType work = bits == 64 ? DataType::kUint64 : DataType::kUint32;
  Tensor shifts, powers, two;
  ONYX_RETURN_IF_ERROR(Dispatch<UnsignedIntTypes>(work, [&](auto tag) {
    using U = typename decltype(tag)::type;
    shifts = BitConstant<U>(bits, false);
    powers = BitConstant<U>(bits, true);
    two = Tensor::Scalar<U>(U{2});
    return Status::Ok();
  }));
  const std::string shifts_name = ctx.b.Constant(ctx.Name("shifts"), shifts);
  const std::string two_name = ctx.b.Constant(ctx.Name("two"), two);
  const std::string last_axis = ctx.b.ConstInts(ctx.Name("last_axis"), {-1});
  auto bits_of = [&](const TfValue& v, const std::string& tag) {
    std::string n = AsType(ctx, v, same_width, tag + "_unsigned");
    n = AsType(ctx, {n, same_width, nullptr}, work, tag + "_widened");
    n = ctx.b.Op1("Unsqueeze", {n, last_axis}, ctx.Name(tag + "_expanded"));
    n = ctx.b.Op1("BitShift", {n, shifts_name}, ctx.Name(tag + "_shifted"), {ir::StringAttr("direction", "RIGHT")});
    return ctx.b.Op1("Mod", {n, two_name}, ctx.Name(tag + "_bits"));
  };
  const std::string bx = bits_of(x, "x"), by = bits_of(y, "y");
  const std::string combined =
      kXor ? ctx.b.Op1("Mod", {ctx.b.Op1("Add", {bx, by}, ctx.Name("bit_sum")), two_name}, ctx.Name("result_bits"))
           : ctx.b.Op1("Max", {bx, by}, ctx.Name("result_bits"));
  const std::string weighted =
      ctx.b.Op1("Mul", {combined, ctx.b.Constant(ctx.Name("powers"), powers)}, ctx.Name("weighted_bits"));
  const std::string sum = ctx.b.Op1("ReduceSum", {weighted, last_axis}, ctx.Name("sum"), {ir::IntAttr("keepdims", 0)});
  const std::string narrowed = AsType(ctx, {sum, work, nullptr}, same_width, "narrowed");
  ctx.SetOutput(0, AsType(ctx, {narrowed, same_width, nullptr}, x.type, "signed"), x.type);
  return Status::Ok();
}

}  // namespace

void AddElementwiseExtraOps(std::map<std::string, OpFn>& t) {
  t["TruncateDiv"] = TruncateDiv;
  t["TruncateMod"] = TruncateMod;
  t["Xdivy"] = XFunction<XOp::kDivy>;
  t["Xlogy"] = XFunction<XOp::kLogy>;
  t["Xlog1py"] = XFunction<XOp::kLog1py>;
  t["Erfc"] = Erfc;
  t["Inv"] = Alias<kReciprocal>;
  t["BiasAddV1"] = Alias<kBiasAdd>;
  t["Invert"] = Invert;
  t["LeftShift"] = Shift<true>;
  t["RightShift"] = Shift<false>;
  t["BitwiseOr"] = BitwiseOrXor<false>;
  t["BitwiseXor"] = BitwiseOrXor<true>;
}

}  // namespace onyx::convert::tf
