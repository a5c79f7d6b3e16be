// Reductions (axes as a constant input, ReducerOptions.keep_dims 0), arg-reductions, softmax, top-k, cumsum.
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

// `kind` "ReduceSum" takes its axes as an input at opset 17, the others as an attribute; "any"/"all" reduce bools
// through int32 (ONNX reductions take bool only from opset 20).
Status Reduce(OpContext& c, const std::string& kind) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.ConstInts(1, "axes"));
  ONYX_ASSIGN_OR_RETURN(bool keep, c.OptBool(0));
  if (axes.empty()) return c.SetOutput(c.b.Op1("Identity", {x}, c.Name("no_reduction")));
  const ir::Attribute keepdims = ir::IntAttr("keepdims", keep ? 1 : 0);
  if (kind == "any" || kind == "all") {
    std::string i = c.b.Op1("Cast", {x}, c.Name("as_int"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt32))});
    i = c.b.Op1(kind == "any" ? "ReduceMax" : "ReduceMin", {i}, c.Name(kind), {ir::IntsAttr("axes", axes), keepdims});
    return c.SetOutput(
        c.b.Op1("Cast", {i}, c.Name("as_bool"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kBool))}));
  }
  if (kind == "ReduceSum") {
    return c.SetOutput(c.b.Op1(kind, {x, c.b.ConstInts(c.Name("axes"), axes)}, c.Name("reduce"), {keepdims}));
  }
  return c.SetOutput(c.b.Op1(kind, {x}, c.Name("reduce"), {ir::IntsAttr("axes", axes), keepdims}));
}

// SoftmaxOptions: beta 0 (softmax of beta * x); LOG_SOFTMAX has none.
Status Softmax(OpContext& c, bool log) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  float beta = 1.0f;
  if (!log) {
    ONYX_ASSIGN_OR_RETURN(beta, c.OptFloat(0, 1.0f));
  }
  if (beta != 1.0f) x = c.b.Op1("Mul", {x, c.b.ConstFloat(c.Name("beta"), beta)}, c.Name("scaled"));
  return c.SetOutput(c.b.Op1(log ? "LogSoftmax" : "Softmax", {x}, c.Name("softmax"), {ir::IntAttr("axis", -1)}));
}

// ARG_MAX / ARG_MIN(input, axis); options: output_type 0. ONNX gives int64 (first index on ties, as TFLite).
Status ArgReduce(OpContext& c, const char* kind) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axis, c.ConstInts(1, "axis"));
  if (axis.size() != 1) return c.Error("needs one axis");
  std::string y = c.b.Op1(kind, {x}, c.Name("arg"), {ir::IntAttr("axis", axis[0]), ir::IntAttr("keepdims", 0)});
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  if (t->type != TensorType::kInt64) {
    ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
    y = c.b.Op1("Cast", {y}, c.Name("cast"), {ir::IntAttr("to", static_cast<int64_t>(type))});
  }
  return c.SetOutput(y);
}

// TOPK_V2(input, k) -> (values, indices int32) along the last axis, largest first.
Status TopK(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string k, c.Input(1));
  k = c.b.Op1("Cast", {k}, c.Name("k64"), {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt64))});
  k = c.b.Op1("Reshape", {k, c.b.ConstInts(c.Name("k_shape"), {1})}, c.Name("k"));
  std::vector<std::string> outs = c.b.Op("TopK", {x, k}, c.Name("topk"), {ir::IntAttr("axis", -1)}, 2);
  ONYX_RETURN_IF_ERROR(c.SetOutput(outs[0], 0));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor(1));
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  return c.SetOutput(c.b.Op1("Cast", {outs[1]}, c.Name("indices"), {ir::IntAttr("to", static_cast<int64_t>(type))}), 1);
}

// CUMSUM(input, axis); CumsumOptions: exclusive 0, reverse 1.
Status CumSum(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string axis, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(bool exclusive, c.OptBool(0));
  ONYX_ASSIGN_OR_RETURN(bool reverse, c.OptBool(1));
  return c.SetOutput(c.b.Op1("CumSum", {x, axis}, c.Name("cumsum"),
                             {ir::IntAttr("exclusive", exclusive), ir::IntAttr("reverse", reverse)}));
}

}  // namespace

void AddReduceOps(std::map<int32_t, OpFn>& t) {
  t[op::kMean] = [](OpContext& c) { return Reduce(c, "ReduceMean"); };
  t[op::kSum] = [](OpContext& c) { return Reduce(c, "ReduceSum"); };
  t[op::kReduceProd] = [](OpContext& c) { return Reduce(c, "ReduceProd"); };
  t[op::kReduceMax] = [](OpContext& c) { return Reduce(c, "ReduceMax"); };
  t[op::kReduceMin] = [](OpContext& c) { return Reduce(c, "ReduceMin"); };
  t[op::kReduceAny] = [](OpContext& c) { return Reduce(c, "any"); };
  t[op::kReduceAll] = [](OpContext& c) { return Reduce(c, "all"); };
  t[op::kSoftmax] = [](OpContext& c) { return Softmax(c, false); };
  t[op::kLogSoftmax] = [](OpContext& c) { return Softmax(c, true); };
  t[op::kArgMax] = [](OpContext& c) { return ArgReduce(c, "ArgMax"); };
  t[op::kArgMin] = [](OpContext& c) { return ArgReduce(c, "ArgMin"); };
  t[op::kTopkV2] = TopK;
  t[op::kCumsum] = CumSum;
}

}  // namespace onyx::convert::tflite
