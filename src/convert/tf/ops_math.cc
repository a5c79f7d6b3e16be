// Elementwise arithmetic, activations and casts. TF broadcasts like numpy, as ONNX does, so binary ops map one to one;
// the exceptions are spelled out (floor division and modulo of integers, SquaredDifference, Relu6, Rsqrt).
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

Status Binary(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1(onnx_op, {a.name, b.name}, ctx.Name()), a.type);
  return Status::Ok();
}

Status Unary(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1(onnx_op, {x.name}, ctx.Name()), x.type);
  return Status::Ok();
}

Status Add(OpContext& ctx) { return Binary(ctx, "Add"); }
Status Sub(OpContext& ctx) { return Binary(ctx, "Sub"); }
Status Mul(OpContext& ctx) { return Binary(ctx, "Mul"); }
Status Maximum(OpContext& ctx) { return Binary(ctx, "Max"); }
Status Minimum(OpContext& ctx) { return Binary(ctx, "Min"); }
Status Pow(OpContext& ctx) { return Binary(ctx, "Pow"); }

// RealDiv, and Div of floats. Div of integers is refused rather than guessed: its rounding is not ONNX Div's.
Status RealDiv(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  if (!IsFloatingPoint(a.type)) {
    return Unsupported(ctx.node.Where() + ": division of " + std::string(DataTypeName(a.type)) +
                       " (use FloorDiv semantics explicitly)");
  }
  return Binary(ctx, "Div");
}

// Floor division: Floor(a / b) for floats; for integers (a - FloorMod(a, b)) / b, exact (ONNX integer Div truncates
// toward zero, which differs from floor for negative quotients).
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

// FloorMod: the result takes the divisor's sign (Python's %): ONNX Mod with fmod=0 for integers, fmod=1 is C's
// fmod, so floats use a - b * Floor(a / b).
Status FloorMod(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  if (!IsFloatingPoint(a.type)) {
    ctx.SetOutput(0, ctx.b.Op1("Mod", {a.name, b.name}, ctx.Name(), {ir::IntAttr("fmod", 0)}), a.type);
    return Status::Ok();
  }
  const std::string q = ctx.b.Op1("Floor", {ctx.b.Op1("Div", {a.name, b.name}, ctx.Name("div"))}, ctx.Name("floor"));
  const std::string prod = ctx.b.Op1("Mul", {b.name, q}, ctx.Name("mul"));
  ctx.SetOutput(0, ctx.b.Op1("Sub", {a.name, prod}, ctx.Name()), a.type);
  return Status::Ok();
}

Status SquaredDifference(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  const std::string d = ctx.b.Op1("Sub", {a.name, b.name}, ctx.Name("diff"));
  ctx.SetOutput(0, ctx.b.Op1("Mul", {d, d}, ctx.Name()), a.type);
  return Status::Ok();
}

Status AddN(OpContext& ctx) {
  if (ctx.num_inputs() == 0) return InvalidArgument(ctx.node.Where() + ": no inputs");
  std::vector<std::string> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    ins.push_back(v.name);
  }
  ONYX_ASSIGN_OR_RETURN(TfValue first, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Sum", ins, ctx.Name()), first.type);
  return Status::Ok();
}

Status Relu6(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0,
                ctx.b.Op1("Clip", {x.name, ctx.b.ConstFloat(ctx.Name("zero"), 0.0f),
                                   ctx.b.ConstFloat(ctx.Name("six"), 6.0f)},
                          ctx.Name()),
                x.type);
  return Status::Ok();
}

Status Rsqrt(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Reciprocal", {ctx.b.Op1("Sqrt", {x.name}, ctx.Name("sqrt"))}, ctx.Name()), x.type);
  return Status::Ok();
}

Status Square(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Mul", {x.name, x.name}, ctx.Name()), x.type);
  return Status::Ok();
}

Status LeakyRelu(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("LeakyRelu", {x.name}, ctx.Name(), {ir::FloatAttr("alpha", ctx.node.FloatOr("alpha", 0.2f))}),
                x.type);
  return Status::Ok();
}

// Cast: ONNX Cast rounds float -> int toward zero, as TF does (Truncate only matters for float narrowing).
Status Cast(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(DataType to, ctx.node.Type("DstT"));
  ctx.SetOutput(0, ctx.b.Op1("Cast", {x.name}, ctx.Name(), {ir::IntAttr("to", static_cast<int64_t>(to))}), to);
  return Status::Ok();
}

Status Identity(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, x.name, x.type);  // no node: the value itself
  return Status::Ok();
}

#define ONYX_TF_UNARY(NAME, ONNX) \
  Status NAME(OpContext& ctx) { return Unary(ctx, ONNX); }
ONYX_TF_UNARY(Relu, "Relu")
ONYX_TF_UNARY(Sigmoid, "Sigmoid")
ONYX_TF_UNARY(Tanh, "Tanh")
ONYX_TF_UNARY(Elu, "Elu")
ONYX_TF_UNARY(Sqrt, "Sqrt")
ONYX_TF_UNARY(Exp, "Exp")
ONYX_TF_UNARY(Log, "Log")
ONYX_TF_UNARY(Neg, "Neg")
ONYX_TF_UNARY(Abs, "Abs")
ONYX_TF_UNARY(Floor, "Floor")
ONYX_TF_UNARY(Ceil, "Ceil")
ONYX_TF_UNARY(Reciprocal, "Reciprocal")
#undef ONYX_TF_UNARY

}  // namespace

void AddMathOps(std::map<std::string, OpFn>& t) {
  t["Add"] = Add;
  t["AddV2"] = Add;
  t["Sub"] = Sub;
  t["Mul"] = Mul;
  t["RealDiv"] = RealDiv;
  t["Div"] = RealDiv;
  t["FloorDiv"] = FloorDiv;
  t["FloorMod"] = FloorMod;
  t["Maximum"] = Maximum;
  t["Minimum"] = Minimum;
  t["Pow"] = Pow;
  t["SquaredDifference"] = SquaredDifference;
  t["AddN"] = AddN;
  t["Relu"] = Relu;
  t["Relu6"] = Relu6;
  t["LeakyRelu"] = LeakyRelu;
  t["Sigmoid"] = Sigmoid;
  t["Tanh"] = Tanh;
  t["Elu"] = Elu;
  t["Sqrt"] = Sqrt;
  t["Rsqrt"] = Rsqrt;
  t["Square"] = Square;
  t["Exp"] = Exp;
  t["Log"] = Log;
  t["Neg"] = Neg;
  t["Abs"] = Abs;
  t["Floor"] = Floor;
  t["Ceil"] = Ceil;
  t["Reciprocal"] = Reciprocal;
  t["Cast"] = Cast;
  t["Identity"] = Identity;
}

}  // namespace onyx::convert::tf
