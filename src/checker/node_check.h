// Checks one node against its operator's schema: counts, omitted inputs/outputs, attributes, type constraints.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "checker/checker.h"
#include "ir/model.h"
#include "schema/op_schema.h"

namespace onyx::checker {

// Declared types of the values a node can see (graph inputs, initializers, value_info, graph outputs of this and
// the enclosing graphs). A value missing here has an unknown type and is not type-checked.
using TypeLookup = std::function<const ir::TypeInfo*(const std::string& value_name)>;

struct NodeContext {
  const ir::Node& node;
  const schema::OpSchema& schema;
  std::string where;  // prefix of every problem: "graph 'g', node 'n' (Conv, opset 11)"
  TypeLookup types;
  // Inside a function body: attributes may refer to the function's attributes (ref_attr_name).
  const std::unordered_set<std::string>* function_attributes = nullptr;
};

// Appends one Problem per broken rule.
void CheckNodeAgainstSchema(const NodeContext& ctx, std::vector<Problem>& problems);

// A type with every element type known ("tensor(float)", "seq(tensor(int64))"); empty when anything is unknown.
std::string KnownTypeString(const ir::TypeInfo& type);

}  // namespace onyx::checker
