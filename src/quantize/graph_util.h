// Small graph-building helpers shared by the quantization modes: unique names, constants, node construction.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::quantize {

// Hands out value and node names not yet used in a graph (its values, initializers and node names), preferring
// the name asked for: "<base>", then "<base>_1", "<base>_2", ...
class Namer {
 public:
  explicit Namer(const ir::Graph& graph);
  std::string Value(const std::string& base);
  std::string Node(const std::string& base);

 private:
  std::unordered_set<std::string> values_, nodes_;
};

// The tensor of an initializer that a caller cannot override (not also a graph input) or of a Constant node's
// `value`, or null.
const Tensor* ConstantTensor(const ir::Graph& graph, const std::string& name);

// Adds an initializer under a fresh name from `namer`; returns the name.
std::string AddInitializer(ir::Graph& graph, Namer& namer, const std::string& base, Tensor tensor);

ir::Node MakeNode(std::string op_type, std::string name, std::vector<std::string> inputs,
                  std::vector<std::string> outputs, std::vector<ir::Attribute> attributes = {});

// The value of an INT attribute, or `fallback`.
int64_t IntAttribute(const ir::Node& node, const char* name, int64_t fallback);
float FloatAttribute(const ir::Node& node, const char* name, float fallback);

}  // namespace onyx::quantize
