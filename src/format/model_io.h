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
  // Whether tensors go to an external-data file beside the model (as onnx's save_as_external_data):
  // kAuto when the model's tensors pass auto_external_bytes (a protobuf holds at most 2 GiB) or when
  // external_data_threshold is set; kAlways; kNever (fails when the model does not fit in one protobuf).
  enum class ExternalData { kAuto, kAlways, kNever };
  ExternalData external_data = ExternalData::kAuto;
  static constexpr int64_t kDefaultSizeThreshold = 1024;
  // Tensors of at least this many bytes go to the external-data file (-1: kDefaultSizeThreshold, and with kAuto
  // only when the model is large).
  int64_t external_data_threshold = -1;
  std::string external_data_location;  // a plain file name beside the model; default "<model file name>.data"
  int64_t alignment = 4096;            // each external tensor starts at a multiple of this (memory mapping)
  int64_t auto_external_bytes = int64_t{3} << 29;  // 1.5 GiB of tensors: room for the rest below 2 GiB
};

// Writes the model (and its external data) under temporary names in the model's folder and renames them into place:
// an existing file of the same name (even one memory-mapped as the input's data) is replaced only when all is
// written. External tensors are streamed from their memory, never copied into the protobuf.
Status SaveModel(const ir::Model& model, const std::string& path, const SaveOptions& options = {});
Result<std::string> SerializeModel(const ir::Model& model);

// Protobuf <-> IR.
Result<ir::Model> ModelFromProto(const pb::ModelProto& proto, const std::string& base_dir, bool load_external_data);
// Like ModelFromProto, without copying raw_data: the main graph's weights are moved out of `proto` into allocations
// of their own, one per tensor (a weight is freed with the last tensor holding it, not with the whole message); other
// raw_data tensors borrow their bytes from `proto`, which they keep alive.
Result<ir::Model> ModelFromProtoTakingWeights(std::shared_ptr<pb::ModelProto> proto, const std::string& base_dir,
                                              bool load_external_data);
void ModelToProto(const ir::Model& model, pb::ModelProto* proto);
Result<ir::Graph> GraphFromProto(const pb::GraphProto& proto, class ExternalDataResolver* resolver);
void GraphToProto(const ir::Graph& graph, pb::GraphProto* proto);
Result<ir::TypeInfo> TypeFromProto(const pb::TypeProto& proto);
void TypeToProto(const ir::TypeInfo& type, pb::TypeProto* proto);

}  // namespace onyx::format
