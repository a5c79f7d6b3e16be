// Lookup tables: HashTableV2 (and HashTable) filled with constants by LookupTableImportV2 / InitializeTableV2 (or
// the V1 names), read by LookupTableFindV2 / LookupTableSizeV2, become ai.onnx.ml LabelEncoder nodes (keys and
// values strings, integers or floats) and constants. The node that fills a table is usually off the outputs' path
// (a control input, or TF.js's modelInitializer graph), so the graph is searched for it before the walk.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "convert/tf/graph_walk.h"

namespace onyx::convert::tf {

// Finds every table that `nodes` initialize with constants (keys and values Consts, possibly through Identity
// nodes) and records it in env.tables by the HashTable node's name. `weights` holds the Consts' stored values.
Status FindTableInits(ConvertEnv& env, const std::vector<TfNode>& nodes);

// The table operators' converters.
void AddTableOps(std::map<std::string, OpFn>& table);

}  // namespace onyx::convert::tf
