// TensorFlow operators of the sparse family (see op_context.h), registered from the files of sparse_family.h.
#include "convert/tf/op_context.h"
#include "convert/tf/sparse_family.h"

namespace onyx::convert::tf {

// ops_ragged.cc: RaggedRange, RaggedGather, RaggedTensorToTensor, SparseFillEmptyRows.
void AddRaggedOps(std::map<std::string, OpFn>& table);
// ops_quantize.cc: QuantizeAndDequantizeV2/V3/V4, FakeQuantWithMinMaxVarsPerChannel.
void AddQuantizeOps(std::map<std::string, OpFn>& table);

void AddSparseOps(std::map<std::string, OpFn>& table) {
  AddSegmentOps(table);
  AddDiagonalOps(table);
  AddElementwiseExtraOps(table);
  AddRandomExtraOps(table);
  AddSparseTensorOps(table);
  AddRaggedOps(table);
  AddQuantizeOps(table);
}

}  // namespace onyx::convert::tf
