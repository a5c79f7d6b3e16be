// Which versions each ONNX operator has (from ONNX's operator list), to resolve the version a node runs at.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace onyx {

struct OpVersionInfo {
  std::string_view domain;  // "ai.onnx", "ai.onnx.ml", ...
  std::string_view op_type;
  bool is_function;
  std::vector<int> since_versions;  // ascending
};

const OpVersionInfo* FindOpVersions(std::string_view domain, std::string_view op_type);
// The since_version of the operator's schema in force at `opset` (the largest since_version <= opset).
std::optional<int> ResolveSinceVersion(std::string_view domain, std::string_view op_type, int64_t opset);

}  // namespace onyx
