// The three ways of quantizing a model (internal to src/quantize; quantize.h is the entry point).
#pragma once

#include "core/status.h"
#include "ir/model.h"
#include "quantize/options.h"
#include "quantize/report.h"

namespace onyx::quantize {

// MatMul/Gemm/Conv with constant float weights -> DynamicQuantizeLinear + MatMulInteger/ConvInteger + Cast + Mul
// (+ Add for a bias); everything else stays float (dynamic.cc).
Result<ir::Model> QuantizeDynamic(const ir::Model& model, const QuantizeOptions& options, QuantizeReport* report);
// QuantizeLinear/DequantizeLinear pairs on calibrated activations, int8 weights and int32 biases behind
// DequantizeLinear (static_qdq.cc).
Result<ir::Model> QuantizeStatic(const ir::Model& model, const QuantizeOptions& options, QuantizeReport* report);
// Blockwise int4/int8 MatMul weights behind a blocked DequantizeLinear-21 (weight_only.cc).
Result<ir::Model> QuantizeWeightOnly(const ir::Model& model, const QuantizeOptions& options, QuantizeReport* report);

// The model at default-domain opset `min_opset` at least (converted up with src/version when lower).
Result<ir::Model> AtLeastOpset(const ir::Model& model, int64_t min_opset, QuantizeReport* report);
// Whether `node` is to be quantized by the user's --op-types/--exclude (op_types empty: `defaults`).
bool Selected(const ir::Node& node, const QuantizeOptions& options, const std::vector<std::string>& defaults);
// The report entry of a quantized constant.
TensorReport ConstantReport(const std::string& name, const char* kind, const QuantizedTensor& qt);

}  // namespace onyx::quantize
