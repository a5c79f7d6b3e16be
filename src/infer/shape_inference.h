// Shape and type inference over whole models: every value gets an element type and a shape (numbers,
// symbols like N, or expressions like N*2 where they follow from the inputs), written into the graphs'
// value_info and outputs. Small integer tensors that compute shapes are followed through Shape, Gather,
// Concat, arithmetic... ("data propagation") so that Reshape/Expand/ConstantOfShape outputs get shapes too.
// Subgraphs (If/Loop/Scan/SequenceMap), model-local functions, sequences and optionals are covered;
// operators without an inference function leave their outputs unknown. See docs/inference.md.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::infer {

struct InferOptions {
  // Conflicts between declared and inferred types, and inference errors (e.g. shapes that cannot
  // broadcast), fail the call. Otherwise they are noted in `diagnostics`, declared types are kept and the
  // node's outputs stay unknown.
  bool strict = true;
  // Follow the values of small integer tensors (shape computations).
  bool data_propagation = true;
  std::vector<std::string>* diagnostics = nullptr;
};

// Infers every graph of the model (subgraphs included) and fills value_info and output types.
Status InferShapes(ir::Model& model, const InferOptions& options = {});

// What inference learned about one graph: the type of every value it defines or reads (inputs,
// initializers, node outputs), for planning memory. Outer-scope values are not included.
struct GraphTypes {
  std::unordered_map<std::string, ir::TypeInfo> values;
  std::vector<std::optional<ir::TypeInfo>> outputs;  // in graph output order; nullopt where unknown
};

// Infers one graph under the given opset imports and model-local functions. `input_types` (when not empty)
// binds the graph's inputs in order, completing their declared types (nullopt entries keep the declared one).
// Fills the graph's value_info and outputs like InferShapes.
Result<GraphTypes> InferGraphShapes(ir::Graph& graph, const std::vector<ir::OpsetId>& opset_import,
                                    const std::vector<ir::Function>& functions, const InferOptions& options = {},
                                    const std::vector<std::optional<ir::TypeInfo>>& input_types = {});

// Merges an inferred type into a declared one, the more specific of each part winning; nullopt plus a
// reason in `conflict` when they contradict (different element types, ranks or numeric dims).
std::optional<ir::TypeInfo> MergeTypes(const ir::TypeInfo& declared, const ir::TypeInfo& inferred,
                                       std::string* conflict);

}  // namespace onyx::infer
