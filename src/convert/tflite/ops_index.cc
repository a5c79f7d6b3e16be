// Operators driven by index data: segment reductions, HASHTABLE_LOOKUP, BUCKETIZE, WHERE, UNIQUE,
// SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE, the matrix diagonals and BROADCAST_ARGS. Most become comparisons against
// an index range (a one-hot mask) followed by a Where and a reduction, which ONNX computes exactly.
#include <limits>

#include "convert/common/checked_product.h"
#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {
namespace {

std::string CastTo(OpContext& c, const std::string& v, DataType type, const std::string& what) {
  return c.b.Op1("Cast", {v}, c.Name(what), {ir::IntAttr("to", static_cast<int64_t>(type))});
}

Result<int64_t> Product(OpContext& c, const std::vector<int64_t>& dims, const std::string& what) {
  for (int64_t d : dims) {
    if (d < 0) return c.Unsupported(what + " with an unknown dimension");
  }
  const std::optional<int64_t> n = CheckedProduct(dims);
  if (!n) return c.Error(what + "'s dimensions multiply past 2^63");
  return *n;
}

// The real-valued ONNX type of output k (float for quantized tensors).
Result<DataType> RealType(OpContext& c, size_t k = 0) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor(k));
  return OnnxType(t->quantized() ? TensorType::kFloat32 : t->type);
}

enum class SegmentReduce { kSum, kProd, kMax, kMin };

// SEGMENT_SUM(data, segment_ids) (sorted ids, num_segments = max + 1) and UNSORTED_SEGMENT_*(data, segment_ids,
// num_segments). segment_ids' shape is a prefix of data's: both are flattened to N rows, each row compared with
// every segment index (a [N, S] mask), the rows kept where they match (elsewhere the reduction's identity: 0, 1,
// the type's lowest or highest value, which TFLite also gives empty segments) and reduced over N. Ids outside
// [0, S) match no segment.
Status Segment(OpContext& c, SegmentReduce kind, bool sorted) {
  ONYX_ASSIGN_OR_RETURN(std::string data, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string ids, Int64Input(c, 1, "segment_ids"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> data_shape, c.InShape(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ids_shape, c.InShape(1));
  if (ids_shape.size() > data_shape.size()) return c.Error("segment_ids has a higher rank than data");
  ONYX_ASSIGN_OR_RETURN(int64_t n, Product(c, ids_shape, "segment_ids"));
  std::vector<int64_t> rest(data_shape.begin() + static_cast<std::ptrdiff_t>(ids_shape.size()), data_shape.end());
  ONYX_ASSIGN_OR_RETURN(int64_t row, Product(c, rest, "data"));
  ids = c.b.Op1("Reshape", {ids, c.b.ConstInts(c.Name("ids_shape"), {n, 1})}, c.Name("ids"));
  data = c.b.Op1("Reshape", {data, c.b.ConstInts(c.Name("rows_shape"), {n, 1, row})}, c.Name("rows"));
  std::string count;
  if (sorted) {
    // num_segments = max(ids) + 1 (a run-time value unless the ids are constant).
    std::string top =
        c.b.Op1("ReduceMax", {ids}, c.Name("max_id"), {ir::IntAttr("keepdims", 0)});  // all axes: a scalar
    count = c.b.Op1("Add", {top, c.b.Constant(c.Name("one"), Tensor::Scalar<int64_t>(1))}, c.Name("num_segments"));
  } else {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> num, c.ConstInts(2, "num_segments"));
    if (num.size() != 1 || num[0] < 0) return c.Error("num_segments must be one non-negative value");
    count = c.b.Constant(c.Name("num_segments"), Tensor::Scalar<int64_t>(num[0]));
  }
  std::string range = c.b.Op1("Range",
                              {c.b.Constant(c.Name("zero"), Tensor::Scalar<int64_t>(0)), count,
                               c.b.Constant(c.Name("step"), Tensor::Scalar<int64_t>(1))},
                              c.Name("segments"));
  std::string mask = c.b.Op1("Equal", {ids, range}, c.Name("mask"));  // [N, S]
  mask = c.b.Op1("Unsqueeze", {mask, c.b.ConstInts(c.Name("mask_axes"), {2})}, c.Name("mask3"));
  ONYX_ASSIGN_OR_RETURN(DataType type, RealType(c));
  const bool is_float = type == DataType::kFloat || type == DataType::kDouble;
  double identity = 0;
  const char* reduce = "ReduceSum";
  if (kind == SegmentReduce::kProd) {
    identity = 1;
    reduce = "ReduceProd";
  } else if (kind == SegmentReduce::kMax) {
    reduce = "ReduceMax";
    identity = is_float ? -std::numeric_limits<float>::max()
                        : (type == DataType::kInt32 ? std::numeric_limits<int32_t>::min()
                                                    : static_cast<double>(std::numeric_limits<int64_t>::min()));
  } else if (kind == SegmentReduce::kMin) {
    reduce = "ReduceMin";
    identity = is_float ? std::numeric_limits<float>::max()
                        : (type == DataType::kInt32 ? std::numeric_limits<int32_t>::max()
                                                    : static_cast<double>(std::numeric_limits<int64_t>::max()));
  }
  if ((kind == SegmentReduce::kMax || kind == SegmentReduce::kMin) && type != DataType::kFloat &&
      type != DataType::kInt32) {
    return c.Unsupported("a segment maximum or minimum of this type");
  }
  ONYX_ASSIGN_OR_RETURN(std::string fill, ScalarConst(c, type, identity, "identity"));
  std::string picked = c.b.Op1("Where", {mask, data, fill}, c.Name("picked"));  // [N, S, row]
  std::string y;
  if (kind == SegmentReduce::kSum) {
    y = c.b.Op1("ReduceSum", {picked, c.b.ConstInts(c.Name("axes"), {0})}, c.Name("segment_sum"),
                {ir::IntAttr("keepdims", 0)});
  } else {
    y = c.b.Op1(reduce, {picked}, c.Name("segment_reduce"), {ir::IntsAttr("axes", {0}), ir::IntAttr("keepdims", 0)});
  }
  std::vector<int64_t> out_shape = {-1};
  out_shape.insert(out_shape.end(), rest.begin(), rest.end());
  return c.SetOutput(c.b.Op1("Reshape", {y, c.b.ConstInts(c.Name("out_shape"), out_shape)}, c.Name("segments_out")));
}

// HASHTABLE_LOOKUP(lookup [N], keys [K], values [K, ...]) -> output [N, ...] (zeros for missing keys), hits [N]
// uint8: each lookup compared with every key; ArgMax finds the matching key, ReduceMax whether there is one.
Status HashtableLookup(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string lookup, c.RawInput(0));
  ONYX_ASSIGN_OR_RETURN(std::string keys, c.RawInput(1));
  ONYX_ASSIGN_OR_RETURN(std::string values, c.Input(2));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> value_shape, c.InShape(2));
  if (value_shape.empty()) return c.Error("values must have at least one dimension");
  std::string eq = c.b.Op1(
      "Equal", {c.b.Op1("Unsqueeze", {lookup, c.b.ConstInts(c.Name("last"), {-1})}, c.Name("lookup_column")), keys},
      c.Name("matches"));
  eq = CastTo(c, eq, DataType::kInt32, "matches_int");
  std::string which =
      c.b.Op1("ArgMax", {eq}, c.Name("key_index"), {ir::IntAttr("axis", 1), ir::IntAttr("keepdims", 0)});
  std::string hit = c.b.Op1("ReduceMax", {eq}, c.Name("hit"), {ir::IntsAttr("axes", {1}), ir::IntAttr("keepdims", 0)});
  std::string rows = c.b.Op1("Gather", {values, which}, c.Name("rows"), {ir::IntAttr("axis", 0)});
  std::vector<int64_t> axes;
  for (size_t d = 1; d < value_shape.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  std::string found = CastTo(c, hit, DataType::kBool, "found");
  if (!axes.empty())
    found = c.b.Op1("Unsqueeze", {found, c.b.ConstInts(c.Name("row_axes"), axes)}, c.Name("found_rows"));
  ONYX_ASSIGN_OR_RETURN(DataType type, RealType(c));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(c, type, 0, "zero"));
  ONYX_RETURN_IF_ERROR(c.SetOutput(c.b.Op1("Where", {found, rows, zero}, c.Name("lookup"))));
  return c.SetRawOutput(CastTo(c, hit, DataType::kUint8, "hits"), 1);
}

// BUCKETIZE(input); BucketizeOptions: boundaries 0 (sorted). The bucket is the number of boundaries <= x (TFLite
// takes std::upper_bound), counted over a new last axis; integer inputs are compared as float, as C++ promotes.
Status Bucketize(OpContext& c) {
  std::vector<float> bounds;
  if (c.options().valid()) {
    ONYX_ASSIGN_OR_RETURN(bounds, c.options().Floats(0));
  }
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* in, c.InTensor(0));
  if (bounds.empty()) {
    ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(c, DataType::kInt32, 0, "zero"));
    return c.SetOutput(c.b.Op1("Expand", {zero, c.b.Op1("Shape", {x}, c.Name("shape"))}, c.Name("bucketize")));
  }
  if (in->type == TensorType::kFloat64) return c.Unsupported("BUCKETIZE of float64");
  if (in->type != TensorType::kFloat32) x = CastTo(c, x, DataType::kFloat, "as_float");
  const int64_t n = static_cast<int64_t>(bounds.size());
  std::string ge = c.b.Op1("GreaterOrEqual",
                           {c.b.Op1("Unsqueeze", {x, c.b.ConstInts(c.Name("last"), {-1})}, c.Name("column")),
                            c.b.Constant(c.Name("boundaries"), Tensor::FromVector<float>(bounds, {n}))},
                           c.Name("at_or_above"));
  std::string y =
      c.b.Op1("ReduceSum", {CastTo(c, ge, DataType::kInt32, "counted"), c.b.ConstInts(c.Name("axis"), {-1})},
              c.Name("bucketize"), {ir::IntAttr("keepdims", 0)});
  return c.SetOutput(y);
}

// WHERE(condition) -> the [N, rank] int64 coordinates of the non-zero elements: NonZero gives them [rank, N].
Status WhereOp(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  std::string y = c.b.Op1("Transpose", {c.b.Op1("NonZero", {x}, c.Name("nonzero"))}, c.Name("where"),
                          {ir::IntsAttr("perm", {1, 0})});
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  if (t->type != TensorType::kInt64) {
    ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
    y = CastTo(c, y, type, "where_cast");
  }
  return c.SetRawOutput(y);
}

// UNIQUE(x [N]) -> y (the distinct values in order of first occurrence), idx [N] (each element's position in y):
// ONNX Unique unsorted, its inverse_indices cast to UniqueOptions.idx_out_type (the output tensor's type).
Status UniqueOp(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.RawInput(0));
  std::vector<std::string> outs = c.b.Op("Unique", {x}, c.Name("unique"), {ir::IntAttr("sorted", 0)}, 4);
  ONYX_RETURN_IF_ERROR(c.SetRawOutput(outs[0], 0));
  if (c.num_outputs() < 2) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor(1));
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  std::string idx = outs[2];
  if (type != DataType::kInt64) idx = CastTo(c, idx, type, "idx");
  return c.SetRawOutput(idx, 1);
}

// SPARSE_TO_DENSE(indices [N, rank] / [N] / scalar, output_shape, values [N] / scalar, default_value): ScatterND
// into the default value expanded to output_shape.
Status SparseToDense(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string idx, Int64Input(c, 0, "indices"));
  ONYX_ASSIGN_OR_RETURN(std::string shape, Int64Input(c, 1, "output_shape"));
  ONYX_ASSIGN_OR_RETURN(std::string values, c.Input(2));
  ONYX_ASSIGN_OR_RETURN(std::string fill, c.Input(3));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> idx_shape, c.InShape(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> out_rank, c.InShape(1));
  const int64_t rank = out_rank.empty() ? 1 : out_rank[0];
  if (idx_shape.size() > 2 || rank < 0) return c.Error("indices must be at most 2-D");
  const int64_t n = idx_shape.empty() ? 1 : idx_shape[0];
  if (n < 0) return c.Unsupported("a run-time number of indices");
  // ScatterND wants [N, rank] indices and N updates.
  idx = c.b.Op1("Reshape", {idx, c.b.ConstInts(c.Name("indices_shape"), {n, rank})}, c.Name("indices_2d"));
  values = c.b.Op1("Expand", {values, c.b.ConstInts(c.Name("n"), {n})}, c.Name("updates"));
  fill = c.b.Op1("Reshape", {fill, c.b.ConstInts(c.Name("scalar"), {})}, c.Name("default"));
  std::string dense = c.b.Op1("Expand", {fill, shape}, c.Name("dense"));
  return c.SetOutput(c.b.Op1("ScatterND", {dense, idx, values}, c.Name("sparse_to_dense")));
}

// DYNAMIC_UPDATE_SLICE(operand, update, start_indices): the start is clamped so the update fits (as XLA's
// DynamicUpdateSlice), then every update element is scattered to start + its own coordinates (a constant grid).
Status DynamicUpdateSlice(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string operand, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string update, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::string start, Int64Input(c, 2, "start_indices"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> os, c.InShape(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> us, c.InShape(1));
  if (os.size() != us.size()) return c.Error("operand and update differ in rank");
  const int64_t rank = static_cast<int64_t>(os.size());
  std::vector<int64_t> room(os.size());
  for (size_t d = 0; d < os.size(); ++d) {
    if (os[d] < 0 || us[d] < 0) return c.Unsupported("unknown dimensions");
    if (us[d] > os[d]) return c.Error("the update is larger than the operand");
    room[d] = os[d] - us[d];
  }
  start =
      c.b.Op1("Max", {start, c.b.ConstInts(c.Name("zeros"), std::vector<int64_t>(os.size(), 0))}, c.Name("start_lo"));
  start = c.b.Op1("Min", {start, c.b.ConstInts(c.Name("room"), room)}, c.Name("start"));
  ONYX_ASSIGN_OR_RETURN(int64_t count, Product(c, us, "update"));
  std::vector<int64_t> grid(static_cast<size_t>(count * rank));
  for (int64_t i = 0; i < count; ++i) {
    int64_t rem = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      grid[static_cast<size_t>(i * rank + d)] = rem % us[static_cast<size_t>(d)];
      rem /= us[static_cast<size_t>(d)];
    }
  }
  Shape grid_shape(us.begin(), us.end());
  grid_shape.push_back(rank);
  std::string idx = c.b.Op1("Add", {c.b.Constant(c.Name("grid"), Tensor::FromVector<int64_t>(grid, grid_shape)), start},
                            c.Name("indices"));
  return c.SetOutput(c.b.Op1("ScatterND", {operand, idx, update}, c.Name("dynamic_update_slice")));
}

// An [m, n] bool tensor, true on the main diagonal, computed in the graph (row index == column index) rather than
// stored: m and n come from shapes the file states, and a converter must not allocate what a file merely claims.
Result<std::string> Eye(OpContext& c, int64_t m, int64_t n) {
  const auto index = [&](int64_t count, int64_t axis) {
    const auto scalar = [&](int64_t v) {
      return c.b.Constant(c.Name("eye_bound"), Tensor::FromVector<int64_t>({v}, {}));
    };
    const std::string r = c.b.Op1("Range", {scalar(0), scalar(count), scalar(1)}, c.Name("eye_index"));
    return c.b.Op1("Unsqueeze", {r, c.b.ConstInts(c.Name("eye_axis"), {axis})}, c.Name("eye_index"));
  };
  return c.b.Op1("Equal", {index(m, 1), index(n, 0)}, c.Name("eye"));
}

// MATRIX_DIAG(diagonal [..., N]) -> [..., N, N]: the diagonal as a column, kept on the identity's true cells.
Status MatrixDiag(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string diag, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.InShape(0));
  if (s.empty() || s.back() < 0) return c.Error("needs a diagonal of known length");
  ONYX_ASSIGN_OR_RETURN(DataType type, RealType(c));
  ONYX_ASSIGN_OR_RETURN(std::string zero, ScalarConst(c, type, 0, "zero"));
  std::string column = c.b.Op1("Unsqueeze", {diag, c.b.ConstInts(c.Name("last"), {-1})}, c.Name("column"));
  ONYX_ASSIGN_OR_RETURN(std::string eye, Eye(c, s.back(), s.back()));
  return c.SetOutput(c.b.Op1("Where", {eye, column, zero}, c.Name("matrix_diag")));
}

// MATRIX_SET_DIAG(input [..., M, N], diagonal [..., min(M, N)]): the diagonal as a row (padded to N), taken on
// the identity's true cells.
Status MatrixSetDiag(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(std::string x, c.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::string diag, c.Input(1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.InShape(0));
  if (s.size() < 2 || s[s.size() - 1] < 0 || s[s.size() - 2] < 0) return c.Error("needs a matrix of known size");
  const int64_t m = s[s.size() - 2], n = s[s.size() - 1], k = std::min(m, n);
  std::string row = c.b.Op1("Unsqueeze", {diag, c.b.ConstInts(c.Name("row_axis"), {-2})}, c.Name("row"));
  if (k < n) {
    const int64_t rank = static_cast<int64_t>(s.size());
    std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
    pads[static_cast<size_t>(2 * rank - 1)] = n - k;
    row = c.b.Op1("Pad", {row, c.b.ConstInts(c.Name("pads"), pads)}, c.Name("row_padded"));
  }
  ONYX_ASSIGN_OR_RETURN(std::string eye, Eye(c, m, n));
  return c.SetOutput(c.b.Op1("Where", {eye, row, x}, c.Name("matrix_set_diag")));
}

// BROADCAST_ARGS(s0, s1): the broadcast shape. Both are left-padded with ones to the longer rank; a dim of 1
// takes the other's (so 0 with 1 gives 0, where Max would give 1).
Status BroadcastArgs(OpContext& c) {
  ONYX_ASSIGN_OR_RETURN(const TfliteTensor* t, c.OutTensor());
  ONYX_ASSIGN_OR_RETURN(DataType type, OnnxType(t->type));
  std::vector<std::string> dims;
  int64_t rank = 0;
  std::vector<int64_t> ranks;
  for (size_t k = 0; k < 2; ++k) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.InShape(k));
    if (s.size() != 1 || s[0] < 0) return c.Error("needs 1-D shapes of known length");
    ranks.push_back(s[0]);
    rank = std::max(rank, s[0]);
  }
  ONYX_ASSIGN_OR_RETURN(std::string one, ScalarConst(c, type, 1, "one"));
  for (size_t k = 0; k < 2; ++k) {
    ONYX_ASSIGN_OR_RETURN(std::string v, c.RawInput(k));
    if (ranks[k] < rank) {
      std::string ones =
          c.b.Op1("Expand", {one, c.b.ConstInts(c.Name("pad_length"), {rank - ranks[k]})}, c.Name("ones"));
      v = c.b.Op1("Concat", {ones, v}, c.Name("padded"), {ir::IntAttr("axis", 0)});
    }
    dims.push_back(v);
  }
  return c.SetRawOutput(c.b.Op1("Where", {c.b.Op1("Equal", {dims[0], one}, c.Name("is_one")), dims[1], dims[0]},
                                c.Name("broadcast_args")));
}

}  // namespace

void AddIndexOps(std::map<int32_t, OpFn>& t) {
  t[op::kSegmentSum] = [](OpContext& c) { return Segment(c, SegmentReduce::kSum, true); };
  t[op::kUnsortedSegmentSum] = [](OpContext& c) { return Segment(c, SegmentReduce::kSum, false); };
  t[op::kUnsortedSegmentProd] = [](OpContext& c) { return Segment(c, SegmentReduce::kProd, false); };
  t[op::kUnsortedSegmentMax] = [](OpContext& c) { return Segment(c, SegmentReduce::kMax, false); };
  t[op::kUnsortedSegmentMin] = [](OpContext& c) { return Segment(c, SegmentReduce::kMin, false); };
  t[op::kHashtableLookup] = HashtableLookup;
  t[op::kBucketize] = Bucketize;
  t[op::kWhere] = WhereOp;
  t[op::kUnique] = UniqueOp;
  t[op::kSparseToDense] = SparseToDense;
  t[op::kDynamicUpdateSlice] = DynamicUpdateSlice;
  t[op::kMatrixDiag] = MatrixDiag;
  t[op::kMatrixSetDiag] = MatrixSetDiag;
  t[op::kBroadcastArgs] = BroadcastArgs;
}

}  // namespace onyx::convert::tflite
