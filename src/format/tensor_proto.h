// Conversions between onyx values and ONNX's serialized TensorProto / SequenceProto / OptionalProto / MapProto,
// and the external-data files tensors may live in.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mapped_file.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/value.h"
#include "ir/model.h"
#include "proto/onyx.pb.h"

namespace onyx::format {

// Resolves external-data references against the model's folder, memory-mapping each file once. Rejects absolute
// paths and paths that leave the folder (via '..' or symbolic links).
class ExternalDataResolver {
 public:
  explicit ExternalDataResolver(std::string base_dir) : base_dir_(std::move(base_dir)) {}
  // A view of `length` bytes (or the rest of the file when length < 0) at `offset` of `location`.
  Result<std::pair<const char*, std::shared_ptr<void>>> Resolve(const std::string& location, int64_t offset,
                                                               int64_t length);
  const std::string& base_dir() const { return base_dir_; }

  // Whether tensors may reference external files at all (a model loaded without its external data: no).
  bool allow_external() const { return allow_external_; }
  void set_allow_external(bool allow) { allow_external_ = allow; }
  // When set, decoded raw_data tensors borrow their bytes from the protobuf message this keeps alive, instead of
  // copying them (halves the peak memory of loading a large model).
  const std::shared_ptr<const void>& message_keeper() const { return message_keeper_; }
  void set_message_keeper(std::shared_ptr<const void> keeper) { message_keeper_ = std::move(keeper); }
  // raw_data bytes taken out of their TensorProto (release_raw_data), each its own allocation: a tensor decoded from
  // that proto borrows them, so that its memory is freed with the last tensor holding it (a weight the optimizer
  // replaced, or one a kernel packed into a copy of its own) instead of living as long as the whole message.
  void AddReleasedRawData(const pb::TensorProto* proto, std::shared_ptr<std::string> bytes) {
    released_raw_data_.emplace(proto, std::move(bytes));
  }
  const std::shared_ptr<std::string>* ReleasedRawData(const pb::TensorProto* proto) const {
    auto it = released_raw_data_.find(proto);
    return it == released_raw_data_.end() ? nullptr : &it->second;
  }

 private:
  std::string base_dir_;
  bool allow_external_ = true;
  std::shared_ptr<const void> message_keeper_;
  std::unordered_map<const pb::TensorProto*, std::shared_ptr<std::string>> released_raw_data_;
  std::map<std::string, std::shared_ptr<MappedFile>> files_;
};

// Decodes a TensorProto; `resolver` may be null when external data is not allowed (error then).
Result<Tensor> TensorFromProto(const pb::TensorProto& proto, ExternalDataResolver* resolver);
// Encodes a tensor as raw_data (strings as string_data).
void TensorToProto(const Tensor& tensor, pb::TensorProto* proto);

Result<ir::NamedTensor> NamedTensorFromProto(const pb::TensorProto& proto, ExternalDataResolver* resolver);
void NamedTensorToProto(const ir::NamedTensor& tensor, pb::TensorProto* proto);
// Only the name, doc string and metadata of `tensor` (writers that store its bytes elsewhere, as external data).
void NamedTensorHeaderToProto(const ir::NamedTensor& tensor, pb::TensorProto* proto);

Result<Value> ValueFromSequenceProto(const pb::SequenceProto& proto);
Result<Value> ValueFromOptionalProto(const pb::OptionalProto& proto);
Result<Value> ValueFromMapProto(const pb::MapProto& proto);

// Reads a .pb file holding a TensorProto, SequenceProto or OptionalProto; `type` (the graph input's declared type,
// may be null) says which one; without it a TensorProto is assumed.
Result<Value> LoadValueFile(const std::string& path, const ir::TypeInfo* type);
Result<Tensor> LoadTensorFile(const std::string& path);
Status SaveTensorFile(const Tensor& tensor, const std::string& name, const std::string& path);
// Writes a value as TensorProto, SequenceProto or OptionalProto (chosen by its kind / the declared type).
Status SaveValueFile(const Value& value, const std::string& name, const ir::TypeInfo* type, const std::string& path);

}  // namespace onyx::format
