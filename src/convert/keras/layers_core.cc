// Core layers: Dense, Embedding, Rescaling, Normalization (preprocessing), Masking, and the layers that are
// the identity at inference (Dropout and the noise layers).
#include <cmath>

#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

Status ExpectInputs(const LayerCall& c, size_t n) {
  if (c.inputs.size() != n) {
    return InvalidArgument(c.Where() + ": expects " + std::to_string(n) + " input(s), got " +
                           std::to_string(c.inputs.size()));
  }
  return Status::Ok();
}

Result<std::vector<KTensor>> Dense(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectInputs(c, 1));
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(Tensor kernel, c.WeightAt(0, "kernel"));
  if (kernel.rank() != 2 || (x.shape.back() >= 0 && kernel.dim(0) != x.shape.back())) {
    return InvalidArgument(c.Where() + ": kernel shape " + ShapeToString(kernel.shape()) +
                           " does not fit an input with " + std::to_string(x.shape.back()) + " features");
  }
  std::string y = ctx.b.Op1("MatMul", {x.value, ctx.b.Constant(c.name + "/kernel", kernel)}, c.name + "/MatMul");
  if (GetBoolOr(c.config, "use_bias", true)) {
    ONYX_ASSIGN_OR_RETURN(Tensor bias, c.WeightAt(1, "bias"));
    y = ctx.b.Op1("Add", {y, ctx.b.Constant(c.name + "/bias", bias)}, c.name + "/BiasAdd");
  }
  KTensor out{y, x.shape, DataType::kFloat};
  out.shape.back() = kernel.dim(1);
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c.config, "activation", c.Where()));
  auto r = ApplyActivation(ctx, act, out, c.name);
  if (!r.ok()) return r.status().WithContext(c.Where());
  return std::vector<KTensor>{*r};
}

Result<std::vector<KTensor>> Identity(Context&, const LayerCall& c) {
  if (c.inputs.empty()) return InvalidArgument(c.Where() + ": no input");
  return std::vector<KTensor>{c.inputs[0]};
}

Result<std::vector<KTensor>> Embedding(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectInputs(c, 1));
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(Tensor table, c.WeightAt(0, "embeddings"));
  if (table.rank() != 2) return InvalidArgument(c.Where() + ": embeddings must be a matrix");
  std::string ids =
      ctx.b.Op1("Cast", {x.value}, c.name + "/ids", {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
  std::string y = ctx.b.Op1("Gather", {ctx.b.Constant(c.name + "/embeddings", table), ids}, c.name + "/Gather");
  KTensor out{y, x.shape, DataType::kFloat};
  out.shape.push_back(table.dim(1));
  if (GetBoolOr(c.config, "mask_zero", false)) {  // Keras: mask = ids != 0
    out.mask = ctx.b.Op1(
        "Not",
        {ctx.b.Op1("Equal", {ids, ctx.b.Constant(c.name + "/zero", Tensor::Scalar<int64_t>(0))}, c.name + "/is_pad")},
        c.name + "/mask");
    out.mask_origin = c.name;
  }
  return std::vector<KTensor>{out};
}

// A per-channel (or scalar) constant from a config number or list, shaped to broadcast over the last axis.
Tensor ChannelConstant(const nlohmann::json& v, double fallback, int64_t rank) {
  std::vector<float> vals;
  if (v.is_number()) vals.push_back(v.get<float>());
  if (v.is_array()) {
    for (const auto& e : v) vals.push_back(e.is_number() ? e.get<float>() : 0.0f);
  }
  if (vals.empty()) vals.push_back(static_cast<float>(fallback));
  if (vals.size() == 1) return Tensor::Scalar<float>(vals[0]);
  Shape s(static_cast<size_t>(std::max<int64_t>(rank, 1)), 1);
  s.back() = static_cast<int64_t>(vals.size());
  return Tensor::FromVector<float>(vals, s);
}

Result<std::vector<KTensor>> Rescaling(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectInputs(c, 1));
  const KTensor& x = c.inputs[0];
  std::string y = x.value;
  if (x.type != DataType::kFloat) {
    y = ctx.b.Op1("Cast", {y}, c.name + "/cast", {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  }
  const nlohmann::json none;
  y = ctx.b.Op1(
      "Mul",
      {y, ctx.b.Constant(c.name + "/scale",
                         ChannelConstant(c.config.contains("scale") ? c.config["scale"] : none, 1.0, x.rank()))},
      c.name + "/scale");
  y = ctx.b.Op1(
      "Add",
      {y, ctx.b.Constant(c.name + "/offset",
                         ChannelConstant(c.config.contains("offset") ? c.config["offset"] : none, 0.0, x.rank()))},
      c.name + "/offset");
  return std::vector<KTensor>{KTensor{y, x.shape, DataType::kFloat}};
}

// Normalization (preprocessing): (x - mean) / max(sqrt(variance), 1e-7), or its inverse when `invert`.
Result<std::vector<KTensor>> Normalization(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectInputs(c, 1));
  const KTensor& x = c.inputs[0];
  Tensor mean, var;
  if (HasNonNull(c.config, "mean") && HasNonNull(c.config, "variance")) {
    mean = ChannelConstant(c.config["mean"], 0.0, 1);
    var = ChannelConstant(c.config["variance"], 1.0, 1);
  } else {
    ONYX_ASSIGN_OR_RETURN(mean, c.WeightAt(0, "mean"));
    ONYX_ASSIGN_OR_RETURN(var, c.WeightAt(1, "variance"));
  }
  if (mean.size() != var.size()) return InvalidArgument(c.Where() + ": mean and variance differ in size");
  if (c.config.contains("axis") && c.config["axis"].is_array() && c.config["axis"].size() > 1) {
    return Unsupported(c.Where() + ": normalization over several axes");
  }
  int64_t axis = -1;
  if (c.config.contains("axis")) {
    const auto& a = c.config["axis"];
    if (a.is_number_integer()) axis = a.get<int64_t>();
    if (a.is_array() && a.size() == 1 && a[0].is_number_integer()) axis = a[0].get<int64_t>();
  }
  if (axis < 0) axis += x.rank();
  Shape bshape(static_cast<size_t>(x.rank()), 1);
  if (mean.size() > 1) {
    if (axis <= 0 || axis >= x.rank()) return InvalidArgument(c.Where() + ": axis out of range");
    bshape[static_cast<size_t>(axis)] = mean.size();
  }
  Tensor m = Tensor::Allocate(DataType::kFloat, bshape), s = Tensor::Allocate(DataType::kFloat, bshape);
  const bool invert = GetBoolOr(c.config, "invert", false);
  for (int64_t i = 0; i < mean.size(); ++i) {
    const float sd = std::max(std::sqrt(static_cast<float>(var.DoubleAt(i))), 1e-7f);
    m.data<float>()[i] = static_cast<float>(mean.DoubleAt(i));
    s.data<float>()[i] = invert ? sd : 1.0f / sd;
  }
  std::string y;
  if (invert) {
    y = ctx.b.Op1("Add",
                  {ctx.b.Op1("Mul", {x.value, ctx.b.Constant(c.name + "/std", s)}, c.name + "/scale"),
                   ctx.b.Constant(c.name + "/mean", m)},
                  c.name + "/shift");
  } else {
    y = ctx.b.Op1("Mul",
                  {ctx.b.Op1("Sub", {x.value, ctx.b.Constant(c.name + "/mean", m)}, c.name + "/center"),
                   ctx.b.Constant(c.name + "/inv_std", s)},
                  c.name + "/scale");
  }
  return std::vector<KTensor>{KTensor{y, x.shape, DataType::kFloat}};
}

// Masking's output: x * any(x != mask_value, axis=-1), and the mask it attaches.
Result<std::vector<KTensor>> Masking(Context& ctx, const LayerCall& c) {
  ONYX_RETURN_IF_ERROR(ExpectInputs(c, 1));
  const KTensor& x = c.inputs[0];
  GraphBuilder& b = ctx.b;
  std::string mv = b.ConstFloat(c.name + "/mask_value", static_cast<float>(GetFloatOr(c.config, "mask_value", 0.0)));
  std::string keep = b.Op1("Not", {b.Op1("Equal", {x.value, mv}, c.name + "/equal")}, c.name + "/not");
  std::string keepf =
      b.Op1("Cast", {keep}, c.name + "/cast", {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  std::string any;
  if (ctx.options.opset >= 18) {
    any =
        b.Op1("ReduceMax", {keepf, b.ConstInts(c.name + "/axes", {-1})}, c.name + "/any", {ir::IntAttr("keepdims", 1)});
  } else {
    any = b.Op1("ReduceMax", {keepf}, c.name + "/any", {ir::IntsAttr("axes", {-1}), ir::IntAttr("keepdims", 1)});
  }
  KTensor out{b.Op1("Mul", {x.value, any}, c.name), x.shape, x.type};
  // The mask Keras attaches: any(x != mask_value, axis=-1), [batch, time] for a [batch, time, features] input.
  out.mask = b.Op1("Cast", {b.Op1("Squeeze", {any, b.ConstInts(c.name + "/mask_axes", {-1})}, c.name + "/any_steps")},
                   c.name + "/mask", {ir::IntAttr("to", static_cast<int64_t>(DataType::kBool))});
  out.mask_origin = c.name;
  return std::vector<KTensor>{out};
}

}  // namespace

void RegisterCoreLayers(LayerTable& t) {
  t["Dense"] = Dense;
  t["Embedding"] = Embedding;
  t["Rescaling"] = Rescaling;
  t["Normalization"] = Normalization;
  t["Masking"] = Masking;
  for (const char* name : {"Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianDropout",
                           "GaussianNoise", "AlphaDropout", "ActivityRegularization"}) {
    t[name] = Identity;
  }
}

}  // namespace onyx::convert::keras
