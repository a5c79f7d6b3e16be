// Common-subexpression elimination: two nodes with the same operator, inputs and attributes compute the same
// values, so the later one's readers read the earlier one's outputs. Identical small initializers are merged
// first, so that nodes reading copies of one constant match too. Random operators and nodes holding subgraphs are
// never merged.
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/graph_edit.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// Initializers up to this size are compared byte for byte; larger ones are weights, rarely duplicated.
constexpr size_t kMaxMergedInitializerBytes = 1 << 16;

std::string TensorKey(const Tensor& t) {
  std::string key = std::to_string(static_cast<int>(t.type())) + ShapeToString(t.shape());
  if (t.type() == DataType::kString) {
    for (const auto& s : t.values<std::string>()) key += std::to_string(s.size()) + ":" + s;
  } else if (t.raw() != nullptr) {
    key.append(static_cast<const char*>(t.raw()), t.nbytes());
  }
  return key;
}

void AppendFloat(std::string& key, float f) {
  char buf[sizeof f];
  std::memcpy(buf, &f, sizeof f);
  key.append(buf, sizeof f);
}

// A key equal for nodes that compute the same thing; nullopt for nodes that must not be merged.
std::optional<std::string> NodeKey(const ir::Node& n) {
  static const std::unordered_set<std::string> nondeterministic = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
  if (nondeterministic.count(n.op_type) || n.outputs.empty()) return std::nullopt;
  std::string key =
      n.domain + '\x1f' + n.op_type + '\x1f' + n.overload + '\x1f' + std::to_string(n.outputs.size()) + '\x1f';
  for (const auto& in : n.inputs) key += in + '\x1e';
  key += '\x1f';
  auto attrs = n.attributes;
  std::sort(attrs.begin(), attrs.end(), [](const ir::Attribute& a, const ir::Attribute& b) { return a.name < b.name; });
  for (const auto& a : attrs) {
    if (a.g || !a.graphs.empty() || !a.ref_attr_name.empty()) return std::nullopt;
    key += a.name + '=' + std::to_string(static_cast<int>(a.type)) + ':';
    switch (a.type) {
      case ir::AttrType::kFloat:
        AppendFloat(key, a.f);
        break;
      case ir::AttrType::kInt:
        key += std::to_string(a.i);
        break;
      case ir::AttrType::kString:
        key += std::to_string(a.s.size()) + ":" + a.s;
        break;
      case ir::AttrType::kFloats:
        for (float f : a.floats) AppendFloat(key, f);
        break;
      case ir::AttrType::kInts:
        for (int64_t v : a.ints) key += std::to_string(v) + ',';
        break;
      case ir::AttrType::kStrings:
        for (const auto& s : a.strings) key += std::to_string(s.size()) + ":" + s;
        break;
      case ir::AttrType::kTensor:
        if (a.t.tensor.raw() == nullptr && a.t.tensor.size() > 0) return std::nullopt;  // external, not loaded
        key += TensorKey(a.t.tensor);
        break;
      default:
        return std::nullopt;  // tensors lists, sparse tensors, type protos: rare, not worth comparing
    }
    key += '\x1d';
  }
  return key;
}

int MergeInitializers(ir::Graph& graph, const PassContext& ctx) {
  GraphIndex index(graph, ctx);
  std::unordered_map<std::string, std::string> first_by_key;
  std::unordered_map<std::string, std::string> renames;
  for (const auto& init : graph.initializers) {
    const Tensor* t = index.Constant(init.name);
    if (t == nullptr || index.IsGraphOutput(init.name) || t->nbytes() > kMaxMergedInitializerBytes) continue;
    if (t->raw() == nullptr && t->size() > 0) continue;
    auto [it, inserted] = first_by_key.emplace(TensorKey(*t), init.name);
    if (!inserted) renames.emplace(init.name, it->second);
  }
  ir::ReplaceUses(graph, renames);
  std::erase_if(graph.initializers, [&](const ir::NamedTensor& t) { return renames.count(t.name) > 0; });
  return static_cast<int>(renames.size());
}

}  // namespace

// One walk over the nodes in order (no index rebuilt per merge: a graph of thousands of shape computations, as
// torch exports Swin, took seconds): each node's inputs are read through the renames so far, a node equal to an
// earlier one is dropped and its outputs renamed to the earlier one's; at the end every read follows the renames
// (readers placed before their producer, and subgraphs, included).
Result<int> RunCommonSubexpression(ir::Graph& graph, const PassContext& ctx) {
  const int merged = MergeInitializers(graph, ctx);
  const GraphIndex index(graph, ctx);                 // graph inputs and outputs only: they do not change here
  std::unordered_map<std::string, int> first_by_key;  // key -> index of the node computing it first
  std::unordered_map<std::string, std::string> renames;
  std::vector<bool> erased(graph.nodes.size(), false);
  int nodes = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    ir::Node& n = graph.nodes[i];
    for (auto& in : n.inputs) in = ResolveRename(renames, in);
    auto key = NodeKey(n);
    if (!key) continue;
    auto [it, inserted] = first_by_key.emplace(*key, static_cast<int>(i));
    if (inserted) continue;
    ir::Node& first = graph.nodes[static_cast<size_t>(it->second)];
    bool mergeable = true;
    int renames_needed = 0;  // outputs of n that are graph outputs: first's take their names
    for (size_t k = 0; k < n.outputs.size() && mergeable; ++k) {
      if (n.outputs[k].empty()) continue;
      if (first.outputs[k].empty()) mergeable = false;
      if (index.IsGraphOutput(n.outputs[k])) {
        if (index.IsGraphOutput(first.outputs[k]) || index.IsGraphInput(first.outputs[k])) mergeable = false;
        ++renames_needed;
      }
    }
    if (!mergeable || (renames_needed > 0 && n.outputs.size() > 1)) continue;  // keep the simple case only
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      if (index.IsGraphOutput(n.outputs[k])) {
        renames[first.outputs[k]] = n.outputs[k];  // the graph output keeps its name, now computed by `first`
        first.outputs[k] = n.outputs[k];
      } else {
        renames[n.outputs[k]] = first.outputs[k];
      }
    }
    erased[i] = true;
    ++nodes;
  }
  if (nodes > 0) EraseNodesAndRename(graph, erased, std::move(renames));
  return merged + nodes;
}

}  // namespace onyx::optimizer
