// Diagonal matrices (MatrixDiag*, MatrixSetDiag*, MatrixDiagPart*: the main diagonal, k = 0), and reorderings:
// InvertPermutation, ReverseSequence, Roll. The diagonal is an [M, N] mask i == j built from Ranges at run time, so
// no static shape is needed.
#include <algorithm>
#include <limits>
#include <set>

#include "convert/tf/emit.h"
#include "convert/tf/nn_common.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {
namespace {

// Shape(v)[i] as an int64 scalar.
std::string DimScalar(OpContext& ctx, const std::string& v, int64_t i, const std::string& tag) {
  const std::string shape = ctx.b.Op1("Shape", {v}, ctx.Name(tag + "_shape"));
  return ctx.b.Op1("Reshape", {ShapeDim(ctx, shape, i, tag + "_dim"), ctx.b.ConstInts(ctx.Name(tag + "_scalar"), {})},
                   ctx.Name(tag));
}

// The [rows, cols] boolean mask of the main diagonal.
std::string DiagonalMask(OpContext& ctx, const std::string& rows, const std::string& cols) {
  const std::string zero = ctx.b.Constant(ctx.Name("zero_index"), Tensor::Scalar<int64_t>(0));
  const std::string one = ctx.b.Constant(ctx.Name("index_step"), Tensor::Scalar<int64_t>(1));
  const std::string r = ctx.b.Op1("Range", {zero, rows, one}, ctx.Name("row_index"));
  const std::string c = ctx.b.Op1("Range", {zero, cols, one}, ctx.Name("col_index"));
  return ctx.b.Op1("Equal",
                   {ctx.b.Op1("Unsqueeze", {r, ctx.b.ConstInts(ctx.Name("col_axis"), {1})}, ctx.Name("row_col")),
                    ctx.b.Op1("Unsqueeze", {c, ctx.b.ConstInts(ctx.Name("row_axis"), {0})}, ctx.Name("col_row"))},
                   ctx.Name("diagonal"));
}

// The V2/V3 forms' k must be the main diagonal: a constant 0 (or [0, 0]).
Status RequireMainDiagonal(OpContext& ctx, size_t k_input) {
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> k, ctx.ConstInts(k_input, "k"));
  for (int64_t v : k) {
    if (v != 0) {
      return Unsupported(ctx.node.Where() + ": diagonal offset k = " + std::to_string(v) +
                         " (only the main diagonal, k = 0, is converted)");
    }
  }
  return Status::Ok();
}

// MatrixDiag(diagonal [..., N]) -> [..., N, N]; V2/V3 (diagonal, k, num_rows, num_cols, padding_value) with k = 0
// and the default sizes (-1): padding_value off the diagonal.
Status MatrixDiag(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue d, ctx.Input(0));
  std::string pad;
  if (ctx.node.op == "MatrixDiag") {
    ONYX_ASSIGN_OR_RETURN(pad, ScalarConst(ctx, d.type, 0, "padding"));
  } else {
    if (ctx.num_inputs() < 5) return InvalidArgument(ctx.node.Where() + ": 5 inputs expected");
    ONYX_RETURN_IF_ERROR(RequireMainDiagonal(ctx, 1));
    for (size_t i : {size_t{2}, size_t{3}}) {
      ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> n, ctx.ConstInts(i, i == 2 ? "num_rows" : "num_cols"));
      if (n.size() != 1 || n[0] != -1) {
        return Unsupported(ctx.node.Where() + ": explicit num_rows / num_cols (only the default -1 is converted)");
      }
    }
    ONYX_ASSIGN_OR_RETURN(TfValue p, ctx.Input(4));
    pad = p.name;
  }
  const std::string n = DimScalar(ctx, d.name, -1, "n");
  const std::string mask = DiagonalMask(ctx, n, n);
  const std::string column =
      ctx.b.Op1("Unsqueeze", {d.name, ctx.b.ConstInts(ctx.Name("last"), {-1})}, ctx.Name("diagonal_column"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {mask, column, pad}, ctx.Name()), d.type);
  return Status::Ok();
}

// MatrixSetDiag(input [..., M, N], diagonal [..., min(M, N)]) (V2/V3: k = 0): the diagonal, padded with zeros to M
// entries, as a column, where the mask is set.
Status MatrixSetDiag(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue d, ctx.Input(1));
  if (ctx.node.op != "MatrixSetDiag") ONYX_RETURN_IF_ERROR(RequireMainDiagonal(ctx, 2));
  const std::string m = DimScalar(ctx, x.name, -2, "m");
  const std::string n = DimScalar(ctx, x.name, -1, "n");
  const std::string mask = DiagonalMask(ctx, m, n);
  const std::string d_shape = ctx.b.Op1("Shape", {d.name}, ctx.Name("diagonal_shape"));
  const std::string missing =
      ctx.b.Op1("Sub",
                {ShapeDim(ctx, ctx.b.Op1("Shape", {x.name}, ctx.Name("input_shape")), -2, "rows"),
                 ShapeDim(ctx, d_shape, -1, "length")},
                ctx.Name("missing"));
  const std::string pad_shape = ctx.b.Op1(
      "Concat",
      {ctx.b.Op1("Slice",
                 {d_shape, ctx.b.ConstInts(ctx.Name("batch_begin"), {0}), ctx.b.ConstInts(ctx.Name("batch_end"), {-1})},
                 ctx.Name("batch_shape")),
       missing},
      ctx.Name("pad_shape"), {ir::IntAttr("axis", 0)});
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, d.type, 0, "zero"));
  const std::string padded = ctx.b.Op1("Concat", {d.name, ctx.b.Op1("Expand", {zero, pad_shape}, ctx.Name("zeros"))},
                                       ctx.Name("padded"), {ir::IntAttr("axis", -1)});
  const std::string column =
      ctx.b.Op1("Unsqueeze", {padded, ctx.b.ConstInts(ctx.Name("last"), {-1})}, ctx.Name("diagonal_column"));
  ctx.SetOutput(0, ctx.b.Op1("Where", {mask, column, x.name}, ctx.Name()), x.type);
  return Status::Ok();
}

// MatrixDiagPart(input [..., M, N]) -> [..., min(M, N)] (V2/V3: k = 0, where padding_value is never used): each
// row's sum of its masked entries (only the diagonal one is kept, the others are 0), cut to min(M, N) rows.
Status MatrixDiagPart(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (ctx.node.op != "MatrixDiagPart") ONYX_RETURN_IF_ERROR(RequireMainDiagonal(ctx, 1));
  if (x.type == DataType::kBool) return Unsupported(ctx.node.Where() + ": boolean matrices");
  const std::string m = DimScalar(ctx, x.name, -2, "m");
  const std::string n = DimScalar(ctx, x.name, -1, "n");
  const std::string mask = DiagonalMask(ctx, m, n);
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  const std::string masked = ctx.b.Op1("Where", {mask, x.name, zero}, ctx.Name("masked"));
  const std::string last = ctx.b.ConstInts(ctx.Name("last"), {-1});
  const std::string rows = ctx.b.Op1("ReduceSum", {masked, last}, ctx.Name("rows"), {ir::IntAttr("keepdims", 0)});
  const std::string k =
      ctx.b.Op1("Reshape", {ctx.b.Op1("Min", {m, n}, ctx.Name("length")), ctx.b.ConstInts(ctx.Name("vector"), {1})},
                ctx.Name("length_1d"));
  ctx.SetOutput(0, ctx.b.Op1("Slice", {rows, ctx.b.ConstInts(ctx.Name("begin"), {0}), k, last}, ctx.Name()), x.type);
  return Status::Ok();
}

// InvertPermutation(x): y[x[i]] = i, a ScatterElements of 0..n-1 at x (every entry of x's copy is overwritten).
Status InvertPermutation(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (x.type != DataType::kInt32 && x.type != DataType::kInt64) {
    return InvalidArgument(ctx.node.Where() + ": element type " + std::string(DataTypeName(x.type)));
  }
  const std::string n = CastTo(ctx, ctx.b.Op1("Size", {x.name}, ctx.Name("size")), x.type, "size_typed");
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, x.type, 0, "zero"));
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, x.type, 1, "one"));
  const std::string positions = ctx.b.Op1("Range", {zero, n, one}, ctx.Name("positions"));
  ctx.SetOutput(0, ctx.b.Op1("ScatterElements", {x.name, x.name, positions}, ctx.Name(), {ir::IntAttr("axis", 0)}),
                x.type);
  return Status::Ok();
}

// ReverseSequence(input, seq_lengths): ONNX's ReverseSequence, whose batch and time axes are 0 and 1.
Status ReverseSequence(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue lengths, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(int64_t seq_dim, ctx.node.Int("seq_dim"));
  const int64_t batch_dim = ctx.node.IntOr("batch_dim", 0);
  if (!((seq_dim == 0 && batch_dim == 1) || (seq_dim == 1 && batch_dim == 0))) {
    return Unsupported(ctx.node.Where() + ": seq_dim " + std::to_string(seq_dim) + " and batch_dim " +
                       std::to_string(batch_dim) + " (ONNX ReverseSequence takes dims 0 and 1)");
  }
  ctx.SetOutput(0,
                ctx.b.Op1("ReverseSequence", {x.name, AsInt64(ctx, lengths, "lengths")}, ctx.Name(),
                          {ir::IntAttr("batch_axis", batch_dim), ir::IntAttr("time_axis", seq_dim)}),
                x.type);
  return Status::Ok();
}

// Roll(input, shift, axis): per constant axis, the shifts for it summed (they may be computed), s = shift mod n
// (floor), then the last s entries before the first n - s.
Status Roll(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue shift, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(2, "axis"));
  const std::string shifts = ctx.b.Op1(
      "Reshape", {AsInt64(ctx, shift, "shift_int64"), ctx.b.ConstInts(ctx.Name("flat"), {-1})}, ctx.Name("shifts"));
  // Axes in order of first appearance, with the positions of their shifts.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> per_axis;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto it = std::find_if(per_axis.begin(), per_axis.end(), [&](const auto& p) { return p.first == axes[i]; });
    if (it == per_axis.end()) {
      per_axis.push_back({axes[i], {static_cast<int64_t>(i)}});
    } else {
      it->second.push_back(static_cast<int64_t>(i));
    }
  }
  std::string y = x.name;
  const std::string shape = ctx.b.Op1("Shape", {x.name}, ctx.Name("shape"));
  for (size_t a = 0; a < per_axis.size(); ++a) {
    const auto& [axis, positions] = per_axis[a];
    const std::string tag = "axis" + std::to_string(a);
    const std::string total =
        ctx.b.Op1("ReduceSum",
                  {ctx.b.Op1("Gather", {shifts, ctx.b.ConstInts(ctx.Name(tag + "_positions"), positions)},
                             ctx.Name(tag + "_shifts")),
                   ctx.b.ConstInts(ctx.Name(tag + "_sum_axis"), {0})},
                  ctx.Name(tag + "_shift"), {ir::IntAttr("keepdims", 1)});
    const std::string n = ShapeDim(ctx, shape, axis, tag + "_n");
    const std::string s = ctx.b.Op1("Mod", {total, n}, ctx.Name(tag + "_mod"), {ir::IntAttr("fmod", 0)});
    const std::string split = ctx.b.Op1("Sub", {n, s}, ctx.Name(tag + "_split"));
    const std::string axis_name = ctx.b.ConstInts(ctx.Name(tag), {axis});
    const std::string tail = ctx.b.Op1(
        "Slice", {y, split, ctx.b.ConstInts(ctx.Name(tag + "_end"), {std::numeric_limits<int64_t>::max()}), axis_name},
        ctx.Name(tag + "_tail"));
    const std::string head = ctx.b.Op1("Slice", {y, ctx.b.ConstInts(ctx.Name(tag + "_begin"), {0}), split, axis_name},
                                       ctx.Name(tag + "_head"));
    y = ctx.b.Op1("Concat", {tail, head}, a + 1 == per_axis.size() ? ctx.Name() : ctx.Name(tag + "_rolled"),
                  {ir::IntAttr("axis", axis)});
  }
  ctx.SetOutput(0, y, x.type);
  return Status::Ok();
}

}  // namespace

void AddDiagonalOps(std::map<std::string, OpFn>& t) {
  t["MatrixDiag"] = MatrixDiag;
  t["MatrixDiagV2"] = MatrixDiag;
  t["MatrixDiagV3"] = MatrixDiag;
  t["MatrixSetDiag"] = MatrixSetDiag;
  t["MatrixSetDiagV2"] = MatrixSetDiag;
  t["MatrixSetDiagV3"] = MatrixSetDiag;
  t["MatrixDiagPart"] = MatrixDiagPart;
  t["MatrixDiagPartV2"] = MatrixDiagPart;
  t["MatrixDiagPartV3"] = MatrixDiagPart;
  t["InvertPermutation"] = InvertPermutation;
  t["ReverseSequence"] = ReverseSequence;
  t["Roll"] = Roll;
}

}  // namespace onyx::convert::tf
