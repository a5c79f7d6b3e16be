// A .tflite file as plain structs: every subgraph's tensors and operators, the operator codes and the constant
// buffers (views into the file's bytes). Field ids are those of TensorFlow Lite's schema.fbs (declaration order;
// a union takes two ids, its type and its value).
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
  kFloat32 = 0,
  kFloat16 = 1,
  kInt32 = 2,
  kUint8 = 3,
  kInt64 = 4,
  kString = 5,
  kBool = 6,
  kInt16 = 7,
  kComplex64 = 8,
  kInt8 = 9,
  kFloat64 = 10,
  kComplex128 = 11,
  kUint64 = 12,
  kResource = 13,
  kVariant = 14,
  kUint32 = 15,
  kUint16 = 16,
  kInt4 = 17,
};

// QuantizationParameters: real = scale * (q - zero_point), per tensor (one scale) or per channel along `axis`.
struct Quantization {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;  // as many as scales (zeros when the file omits them)
  int32_t axis = 0;                  // quantized_dimension
  bool active() const { return !scales.empty(); }
};

struct TfliteTensor {
  std::string name;
  std::vector<int32_t> shape;
  std::vector<int32_t> shape_signature;  // -1 for dims unknown at conversion; empty when the file has none
  TensorType type = TensorType::kFloat32;
  std::string_view data;  // the constant's bytes; empty for activations
  Quantization quant;     // empty scales: not quantized
  FlatTable sparsity;     // SparsityParameters; invalid for dense tensors
  bool is_variable = false;
  // Quantized in the computational sense: integer values that stand for reals (int8/uint8/int16/int32 with scales).
  bool quantized() const { return quant.active() && type != TensorType::kFloat32 && type != TensorType::kFloat16; }
};

struct TfliteOperator {
  int32_t builtin_code = 0;  // schema.fbs BuiltinOperator; 32 = CUSTOM
  std::string custom_code;
  int32_t version = 1;          // the operator code's version (MediaPipe's custom operators change meaning with it)
  std::vector<int32_t> inputs;  // tensor indices, -1 for an omitted optional input
  std::vector<int32_t> outputs;
  FlatTable options;   // the builtin options table (which one follows from builtin_code); invalid when absent
  FlatTable options2;  // builtin_options_2 (StableHLO operators and a few newer ones)
  std::string_view custom_options;
};

struct TfliteSubgraph {
  std::string name;
  std::vector<TfliteTensor> tensors;
  std::vector<TfliteOperator> operators;
  std::vector<int32_t> inputs, outputs;
};

struct TfliteModel {
  uint32_t version = 0;
  std::string description;
  std::vector<TfliteSubgraph> subgraphs;  // [0] is the main graph; WHILE / IF / CALL_ONCE refer to the others
};

// Parses `bytes` (which must outlive the result: tensors' data are views into it). Checks the "TFL3" identifier,
// every index (buffers, tensors, operator codes) and every offset.
Result<TfliteModel> ParseTflite(std::string_view bytes);

// schema.fbs BuiltinOperator: the operator's name ("RSQRT"), "builtin operator N" for codes the table does not know.
std::string BuiltinName(int32_t code);

}  // namespace onyx::convert::tflite
