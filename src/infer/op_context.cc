#include "infer/op_context.h"

namespace onyx::infer {

bool KnownInts::all_values() const {
  for (const auto& d : elems) {
    if (!d.is_value()) return false;
  }
  return true;
}

std::vector<int64_t> KnownInts::values() const {
  std::vector<int64_t> v;
  v.reserve(elems.size());
  for (const auto& d : elems) v.push_back(d.value);
  return v;
}

std::optional<KnownInts> KnownIntsFromTensor(const Tensor& t) {
  // Bools count (as 0/1): an If's condition is often a computed or constant bool.
  if ((!IsInteger(t.type()) && t.type() != DataType::kBool) || t.rank() > 1 || t.size() > kMaxTrackedElements ||
      t.raw() == nullptr) {
    return std::nullopt;
  }
  if (IsSubByte(t.type())) return std::nullopt;
  KnownInts k;
  k.scalar = t.rank() == 0;
  for (int64_t i = 0; i < t.size(); ++i) k.elems.push_back(ir::Dim::Value(t.IntAt(i)));
  return k;
}

InferenceContext::InferenceContext(ir::Node& node, int since_version, int64_t opset, std::vector<InputInfo> inputs,
                                   SubgraphInferrer subgraphs, bool data_propagation)
    : node_(node),
      since_version_(since_version),
      opset_(opset),
      inputs_(std::move(inputs)),
      outputs_(node.outputs.size()),
      subgraphs_(std::move(subgraphs)),
      data_propagation_(data_propagation) {}

const ir::TypeInfo* InferenceContext::input_type(size_t i) const {
  if (!has_input(i) || i >= inputs_.size()) return nullptr;
  const ir::TypeInfo* t = inputs_[i].type;
  if (t == nullptr || t->kind == ir::TypeInfo::Kind::kUndefined) return nullptr;
  return t;
}

const ir::TypeInfo* InferenceContext::input_tensor(size_t i) const {
  const ir::TypeInfo* t = input_type(i);
  return t != nullptr && t->is_tensor() ? t : nullptr;
}

DataType InferenceContext::input_elem_type(size_t i) const {
  const ir::TypeInfo* t = input_tensor(i);
  return t != nullptr ? t->elem_type : DataType::kUndefined;
}

const std::vector<ir::Dim>* InferenceContext::input_shape(size_t i) const {
  const ir::TypeInfo* t = input_tensor(i);
  return t != nullptr && t->shape ? &*t->shape : nullptr;
}

std::optional<int64_t> InferenceContext::input_rank(size_t i) const {
  const auto* s = input_shape(i);
  if (s == nullptr) return std::nullopt;
  return static_cast<int64_t>(s->size());
}

const Tensor* InferenceContext::input_constant(size_t i) const {
  if (!has_input(i) || i >= inputs_.size()) return nullptr;
  return inputs_[i].constant;
}

const KnownInts* InferenceContext::input_ints(size_t i) const {
  if (!has_input(i) || i >= inputs_.size()) return nullptr;
  return inputs_[i].ints;
}

std::optional<std::vector<int64_t>> InferenceContext::input_int_values(size_t i) const {
  const KnownInts* k = input_ints(i);
  if (k == nullptr || !k->all_values()) return std::nullopt;
  return k->values();
}

void InferenceContext::set_output(size_t i, ir::TypeInfo type) {
  if (i < outputs_.size()) outputs_[i].type = std::move(type);
}

void InferenceContext::set_output_tensor(size_t i, DataType elem, std::optional<std::vector<ir::Dim>> shape) {
  set_output(i, ir::TypeInfo::Tensor(elem, std::move(shape)));
}

void InferenceContext::set_output_ints(size_t i, KnownInts ints) {
  if (i < outputs_.size() && data_propagation_ && static_cast<int64_t>(ints.elems.size()) <= kMaxTrackedElements) {
    outputs_[i].ints = std::move(ints);
  }
}

void InferenceContext::set_output_constant(size_t i, Tensor value) {
  if (i >= outputs_.size()) return;
  if (auto k = KnownIntsFromTensor(value)) outputs_[i].ints = std::move(*k);
  outputs_[i].constant = std::move(value);
}

int64_t InferenceContext::GetInt(std::string_view name, int64_t fallback) const {
  const ir::Attribute* a = attr(name);
  return a != nullptr && a->type == ir::AttrType::kInt ? a->i : fallback;
}

float InferenceContext::GetFloat(std::string_view name, float fallback) const {
  const ir::Attribute* a = attr(name);
  return a != nullptr && a->type == ir::AttrType::kFloat ? a->f : fallback;
}

std::string InferenceContext::GetString(std::string_view name, std::string fallback) const {
  const ir::Attribute* a = attr(name);
  return a != nullptr && a->type == ir::AttrType::kString ? a->s : fallback;
}

std::optional<std::vector<int64_t>> InferenceContext::GetInts(std::string_view name) const {
  const ir::Attribute* a = attr(name);
  if (a == nullptr || a->type != ir::AttrType::kInts) return std::nullopt;
  return a->ints;
}

Result<std::vector<std::optional<ir::TypeInfo>>> InferenceContext::InferSubgraph(
    std::string_view name, const std::vector<std::optional<ir::TypeInfo>>& input_types, bool never_runs) {
  for (auto& a : node_.attributes) {
    if (a.name == name && a.type == ir::AttrType::kGraph && a.g) return InferSubgraph(*a.g, input_types, never_runs);
  }
  return Error("has no graph attribute '" + std::string(name) + "'");
}

Result<std::vector<std::optional<ir::TypeInfo>>> InferenceContext::InferSubgraph(
    ir::Graph& graph, const std::vector<std::optional<ir::TypeInfo>>& input_types, bool never_runs) {
  if (!subgraphs_) return std::vector<std::optional<ir::TypeInfo>>(graph.outputs.size());
  return subgraphs_(graph, input_types, never_runs);
}

}  // namespace onyx::infer
