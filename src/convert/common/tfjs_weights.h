// TF.js model files (layers-models and graph-models alike): model.json's "weightsManifest" lists groups of shard
// files and, in order, the weights packed in each group's concatenated shards. Quantized weights (uint8/uint16
// affine with scale and min, or float16) are expanded to float32, as TF.js does when it loads them. Strings are stored
// one after another, each as its byte length (uint32, little-endian) then its bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::convert {

struct NamedWeight {
  std::string name;  // as the manifest names it
  Tensor tensor;     // float32, int32, bool or string
};

// Reads the weights of `manifest` (model.json's "weightsManifest") from the shards beside `model_json_path`.
// Shard paths may not leave that folder. Errors name the model file and the weight.
Result<std::vector<NamedWeight>> ReadTfjsWeights(const nlohmann::json& manifest, const std::string& model_json_path);

}  // namespace onyx::convert
