// Tensor creation (Fill, Range, LinSpace, OneHot, Zeros/Ones and their *Like forms, random draws) and graph-level
// operators (pass-throughs, Rank/Size/ShapeN, FakeQuant). Shapes and counts may be computed at run time: ONNX takes
// them as tensors.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

// ConstantOfShape(shape) filled with v of `type`.
Result<std::string> Filled(OpContext& ctx, const std::string& shape64, DataType type, double v,
                           const std::string& name) {
  ONYX_ASSIGN_OR_RETURN(Tensor t, ScalarTensor(type, v));
  ONYX_ASSIGN_OR_RETURN(Tensor t1, t.Reshaped({1}));
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  value.t.tensor = std::move(t1);
  return ctx.b.Op1("ConstantOfShape", {shape64}, name, {std::move(value)});
}

Result<DataType> TypeAttr(OpContext& ctx, const char* key, DataType fallback) {
  if (!ctx.node.Has(key)) return fallback;
  return ctx.node.Type(key);
}

// ---- creation ------------------------------------------------------------------------------------------------------

// Fill(dims, value): the scalar broadcast to dims.
Status Fill(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue dims, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue value, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Expand", {value.name, AsInt64(ctx, dims, "dims64")}, ctx.Name()), value.type);
  return Status::Ok();
}

// Zeros/Ones(shape) of type T (TF.js graph ops), ZerosLike/OnesLike(x).
Status ConvertFill(OpContext& ctx, double v, bool like) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  DataType type = x.type;
  std::string shape;
  if (like) {
    shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  } else {
    ONYX_ASSIGN_OR_RETURN(type, TypeAttr(ctx, "T", DataType::kFloat));
    shape = AsInt64(ctx, x, "shape64");
  }
  ONYX_ASSIGN_OR_RETURN(std::string y, Filled(ctx, shape, type, v, ctx.Name()));
  ctx.SetOutput(0, y, type);
  return Status::Ok();
}

Status Zeros(OpContext& ctx) { return ConvertFill(ctx, 0, false); }
Status Ones(OpContext& ctx) { return ConvertFill(ctx, 1, false); }
Status ZerosLike(OpContext& ctx) { return ConvertFill(ctx, 0, true); }
Status OnesLike(OpContext& ctx) { return ConvertFill(ctx, 1, true); }

// Range(start, limit, delta): ONNX Range has TF's length, max(ceil((limit - start) / delta), 0), for ints and floats.
Status Range(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue start, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue limit, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue delta, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(DataType type, TypeAttr(ctx, "Tidx", start.type));
  ctx.SetOutput(0,
                ctx.b.Op1("Range",
                          {AsType(ctx, start, type, "start"), AsType(ctx, limit, type, "limit"),
                           AsType(ctx, delta, type, "delta")},
                          ctx.Name()),
                type);
  return Status::Ok();
}

// LinSpace(start, stop, num): start + i * (stop - start) / (num - 1), and the last value exactly stop, as TF writes
// it; one value is start.
Status LinSpace(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue start, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue stop, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue num, ctx.Input(2));
  const DataType t = start.type;
  const std::string n = AsInt64(ctx, num, "num64");
  auto int64_scalar = [&](const char* what, int64_t v) {
    return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<int64_t>(v));
  };
  const std::string one = int64_scalar("one", 1);
  const std::string index = ctx.b.Op1("Range", {int64_scalar("zero", 0), n, one}, ctx.Name("index"));
  const std::string last = ctx.b.Op1("Max", {ctx.b.Op1("Sub", {n, one}, ctx.Name("n_1")), one}, ctx.Name("last"));
  const std::string step =
      ctx.b.Op1("Div",
                {ctx.b.Op1("Sub", {stop.name, start.name}, ctx.Name("span")),
                 ctx.b.Op1("Cast", {last}, ctx.Name("intervals"), {ir::IntAttr("to", static_cast<int64_t>(t))})},
                ctx.Name("step"));
  const std::string offsets = ctx.b.Op1(
      "Mul", {ctx.b.Op1("Cast", {index}, ctx.Name("index_f"), {ir::IntAttr("to", static_cast<int64_t>(t))}), step},
      ctx.Name("offsets"));
  const std::string values = ctx.b.Op1("Add", {start.name, offsets}, ctx.Name("values"));
  const std::string is_last = ctx.b.Op1("Equal", {index, last}, ctx.Name("is_last"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {is_last, stop.name, values}, ctx.Name()), t);
  return Status::Ok();
}

// OneHot(indices, depth, on_value, off_value) with axis. ONNX counts indices in [-depth, -1] from the end where TF
// gives all off_value for every negative index: negative indices are moved out of range first.
Status OneHot(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue depth, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue on, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(TfValue off, ctx.Input(3));
  const std::string idx = AsInt64(ctx, indices, "indices64");
  const std::string depth64 = AsInt64(ctx, depth, "depth64");
  const std::string negative =
      ctx.b.Op1("Less", {idx, ctx.b.Constant(ctx.Name("zero"), Tensor::Scalar<int64_t>(0))}, ctx.Name("negative"));
  const std::string in_range = ctx.b.Op1("Where", {negative, depth64, idx}, ctx.Name("index"));
  const std::string one = ctx.b.ConstInts(ctx.Name("one"), {1});
  const std::string values = ctx.b.Op1(
      "Concat",
      {ctx.b.Op1("Reshape", {off.name, one}, ctx.Name("off")), ctx.b.Op1("Reshape", {on.name, one}, ctx.Name("on"))},
      ctx.Name("values"), {ir::IntAttr("axis", 0)});
  ctx.SetOutput(
      0,
      ctx.b.Op1("OneHot", {in_range, depth64, values}, ctx.Name(), {ir::IntAttr("axis", ctx.node.IntOr("axis", -1))}),
      on.type);
  return Status::Ok();
}

// RandomUniform / RandomStandardNormal(shape) with dtype: ONNX's *Like draws over a tensor of the shape. TF's seed
// pair has no ONNX counterpart beyond one float seed; draws never match TF's stream anyway.
Status ConvertRandom(OpContext& ctx, bool normal) {
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(DataType type, TypeAttr(ctx, "dtype", DataType::kFloat));
  ONYX_ASSIGN_OR_RETURN(std::string like, Filled(ctx, AsInt64(ctx, shape, "shape64"), type, 0, ctx.Name("like")));
  std::vector<ir::Attribute> attrs = {ir::IntAttr("dtype", static_cast<int64_t>(type))};
  const int64_t seed = ctx.node.IntOr("seed", 0), seed2 = ctx.node.IntOr("seed2", 0);
  if (seed != 0 || seed2 != 0) attrs.push_back(ir::FloatAttr("seed", static_cast<float>(seed * 65536 + seed2)));
  ctx.SetOutput(0, ctx.b.Op1(normal ? "RandomNormalLike" : "RandomUniformLike", {like}, ctx.Name(), std::move(attrs)),
                type);
  return Status::Ok();
}

Status RandomUniform(OpContext& ctx) { return ConvertRandom(ctx, false); }
Status RandomStandardNormal(OpContext& ctx) { return ConvertRandom(ctx, true); }

// ---- graph-level ---------------------------------------------------------------------------------------------------

// Output i is input i itself: no ONNX node. PlaceholderWithDefault becomes its default (a frozen graph is run without
// feeding it); Print's side effect and gradient stops have no meaning at inference.
Status PassThrough(OpContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(i));
    ctx.SetOutput(static_cast<int>(i), x.name, x.type);
    if (ctx.node.op != "IdentityN") break;  // Print's other inputs are only printed
  }
  return Status::Ok();
}

// NoOp orders other nodes through control edges, which ONNX does not have; it has no outputs.
Status NoOp(OpContext&) { return Status::Ok(); }

// An int64 shape-like value as TF's out_type, named after the node.
std::string ShapeAs(OpContext& ctx, const std::string& v, DataType to) {
  return to == DataType::kInt64 ? v : CastTo(ctx, v, to, "");
}

// Rank(x): an int32 scalar.
Status Rank(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  const std::string rank = ctx.b.Op1("Size", {ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"))}, ctx.Name("rank"));
  ctx.SetOutput(0, ShapeAs(ctx, rank, DataType::kInt32), DataType::kInt32);
  return Status::Ok();
}

// Size(x) with out_type (int32 by default).
Status Size(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(DataType out_type, TypeAttr(ctx, "out_type", DataType::kInt32));
  ctx.SetOutput(0, ShapeAs(ctx, ctx.b.Op1("Size", {x.name}, ctx.Name("size")), out_type), out_type);
  return Status::Ok();
}

// ShapeN(x...) with out_type: one shape per input.
Status ShapeN(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(DataType out_type, TypeAttr(ctx, "out_type", DataType::kInt32));
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(i));
    const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
    ctx.SetOutput(static_cast<int>(i), ShapeAs(ctx, shape, out_type), out_type);
  }
  return Status::Ok();
}

// FakeQuantWithMinMaxVars(x, min, max) / FakeQuantWithMinMaxArgs(x) with num_bits and narrow_range, as TF computes
// it in float32: [min, max] is nudged so that 0 is on the grid of 2^num_bits - 1 (or - 2) steps, x is clamped to
// the nudged range and rounded half up to the grid:
//   out = floor((clamp(x) - nudged_min) / scale - quant_zero + 0.5) * scale.
// min == max == 0 gives zeros. The nudged values are computed here, so min and max must be constants.
Status ConvertFakeQuant(OpContext& ctx, bool vars) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  float min = ctx.node.FloatOr("min", -6.0f), max = ctx.node.FloatOr("max", 6.0f);
  if (vars) {
    ONYX_ASSIGN_OR_RETURN(Tensor tmin, ctx.ConstInput(1, "min"));
    ONYX_ASSIGN_OR_RETURN(Tensor tmax, ctx.ConstInput(2, "max"));
    if (tmin.size() != 1 || tmax.size() != 1)
      return InvalidArgument(ctx.node.Where() + ": min and max must be scalars");
    min = static_cast<float>(tmin.DoubleAt(0));
    max = static_cast<float>(tmax.DoubleAt(0));
  }
  const int64_t num_bits = ctx.node.IntOr("num_bits", 8);
  if (num_bits < 2 || num_bits > 16) return InvalidArgument(ctx.node.Where() + ": num_bits must be in 2..16");
  if (!(min <= max)) return InvalidArgument(ctx.node.Where() + ": min must not exceed max");
  if (min == 0.0f && max == 0.0f) {
    ONYX_ASSIGN_OR_RETURN(std::string y,
                          Filled(ctx, ctx.b.Op1("Shape", {x.name}, ctx.Name("shape")), x.type, 0, ctx.Name()));
    ctx.SetOutput(0, y, x.type);
    return Status::Ok();
  }
  const float quant_min = ctx.node.BoolOr("narrow_range", false) ? 1.0f : 0.0f;
  const float quant_max = static_cast<float>((int64_t{1} << num_bits) - 1);
  const float scale = (max - min) / (quant_max - quant_min);
  const float inv_scale = (quant_max - quant_min) / (max - min);
  const float zero_point_from_min = quant_min - min / scale;
  const float zero_point = zero_point_from_min < quant_min   ? quant_min
                           : zero_point_from_min > quant_max ? quant_max
                                                             : std::round(zero_point_from_min);
  const float nudged_min = (quant_min - zero_point) * scale;
  const float nudged_max = (quant_max - zero_point) * scale;
  const float quant_zero = std::floor(-nudged_min * inv_scale + 0.5f);
  const std::string clamped = ctx.b.Op1("Clip",
                                        {x.name, ctx.b.ConstFloat(ctx.Name("nudged_min"), nudged_min),
                                         ctx.b.ConstFloat(ctx.Name("nudged_max"), nudged_max)},
                                        ctx.Name("clamped"));
  const std::string shifted =
      ctx.b.Op1("Sub", {clamped, ctx.b.ConstFloat(ctx.Name("nudged_min"), nudged_min)}, ctx.Name("shifted"));
  // Vars divides by the scale, Args multiplies by its inverse: TF's two kernels differ so, and so can the last bit.
  const std::string steps =
      vars ? ctx.b.Op1("Div", {shifted, ctx.b.ConstFloat(ctx.Name("scale"), scale)}, ctx.Name("steps"))
           : ctx.b.Op1("Mul", {shifted, ctx.b.ConstFloat(ctx.Name("inv_scale"), inv_scale)}, ctx.Name("steps"));
  const std::string level = ctx.b.Op1(
      "Floor",
      {ctx.b.Op1("Add",
                 {ctx.b.Op1("Sub", {steps, ctx.b.ConstFloat(ctx.Name("quant_zero"), quant_zero)}, ctx.Name("centred")),
                  ctx.b.ConstFloat(ctx.Name("half"), 0.5f)},
                 ctx.Name("rounding"))},
      ctx.Name("level"));
  ctx.SetOutput(0, ctx.b.Op1("Mul", {level, ctx.b.ConstFloat(ctx.Name("scale"), scale)}, ctx.Name()), x.type);
  return Status::Ok();
}

Status FakeQuantWithMinMaxVars(OpContext& ctx) { return ConvertFakeQuant(ctx, true); }
Status FakeQuantWithMinMaxArgs(OpContext& ctx) { return ConvertFakeQuant(ctx, false); }

}  // namespace

void AddCreationOps(std::map<std::string, OpFn>& t) {
  t["Fill"] = Fill;
  t["Zeros"] = Zeros;
  t["Ones"] = Ones;
  t["ZerosLike"] = ZerosLike;
  t["OnesLike"] = OnesLike;
  t["Range"] = Range;
  t["LinSpace"] = LinSpace;
  t["OneHot"] = OneHot;
  t["RandomUniform"] = RandomUniform;
  t["RandomStandardNormal"] = RandomStandardNormal;
  t["PlaceholderWithDefault"] = PassThrough;
  t["IdentityN"] = PassThrough;
  t["Snapshot"] = PassThrough;
  t["StopGradient"] = PassThrough;
  t["PreventGradient"] = PassThrough;
  t["Print"] = PassThrough;
  t["NoOp"] = NoOp;
  t["Rank"] = Rank;
  t["Size"] = Size;
  t["ShapeN"] = ShapeN;
  t["FakeQuantWithMinMaxVars"] = FakeQuantWithMinMaxVars;
  t["FakeQuantWithMinMaxArgs"] = FakeQuantWithMinMaxArgs;
}

}  // namespace onyx::convert::tf
