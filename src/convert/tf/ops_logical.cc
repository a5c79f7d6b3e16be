// Comparisons, logical ops, Select and bitwise ops. Comparisons and logical ops broadcast like ONNX's; TF1's Select
// lines a lower-rank condition up with the leading dims (a vector picks rows), and BitwiseAnd, which ONNX only has
// from opset 18, is spelled with opset-17 arithmetic on the bits.
#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

Status Compare(OpContext& ctx, const char* onnx_op, bool negate = false) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  std::string y = ctx.b.Op1(onnx_op, {a.name, b.name}, negate ? ctx.Name("equal") : ctx.Name());
  if (negate) y = ctx.b.Op1("Not", {y}, ctx.Name());
  ctx.SetOutput(0, y, DataType::kBool);
  return Status::Ok();
}

Status Equal(OpContext& ctx) { return Compare(ctx, "Equal"); }
Status NotEqual(OpContext& ctx) { return Compare(ctx, "Equal", /*negate=*/true); }
Status Greater(OpContext& ctx) { return Compare(ctx, "Greater"); }
Status GreaterEqual(OpContext& ctx) { return Compare(ctx, "GreaterOrEqual"); }
Status Less(OpContext& ctx) { return Compare(ctx, "Less"); }
Status LessEqual(OpContext& ctx) { return Compare(ctx, "LessOrEqual"); }
Status LogicalAnd(OpContext& ctx) { return Compare(ctx, "And"); }
Status LogicalOr(OpContext& ctx) { return Compare(ctx, "Or"); }

Status LogicalNot(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Not", {x.name}, ctx.Name()), DataType::kBool);
  return Status::Ok();
}

// SelectV2(condition, t, e): numpy broadcasting of all three, which is ONNX Where.
Status SelectV2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue c, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue t, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue e, ctx.Input(2));
  ctx.SetOutput(0, ctx.b.Op1("Where", {c.name, t.name, e.name}, ctx.Name()), t.type);
  return Status::Ok();
}

// Select(condition, t, e), TF1: t and e have one shape; the condition has that shape too, or is a scalar, or is a
// vector over t's first dim that picks whole rows. All three are Where after padding the condition's shape on the
// right with 1s up to t's rank (a no-op for the same shape); the ranks are read at run time, so this needs no static
// shape (the optimizer folds it when shapes are known). Note: TF.js broadcasts Select like SelectV2 instead, so the
// row-picking form has no TF.js reference case.
Status Select(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue c, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue t, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue e, ctx.Input(2));
  const std::string c_shape = ctx.b.Op1("Shape", {c.name}, ctx.Name("cond_shape"));
  const std::string c_rank = ctx.b.Op1("Shape", {c_shape}, ctx.Name("cond_rank"));
  const std::string t_rank =
      ctx.b.Op1("Shape", {ctx.b.Op1("Shape", {t.name}, ctx.Name("t_shape"))}, ctx.Name("t_rank"));
  const std::string missing = ctx.b.Op1("Sub", {t_rank, c_rank}, ctx.Name("missing_rank"));
  ir::Attribute one;
  one.name = "value";
  one.type = ir::AttrType::kTensor;
  one.t.tensor = Tensor::FromVector<int64_t>({1}, {1});
  const std::string ones = ctx.b.Op1("ConstantOfShape", {missing}, ctx.Name("ones"), {one});
  const std::string shape =
      ctx.b.Op1("Concat", {c_shape, ones}, ctx.Name("cond_padded_shape"), {ir::IntAttr("axis", 0)});
  const std::string cond = ctx.b.Op1("Reshape", {c.name, shape}, ctx.Name("cond"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {cond, t.name, e.name}, ctx.Name()), t.type);
  return Status::Ok();
}

template <typename U>
Tensor BitConstant(int bits, bool powers) {
  std::vector<U> v(static_cast<size_t>(bits));
  for (int k = 0; k < bits; ++k) v[static_cast<size_t>(k)] = powers ? static_cast<U>(U{1} << k) : static_cast<U>(k);
  return Tensor::FromVector<U>(v, {bits});
}

// BitwiseAnd(x, y) for integers, at opset 17 (ONNX's BitwiseAnd is opset 18): both are viewed as unsigned of the
// same width (two's complement bits kept), widened to uint32 below 32 bits (ReduceSum takes no 8- or 16-bit types),
// each gains a last axis over the bit positions k, bit k of each is (v >> k) mod 2, and the sum over k of
// 2^k * bit_x * bit_y is exact (distinct powers of two never carry).
Status BitwiseAnd(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  if (!IsInteger(x.type) || IsSubByte(x.type) || y.type != x.type) {
    return Unsupported(ctx.node.Where() + ": element types " + std::string(DataTypeName(x.type)) + " and " +
                       std::string(DataTypeName(y.type)) + " (BitwiseAnd takes two integers of one type)");
  }
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
  auto cast = [&](const std::string& v, DataType to, const std::string& suffix) {
    return ctx.b.Op1("Cast", {v}, ctx.Name(suffix), {ir::IntAttr("to", static_cast<int64_t>(to))});
  };
  const std::string shifts_name = ctx.b.Constant(ctx.Name("shifts"), shifts);
  const std::string two_name = ctx.b.Constant(ctx.Name("two"), two);
  const std::string last_axis = ctx.b.ConstInts(ctx.Name("last_axis"), {-1});
  auto bits_of = [&](const TfValue& v, const std::string& tag) {
    std::string n = v.name;
    if (v.type != same_width) n = cast(n, same_width, tag + "_unsigned");
    if (same_width != work) n = cast(n, work, tag + "_widened");
    n = ctx.b.Op1("Unsqueeze", {n, last_axis}, ctx.Name(tag + "_expanded"));
    n = ctx.b.Op1("BitShift", {n, shifts_name}, ctx.Name(tag + "_shifted"), {ir::StringAttr("direction", "RIGHT")});
    return ctx.b.Op1("Mod", {n, two_name}, ctx.Name(tag + "_bits"));
  };
  const std::string both = ctx.b.Op1("Mul", {bits_of(x, "x"), bits_of(y, "y")}, ctx.Name("common_bits"));
  const std::string weighted =
      ctx.b.Op1("Mul", {both, ctx.b.Constant(ctx.Name("powers"), powers)}, ctx.Name("weighted_bits"));
  std::string out = ctx.b.Op1("ReduceSum", {weighted, last_axis}, x.type == work ? ctx.Name() : ctx.Name("sum"),
                              {ir::IntAttr("keepdims", 0)});
  if (same_width != work) out = cast(out, same_width, x.type == same_width ? "" : "narrowed");
  if (x.type != same_width) out = cast(out, x.type, "");
  ctx.SetOutput(0, out, x.type);
  return Status::Ok();
}

}  // namespace

void AddLogicalOps(std::map<std::string, OpFn>& t) {
  t["Equal"] = Equal;
  t["NotEqual"] = NotEqual;
  t["Greater"] = Greater;
  t["GreaterEqual"] = GreaterEqual;
  t["Less"] = Less;
  t["LessEqual"] = LessEqual;
  t["LogicalAnd"] = LogicalAnd;
  t["LogicalOr"] = LogicalOr;
  t["LogicalNot"] = LogicalNot;
  t["Select"] = Select;
  t["SelectV2"] = SelectV2;
  t["BitwiseAnd"] = BitwiseAnd;
}

}  // namespace onyx::convert::tf
