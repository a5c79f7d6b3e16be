// Operator schemas: for every version of every standard operator (ai.onnx opsets 1..28, ai.onnx.ml,
// ai.onnx.preview.training, ai.onnx.preview), its formal inputs and outputs, attributes and type constraints.
// The data is generated (src/schema/op_schemas.inc, by tools/gen/op_schemas.py) and parsed once, on first use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"

namespace onyx::schema {

struct FormalParameter {
  enum class Option { kSingle, kOptional, kVariadic };
  std::string name;
  std::string type_str;  // a type parameter ("T") or a literal type ("tensor(int64)")
  Option option = Option::kSingle;
  bool homogeneous = true;  // variadic only: all values share one type
  int min_arity = 1;        // variadic only
};

struct AttributeSpec {
  std::string name;
  ir::AttrType type = ir::AttrType::kUndefined;
  bool required = false;
};

struct TypeConstraint {
  std::string param;
  std::vector<std::string> allowed;  // full ONNX type strings: "tensor(float)", "seq(tensor(int64))", ...
  bool Allows(std::string_view type) const;
};

struct OpSchema {
  std::string domain;  // canonical: "ai.onnx", "ai.onnx.ml", ...
  std::string name;
  int since_version = 0;
  bool deprecated = false;
  std::vector<FormalParameter> inputs;
  std::vector<FormalParameter> outputs;
  std::vector<AttributeSpec> attributes;
  std::vector<TypeConstraint> type_constraints;
  int min_inputs = 0, max_inputs = 0, min_outputs = 0, max_outputs = 0;  // max: kUnbounded when variadic

  static constexpr int kUnbounded = 2147483647;

  const AttributeSpec* FindAttribute(std::string_view attr_name) const;
  const TypeConstraint* FindConstraint(std::string_view param) const;
  // The formal parameter that the index-th actual input/output binds to (the last one when it is variadic);
  // nullptr past the end.
  const FormalParameter* InputFormal(size_t index) const;
  const FormalParameter* OutputFormal(size_t index) const;
  // "Conv-11"
  std::string VersionedName() const;
};

// The schema with exactly this since_version; nullptr when there is none.
const OpSchema* FindSchema(std::string_view domain, std::string_view op_type, int since_version);
// The schema in force at `opset` (the largest since_version <= opset); nullptr when the operator is unknown or
// does not exist yet at that opset.
const OpSchema* ResolveSchema(std::string_view domain, std::string_view op_type, int64_t opset);
// Every schema, ordered by (domain, name, since_version).
const std::vector<OpSchema>& AllSchemas();

}  // namespace onyx::schema
