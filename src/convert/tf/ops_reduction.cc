// Reductions (Sum, Mean, Max, Min, Prod, All, Any, EuclideanNorm) over axes given as a scalar or a vector, with
// keep_dims; ArgMax/ArgMin; cumulative sums and products; Bincount. TF reduces nothing for an empty axes list (the
// input is returned as is), where ONNX reduces everything: empty axes become the identity. Opset 17 takes ReduceSum's
// axes as an input (so Sum, All and Any also accept computed axes) and the other reductions' as an attribute.
#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

// The axes of a reduction: known (a constant, possibly empty) or an int64 value computed at run time.
struct Axes {
  bool known = false;
  std::vector<int64_t> values;
  std::string computed;
};

Result<Axes> ReadAxes(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(1));
  Axes axes;
  if (v.constant != nullptr) {
    ONYX_ASSIGN_OR_RETURN(axes.values, ctx.ConstInts(1, "reduction axes"));
    axes.known = true;
    return axes;
  }
  if (v.type != DataType::kInt32 && v.type != DataType::kInt64) {
    return InvalidArgument(ctx.node.Where() + ": the reduction axes must be integers, not " +
                           std::string(DataTypeName(v.type)));
  }
  // A scalar axis becomes a 1-element list; ONNX wants 1-D int64.
  std::string a = v.type == DataType::kInt64 ? v.name : CastTo(ctx, v.name, DataType::kInt64, "axes64");
  axes.computed = ctx.b.Op1("Reshape", {a, ctx.b.ConstInts(ctx.Name("flat"), {-1})}, ctx.Name("axes"));
  return axes;
}

int64_t KeepDims(OpContext& ctx) { return ctx.node.BoolOr("keep_dims", false) ? 1 : 0; }

// ReduceSum with axes as an input; noop_with_empty_axes keeps TF's meaning of an empty list computed at run time.
std::string ReduceSum(OpContext& ctx, const std::string& x, const Axes& axes, const std::string& name) {
  const std::string a = axes.known ? ctx.b.ConstInts(ctx.Name("axes"), axes.values) : axes.computed;
  return ctx.b.Op1("ReduceSum", {x, a}, name,
                   {ir::IntAttr("keepdims", KeepDims(ctx)), ir::IntAttr("noop_with_empty_axes", 1)});
}

// A reduction whose opset-17 form takes the axes as an attribute: they must be constants.
Status AttrReduce(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(1, "reduction axes"));
  if (axes.empty()) {
    ctx.SetOutput(0, x.name, x.type);
    return Status::Ok();
  }
  ctx.SetOutput(
      0, ctx.b.Op1(onnx_op, {x.name}, ctx.Name(), {ir::IntsAttr("axes", axes), ir::IntAttr("keepdims", KeepDims(ctx))}),
      x.type);
  return Status::Ok();
}

Status SumReduce(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(Axes axes, ReadAxes(ctx));
  if (axes.known && axes.values.empty()) {
    ctx.SetOutput(0, x.name, x.type);
    return Status::Ok();
  }
  ctx.SetOutput(0, ReduceSum(ctx, x.name, axes, ctx.Name()), x.type);
  return Status::Ok();
}

// Mean of floats over constant axes is ReduceMean. Otherwise the sum is divided by the count (the sum of ones over
// the same axes): ReduceSum takes computed axes, and for integers this is TF's truncating integer mean, which ONNX's
// ReduceMean leaves unsaid. (TF.js computes integer means in float32 and returns float32, so integer cases have no
// TF.js reference.)
Status Mean(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue axes_value, ctx.Input(1));
  if (IsFloatingPoint(x.type) && axes_value.constant != nullptr) return AttrReduce(ctx, "ReduceMean");
  ONYX_ASSIGN_OR_RETURN(Axes axes, ReadAxes(ctx));
  if (axes.known && axes.values.empty()) {
    ctx.SetOutput(0, x.name, x.type);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  const std::string ones =
      ctx.b.Op1("Expand", {one, ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"))}, ctx.Name("ones"));
  const std::string sum = ReduceSum(ctx, x.name, axes, ctx.Name("sum"));
  const std::string count = ReduceSum(ctx, ones, axes, ctx.Name("count"));
  ctx.SetOutput(0, ctx.b.Op1("Div", {sum, count}, ctx.Name()), x.type);
  return Status::Ok();
}

Status MaxReduce(OpContext& ctx) { return AttrReduce(ctx, "ReduceMax"); }
Status MinReduce(OpContext& ctx) { return AttrReduce(ctx, "ReduceMin"); }
Status ProdReduce(OpContext& ctx) { return AttrReduce(ctx, "ReduceProd"); }

// EuclideanNorm: sqrt(sum(x^2)), ONNX ReduceL2.
Status EuclideanNorm(OpContext& ctx) { return AttrReduce(ctx, "ReduceL2"); }

// All/Any over bools: ONNX has no boolean reduction at opset 17; the number of false (All) or true (Any) elements
// is summed (ReduceSum also takes computed axes) and compared with 0. An empty reduction gives All true, Any false,
// as in TF.
Status BoolReduce(OpContext& ctx, bool all) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(Axes axes, ReadAxes(ctx));
  if (axes.known && axes.values.empty()) {
    ctx.SetOutput(0, x.name, x.type);
    return Status::Ok();
  }
  std::string counted = all ? ctx.b.Op1("Not", {x.name}, ctx.Name("false")) : x.name;
  counted = CastTo(ctx, counted, DataType::kInt64, all ? "false_count" : "true_count");
  const std::string n = ReduceSum(ctx, counted, axes, ctx.Name("count"));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, DataType::kInt64, 0, "zero"));
  const std::string y = all ? ctx.b.Op1("Equal", {n, zero}, ctx.Name()) : ctx.b.Op1("Greater", {n, zero}, ctx.Name());
  ctx.SetOutput(0, y, DataType::kBool);
  return Status::Ok();
}

Status All(OpContext& ctx) { return BoolReduce(ctx, true); }
Status Any(OpContext& ctx) { return BoolReduce(ctx, false); }

// ArgMax/ArgMin(input, dimension): ONNX returns int64; TF's output_type may be int32. Ties: both take the first.
Status ArgReduce(OpContext& ctx, const char* onnx_op) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(1, "dimension"));
  if (axis.size() != 1) return InvalidArgument(ctx.node.Where() + ": the dimension must be one integer");
  DataType out_type = DataType::kInt64;
  if (ctx.node.Has("output_type")) {
    ONYX_ASSIGN_OR_RETURN(out_type, ctx.node.Type("output_type"));
  }
  if (out_type != DataType::kInt64 && out_type != DataType::kInt32) {
    return InvalidArgument(ctx.node.Where() + ": output_type " + std::string(DataTypeName(out_type)) +
                           ", expected int32 or int64");
  }
  std::string y = ctx.b.Op1(onnx_op, {x.name}, out_type == DataType::kInt64 ? ctx.Name() : ctx.Name("index64"),
                            {ir::IntAttr("axis", axis[0]), ir::IntAttr("keepdims", 0)});
  if (out_type != DataType::kInt64)
    y = ctx.b.Op1("Cast", {y}, ctx.Name(), {ir::IntAttr("to", static_cast<int64_t>(out_type))});
  ctx.SetOutput(0, y, out_type);
  return Status::Ok();
}

Status ArgMax(OpContext& ctx) { return ArgReduce(ctx, "ArgMax"); }
Status ArgMin(OpContext& ctx) { return ArgReduce(ctx, "ArgMin"); }

// Cumsum(x, axis; exclusive, reverse) is ONNX CumSum with the same attributes; the axis (a scalar) may be computed.
Status Cumsum(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue axis, ctx.Input(1));
  ctx.SetOutput(0,
                ctx.b.Op1("CumSum", {x.name, axis.name}, ctx.Name(),
                          {ir::IntAttr("exclusive", ctx.node.BoolOr("exclusive", false) ? 1 : 0),
                           ir::IntAttr("reverse", ctx.node.BoolOr("reverse", false) ? 1 : 0)}),
                x.type);
  return Status::Ok();
}

// Cumprod(x, axis; exclusive, reverse): ONNX has no cumulative product. Exactly (no log/exp): x gains an axis next to
// `axis`, so that the pair indexes (i, j) along it; y[i] is the product over j of x[j] where j <= i (j < i when
// exclusive, j >= i / j > i when reversed) and 1 elsewhere, a ReduceProd over j. The index along the axis comes from
// a CumSum of ones, so no static shape is needed; the cost is n^2 elements for an axis of length n.
Status Cumprod(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis_list, ctx.ConstInts(1, "axis"));
  if (axis_list.size() != 1) return InvalidArgument(ctx.node.Where() + ": the axis must be one integer");
  const int64_t a = axis_list[0];
  const bool exclusive = ctx.node.BoolOr("exclusive", false);
  const bool reverse = ctx.node.BoolOr("reverse", false);
  // In the rank+1 result, j (x's axis) sits right after the new size-1 axis for i; as axes relative to that rank:
  const int64_t new_axis_for_j = a >= 0 ? a : a - 1;  // unsqueezing here puts x's axis (as j) one after
  const int64_t new_axis_for_i = a >= 0 ? a + 1 : a;  // unsqueezing here keeps x's axis (as i) before the new one
  const int64_t j_axis = a >= 0 ? a + 1 : a;

  ir::Attribute one_attr;
  one_attr.name = "value";
  one_attr.type = ir::AttrType::kTensor;
  one_attr.t.tensor = Tensor::FromVector<int64_t>({1}, {1});
  const std::string ones =
      ctx.b.Op1("ConstantOfShape", {ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"))}, ctx.Name("ones"), {one_attr});
  const std::string index =
      ctx.b.Op1("CumSum", {ones, ctx.b.Constant(ctx.Name("axis"), Tensor::Scalar<int64_t>(a))}, ctx.Name("index"));
  const std::string j_index =
      ctx.b.Op1("Unsqueeze", {index, ctx.b.ConstInts(ctx.Name("j_axes"), {new_axis_for_j})}, ctx.Name("j_index"));
  const std::string i_index =
      ctx.b.Op1("Unsqueeze", {index, ctx.b.ConstInts(ctx.Name("i_axes"), {new_axis_for_i})}, ctx.Name("i_index"));
  const char* cmp = reverse ? (exclusive ? "Greater" : "GreaterOrEqual") : (exclusive ? "Less" : "LessOrEqual");
  const std::string take = ctx.b.Op1(cmp, {j_index, i_index}, ctx.Name("take"));
  const std::string xj =
      ctx.b.Op1("Unsqueeze", {x.name, ctx.b.ConstInts(ctx.Name("x_axes"), {new_axis_for_j})}, ctx.Name("x_j"));
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  const std::string factors = ctx.b.Op1("Where", {take, xj, one}, ctx.Name("factors"));
  ctx.SetOutput(
      0, ctx.b.Op1("ReduceProd", {factors}, ctx.Name(), {ir::IntsAttr("axes", {j_axis}), ir::IntAttr("keepdims", 0)}),
      x.type);
  return Status::Ok();
}

// Bincount(arr, size, weights) and DenseBincount(input, size, weights; binary_output): out[..., v] counts (or sums
// the weights of) the elements equal to v, for v in [0, size); other values are ignored. Each element is compared
// with Range(0, size) (a last axis of bins), and the matches are summed over the elements' axis (-2: the only axis
// of a vector input, the inner one of DenseBincount's [batch, n]). Empty weights mean counts; binary_output gives 1
// for every bin hit, whatever the weights.
Status BincountImpl(OpContext& ctx, bool binary_output) {
  ONYX_ASSIGN_OR_RETURN(TfValue arr, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue size, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue weights, ctx.Input(2));
  const DataType out_type = weights.type;
  if (!IsInteger(arr.type)) {
    return InvalidArgument(ctx.node.Where() + ": the values must be integers, not " +
                           std::string(DataTypeName(arr.type)));
  }
  const bool counts = binary_output || (weights.constant != nullptr && weights.constant->size() == 0);
  // size as a scalar of arr's type (Range wants its three operands alike).
  std::string limit = size.name;
  if (size.type != arr.type) limit = CastTo(ctx, limit, arr.type, "size_cast");
  limit = ctx.b.Op1("Reshape", {limit, ctx.b.ConstInts(ctx.Name("scalar_shape"), {})}, ctx.Name("size"));
  ONYX_ASSIGN_OR_RETURN(std::string start, ScalarConst(ctx, arr.type, 0, "start"));
  ONYX_ASSIGN_OR_RETURN(std::string delta, ScalarConst(ctx, arr.type, 1, "delta"));
  const std::string bins = ctx.b.Op1("Range", {start, limit, delta}, ctx.Name("bins"));
  const std::string last_axis = ctx.b.ConstInts(ctx.Name("last_axis"), {-1});
  const std::string hits =
      ctx.b.Op1("Equal", {ctx.b.Op1("Unsqueeze", {arr.name, last_axis}, ctx.Name("values")), bins}, ctx.Name("hits"));
  std::string per_element;
  if (counts) {
    per_element = CastTo(ctx, hits, out_type, "hit_counts");
  } else {
    ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, out_type, 0, "zero"));
    per_element =
        ctx.b.Op1("Where", {hits, ctx.b.Op1("Unsqueeze", {weights.name, last_axis}, ctx.Name("weights")), zero},
                  ctx.Name("hit_weights"));
  }
  std::string y = ctx.b.Op1("ReduceSum", {per_element, ctx.b.ConstInts(ctx.Name("element_axis"), {-2})},
                            binary_output ? ctx.Name("counts") : ctx.Name(), {ir::IntAttr("keepdims", 0)});
  if (binary_output) {
    ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, out_type, 0, "zero"));
    y = CastTo(ctx, ctx.b.Op1("Greater", {y, zero}, ctx.Name("hit")), out_type, "");
  }
  ctx.SetOutput(0, y, out_type);
  return Status::Ok();
}

Status Bincount(OpContext& ctx) { return BincountImpl(ctx, false); }
Status DenseBincount(OpContext& ctx) { return BincountImpl(ctx, ctx.node.BoolOr("binary_output", false)); }

}  // namespace

void AddReductionOps(std::map<std::string, OpFn>& t) {
  t["Sum"] = SumReduce;
  t["Mean"] = Mean;
  t["Max"] = MaxReduce;
  t["Min"] = MinReduce;
  t["Prod"] = ProdReduce;
  t["All"] = All;
  t["Any"] = Any;
  t["EuclideanNorm"] = EuclideanNorm;
  t["ArgMax"] = ArgMax;
  t["ArgMin"] = ArgMin;
  t["Cumsum"] = Cumsum;
  t["Cumprod"] = Cumprod;
  t["Bincount"] = Bincount;
  t["DenseBincount"] = DenseBincount;
}

}  // namespace onyx::convert::tf
