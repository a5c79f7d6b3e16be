// Ragged tensors (RaggedRange, RaggedGather, RaggedTensorToTensor) and SparseFillEmptyRows. A ragged tensor is
// its flat values plus one row-splits vector per ragged dimension (row i holds values[splits[i]:splits[i+1]]).
// Every index is computed in int64 by comparisons, cumulative sums and gathers, so results are exact; the
// row each position belongs to is the count of row ends at or before it (O(positions * rows) comparisons).
#include "convert/tf/emit.h"
#include "convert/tf/nn_common.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {
namespace {

std::string I64(OpContext& ctx, int64_t v, const std::string& tag) {
  return ctx.b.Constant(ctx.Name(tag), Tensor::Scalar<int64_t>(v));
}

// Rows of lengths `sizes` (int64 [n]) laid end to end: their splits [n + 1] (0 then the running total), and for
// each of the sum(sizes) positions its row (`row`) and its offset inside the row (`offset`).
struct Layout {
  std::string splits, row, offset;
};
Layout LayOut(OpContext& ctx, const std::string& sizes, const std::string& tag) {
  Layout l;
  const std::string ends = ctx.b.Op1("CumSum", {sizes, I64(ctx, 0, tag + "_axis")}, ctx.Name(tag + "_ends"));
  l.splits = ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name(tag + "_zero"), {0}), ends}, ctx.Name(tag + "_splits"),
                       {ir::IntAttr("axis", 0)});
  const std::string total = ctx.b.Op1("ReduceSum", {sizes}, ctx.Name(tag + "_total"), {ir::IntAttr("keepdims", 0)});
  const std::string k =
      ctx.b.Op1("Range", {I64(ctx, 0, tag + "_start"), total, I64(ctx, 1, tag + "_step")}, ctx.Name(tag + "_k"));
  // row(k) = #{i : ends[i] <= k}
  const std::string passed = ctx.b.Op1(
      "LessOrEqual",
      {ctx.b.Op1("Unsqueeze", {ends, ctx.b.ConstInts(ctx.Name(tag + "_ax0"), {0})}, ctx.Name(tag + "_ends_row")),
       ctx.b.Op1("Unsqueeze", {k, ctx.b.ConstInts(ctx.Name(tag + "_ax1"), {1})}, ctx.Name(tag + "_k_col"))},
      ctx.Name(tag + "_passed"));
  l.row = ctx.b.Op1(
      "ReduceSum",
      {CastTo(ctx, passed, DataType::kInt64, tag + "_passed64"), ctx.b.ConstInts(ctx.Name(tag + "_sum_axis"), {1})},
      ctx.Name(tag + "_row"), {ir::IntAttr("keepdims", 0)});
  l.offset = ctx.b.Op1("Sub", {k, ctx.b.Op1("Gather", {l.splits, l.row}, ctx.Name(tag + "_row_start"))},
                       ctx.Name(tag + "_offset"));
  return l;
}

// v[1:] - v[:-1] of a splits vector: the row lengths.
std::string RowLengths(OpContext& ctx, const std::string& splits, const std::string& tag) {
  const std::string one = ctx.b.ConstInts(ctx.Name(tag + "_one"), {1});
  const std::string zero = ctx.b.ConstInts(ctx.Name(tag + "_zero"), {0});
  const std::string big = ctx.b.ConstInts(ctx.Name(tag + "_end"), {kInt64Max});
  const std::string minus1 = ctx.b.ConstInts(ctx.Name(tag + "_m1"), {-1});
  return ctx.b.Op1("Sub",
                   {ctx.b.Op1("Slice", {splits, one, big}, ctx.Name(tag + "_hi")),
                    ctx.b.Op1("Slice", {splits, zero, minus1}, ctx.Name(tag + "_lo"))},
                   ctx.Name(tag));
}

// RaggedRange(starts, limits, deltas) -> (rt_nested_splits [n + 1], rt_dense_values): row i is
// range(starts[i], limits[i], deltas[i]) (scalars broadcast). TF's sizes: 0 when delta points away from the
// limit, else ceil(|limit - start| / |delta|) (integer types: the rounded-up integer division). TF adds delta
// repeatedly; here value = start + j * delta, which is the same for integers and within a rounding for floats.
Status RaggedRange(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue starts_in, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue limits_in, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue deltas_in, ctx.Input(2));
  const DataType t = starts_in.type;
  const bool integral = t == DataType::kInt32 || t == DataType::kInt64;
  DataType tsplits = DataType::kInt64;
  if (ctx.node.Has("Tsplits")) {
    ONYX_ASSIGN_OR_RETURN(tsplits, ctx.node.Type("Tsplits"));
  }
  const std::string flat = ctx.b.ConstInts(ctx.Name("flat"), {-1});
  auto vec = [&](const TfValue& v, const char* what) {
    return ctx.b.Op1("Reshape", {v.name, flat}, ctx.Name(std::string(what) + "_vec"));
  };
  std::string s = vec(starts_in, "starts"), l = vec(limits_in, "limits"), d = vec(deltas_in, "deltas");
  const std::string n = ctx.b.Op1("Max",
                                  {ctx.b.Op1("Shape", {s}, ctx.Name("n_s")), ctx.b.Op1("Shape", {l}, ctx.Name("n_l")),
                                   ctx.b.Op1("Shape", {d}, ctx.Name("n_d"))},
                                  ctx.Name("n"));
  s = ctx.b.Op1("Expand", {s, n}, ctx.Name("starts_n"));
  l = ctx.b.Op1("Expand", {l, n}, ctx.Name("limits_n"));
  d = ctx.b.Op1("Expand", {d, n}, ctx.Name("deltas_n"));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, t, 0, "zero"));
  const std::string span = ctx.b.Op1("Sub", {l, s}, ctx.Name("span"));
  const std::string away = ctx.b.Op1(
      "Or",
      {ctx.b.Op1("And",
                 {ctx.b.Op1("Greater", {d, zero}, ctx.Name("up")), ctx.b.Op1("Less", {span, zero}, ctx.Name("below"))},
                 ctx.Name("up_below")),
       ctx.b.Op1(
           "And",
           {ctx.b.Op1("Less", {d, zero}, ctx.Name("down")), ctx.b.Op1("Greater", {span, zero}, ctx.Name("above"))},
           ctx.Name("down_above"))},
      ctx.Name("away"));
  std::string size;
  if (integral) {
    const std::string s64 = CastTo(ctx, ctx.b.Op1("Abs", {span}, ctx.Name("abs_span")), DataType::kInt64, "span64");
    const std::string d64 = CastTo(ctx, ctx.b.Op1("Abs", {d}, ctx.Name("abs_delta")), DataType::kInt64, "delta64");
    size = ctx.b.Op1(
        "Div",
        {ctx.b.Op1("Sub", {ctx.b.Op1("Add", {s64, d64}, ctx.Name("sum")), I64(ctx, 1, "one")}, ctx.Name("up_to")), d64},
        ctx.Name("size_raw"));
  } else {
    size =
        CastTo(ctx,
               ctx.b.Op1("Ceil", {ctx.b.Op1("Abs", {ctx.b.Op1("Div", {span, d}, ctx.Name("steps"))}, ctx.Name("abs"))},
                         ctx.Name("ceil")),
               DataType::kInt64, "size_raw64");
  }
  size = ctx.b.Op1("Where", {away, I64(ctx, 0, "none"), size}, ctx.Name("size"));
  const Layout lay = LayOut(ctx, size, "rows");
  const std::string values = ctx.b.Op1(
      "Add",
      {ctx.b.Op1("Gather", {s, lay.row}, ctx.Name("row_start")),
       ctx.b.Op1("Mul",
                 {CastTo(ctx, lay.offset, t, "offset_t"), ctx.b.Op1("Gather", {d, lay.row}, ctx.Name("row_delta"))},
                 ctx.Name("steps_in"))},
      ctx.Name("values"));
  ctx.SetOutput(0, tsplits == DataType::kInt64 ? lay.splits : CastTo(ctx, lay.splits, tsplits, "splits_out"), tsplits);
  ctx.SetOutput(1, values, t);
  return Status::Ok();
}

// RaggedGather(params_nested_splits..., params_dense_values, indices) -> (output_nested_splits...,
// output_dense_values): the rows `indices` of the ragged params. Indices of rank r add r - 1 outer uniform
// ragged dimensions (OUTPUT_RAGGED_RANK = PARAMS_RAGGED_RANK + r - 1). Level by level, the chosen rows' value
// ranges [splits[row], splits[row + 1]) are laid end to end and become the rows chosen at the next level.
Status RaggedGather(OpContext& ctx) {
  const size_t levels = ctx.num_inputs() - 2;
  const int64_t out_rank = ctx.node.IntOr("OUTPUT_RAGGED_RANK", static_cast<int64_t>(levels));
  if (levels < 1 || out_rank < static_cast<int64_t>(levels)) {
    return InvalidArgument(ctx.node.Where() + ": " + std::to_string(levels) + " params splits for OUTPUT_RAGGED_RANK " +
                           std::to_string(out_rank));
  }
  const int64_t extra = out_rank - static_cast<int64_t>(levels);  // rank(indices) - 1
  ONYX_ASSIGN_OR_RETURN(TfValue values, ctx.Input(levels));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(levels + 1));
  ONYX_ASSIGN_OR_RETURN(TfValue first_split, ctx.Input(0));
  // Tsplits, not the Const's type: TF.js stores int64 weights as int32.
  DataType tsplits = first_split.type;
  if (ctx.node.Has("Tsplits")) {
    ONYX_ASSIGN_OR_RETURN(tsplits, ctx.node.Type("Tsplits"));
  }
  const std::string idx = AsInt64(ctx, indices, "indices64");
  std::string rows = ctx.b.Op1("Reshape", {idx, ctx.b.ConstInts(ctx.Name("flat"), {-1})}, ctx.Name("rows0"));
  std::vector<std::string> out_splits;
  if (extra > 0) {
    // Splits of the uniform outer dims: for indices [d0, ..., dr], level j has prod(d0..dj) rows of d(j+1) each.
    const std::string shape = ctx.b.Op1("Shape", {idx}, ctx.Name("indices_shape"));
    for (int64_t j = 0; j < extra; ++j) {
      const std::string tag = "outer" + std::to_string(j);
      const std::string count = ctx.b.Op1("ReduceProd",
                                          {ctx.b.Op1("Slice",
                                                     {shape, ctx.b.ConstInts(ctx.Name(tag + "_b"), {0}),
                                                      ctx.b.ConstInts(ctx.Name(tag + "_e"), {j + 1})},
                                                     ctx.Name(tag + "_dims"))},
                                          ctx.Name(tag + "_rows"), {ir::IntAttr("keepdims", 0)});
      const std::string width = ctx.b.Op1("Squeeze",
                                          {ctx.b.Op1("Slice",
                                                     {shape, ctx.b.ConstInts(ctx.Name(tag + "_wb"), {j + 1}),
                                                      ctx.b.ConstInts(ctx.Name(tag + "_we"), {j + 2})},
                                                     ctx.Name(tag + "_width1")),
                                           ctx.b.ConstInts(ctx.Name(tag + "_sq"), {0})},
                                          ctx.Name(tag + "_width"));
      const std::string pos = ctx.b.Op1(
          "Range",
          {I64(ctx, 0, tag + "_start"), ctx.b.Op1("Add", {count, I64(ctx, 1, tag + "_one")}, ctx.Name(tag + "_n1")),
           I64(ctx, 1, tag + "_step")},
          ctx.Name(tag + "_pos"));
      out_splits.push_back(ctx.b.Op1("Mul", {pos, width}, ctx.Name(tag + "_splits")));
    }
  }
  for (size_t level = 0; level < levels; ++level) {
    const std::string tag = "level" + std::to_string(level);
    ONYX_ASSIGN_OR_RETURN(TfValue sp_in, ctx.Input(level));
    const std::string sp = AsInt64(ctx, sp_in, tag + "_splits64");
    const std::string starts = ctx.b.Op1("Gather", {sp, rows}, ctx.Name(tag + "_starts"));
    const std::string ends =
        ctx.b.Op1("Gather", {sp, ctx.b.Op1("Add", {rows, I64(ctx, 1, tag + "_one")}, ctx.Name(tag + "_next"))},
                  ctx.Name(tag + "_ends"));
    const Layout lay = LayOut(ctx, ctx.b.Op1("Sub", {ends, starts}, ctx.Name(tag + "_sizes")), tag);
    out_splits.push_back(lay.splits);
    rows = ctx.b.Op1("Add", {ctx.b.Op1("Gather", {starts, lay.row}, ctx.Name(tag + "_base")), lay.offset},
                     ctx.Name(tag + "_rows"));
  }
  for (size_t k = 0; k < out_splits.size(); ++k) {
    const std::string& v = out_splits[k];
    ctx.SetOutput(static_cast<int>(k),
                  tsplits == DataType::kInt64 ? v : CastTo(ctx, v, tsplits, "splits_out" + std::to_string(k)), tsplits);
  }
  ctx.SetOutput(static_cast<int>(out_splits.size()),
                ctx.b.Op1("Gather", {values.name, rows}, ctx.Name("values"), {ir::IntAttr("axis", 0)}), values.type);
  return Status::Ok();
}

// RaggedTensorToTensor(shape, values, default_value, row_partition_tensors...) with row_partition_types
// ROW_SPLITS (every level) or FIRST_DIM_SIZE then VALUE_ROWIDS (every level). The dense result [D0, ..., DR,
// inner...] has TF's dims: D0 the row count, D(l+1) the longest row of level l, each replaced by `shape`'s entry
// where that is >= 0 (rows are then cut or padded). Every output position is a gather: along each level the
// position either falls inside its row (and names a row of the next level) or not (default_value).
Status RaggedTensorToTensor(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue shape_in, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue values, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue default_value, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> types, ctx.node.Strings("row_partition_types"));
  if (types.size() != ctx.num_inputs() - 3 || types.empty()) {
    return InvalidArgument(ctx.node.Where() + ": " + std::to_string(types.size()) + " row_partition_types for " +
                           std::to_string(ctx.num_inputs() - 3) + " row partition tensors");
  }
  const bool rowids = types[0] == "FIRST_DIM_SIZE";
  for (size_t k = rowids ? 1 : 0; k < types.size(); ++k) {
    if (types[k] != (rowids ? "VALUE_ROWIDS" : "ROW_SPLITS")) {
      return Unsupported(ctx.node.Where() + ": row_partition_types entry '" + types[k] +
                         "' (supported: all ROW_SPLITS, or FIRST_DIM_SIZE then VALUE_ROWIDS)");
    }
  }
  // Every level as row splits.
  std::vector<std::string> splits;
  if (rowids) {
    ONYX_ASSIGN_OR_RETURN(TfValue first, ctx.Input(3));
    std::string nrows = ctx.b.Op1(
        "Reshape", {AsInt64(ctx, first, "first_dim64"), ctx.b.ConstInts(ctx.Name("scalar"), {})}, ctx.Name("nrows0"));
    for (size_t k = 1; k < types.size(); ++k) {
      const std::string tag = "level" + std::to_string(k - 1);
      ONYX_ASSIGN_OR_RETURN(TfValue ids_in, ctx.Input(3 + k));
      const std::string ids = AsInt64(ctx, ids_in, tag + "_rowids64");
      // splits[i] = #{j : rowids[j] < i}, i in [0, nrows]
      const std::string i = ctx.b.Op1(
          "Range",
          {I64(ctx, 0, tag + "_start"), ctx.b.Op1("Add", {nrows, I64(ctx, 1, tag + "_one")}, ctx.Name(tag + "_n1")),
           I64(ctx, 1, tag + "_step")},
          ctx.Name(tag + "_i"));
      const std::string before = ctx.b.Op1(
          "Less",
          {ctx.b.Op1("Unsqueeze", {ids, ctx.b.ConstInts(ctx.Name(tag + "_ax0"), {0})}, ctx.Name(tag + "_ids_row")),
           ctx.b.Op1("Unsqueeze", {i, ctx.b.ConstInts(ctx.Name(tag + "_ax1"), {1})}, ctx.Name(tag + "_i_col"))},
          ctx.Name(tag + "_before"));
      const std::string sp = ctx.b.Op1(
          "ReduceSum",
          {CastTo(ctx, before, DataType::kInt64, tag + "_before64"), ctx.b.ConstInts(ctx.Name(tag + "_axis"), {1})},
          ctx.Name(tag + "_splits"), {ir::IntAttr("keepdims", 0)});
      splits.push_back(sp);
      nrows = ctx.b.Op1("Size", {ids}, ctx.Name(tag + "_values"));  // the next level's rows
    }
  } else {
    for (size_t k = 0; k < types.size(); ++k) {
      ONYX_ASSIGN_OR_RETURN(TfValue sp, ctx.Input(3 + k));
      splits.push_back(AsInt64(ctx, sp, "splits64_" + std::to_string(k)));
    }
  }
  const int64_t ragged = static_cast<int64_t>(splits.size());
  // TF's dims, then `shape`'s where given.
  std::vector<std::string> dims;
  dims.push_back(ctx.b.Op1(
      "Sub", {ctx.b.Op1("Shape", {splits[0]}, ctx.Name("splits0_size")), ctx.b.ConstInts(ctx.Name("one_vec"), {1})},
      ctx.Name("dim0")));
  for (int64_t l = 0; l < ragged; ++l) {
    const std::string tag = "len" + std::to_string(l);
    const std::string lens =
        ctx.b.Op1("Concat", {RowLengths(ctx, splits[l], tag), ctx.b.ConstInts(ctx.Name(tag + "_zero"), {0})},
                  ctx.Name(tag + "_or_zero"), {ir::IntAttr("axis", 0)});
    dims.push_back(ctx.b.Op1("ReduceMax", {lens}, ctx.Name(tag + "_max"), {ir::IntAttr("keepdims", 1)}));
  }
  const std::string vshape = ctx.b.Op1("Shape", {values.name}, ctx.Name("values_shape"));
  const std::string inner = ctx.b.Op1(
      "Slice", {vshape, ctx.b.ConstInts(ctx.Name("inner_b"), {1}), ctx.b.ConstInts(ctx.Name("inner_e"), {kInt64Max})},
      ctx.Name("inner"));
  dims.push_back(inner);
  const std::string tf_shape = ctx.b.Op1("Concat", dims, ctx.Name("tf_shape"), {ir::IntAttr("axis", 0)});
  const std::string wanted = AsInt64(ctx, shape_in, "shape64");
  const std::string out_shape =
      ctx.b.Op1("Where", {ctx.b.Op1("Less", {wanted, I64(ctx, 0, "zero")}, ctx.Name("unset")), tf_shape, wanted},
                ctx.Name("out_shape"));
  // Index grids: axis a of the R + 1 outer axes as a [1, .., D_a, .., 1] range.
  auto grid = [&](int64_t a) {
    const std::string tag = "axis" + std::to_string(a);
    const std::string d = ctx.b.Op1("Squeeze",
                                    {ctx.b.Op1("Slice",
                                               {out_shape, ctx.b.ConstInts(ctx.Name(tag + "_b"), {a}),
                                                ctx.b.ConstInts(ctx.Name(tag + "_e"), {a + 1})},
                                               ctx.Name(tag + "_d1")),
                                     ctx.b.ConstInts(ctx.Name(tag + "_sq"), {0})},
                                    ctx.Name(tag + "_d"));
    const std::string r =
        ctx.b.Op1("Range", {I64(ctx, 0, tag + "_start"), d, I64(ctx, 1, tag + "_step")}, ctx.Name(tag + "_range"));
    std::vector<int64_t> shape(static_cast<size_t>(ragged + 1), 1);
    shape[static_cast<size_t>(a)] = -1;
    return ctx.b.Op1("Reshape", {r, ctx.b.ConstInts(ctx.Name(tag + "_shape"), shape)}, ctx.Name(tag + "_grid"));
  };
  // Invalid positions point one past the last row of their level; each splits vector is extended by its last
  // entry so that row has length 0, and the values by default_value.
  auto last_of = [&](const std::string& v, const std::string& tag) {
    return ctx.b.Op1(
        "Slice", {v, ctx.b.ConstInts(ctx.Name(tag + "_b"), {-1}), ctx.b.ConstInts(ctx.Name(tag + "_e"), {kInt64Max})},
        ctx.Name(tag));
  };
  std::string row = grid(0);
  std::string rows_here = ctx.b.Op1("Squeeze", {dims[0], ctx.b.ConstInts(ctx.Name("dim0_sq"), {0})}, ctx.Name("nrows"));
  std::string valid = ctx.b.Op1("Less", {row, rows_here}, ctx.Name("valid0"));
  for (int64_t l = 0; l < ragged; ++l) {
    const std::string tag = "walk" + std::to_string(l);
    const std::string& sp = splits[static_cast<size_t>(l)];
    const std::string ext =
        ctx.b.Op1("Concat", {sp, last_of(sp, tag + "_last")}, ctx.Name(tag + "_ext"), {ir::IntAttr("axis", 0)});
    row = ctx.b.Op1("Where", {valid, row, rows_here}, ctx.Name(tag + "_row"));
    const std::string start = ctx.b.Op1("Gather", {ext, row}, ctx.Name(tag + "_start"));
    const std::string len = ctx.b.Op1(
        "Sub",
        {ctx.b.Op1("Gather", {ext, ctx.b.Op1("Add", {row, I64(ctx, 1, tag + "_one")}, ctx.Name(tag + "_next"))},
                   ctx.Name(tag + "_end")),
         start},
        ctx.Name(tag + "_len"));
    const std::string j = grid(l + 1);
    valid = ctx.b.Op1("And", {valid, ctx.b.Op1("Less", {j, len}, ctx.Name(tag + "_inside"))}, ctx.Name(tag + "_valid"));
    row = ctx.b.Op1("Add", {start, j}, ctx.Name(tag + "_child"));
    rows_here = ctx.b.Op1("Squeeze", {last_of(sp, tag + "_total1"), ctx.b.ConstInts(ctx.Name(tag + "_tsq"), {0})},
                          ctx.Name(tag + "_total"));
  }
  const std::string nvalues = ctx.b.Op1(
      "Squeeze",
      {ctx.b.Op1("Slice", {vshape, ctx.b.ConstInts(ctx.Name("nv_b"), {0}), ctx.b.ConstInts(ctx.Name("nv_e"), {1})},
                 ctx.Name("nvalues1")),
       ctx.b.ConstInts(ctx.Name("nv_sq"), {0})},
      ctx.Name("nvalues"));
  row = ctx.b.Op1("Where", {valid, row, nvalues}, ctx.Name("value_index"));
  const std::string fill = ctx.b.Op1(
      "Expand",
      {ctx.b.Op1("Unsqueeze",
                 {AsType(ctx, default_value, values.type, "default_t"), ctx.b.ConstInts(ctx.Name("d_ax"), {0})},
                 ctx.Name("default_row")),
       ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("one_row"), {1}), inner}, ctx.Name("fill_shape"),
                 {ir::IntAttr("axis", 0)})},
      ctx.Name("fill"));
  const std::string table = ctx.b.Op1("Concat", {values.name, fill}, ctx.Name("values_ext"), {ir::IntAttr("axis", 0)});
  ctx.SetOutput(0, ctx.b.Op1("Gather", {table, row}, ctx.Name("dense"), {ir::IntAttr("axis", 0)}), values.type);
  return Status::Ok();
}

// SparseFillEmptyRows(indices [N, R], values [N], dense_shape [R], default_value) -> (output_indices,
// output_values, empty_row_indicator [dense_shape[0]], reverse_index_map [N]). As TF's kernel lays them out: rows
// in order, each row's entries in input order, an empty row holding one entry [row, 0, ...] = default_value.
Status SparseFillEmptyRows(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue indices_in, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue values, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue shape_in, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(TfValue default_value, ctx.Input(3));
  const std::string idx = AsInt64(ctx, indices_in, "indices64");
  const std::string shape = AsInt64(ctx, shape_in, "shape64");
  const std::string rows =
      ctx.b.Op1("Squeeze",
                {ctx.b.Op1("Slice",
                           {idx, ctx.b.ConstInts(ctx.Name("c0"), {0}), ctx.b.ConstInts(ctx.Name("c1"), {1}),
                            ctx.b.ConstInts(ctx.Name("c_axis"), {1})},
                           ctx.Name("rows1")),
                 ctx.b.ConstInts(ctx.Name("rows_sq"), {1})},
                ctx.Name("rows"));
  const std::string nrows =
      ctx.b.Op1("Squeeze",
                {ctx.b.Op1("Slice", {shape, ctx.b.ConstInts(ctx.Name("s0"), {0}), ctx.b.ConstInts(ctx.Name("s1"), {1})},
                           ctx.Name("nrows1")),
                 ctx.b.ConstInts(ctx.Name("nrows_sq"), {0})},
                ctx.Name("nrows"));
  const std::string r = ctx.b.Op1("Range", {I64(ctx, 0, "r_start"), nrows, I64(ctx, 1, "r_step")}, ctx.Name("row_ids"));
  const std::string ax0 = ctx.b.ConstInts(ctx.Name("ax0"), {0});
  const std::string ax1 = ctx.b.ConstInts(ctx.Name("ax1"), {1});
  auto count = [&](const std::string& mask, const std::string& tag) {
    return ctx.b.Op1("ReduceSum", {CastTo(ctx, mask, DataType::kInt64, tag + "_64"), ax1}, ctx.Name(tag),
                     {ir::IntAttr("keepdims", 0)});
  };
  const std::string rows_row = ctx.b.Op1("Unsqueeze", {rows, ax0}, ctx.Name("rows_row"));
  const std::string rows_col = ctx.b.Op1("Unsqueeze", {rows, ax1}, ctx.Name("rows_col"));
  // Entries per row; an empty row gets one.
  const std::string per_row =
      count(ctx.b.Op1("Equal", {ctx.b.Op1("Unsqueeze", {r, ax1}, ctx.Name("r_col")), rows_row}, ctx.Name("in_row")),
            "per_row");
  const std::string empty = ctx.b.Op1("Equal", {per_row, I64(ctx, 0, "zero")}, ctx.Name("empty"));
  const std::string slots = ctx.b.Op1("Max", {per_row, I64(ctx, 1, "one")}, ctx.Name("slots"));
  const Layout lay = LayOut(ctx, slots, "out");  // lay.row: the row of every output entry
  // Entry i goes to splits[row_i] + #{j < i : row_j == row_i}.
  const std::string n = ctx.b.Op1("Size", {rows}, ctx.Name("n"));
  const std::string i = ctx.b.Op1("Range", {I64(ctx, 0, "i_start"), n, I64(ctx, 1, "i_step")}, ctx.Name("i"));
  const std::string earlier = ctx.b.Op1("And",
                                        {ctx.b.Op1("Equal", {rows_col, rows_row}, ctx.Name("same_row")),
                                         ctx.b.Op1("Less",
                                                   {ctx.b.Op1("Unsqueeze", {i, ax0}, ctx.Name("j_row")),
                                                    ctx.b.Op1("Unsqueeze", {i, ax1}, ctx.Name("i_col"))},
                                                   ctx.Name("before"))},
                                        ctx.Name("earlier"));
  const std::string pos =
      ctx.b.Op1("Add", {ctx.b.Op1("Gather", {lay.splits, rows}, ctx.Name("row_start")), count(earlier, "rank_in_row")},
                ctx.Name("reverse_index_map"));
  const std::string pos_col = ctx.b.Op1("Unsqueeze", {pos, ax1}, ctx.Name("pos_col"));
  // Defaults everywhere ([row, 0, ...], default_value), then the entries scattered over them.
  const std::string rank = ctx.b.Op1("Shape", {shape}, ctx.Name("rank"));
  const std::string tail = ctx.b.Op1(
      "Expand",
      {I64(ctx, 0, "zero_fill"),
       ctx.b.Op1("Concat",
                 {ctx.b.Op1("Shape", {lay.row}, ctx.Name("n_out")), ctx.b.Op1("Sub", {rank, ax1}, ctx.Name("rank_m1"))},
                 ctx.Name("tail_shape"), {ir::IntAttr("axis", 0)})},
      ctx.Name("tail"));
  const std::string base_idx = ctx.b.Op1("Concat", {ctx.b.Op1("Unsqueeze", {lay.row, ax1}, ctx.Name("out_rows")), tail},
                                         ctx.Name("default_indices"), {ir::IntAttr("axis", 1)});
  const std::string out_idx = ctx.b.Op1("ScatterND", {base_idx, pos_col, idx}, ctx.Name("indices_out"));
  const std::string base_val = ctx.b.Op1(
      "Expand",
      {AsType(ctx, default_value, values.type, "default_t"), ctx.b.Op1("Shape", {lay.row}, ctx.Name("n_vals"))},
      ctx.Name("default_values"));
  const std::string out_val = ctx.b.Op1("ScatterND", {base_val, pos_col, values.name}, ctx.Name("values_out"));
  ctx.SetOutput(0, out_idx, DataType::kInt64);
  ctx.SetOutput(1, out_val, values.type);
  ctx.SetOutput(2, empty, DataType::kBool);
  ctx.SetOutput(3, pos, DataType::kInt64);
  return Status::Ok();
}

}  // namespace

void AddRaggedOps(std::map<std::string, OpFn>& table) {
  table["RaggedRange"] = RaggedRange;
  table["RaggedGather"] = RaggedGather;
  table["RaggedTensorToTensor"] = RaggedTensorToTensor;
  table["SparseFillEmptyRows"] = SparseFillEmptyRows;
}

}  // namespace onyx::convert::tf
