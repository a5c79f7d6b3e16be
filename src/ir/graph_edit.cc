#include "ir/graph_edit.h"

#include <algorithm>
#include <unordered_set>

namespace onyx::ir {
namespace {

// Renames reads of `from` in a subgraph, unless the subgraph defines its own `from` (which shadows ours).
int ReplaceInSubgraph(Graph& g, const std::string& from, const std::string& to) {
  for (const auto& in : g.inputs) {
    if (in.name == from) return 0;
  }
  for (const auto& t : g.initializers) {
    if (t.name == from) return 0;
  }
  for (const auto& n : g.nodes) {
    if (std::find(n.outputs.begin(), n.outputs.end(), from) != n.outputs.end()) return 0;
  }
  return ReplaceAllUses(g, from, to);
}

void CollectNames(const Graph& g, std::unordered_set<std::string>& names) {
  for (const auto& v : g.inputs) names.insert(v.name);
  for (const auto& v : g.outputs) names.insert(v.name);
  for (const auto& v : g.value_info) names.insert(v.name);
  for (const auto& t : g.initializers) names.insert(t.name);
  for (const auto& n : g.nodes) {
    names.insert(n.inputs.begin(), n.inputs.end());
    names.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& a : n.attributes) {
      if (a.g) CollectNames(*a.g, names);
      for (const auto& sg : a.graphs) CollectNames(*sg, names);
    }
  }
}

}  // namespace

int ReplaceAllUses(Graph& graph, const std::string& from, const std::string& to) {
  int changed = 0;
  for (auto& n : graph.nodes) {
    for (auto& in : n.inputs) {
      if (in == from) {
        in = to;
        ++changed;
      }
    }
    for (auto& a : n.attributes) {
      if (a.g) changed += ReplaceInSubgraph(*a.g, from, to);
      for (auto& sg : a.graphs) changed += ReplaceInSubgraph(*sg, from, to);
    }
  }
  for (auto& out : graph.outputs) {
    if (out.name == from) {
      out.name = to;
      ++changed;
    }
  }
  return changed;
}

int ReplaceUses(Graph& graph, const std::unordered_map<std::string, std::string>& renames) {
  if (renames.empty()) return 0;
  int changed = 0;
  // A subgraph renames the names it does not define itself (its own shadow ours).
  auto in_subgraph = [&](Graph& g) {
    std::unordered_set<std::string> defined;
    for (const auto& in : g.inputs) defined.insert(in.name);
    for (const auto& t : g.initializers) defined.insert(t.name);
    for (const auto& n : g.nodes) defined.insert(n.outputs.begin(), n.outputs.end());
    bool shadows = false;
    for (const auto& name : defined) shadows = shadows || renames.count(name) > 0;
    if (!shadows) return ReplaceUses(g, renames);
    std::unordered_map<std::string, std::string> visible;
    for (const auto& [from, to] : renames) {
      if (!defined.count(from)) visible.emplace(from, to);
    }
    return ReplaceUses(g, visible);
  };
  for (auto& n : graph.nodes) {
    for (auto& in : n.inputs) {
      auto it = renames.find(in);
      if (it != renames.end()) {
        in = it->second;
        ++changed;
      }
    }
    for (auto& a : n.attributes) {
      if (a.g) changed += in_subgraph(*a.g);
      for (auto& sg : a.graphs) changed += in_subgraph(*sg);
    }
  }
  for (auto& out : graph.outputs) {
    auto it = renames.find(out.name);
    if (it != renames.end()) {
      out.name = it->second;
      ++changed;
    }
  }
  return changed;
}

int RemoveNodes(Graph& graph, const std::function<bool(const Node&)>& pred) {
  const auto before = graph.nodes.size();
  std::erase_if(graph.nodes, pred);
  return static_cast<int>(before - graph.nodes.size());
}

int RemoveDeadNodes(Graph& graph) {
  int removed = 0;
  for (;;) {
    std::unordered_set<std::string> read;
    for (const auto& o : graph.outputs) read.insert(o.name);
    for (const auto& n : graph.nodes) {
      for (const auto& r : NodeReads(n)) read.insert(r);
    }
    int now = RemoveNodes(graph, [&](const Node& n) {
      return std::none_of(n.outputs.begin(), n.outputs.end(),
                          [&](const std::string& o) { return !o.empty() && read.count(o); });
    });
    if (now == 0) {
      std::unordered_set<std::string> inputs;
      for (const auto& in : graph.inputs) inputs.insert(in.name);
      std::erase_if(graph.initializers,
                    [&](const NamedTensor& t) { return !read.count(t.name) && !inputs.count(t.name); });
      return removed;
    }
    removed += now;
  }
}

int FindProducer(const Graph& graph, const std::string& value) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& outs = graph.nodes[i].outputs;
    if (std::find(outs.begin(), outs.end(), value) != outs.end()) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> FindConsumers(const Graph& graph, const std::string& value) {
  std::vector<int> out;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    auto reads = NodeReads(graph.nodes[i]);
    if (std::find(reads.begin(), reads.end(), value) != reads.end()) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string UniqueValueName(const Graph& graph, const std::string& base) {
  std::unordered_set<std::string> names;
  CollectNames(graph, names);
  if (!names.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!names.count(candidate)) return candidate;
  }
}

}  // namespace onyx::ir
