// Sparse tensors: SparseReshape, SparseTensorDenseMatMul. Index arithmetic is int64 and
// exact; the row-major strides of a shape known only at run time are the products of a [R, R] matrix whose row i
// keeps the dims after i (1 elsewhere).
#include "convert/tf/emit.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {
namespace {

std::string Const64(OpContext& ctx, int64_t v, const std::string& tag) {
  return ctx.b.Constant(ctx.Name(tag), Tensor::Scalar<int64_t>(v));
}

// Row-major strides of the int64 shape vector `shape`.
std::string Strides(OpContext& ctx, const std::string& shape, const std::string& tag) {
  const std::string r = ctx.b.Op1(
      "Reshape", {ctx.b.Op1("Size", {shape}, ctx.Name(tag + "_rank")), ctx.b.ConstInts(ctx.Name(tag + "_scalar"), {})},
      ctx.Name(tag + "_rank_scalar"));
  const std::string axes =
      ctx.b.Op1("Range", {Const64(ctx, 0, tag + "_zero"), r, Const64(ctx, 1, tag + "_one")}, ctx.Name(tag + "_axes"));
  const std::string after =
      ctx.b.Op1("Less",
                {ctx.b.Op1("Unsqueeze", {axes, ctx.b.ConstInts(ctx.Name(tag + "_c"), {1})}, ctx.Name(tag + "_i")),
                 ctx.b.Op1("Unsqueeze", {axes, ctx.b.ConstInts(ctx.Name(tag + "_r"), {0})}, ctx.Name(tag + "_j"))},
                ctx.Name(tag + "_after"));
  const std::string row =
      ctx.b.Op1("Unsqueeze", {shape, ctx.b.ConstInts(ctx.Name(tag + "_r2"), {0})}, ctx.Name(tag + "_row"));
  const std::string kept = ctx.b.Op1("Where", {after, row, Const64(ctx, 1, tag + "_unit")}, ctx.Name(tag + "_kept"));
  return ctx.b.Op1("ReduceProd", {kept}, ctx.Name(tag), {ir::IntsAttr("axes", {1}), ir::IntAttr("keepdims", 0)});
}

// SparseReshape(indices [N, R], shape [R], new_shape [R']) -> (new indices [N, R'], new shape): the new shape's -1
// is the element count over the product of its other dims; each entry's row-major offset is re-split.
Status SparseReshape(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue shape_in, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue new_in, ctx.Input(2));
  const std::string idx = AsInt64(ctx, indices, "indices64");
  const std::string shape = AsInt64(ctx, shape_in, "shape64");
  const std::string wanted = AsInt64(ctx, new_in, "new_shape64");
  const std::string total = ctx.b.Op1("ReduceProd", {shape}, ctx.Name("total"), {ir::IntAttr("keepdims", 0)});
  const std::string inferred = ctx.b.Op1("Equal", {wanted, Const64(ctx, -1, "minus_one")}, ctx.Name("inferred"));
  const std::string known =
      ctx.b.Op1("ReduceProd", {ctx.b.Op1("Where", {inferred, Const64(ctx, 1, "one"), wanted}, ctx.Name("known_dims"))},
                ctx.Name("known"), {ir::IntAttr("keepdims", 0)});
  const std::string missing = ctx.b.Op1("Div", {total, known}, ctx.Name("missing"));
  const std::string out_shape = ctx.b.Op1("Where", {inferred, missing, wanted}, ctx.Name("output_shape"));
  const std::string offsets = ctx.b.Op1(
      "ReduceSum",
      {ctx.b.Op1("Mul",
                 {idx, ctx.b.Op1("Unsqueeze", {Strides(ctx, shape, "strides_in"), ctx.b.ConstInts(ctx.Name("r0"), {0})},
                                 ctx.Name("strides_in_row"))},
                 ctx.Name("weighted")),
       ctx.b.ConstInts(ctx.Name("sum_axis"), {1})},
      ctx.Name("offsets"), {ir::IntAttr("keepdims", 1)});
  const std::string strides_out =
      ctx.b.Op1("Unsqueeze", {Strides(ctx, out_shape, "strides_out"), ctx.b.ConstInts(ctx.Name("r1"), {0})},
                ctx.Name("strides_out_row"));
  const std::string new_idx =
      ctx.b.Op1("Mod",
                {ctx.b.Op1("Div", {offsets, strides_out}, ctx.Name("quotients")),
                 ctx.b.Op1("Unsqueeze", {out_shape, ctx.b.ConstInts(ctx.Name("r2"), {0})}, ctx.Name("out_shape_row"))},
                ctx.Name("output_indices"), {ir::IntAttr("fmod", 0)});
  ctx.SetOutput(0, new_idx, DataType::kInt64);
  ctx.SetOutput(1, out_shape, DataType::kInt64);
  return Status::Ok();
}

// SparseTensorDenseMatMul(a_indices, a_values, a_shape, b): A made dense (ScatterND with reduction "add": TF sums
// repeated indices), transposed for adjoint_a (real values: the adjoint is the transpose), times b (adjoint_b).
Status SparseTensorDenseMatMul(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue values, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue shape, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(TfValue b, ctx.Input(3));
  if (values.type == DataType::kComplex64) return Unsupported(ctx.node.Where() + ": complex values");
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, values.type, 0, "zero"));
  const std::string zeros = ctx.b.Op1("Expand", {zero, AsInt64(ctx, shape, "shape64")}, ctx.Name("zeros"));
  std::string a = ctx.b.Op1("ScatterND", {zeros, AsInt64(ctx, indices, "indices64"), values.name}, ctx.Name("dense_a"),
                            {ir::StringAttr("reduction", "add")});
  std::string bm = b.name;
  if (ctx.node.BoolOr("adjoint_a", false))
    a = ctx.b.Op1("Transpose", {a}, ctx.Name("a_t"), {ir::IntsAttr("perm", {1, 0})});
  if (ctx.node.BoolOr("adjoint_b", false))
    bm = ctx.b.Op1("Transpose", {bm}, ctx.Name("b_t"), {ir::IntsAttr("perm", {1, 0})});
  ctx.SetOutput(0, ctx.b.Op1("MatMul", {a, bm}, ctx.Name()), values.type);
  return Status::Ok();
}

}  // namespace

void AddSparseTensorOps(std::map<std::string, OpFn>& t) {
  t["SparseReshape"] = SparseReshape;
  t["SparseTensorDenseMatMul"] = SparseTensorDenseMatMul;
}

}  // namespace onyx::convert::tf
