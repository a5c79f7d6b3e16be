#include "ir/model.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace onyx::ir {

Attribute IntAttr(const std::string& name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = AttrType::kInt;
  a.i = v;
  return a;
}

Attribute IntsAttr(const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.type = AttrType::kInts;
  a.ints = std::move(v);
  return a;
}

Attribute FloatAttr(const std::string& name, float v) {
  Attribute a;
  a.name = name;
  a.type = AttrType::kFloat;
  a.f = v;
  return a;
}

Attribute FloatsAttr(const std::string& name, std::vector<float> v) {
  Attribute a;
  a.name = name;
  a.type = AttrType::kFloats;
  a.floats = std::move(v);
  return a;
}

Attribute StringAttr(const std::string& name, std::string v) {
  Attribute a;
  a.name = name;
  a.type = AttrType::kString;
  a.s = std::move(v);
  return a;
}

Attribute StringsAttr(const std::string& name, std::vector<std::string> v) {
  Attribute a;
  a.name = name;
  a.type = AttrType::kStrings;
  a.strings = std::move(v);
  return a;
}

std::string Dim::ToString() const {
  switch (kind) {
    case Kind::kValue:
      return std::to_string(value);
    case Kind::kParam:
      return param;
    case Kind::kUnknown:
      break;
  }
  return "?";
}

TypeInfo TypeInfo::Tensor(DataType t, std::optional<std::vector<Dim>> shape) {
  TypeInfo ti;
  ti.kind = Kind::kTensor;
  ti.elem_type = t;
  ti.shape = std::move(shape);
  return ti;
}

TypeInfo TypeInfo::Sequence(TypeInfo elem) {
  TypeInfo ti;
  ti.kind = Kind::kSequence;
  ti.elem = std::make_shared<TypeInfo>(std::move(elem));
  return ti;
}

TypeInfo TypeInfo::Optional(TypeInfo elem) {
  TypeInfo ti;
  ti.kind = Kind::kOptional;
  ti.elem = std::make_shared<TypeInfo>(std::move(elem));
  return ti;
}

std::string TypeInfo::ToString() const {
  auto inner = [this] { return elem ? elem->ToString() : std::string("?"); };
  switch (kind) {
    case Kind::kTensor:
      return "tensor(" + std::string(DataTypeName(elem_type)) + ")";
    case Kind::kSparseTensor:
      return "sparse_tensor(" + std::string(DataTypeName(elem_type)) + ")";
    case Kind::kSequence:
      return "seq(" + inner() + ")";
    case Kind::kOptional:
      return "optional(" + inner() + ")";
    case Kind::kMap:
      return "map(" + std::string(DataTypeName(elem_type)) + "," + inner() + ")";
    case Kind::kOpaque:
      return "opaque(" + opaque_domain + "," + opaque_name + ")";
    case Kind::kUndefined:
      break;
  }
  return "undefined";
}

std::string TypeInfo::ToShortString() const {
  if (kind != Kind::kTensor && kind != Kind::kSparseTensor) return ToString();
  std::string s(DataTypeName(elem_type));
  if (shape) {
    s += "[";
    for (size_t i = 0; i < shape->size(); ++i) {
      if (i) s += ",";
      s += (*shape)[i].ToString();
    }
    s += "]";
  }
  return s;
}

std::string_view AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kFloat:
      return "float";
    case AttrType::kInt:
      return "int";
    case AttrType::kString:
      return "string";
    case AttrType::kTensor:
      return "tensor";
    case AttrType::kGraph:
      return "graph";
    case AttrType::kFloats:
      return "floats";
    case AttrType::kInts:
      return "ints";
    case AttrType::kStrings:
      return "strings";
    case AttrType::kTensors:
      return "tensors";
    case AttrType::kGraphs:
      return "graphs";
    case AttrType::kSparseTensor:
      return "sparse_tensor";
    case AttrType::kSparseTensors:
      return "sparse_tensors";
    case AttrType::kTypeProto:
      return "type_proto";
    case AttrType::kTypeProtos:
      return "type_protos";
    case AttrType::kUndefined:
      break;
  }
  return "undefined";
}

const Attribute* Node::FindAttribute(std::string_view attr_name) const {
  for (const auto& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

std::string Node::Describe() const {
  std::string op = domain.empty() || domain == "ai.onnx" ? op_type : domain + "." + op_type;
  if (!name.empty()) return "node '" + name + "' (" + op + ")";
  if (!outputs.empty()) return "node producing '" + outputs[0] + "' (" + op + ")";
  return "node (" + op + ")";
}

bool IsInternalStandardTwin(const Node& node) {
  if (node.domain != kInternalDomain) return false;
  for (const InternalStandardTwin& twin : kInternalStandardTwins) {
    if (node.op_type == twin.op_type) return true;
  }
  return false;
}

const NamedTensor* Graph::FindInitializer(std::string_view value_name) const {
  for (const auto& t : initializers) {
    if (t.name == value_name) return &t;
  }
  return nullptr;
}

std::vector<const ValueInfo*> Graph::RealInputs() const {
  std::unordered_set<std::string> inits;
  for (const auto& t : initializers) inits.insert(t.name);
  std::vector<const ValueInfo*> out;
  for (const auto& in : inputs) {
    if (!inits.count(in.name)) out.push_back(&in);
  }
  return out;
}

std::string_view CanonicalDomain(std::string_view d) { return d.empty() ? std::string_view("ai.onnx") : d; }

std::optional<int64_t> Model::OpsetVersion(std::string_view op_domain) const {
  auto want = CanonicalDomain(op_domain);
  for (const auto& o : opset_import) {
    if (CanonicalDomain(o.domain) == want) return o.version;
  }
  return std::nullopt;
}

const Function* Model::FindFunction(std::string_view fn_domain, std::string_view fn_name) const {
  for (const auto& f : functions) {
    if (f.name == fn_name && f.domain == fn_domain) return &f;
  }
  return nullptr;
}

namespace {

// Names a graph reads from enclosing scopes (used by nodes of the graph or of its own subgraphs).
void CollectFreeNames(const Graph& g, std::unordered_set<std::string>& out) {
  std::unordered_set<std::string> defined;
  for (const auto& i : g.inputs) defined.insert(i.name);
  for (const auto& t : g.initializers) defined.insert(t.name);
  for (const auto& n : g.nodes) {
    for (const auto& o : n.outputs) defined.insert(o);
  }
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name)) out.insert(name);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) use(i);
    for (const auto& a : n.attributes) {
      std::unordered_set<std::string> inner;
      if (a.g) CollectFreeNames(*a.g, inner);
      for (const auto& sg : a.graphs) {
        if (sg) CollectFreeNames(*sg, inner);
      }
      for (const auto& name : inner) use(name);
    }
  }
  for (const auto& o : g.outputs) use(o.name);
}

}  // namespace

std::vector<std::string> NodeReads(const Node& n) {
  std::vector<std::string> reads;
  for (const auto& i : n.inputs) {
    if (!i.empty()) reads.push_back(i);
  }
  for (const auto& a : n.attributes) {
    std::unordered_set<std::string> inner;
    if (a.g) CollectFreeNames(*a.g, inner);
    for (const auto& sg : a.graphs) {
      if (sg) CollectFreeNames(*sg, inner);
    }
    reads.insert(reads.end(), inner.begin(), inner.end());
  }
  return reads;
}

std::vector<std::string> FreeNames(const Graph& graph) {
  std::unordered_set<std::string> names;
  CollectFreeNames(graph, names);
  std::vector<std::string> out(names.begin(), names.end());
  std::sort(out.begin(), out.end());
  return out;
}

Status TopologicalSort(Graph& graph, const std::vector<std::string>& outer_scope) {
  const size_t n = graph.nodes.size();
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& o : graph.nodes[i].outputs) {
      if (!o.empty()) producer.emplace(o, i);
    }
  }
  std::vector<std::vector<size_t>> users(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::set<size_t> deps;
    for (const auto& r : NodeReads(graph.nodes[i])) {
      auto it = producer.find(r);
      if (it != producer.end() && it->second != i) deps.insert(it->second);
    }
    pending[i] = deps.size();
    for (size_t d : deps) users[d].push_back(i);
  }
  // Kahn's algorithm, always taking the lowest original index ready, so sorted graphs stay unchanged.
  std::set<size_t> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.insert(i);
  }
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t u : users[i]) {
      if (--pending[u] == 0) ready.insert(u);
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] != 0) {
        return InvalidArgument("graph '" + graph.name + "' has a cycle through " + graph.nodes[i].Describe());
      }
    }
  }
  bool changed = false;
  for (size_t i = 0; i < n; ++i) changed |= order[i] != i;
  if (changed) {
    std::vector<Node> sorted;
    sorted.reserve(n);
    for (size_t i : order) sorted.push_back(std::move(graph.nodes[i]));
    graph.nodes = std::move(sorted);
  }
  // Subgraphs see everything visible here.
  std::vector<std::string> scope = outer_scope;
  for (const auto& i : graph.inputs) scope.push_back(i.name);
  for (const auto& t : graph.initializers) scope.push_back(t.name);
  for (const auto& node : graph.nodes) {
    for (const auto& o : node.outputs) scope.push_back(o);
  }
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      if (a.g) ONYX_RETURN_IF_ERROR(TopologicalSort(*a.g, scope));
      for (auto& sg : a.graphs) {
        if (sg) ONYX_RETURN_IF_ERROR(TopologicalSort(*sg, scope));
      }
    }
  }
  return Status::Ok();
}

std::map<std::string, int64_t> OperatorHistogram(const Graph& graph) {
  std::map<std::string, int64_t> h;
  std::function<void(const Graph&)> walk = [&](const Graph& g) {
    for (const auto& n : g.nodes) {
      std::string key = n.domain.empty() || n.domain == "ai.onnx" ? n.op_type : n.domain + "." + n.op_type;
      ++h[key];
      for (const auto& a : n.attributes) {
        if (a.g) walk(*a.g);
        for (const auto& sg : a.graphs) {
          if (sg) walk(*sg);
        }
      }
    }
  };
  walk(graph);
  return h;
}

}  // namespace onyx::ir
