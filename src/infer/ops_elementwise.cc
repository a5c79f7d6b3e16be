// Elementwise operators: unary (same type and shape), broadcasting binary and variadic ones, comparisons
// (bool outputs), Where, Cast/CastLike; integer Add/Sub/Mul/Div/Cast also carry known values forward.
#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

Status SameAsInput(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  return Status::Ok();
}

Status Identity(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  if (const KnownInts* k = ctx.input_ints(0)) ctx.set_output_ints(0, *k);
  if (const Tensor* c = ctx.input_constant(0)) ctx.set_output_constant(0, *c);
  return Status::Ok();
}

Status BoolLikeInput(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  if (t != nullptr) ctx.set_output_tensor(0, DataType::kBool, t->shape);
  return Status::Ok();
}

// Element type of the first input, shape broadcast over every input.
Status Broadcasting(InferenceContext& ctx) {
  std::vector<size_t> all;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) all.push_back(i);
  ONYX_ASSIGN_OR_RETURN(auto shape, BroadcastInputs(ctx, all));
  DataType t = DataType::kUndefined;
  for (size_t i = 0; i < ctx.num_inputs() && t == DataType::kUndefined; ++i) t = ctx.input_elem_type(i);
  if (t != DataType::kUndefined || shape) ctx.set_output_tensor(0, t, std::move(shape));
  return Status::Ok();
}

Status Comparison(InferenceContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(auto shape, BroadcastInputs(ctx, {0, 1}));
  ctx.set_output_tensor(0, DataType::kBool, std::move(shape));
  return Status::Ok();
}

// Applies `op` to known integer operands elementwise (a scalar or 1-element operand broadcasts).
template <typename Op>
void PropagateInts(InferenceContext& ctx, Op op) {
  const KnownInts* a = ctx.input_ints(0);
  const KnownInts* b = ctx.input_ints(1);
  if (a == nullptr || b == nullptr) return;
  size_t n = std::max(a->elems.size(), b->elems.size());
  if (a->elems.empty() || b->elems.empty()) return;
  if ((a->elems.size() != n && a->elems.size() != 1) || (b->elems.size() != n && b->elems.size() != 1)) return;
  KnownInts out;
  out.scalar = a->scalar && b->scalar;
  for (size_t i = 0; i < n; ++i) {
    out.elems.push_back(op(a->elems[a->elems.size() == 1 ? 0 : i], b->elems[b->elems.size() == 1 ? 0 : i]));
  }
  ctx.set_output_ints(0, std::move(out));
}

ir::Dim TruncDiv(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_value() && b.is_value()) {
    if (b.value == 0) return UnknownDim();
    return ir::Dim::Value(a.value / b.value);
  }
  return DimFloorDiv(a, b);  // symbols stand for sizes (non-negative), where trunc and floor agree
}

template <ir::Dim (*Fn)(const ir::Dim&, const ir::Dim&)>
Status Arithmetic(InferenceContext& ctx) {
  ONYX_RETURN_IF_ERROR(Broadcasting(ctx));
  if (IsInteger(ctx.input_elem_type(0)) || ctx.input_elem_type(0) == DataType::kUndefined) PropagateInts(ctx, Fn);
  return Status::Ok();
}

Status Where(InferenceContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(auto shape, BroadcastInputs(ctx, {0, 1, 2}));
  DataType t = ctx.input_elem_type(1);
  if (t == DataType::kUndefined) t = ctx.input_elem_type(2);
  ctx.set_output_tensor(0, t, std::move(shape));
  return Status::Ok();
}

Status Cast(InferenceContext& ctx) {
  DataType to = ElemTypeAttr(ctx, "to");
  const ir::TypeInfo* t = ctx.input_tensor(0);
  ctx.set_output_tensor(0, to, t != nullptr ? t->shape : std::nullopt);
  if ((to == DataType::kInt64 || to == DataType::kInt32) && IsInteger(ctx.input_elem_type(0))) {
    if (const KnownInts* k = ctx.input_ints(0)) ctx.set_output_ints(0, *k);
  }
  return Status::Ok();
}

Status CastLike(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  ctx.set_output_tensor(0, ctx.input_elem_type(1), t != nullptr ? t->shape : std::nullopt);
  if (IsInteger(ctx.input_elem_type(1)) && IsInteger(ctx.input_elem_type(0))) {
    if (const KnownInts* k = ctx.input_ints(0)) ctx.set_output_ints(0, *k);
  }
  return Status::Ok();
}

Status Dropout(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  const ir::TypeInfo* t = ctx.input_tensor(0);
  if (ctx.has_output(1) && t != nullptr) ctx.set_output_tensor(1, DataType::kBool, t->shape);
  return Status::Ok();
}

constexpr const char* kUnary[] = {"Abs",
                                  "Acos",
                                  "Acosh",
                                  "Asin",
                                  "Asinh",
                                  "Atan",
                                  "Atanh",
                                  "Ceil",
                                  "Cos",
                                  "Cosh",
                                  "Erf",
                                  "Exp",
                                  "Floor",
                                  "Log",
                                  "Neg",
                                  "Reciprocal",
                                  "Relu",
                                  "Round",
                                  "Sigmoid",
                                  "Sign",
                                  "Sin",
                                  "Sinh",
                                  "Softplus",
                                  "Softsign",
                                  "Sqrt",
                                  "Tan",
                                  "Tanh",
                                  "Elu",
                                  "Selu",
                                  "LeakyRelu",
                                  "HardSigmoid",
                                  "HardSwish",
                                  "ThresholdedRelu",
                                  "Celu",
                                  "Mish",
                                  "Gelu",
                                  "Shrink",
                                  "Swish",
                                  "BitwiseNot",
                                  "Not",
                                  "Clip",
                                  "PRelu",
                                  "LpNormalization",
                                  "Hardmax",
                                  "Softmax",
                                  "LogSoftmax",
                                  "MeanVarianceNormalization",
                                  "LRN",
                                  "Trilu",
                                  "CumSum",
                                  "CumProd",
                                  "ReverseSequence",
                                  "Scatter",
                                  "ScatterElements",
                                  "ScatterND",
                                  "TensorScatter",
                                  "RotaryEmbedding"};
constexpr const char* kBroadcasting[] = {"Pow", "Mod",      "Max",        "Min",       "Mean",
                                         "Sum", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
constexpr const char* kComparisons[] = {"And",  "Or",         "Xor", "Equal", "Greater", "GreaterOrEqual",
                                        "Less", "LessOrEqual"};

}  // namespace

void RegisterElementwiseInference(OpInferenceRegistry& r) {
  for (const char* op : kUnary) r.Add("", op, SameAsInput);
  for (const char* op : kBroadcasting) r.Add("", op, Broadcasting);
  for (const char* op : kComparisons) r.Add("", op, Comparison);
  r.Add("", "Identity", Identity);
  r.Add("", "IsInf", BoolLikeInput);
  r.Add("", "IsNaN", BoolLikeInput);
  r.Add("", "Add", Arithmetic<DimAdd>);
  r.Add("", "Sub", Arithmetic<DimSub>);
  r.Add("", "Mul", Arithmetic<DimMul>);
  r.Add("", "Div", Arithmetic<TruncDiv>);
  r.Add("", "Where", Where);
  r.Add("", "Cast", Cast);
  r.Add("", "CastLike", CastLike);
  r.Add("", "Dropout", Dropout);
}

}  // namespace onyx::infer
