// The model checker: structural validation that lists every problem it finds, each naming where it is.
#pragma once

#include <string>
#include <vector>

#include "ir/model.h"

namespace onyx::checker {

struct Problem {
  std::string where;  // "graph 'main', node 'conv1' (Conv, opset 11)"
  std::string message;
  std::string ToString() const { return where.empty() ? message : where + ": " + message; }
};

// Checks IR version and opset imports, names and SSA form, that every node input is defined before use (graph
// inputs, initializers, earlier node outputs, enclosing scopes), that operators exist at the imported opset,
// attribute names, and graph outputs. Subgraphs are checked with their enclosing scope.
std::vector<Problem> CheckModel(const ir::Model& model);

}  // namespace onyx::checker
