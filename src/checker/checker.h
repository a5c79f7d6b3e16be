// The model checker: validates a model against the rules of the ONNX IR and the schema of every operator it
// uses, and lists every problem it finds, each naming where it is and which rule it breaks.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/model.h"

namespace onyx::checker {

struct Problem {
  std::string where;  // "graph 'main', node 'conv1' (Conv, opset 11)"
  std::string rule;   // a stable identifier of the broken rule: "unknown-attribute", "not-topological", ...
  std::string message;
  std::string ToString() const;  // "where: message [rule]"
};

// The extra pass `CheckOptions::full` runs after the checks below: shape and type inference over the whole model,
// appending what it finds. Shape inference (src/infer) plugs in here through SetFullCheckPass; while none is set,
// a full check is the same as the plain one.
using FullCheckPass = std::function<void(const ir::Model&, std::vector<Problem>&)>;
void SetFullCheckPass(FullCheckPass pass);

struct CheckOptions {
  bool full = false;      // also run the full-check pass (shape inference)
  std::string model_dir;  // where the model file lies: external data references are checked against it
};

// Checks:
// - the model: IR version, opset imports (each domain once, versions valid, none before IR 3, required from IR 3);
// - every graph (subgraphs with their enclosing scopes): names present, single static assignment (a node output
//   may not reuse any name visible in this graph or an enclosing one), topological order (each input defined by a
//   graph input, initializer, earlier node or enclosing scope), initializers versus inputs (IR < 4: each must be
//   an input), typed main-graph inputs, graph outputs computed, element types new enough for the IR version;
// - every node against its operator's schema at the imported opset: the operator exists (not deprecated), input
//   and output counts, required (single) inputs/outputs not omitted, attribute names, types and required ones,
//   type constraints (same type parameter = same type, allowed types) for every value whose type is declared;
// - model-local functions: names, opset imports compatible with the model's, SSA and order inside, attribute
//   references naming the function's attributes, their nodes against schemas;
// - external data references: a location, relative and inside the model's folder, present on disk.
std::vector<Problem> CheckModel(const ir::Model& model, const CheckOptions& options = {});

}  // namespace onyx::checker
