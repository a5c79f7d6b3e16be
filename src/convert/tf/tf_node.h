// A TensorFlow graph node as a TF.js graph-model stores it: the GraphDef NodeDef in proto3-JSON form
// ({"name", "op", "input": [...], "attr": {...}}), with typed accessors for its attributes. proto3-JSON writes
// int64 as strings and bytes (the "s" of string attributes) as base64; the accessors undo both.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/data_type.h"
#include "core/status.h"

namespace onyx::convert::tf {

struct TfNode {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;  // data inputs ("node" or "node:port"); control inputs ("^node") dropped
  const nlohmann::json* attr = nullptr;

  bool Has(const std::string& key) const;
  Result<int64_t> Int(const std::string& key) const;
  int64_t IntOr(const std::string& key, int64_t fallback) const;
  float FloatOr(const std::string& key, float fallback) const;
  bool BoolOr(const std::string& key, bool fallback) const;
  Result<std::string> String(const std::string& key) const;  // base64-decoded
  std::string StringOr(const std::string& key, const std::string& fallback) const;
  Result<std::vector<int64_t>> Ints(const std::string& key) const;  // {"list": {"i": [...]}}; absent list: empty
  Result<std::vector<std::string>> Strings(const std::string& key) const;
  Result<DataType> Type(const std::string& key) const;  // {"type": "DT_FLOAT"}
  // {"shape": {"dim": [{"size": "-1"}, ...]}} (or {"unknownRank": true}: `known` false).
  Result<std::vector<int64_t>> Shape(const std::string& key, bool* known) const;

  // "node 'conv1' (Conv2D)": the prefix of every error about this node.
  std::string Where() const { return "node '" + name + "' (" + op + ")"; }
};

Result<TfNode> ParseNode(const nlohmann::json& node);

// "DT_FLOAT" -> float, ... (the types TF.js graph-models use).
Result<DataType> DataTypeFromTf(const std::string& dt);

// Standard base64 (with or without padding); an error on other characters.
Result<std::string> DecodeBase64(const std::string& text);

}  // namespace onyx::convert::tf
