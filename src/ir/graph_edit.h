// Graph editing: the small set of rewrites that optimizer passes, converters and opset adapters build on.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::ir {

// Makes every reader of value `from` (node inputs, graph outputs, and subgraphs that read it from this scope) read
// `to` instead. Returns how many references changed.
int ReplaceAllUses(Graph& graph, const std::string& from, const std::string& to);

// ReplaceAllUses for many names in one walk: every read of a key of `renames` (node inputs, graph outputs, subgraphs
// that read it from this scope and do not define it themselves) becomes its value. The values must not be keys
// themselves (resolve chains first). Returns how many references changed.
int ReplaceUses(Graph& graph, const std::unordered_map<std::string, std::string>& renames);

// Removes the nodes for which `pred` is true; returns how many were removed.
int RemoveNodes(Graph& graph, const std::function<bool(const Node&)>& pred);

// Removes nodes none of whose outputs are read (by later nodes, subgraphs or graph outputs), repeatedly, and
// initializers nobody reads. Returns the number of nodes removed.
int RemoveDeadNodes(Graph& graph);

// Index of the node producing `value`, or -1.
int FindProducer(const Graph& graph, const std::string& value);
// Indices of the nodes reading `value` (subgraph reads count for the node holding the subgraph).
std::vector<int> FindConsumers(const Graph& graph, const std::string& value);

// A value name not used anywhere in the graph (or its subgraphs), starting from `base`.
std::string UniqueValueName(const Graph& graph, const std::string& base);

}  // namespace onyx::ir
