// The adapter context (constants, names, helper nodes), value lookups through scopes, and the adapter table.
#include "version/adapter.h"

#include "schema/op_schema.h"

namespace onyx::version {

namespace {

// "tensor(float)" -> float; nullopt for non-tensor or unknown strings.
std::optional<DataType> TensorElemType(const std::string& type_str) {
  if (!type_str.starts_with("tensor(") || !type_str.ends_with(")")) return std::nullopt;
  auto t = DataTypeFromName(std::string_view(type_str).substr(7, type_str.size() - 8));
  if (!t.ok()) return std::nullopt;
  return *t;
}

std::optional<Tensor> ConstantNodeValue(const ir::Node& node) {
  for (const auto& a : node.attributes) {
    if (a.name == "value" && a.type == ir::AttrType::kTensor) return a.t.tensor;
    if (a.name == "value_float") return Tensor::Scalar<float>(a.f);
    if (a.name == "value_int") return Tensor::Scalar<int64_t>(a.i);
    if (a.name == "value_floats") return Tensor::FromVector(a.floats, {static_cast<int64_t>(a.floats.size())});
    if (a.name == "value_ints") return Tensor::FromVector(a.ints, {static_cast<int64_t>(a.ints.size())});
  }
  return std::nullopt;
}

void NoteDeclared(const ir::ValueInfo& vi, std::map<std::string, DataType>& types,
                  std::map<std::string, int64_t>& ranks) {
  if (!vi.type || !vi.type->is_tensor()) return;
  if (vi.type->elem_type != DataType::kUndefined) types[vi.name] = vi.type->elem_type;
  if (vi.type->shape) ranks[vi.name] = static_cast<int64_t>(vi.type->shape->size());
}

}  // namespace

ValueScope::ValueScope(const ir::Graph* graph, const ValueScope* parent, int64_t opset)
    : graph_(graph), parent_(parent) {
  for (const auto& vi : graph->inputs) {
    graph_inputs_.insert(vi.name);
    NoteDeclared(vi, elem_types_, ranks_);
  }
  for (const auto& vi : graph->value_info) NoteDeclared(vi, elem_types_, ranks_);
  for (const auto& vi : graph->outputs) NoteDeclared(vi, elem_types_, ranks_);
  for (const auto& init : graph->initializers) {
    elem_types_[init.name] = init.tensor.type();
    ranks_[init.name] = init.tensor.rank();
  }
  // Element types of the rest from the schemas: an output typed by a type parameter has the type of an input
  // bound to the same parameter; one typed literally, or by a single-type constraint, has that type.
  for (const auto& node : graph->nodes) {
    if (ir::CanonicalDomain(node.domain) != "ai.onnx") continue;
    if (node.op_type == "Constant" && node.outputs.size() == 1) {
      constant_nodes_[node.outputs[0]] = &node;
      if (auto v = ConstantNodeValue(node)) {
        elem_types_.emplace(node.outputs[0], v->type());
        ranks_.emplace(node.outputs[0], v->rank());
      }
      continue;
    }
    if (node.op_type == "Cast" && !node.outputs.empty()) {
      const ir::Attribute* to = node.FindAttribute("to");
      if (to && to->type == ir::AttrType::kInt && IsValidDataType(static_cast<int32_t>(to->i))) {
        elem_types_.emplace(node.outputs[0], static_cast<DataType>(to->i));
      }
      continue;
    }
    const schema::OpSchema* s = schema::ResolveSchema("ai.onnx", node.op_type, opset);
    if (!s) continue;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty() || elem_types_.count(node.outputs[i])) continue;
      const schema::FormalParameter* formal = s->OutputFormal(i);
      if (!formal) continue;
      std::optional<DataType> t = TensorElemType(formal->type_str);
      if (const schema::TypeConstraint* c = s->FindConstraint(formal->type_str); !t && c && c->allowed.size() == 1) {
        t = TensorElemType(c->allowed[0]);
      }
      for (size_t j = 0; !t && j < node.inputs.size(); ++j) {
        const schema::FormalParameter* in = s->InputFormal(j);
        if (in && in->type_str == formal->type_str && !node.inputs[j].empty()) t = ElemType(node.inputs[j]);
      }
      if (t) elem_types_[node.outputs[i]] = *t;
    }
  }
}

std::optional<Tensor> ValueScope::ConstantValue(const std::string& name) const {
  if (name.empty()) return std::nullopt;
  if (auto it = constant_nodes_.find(name); it != constant_nodes_.end()) return ConstantNodeValue(*it->second);
  if (const ir::NamedTensor* init = graph_->FindInitializer(name)) {
    // An initializer that is also a graph input is only a default: the caller may feed another value.
    if (graph_inputs_.count(name)) return std::nullopt;
    return init->tensor;
  }
  for (const auto& vi : graph_->inputs) {
    if (vi.name == name) return std::nullopt;
  }
  for (const auto& n : graph_->nodes) {
    for (const auto& o : n.outputs) {
      if (o == name) return std::nullopt;
    }
  }
  return parent_ ? parent_->ConstantValue(name) : std::nullopt;
}

std::optional<DataType> ValueScope::ElemType(const std::string& name) const {
  if (auto it = elem_types_.find(name); it != elem_types_.end()) return it->second;
  return parent_ ? parent_->ElemType(name) : std::nullopt;
}

std::optional<int64_t> ValueScope::Rank(const std::string& name) const {
  if (auto it = ranks_.find(name); it != ranks_.end()) return it->second;
  return parent_ ? parent_->Rank(name) : std::nullopt;
}

std::string AdaptContext::NewName(const std::string& base) {
  std::string name = base;
  for (int i = 1; names_->count(name); ++i) name = base + "_" + std::to_string(i);
  names_->insert(name);
  return name;
}

std::string AdaptContext::AddConstant(Tensor tensor, const std::string& base) {
  std::string name = NewName(base);
  if (function_ || !graph_) {
    ir::Node c;
    c.op_type = "Constant";
    c.name = name;
    c.outputs = {name};
    ir::Attribute a;
    a.name = "value";
    a.type = ir::AttrType::kTensor;
    a.t.name = name;
    a.t.tensor = std::move(tensor);
    c.attributes.push_back(std::move(a));
    Emit(std::move(c));
  } else {
    ir::NamedTensor t;
    t.name = name;
    t.tensor = std::move(tensor);
    graph_->initializers.push_back(std::move(t));
  }
  return name;
}

std::string AdaptContext::EmitHelper(const std::string& op_type, std::vector<std::string> inputs,
                                     const std::string& base, std::vector<ir::Attribute> attributes) {
  ir::Node n;
  n.op_type = op_type;
  n.name = NewName(base);
  n.inputs = std::move(inputs);
  n.outputs = {n.name};
  n.attributes = std::move(attributes);
  std::string out = n.name;
  Emit(std::move(n));
  return out;
}

Status AdaptContext::Fail(const ir::Node& node, const std::string& reason) const {
  std::string who = node.name.empty() ? "node (" + node.op_type : "node '" + node.name + "' (" + node.op_type;
  return Unsupported(who + ", opset " + std::to_string(from_) + " -> " + std::to_string(to_) + "): " + reason);
}

const Adapter* FindAdapter(const std::string& op_type, int version, bool upward) {
  static const AdapterTable table = [] {
    AdapterTable t;
    RegisterInputAttributeAdapters(t);
    RegisterLegacyAdapters(t);
    RegisterRewriteAdapters(t);
    return t;
  }();
  auto it = table.find(AdapterKey{op_type, version, upward});
  return it == table.end() ? nullptr : &it->second;
}

std::optional<ir::Attribute> TakeAttribute(ir::Node& node, const std::string& name) {
  for (auto it = node.attributes.begin(); it != node.attributes.end(); ++it) {
    if (it->name == name) {
      ir::Attribute a = std::move(*it);
      node.attributes.erase(it);
      return a;
    }
  }
  return std::nullopt;
}

void SetInput(ir::Node& node, size_t index, const std::string& value) {
  if (node.inputs.size() <= index) node.inputs.resize(index + 1);
  node.inputs[index] = value;
}

void TrimInputs(ir::Node& node) {
  while (!node.inputs.empty() && node.inputs.back().empty()) node.inputs.pop_back();
}

Result<Tensor> ScalarOf(DataType type, double v) {
  Tensor out;
  ONYX_RETURN_IF_ERROR(Dispatch<NumericTypes>(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    out = Tensor::Scalar<T>(FromDouble<T>(v));
    return Status::Ok();
  }));
  return out;
}

}  // namespace onyx::version
