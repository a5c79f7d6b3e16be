// Elementwise operators: arithmetic (with fused activations), unary math, activations, comparisons, logic.
#include <cmath>

#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// Binary ops; `activation_field` is the options' fused activation (-1: none).
Status Binary(OpContext& c, const char* onnx_op, int activation_field) {
  ONYX_ASSIGN_OR_RETURN(std::string a, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string b, c.Input(1));
  std::string y = c.b.Op1(onnx_op, {a, b}, c.Name(onnx_op));
  if (activation_field >= 0) {
    ONYX_ASSIGN_OR_RETURN(int8_t activation, c.OptByte(activation_field));
    ONYX_ASSIGN_OR_RETURN(y, c.Activation(activation, y));
  }
  return c.SetOutput(y);
}

Status Unary(OpContext& c, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  return c.SetOutput(c.b.Op1(onnx_op, {x}, c.Name(onnx_op)));
}

Status Clip(OpContext& c, float lo, float hi) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  return c.SetOutput(
      c.b.Op1("Clip", {x, c.b.ConstFloat(c.Name("lo"), lo), c.b.ConstFloat(c.Name("hi"), hi)}, c.Name("clip")));
}

Status Rsqrt(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  return c.SetOutput(c.b.Op1("Reciprocal", {c.b.Op1("Sqrt", {x}, c.Name("sqrt"))}, c.Name("rsqrt")));
}

Status Square(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  return c.SetOutput(c.b.Op1("Mul", {x, x}, c.Name("square")));
}

Status SquaredDifference(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string a, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string b, c.Input(1));
  const std::string d = c.b.Op1("Sub", {a, b}, c.Name("difference"));
  return c.SetOutput(c.b.Op1("Mul", {d, d}, c.Name("squared")));
}

bool IsFloat(TensorType t) {
  return t == TensorType::kFloat32 || t == TensorType::kFloat16 || t == TensorType::kFloat64;
}

// FLOOR_DIV: floor(a / b). Integers go through double (exact for int32), where ONNX's integer Div truncates.
Status FloorDiv(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string a, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string b, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  if (IsFloat(t->type) || t->quantized()) {
    return c.SetOutput(c.b.Op1("Floor", {c.b.Op1("Div", {a, b}, c.Name("div"))}, c.Name("floor")));
  }
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  const auto to_double = ir::IntAttr("to", static_cast<int64_t>(DataType::kDouble));
  std::string q =
      c.b.Op1("Div", {c.b.Op1("Cast", {a}, c.Name("a"), {to_double}), c.b.Op1("Cast", {b}, c.Name("b"), {to_double})},
              c.Name("div"));
  q = c.b.Op1("Floor", {q}, c.Name("floor"));
  return c.SetOutput(c.b.Op1("Cast", {q}, c.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(type))}));
}

// FLOOR_MOD: the result takes the divisor's sign. ONNX Mod does that for integers (fmod 0); floats need
// a - floor(a / b) * b (ONNX Mod on floats only has C's fmod).
Status FloorMod(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string a, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string b, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  if (!IsFloat(t->type) && !t->quantized()) return c.SetOutput(c.b.Op1("Mod", {a, b}, c.Name("mod")));
  std::string q = c.b.Op1("Floor", {c.b.Op1("Div", {a, b}, c.Name("div"))}, c.Name("floor"));
  return c.SetOutput(c.b.Op1("Sub", {a, c.b.Op1("Mul", {q, b}, c.Name("multiple"))}, c.Name("mod")));
}

// LeakyReluOptions: alpha 0.
Status LeakyRelu(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(float alpha, c.OptFloat(0, 0.2f));
  return c.SetOutput(c.b.Op1("LeakyRelu", {x}, c.Name("leaky_relu"), {ir::FloatAttr("alpha", alpha)}));
}

// GELU (opset 17 has no Gelu): 0.5 x (1 + erf(x / sqrt 2)), or with GeluOptions.approximate (0) the tanh form
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Status Gelu(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(bool approximate, c.OptBool(0));
  std::string inner;
  if (approximate) {
    std::string x3 = c.b.Op1("Mul", {c.b.Op1("Mul", {x, x}, c.Name("x2")), x}, c.Name("x3"));
    std::string s =
        c.b.Op1("Add", {x, c.b.Op1("Mul", {x3, c.b.ConstFloat(c.Name("k"), 0.044715f)}, c.Name("kx3"))}, c.Name("sum"));
    s = c.b.Op1("Mul", {s, c.b.ConstFloat(c.Name("sqrt_2_over_pi"), static_cast<float>(std::sqrt(2.0 / M_PI)))},
                c.Name("scaled"));
    inner = c.b.Op1("Tanh", {s}, c.Name("tanh"));
  } else {
    inner = c.b.Op1(
        "Erf", {c.b.Op1("Mul", {x, c.b.ConstFloat(c.Name("rsqrt2"), static_cast<float>(M_SQRT1_2))}, c.Name("scaled"))},
        c.Name("erf"));
  }
  std::string y = c.b.Op1("Add", {inner, c.b.ConstFloat(c.Name("one"), 1.0f)}, c.Name("one_plus"));
  y = c.b.Op1("Mul", {c.b.Op1("Mul", {x, c.b.ConstFloat(c.Name("half"), 0.5f)}, c.Name("half_x")), y}, c.Name("gelu"));
  return c.SetOutput(y);
}

// ADD_N: the sum of all inputs.
Status AddN(OpContext& c) {
  std::vector<std::string> ins;
  for (size_t k = 0; k < c.num_inputs(); ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.Input(k));
    ins.push_back(v);
  }
  return c.SetOutput(c.b.Op1("Sum", ins, c.Name("sum")));
}

// SELECT / SELECT_V2(condition, x, y) -> Where (V2 broadcasts, SELECT's condition may be 1-D over the batch).
Status Select(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string cond, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::string y, c.Input(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> cs, c.InShape(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> xs, c.InShape(1));
  if (c.op().builtin_code == op::kSelect && cs.size() == 1 && xs.size() > 1) {
    // SELECT picks whole rows with a vector condition: give it trailing unit dims.
    std::vector<int64_t> shape(xs.size(), 1);
    shape[0] = -1;
    cond = c.b.Op1("Reshape", {cond, c.b.ConstInts(c.Name("cond_shape"), shape)}, c.Name("cond"));
  }
  return c.SetOutput(c.b.Op1("Where", {cond, x, y}, c.Name("select")));
}

// CAST to the output tensor's type.
Status Cast(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  return c.SetOutput(c.b.Op1("Cast", {x}, c.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(type))}));
}

}  // namespace

void AddMathOps(std::map<int32_t, OpFn>& t) {
  t[op::kAdd] = [](OpContext& c) { return Binary(c, "Add", 0); };
  t[op::kSub] = [](OpContext& c) { return Binary(c, "Sub", 0); };
  t[op::kMul] = [](OpContext& c) { return Binary(c, "Mul", 0); };
  t[op::kDiv] = [](OpContext& c) { return Binary(c, "Div", 0); };
  t[op::kMaximum] = [](OpContext& c) { return Binary(c, "Max", -1); };
  t[op::kMinimum] = [](OpContext& c) { return Binary(c, "Min", -1); };
  t[op::kPow] = [](OpContext& c) { return Binary(c, "Pow", -1); };
  t[op::kPrelu] = [](OpContext& c) { return Binary(c, "PRelu", -1); };
  t[op::kLess] = [](OpContext& c) { return Binary(c, "Less", -1); };
  t[op::kLessEqual] = [](OpContext& c) { return Binary(c, "LessOrEqual", -1); };
  t[op::kGreater] = [](OpContext& c) { return Binary(c, "Greater", -1); };
  t[op::kGreaterEqual] = [](OpContext& c) { return Binary(c, "GreaterOrEqual", -1); };
  t[op::kEqual] = [](OpContext& c) { return Binary(c, "Equal", -1); };
  t[op::kNotEqual] = [](OpContext& c) {
    ONYX_ASSIGN_OR_RETURN(std::string a, c.Input(0));
    ONYX_ASSIGN_OR_RETURN(std::string b, c.Input(1));
    return c.SetOutput(c.b.Op1("Not", {c.b.Op1("Equal", {a, b}, c.Name("equal"))}, c.Name("not_equal")));
  };
  t[op::kLogicalAnd] = [](OpContext& c) { return Binary(c, "And", -1); };
  t[op::kLogicalOr] = [](OpContext& c) { return Binary(c, "Or", -1); };
  t[op::kLogicalNot] = [](OpContext& c) { return Unary(c, "Not"); };
  t[op::kSquaredDifference] = SquaredDifference;
  t[op::kFloorDiv] = FloorDiv;
  t[op::kFloorMod] = FloorMod;
  t[op::kAddN] = AddN;
  t[op::kAbs] = [](OpContext& c) { return Unary(c, "Abs"); };
  t[op::kNeg] = [](OpContext& c) { return Unary(c, "Neg"); };
  t[op::kSqrt] = [](OpContext& c) { return Unary(c, "Sqrt"); };
  t[op::kRsqrt] = Rsqrt;
  t[op::kSquare] = Square;
  t[op::kExp] = [](OpContext& c) { return Unary(c, "Exp"); };
  t[op::kLog] = [](OpContext& c) { return Unary(c, "Log"); };
  t[op::kSin] = [](OpContext& c) { return Unary(c, "Sin"); };
  t[op::kCos] = [](OpContext& c) { return Unary(c, "Cos"); };
  t[op::kFloor] = [](OpContext& c) { return Unary(c, "Floor"); };
  t[op::kCeil] = [](OpContext& c) { return Unary(c, "Ceil"); };
  t[op::kRound] = [](OpContext& c) { return Unary(c, "Round"); };  // both round half to even
  t[op::kSign] = [](OpContext& c) { return Unary(c, "Sign"); };
  t[op::kRelu] = [](OpContext& c) { return Unary(c, "Relu"); };
  t[op::kLogistic] = [](OpContext& c) { return Unary(c, "Sigmoid"); };
  t[op::kTanh] = [](OpContext& c) { return Unary(c, "Tanh"); };
  t[op::kHardSwish] = [](OpContext& c) { return Unary(c, "HardSwish"); };
  t[op::kElu] = [](OpContext& c) { return Unary(c, "Elu"); };  // alpha 1 in both
  t[op::kRelu6] = [](OpContext& c) { return Clip(c, 0, 6); };
  t[op::kReluN1To1] = [](OpContext& c) { return Clip(c, -1, 1); };
  t[op::kRelu0To1] = [](OpContext& c) { return Clip(c, 0, 1); };
  t[op::kLeakyRelu] = LeakyRelu;
  t[op::kGelu] = Gelu;
  t[op::kSelect] = Select;
  t[op::kSelectV2] = Select;
  t[op::kCast] = Cast;
}

}  // namespace onyx::convert::tflite
