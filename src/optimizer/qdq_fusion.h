// QDQ groups to integer operators (qdq_fusion.cc), outside the optimizer's passes: the conversion of a QDQ model to
// ONNX Runtime's QOperator format, which `onyx quantize --format qoperator` writes.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Replaces every QDQ group that onyx fuses (qdq_fusion.cc's list) with its integer operator, as written in a file:
// QLinearConv, QLinearMatMul, MaxPool and the data-movement ops on 8-bit data, com.microsoft QLinearAdd/Mul/
// Sigmoid/LeakyRelu/AveragePool/GlobalAveragePool/Concat/Softmax/Where and QGemm. Groups that cannot be fused keep
// their QuantizeLinear/DequantizeLinear (a mixed graph, as ONNX Runtime's quantizer writes for operators it has no
// QOperator form of). Returns the number of groups fused.
Result<int> ConvertQdqToQOperator(ir::Model& model);

}  // namespace onyx::optimizer
