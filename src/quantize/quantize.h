// `onyx quantize`: makes a quantized ONNX model from a float one, in ONNX Runtime's formats (docs/quantization.md,
// "Making a quantized model"). The result is standard ONNX (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// MatMulInteger, ConvInteger) that onyx and ONNX Runtime both run.
#pragma once

#include <string>

#include "core/status.h"
#include "ir/model.h"
#include "quantize/options.h"
#include "quantize/report.h"

namespace onyx::quantize {

// Quantizes `model` as `options` say; fills `report` (never null).
Result<ir::Model> QuantizeModel(const ir::Model& model, const QuantizeOptions& options, QuantizeReport* report);

// Loads `input`, quantizes it and saves it to `output` (through a temporary file renamed at the end, so a failure
// never leaves a partial file).
Result<QuantizeReport> QuantizeFile(const std::string& input, const std::string& output,
                                    const QuantizeOptions& options);

}  // namespace onyx::quantize
