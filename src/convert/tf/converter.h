// TensorFlow -> ONNX: converts a TF.js graph-model (model.json holding a GraphDef in proto3-JSON form, weights in
// binary shards) or a frozen GraphDef (.pb) into an ir::Model. TF's channels-last (NHWC) convolutions, pooling and resizing become ONNX's
// channels-first ops between Transposes, which the transpose optimizer then cancels; inputs and outputs keep TF's
// layouts, named as TensorFlow names tensors ("input:0").
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/model.h"

namespace onyx::convert::tf {

struct TfConvertOptions {
  int64_t opset = 17;  // default-domain opset of the result, 13..21 (built at 17, then converted)
};

struct TfConvertReport {
  int tf_nodes = 0;           // TensorFlow nodes converted (Const and Placeholder included)
  int nodes = 0;              // ONNX nodes in the result
  int transposes_before = 0;  // Transpose nodes of the faithful translation
  int transposes_after = 0;   // ... left after the transpose optimizer
  std::string outputs_rule;   // which rule chose the outputs (the signature's, or the tensors no node reads)
  int dilated_convolutions_folded = 0;  // SpaceToBatchND -> conv -> BatchToSpaceND chains made one convolution
};

// Whether `path` is a TF.js graph-model's model.json ("format": "graph-model", or a modelTopology holding "node").
bool IsTfjsGraphModel(const std::string& path);

// Reads and converts a TF.js graph-model. Every unsupported operator is listed in one error.
Result<ir::Model> ConvertTfjsGraphModel(const std::string& path, const TfConvertOptions& options,
                                        TfConvertReport* report = nullptr);

// Reads and converts a frozen TensorFlow graph (a GraphDef .pb whose variables are Consts), through the same
// converter: the GraphDef is turned into the proto3-JSON form TF.js graph-models store.
Result<ir::Model> ConvertTfFrozenGraph(const std::string& path, const TfConvertOptions& options,
                                       TfConvertReport* report = nullptr);

// The shared converter: `root` is a graph-model's model.json ({"modelTopology": GraphDef JSON, "signature"?});
// `weights` the values of Const nodes by node name (others must carry a "value" tensor); `path` names the model in
// errors.
Result<ir::Model> ConvertGraphJson(const nlohmann::json& root, std::map<std::string, Tensor> weights,
                                   const std::string& path, const TfConvertOptions& options,
                                   TfConvertReport* report);

}  // namespace onyx::convert::tf
