#include "visualize/value_types.h"

#include <memory>

#include "infer/shape_inference.h"

namespace onyx::visualize {

namespace {

// Copying a Model shares its subgraphs (attributes hold them by shared_ptr); inference writes value_info into
// every graph it visits, so the copy gets subgraphs of its own. Tensors still share their bytes.
void DetachSubgraphs(ir::Graph& graph) {
  for (auto& node : graph.nodes) {
    for (auto& attr : node.attributes) {
      if (attr.g) {
        attr.g = std::make_shared<ir::Graph>(*attr.g);
        DetachSubgraphs(*attr.g);
      }
      for (auto& g : attr.graphs) {
        if (!g) continue;
        g = std::make_shared<ir::Graph>(*g);
        DetachSubgraphs(*g);
      }
    }
  }
}

bool Known(const ir::TypeInfo& t) { return t.kind != ir::TypeInfo::Kind::kUndefined; }

void Collect(const ir::Graph& graph, std::unordered_map<std::string, std::string>& types) {
  auto add = [&](const ir::ValueInfo& vi) {
    if (vi.type && Known(*vi.type)) types.insert_or_assign(vi.name, vi.type->ToShortString());
  };
  for (const auto& t : graph.initializers) {
    std::vector<ir::Dim> dims;
    for (int64_t d : t.tensor.shape()) dims.push_back(ir::Dim::Value(d));
    types.insert_or_assign(t.name, ir::TypeInfo::Tensor(t.tensor.type(), std::move(dims)).ToShortString());
  }
  for (const auto& vi : graph.inputs) add(vi);
  for (const auto& vi : graph.value_info) add(vi);
  for (const auto& vi : graph.outputs) add(vi);
  for (const auto& node : graph.nodes) {
    for (const auto& attr : node.attributes) {
      if (attr.g) Collect(*attr.g, types);
      for (const auto& g : attr.graphs) {
        if (g) Collect(*g, types);
      }
    }
  }
}

}  // namespace

std::unordered_map<std::string, std::string> CollectValueTypes(const ir::Model& model,
                                                               std::vector<std::string>* warnings) {
  std::unordered_map<std::string, std::string> types;
  ir::Model copy = model;
  DetachSubgraphs(copy.graph);
  std::vector<std::string> diagnostics;
  infer::InferOptions options;
  options.strict = false;  // a conflict on one node should not cost the labels of all the others
  options.diagnostics = &diagnostics;
  Status st = infer::InferShapes(copy, options);
  if (st.ok()) {
    Collect(copy.graph, types);
    if (!diagnostics.empty() && warnings) {
      warnings->push_back("shape inference: " + std::to_string(diagnostics.size()) +
                          " problem(s), the first: " + diagnostics.front() + " (some edges stay unlabelled)");
    }
    return types;
  }
  // A failed inference may have left the copy half-written; the declared types are what the model says.
  Collect(model.graph, types);
  if (warnings) {
    warnings->push_back("shape inference failed (" + st.message() +
                        "); edges are labelled from the declared value_info only");
  }
  return types;
}

}  // namespace onyx::visualize
