// The view an operator's inference function has of one node: its inputs' types, what is known of their
// contents (constants, and for small integer tensors the element values as dims — "data propagation"), its
// attributes, and where to put the outputs' types. Subgraph attributes are inferred through it too.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::infer {

// The elements of a rank-0 or rank-1 integer (or bool, as 0/1) tensor, each a number, a symbol or unknown
// (a shape being computed: Shape -> Gather -> Concat -> Reshape; a condition computed from shapes).
struct KnownInts {
  std::vector<ir::Dim> elems;
  bool scalar = false;  // rank 0 (then elems has one entry)
  // All elements are numbers.
  bool all_values() const;
  std::vector<int64_t> values() const;  // only meaningful when all_values()
};

// Infers the outputs of a subgraph attribute given the types bound to its formal inputs (nullopt: use what
// the subgraph declares). Returns the types of its outputs (nullopt where unknown). `never_runs`: the
// subgraph is known not to run (an If branch its condition rules out), so its problems come back as an
// error for the caller to drop instead of being reported (even with strict = false).
using SubgraphInferrer = std::function<Result<std::vector<std::optional<ir::TypeInfo>>>(
    ir::Graph& graph, const std::vector<std::optional<ir::TypeInfo>>& input_types, bool never_runs)>;

struct OutputInfo {
  std::optional<ir::TypeInfo> type;
  std::optional<KnownInts> ints;
  std::optional<Tensor> constant;
};

class InferenceContext {
 public:
  struct InputInfo {
    const ir::TypeInfo* type = nullptr;  // null: absent or unknown
    const KnownInts* ints = nullptr;
    const Tensor* constant = nullptr;
  };

  InferenceContext(ir::Node& node, int since_version, int64_t opset, std::vector<InputInfo> inputs,
                   SubgraphInferrer subgraphs, bool data_propagation);

  const ir::Node& node() const { return node_; }
  int since_version() const { return since_version_; }
  int64_t opset() const { return opset_; }
  bool data_propagation() const { return data_propagation_; }

  size_t num_inputs() const { return node_.inputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  // The type of input i (null when absent or not known).
  const ir::TypeInfo* input_type(size_t i) const;
  // The type of input i when it is a tensor (null otherwise).
  const ir::TypeInfo* input_tensor(size_t i) const;
  // The element type of tensor input i (kUndefined when unknown).
  DataType input_elem_type(size_t i) const;
  // The shape of tensor input i when its rank is known.
  const std::vector<ir::Dim>* input_shape(size_t i) const;
  std::optional<int64_t> input_rank(size_t i) const;
  // The full value of input i when it is a constant (initializer, Constant output, or folded).
  const Tensor* input_constant(size_t i) const;
  // The known elements of a rank-0/1 integer input (from constants or data propagation).
  const KnownInts* input_ints(size_t i) const;
  // The values of a rank-0/1 integer input when every element is a known number.
  std::optional<std::vector<int64_t>> input_int_values(size_t i) const;

  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_output(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
  void set_output(size_t i, ir::TypeInfo type);
  void set_output_tensor(size_t i, DataType elem, std::optional<std::vector<ir::Dim>> shape);
  void set_output_ints(size_t i, KnownInts ints);
  void set_output_constant(size_t i, Tensor value);
  std::vector<OutputInfo>& outputs() { return outputs_; }

  const ir::Attribute* attr(std::string_view name) const { return node_.FindAttribute(name); }
  int64_t GetInt(std::string_view name, int64_t fallback) const;
  float GetFloat(std::string_view name, float fallback) const;
  std::string GetString(std::string_view name, std::string fallback = {}) const;
  std::optional<std::vector<int64_t>> GetInts(std::string_view name) const;

  // An error about this node's inference (the driver adds the node and operator).
  Status Error(const std::string& message) const { return InvalidArgument(message); }

  // Infers the graph held by attribute `name` with its inputs bound to `input_types`.
  Result<std::vector<std::optional<ir::TypeInfo>>> InferSubgraph(
      std::string_view name, const std::vector<std::optional<ir::TypeInfo>>& input_types, bool never_runs = false);
  Result<std::vector<std::optional<ir::TypeInfo>>> InferSubgraph(
      ir::Graph& graph, const std::vector<std::optional<ir::TypeInfo>>& input_types, bool never_runs = false);

 private:
  ir::Node& node_;
  int since_version_;
  int64_t opset_;
  std::vector<InputInfo> inputs_;
  std::vector<OutputInfo> outputs_;
  SubgraphInferrer subgraphs_;
  bool data_propagation_;
};

// A rank-0/1 integer tensor's values as KnownInts; nullopt for other tensors or ones too large to track.
std::optional<KnownInts> KnownIntsFromTensor(const Tensor& t);
// Largest number of elements tracked for constants and propagated values.
constexpr int64_t kMaxTrackedElements = 4096;

}  // namespace onyx::infer
