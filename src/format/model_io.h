// Loading and saving .onnx models (protobuf), external data included.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"
#include "ir/model.h"
#include "proto/onyx.pb.h"

namespace onyx::format {

struct LoadOptions {
  bool load_external_data = true;  // memory-map external tensors (else: error when a model uses them)
  bool sort_topologically = true;  // real models arrive unsorted
};

// Loads a model file; every error names the file.
Result<ir::Model> LoadModel(const std::string& path, const LoadOptions& options = {});
// Loads a model from serialized bytes; external data resolves against `base_dir`.
Result<ir::Model> LoadModelFromBytes(std::string_view bytes, const std::string& base_dir,
                                     const LoadOptions& options = {});

struct SaveOptions {
  // Tensors of at least this many bytes go to an external-data file (-1: keep everything inside the .onnx file).
  int64_t external_data_threshold = -1;
  std::string external_data_location;  // file name beside the model; default "<model file name>.data"
};

Status SaveModel(const ir::Model& model, const std::string& path, const SaveOptions& options = {});
Result<std::string> SerializeModel(const ir::Model& model);

// Protobuf <-> IR.
Result<ir::Model> ModelFromProto(const pb::ModelProto& proto, const std::string& base_dir, bool load_external_data);
// Like ModelFromProto, but tensors stored as raw_data borrow their bytes from `proto`, which they keep alive.
Result<ir::Model> ModelFromProtoBorrowing(std::shared_ptr<const pb::ModelProto> proto, const std::string& base_dir,
                                          bool load_external_data);
void ModelToProto(const ir::Model& model, pb::ModelProto* proto);
Result<ir::Graph> GraphFromProto(const pb::GraphProto& proto, class ExternalDataResolver* resolver);
void GraphToProto(const ir::Graph& graph, pb::GraphProto* proto);
Result<ir::TypeInfo> TypeFromProto(const pb::TypeProto& proto);
void TypeToProto(const ir::TypeInfo& type, pb::TypeProto* proto);

}  // namespace onyx::format
