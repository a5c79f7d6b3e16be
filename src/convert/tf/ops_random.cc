// Random draws beyond RandomUniform / RandomStandardNormal (ops_creation.cc): TruncatedNormal, RandomUniformInt,
// Multinomial. No ONNX sampler reproduces TF's stream, so only the distribution is kept: TF's seed pair becomes
// ONNX's single float seed, as in ops_creation.cc.
#include "convert/tf/emit.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {
namespace {

// The seed attribute of ONNX's samplers, when TF's node has a nonzero seed pair.
void AddSeed(const OpContext& ctx, std::vector<ir::Attribute>* attrs) {
  const int64_t seed = ctx.node.IntOr("seed", 0), seed2 = ctx.node.IntOr("seed2", 0);
  if (seed != 0 || seed2 != 0) attrs->push_back(ir::FloatAttr("seed", static_cast<float>(seed * 65536 + seed2)));
}

Result<DataType> TypeAttrOr(const OpContext& ctx, const char* key, DataType fallback) {
  if (!ctx.node.Has(key)) return fallback;
  return ctx.node.Type(key);
}

// A tensor of zeros of `type` with the int32/int64 shape value `shape` (the template of a *Like sampler).
Result<std::string> ZerosOfShape(OpContext& ctx, const std::string& shape64, DataType type, const std::string& tag) {
  ONYX_ASSIGN_OR_RETURN(Tensor zero, ScalarTensor(type, 0));
  ONYX_ASSIGN_OR_RETURN(Tensor zero1, zero.Reshaped({1}));
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  value.t.tensor = std::move(zero1);
  return ctx.b.Op1("ConstantOfShape", {shape64}, ctx.Name(tag), {std::move(value)});
}

// TruncatedNormal(shape): standard normal values, those beyond 2 drawn again. Rejection is spelled as kDraws
// independent candidates per element (one sampler over [kDraws, shape...]) and the first within [-2, 2] is kept:
// its distribution is the truncated normal except with probability 0.0455^12 < 1e-16 per element, where every
// candidate is rejected and the first one, clipped to [-2, 2], is used.
Status TruncatedNormal(OpContext& ctx) {
  constexpr int64_t kDraws = 12;
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(DataType type, TypeAttrOr(ctx, "dtype", DataType::kFloat));
  if (!IsFloatingPoint(type)) return Unsupported(ctx.node.Where() + ": dtype " + std::string(DataTypeName(type)));
  const std::string draws_shape =
      ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("draws"), {kDraws}), AsInt64(ctx, shape, "shape64")},
                ctx.Name("draws_shape"), {ir::IntAttr("axis", 0)});
  ONYX_ASSIGN_OR_RETURN(std::string like, ZerosOfShape(ctx, draws_shape, type, "like"));
  std::vector<ir::Attribute> attrs = {ir::IntAttr("dtype", static_cast<int64_t>(type))};
  AddSeed(ctx, &attrs);
  const std::string draws = ctx.b.Op1("RandomNormalLike", {like}, ctx.Name("candidates"), std::move(attrs));
  ONYX_ASSIGN_OR_RETURN(std::string two, ScalarConst(ctx, type, 2, "two"));
  ONYX_ASSIGN_OR_RETURN(std::string minus_two, ScalarConst(ctx, type, -2, "minus_two"));
  const std::string rejected =
      ctx.b.Op1("Greater", {ctx.b.Op1("Abs", {draws}, ctx.Name("magnitude")), two}, ctx.Name("rejected"));
  const std::string accepted =
      CastTo(ctx, ctx.b.Op1("Not", {rejected}, ctx.Name("accepted")), DataType::kInt32, "accepted_int");
  // ArgMax returns the first maximum: the first accepted candidate (or candidate 0 when none is).
  const std::string first =
      ctx.b.Op1("ArgMax", {accepted}, ctx.Name("first_accepted"), {ir::IntAttr("axis", 0), ir::IntAttr("keepdims", 1)});
  const std::string chosen = ctx.b.Op1("GatherElements", {draws, first}, ctx.Name("chosen"), {ir::IntAttr("axis", 0)});
  const std::string clipped = ctx.b.Op1("Clip", {chosen, minus_two, two}, ctx.Name("clipped"));
  ctx.SetOutput(0, ctx.b.Op1("Squeeze", {clipped, ctx.b.ConstInts(ctx.Name("draw_axis"), {0})}, ctx.Name()), type);
  return Status::Ok();
}

// RandomUniformInt(shape, minval, maxval): integers uniform in [minval, maxval) as minval + floor(u * (maxval -
// minval)) for u uniform in [0, 1) drawn in double (every int32 range is then reachable), capped at maxval - 1
// against rounding.
Status RandomUniformInt(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue lo, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue hi, ctx.Input(2));
  if (lo.type != DataType::kInt32 && lo.type != DataType::kInt64) {
    return InvalidArgument(ctx.node.Where() + ": minval of element type " + std::string(DataTypeName(lo.type)));
  }
  ONYX_ASSIGN_OR_RETURN(std::string like, ZerosOfShape(ctx, AsInt64(ctx, shape, "shape64"), DataType::kDouble, "like"));
  std::vector<ir::Attribute> attrs = {ir::IntAttr("dtype", static_cast<int64_t>(DataType::kDouble))};
  AddSeed(ctx, &attrs);
  const std::string u = ctx.b.Op1("RandomUniformLike", {like}, ctx.Name("uniform"), std::move(attrs));
  const std::string span = ctx.b.Op1("Sub", {hi.name, lo.name}, ctx.Name("span"));
  const std::string span_d = CastTo(ctx, span, DataType::kDouble, "span_double");
  const std::string scaled = ctx.b.Op1("Floor", {ctx.b.Op1("Mul", {u, span_d}, ctx.Name("scaled"))}, ctx.Name("floor"));
  const std::string top = ctx.b.Op1("Sub", {span_d, ctx.b.Constant(ctx.Name("one"), Tensor::Scalar<double>(1.0))},
                                    ctx.Name("largest_offset"));
  const std::string offset = CastTo(ctx, ctx.b.Op1("Min", {scaled, top}, ctx.Name("capped")), lo.type, "offset");
  ctx.SetOutput(0, ctx.b.Op1("Add", {offset, lo.name}, ctx.Name()), lo.type);
  return Status::Ok();
}

// Multinomial(logits [batch, classes], num_samples): ONNX Multinomial, whose sample_size is an attribute (a
// constant num_samples).
Status Multinomial(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue logits, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> n, ctx.ConstInts(1, "num_samples"));
  if (n.size() != 1) return InvalidArgument(ctx.node.Where() + ": num_samples is not a scalar");
  ONYX_ASSIGN_OR_RETURN(DataType out, TypeAttrOr(ctx, "output_dtype", DataType::kInt64));
  if (out != DataType::kInt32 && out != DataType::kInt64) {
    return InvalidArgument(ctx.node.Where() + ": output_dtype " + std::string(DataTypeName(out)));
  }
  std::vector<ir::Attribute> attrs = {ir::IntAttr("dtype", static_cast<int64_t>(out)),
                                      ir::IntAttr("sample_size", n[0])};
  AddSeed(ctx, &attrs);
  ctx.SetOutput(0, ctx.b.Op1("Multinomial", {logits.name}, ctx.Name(), std::move(attrs)), out);
  return Status::Ok();
}

}  // namespace

void AddRandomExtraOps(std::map<std::string, OpFn>& t) {
  t["TruncatedNormal"] = TruncatedNormal;
  t["RandomUniformInt"] = RandomUniformInt;
  t["Multinomial"] = Multinomial;
}

}  // namespace onyx::convert::tf
