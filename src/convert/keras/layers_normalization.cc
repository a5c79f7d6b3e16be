// BatchNormalization (channels-first ONNX BatchNormalization between Transposes) and LayerNormalization.
#include "convert/common/tensor_layout.h"
#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

// Keras writes axis as an int or a one-element list.
Result<std::vector<int64_t>> Axes(const LayerCall& c, int64_t rank) {
  std::vector<int64_t> axes;
  if (!c.config.contains("axis")) {
    axes.push_back(rank - 1);
  } else if (c.config["axis"].is_number_integer()) {
    axes.push_back(c.config["axis"].get<int64_t>());
  } else if (c.config["axis"].is_array()) {
    for (const auto& a : c.config["axis"]) {
      if (!a.is_number_integer()) return InvalidArgument(c.Where() + ": axis has a non-integer entry");
      axes.push_back(a.get<int64_t>());
    }
  } else {
    return InvalidArgument(c.Where() + ": invalid axis");
  }
  for (auto& a : axes) {
    if (a < 0) a += rank;
    if (a < 1 || a >= rank) return InvalidArgument(c.Where() + ": axis out of range");
  }
  return axes;
}

Result<std::vector<KTensor>> BatchNorm(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, Axes(c, x.rank()));
  if (axes.size() != 1) return Unsupported(c.Where() + ": normalization over several axes");
  const int64_t axis = axes[0];
  const bool scale = GetBoolOr(c.config, "scale", true), center = GetBoolOr(c.config, "center", true);
  size_t i = 0;
  Tensor gamma, beta;
  if (scale) {
    ONYX_ASSIGN_OR_RETURN(gamma, c.WeightAt(i++, "gamma"));
  }
  if (center) {
    ONYX_ASSIGN_OR_RETURN(beta, c.WeightAt(i++, "beta"));
  }
  ONYX_ASSIGN_OR_RETURN(Tensor mean, c.WeightAt(i++, "moving_mean"));
  ONYX_ASSIGN_OR_RETURN(Tensor var, c.WeightAt(i++, "moving_variance"));
  const int64_t ch = mean.size();
  if (!scale) gamma = Tensor::FromVector<float>(std::vector<float>(static_cast<size_t>(ch), 1.0f), {ch});
  if (!center) beta = Tensor::FromVector<float>(std::vector<float>(static_cast<size_t>(ch), 0.0f), {ch});
  if (gamma.size() != ch || beta.size() != ch || var.size() != ch) {
    return InvalidArgument(c.Where() + ": gamma/beta/mean/variance sizes differ");
  }
  GraphBuilder& b = ctx.b;
  // Move the normalized axis to position 1 (the channels-first layout for the usual last axis).
  std::vector<int64_t> perm{0, axis};
  for (int64_t d = 1; d < x.rank(); ++d) {
    if (d != axis) perm.push_back(d);
  }
  std::string in = x.value;
  if (!IsIdentityPerm(perm)) in = b.Op1("Transpose", {in}, c.name + "/to_nchw", {ir::IntsAttr("perm", perm)});
  std::string y = b.Op1("BatchNormalization",
                        {in, b.Constant(c.name + "/gamma", gamma), b.Constant(c.name + "/beta", beta),
                         b.Constant(c.name + "/moving_mean", mean), b.Constant(c.name + "/moving_variance", var)},
                        c.name + "/BatchNormalization",
                        {ir::FloatAttr("epsilon", static_cast<float>(GetFloatOr(c.config, "epsilon", 1e-3)))});
  if (!IsIdentityPerm(perm))
    y = b.Op1("Transpose", {y}, c.name + "/to_nhwc", {ir::IntsAttr("perm", InversePerm(perm))});
  return std::vector<KTensor>{KTensor{y, x.shape, x.type}};
}

Result<std::vector<KTensor>> LayerNorm(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  const KTensor& x = c.inputs[0];
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, Axes(c, x.rank()));
  std::sort(axes.begin(), axes.end());
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k] != x.rank() - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(k)) {
      return Unsupported(c.Where() + ": normalization over axes that are not the trailing ones");
    }
  }
  Shape pshape;
  for (int64_t a : axes) {
    if (x.shape[static_cast<size_t>(a)] < 0) return Unsupported(c.Where() + ": normalized axes of unknown size");
    pshape.push_back(x.shape[static_cast<size_t>(a)]);
  }
  const int64_t count = NumElements(pshape);
  const bool scale = GetBoolOr(c.config, "scale", true), center = GetBoolOr(c.config, "center", true);
  size_t i = 0;
  Tensor gamma = Tensor::FromVector<float>(std::vector<float>(static_cast<size_t>(count), 1.0f), pshape);
  Tensor beta = Tensor::FromVector<float>(std::vector<float>(static_cast<size_t>(count), 0.0f), pshape);
  if (scale) {
    ONYX_ASSIGN_OR_RETURN(gamma, c.WeightAt(i++, "gamma"));
  }
  if (center) {
    ONYX_ASSIGN_OR_RETURN(beta, c.WeightAt(i++, "beta"));
  }
  if (gamma.size() != count || beta.size() != count)
    return InvalidArgument(c.Where() + ": gamma/beta have the wrong size");
  ONYX_ASSIGN_OR_RETURN(gamma, gamma.Reshaped(pshape));
  ONYX_ASSIGN_OR_RETURN(beta, beta.Reshaped(pshape));
  const float eps = static_cast<float>(GetFloatOr(c.config, "epsilon", 1e-3));
  GraphBuilder& b = ctx.b;
  std::string g = b.Constant(c.name + "/gamma", gamma), be = b.Constant(c.name + "/beta", beta);
  if (ctx.options.opset >= 17) {
    std::string y = b.Op1("LayerNormalization", {x.value, g, be}, c.name,
                          {ir::IntAttr("axis", axes[0]), ir::FloatAttr("epsilon", eps)});
    return std::vector<KTensor>{KTensor{y, x.shape, x.type}};
  }
  // Before opset 17: mean, variance, normalize, scale and shift.
  auto reduce_mean = [&](const std::string& v, const std::string& n) {
    return b.Op1("ReduceMean", {v}, n, {ir::IntsAttr("axes", axes), ir::IntAttr("keepdims", 1)});
  };
  std::string d = b.Op1("Sub", {x.value, reduce_mean(x.value, c.name + "/mean")}, c.name + "/center");
  std::string var = reduce_mean(b.Op1("Mul", {d, d}, c.name + "/sq"), c.name + "/variance");
  std::string sd =
      b.Op1("Sqrt", {b.Op1("Add", {var, b.ConstFloat(c.name + "/eps", eps)}, c.name + "/add_eps")}, c.name + "/std");
  std::string y = b.Op1("Add", {b.Op1("Mul", {b.Op1("Div", {d, sd}, c.name + "/normalize"), g}, c.name + "/scale"), be},
                        c.name + "/shift");
  return std::vector<KTensor>{KTensor{y, x.shape, x.type}};
}

}  // namespace

void RegisterNormalizationLayers(LayerTable& t) {
  t["BatchNormalization"] = BatchNorm;
  t["LayerNormalization"] = LayerNorm;
}

}  // namespace onyx::convert::keras
