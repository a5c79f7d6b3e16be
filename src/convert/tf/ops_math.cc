// Elementwise arithmetic, activations and casts. TF broadcasts like numpy, as ONNX does, so most binary ops map one
// to one; the exceptions are spelled out: integer division and modulo (TF's Div/Mod truncate, FloorDiv/FloorMod
// floor), the ops ONNX lacks (Atan2, Expm1, Log1p, DivNoNan, IsFinite...) as exact expansions, and integer inputs
// of ops whose ONNX form is float-only.
#include <numbers>

#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

Status RequireFloat(OpContext& ctx, const TfValue& x) {
  if (IsFloatingPoint(x.type)) return Status::Ok();
  return Unsupported(ctx.node.Where() + ": element type " + std::string(DataTypeName(x.type)) +
                     " (TensorFlow defines this operator on floating-point types)");
}

Status Binary(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1(onnx_op, {a.name, b.name}, ctx.Name()), a.type);
  return Status::Ok();
}

Status Unary(OpContext& ctx, const char* onnx_op, std::vector<ir::Attribute> attrs = {}) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1(onnx_op, {x.name}, ctx.Name(), std::move(attrs)), x.type);
  return Status::Ok();
}

// A float-only ONNX operator (Exp, Sin, Sigmoid...): integer inputs are refused with a clear error rather than
// left to fail in the checker.
Status FloatUnary(OpContext& ctx, const char* onnx_op, std::vector<ir::Attribute> attrs = {}) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  return Unary(ctx, onnx_op, std::move(attrs));
}

Status Add(OpContext& ctx) { return Binary(ctx, "Add"); }
Status Sub(OpContext& ctx) { return Binary(ctx, "Sub"); }
Status Mul(OpContext& ctx) { return Binary(ctx, "Mul"); }
Status Maximum(OpContext& ctx) { return Binary(ctx, "Max"); }
Status Minimum(OpContext& ctx) { return Binary(ctx, "Min"); }
Status Pow(OpContext& ctx) { return Binary(ctx, "Pow"); }

// RealDiv is float-only in TF. Div of integers truncates toward zero in TF (the CPU kernel is safe_div, as
// TruncateDiv), which is ONNX's integer Div. (TF.js floors integer Div: it calls floorDiv; the cases avoid negative
// quotients for that reason.)
Status Div(OpContext& ctx) { return Binary(ctx, "Div"); }

// DivNoNan: 0 where the divisor is 0, else x / y.
Status DivNoNan(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  const std::string is_zero = ctx.b.Op1("Equal", {y.name, zero}, ctx.Name("y_is_zero"));
  const std::string q = ctx.b.Op1("Div", {x.name, y.name}, ctx.Name("div"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {is_zero, zero, q}, ctx.Name()), x.type);
  return Status::Ok();
}

// Floor division: Floor(a / b) for floats (TF's floor_div_real); for integers (a - FloorMod(a, b)) / b, exact (ONNX
// integer Div truncates toward zero, which differs from floor for negative quotients).
Status FloorDiv(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  if (IsFloatingPoint(a.type)) {
    const std::string q = ctx.b.Op1("Div", {a.name, b.name}, ctx.Name("div"));
    ctx.SetOutput(0, ctx.b.Op1("Floor", {q}, ctx.Name()), a.type);
    return Status::Ok();
  }
  const std::string mod = ctx.b.Op1("Mod", {a.name, b.name}, ctx.Name("mod"), {ir::IntAttr("fmod", 0)});
  const std::string exact = ctx.b.Op1("Sub", {a.name, mod}, ctx.Name("exact"));
  ctx.SetOutput(0, ctx.b.Op1("Div", {exact, b.name}, ctx.Name()), a.type);
  return Status::Ok();
}

// Mod: TF's remainder of the truncating division (C's % and fmod: the dividend's sign), ONNX Mod with fmod=1 for
// integers and floats alike. (TF.js's Mod floors instead; the cases keep both operands positive.)
Status Mod(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Mod", {a.name, b.name}, ctx.Name(), {ir::IntAttr("fmod", 1)}), a.type);
  return Status::Ok();
}

// FloorMod: the result takes the divisor's sign (Python's %). Integers: ONNX Mod with fmod=0. Floats: ONNX allows
// only fmod=1 there, so as TF computes it: r = fmod(a, b), plus b where r is nonzero and its sign differs from b's.
Status FloorMod(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  if (!IsFloatingPoint(a.type)) {
    ctx.SetOutput(0, ctx.b.Op1("Mod", {a.name, b.name}, ctx.Name(), {ir::IntAttr("fmod", 0)}), a.type);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, a.type, 0, "zero"));
  const std::string r = ctx.b.Op1("Mod", {a.name, b.name}, ctx.Name("fmod"), {ir::IntAttr("fmod", 1)});
  const std::string signs_differ = ctx.b.Op1(
      "Xor",
      {ctx.b.Op1("Less", {r, zero}, ctx.Name("r_negative")), ctx.b.Op1("Less", {b.name, zero}, ctx.Name("b_negative"))},
      ctx.Name("signs_differ"));
  const std::string nonzero =
      ctx.b.Op1("Not", {ctx.b.Op1("Equal", {r, zero}, ctx.Name("r_zero"))}, ctx.Name("r_nonzero"));
  const std::string adjust = ctx.b.Op1("And", {signs_differ, nonzero}, ctx.Name("adjust"));
  const std::string shifted = ctx.b.Op1("Add", {r, b.name}, ctx.Name("shifted"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {adjust, shifted, r}, ctx.Name()), a.type);
  return Status::Ok();
}

Status SquaredDifference(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  const std::string d = ctx.b.Op1("Sub", {a.name, b.name}, ctx.Name("diff"));
  ctx.SetOutput(0, ctx.b.Op1("Mul", {d, d}, ctx.Name()), a.type);
  return Status::Ok();
}

// AddN: ONNX Sum for floats (the only types Sum takes), a chain of Adds for integers.
Status AddN(OpContext& ctx) {
  if (ctx.num_inputs() == 0) return InvalidArgument(ctx.node.Where() + ": no inputs");
  std::vector<std::string> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(v.name);
  }
  ONYX_ASSIGN_OR_RETURN(TfValue first, ctx.Input(0));
  if (ins.size() == 1) {
    ctx.SetOutput(0, ins[0], first.type);
  } else if (IsFloatingPoint(first.type)) {
    ctx.SetOutput(0, ctx.b.Op1("Sum", ins, ctx.Name()), first.type);
  } else {
    std::string sum = ins[0];
    for (size_t i = 1; i < ins.size(); ++i) {
      sum = ctx.b.Op1("Add", {sum, ins[i]}, i + 1 == ins.size() ? ctx.Name() : ctx.Name("partial"));
    }
    ctx.SetOutput(0, sum, first.type);
  }
  return Status::Ok();
}

// Clip between two constants of x's type (Relu6, ClipByValue).
Status ClipConst(OpContext& ctx, const TfValue& x, double lo, double hi) {
  ONYX_ASSIGN_OR_RETURN(std::string lo_name, ScalarConst(ctx, x.type, lo, "min"));
  ONYX_ASSIGN_OR_RETURN(std::string hi_name, ScalarConst(ctx, x.type, hi, "max"));
  ctx.SetOutput(0, ctx.b.Op1("Clip", {x.name, lo_name, hi_name}, ctx.Name()), x.type);
  return Status::Ok();
}

Status Relu6(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  return ClipConst(ctx, x, 0, 6);
}

// ClipByValue(t, min, max): TF broadcasts the bounds against t. One-element constant bounds become ONNX Clip (its
// bounds are scalars); tensor or computed bounds Max then Min, which broadcast.
Status ClipByValue(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue lo, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue hi, ctx.Input(2));
  if (lo.constant != nullptr && hi.constant != nullptr && lo.constant->size() == 1 && hi.constant->size() == 1 &&
      lo.constant->type() != DataType::kBool) {
    return ClipConst(ctx, x, lo.constant->DoubleAt(0), hi.constant->DoubleAt(0));
  }
  const std::string low = ctx.b.Op1("Max", {x.name, lo.name}, ctx.Name("max"));
  ctx.SetOutput(0, ctx.b.Op1("Min", {low, hi.name}, ctx.Name()), x.type);
  return Status::Ok();
}

Status Rsqrt(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ctx.SetOutput(0, ctx.b.Op1("Reciprocal", {ctx.b.Op1("Sqrt", {x.name}, ctx.Name("sqrt"))}, ctx.Name()), x.type);
  return Status::Ok();
}

Status Square(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Mul", {x.name, x.name}, ctx.Name()), x.type);
  return Status::Ok();
}

// Reciprocal: ONNX's is float-only; TF's integer form is the truncating 1 / x.
Status Reciprocal(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (IsFloatingPoint(x.type)) return Unary(ctx, "Reciprocal");
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  ctx.SetOutput(0, ctx.b.Op1("Div", {one, x.name}, ctx.Name()), x.type);
  return Status::Ok();
}

// Round (half to even in both), Floor and Ceil leave integers as they are.
Status RoundLike(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (IsFloatingPoint(x.type)) return Unary(ctx, onnx_op);
  ctx.SetOutput(0, x.name, x.type);
  return Status::Ok();
}

// Relu of integers is Max(x, 0): ONNX's Relu takes integers only from opset 14, and --opset may ask for 13.
Status Relu(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (IsFloatingPoint(x.type)) return Unary(ctx, "Relu");
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  ctx.SetOutput(0, ctx.b.Op1("Max", {x.name, zero}, ctx.Name()), x.type);
  return Status::Ok();
}

Status LeakyRelu(OpContext& ctx) {
  return FloatUnary(ctx, "LeakyRelu", {ir::FloatAttr("alpha", ctx.node.FloatOr("alpha", 0.2f))});
}

// Prelu(x, alpha): TF.js's fused name for max(x, 0) + alpha * min(x, 0); alpha broadcasts to x as PRelu's slope.
Status Prelu(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue alpha, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("PRelu", {x.name, alpha.name}, ctx.Name()), x.type);
  return Status::Ok();
}

// Atan2(y, x): Atan(y / x), moved by pi into the left half-plane (+pi where y >= 0, -pi where y < 0); 0 where both
// are 0 (Atan(0/0) would be NaN). x == 0 needs nothing: y / 0 is +-inf, whose Atan is +-pi/2.
Status Atan2(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue y, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, y));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, y.type, 0, "zero"));
  ONYX_ASSIGN_OR_RETURN(std::string pi, ScalarConst(ctx, y.type, std::numbers::pi, "pi"));
  ONYX_ASSIGN_OR_RETURN(std::string minus_pi, ScalarConst(ctx, y.type, -std::numbers::pi, "minus_pi"));
  const std::string base = ctx.b.Op1("Atan", {ctx.b.Op1("Div", {y.name, x.name}, ctx.Name("ratio"))}, ctx.Name("atan"));
  const std::string y_negative = ctx.b.Op1("Less", {y.name, zero}, ctx.Name("y_negative"));
  const std::string x_negative = ctx.b.Op1("Less", {x.name, zero}, ctx.Name("x_negative"));
  const std::string turn =
      ctx.b.Op1("Where", {x_negative, ctx.b.Op1("Where", {y_negative, minus_pi, pi}, ctx.Name("pi_signed")), zero},
                ctx.Name("turn"));
  const std::string angle = ctx.b.Op1("Add", {base, turn}, ctx.Name("angle"));
  const std::string both_zero = ctx.b.Op1(
      "And",
      {ctx.b.Op1("Equal", {y.name, zero}, ctx.Name("y_zero")), ctx.b.Op1("Equal", {x.name, zero}, ctx.Name("x_zero"))},
      ctx.Name("both_zero"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {both_zero, zero, angle}, ctx.Name()), y.type);
  return Status::Ok();
}

// Expm1 = exp(x) - 1 without the cancellation near 0 (Kahan): with u = exp(x), (u - 1) * (x / log(u)), which is x
// where u rounds to 1, -1 where u - 1 does, and u itself where u overflows.
Status Expm1(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  ONYX_ASSIGN_OR_RETURN(std::string minus_one, ScalarConst(ctx, x.type, -1, "minus_one"));
  const std::string u = ctx.b.Op1("Exp", {x.name}, ctx.Name("exp"));
  const std::string um1 = ctx.b.Op1("Sub", {u, one}, ctx.Name("exp_minus_one"));
  // x / log(u) is near 1: dividing first keeps (u - 1) * x from overflowing where u is finite but huge.
  const std::string ratio = ctx.b.Op1("Div", {x.name, ctx.b.Op1("Log", {u}, ctx.Name("log"))}, ctx.Name("ratio"));
  const std::string corrected = ctx.b.Op1("Mul", {um1, ratio}, ctx.Name("corrected"));
  std::string y = ctx.b.Op1("Where", {ctx.b.Op1("IsInf", {u}, ctx.Name("overflow")), u, corrected}, ctx.Name("big"));
  y = ctx.b.Op1("Where", {ctx.b.Op1("Equal", {um1, minus_one}, ctx.Name("underflow")), minus_one, y}, ctx.Name("low"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {ctx.b.Op1("Equal", {u, one}, ctx.Name("tiny")), x.name, y}, ctx.Name()), x.type);
  return Status::Ok();
}

// Log1p = log(1 + x) without the cancellation near 0 (Kahan): with u = 1 + x, log(u) * (x / (u - 1)), which is x where
// u rounds to 1 and u's log where u is infinite.
Status Log1p(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  const std::string u = ctx.b.Op1("Add", {x.name, one}, ctx.Name("one_plus_x"));
  const std::string log_u = ctx.b.Op1("Log", {u}, ctx.Name("log"));
  const std::string ratio =
      ctx.b.Op1("Div", {x.name, ctx.b.Op1("Sub", {u, one}, ctx.Name("one_plus_x_minus_one"))}, ctx.Name("ratio"));
  const std::string corrected = ctx.b.Op1("Mul", {log_u, ratio}, ctx.Name("corrected"));
  const std::string y =
      ctx.b.Op1("Where", {ctx.b.Op1("IsInf", {u}, ctx.Name("infinite")), log_u, corrected}, ctx.Name("big"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {ctx.b.Op1("Equal", {u, one}, ctx.Name("tiny")), x.name, y}, ctx.Name()), x.type);
  return Status::Ok();
}

Status IsNan(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ctx.SetOutput(0, ctx.b.Op1("IsNaN", {x.name}, ctx.Name()), DataType::kBool);
  return Status::Ok();
}

Status IsInf(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  ctx.SetOutput(0, ctx.b.Op1("IsInf", {x.name}, ctx.Name()), DataType::kBool);
  return Status::Ok();
}

Status IsFinite(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireFloat(ctx, x));
  const std::string bad =
      ctx.b.Op1("Or", {ctx.b.Op1("IsNaN", {x.name}, ctx.Name("nan")), ctx.b.Op1("IsInf", {x.name}, ctx.Name("inf"))},
                ctx.Name("not_finite"));
  ctx.SetOutput(0, ctx.b.Op1("Not", {bad}, ctx.Name()), DataType::kBool);
  return Status::Ok();
}

// Cast: ONNX Cast truncates float -> int toward zero and maps nonzero -> true, as TF does (TF's Truncate attribute
// only matters for float narrowing).
Status Cast(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(DataType to, ctx.node.Type("DstT"));
  ctx.SetOutput(0, ctx.b.Op1("Cast", {x.name}, ctx.Name(), {ir::IntAttr("to", static_cast<int64_t>(to))}), to);
  return Status::Ok();
}

Status Identity(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  // No node: the value itself, still a constant where it was one (an axis behind an Identity).
  ctx.SetOutputValue(0, x);
  return Status::Ok();
}

// Elementwise ops whose ONNX form takes every type TF gives them (integers included).
#define ONYX_TF_UNARY(NAME, ONNX) \
  Status NAME(OpContext& ctx) { return Unary(ctx, ONNX); }
ONYX_TF_UNARY(Neg, "Neg")
ONYX_TF_UNARY(Abs, "Abs")
ONYX_TF_UNARY(Sign, "Sign")
#undef ONYX_TF_UNARY

// Float-only ONNX operators.
#define ONYX_TF_FLOAT_UNARY(NAME, ONNX) \
  Status NAME(OpContext& ctx) { return FloatUnary(ctx, ONNX); }
ONYX_TF_FLOAT_UNARY(Sigmoid, "Sigmoid")
ONYX_TF_FLOAT_UNARY(Tanh, "Tanh")
ONYX_TF_FLOAT_UNARY(Elu, "Elu")    // alpha 1, as TF
ONYX_TF_FLOAT_UNARY(Selu, "Selu")  // ONNX's default alpha and gamma are TF's constants
ONYX_TF_FLOAT_UNARY(Softplus, "Softplus")
ONYX_TF_FLOAT_UNARY(Softsign, "Softsign")
ONYX_TF_FLOAT_UNARY(Sqrt, "Sqrt")
ONYX_TF_FLOAT_UNARY(Exp, "Exp")
ONYX_TF_FLOAT_UNARY(Log, "Log")
ONYX_TF_FLOAT_UNARY(Erf, "Erf")
ONYX_TF_FLOAT_UNARY(Sin, "Sin")
ONYX_TF_FLOAT_UNARY(Cos, "Cos")
ONYX_TF_FLOAT_UNARY(Tan, "Tan")
ONYX_TF_FLOAT_UNARY(Asin, "Asin")
ONYX_TF_FLOAT_UNARY(Acos, "Acos")
ONYX_TF_FLOAT_UNARY(Atan, "Atan")
ONYX_TF_FLOAT_UNARY(Sinh, "Sinh")
ONYX_TF_FLOAT_UNARY(Cosh, "Cosh")
ONYX_TF_FLOAT_UNARY(Asinh, "Asinh")
ONYX_TF_FLOAT_UNARY(Acosh, "Acosh")
ONYX_TF_FLOAT_UNARY(Atanh, "Atanh")
#undef ONYX_TF_FLOAT_UNARY

Status Floor(OpContext& ctx) { return RoundLike(ctx, "Floor"); }
Status Ceil(OpContext& ctx) { return RoundLike(ctx, "Ceil"); }
Status Round(OpContext& ctx) { return RoundLike(ctx, "Round"); }
// TF's LogSoftmax works on the last axis.
Status LogSoftmax(OpContext& ctx) { return FloatUnary(ctx, "LogSoftmax", {ir::IntAttr("axis", -1)}); }

}  // namespace

void AddMathOps(std::map<std::string, OpFn>& t) {
  t["Add"] = Add;
  t["AddV2"] = Add;
  t["Sub"] = Sub;
  t["Mul"] = Mul;
  t["RealDiv"] = Div;
  t["Div"] = Div;
  t["DivNoNan"] = DivNoNan;
  t["FloorDiv"] = FloorDiv;
  t["FloorMod"] = FloorMod;
  t["Mod"] = Mod;
  t["Maximum"] = Maximum;
  t["Minimum"] = Minimum;
  t["Pow"] = Pow;
  t["SquaredDifference"] = SquaredDifference;
  t["AddN"] = AddN;
  t["Relu"] = Relu;
  t["Relu6"] = Relu6;
  t["LeakyRelu"] = LeakyRelu;
  t["Prelu"] = Prelu;
  t["Elu"] = Elu;
  t["Selu"] = Selu;
  t["Sigmoid"] = Sigmoid;
  t["Tanh"] = Tanh;
  t["Softplus"] = Softplus;
  t["Softsign"] = Softsign;
  t["ClipByValue"] = ClipByValue;
  t["Sqrt"] = Sqrt;
  t["Rsqrt"] = Rsqrt;
  t["Square"] = Square;
  t["Exp"] = Exp;
  t["Expm1"] = Expm1;
  t["Log"] = Log;
  t["Log1p"] = Log1p;
  t["Erf"] = Erf;
  t["Sin"] = Sin;
  t["Cos"] = Cos;
  t["Tan"] = Tan;
  t["Asin"] = Asin;
  t["Acos"] = Acos;
  t["Atan"] = Atan;
  t["Atan2"] = Atan2;
  t["Sinh"] = Sinh;
  t["Cosh"] = Cosh;
  t["Asinh"] = Asinh;
  t["Acosh"] = Acosh;
  t["Atanh"] = Atanh;
  t["Neg"] = Neg;
  t["Abs"] = Abs;
  t["Sign"] = Sign;
  t["Floor"] = Floor;
  t["Ceil"] = Ceil;
  t["Round"] = Round;
  t["Reciprocal"] = Reciprocal;
  t["IsNan"] = IsNan;
  t["IsInf"] = IsInf;
  t["IsFinite"] = IsFinite;
  t["LogSoftmax"] = LogSoftmax;
  t["Cast"] = Cast;
  t["Identity"] = Identity;
}

}  // namespace onyx::convert::tf
