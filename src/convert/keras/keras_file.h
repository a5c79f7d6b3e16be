// A Keras model as read from any of its three file forms, before conversion: the model's architecture (the
// Keras config JSON) and its weights grouped by the layer that owns them.
//   - Keras 3 `.keras`: a zip of config.json, metadata.json and model.weights.h5 (layers/<class>/vars/<i>).
//   - Keras 2 `.h5`: HDF5 with a `model_config` attribute and a `model_weights` group.
//   - TF.js layers model: model.json (modelTopology + weightsManifest) and binary weight shards, with optional
//     uint8/uint16 affine or float16 quantization.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::convert::keras {

enum class SourceFormat { kKeras3, kKerasH5, kTfjs };
std::string_view SourceFormatName(SourceFormat f);

struct Weight {
  std::string name;  // as the file names it ("conv1/kernel", "layers/conv2d/vars/0")
  Tensor tensor;
};

struct KerasModelFile {
  SourceFormat format = SourceFormat::kKeras3;
  std::string path;
  std::string keras_version;
  nlohmann::json model;  // {"class_name": "Sequential" | "Functional" | "Model", "config": {...}}
  // Weights by the name of the (innermost named) layer owning them, in the layer's weight order.
  std::map<std::string, std::vector<Weight>> weights;
};

// Reads a model, choosing the form from the file: a zip (.keras), HDF5 (.h5/.hdf5), or JSON (TF.js model.json).
Result<KerasModelFile> ReadKerasModel(const std::string& path);

Result<KerasModelFile> ReadKeras3(const std::string& path);
Result<KerasModelFile> ReadKerasH5(const std::string& path);
Result<KerasModelFile> ReadTfjsLayersModel(const std::string& path);

// Parses JSON without exceptions.
Result<nlohmann::json> ParseJson(const std::string& text, const std::string& where);
// Keras's own snake_case of a class name ("Conv2D" -> "conv2d", "PReLU" -> "p_re_lu"), used in Keras 3 paths.
std::string KerasSnakeCase(const std::string& class_name);
// The owning layer of a weight named "layer/.../weight:0": its first path component.
std::string OwnerOfWeight(const std::string& weight_name);

}  // namespace onyx::convert::keras
