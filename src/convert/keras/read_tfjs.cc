// TF.js layers models: model.json holds the Keras topology ("modelTopology", either the model config itself or
// {"model_config": ...}) and a weights manifest (read by convert/common/tfjs_weights.h).
#include "convert/common/tfjs_weights.h"
#include "convert/keras/keras_file.h"
#include "core/mapped_file.h"

namespace onyx::convert::keras {

Result<KerasModelFile> ReadTfjsLayersModel(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  ONYX_ASSIGN_OR_RETURN(nlohmann::json root, ParseJson(text, path));
  if (!root.is_object() || !root.contains("modelTopology") || !root["modelTopology"].is_object()) {
    return InvalidArgument(path + ": no 'modelTopology' object: not a TF.js layers model");
  }
  if (root.contains("format") && root["format"].is_string() && root["format"] == "graph-model") {
    return Unsupported(path + ": a TF.js graph model, not a layers model");
  }
  KerasModelFile out;
  out.format = SourceFormat::kTfjs;
  out.path = path;
  const nlohmann::json& topo = root["modelTopology"];
  out.model = topo.contains("model_config") ? topo["model_config"] : topo;
  if (topo.contains("keras_version") && topo["keras_version"].is_string()) out.keras_version = topo["keras_version"];
  if (!out.model.is_object() || !out.model.contains("class_name")) {
    return InvalidArgument(path + ": modelTopology has no model config (class_name)");
  }
  if (!root.contains("weightsManifest")) return out;
  ONYX_ASSIGN_OR_RETURN(std::vector<NamedWeight> weights, ReadTfjsWeights(root["weightsManifest"], path));
  for (auto& w : weights) out.weights[OwnerOfWeight(w.name)].push_back({w.name, std::move(w.tensor)});
  return out;
}

}  // namespace onyx::convert::keras
