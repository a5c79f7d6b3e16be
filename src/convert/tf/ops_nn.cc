// Neural-network operators that are not convolutions or products: BiasAdd, inference batch normalization, LRN,
// Softmax. Convolutions and pooling are in ops_conv.cc, matrix products in ops_matrix.cc; AddNnOps registers all.
#include "convert/common/tensor_layout.h"
#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

// BiasAdd adds along the last (channel) axis: ONNX broadcasting does the same.
Status BiasAdd(OpContext& ctx) {
  ONYX_RETURN_IF_ERROR(RequireFormat(ctx, "NHWC"));
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue bias, ctx.Input(1));
  ctx.SetOutput(0, ctx.b.Op1("Add", {x.name, bias.name}, ctx.Name("bias_add")), x.type);
  return Status::Ok();
}

// FusedBatchNorm / V2 / V3 at inference (is_training false): x * multiplier + bias per channel, with
// multiplier = scale / sqrt(variance + epsilon) and bias = offset - mean * multiplier. Constant parameters are
// folded here; computed ones are combined at run time. NHWC only: the channel is the last axis.
Status FusedBatchNorm(OpContext& ctx) {
  ONYX_RETURN_IF_ERROR(RequireFormat(ctx, "NHWC"));
  if (ctx.node.BoolOr("is_training", false)) return Unsupported(ctx.node.Where() + ": is_training (batch statistics)");
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  bool all_constant = true;
  std::vector<std::string> params;
  for (size_t k = 1; k <= 4; ++k) {
    ONYX_ASSIGN_OR_RETURN(TfValue p, ctx.Input(k));
    all_constant = all_constant && p.constant != nullptr;
    params.push_back(p.name);
  }
  std::string multiplier, bias;
  if (all_constant) {
    std::vector<float> m, b;
    ONYX_RETURN_IF_ERROR(BatchNormAsAffine(ctx, 1, &m, &b));
    const int64_t c = static_cast<int64_t>(m.size());
    multiplier = ctx.b.Constant(ctx.Name("multiplier"), Tensor::FromVector<float>(m, {c}));
    bias = ctx.b.Constant(ctx.Name("bias"), Tensor::FromVector<float>(b, {c}));
  } else {
    const std::string var_eps =
        ctx.b.Op1("Add", {params[3], ctx.b.ConstFloat(ctx.Name("epsilon"), ctx.node.FloatOr("epsilon", 1e-3f))},
                  ctx.Name("variance_eps"));
    multiplier =
        ctx.b.Op1("Div", {params[0], ctx.b.Op1("Sqrt", {var_eps}, ctx.Name("stddev"))}, ctx.Name("multiplier"));
    bias = ctx.b.Op1("Sub", {params[1], ctx.b.Op1("Mul", {params[2], multiplier}, ctx.Name("mean_scaled"))},
                     ctx.Name("bias"));
  }
  const std::string scaled = ctx.b.Op1("Mul", {x.name, multiplier}, ctx.Name("scale"));
  ctx.SetOutput(0, ctx.b.Op1("Add", {scaled, bias}, ctx.Name()), x.type);
  return Status::Ok();
}

// LRN over the last axis of an NHWC tensor. TF: x / (bias + alpha * sum(x[c - r .. c + r]^2))^beta with
// r = depth_radius. ONNX LRN (on axis 1): x / (bias + alpha / size * sum over the `size` window)^beta, the window
// [c - (size - 1) / 2, c + size / 2 rounded up]; size = 2r + 1 gives the same window and alpha * size the same
// factor.
Status Lrn(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  const int64_t radius = ctx.node.IntOr("depth_radius", 5);
  if (radius < 0) return InvalidArgument(ctx.node.Where() + ": depth_radius is negative");
  const int64_t size = 2 * radius + 1;
  const float alpha = ctx.node.FloatOr("alpha", 1.0f), beta = ctx.node.FloatOr("beta", 0.5f);
  const float bias = ctx.node.FloatOr("bias", 1.0f);
  const std::string y = ctx.b.Op1("LRN", {Transposed(ctx, x.name, ToChannelsFirst(4), "to_nchw")}, ctx.Name("lrn"),
                                  {ir::IntAttr("size", size), ir::FloatAttr("alpha", alpha * static_cast<float>(size)),
                                   ir::FloatAttr("beta", beta), ir::FloatAttr("bias", bias)});
  ctx.SetOutput(0, Transposed(ctx, y, ToChannelsLast(4), "to_nhwc"), x.type);
  return Status::Ok();
}

// Softmax over the last axis, any rank (ONNX Softmax from opset 13 normalizes along `axis` alone).
Status Softmax(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Softmax", {x.name}, ctx.Name("softmax"), {ir::IntAttr("axis", -1)}), x.type);
  return Status::Ok();
}

}  // namespace

void AddNnOps(std::map<std::string, OpFn>& t) {
  AddConvOps(t);
  AddMatrixOps(t);
  t["BiasAdd"] = BiasAdd;
  t["FusedBatchNorm"] = FusedBatchNorm;
  t["FusedBatchNormV2"] = FusedBatchNorm;
  t["FusedBatchNormV3"] = FusedBatchNorm;
  t["LRN"] = Lrn;
  t["Softmax"] = Softmax;
}

}  // namespace onyx::convert::tf
