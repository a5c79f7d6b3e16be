// Matrix products (MatMul, _FusedMatMul, BatchMatMul, Einsum) and MatrixBandPart. The converter does not know
// ranks, so batched transposes of the last two axes are written as Einsum "...ij->...ji".
#include <algorithm>

#include "convert/tf/nn_common.h"

namespace onyx::convert::tf {
namespace {

// MatMul / _FusedMatMul: 2-D products. Gemm for floats; integer products as MatMul (Gemm's integer support is
// uneven across runtimes) after explicit transposes.
Status ConvertMatMul(OpContext& ctx, bool fused) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue w, ctx.Input(1));
  Fused f;
  if (fused) {
    ONYX_ASSIGN_OR_RETURN(f, FusedOps(ctx, 2));
  }
  if (!f.bn_multiplier.empty()) return Unsupported(ctx.node.Where() + ": a batch norm fused into a MatMul");
  const bool ta = ctx.node.BoolOr("transpose_a", false), tb = ctx.node.BoolOr("transpose_b", false);
  std::string y;
  if (IsFloatingPoint(a.type)) {
    std::vector<std::string> inputs = {a.name, w.name};
    if (!f.bias_value.empty()) inputs.push_back(f.bias_value);
    y = ctx.b.Op1("Gemm", inputs, ctx.Name("gemm"),
                  {ir::IntAttr("transA", ta ? 1 : 0), ir::IntAttr("transB", tb ? 1 : 0)});
  } else {
    const std::string lhs = ta ? Transposed(ctx, a.name, {1, 0}, "a_t") : a.name;
    const std::string rhs = tb ? Transposed(ctx, w.name, {1, 0}, "b_t") : w.name;
    y = ctx.b.Op1("MatMul", {lhs, rhs}, ctx.Name("matmul"));
    if (!f.bias_value.empty()) y = ctx.b.Op1("Add", {y, f.bias_value}, ctx.Name("bias_add"));
  }
  ONYX_ASSIGN_OR_RETURN(y, ApplyActivation(ctx, f, y));
  ctx.SetOutput(0, y, a.type);
  return Status::Ok();
}

Status MatMul(OpContext& ctx) { return ConvertMatMul(ctx, false); }
Status FusedMatMul(OpContext& ctx) { return ConvertMatMul(ctx, true); }

// BatchMatMul (equal batch dims) and BatchMatMulV2 (numpy-broadcast batch dims, as ONNX MatMul): adj_x / adj_y
// transpose the last two axes of an operand first (the adjoint is the transpose for real types).
Status BatchMatMul(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue a, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(1));
  auto swap_last = [&](const std::string& v, const char* what) {
    return ctx.b.Op1("Einsum", {v}, ctx.Name(what), {ir::StringAttr("equation", "...ij->...ji")});
  };
  const std::string lhs = ctx.node.BoolOr("adj_x", false) ? swap_last(a.name, "adj_x") : a.name;
  const std::string rhs = ctx.node.BoolOr("adj_y", false) ? swap_last(b.name, "adj_y") : b.name;
  ctx.SetOutput(0, ctx.b.Op1("MatMul", {lhs, rhs}, ctx.Name("matmul")), a.type);
  return Status::Ok();
}

// Einsum: TF's equations are numpy's, as ONNX's (spaces dropped).
Status Einsum(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(std::string equation, ctx.node.String("equation"));
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  if (ctx.num_inputs() == 0) return InvalidArgument(ctx.node.Where() + ": no inputs");
  std::vector<std::string> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    inputs.push_back(v.name);
  }
  ONYX_ASSIGN_OR_RETURN(TfValue first, ctx.Input(0));
  ctx.SetOutput(0, ctx.b.Op1("Einsum", inputs, ctx.Name("einsum"), {ir::StringAttr("equation", equation)}), first.type);
  return Status::Ok();
}

// MatrixBandPart(input, num_lower, num_upper): keeps element (i, j) of each innermost matrix where
// (num_lower < 0 or i - j <= num_lower) and (num_upper < 0 or j - i <= num_upper), zero elsewhere. Built as a
// mask from the matrix's run-time size, so any element type and computed bounds work.
Status MatrixBandPart(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  const std::string scalar_shape = ctx.b.ConstInts(ctx.Name("scalar"), {});
  auto dim = [&](int64_t i, const char* what) {
    return ctx.b.Op1("Reshape", {ShapeDim(ctx, shape, i, what), scalar_shape}, ctx.Name(std::string(what) + "_n"));
  };
  const std::string zero = ctx.b.Constant(ctx.Name("start"), Tensor::Scalar<int64_t>(0));
  const std::string one = ctx.b.Constant(ctx.Name("delta"), Tensor::Scalar<int64_t>(1));
  const std::string rows = ctx.b.Op1("Unsqueeze",
                                     {ctx.b.Op1("Range", {zero, dim(-2, "rows"), one}, ctx.Name("row_range")),
                                      ctx.b.ConstInts(ctx.Name("axis1"), {1})},
                                     ctx.Name("row_index"));
  const std::string cols = ctx.b.Op1("Range", {zero, dim(-1, "cols"), one}, ctx.Name("col_index"));
  const std::string above = ctx.b.Op1("Sub", {cols, rows}, ctx.Name("above_diagonal"));  // j - i
  const std::string below = ctx.b.Op1("Neg", {above}, ctx.Name("below_diagonal"));       // i - j
  std::vector<std::string> conditions;
  for (int k = 0; k < 2; ++k) {
    const size_t input = 1 + k;
    const std::string& distance = k == 0 ? below : above;
    const std::string what = k == 0 ? "lower" : "upper";
    ONYX_ASSIGN_OR_RETURN(TfValue bound, ctx.Input(input));
    if (bound.constant != nullptr) {
      ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.ConstInts(input, "num_" + what));
      if (v.size() != 1) return InvalidArgument(ctx.node.Where() + ": num_" + what + " must be a scalar");
      if (v[0] < 0) continue;  // the whole side is kept
      conditions.push_back(ctx.b.Op1("LessOrEqual",
                                     {distance, ctx.b.Constant(ctx.Name(what), Tensor::Scalar<int64_t>(v[0]))},
                                     ctx.Name("in_" + what)));
      continue;
    }
    const std::string b64 = ctx.b.Op1("Cast", {bound.name}, ctx.Name(what + "_64"), {ir::IntAttr("to", 7)});
    conditions.push_back(ctx.b.Op1("Or",
                                   {ctx.b.Op1("Less", {b64, zero}, ctx.Name("all_" + what)),
                                    ctx.b.Op1("LessOrEqual", {distance, b64}, ctx.Name("within_" + what))},
                                   ctx.Name("in_" + what)));
  }
  if (conditions.empty()) {
    ctx.SetOutput(0, ctx.b.Op1("Identity", {x.name}, ctx.Name("band")), x.type);
    return Status::Ok();
  }
  const std::string keep = conditions.size() == 1 ? conditions[0] : ctx.b.Op1("And", conditions, ctx.Name("in_band"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {keep, x.name, ConstScalar(ctx, x.type, 0, "zero_value")}, ctx.Name("band")),
                x.type);
  return Status::Ok();
}

}  // namespace

void AddMatrixOps(std::map<std::string, OpFn>& t) {
  t["MatMul"] = MatMul;
  t["_FusedMatMul"] = FusedMatMul;
  t["BatchMatMul"] = BatchMatMul;
  t["BatchMatMulV2"] = BatchMatMul;
  t["Einsum"] = Einsum;
  t["MatrixBandPart"] = MatrixBandPart;
}

}  // namespace onyx::convert::tf
