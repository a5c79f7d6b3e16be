// Elementwise operators: unary (same type and shape), broadcasting binary and variadic ones, comparisons
// (bool outputs), Where, Cast/CastLike; integer Add/Sub/Mul/Div/Cast also carry known values forward, and
// comparisons, Not/And/Or/Xor and Where do too (as 0/1), so that an If whose condition is computed from
// shapes (`if x.shape[1] == 1`, as exporters write) can be decided.
#include <algorithm>

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

// A bool element: 1 or 0, or unknown when the operands do not decide it.
ir::Dim BoolDim(std::optional<bool> b) { return b ? DimOf(*b ? 1 : 0) : UnknownDim(); }

// The order of two dims when it is certain: both numbers, or the same symbol or expression (equal).
std::optional<int> Order(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_value() && b.is_value()) return a.value < b.value ? -1 : (a.value > b.value ? 1 : 0);
  if (SameDim(a, b)) return 0;
  return std::nullopt;
}

template <bool (*Holds)(int)>
ir::Dim CompareDims(const ir::Dim& a, const ir::Dim& b) {
  auto o = Order(a, b);
  return BoolDim(o ? std::optional<bool>(Holds(*o)) : std::nullopt);
}
bool IsEqual(int o) { return o == 0; }
bool IsLess(int o) { return o < 0; }
bool IsLessOrEqual(int o) { return o <= 0; }
bool IsGreater(int o) { return o > 0; }
bool IsGreaterOrEqual(int o) { return o >= 0; }

std::optional<bool> Truth(const ir::Dim& d) {
  if (!d.is_value()) return std::nullopt;
  return d.value != 0;
}
ir::Dim AndDims(const ir::Dim& a, const ir::Dim& b) {
  auto x = Truth(a), y = Truth(b);
  if ((x && !*x) || (y && !*y)) return BoolDim(false);  // false and anything
  return BoolDim(x && y ? std::optional<bool>(true) : std::nullopt);
}
ir::Dim OrDims(const ir::Dim& a, const ir::Dim& b) {
  auto x = Truth(a), y = Truth(b);
  if ((x && *x) || (y && *y)) return BoolDim(true);  // true or anything
  return BoolDim(x && y ? std::optional<bool>(false) : std::nullopt);
}
ir::Dim XorDims(const ir::Dim& a, const ir::Dim& b) {
  auto x = Truth(a), y = Truth(b);
  return BoolDim(x && y ? std::optional<bool>(*x != *y) : std::nullopt);
}

template <ir::Dim (*Fn)(const ir::Dim&, const ir::Dim&)>
Status Comparison(InferenceContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(auto shape, BroadcastInputs(ctx, {0, 1}));
  ctx.set_output_tensor(0, DataType::kBool, std::move(shape));
  PropagateInts(ctx, Fn);
  return Status::Ok();
}

Status Not(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  if (const KnownInts* k = ctx.input_ints(0)) {
    KnownInts out{{}, k->scalar};
    for (const auto& d : k->elems) {
      auto t = Truth(d);
      out.elems.push_back(BoolDim(t ? std::optional<bool>(!*t) : std::nullopt));
    }
    ctx.set_output_ints(0, std::move(out));
  }
  return Status::Ok();
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
  // Known values: the chosen element where the condition is known, else the common one (a shape that
  // replaces -1 or 0 entries by computed sizes).
  const KnownInts* c = ctx.input_ints(0);
  const KnownInts* a = ctx.input_ints(1);
  const KnownInts* b = ctx.input_ints(2);
  if (c != nullptr && a != nullptr && b != nullptr && !c->elems.empty() && !a->elems.empty() && !b->elems.empty()) {
    size_t n = std::max({c->elems.size(), a->elems.size(), b->elems.size()});
    auto fits = [n](const KnownInts* k) { return k->elems.size() == n || k->elems.size() == 1; };
    if (fits(c) && fits(a) && fits(b)) {
      auto at = [](const KnownInts* k, size_t i) { return k->elems[k->elems.size() == 1 ? 0 : i]; };
      KnownInts out{{}, c->scalar && a->scalar && b->scalar};
      for (size_t i = 0; i < n; ++i) {
        auto truth = Truth(at(c, i));
        if (truth) {
          out.elems.push_back(*truth ? at(a, i) : at(b, i));
        } else {
          out.elems.push_back(SameDim(at(a, i), at(b, i)) ? at(a, i) : UnknownDim());
        }
      }
      ctx.set_output_ints(0, std::move(out));
    }
  }
  return Status::Ok();
}

Status Cast(InferenceContext& ctx) {
  DataType to = ElemTypeAttr(ctx, "to");
  const ir::TypeInfo* t = ctx.input_tensor(0);
  ctx.set_output_tensor(0, to, t != nullptr ? t->shape : std::nullopt);
  DataType from = ctx.input_elem_type(0);
  const KnownInts* k = ctx.input_ints(0);
  if (k != nullptr && (IsInteger(from) || from == DataType::kBool)) {
    if (to == DataType::kInt64 || to == DataType::kInt32) {
      ctx.set_output_ints(0, *k);
    } else if (to == DataType::kBool) {  // nonzero is true; a symbol's value is not known to be nonzero
      KnownInts out{{}, k->scalar};
      for (const auto& d : k->elems) out.elems.push_back(BoolDim(Truth(d)));
      ctx.set_output_ints(0, std::move(out));
    }
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

}  // namespace

void RegisterElementwiseInference(OpInferenceRegistry& r) {
  for (const char* op : kUnary) r.Add("", op, SameAsInput);
  for (const char* op : kBroadcasting) r.Add("", op, Broadcasting);
  r.Add("", "Equal", Comparison<CompareDims<IsEqual>>);
  r.Add("", "Less", Comparison<CompareDims<IsLess>>);
  r.Add("", "LessOrEqual", Comparison<CompareDims<IsLessOrEqual>>);
  r.Add("", "Greater", Comparison<CompareDims<IsGreater>>);
  r.Add("", "GreaterOrEqual", Comparison<CompareDims<IsGreaterOrEqual>>);
  r.Add("", "And", Comparison<AndDims>);
  r.Add("", "Or", Comparison<OrDims>);
  r.Add("", "Xor", Comparison<XorDims>);
  r.Add("", "Not", Not);
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
