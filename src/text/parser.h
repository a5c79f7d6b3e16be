// Parser of the ONNX text syntax (ONNX docs/Syntax.md) into the in-memory IR:
//
//   <ir_version: 8, opset_import: ["" : 15]>
//   agraph (float[N, 3] x, float[3] b) => (float[N, 3] y)
//      <float[3] w = {1.0, 2.0, 3.0}>
//   {
//      t = Add(x, w)
//      y = com.example.Scale <alpha = 2.0> (t, b)
//   }
//   <domain: "com.example", opset_import: ["" : 15]>
//   Scale <alpha> (x, b) => (y) { ... }
//
// Errors name the line and column: "line 3, column 14: expected ')' but found '='".
//
// Where this syntax differs from what ONNX's own parser accepts:
//  - float16 / bfloat16 tensor elements are written as numbers (1.5), not as their 16-bit patterns; float8 and
//    float4 elements are still written as their bit patterns (integers), as ONNX does.
//  - strings accept the escapes \n \t \r \0 \xHH besides \" and \\ (ONNX reads "\n" as "n").
//  - an attribute annotated ': sparse_tensor' / ': sparse_tensors' takes a string (the serialized
//    SparseTensorProto), so that every attribute the IR can hold can be printed and parsed back.
//  - a tensor whose data lives in an external file (`float[2] w = ["location": "w.bin"]`) is not loaded: its
//    Tensor has the type and shape but no storage (raw() == nullptr); external_data holds the key/value pairs.
//  - a function header may also hold `metadata_props: [...]`.
#pragma once

#include <string_view>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::text {

// A whole model: an optional `<key: value, ...>` header, the main graph, then functions.
Result<ir::Model> ParseModel(std::string_view text);
// `name (inputs) => (outputs) <initializers and value infos> { nodes }`.
Result<ir::Graph> ParseGraph(std::string_view text);
// One node: `[label] out1, out2 = domain.Op <attributes> (in1, in2)`.
Result<ir::Node> ParseNode(std::string_view text);
// One function: `<domain: "d", opset_import: [...]> name <attrs> (inputs) => (outputs) <value infos> { nodes }`.
Result<ir::Function> ParseFunction(std::string_view text);
// A type: `float[N, 3]`, `seq(float[2])`, `map(int64, float)`, `optional(...)`, `sparse_tensor(...)`, `opaque(...)`.
Result<ir::TypeInfo> ParseType(std::string_view text);
// A tensor constant: `float[2] name = {1.0, 2.0}` (name and '=' optional).
Result<ir::NamedTensor> ParseTensor(std::string_view text);

}  // namespace onyx::text
