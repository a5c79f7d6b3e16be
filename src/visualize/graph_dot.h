// A model's graph as Graphviz DOT text, drawn the way Netron draws it: one box per node (operator, name, key
// attributes, the constant weights it reads), graph inputs and outputs as ellipses with their types, edges from
// producer to consumer, If/Loop/Scan bodies as clusters beside their node, colours by operator category.
// Pure text generation: no Graphviz dependency (rendering is render.h). See docs/visualize.md.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::visualize {

struct DotOptions {
  // Label edges with their value's type and shape ("float[N,64,56,56]"), from shape inference over a copy of the
  // model, or from the declared value_info where inference fails.
  bool shapes = false;
  // List the initializers a node reads inside its box ("W⟨64×3×7×7⟩"); false hides them altogether.
  bool initializers = true;
  // Graphviz rankdir: "TB" (top to bottom) or "LR" (left to right).
  std::string rankdir = "TB";
  // Receives notes that do not stop the drawing (e.g. shape inference failed); may be null.
  std::vector<std::string>* warnings = nullptr;
};

// The DOT text of the model's main graph, subgraphs included. Fails only on bad options.
Result<std::string> ModelToDot(const ir::Model& model, const DotOptions& options = {});

// How many nodes the drawing holds (the main graph's and every subgraph's): what the layout's cost follows.
size_t CountNodes(const ir::Graph& graph);

}  // namespace onyx::visualize
