// TensorFlow Lite -> ONNX: converts a .tflite FlatBuffer into an ir::Model: float models (float16 weights with
// DEQUANTIZE folded to float32), quantized int8/uint8 models (DequantizeLinear -> float op -> QuantizeLinear, with
// inputs and outputs keeping their integer types; 8-bit convolutions as ConvInteger with TFLite's requantization),
// sparse constants (densified), multi-subgraph control flow (WHILE -> Loop, IF -> If, CALL_ONCE inlined), resource
// variables and hash tables followed at conversion, int16 activations at opset 21, and MediaPipe's custom operators
// (found by custom_code).
// TFLite's NHWC convolutions, pooling and resizing become ONNX's channels-first ops between Transposes, which the
// transpose optimizer cancels; inputs and outputs keep TFLite's names and layouts.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::convert::tflite {

struct TfliteConvertReport {
  int operators = 0;          // TFLite operators converted
  int nodes = 0;              // ONNX nodes in the result
  int transposes_before = 0;  // Transpose nodes of the faithful translation
  int transposes_after = 0;   // ... left after the transpose optimizer
};

// Reads and converts `path`; `opset` 13..21 (built at 17, then converted). Every unsupported operator is listed in
// one error by its schema.fbs name; other errors name the file, the operator's index and its name.
Result<ir::Model> ConvertTfliteFile(const std::string& path, int64_t opset, TfliteConvertReport* report = nullptr);

}  // namespace onyx::convert::tflite
