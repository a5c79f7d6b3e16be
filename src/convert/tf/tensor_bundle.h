// A TensorFlow checkpoint in the V2 "tensor bundle" format: PREFIX.index, an SSTable mapping each tensor's name to a
// BundleEntryProto (type, shape, shard, offset, size, CRC32C; the header, a BundleHeaderProto, under the empty key),
// and the shards PREFIX.data-0000N-of-0000M holding the bytes. SavedModels keep theirs at variables/variables.
// Every entry is checked against its shard (bounds, CRC) when read.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/mapped_file.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx::convert::tf {

class TensorBundle {
 public:
  struct Entry {
    int dtype = 0;  // TensorFlow's DataType number
    Shape shape;
    int shard = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t crc32c = 0;  // unmasked
    bool sliced = false;  // a partitioned variable's slices: not supported
  };

  // Reads PREFIX.index (the shards are opened on first use).
  static Result<TensorBundle> Open(const std::string& prefix);

  const std::map<std::string, Entry>& entries() const { return entries_; }
  bool Contains(const std::string& key) const { return entries_.count(key) != 0; }

  // A numeric tensor (any TensorFlow type onyx has), checked against its shard.
  Result<Tensor> Read(const std::string& key) const;
  // A DT_STRING tensor's elements (TensorFlow's layout: varint64 lengths, a masked CRC32C of them, the bytes).
  Result<std::vector<std::string>> ReadStrings(const std::string& key) const;

 private:
  Result<std::string_view> EntryBytes(const std::string& key, const Entry& e) const;

  std::string prefix_;
  int num_shards_ = 1;
  std::map<std::string, Entry> entries_;
  mutable std::map<int, std::shared_ptr<MappedFile>> shards_;
};

// TensorFlow's DataType number -> onyx's element type (Unsupported for string, resource, variant, quantized).
Result<DataType> DataTypeFromTfEnum(int dtype);

}  // namespace onyx::convert::tf
