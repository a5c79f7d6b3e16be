// Merge layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot.
#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

Result<std::vector<KTensor>> Chain(Context& ctx, const LayerCall& c, const std::string& op, size_t min_inputs) {
  if (c.inputs.size() < min_inputs)
    return InvalidArgument(c.Where() + ": needs at least " + std::to_string(min_inputs) + " inputs");
  std::string y = c.inputs[0].value;
  std::vector<int64_t> shape = c.inputs[0].shape;
  for (size_t i = 1; i < c.inputs.size(); ++i) {
    y = ctx.b.Op1(op, {y, c.inputs[i].value}, c.name + "/" + op);
    if (c.inputs[i].rank() > static_cast<int64_t>(shape.size())) shape = c.inputs[i].shape;
  }
  return std::vector<KTensor>{KTensor{y, shape, c.inputs[0].type}};
}

Result<std::vector<KTensor>> Add(Context& ctx, const LayerCall& c) { return Chain(ctx, c, "Add", 1); }
Result<std::vector<KTensor>> Multiply(Context& ctx, const LayerCall& c) { return Chain(ctx, c, "Mul", 1); }
Result<std::vector<KTensor>> Maximum(Context& ctx, const LayerCall& c) { return Chain(ctx, c, "Max", 1); }
Result<std::vector<KTensor>> Minimum(Context& ctx, const LayerCall& c) { return Chain(ctx, c, "Min", 1); }
Result<std::vector<KTensor>> Subtract(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 2) return InvalidArgument(c.Where() + ": needs exactly 2 inputs");
  return Chain(ctx, c, "Sub", 2);
}
Result<std::vector<KTensor>> Average(Context& ctx, const LayerCall& c) {
  ONYX_ASSIGN_OR_RETURN(auto sum, Chain(ctx, c, "Add", 1));
  sum[0].value =
      ctx.b.Op1("Mul", {sum[0].value, ctx.b.ConstFloat(c.name + "/inv_n", 1.0f / static_cast<float>(c.inputs.size()))},
                c.name + "/mean");
  return sum;
}

Result<std::vector<KTensor>> Concatenate(Context& ctx, const LayerCall& c) {
  if (c.inputs.empty()) return InvalidArgument(c.Where() + ": no inputs");
  const int64_t rank = c.inputs[0].rank();
  int64_t axis = GetIntOr(c.config, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 1 || axis >= rank) return InvalidArgument(c.Where() + ": axis " + std::to_string(axis) + " out of range");
  std::vector<std::string> vals;
  std::vector<int64_t> shape = c.inputs[0].shape;
  shape[static_cast<size_t>(axis)] = 0;
  for (const auto& in : c.inputs) {
    if (in.rank() != rank) return InvalidArgument(c.Where() + ": inputs differ in rank");
    vals.push_back(in.value);
    const int64_t d = in.shape[static_cast<size_t>(axis)];
    int64_t& s = shape[static_cast<size_t>(axis)];
    s = (d < 0 || s < 0) ? -1 : s + d;
  }
  return std::vector<KTensor>{
      KTensor{ctx.b.Op1("Concat", vals, c.name, {ir::IntAttr("axis", axis)}), shape, c.inputs[0].type}};
}

// Dot(axes, normalize): Keras's batch_dot of two tensors of rank 2 or 3.
Result<std::vector<KTensor>> Dot(Context& ctx, const LayerCall& c) {
  if (c.inputs.size() != 2) return InvalidArgument(c.Where() + ": needs exactly 2 inputs");
  GraphBuilder& b = ctx.b;
  KTensor x = c.inputs[0], y = c.inputs[1];
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, GetInts(c.config, "axes", 2, {-1, -1}, c.Where()));
  for (int k = 0; k < 2; ++k) {
    const int64_t r = k == 0 ? x.rank() : y.rank();
    if (axes[static_cast<size_t>(k)] < 0) axes[static_cast<size_t>(k)] += r;
  }
  if (x.rank() != y.rank() || x.rank() < 2 || x.rank() > 3) {
    return Unsupported(c.Where() + ": Dot of inputs of rank " + std::to_string(x.rank()) + " and " +
                       std::to_string(y.rank()));
  }
  if (GetBoolOr(c.config, "normalize", false)) {
    // l2_normalize: v / sqrt(max(sum(v^2), 1e-12)) along the dot axis.
    for (int k = 0; k < 2; ++k) {
      KTensor& v = k == 0 ? x : y;
      const int64_t a = axes[static_cast<size_t>(k)];
      std::string sq = b.Op1("Mul", {v.value, v.value}, c.name + "/sq");
      std::string sum = ctx.options.opset >= 13 ? b.Op1("ReduceSum", {sq, b.ConstInts(c.name + "/axis", {a})},
                                                        c.name + "/sum", {ir::IntAttr("keepdims", 1)})
                                                : std::string();
      std::string norm = b.Op1("Sqrt", {b.Op1("Max", {sum, b.ConstFloat(c.name + "/eps", 1e-12f)}, c.name + "/clamp")},
                               c.name + "/norm");
      v.value = b.Op1("Div", {v.value, norm}, c.name + "/l2_normalize");
    }
  }
  std::string out;
  std::vector<int64_t> shape;
  if (x.rank() == 2) {
    out = b.Op1("ReduceSum", {b.Op1("Mul", {x.value, y.value}, c.name + "/mul"), b.ConstInts(c.name + "/axes", {1})},
                c.name, {ir::IntAttr("keepdims", 1)});
    shape = {x.shape[0], 1};
  } else {
    // [N, a, d] x [N, d, b]: move x's contracted axis last and y's to the middle.
    std::string xv =
        axes[0] == 2 ? x.value : b.Op1("Transpose", {x.value}, c.name + "/x_t", {ir::IntsAttr("perm", {0, 2, 1})});
    std::string yv =
        axes[1] == 1 ? y.value : b.Op1("Transpose", {y.value}, c.name + "/y_t", {ir::IntsAttr("perm", {0, 2, 1})});
    out = b.Op1("MatMul", {xv, yv}, c.name);
    shape = {x.shape[0], x.shape[axes[0] == 2 ? 1 : 2], y.shape[axes[1] == 1 ? 2 : 1]};
  }
  return std::vector<KTensor>{KTensor{out, shape, DataType::kFloat}};
}

}  // namespace

void RegisterMergeLayers(LayerTable& t) {
  t["Add"] = Add;
  t["Subtract"] = Subtract;
  t["Multiply"] = Multiply;
  t["Average"] = Average;
  t["Maximum"] = Maximum;
  t["Minimum"] = Minimum;
  t["Concatenate"] = Concatenate;
  t["Dot"] = Dot;
}

}  // namespace onyx::convert::keras
