// GraphBuilder: appends nodes and constant initializers to an ir::Graph with fresh, readable value names.
// Shared by the framework converters (Keras now; TF and TFLite later), which emit many small nodes.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::convert {

class GraphBuilder {
 public:
  explicit GraphBuilder(ir::Graph* graph);

  ir::Graph& graph() { return *graph_; }
  // A value name not used yet, derived from `base` ("conv1/W", "conv1/W_1", ...).
  std::string Fresh(const std::string& base);
  // Marks a name as taken (graph inputs).
  void Reserve(const std::string& name) { used_.insert(name); }
  // Adds a graph input with a fresh name derived from `base` (a subgraph's iteration count, loop-carried values);
  // returns the name.
  std::string Input(const std::string& base, ir::TypeInfo type);

  // Adds an initializer; returns its value name.
  std::string Constant(const std::string& base, Tensor tensor);
  std::string ConstInts(const std::string& base, const std::vector<int64_t>& values);  // 1-D int64
  std::string ConstFloat(const std::string& base, float value);                        // float scalar

  // Adds a node with `num_outputs` fresh outputs named after `node_name`; returns the output names.
  std::vector<std::string> Op(const std::string& op_type, const std::vector<std::string>& inputs,
                              const std::string& node_name, std::vector<ir::Attribute> attrs = {}, int num_outputs = 1);
  // The single-output case.
  std::string Op1(const std::string& op_type, const std::vector<std::string>& inputs, const std::string& node_name,
                  std::vector<ir::Attribute> attrs = {});
  // Adds a node writing to given output names.
  void OpTo(const std::string& op_type, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
            const std::string& node_name, std::vector<ir::Attribute> attrs = {});

  // The doc_string given to every node added from now on (the source layer it came from).
  void set_doc(std::string doc) { doc_ = std::move(doc); }

 private:
  ir::Graph* graph_;
  std::set<std::string> used_;
  // Per base, the suffix Fresh tries first: every smaller one is taken (names are never released), so a base asked
  // for n times costs n lookups in all, not n^2 / 2 (an unrolled sequence of thousands of steps names each step's
  // values from the same bases).
  std::unordered_map<std::string, int64_t> next_suffix_;
  std::string doc_;
};

}  // namespace onyx::convert
