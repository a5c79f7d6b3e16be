#include "convert/tf/nn_common.h"

#include <cmath>

#include "convert/common/tensor_layout.h"

namespace onyx::convert::tf {

std::string Transposed(OpContext& ctx, const std::string& v, const std::vector<int64_t>& perm, const char* what) {
  return ctx.b.Op1("Transpose", {v}, ctx.Name(what), {ir::IntsAttr("perm", perm)});
}

Status RequireFormat(const OpContext& ctx, const std::string& expected) {
  const std::string format = ctx.node.StringOr("data_format", expected);
  if (format != expected) {
    return Unsupported(ctx.node.Where() + ": data_format " + format + " (only " + expected + ")");
  }
  return Status::Ok();
}

Result<std::vector<int64_t>> SpatialAttr(const OpContext& ctx, const std::string& key, size_t spatial_rank,
                                         int64_t fallback) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.node.Ints(key));
  if (v.empty()) return std::vector<int64_t>(spatial_rank, fallback);
  if (v.size() != spatial_rank + 2) {
    return InvalidArgument(ctx.node.Where() + ": '" + key + "' has " + std::to_string(v.size()) +
                           " entries, expected " + std::to_string(spatial_rank + 2));
  }
  for (int64_t x : v) {
    if (x < 1) return InvalidArgument(ctx.node.Where() + ": '" + key + "' has an entry below 1");
  }
  return std::vector<int64_t>(v.begin() + 1, v.end() - 1);
}

Status AddPadding(const OpContext& ctx, size_t spatial_rank, std::vector<ir::Attribute>* attrs) {
  ONYX_ASSIGN_OR_RETURN(std::string padding, ctx.node.String("padding"));
  if (padding == "SAME") {
    attrs->push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
  } else if (padding == "VALID") {
    attrs->push_back(ir::IntsAttr("pads", std::vector<int64_t>(2 * spatial_rank, 0)));
  } else if (padding == "EXPLICIT") {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> p, ctx.node.Ints("explicit_paddings"));
    if (p.size() != 2 * (spatial_rank + 2)) {
      return InvalidArgument(ctx.node.Where() + ": explicit_paddings has " + std::to_string(p.size()) +
                             " entries, expected " + std::to_string(2 * (spatial_rank + 2)));
    }
    std::vector<int64_t> pads(2 * spatial_rank);
    for (size_t d = 0; d < spatial_rank; ++d) {
      pads[d] = p[2 * (d + 1)];
      pads[spatial_rank + d] = p[2 * (d + 1) + 1];
    }
    for (int64_t x : pads) {
      if (x < 0) return InvalidArgument(ctx.node.Where() + ": explicit_paddings has a negative entry");
    }
    attrs->push_back(ir::IntsAttr("pads", pads));
  } else {
    return Unsupported(ctx.node.Where() + ": padding '" + padding + "'");
  }
  return Status::Ok();
}

Status BatchNormAsAffine(const OpContext& ctx, size_t first, std::vector<float>* multiplier, std::vector<float>* bias) {
  std::vector<std::vector<float>> v;
  for (size_t k = 0; k < 4; ++k) {
    static const char* const kWhat[] = {"scale", "offset", "mean", "variance"};
    ONYX_ASSIGN_OR_RETURN(Tensor t, ctx.ConstInput(first + k, kWhat[k]));
    ONYX_ASSIGN_OR_RETURN(t, ToFloat32(t));
    v.emplace_back(t.data<float>(), t.data<float>() + t.size());
  }
  const size_t c = v[0].size();
  for (const auto& x : v) {
    if (x.size() != c) return InvalidArgument(ctx.node.Where() + ": batch-norm parameters differ in length");
  }
  const float epsilon = ctx.node.FloatOr("epsilon", 1e-3f);
  multiplier->resize(c);
  bias->resize(c);
  for (size_t i = 0; i < c; ++i) {
    (*multiplier)[i] = v[0][i] / std::sqrt(v[3][i] + epsilon);
    (*bias)[i] = v[1][i] - v[2][i] * (*multiplier)[i];
  }
  return Status::Ok();
}

// TF's kernels accept BiasAdd or FusedBatchNorm first, then at most one activation; a lone activation is not a
// form TF's fusion writes (and TF.js would drop it), so it is refused.
Result<Fused> FusedOps(const OpContext& ctx, size_t first_arg) {
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> ops, ctx.node.Strings("fused_ops"));
  Fused f;
  size_t k = 0;
  size_t next_arg = first_arg;
  if (k < ops.size() && ops[k] == "BiasAdd") {
    ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(next_arg++));
    f.bias_value = b.name;
    ++k;
  } else if (k < ops.size() && ops[k] == "FusedBatchNorm") {
    ONYX_RETURN_IF_ERROR(BatchNormAsAffine(ctx, next_arg, &f.bn_multiplier, &f.bn_bias));
    next_arg += 4;
    ++k;
  }
  const bool any_first = k > 0;
  if (k < ops.size()) f.activation = ops[k++];
  if (k < ops.size() || (!ops.empty() && !any_first)) {
    std::string list;
    for (const auto& o : ops) list += (list.empty() ? "" : ", ") + o;
    return Unsupported(ctx.node.Where() + ": fused_ops [" + list +
                       "] (supported: BiasAdd or FusedBatchNorm, then at most one activation)");
  }
  if (f.activation == "Prelu") {
    ONYX_ASSIGN_OR_RETURN(TfValue alpha, ctx.Input(next_arg));
    f.prelu_alpha = alpha.name;
  }
  return f;
}

Result<std::string> ApplyActivation(OpContext& ctx, const Fused& f, const std::string& v) {
  const std::string& kind = f.activation;
  if (kind.empty()) return v;
  if (kind == "Relu") return ctx.b.Op1("Relu", {v}, ctx.Name("relu"));
  if (kind == "Relu6") {
    return ctx.b.Op1("Clip", {v, ctx.b.ConstFloat(ctx.Name("zero"), 0.0f), ctx.b.ConstFloat(ctx.Name("six"), 6.0f)},
                     ctx.Name("relu6"));
  }
  if (kind == "Elu") return ctx.b.Op1("Elu", {v}, ctx.Name("elu"));
  if (kind == "Tanh") return ctx.b.Op1("Tanh", {v}, ctx.Name("tanh"));
  if (kind == "Sigmoid") return ctx.b.Op1("Sigmoid", {v}, ctx.Name("sigmoid"));
  if (kind == "LeakyRelu") {
    return ctx.b.Op1("LeakyRelu", {v}, ctx.Name("leaky_relu"),
                     {ir::FloatAttr("alpha", ctx.node.FloatOr("leakyrelu_alpha", 0.2f))});
  }
  if (kind == "Prelu") return ctx.b.Op1("PRelu", {v, f.prelu_alpha}, ctx.Name("prelu"));
  return Unsupported(ctx.node.Where() + ": fused activation '" + kind + "'");
}

std::string ShapeDim(OpContext& ctx, const std::string& shape, int64_t i, const std::string& what) {
  return ctx.b.Op1("Slice",
                   {shape, ctx.b.ConstInts(ctx.Name(what + "_at"), {i}),
                    ctx.b.ConstInts(ctx.Name(what + "_end"), {i == -1 ? kInt64Max : i + 1})},
                   ctx.Name(what));
}

std::string ConstScalar(OpContext& ctx, DataType type, double value, const std::string& what) {
  switch (type) {
    case DataType::kFloat:
      return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<float>(static_cast<float>(value)));
    case DataType::kDouble:
      return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<double>(value));
    case DataType::kInt32:
      return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<int32_t>(static_cast<int32_t>(value)));
    case DataType::kInt64:
      return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<int64_t>(static_cast<int64_t>(value)));
    case DataType::kBool:
      return ctx.b.Constant(ctx.Name(what), Tensor::Scalar<bool>(value != 0));
    default:
      // Other types: a double constant cast at run time (constant folding removes the Cast).
      return ctx.b.Op1("Cast", {ctx.b.Constant(ctx.Name(what + "_f64"), Tensor::Scalar<double>(value))}, ctx.Name(what),
                       {ir::IntAttr("to", static_cast<int64_t>(type))});
  }
}

}  // namespace onyx::convert::tf
