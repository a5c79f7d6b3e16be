// Keras 3 .keras archives: config.json (the model config with module / class_name / config / registered_name),
// metadata.json, and model.weights.h5. Weights are not addressed by layer name: Keras walks the model's layers
// in order and names each group after the snake_case of its class ("layers/dense", "layers/dense_1"), nested
// objects below it ("layers/lstm/cell/vars/0", "layers/bidirectional/forward_layer/cell/vars/0",
// "layers/functional/layers/dense/vars/0"). This reader repeats that walk over config.json to give every
// weight its layer's name.
#include <algorithm>
#include <map>

#include "convert/keras/hdf5_file.h"
#include "convert/keras/keras_file.h"
#include "convert/keras/limits.h"
#include "convert/keras/zip_archive.h"

namespace onyx::convert::keras {

namespace {

bool IsModelClass(const std::string& c) { return c == "Sequential" || c == "Functional" || c == "Model"; }

// The order Keras's layers create their variables in, for nested objects of one layer.
int ChildRank(const std::string& name) {
  static const char* kOrder[] = {"cell",        "forward_layer", "backward_layer", "layer",
                                 "query_dense", "key_dense",     "value_dense",    "output_dense"};
  std::string bare = name;
  while (!bare.empty() && bare[0] == '_') bare.erase(0, 1);
  for (int i = 0; i < 8; ++i) {
    if (bare == kOrder[i]) return i;
  }
  return 100;
}

// All variables below `group`: its own vars/0..n-1 first, then nested objects in creation order. `depth` counts
// the nested objects above `group`: HDF5 groups may link to themselves, so the walk is bounded.
Status CollectVars(const Hdf5File& h5, const std::string& group, int64_t depth, std::vector<Weight>* out) {
  if (!h5.IsGroup(group)) return Status::Ok();
  // (The group's path grows with every level: the error names its start.)
  ONYX_RETURN_IF_ERROR(CheckModelNesting(depth, h5.label() + ": group '" + group.substr(0, 100) + "...'"));
  if (h5.IsGroup(group + "/vars")) {
    ONYX_ASSIGN_OR_RETURN(auto names, h5.Children(group + "/vars"));
    std::vector<std::pair<long, std::string>> numbered;
    for (const auto& n : names) {
      char* end = nullptr;
      long k = std::strtol(n.c_str(), &end, 10);
      if (!end || *end)
        return InvalidArgument(h5.label() + ": unexpected variable name '" + group + "/vars/" + n + "'");
      numbered.emplace_back(k, n);
    }
    std::sort(numbered.begin(), numbered.end());
    for (const auto& [k, n] : numbered) {
      ONYX_ASSIGN_OR_RETURN(Tensor t, h5.ReadDataset(group + "/vars/" + n));
      out->push_back({group.substr(1) + "/vars/" + n, std::move(t)});
    }
  }
  ONYX_ASSIGN_OR_RETURN(auto children, h5.Children(group));
  std::stable_sort(children.begin(), children.end(),
                   [](const std::string& a, const std::string& b) { return ChildRank(a) < ChildRank(b); });
  for (const auto& c : children) {
    if (c == "vars") continue;
    ONYX_RETURN_IF_ERROR(CollectVars(h5, group + "/" + c, depth + 1, out));
  }
  return Status::Ok();
}

Status WalkLayers(const Hdf5File& h5, const nlohmann::json& model, const std::string& prefix, int64_t depth,
                  KerasModelFile* out) {
  ONYX_RETURN_IF_ERROR(CheckModelNesting(depth, h5.label() + ": '" + prefix + "'"));
  if (!model.contains("config") || !model["config"].is_object()) return Status::Ok();
  const nlohmann::json& cfg = model["config"];
  if (!cfg.contains("layers") || !cfg["layers"].is_array()) return Status::Ok();
  std::map<std::string, int> used;
  for (const auto& layer : cfg["layers"]) {
    if (!layer.is_object() || !layer.contains("class_name") || !layer["class_name"].is_string()) continue;
    const std::string cls = layer["class_name"];
    std::string key = KerasSnakeCase(cls);
    auto it = used.find(key);
    if (it == used.end()) {
      used[key] = 0;
    } else {
      key += "_" + std::to_string(++it->second);
    }
    const std::string path = prefix + "/layers/" + key;
    std::string name;
    if (layer.contains("config") && layer["config"].is_object() && layer["config"].contains("name") &&
        layer["config"]["name"].is_string()) {
      name = layer["config"]["name"];
    } else if (layer.contains("name") && layer["name"].is_string()) {
      name = layer["name"];
    }
    if (IsModelClass(cls)) {
      ONYX_RETURN_IF_ERROR(WalkLayers(h5, layer, path, depth + 1, out));
      continue;
    }
    std::vector<Weight> ws;
    ONYX_RETURN_IF_ERROR(CollectVars(h5, path, 0, &ws));
    if (!ws.empty()) out->weights[name] = std::move(ws);
  }
  return Status::Ok();
}

}  // namespace

Result<KerasModelFile> ReadKeras3(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(auto zip, ZipArchive::Open(path));
  if (!zip->Has("config.json")) return InvalidArgument(path + ": no config.json in the archive: not a .keras model");
  KerasModelFile out;
  out.format = SourceFormat::kKeras3;
  out.path = path;
  ONYX_ASSIGN_OR_RETURN(std::string config, zip->Read("config.json", 1u << 30));
  ONYX_ASSIGN_OR_RETURN(out.model, ParseJson(config, path + ": config.json"));
  if (!out.model.is_object() || !out.model.contains("class_name")) {
    return InvalidArgument(path + ": config.json has no class_name");
  }
  if (zip->Has("metadata.json")) {
    ONYX_ASSIGN_OR_RETURN(std::string meta, zip->Read("metadata.json", 1u << 20));
    ONYX_ASSIGN_OR_RETURN(nlohmann::json m, ParseJson(meta, path + ": metadata.json"));
    if (m.is_object() && m.contains("keras_version") && m["keras_version"].is_string()) {
      out.keras_version = m["keras_version"];
    }
  }
  if (!zip->Has("model.weights.h5")) {
    if (zip->Has("model.weights.npz")) return Unsupported(path + ": weights stored as .npz are not supported");
    return InvalidArgument(path + ": no model.weights.h5 in the archive");
  }
  ONYX_ASSIGN_OR_RETURN(std::string weights, zip->Read("model.weights.h5"));
  ONYX_ASSIGN_OR_RETURN(auto h5, Hdf5File::OpenImage(std::move(weights), path + ":model.weights.h5"));
  if (IsModelClass(out.model["class_name"].is_string() ? out.model["class_name"].get<std::string>() : "")) {
    ONYX_RETURN_IF_ERROR(WalkLayers(*h5, out.model, "", 0, &out));
  }
  return out;
}

}  // namespace onyx::convert::keras
