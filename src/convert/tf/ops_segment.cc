// Segment reductions (Segment*, UnsortedSegment*, SparseSegment*) and the TensorScatter* updates. ONNX has no
// segment operator: every output row is the reduction of the input rows a [segments x rows] boolean mask selects
// (the other rows replaced by the reduction's identity), which is exact in every type and keeps TF's values for
// empty segments. TensorScatterMax/Min group duplicate indices the same way (ScatterND's max/min need opset 18).
#include <limits>

#include "convert/tf/emit.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {
namespace {

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

// The element a reduction starts from, as a scalar of `type`.
Result<Tensor> IdentityOf(DataType type, SegmentKind kind) {
  Tensor out;
  ONYX_RETURN_IF_ERROR(Dispatch<AllFixedTypes>(type, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return Unsupported("boolean segments");
    } else {
      double v = 0;
      if (kind == SegmentKind::kProd) v = 1;
      // TF's UnsortedSegmentMax/Min fill empty segments with numeric_limits<T>::lowest() / max() (finite for floats).
      if (kind == SegmentKind::kMax) v = static_cast<double>(std::numeric_limits<T>::lowest());
      if (kind == SegmentKind::kMin) v = static_cast<double>(std::numeric_limits<T>::max());
      out = Tensor::Scalar<T>(FromDouble<T>(v));
      return Status::Ok();
    }
  }));
  return out;
}

// `v` of shape [S] reshaped to [S, 1, ..., 1] with as many 1s as `rows` (shape [N, ...]) has dims after the first.
std::string AlignWithRows(OpContext& ctx, const std::string& v, const std::string& rows, const std::string& tag) {
  const std::string rows_rank =
      ctx.b.Op1("Size", {ctx.b.Op1("Shape", {rows}, ctx.Name(tag + "_rows_shape"))}, ctx.Name(tag + "_rows_rank"));
  const std::string extra = ctx.b.Op1(
      "Reshape",
      {ctx.b.Op1("Sub", {rows_rank, ctx.b.ConstInts(ctx.Name(tag + "_one"), {1})}, ctx.Name(tag + "_extra_rank")),
       ctx.b.ConstInts(ctx.Name(tag + "_vector"), {1})},
      ctx.Name(tag + "_extra_rank_1d"));
  ir::Attribute one;
  one.name = "value";
  one.type = ir::AttrType::kTensor;
  one.t.tensor = Tensor::FromVector<int64_t>({1}, {1});
  const std::string ones = ctx.b.Op1("ConstantOfShape", {extra}, ctx.Name(tag + "_ones"), {one});
  const std::string shape = ctx.b.Op1("Concat", {ctx.b.Op1("Shape", {v}, ctx.Name(tag + "_shape")), ones},
                                      ctx.Name(tag + "_aligned_shape"), {ir::IntAttr("axis", 0)});
  return ctx.b.Op1("Reshape", {v, shape}, ctx.Name(tag + "_aligned"));
}

// The reduction over rows (shape [N, ...]) of the rows mask [S, N] selects for each of the S outputs.
Result<std::string> MaskedReduce(OpContext& ctx, const std::string& rows, DataType type, const std::string& mask2,
                                 SegmentKind kind, bool empty_is_zero, const std::string& out_name) {
  if (type == DataType::kBool || type == DataType::kString || type == DataType::kComplex64) {
    return Unsupported(ctx.node.Where() + ": element type " + std::string(DataTypeName(type)) +
                       " (segment reductions take numbers)");
  }
  if (kind == SegmentKind::kSqrtN && !IsFloatingPoint(type)) {
    return Unsupported(ctx.node.Where() + ": element type " + std::string(DataTypeName(type)) +
                       " (SqrtN reductions take floating-point numbers)");
  }
  // mask [S, N, 1, ...] against rows [1, N, ...]: the excluded rows become the identity.
  const std::string mask_shape_src =
      ctx.b.Op1("Unsqueeze", {rows, ctx.b.ConstInts(ctx.Name("row_axis"), {0})}, ctx.Name("rows_expanded"));
  const std::string mask = AlignWithRows(ctx, mask2, rows, "mask");
  ONYX_ASSIGN_OR_RETURN(Tensor identity, IdentityOf(type, kind));
  const std::string fill = ctx.b.Constant(ctx.Name("identity"), std::move(identity));
  const std::string masked = ctx.b.Op1("Where", {mask, mask_shape_src, fill}, ctx.Name("masked"));
  const bool averaged = kind == SegmentKind::kMean || kind == SegmentKind::kSqrtN;
  const bool needs_count = averaged || empty_is_zero;
  const std::string reduced_name = needs_count ? ctx.Name("reduced") : out_name;
  std::string reduced;
  switch (kind) {
    case SegmentKind::kSum:
    case SegmentKind::kMean:
    case SegmentKind::kSqrtN:
      reduced = ctx.b.Op1("ReduceSum", {masked, ctx.b.ConstInts(ctx.Name("segment_axis"), {1})}, reduced_name,
                          {ir::IntAttr("keepdims", 0)});
      break;
    case SegmentKind::kProd:
      reduced =
          ctx.b.Op1("ReduceProd", {masked}, reduced_name, {ir::IntsAttr("axes", {1}), ir::IntAttr("keepdims", 0)});
      break;
    case SegmentKind::kMax:
      reduced = ctx.b.Op1("ReduceMax", {masked}, reduced_name, {ir::IntsAttr("axes", {1}), ir::IntAttr("keepdims", 0)});
      break;
    case SegmentKind::kMin:
      reduced = ctx.b.Op1("ReduceMin", {masked}, reduced_name, {ir::IntsAttr("axes", {1}), ir::IntAttr("keepdims", 0)});
      break;
  }
  if (!needs_count) return reduced;
  // Rows per segment, as [S, 1, ...] of the data's type.
  const std::string count1 =
      ctx.b.Op1("ReduceSum", {CastTo(ctx, mask2, type, "mask_counted"), ctx.b.ConstInts(ctx.Name("count_axis"), {1})},
                ctx.Name("count"), {ir::IntAttr("keepdims", 0)});
  const std::string count = AlignWithRows(ctx, count1, rows, "count");
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(ctx, type, 0, "zero"));
  if (empty_is_zero) {
    const std::string nonempty = ctx.b.Op1("Greater", {count, zero}, ctx.Name("nonempty"));
    return ctx.b.Op1("Where", {nonempty, reduced, zero}, out_name);
  }
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(ctx, type, 1, "one"));
  std::string divisor = ctx.b.Op1("Max", {count, one}, ctx.Name("divisor"));  // empty segments: 0 / 1
  if (kind == SegmentKind::kSqrtN) divisor = ctx.b.Op1("Sqrt", {divisor}, ctx.Name("sqrt_divisor"));
  return ctx.b.Op1("Div", {reduced, divisor}, out_name);
}

// An int32/int64 input as int64 flattened to 1-D.
Result<std::string> Ids(OpContext& ctx, size_t i, const std::string& tag) {
  ONYX_ASSIGN_OR_RETURN(TfValue ids, ctx.Input(i));
  if (ids.type != DataType::kInt32 && ids.type != DataType::kInt64) {
    return InvalidArgument(ctx.node.Where() + ": " + tag + " of element type " + std::string(DataTypeName(ids.type)) +
                           " (int32 or int64 expected)");
  }
  return ctx.b.Op1("Reshape", {AsInt64(ctx, ids, tag + "_int64"), ctx.b.ConstInts(ctx.Name(tag + "_flat"), {-1})},
                   ctx.Name(tag + "_flattened"));
}

// An integer scalar input as an int64 scalar.
Result<std::string> ScalarInput(OpContext& ctx, size_t i, const std::string& tag) {
  ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
  return ctx.b.Op1("Reshape", {AsInt64(ctx, v, tag + "_int64"), ctx.b.ConstInts(ctx.Name(tag + "_scalar_shape"), {})},
                   ctx.Name(tag));
}

// 1 + the largest id: the segment count of the sorted Segment* and SparseSegment* ops (their ids are sorted, so
// this is TF's last id + 1).
std::string CountFromIds(OpContext& ctx, const std::string& ids) {
  const std::string largest = ctx.b.Op1("ReduceMax", {ids}, ctx.Name("largest_id"), {ir::IntAttr("keepdims", 0)});
  return ctx.b.Op1("Add", {largest, ctx.b.Constant(ctx.Name("one_id"), Tensor::Scalar<int64_t>(1))},
                   ctx.Name("num_segments"));
}

Status Emit(OpContext& ctx, const std::string& rows, DataType type, const std::string& ids,
            const std::string& num_segments, SegmentKind kind, bool empty_is_zero) {
  ONYX_ASSIGN_OR_RETURN(std::string out,
                        SegmentReduce(ctx, rows, type, ids, num_segments, kind, empty_is_zero, ctx.Name()));
  ctx.SetOutput(0, out, type);
  return Status::Ok();
}

// Segment*(data, segment_ids): sorted 1-D ids over data's first dim; empty segments (ids skipped) are 0, except
// SegmentProd's, which are 1.
template <SegmentKind kKind>
Status Segment(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue data, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string ids, Ids(ctx, 1, "segment_ids"));
  const bool zero_empty = kKind == SegmentKind::kMax || kKind == SegmentKind::kMin;
  return Emit(ctx, data.name, data.type, ids, CountFromIds(ctx, ids), kKind, zero_empty);
}

// UnsortedSegment*(data, segment_ids, num_segments): the ids' shape is a prefix of data's; both are flattened over
// it. Negative ids are dropped; empty segments hold the identity (lowest / highest value for Max / Min).
template <SegmentKind kKind>
Status UnsortedSegment(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue data, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue ids_in, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::string ids, Ids(ctx, 1, "segment_ids"));
  ONYX_ASSIGN_OR_RETURN(std::string num_segments, ScalarInput(ctx, 2, "num_segments"));
  const std::string ids_rank =
      ctx.b.Op1("Shape", {ctx.b.Op1("Shape", {ids_in.name}, ctx.Name("ids_shape"))}, ctx.Name("ids_rank"));
  const std::string row_shape = ctx.b.Op1("Slice",
                                          {ctx.b.Op1("Shape", {data.name}, ctx.Name("data_shape")), ids_rank,
                                           ctx.b.ConstInts(ctx.Name("to_end"), {kToEnd})},
                                          ctx.Name("row_shape"));
  const std::string rows_shape = ctx.b.Op1("Concat", {ctx.b.ConstInts(ctx.Name("any_rows"), {-1}), row_shape},
                                           ctx.Name("rows_shape"), {ir::IntAttr("axis", 0)});
  const std::string rows = ctx.b.Op1("Reshape", {data.name, rows_shape}, ctx.Name("rows"));
  return Emit(ctx, rows, data.type, ids, num_segments, kKind, false);
}

// SparseSegment*(data, indices, segment_ids[, num_segments]): the segments of data's rows `indices` selects.
template <SegmentKind kKind, bool kNumSegments>
Status SparseSegment(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue data, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string indices, Ids(ctx, 1, "indices"));
  ONYX_ASSIGN_OR_RETURN(std::string ids, Ids(ctx, 2, "segment_ids"));
  const std::string rows = ctx.b.Op1("Gather", {data.name, indices}, ctx.Name("rows"), {ir::IntAttr("axis", 0)});
  std::string num_segments;
  if (kNumSegments) {
    ONYX_ASSIGN_OR_RETURN(num_segments, ScalarInput(ctx, 3, "num_segments"));
  } else {
    num_segments = CountFromIds(ctx, ids);
  }
  return Emit(ctx, rows, data.type, ids, num_segments, kKind, false);
}

// The flattened form of TensorScatter*'s operands: indices [U, K] (int64) and updates [U, ...].
struct FlatScatter {
  std::string indices, updates;
};

Result<FlatScatter> Flatten(OpContext& ctx, const TfValue& indices, const TfValue& updates) {
  if (indices.type != DataType::kInt32 && indices.type != DataType::kInt64) {
    return InvalidArgument(ctx.node.Where() + ": indices of element type " + std::string(DataTypeName(indices.type)));
  }
  const std::string index_shape = ctx.b.Op1("Shape", {indices.name}, ctx.Name("indices_shape"));
  const std::string k = ctx.b.Op1(
      "Slice", {index_shape, ctx.b.ConstInts(ctx.Name("last"), {-1}), ctx.b.ConstInts(ctx.Name("to_end"), {kToEnd})},
      ctx.Name("index_depth"));
  const std::string minus_one = ctx.b.ConstInts(ctx.Name("any"), {-1});
  FlatScatter f;
  f.indices = ctx.b.Op1("Reshape",
                        {AsInt64(ctx, indices, "indices_int64"),
                         ctx.b.Op1("Concat", {minus_one, k}, ctx.Name("flat_indices_shape"), {ir::IntAttr("axis", 0)})},
                        ctx.Name("flat_indices"));
  const std::string batch_rank = ctx.b.Op1(
      "Sub", {ctx.b.Op1("Shape", {index_shape}, ctx.Name("indices_rank")), ctx.b.ConstInts(ctx.Name("one"), {1})},
      ctx.Name("batch_rank"));
  const std::string slice_shape = ctx.b.Op1("Slice",
                                            {ctx.b.Op1("Shape", {updates.name}, ctx.Name("updates_shape")), batch_rank,
                                             ctx.b.ConstInts(ctx.Name("slice_end"), {kToEnd})},
                                            ctx.Name("slice_shape"));
  f.updates = ctx.b.Op1("Reshape",
                        {updates.name, ctx.b.Op1("Concat", {minus_one, slice_shape}, ctx.Name("flat_updates_shape"),
                                                 {ir::IntAttr("axis", 0)})},
                        ctx.Name("flat_updates"));
  return f;
}

// TensorScatterAdd/Sub (and ScatterNdNonAliasingAdd): ScatterND with reduction "add" (duplicates accumulate, as in
// TF); Sub adds the negated updates.
template <bool kSub>
Status TensorScatterAdd(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue tensor, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue updates, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(FlatScatter f, Flatten(ctx, indices, updates));
  std::string u = f.updates;
  if (kSub) u = ctx.b.Op1("Neg", {u}, ctx.Name("negated"));
  ctx.SetOutput(0,
                ctx.b.Op1("ScatterND", {tensor.name, f.indices, u}, ctx.Name(), {ir::StringAttr("reduction", "add")}),
                tensor.type);
  return Status::Ok();
}

// TensorScatterMax/Min: each update is first combined with every update at the same index (a [U, U] mask of equal
// index tuples), so duplicates carry one value and ScatterND's write order cannot matter; then max/min with the
// tensor's element there.
template <SegmentKind kKind>
Status TensorScatterMaxMin(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue tensor, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue indices, ctx.Input(1));
  ONYX_ASSIGN_OR_RETURN(TfValue updates, ctx.Input(2));
  ONYX_ASSIGN_OR_RETURN(FlatScatter f, Flatten(ctx, indices, updates));
  const std::string equal =
      ctx.b.Op1("Equal",
                {ctx.b.Op1("Unsqueeze", {f.indices, ctx.b.ConstInts(ctx.Name("axis1"), {1})}, ctx.Name("indices_a")),
                 ctx.b.Op1("Unsqueeze", {f.indices, ctx.b.ConstInts(ctx.Name("axis0"), {0})}, ctx.Name("indices_b"))},
                ctx.Name("components_equal"));
  const std::string same = ctx.b.Op1("ReduceMin", {CastTo(ctx, equal, DataType::kInt32, "components_equal_int")},
                                     ctx.Name("same_index"), {ir::IntsAttr("axes", {2}), ir::IntAttr("keepdims", 0)});
  ONYX_ASSIGN_OR_RETURN(std::string grouped, MaskedReduce(ctx, f.updates, updates.type,
                                                          CastTo(ctx, same, DataType::kBool, "same_index_mask"), kKind,
                                                          false, ctx.Name("grouped")));
  const std::string current = ctx.b.Op1("GatherND", {tensor.name, f.indices}, ctx.Name("current"));
  const std::string combined =
      ctx.b.Op1(kKind == SegmentKind::kMax ? "Max" : "Min", {current, grouped}, ctx.Name("combined"));
  ctx.SetOutput(0, ctx.b.Op1("ScatterND", {tensor.name, f.indices, combined}, ctx.Name()), tensor.type);
  return Status::Ok();
}

}  // namespace

Result<std::string> SegmentReduce(OpContext& ctx, const std::string& rows, DataType type, const std::string& ids,
                                  const std::string& num_segments, SegmentKind kind, bool empty_is_zero,
                                  const std::string& out_name) {
  const std::string segments =
      ctx.b.Op1("Range",
                {ctx.b.Constant(ctx.Name("first_segment"), Tensor::Scalar<int64_t>(0)), num_segments,
                 ctx.b.Constant(ctx.Name("segment_step"), Tensor::Scalar<int64_t>(1))},
                ctx.Name("segments"));
  const std::string mask2 =
      ctx.b.Op1("Equal",
                {ctx.b.Op1("Unsqueeze", {segments, ctx.b.ConstInts(ctx.Name("column"), {1})}, ctx.Name("segment_col")),
                 ctx.b.Op1("Unsqueeze", {ids, ctx.b.ConstInts(ctx.Name("row"), {0})}, ctx.Name("ids_row"))},
                ctx.Name("segment_mask"));
  return MaskedReduce(ctx, rows, type, mask2, kind, empty_is_zero, out_name);
}

void AddSegmentOps(std::map<std::string, OpFn>& t) {
  using K = SegmentKind;
  t["SegmentSum"] = Segment<K::kSum>;
  t["SegmentProd"] = Segment<K::kProd>;
  t["SegmentMax"] = Segment<K::kMax>;
  t["SegmentMin"] = Segment<K::kMin>;
  t["SegmentMean"] = Segment<K::kMean>;
  t["UnsortedSegmentSum"] = UnsortedSegment<K::kSum>;
  t["UnsortedSegmentProd"] = UnsortedSegment<K::kProd>;
  t["UnsortedSegmentMax"] = UnsortedSegment<K::kMax>;
  t["UnsortedSegmentMin"] = UnsortedSegment<K::kMin>;
  t["SparseSegmentSum"] = SparseSegment<K::kSum, false>;
  t["SparseSegmentMean"] = SparseSegment<K::kMean, false>;
  t["SparseSegmentSqrtN"] = SparseSegment<K::kSqrtN, false>;
  t["SparseSegmentSumWithNumSegments"] = SparseSegment<K::kSum, true>;
  t["SparseSegmentMeanWithNumSegments"] = SparseSegment<K::kMean, true>;
  t["SparseSegmentSqrtNWithNumSegments"] = SparseSegment<K::kSqrtN, true>;
  t["TensorScatterAdd"] = TensorScatterAdd<false>;
  t["TensorScatterSub"] = TensorScatterAdd<true>;
  t["ScatterNdNonAliasingAdd"] = TensorScatterAdd<false>;
  t["TensorScatterMax"] = TensorScatterMaxMin<K::kMax>;
  t["TensorScatterMin"] = TensorScatterMaxMin<K::kMin>;
}

}  // namespace onyx::convert::tf
