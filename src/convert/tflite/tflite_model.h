// A .tflite file as plain structs: the main subgraph's tensors and operators, the operator codes and the constant
// buffers (views into the file's bytes). Field ids are those of TensorFlow Lite's schema.fbs (declaration order).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/tflite/flatbuffer.h"
#include "core/status.h"

namespace onyx::convert::tflite {

// schema.fbs TensorType.
enum class TensorType : int8_t {
  kFloat32 = 0, kFloat16 = 1, kInt32 = 2, kUint8 = 3, kInt64 = 4, kString = 5, kBool = 6, kInt16 = 7,
  kComplex64 = 8, kInt8 = 9,
};

struct TfliteTensor {
  std::string name;
  std::vector<int32_t> shape;
  TensorType type = TensorType::kFloat32;
  std::string_view data;  // the constant's bytes; empty for activations
  bool quantized = false;  // carries quantization scales (int8/uint8 activations or weights)
};

struct TfliteOperator {
  int32_t builtin_code = 0;  // schema.fbs BuiltinOperator; 32 = CUSTOM
  std::string custom_code;
  std::vector<int32_t> inputs;  // tensor indices, -1 for an omitted optional input
  std::vector<int32_t> outputs;
  FlatTable options;  // the builtin options table (which one follows from builtin_code); invalid when absent
  std::string_view custom_options;
};

struct TfliteModel {
  uint32_t version = 0;
  std::string description;
  std::vector<TfliteTensor> tensors;
  std::vector<TfliteOperator> operators;
  std::vector<int32_t> inputs, outputs;
  int subgraphs = 0;
};

// Parses `bytes` (which must outlive the result: tensors' data are views into it). Checks the "TFL3" identifier,
// every index (buffers, tensors, operator codes) and every offset.
Result<TfliteModel> ParseTflite(std::string_view bytes);

// schema.fbs BuiltinOperator values the converter handles.
namespace op {
constexpr int32_t kAdd = 0, kAveragePool2D = 1, kConcatenation = 2, kConv2D = 3, kDepthwiseConv2D = 4,
                  kDequantize = 6, kFullyConnected = 9, kLogistic = 14, kMaxPool2D = 17, kMul = 18, kRelu = 19,
                  kReluN1To1 = 20, kRelu6 = 21, kReshape = 22, kResizeBilinear = 23, kSoftmax = 25, kTanh = 28,
                  kCustom = 32, kPad = 34, kTranspose = 39, kMean = 40, kSub = 41, kDiv = 42, kPrelu = 54,
                  kMaximum = 55, kMinimum = 57, kResizeNearestNeighbor = 97, kLeakyRelu = 98, kHardSwish = 117;
}  // namespace op

}  // namespace onyx::convert::tflite
