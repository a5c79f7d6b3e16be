// Opset adapters: how one operator's node is rewritten when the default-domain opset crosses the version where
// the operator's schema changed. The converter walks one opset at a time (like ONNX's version converter); at each
// step every node whose operator changes there is handed to the adapter registered for (operator, version,
// direction), or, when none is, checked generically against the schema it lands on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::version {

// What the converter knows about the values visible from one graph: constants and element types/ranks, looked up
// through the enclosing graphs' scopes.
class ValueScope {
 public:
  ValueScope(const ir::Graph* graph, const ValueScope* parent, int64_t opset);

  // The value of a constant: an initializer that is not also a graph input, or the output of a Constant node.
  std::optional<Tensor> ConstantValue(const std::string& name) const;
  std::optional<DataType> ElemType(const std::string& name) const;
  std::optional<int64_t> Rank(const std::string& name) const;
  void SetElemType(const std::string& name, DataType type) { elem_types_[name] = type; }

 private:
  const ir::Graph* graph_;
  const ValueScope* parent_;
  std::map<std::string, DataType> elem_types_;
  std::map<std::string, int64_t> ranks_;
  std::map<std::string, const ir::Node*> constant_nodes_;
  std::set<std::string> graph_inputs_;
};

// Where an adapter puts what it makes. Nodes it emits replace the adapted node, in order.
class AdaptContext {
 public:
  AdaptContext(ir::Graph* graph, ir::Function* function, const ValueScope* scope, std::set<std::string>* names,
               int64_t from_opset, int64_t to_opset, int64_t final_opset)
      : graph_(graph),
        function_(function),
        scope_(scope),
        names_(names),
        from_(from_opset),
        to_(to_opset),
        final_(final_opset) {}

  int64_t from_opset() const { return from_; }
  int64_t to_opset() const { return to_; }
  // The opset the whole conversion ends at (element types are checked there only).
  int64_t final_opset() const { return final_; }
  bool upward() const { return to_ > from_; }
  const ValueScope& scope() const { return *scope_; }

  void Emit(ir::Node node) { emitted_.push_back(std::move(node)); }
  std::vector<ir::Node>& emitted() { return emitted_; }

  // A name no value of the model uses yet, derived from `base`.
  std::string NewName(const std::string& base);
  // Adds `tensor` as a constant (an initializer in a graph, a Constant node in a function) and returns its name.
  std::string AddConstant(Tensor tensor, const std::string& base);
  std::string AddInt64s(const std::vector<int64_t>& values, const std::string& base) {
    return AddConstant(Tensor::FromVector(values, {static_cast<int64_t>(values.size())}), base);
  }
  // Emits a helper node (named after `base`) with one output and returns that output's name.
  std::string EmitHelper(const std::string& op_type, std::vector<std::string> inputs, const std::string& base,
                         std::vector<ir::Attribute> attributes = {});

  // An error about `node` at this step: "node 'x' (Clip, opset 11 -> 10): <reason>".
  Status Fail(const ir::Node& node, const std::string& reason) const;

 private:
  ir::Graph* graph_;
  ir::Function* function_;
  const ValueScope* scope_;
  std::set<std::string>* names_;
  int64_t from_, to_, final_;
  std::vector<ir::Node> emitted_;
};

// Rewrites `node` (a copy, already detached from the graph) and emits its replacement(s).
using Adapter = std::function<Status(AdaptContext& ctx, ir::Node node)>;

// The adapter for `op_type` at the step where its schema `version` begins: upward for the step (version-1 ->
// version), downward for (version -> version-1). nullptr when the change needs none (generic check only).
const Adapter* FindAdapter(const std::string& op_type, int version, bool upward);

// Registration, one call per adapter file (called once by FindAdapter).
struct AdapterKey {
  std::string op_type;
  int version;
  bool upward;
  bool operator<(const AdapterKey& o) const {
    return std::tie(op_type, version, upward) < std::tie(o.op_type, o.version, o.upward);
  }
};
using AdapterTable = std::map<AdapterKey, Adapter>;
void RegisterInputAttributeAdapters(AdapterTable& table);
void RegisterLegacyAdapters(AdapterTable& table);
void RegisterRewriteAdapters(AdapterTable& table);

// Attribute helpers (the factories live in ir/model.h).
using ir::FloatAttr;
using ir::FloatsAttr;
using ir::IntAttr;
using ir::IntsAttr;
using ir::StringAttr;
// Removes the attribute and returns it (nullopt when absent).
std::optional<ir::Attribute> TakeAttribute(ir::Node& node, const std::string& name);
// Sets input `index`, padding with "" (omitted) inputs before it.
void SetInput(ir::Node& node, size_t index, const std::string& value);
// Drops trailing omitted ("") inputs.
void TrimInputs(ir::Node& node);
// A scalar of `type` holding `v`; Unsupported for non-numeric types.
Result<Tensor> ScalarOf(DataType type, double v);

}  // namespace onyx::version
