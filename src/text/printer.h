// Printer of the in-memory IR in the ONNX text syntax (ONNX docs/Syntax.md); text/parser.h reads it back.
// With default options, parsing the printed text gives back the same IR, except for what the syntax cannot
// express: doc strings and metadata of graphs, nodes, value infos and tensors, dimension and type denotations,
// training info, device configurations, sparse initializers and quantization annotations.
#pragma once

#include <cstdint>
#include <string>

#include "ir/model.h"

namespace onyx::text {

struct PrintOptions {
  // Tensors with more elements than this print their first `max_elements` values followed by "..." (which the
  // parser refuses: the output is for reading). Negative: print every element.
  int64_t max_elements = -1;
};

std::string PrintModel(const ir::Model& model, const PrintOptions& options = {});
std::string PrintGraph(const ir::Graph& graph, const PrintOptions& options = {});
// One line unless the node has graph attributes.
std::string PrintNode(const ir::Node& node, const PrintOptions& options = {});
std::string PrintFunction(const ir::Function& function, const PrintOptions& options = {});
std::string PrintType(const ir::TypeInfo& type);
// `float[2] name = {1.0, 2.0}` (`float[2] {1.0, 2.0}` when unnamed).
std::string PrintTensor(const ir::NamedTensor& tensor, const PrintOptions& options = {});

}  // namespace onyx::text
