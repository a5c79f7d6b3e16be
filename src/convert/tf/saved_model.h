// TensorFlow SavedModels (a directory with saved_model.pb and variables/) -> ONNX, without TensorFlow: the chosen
// MetaGraphDef (by tag) and signature give the graph's inputs and outputs; the graph is cut at the signature's input
// tensors (Placeholders there), pruned to what its outputs need (save/restore subgraphs, initializers and other
// signatures drop out), its variables (TF1 VariableV2, resource VarHandleOp) become Consts holding the checkpoint's
// values, and the result goes through the same converter as frozen graphs (ConvertGraphJson). ONNX inputs and
// outputs are named after the signature's keys.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "convert/tf/converter.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::convert::tf {

struct SavedModelOptions {
  std::string signature = "serving_default";
  bool signature_given = false;  // without it, a model with exactly one signature uses that one
  std::string tag = "serve";     // the MetaGraphDef whose tags include this one
  int64_t opset = 17;
};

// Whether `path` is a directory holding saved_model.pb.
bool IsSavedModelDir(const std::string& path);

// The graph-model form of the chosen signature: {"format", "modelTopology" (GraphDef JSON, library passed through),
// "signature" {"inputs"/"outputs": {key: {"name": tensor}}}} and the variables' values by Const node name.
struct SavedModelGraph {
  nlohmann::json root;
  std::map<std::string, Tensor> weights;
  std::map<std::string, std::string> input_keys;   // ONNX input name the converter gives ("x:0") -> signature key
  std::map<std::string, std::string> output_keys;  // ONNX output name ("y:0") -> signature key
};
Result<SavedModelGraph> ReadSavedModel(const std::string& dir, const SavedModelOptions& options);

Result<ir::Model> ConvertSavedModel(const std::string& dir, const SavedModelOptions& options,
                                    TfConvertReport* report = nullptr);

}  // namespace onyx::convert::tf
