// Keras 2 (and tf.keras) HDF5 models: the root attribute `model_config` holds the architecture JSON; the group
// `model_weights` holds one group per layer whose attribute `weight_names` lists, in order, the datasets
// ("dense_1/kernel:0") below that group. Large attribute lists may be split into chunks name0, name1, ...
#include "convert/keras/hdf5_file.h"
#include "convert/keras/keras_file.h"

namespace onyx::convert::keras {

namespace {

Result<std::optional<std::vector<std::string>>> ChunkedStringList(const Hdf5File& h5, const std::string& object,
                                                                  const std::string& name) {
  ONYX_ASSIGN_OR_RETURN(auto whole, h5.StringListAttribute(object, name));
  if (whole) return whole;
  std::vector<std::string> all;
  bool any = false;
  for (int k = 0;; ++k) {
    ONYX_ASSIGN_OR_RETURN(auto chunk, h5.StringListAttribute(object, name + std::to_string(k)));
    if (!chunk) break;
    any = true;
    all.insert(all.end(), chunk->begin(), chunk->end());
  }
  if (!any) return std::optional<std::vector<std::string>>();
  return std::optional<std::vector<std::string>>(std::move(all));
}

}  // namespace

Result<KerasModelFile> ReadKerasH5(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(auto h5, Hdf5File::Open(path));
  KerasModelFile out;
  out.format = SourceFormat::kKerasH5;
  out.path = path;
  ONYX_ASSIGN_OR_RETURN(auto config, h5->StringAttribute("/", "model_config"));
  if (!config) {
    return InvalidArgument(path + ": no 'model_config' attribute: a weights-only file, not a saved Keras model");
  }
  ONYX_ASSIGN_OR_RETURN(out.model, ParseJson(*config, path + ": model_config"));
  if (!out.model.is_object() || !out.model.contains("class_name")) {
    return InvalidArgument(path + ": model_config has no class_name");
  }
  ONYX_ASSIGN_OR_RETURN(auto version, h5->StringAttribute("/", "keras_version"));
  if (version) out.keras_version = *version;
  const std::string root = h5->IsGroup("/model_weights") ? "/model_weights" : "/";
  ONYX_ASSIGN_OR_RETURN(auto layer_names, ChunkedStringList(*h5, root, "layer_names"));
  if (!layer_names) {
    if (root == "/") return InvalidArgument(path + ": no 'model_weights' group");
    layer_names = std::vector<std::string>{};
  }
  for (const std::string& layer : *layer_names) {
    const std::string group = root + (root == "/" ? "" : "/") + layer;
    if (!h5->IsGroup(group))
      return InvalidArgument(path + ": layer_names lists '" + layer + "' but no such group exists");
    ONYX_ASSIGN_OR_RETURN(auto weight_names, ChunkedStringList(*h5, group, "weight_names"));
    if (!weight_names) continue;
    for (const std::string& wn : *weight_names) {
      ONYX_ASSIGN_OR_RETURN(Tensor t, h5->ReadDataset(group + "/" + wn));
      std::string name = wn;
      if (name.size() > 2 && name.ends_with(":0")) name.resize(name.size() - 2);
      // A nested model's group holds its layers' weights, each named after its own layer.
      std::string owner = OwnerOfWeight(name);
      if (name.find('/') == std::string::npos) owner = layer;
      out.weights[owner].push_back({name, std::move(t)});
    }
  }
  return out;
}

}  // namespace onyx::convert::keras
