// Simulated quantization: QuantizeAndDequantizeV2/V3/V4 (one scale for the whole tensor) and
// FakeQuantWithMinMaxVarsPerChannel (constant per-channel ranges along the last axis), in float32 as TF's
// kernels compute them (quantize_and_dequantize_op.h, fake_quant_ops_functor.h).
#include <cmath>
#include <limits>

#include "convert/tf/emit.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {
namespace {

// QuantizeAndDequantize: the range [lo, hi] (the inputs when range_given, else the tensor's min and max) maps to
// the integers [qmin, qmax] by one scale keeping 0 at 0, chosen from the side that limits it:
//   from_min = qmin * lo > 0 ? qmin / lo : FLT_MAX,   from_max = qmax * hi > 0 ? qmax / hi : FLT_MAX
//   from_min < from_max: scale = from_min, inverse = lo / qmin, hi = qmax * inverse
//   otherwise:           scale = from_max, inverse = hi / qmax, lo = qmin * inverse
//   out = round((range_given ? clamp(x, lo, hi) : x) * scale) * inverse
// with round half to even, or half up (floor(v + 0.5)) for round_mode HALF_UP.
Status ConvertQuantizeAndDequantize(OpContext& ctx, bool bits_input) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (x.type != DataType::kFloat && x.type != DataType::kDouble && x.type != DataType::kFloat16) {
    return Unsupported(ctx.node.Where() + ": element type " + std::string(DataTypeName(x.type)));
  }
  if (ctx.node.IntOr("axis", -1) != -1) {
    return Unsupported(ctx.node.Where() + ": per-channel ranges (axis " + std::to_string(ctx.node.IntOr("axis", -1)) +
                       "); only one range for the whole tensor (axis -1)");
  }
  int64_t num_bits = ctx.node.IntOr("num_bits", 8);
  if (bits_input) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> bits, ctx.ConstInts(3, "num_bits"));
    if (bits.size() != 1) return InvalidArgument(ctx.node.Where() + ": num_bits must be a scalar");
    num_bits = bits[0];
  }
  const bool signed_input = ctx.node.BoolOr("signed_input", true);
  if (num_bits < 1 || num_bits > (signed_input ? 63 : 62)) {
    return InvalidArgument(ctx.node.Where() + ": num_bits " + std::to_string(num_bits) + " out of range");
  }
  const bool narrow = ctx.node.BoolOr("narrow_range", false);
  const bool range_given = ctx.node.BoolOr("range_given", bits_input);  // V3 defaults to a given range
  const std::string round_mode = ctx.node.StringOr("round_mode", "HALF_TO_EVEN");
  if (round_mode != "HALF_TO_EVEN" && round_mode != "HALF_UP") {
    return Unsupported(ctx.node.Where() + ": round_mode '" + round_mode + "'");
  }
  const int64_t half = int64_t{1} << (num_bits - 1);
  const double qmin = signed_input ? static_cast<double>(narrow ? -half + 1 : -half) : 0.0;
  const double qmax = signed_input ? static_cast<double>(half - 1) : static_cast<double>((int64_t{1} << num_bits) - 1);
  const DataType t = x.type;
  auto scalar = [&](double v, const std::string& tag) { return ScalarConst(ctx, t, v, tag); };
  std::string lo, hi;
  if (range_given) {
    ONYX_ASSIGN_OR_RETURN(TfValue lo_in, ctx.Input(1));
    ONYX_ASSIGN_OR_RETURN(TfValue hi_in, ctx.Input(2));
    lo = AsType(ctx, lo_in, t, "input_min");
    hi = AsType(ctx, hi_in, t, "input_max");
  } else {
    lo = ctx.b.Op1("ReduceMin", {x.name}, ctx.Name("input_min"), {ir::IntAttr("keepdims", 0)});
    hi = ctx.b.Op1("ReduceMax", {x.name}, ctx.Name("input_max"), {ir::IntAttr("keepdims", 0)});
  }
  ONYX_ASSIGN_OR_RETURN(std::string q_lo, scalar(qmin, "qmin"));
  ONYX_ASSIGN_OR_RETURN(std::string q_hi, scalar(qmax, "qmax"));
  ONYX_ASSIGN_OR_RETURN(std::string zero, scalar(0, "zero"));
  ONYX_ASSIGN_OR_RETURN(std::string biggest, scalar(t == DataType::kDouble    ? std::numeric_limits<double>::max()
                                                    : t == DataType::kFloat16 ? 65504.0
                                                                              : std::numeric_limits<float>::max(),
                                                    "type_max"));
  auto side = [&](const std::string& q, const std::string& r, const std::string& tag) {
    const std::string positive =
        ctx.b.Op1("Greater", {ctx.b.Op1("Mul", {q, r}, ctx.Name(tag + "_product")), zero}, ctx.Name(tag + "_positive"));
    return ctx.b.Op1("Where", {positive, ctx.b.Op1("Div", {q, r}, ctx.Name(tag + "_ratio")), biggest},
                     ctx.Name(tag + "_scale"));
  };
  const std::string from_min = side(q_lo, lo, "from_min");
  const std::string from_max = side(q_hi, hi, "from_max");
  const std::string by_min = ctx.b.Op1("Less", {from_min, from_max}, ctx.Name("by_min"));
  const std::string scale = ctx.b.Op1("Where", {by_min, from_min, from_max}, ctx.Name("scale"));
  const std::string inverse = ctx.b.Op1("Where",
                                        {by_min, ctx.b.Op1("Div", {lo, q_lo}, ctx.Name("inverse_from_min")),
                                         ctx.b.Op1("Div", {hi, q_hi}, ctx.Name("inverse_from_max"))},
                                        ctx.Name("inverse"));
  std::string v = x.name;
  if (range_given) {
    const std::string new_lo = ctx.b.Op1(
        "Where", {by_min, lo, ctx.b.Op1("Mul", {q_lo, inverse}, ctx.Name("lo_from_max"))}, ctx.Name("range_min"));
    const std::string new_hi = ctx.b.Op1(
        "Where", {by_min, ctx.b.Op1("Mul", {q_hi, inverse}, ctx.Name("hi_from_min")), hi}, ctx.Name("range_max"));
    v = ctx.b.Op1("Max", {ctx.b.Op1("Min", {v, new_hi}, ctx.Name("below_max")), new_lo}, ctx.Name("clamped"));
  }
  const std::string scaled = ctx.b.Op1("Mul", {v, scale}, ctx.Name("scaled"));
  std::string rounded;
  if (round_mode == "HALF_UP") {
    ONYX_ASSIGN_OR_RETURN(std::string point_five, scalar(0.5, "half"));
    rounded = ctx.b.Op1("Floor", {ctx.b.Op1("Add", {scaled, point_five}, ctx.Name("plus_half"))}, ctx.Name("rounded"));
  } else {
    rounded = ctx.b.Op1("Round", {scaled}, ctx.Name("rounded"));  // ONNX Round: half to even
  }
  ctx.SetOutput(0, ctx.b.Op1("Mul", {rounded, inverse}, ctx.Name()), t);
  return Status::Ok();
}

Status QuantizeAndDequantizeV2(OpContext& ctx) { return ConvertQuantizeAndDequantize(ctx, false); }
Status QuantizeAndDequantizeV3(OpContext& ctx) { return ConvertQuantizeAndDequantize(ctx, true); }

// FakeQuantWithMinMaxVarsPerChannel(x [..., d], min [d], max [d]): FakeQuantWithMinMaxVars per channel of the
// last axis. Each channel's range is nudged so that 0 is on the grid of 2^num_bits - 1 (or - 2) steps, then
//   out = floor((clamp(x, nudged_min, nudged_max) - nudged_min) / scale + 0.5) * scale + nudged_min
// (min and max are constants: the nudged ranges are computed here, as [d] vectors).
Status FakeQuantWithMinMaxVarsPerChannel(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (x.type != DataType::kFloat) return Unsupported(ctx.node.Where() + ": element type other than float32");
  ONYX_ASSIGN_OR_RETURN(Tensor tmin, ctx.ConstInput(1, "min"));
  ONYX_ASSIGN_OR_RETURN(Tensor tmax, ctx.ConstInput(2, "max"));
  if (tmin.size() != tmax.size() || tmin.size() == 0) {
    return InvalidArgument(ctx.node.Where() + ": min and max must be [d] vectors of one size");
  }
  const int64_t num_bits = ctx.node.IntOr("num_bits", 8);
  if (num_bits < 2 || num_bits > 16) return InvalidArgument(ctx.node.Where() + ": num_bits must be in 2..16");
  const float quant_min = ctx.node.BoolOr("narrow_range", false) ? 1.0f : 0.0f;
  const float quant_max = static_cast<float>((int64_t{1} << num_bits) - 1);
  const size_t d = static_cast<size_t>(tmin.size());
  std::vector<float> nudged_min(d), nudged_max(d), scale(d);
  for (size_t i = 0; i < d; ++i) {
    const float min = static_cast<float>(tmin.DoubleAt(static_cast<int64_t>(i)));
    const float max = static_cast<float>(tmax.DoubleAt(static_cast<int64_t>(i)));
    if (!(min <= max)) return InvalidArgument(ctx.node.Where() + ": min must not exceed max");
    if (min == max) {  // TF's kernel divides by a zero scale here; only 0 == 0 is meaningful: all zeros
      if (min != 0.0f) return InvalidArgument(ctx.node.Where() + ": a channel has min == max != 0");
      nudged_min[i] = nudged_max[i] = 0.0f;
      scale[i] = 1.0f;
      continue;
    }
    scale[i] = (max - min) / (quant_max - quant_min);
    const float zero_from_min = quant_min - min / scale[i];
    const float zero = zero_from_min < quant_min   ? quant_min
                       : zero_from_min > quant_max ? quant_max
                                                   : std::round(zero_from_min);
    nudged_min[i] = (quant_min - zero) * scale[i];
    nudged_max[i] = (quant_max - zero) * scale[i];
  }
  auto vec = [&](const std::vector<float>& v, const std::string& tag) {
    return ctx.b.Constant(ctx.Name(tag), Tensor::FromVector<float>(v, {static_cast<int64_t>(d)}));
  };
  const std::string lo = vec(nudged_min, "nudged_min");
  const std::string clamped =
      ctx.b.Op1("Max", {ctx.b.Op1("Min", {x.name, vec(nudged_max, "nudged_max")}, ctx.Name("below_max")), lo},
                ctx.Name("clamped"));
  const std::string s = vec(scale, "scale");
  const std::string steps =
      ctx.b.Op1("Div", {ctx.b.Op1("Sub", {clamped, lo}, ctx.Name("shifted")), s}, ctx.Name("steps"));
  const std::string level =
      ctx.b.Op1("Floor", {ctx.b.Op1("Add", {steps, ctx.b.ConstFloat(ctx.Name("half"), 0.5f)}, ctx.Name("plus_half"))},
                ctx.Name("level"));
  ctx.SetOutput(0, ctx.b.Op1("Add", {ctx.b.Op1("Mul", {level, s}, ctx.Name("rescaled")), lo}, ctx.Name()), x.type);
  return Status::Ok();
}

}  // namespace

void AddQuantizeOps(std::map<std::string, OpFn>& table) {
  table["QuantizeAndDequantizeV2"] = QuantizeAndDequantizeV2;
  table["QuantizeAndDequantizeV3"] = QuantizeAndDequantizeV3;
  table["QuantizeAndDequantizeV4"] =
      QuantizeAndDequantizeV2;  // V2's inputs and attributes (V4 differs in its gradient)
  table["FakeQuantWithMinMaxVarsPerChannel"] = FakeQuantWithMinMaxVarsPerChannel;
}

}  // namespace onyx::convert::tf
