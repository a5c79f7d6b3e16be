// A read-only index of one graph for pattern matching: who produces and who reads each value, which values are
// constants, and the element type or rank of a value where the graph guarantees it. Rebuilt after every rewrite
// (graphs are small next to their tensors, and a stale index is the classic source of wrong rewrites).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/tensor.h"
#include "ir/model.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {

class GraphIndex {
 public:
  GraphIndex(const ir::Graph& graph, const PassContext& ctx);

  const ir::Graph& graph() const { return graph_; }
  // Index of the node producing `value`, or -1 (graph input, initializer, outer-scope value).
  int Producer(const std::string& value) const;
  // The producing node when it is `op_type` of the ONNX domain, else null.
  const ir::Node* ProducerOp(const std::string& value, std::string_view op_type) const;
  // Nodes reading `value` (a node whose subgraph reads it counts), once per node.
  const std::vector<int>& Consumers(const std::string& value) const;
  bool IsGraphOutput(const std::string& value) const { return outputs_.count(value) > 0; }
  bool IsGraphInput(const std::string& value) const { return inputs_.count(value) > 0; }
  // True when exactly one node reads `value` and it is not a graph output: the value can disappear in a fusion.
  bool HasSingleReader(const std::string& value) const;
  // How many edges ONNX Runtime's graph has from `value` to nodes: one per input slot reading it, plus one per node
  // that reads it inside a subgraph (a node with subgraphs that also reads it directly counts as both). Graph outputs
  // are no edges.
  int ReadEdges(const std::string& value) const;
  // The value of an initializer that is not also a graph input (those can be fed), or null.
  const Tensor* Constant(const std::string& value) const;
  // The element type of a tensor value where the graph fixes it (declared inputs of the main graph, which a
  // session checks; initializers; outputs of Cast and of operators whose output type follows from their inputs).
  std::optional<DataType> ElemType(const std::string& value) const;
  // The rank where the graph fixes it (declared main-graph inputs, initializers, Flatten, Gemm, Conv, Reshape to a
  // constant shape, Transpose with a perm, unary elementwise operators and Add/Sub/Mul/Div of known-rank inputs).
  std::optional<int64_t> Rank(const std::string& value) const;

 private:
  std::optional<DataType> ElemTypeImpl(const std::string& value, int depth) const;
  std::optional<int64_t> RankImpl(const std::string& value, int depth) const;

  const ir::Graph& graph_;
  bool is_main_graph_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_map<std::string, const ir::ValueInfo*> inputs_;
  std::unordered_set<std::string> outputs_;
  std::unordered_map<std::string, const Tensor*> constants_;
};

// True when `node` is `op_type` of the ONNX domain ("" or "ai.onnx").
bool IsOnnxOp(const ir::Node& node, std::string_view op_type);

// Attribute values with defaults.
int64_t AttrInt(const ir::Node& node, std::string_view name, int64_t default_value);
float AttrFloat(const ir::Node& node, std::string_view name, float default_value);
std::optional<std::vector<int64_t>> AttrInts(const ir::Node& node, std::string_view name);
// Sets (adding or replacing) an attribute.
void SetAttrInt(ir::Node& node, const std::string& name, int64_t value);
void SetAttrFloat(ir::Node& node, const std::string& name, float value);
void SetAttrInts(ir::Node& node, const std::string& name, std::vector<int64_t> values);

// The version of its operator a node runs at (the newest since_version at the model's opset), or nullopt.
std::optional<int> NodeSinceVersion(const ir::Model& model, const ir::Node& node);

// The single value of a one-element float tensor, or nullopt.
std::optional<double> ScalarOf(const Tensor* t);
// Whether `t` is a one-element float tensor within `relative_tolerance` of `target` (exporters round constants
// such as sqrt(2) or 1/6 to float).
bool IsScalarNear(const Tensor* t, double target, double relative_tolerance);

// Clip's bounds as its kernel applies them: attributes before opset 11 (from opset 6 a missing one is float's limit,
// before 6 no bound), one-element floating constant inputs from 11 (an omitted input is no bound). `since`: the
// node's operator version (the model's opset serves: the forms change at 6 and 11). nullopt when a bound input is
// not such a constant.
struct ClipBounds {
  std::optional<double> lo, hi;
};
std::optional<ClipBounds> ConstantClipBounds(const GraphIndex& index, const ir::Node& clip, int64_t since);

// Adds an initializer under a fresh name derived from `base`; returns the name.
std::string AddInitializer(ir::Graph& graph, const std::string& base, Tensor value);

// Makes every reader of `from` read `to` instead, keeping graph output names: when `from` is a graph output, `to`
// is renamed to `from` instead (possible when `to` is produced by a node of this graph and is neither a graph input
// nor output). Returns false, changing nothing, when neither is possible.
bool RedirectValue(ir::Graph& graph, const GraphIndex& index, const std::string& from, const std::string& to);

// Removes the nodes at these indices.
void EraseNodes(ir::Graph& graph, std::vector<int> indices);

// Follows `renames` from `name` to a name that is not renamed (the map must have no cycles).
std::string ResolveRename(const std::unordered_map<std::string, std::string>& renames, std::string name);

// Removes the nodes flagged in `erased` (one flag per node) and makes every read of a key of `renames` read its
// value, following chains (a -> b -> c reads c): what a pass that found many nodes to bypass in one walk applies at
// once (ir::ReplaceUses).
void EraseNodesAndRename(ir::Graph& graph, const std::vector<bool>& erased,
                         std::unordered_map<std::string, std::string> renames);

// Scans the nodes in order calling `try_rewrite(index, i)`; after each rewrite (it returns true) the index is
// rebuilt and the scan goes on from the same position. Returns the number of rewrites.
Result<int> RewriteEachNode(ir::Graph& graph, const PassContext& ctx,
                            const std::function<Result<bool>(const GraphIndex&, int)>& try_rewrite);

// A float tensor of `type` (float, double, float16 or bfloat16) holding `values`.
Tensor FloatTensor(DataType type, const Shape& shape, const std::vector<double>& values);
// Float element types the fusions rewrite (their weights are recomputed in double and rounded back).
bool IsFusableFloat(DataType type);

// Node i read as Add or Mul of a constant and the output of a `producer_op` node that nothing else reads (what
// the scale/bias fusions fold into that producer): one entry per operand order that matches.
struct ScaleOrBiasOf {
  bool is_add = false;               // Add (a bias) or Mul (a scale)
  const Tensor* constant = nullptr;  // the constant operand
  int producer = -1;                 // the producing node's index
};
std::vector<ScaleOrBiasOf> MatchScaleOrBias(const ir::Graph& graph, const GraphIndex& index, int i,
                                            std::string_view producer_op);

// The statistics of a BatchNormalization in inference (version 7 on, spatial, not in training mode, no statistics
// outputs): scale, B, mean and var, constant 1-D float tensors of one length; nullopt otherwise.
std::optional<std::array<const Tensor*, 4>> InferenceBatchNormParams(const GraphIndex& index, const ir::Model& model,
                                                                     const ir::Node& bn);

// Convolution weights [M, ...] with output channel k multiplied by scale[k], in double.
std::vector<double> ScaledPerOutputChannel(const Tensor& weights, const std::vector<double>& scale);
// Makes Conv node `conv` compute what node `consumer` (its only reader) computed: it takes weights `w_name`, a new
// bias initializer holding `bias` (of `type`) and the consumer's output; the consumer is erased.
void FoldIntoConv(ir::Graph& graph, int conv, int consumer, const std::string& w_name, DataType type,
                  const std::vector<double>& bias);

}  // namespace onyx::optimizer
