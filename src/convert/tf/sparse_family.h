// The converters registered from AddSparseOps (op_context.h), by file, and the segment reduction they share.
// (The sparse family is large: segment reductions, sparse and ragged tensors, scatters, diagonal matrices,
// permutations, bitwise and other elementwise ops TF has beyond ONNX's, random draws.)
#pragma once

#include <map>
#include <string>

#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

void AddSegmentOps(std::map<std::string, OpFn>& table);           // ops_segment.cc: *Segment*, TensorScatter*
void AddDiagonalOps(std::map<std::string, OpFn>& table);          // ops_diagonal.cc: MatrixDiag*, Roll, ReverseSequence
void AddElementwiseExtraOps(std::map<std::string, OpFn>& table);  // ops_elementwise_extra.cc: bitwise, Xlogy...
void AddRandomExtraOps(std::map<std::string, OpFn>& table);       // ops_random.cc: TruncatedNormal, Multinomial...
void AddSparseTensorOps(
    std::map<std::string, OpFn>& table);  // ops_sparse_tensors.cc: SparseReshape, SparseTensorDenseMatMul

// How a segment reduction combines the rows of one segment.
enum class SegmentKind { kSum, kProd, kMax, kMin, kMean, kSqrtN };

// out[s] = the `kind` reduction of rows[i] over the i with ids[i] == s, for s in [0, num_segments): `rows` has
// shape [N, ...] (element type `type`), `ids` is an int64 [N] (ids outside [0, num_segments) join no segment),
// `num_segments` an int64 scalar. Empty segments hold the reduction's identity (0 for sums and means, 1 for
// products, the type's lowest / highest value for max / min) unless `empty_is_zero`, which makes them 0 (TF's
// sorted Segment* ops). Every (segment, row) pair is compared: O(num_segments * N) work, exact in every type.
Result<std::string> SegmentReduce(OpContext& ctx, const std::string& rows, DataType type, const std::string& ids,
                                  const std::string& num_segments, SegmentKind kind, bool empty_is_zero,
                                  const std::string& out_name);

}  // namespace onyx::convert::tf

namespace onyx::convert::tf {

// Runs the converter of TF operator `op` (another family's) on `inputs` for this node, and returns its output
// `port`: for ops TF defines through others (Inv is Reciprocal, Xlog1py uses Log1p).
Result<TfValue> Delegate(OpContext& ctx, const std::string& op, std::vector<TfValue> inputs, int port = 0);

}  // namespace onyx::convert::tf
