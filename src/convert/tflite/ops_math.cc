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

// ATAN2(y, x): ONNX has no Atan2. atan(y / x), shifted by +-pi when x < 0 (+pi for y >= 0, as atan2(+0, x < 0)
// is pi), and sign(y) * pi / 2 on x = 0 (0 at the origin, like atan2(0, 0)).
Status Atan2(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  if (t->type != TensorType::kFloat32) return c.Unsupported("ATAN2 of a non-float32 tensor");
  ONYX_ASSIGN_OR_RETURN(std::string y, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(1));
  const std::string zero = c.b.ConstFloat(c.Name("zero"), 0.0f);
  const float pi = static_cast<float>(M_PI);
  std::string q = c.b.Op1("Atan", {c.b.Op1("Div", {y, x}, c.Name("ratio"))}, c.Name("atan"));
  std::string shift = c.b.Op1("Where",
                              {c.b.Op1("GreaterOrEqual", {y, zero}, c.Name("y_nonnegative")),
                               c.b.ConstFloat(c.Name("pi"), pi), c.b.ConstFloat(c.Name("minus_pi"), -pi)},
                              c.Name("shift"));
  q = c.b.Op1("Where",
              {c.b.Op1("Less", {x, zero}, c.Name("x_negative")), c.b.Op1("Add", {q, shift}, c.Name("left")), q},
              c.Name("quadrant"));
  std::string axis = c.b.Op1("Mul", {c.b.Op1("Sign", {y}, c.Name("sign_y")), c.b.ConstFloat(c.Name("half_pi"), pi / 2)},
                             c.Name("on_axis"));
  return c.SetOutput(c.b.Op1("Where", {c.b.Op1("Equal", {x, zero}, c.Name("x_zero")), axis, q}, c.Name("atan2")));
}

Result<int> IntegerBits(OpContext& c, TensorType t, bool* is_signed) {
  *is_signed = t == TensorType::kInt8 || t == TensorType::kInt16 || t == TensorType::kInt32;
  switch (t) {
    case TensorType::kInt8:
    case TensorType::kUint8:
      return 8;
    case TensorType::kInt16:
    case TensorType::kUint16:
      return 16;
    case TensorType::kInt32:
    case TensorType::kUint32:
      return 32;
    default:
      return c.Unsupported("a bitwise operator on TFLite type " + std::to_string(static_cast<int>(t)));
  }
}

// RIGHT_SHIFT(x, y): TFLite clamps the shift to [0, bits - 1] and shifts signed types arithmetically. ONNX's
// BitShift takes unsigned types only: signed values are floor(x / 2^y), computed in double (exact for 32 bits).
Status RightShift(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  bool is_signed = false;
  ONYX_ASSIGN_OR_RETURN(int bits, IntegerBits(c, t->type, &is_signed));
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  ONYX_ASSIGN_OR_RETURN(std::string y, c.RawInput(1));
  auto cast = [&](const std::string& v, DataType to, const char* what) {
    return c.b.Op1("Cast", {v}, c.Name(what), {ir::IntAttr("to", static_cast<int64_t>(to))});
  };
  Tensor lo = Tensor::Scalar<int64_t>(0), hi = Tensor::Scalar<int64_t>(bits - 1);
  std::string shift = c.b.Op1("Clip",
                              {cast(y, DataType::kInt64, "shift64"), c.b.Constant(c.Name("lo"), std::move(lo)),
                               c.b.Constant(c.Name("hi"), std::move(hi))},
                              c.Name("shift"));
  if (!is_signed) {
    return c.SetRawOutput(c.b.Op1("BitShift", {x, cast(shift, type, "shift_cast")}, c.Name("right_shift"),
                                  {ir::StringAttr("direction", "RIGHT")}));
  }
  std::string scale = c.b.Op1(
      "Pow", {c.b.Constant(c.Name("two"), Tensor::Scalar<double>(2.0)), cast(shift, DataType::kDouble, "shift_double")},
      c.Name("scale"));
  std::string q = c.b.Op1("Floor", {c.b.Op1("Div", {cast(x, DataType::kDouble, "x_double"), scale}, c.Name("div"))},
                          c.Name("floor"));
  return c.SetRawOutput(cast(q, type, "right_shift"));
}

// BITWISE_XOR(x, y): opset 17 has no bitwise operators (BitwiseXor is opset 18). Both operands are cast to uint32
// (sign-extending, so the low bits are the operands' own), split into their 32 bits with BitShift (a new last
// axis), the bits added mod 2, and the bits weighted by 2^k summed in int64; the final Cast keeps the low bits.
Status BitwiseXor(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  bool is_signed = false;
  ONYX_ASSIGN_OR_RETURN(int bits, IntegerBits(c, t->type, &is_signed));
  (void)bits;
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  std::vector<uint32_t> shifts(32);
  std::vector<int64_t> weights(32);
  for (uint32_t k = 0; k < 32; ++k) {
    shifts[k] = k;
    weights[k] = int64_t{1} << k;
  }
  const std::string shift = c.b.Constant(c.Name("shifts"), Tensor::FromVector<uint32_t>(shifts, {32}));
  const std::string two = c.b.Constant(c.Name("two"), Tensor::Scalar<uint32_t>(2));
  const std::string last = c.b.ConstInts(c.Name("last_axis"), {-1});
  std::vector<std::string> split;
  for (size_t k = 0; k < 2; ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.RawInput(k));
    v = c.b.Op1("Cast", {v}, c.Name("u32"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kUint32))});
    v = c.b.Op1("BitShift", {c.b.Op1("Unsqueeze", {v, last}, c.Name("expanded")), shift}, c.Name("shifted"),
                {ir::StringAttr("direction", "RIGHT")});
    split.push_back(c.b.Op1("Mod", {v, two}, c.Name("bits")));
  }
  std::string z = c.b.Op1("Mod", {c.b.Op1("Add", {split[0], split[1]}, c.Name("bit_sum")), two}, c.Name("xor_bits"));
  z = c.b.Op1("Cast", {z}, c.Name("xor_bits64"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
  z = c.b.Op1("Mul", {z, c.b.Constant(c.Name("weights"), Tensor::FromVector<int64_t>(weights, {32}))},
              c.Name("weighted"));
  z = c.b.Op1("ReduceSum", {z, last}, c.Name("xor64"), {ir::IntAttr("keepdims", 0)});
  return c.SetRawOutput(c.b.Op1("Cast", {z}, c.Name("xor"), {ir::IntAttr("to", static_cast<int64_t>(type))}));
}

// FAKE_QUANT; FakeQuantOptions: min 0, max 1, num_bits 2, narrow_range 3. TFLite nudges [min, max] so that 0 is
// a grid point (in float, as computed here at conversion), clamps, and rounds (x - nudged_min) / scale half away
// from zero: the value is >= 0 there, so that is floor, plus one where the fraction is >= 0.5 (exact in float,
// where floor(v + 0.5) is not).
Status FakeQuant(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(float min, c.OptFloat(0));
  ONYX_ASSIGN_OR_RETURN(float max, c.OptFloat(1));
  ONYX_ASSIGN_OR_RETURN(int32_t num_bits, c.OptInt(2));
  ONYX_ASSIGN_OR_RETURN(bool narrow, c.OptBool(3));
  // TFLite's kernel refuses narrow_range at run time ("only meant to be applied to weights").
  if (narrow) return c.Unsupported("narrow_range");
  if (num_bits < 2 || num_bits > 16 || !(max > min)) {
    return c.Error("num_bits " + std::to_string(num_bits) + " with range [" + std::to_string(min) + ", " +
                   std::to_string(max) + "]");
  }
  const float quant_min = 0.0f, quant_max = static_cast<float>((1 << num_bits) - 1);
  const float scale = (max - min) / (quant_max - quant_min);
  const float zero_point_from_min = quant_min - min / scale;
  float zero_point = std::round(zero_point_from_min);
  if (zero_point_from_min < quant_min) zero_point = quant_min;
  if (zero_point_from_min > quant_max) zero_point = quant_max;
  const float nudged_min = (quant_min - zero_point) * scale;
  const float nudged_max = (quant_max - zero_point) * scale;
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  const std::string lo = c.b.ConstFloat(c.Name("nudged_min"), nudged_min);
  std::string v = c.b.Op1("Clip", {x, lo, c.b.ConstFloat(c.Name("nudged_max"), nudged_max)}, c.Name("clamped"));
  v = c.b.Op1("Mul", {c.b.Op1("Sub", {v, lo}, c.Name("shifted")), c.b.ConstFloat(c.Name("inv_scale"), 1.0f / scale)},
              c.Name("steps"));
  std::string f = c.b.Op1("Floor", {v}, c.Name("floor"));
  std::string up =
      c.b.Op1("GreaterOrEqual", {c.b.Op1("Sub", {v, f}, c.Name("fraction")), c.b.ConstFloat(c.Name("half"), 0.5f)},
              c.Name("round_up"));
  std::string r = c.b.Op1("Where", {up, c.b.Op1("Add", {f, c.b.ConstFloat(c.Name("one"), 1.0f)}, c.Name("ceil")), f},
                          c.Name("rounded"));
  r = c.b.Op1("Add", {c.b.Op1("Mul", {r, c.b.ConstFloat(c.Name("scale"), scale)}, c.Name("scaled")), lo},
              c.Name("fake_quant"));
  return c.SetOutput(r);
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
  t[op::kAtan2] = Atan2;
  t[op::kRightShift] = RightShift;
  t[op::kBitwiseXor] = BitwiseXor;
  t[op::kFakeQuant] = FakeQuant;
}

}  // namespace onyx::convert::tflite
