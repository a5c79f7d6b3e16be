// The graph walk shared by the top-level graph and by function bodies: the TF nodes an output needs are visited in
// dependency order; Placeholders become graph inputs, Consts initializers, and every other node is handed to its
// operator's converter with its inputs as ONNX values.
#pragma once

#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "convert/common/graph_builder.h"
#include "convert/tf/op_context.h"
#include "convert/tf/tf_node.h"
#include "core/tensor.h"

namespace onyx::convert::tf {

// A lookup table's contents, from the node that initializes it with constants (LookupTableImportV2 and kin).
struct TableInit {
  Tensor keys;
  Tensor values;
};

// What every graph and function body of one conversion shares.
struct ConvertEnv {
  std::string path;                                      // names the model in errors
  std::map<std::string, Tensor> weights;                 // Const values by node name (the weight shards)
  std::map<std::string, const nlohmann::json*> library;  // FunctionDefs (JSON) by signature name
  std::deque<Tensor> constants;                          // Const values at stable addresses (TfValue::constant)
  std::vector<GraphBuilder*> scopes;                     // builders of the graphs being built, outermost first
  int depth = 0;                                         // functions being converted inside each other
  int converted = 0;                                     // TF nodes converted, in every scope
  std::map<std::string, TableInit> tables;               // by the name of the HashTable node
  // ONNX values that are sequences (TensorLists, TensorArray flows; TfValue::type is then the element type).
  std::set<std::string> sequences;
  // TensorArrayV3 handles (ONNX value names) -> whether the array may grow (dynamic_size).
  std::map<std::string, bool> tensor_arrays;
};

// The control inputs ("^node", without the caret) of the nodes that have some, by node name: TF1 control flow
// puts a loop's or a branch's constants in it through them.
using ControlInputs = std::map<std::string, std::vector<std::string>>;

class Tf1Graph;  // tf1_control.h

// One walk over a node list: what the nested walks of TF1 loop bodies and branches share.
struct Walk {
  ConvertEnv& env;
  Functions* functions;
  const std::vector<TfNode>& nodes;
  const std::map<std::string, size_t>& index;  // nodes by name
  const Tf1Graph* tf1;                         // the nodes' TF1 frames and conditionals; null when they have none
};

// "node:1" -> ("node", 1); "node" -> ("node", 0).
std::pair<std::string, int> SplitTensorName(const std::string& tensor);
inline std::string TensorKey(const std::string& node, int port) { return node + ":" + std::to_string(port); }

// A Const's value stored in the node (proto3-JSON TensorProto: floatVal / intVal / int64Val / boolVal / stringVal,
// one value broadcast when fewer are given, or base64 tensorContent).
Result<Tensor> ConstFromAttr(const TfNode& n);

// Converts into `b` what the tensors `outputs` ("node:port") need among `nodes`. `values` holds the tensors known
// beforehand (a function's arguments, keyed "arg:0"); the walk adds each tensor it converts.
// `control` (optional) holds the nodes' control inputs.
Status ConvertNodes(ConvertEnv& env, Functions* functions, GraphBuilder& b, const std::vector<TfNode>& nodes,
                    const std::vector<std::string>& outputs, std::map<std::string, TfValue>& values,
                    const ControlInputs* control = nullptr);

// The walk inside TF1 frame `scope` (-1: outside every loop): converts into `b` what `outputs` need. A tensor leaving
// a loop (Exit) stands for its whole frame, converted into an ONNX Loop; a conditional's Merge for its branches,
// converted into an ONNX If (tf1_control.h).
Status WalkNodes(const Walk& w, GraphBuilder& b, int scope, const std::vector<std::string>& outputs,
                 std::map<std::string, TfValue>& values);

}  // namespace onyx::convert::tf
