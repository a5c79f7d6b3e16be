#include "convert/tf/tensor_bundle.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstring>

#include "convert/tf/sstable.h"
#include "proto/tf_saved_model.pb.h"

namespace onyx::convert::tf {
namespace {

constexpr int kTfString = 7;
constexpr int kMaxShards = 1 << 16;

std::string ShardPath(const std::string& prefix, int shard, int num_shards) {
  char suffix[64];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard, num_shards);
  return prefix + suffix;
}

bool ReadVarint64(std::string_view bytes, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *pos < bytes.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(bytes[(*pos)++]);
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

}  // namespace

Result<DataType> DataTypeFromTfEnum(int dtype) {
  switch (dtype % 100) {  // reference types (DT_FLOAT_REF = 101, ...) hold the same values
    case 1:
      return DataType::kFloat;
    case 2:
      return DataType::kDouble;
    case 3:
      return DataType::kInt32;
    case 4:
      return DataType::kUint8;
    case 5:
      return DataType::kInt16;
    case 6:
      return DataType::kInt8;
    case 9:
      return DataType::kInt64;
    case 10:
      return DataType::kBool;
    case 14:
      return DataType::kBFloat16;
    case 17:
      return DataType::kUint16;
    case 19:
      return DataType::kFloat16;
    case 22:
      return DataType::kUint32;
    case 23:
      return DataType::kUint64;
    default:
      return Unsupported("TensorFlow type number " + std::to_string(dtype) + " is not supported");
  }
}

Result<TensorBundle> TensorBundle::Open(const std::string& prefix) {
  const std::string path = prefix + ".index";
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  ONYX_ASSIGN_OR_RETURN(auto table, ReadSstable(bytes, path));
  TensorBundle bundle;
  bundle.prefix_ = prefix;
  // A string field holding invalid UTF-8 fails a parse below, and libprotobuf would also log it on stderr: the
  // one-line error is the only report.
  google::protobuf::LogSilencer quiet;
  bool header = false;
  for (const auto& [key, value] : table) {
    if (key.empty()) {
      tfpb::BundleHeaderProto h;
      if (!h.ParseFromString(value)) return InvalidArgument(path + ": the bundle header does not parse");
      if (h.endianness() != tfpb::BundleHeaderProto::LITTLE) {
        return Unsupported(path + ": a big-endian checkpoint");
      }
      if (h.num_shards() < 1 || h.num_shards() > kMaxShards) {
        return InvalidArgument(path + ": the header gives " + std::to_string(h.num_shards()) + " shards");
      }
      bundle.num_shards_ = h.num_shards();
      header = true;
      continue;
    }
    tfpb::BundleEntryProto p;
    if (!p.ParseFromString(value)) return InvalidArgument(path + ": the entry of '" + key + "' does not parse");
    Entry e;
    e.dtype = p.dtype();
    e.shard = p.shard_id();
    e.crc32c = UnmaskCrc32c(p.crc32c());
    e.sliced = p.slices_size() > 0;
    if (p.offset() < 0 || p.size() < 0) {
      return InvalidArgument(path + ": the entry of '" + key + "' has a negative offset or size");
    }
    e.offset = static_cast<uint64_t>(p.offset());
    e.size = static_cast<uint64_t>(p.size());
    for (const auto& d : p.shape().dim()) {
      if (d.size() < 0) return InvalidArgument(path + ": the entry of '" + key + "' has a negative dimension");
      e.shape.push_back(d.size());
    }
    bundle.entries_[key] = std::move(e);
  }
  if (!header) return InvalidArgument(path + ": no bundle header (the entry under the empty key)");
  for (const auto& [key, e] : bundle.entries_) {
    if (e.shard < 0 || e.shard >= bundle.num_shards_) {
      return InvalidArgument(path + ": '" + key + "' is in shard " + std::to_string(e.shard) + " of " +
                             std::to_string(bundle.num_shards_));
    }
  }
  return bundle;
}

Result<std::string_view> TensorBundle::EntryBytes(const std::string& key, const Entry& e) const {
  auto it = shards_.find(e.shard);
  if (it == shards_.end()) {
    ONYX_ASSIGN_OR_RETURN(auto file, MappedFile::Open(ShardPath(prefix_, e.shard, num_shards_)));
    it = shards_.emplace(e.shard, std::move(file)).first;
  }
  const MappedFile& f = *it->second;
  if (e.offset > f.size() || e.size > f.size() - e.offset) {
    return InvalidArgument(f.path() + ": '" + key + "' (offset " + std::to_string(e.offset) + ", " +
                           std::to_string(e.size) + " bytes) lies past the end of the file (" +
                           std::to_string(f.size()) + " bytes)");
  }
  return std::string_view(f.data() + e.offset, e.size);
}

Result<Tensor> TensorBundle::Read(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return NotFound(prefix_ + ".index: no tensor '" + key + "'");
  const Entry& e = it->second;
  if (e.sliced) return Unsupported(prefix_ + ".index: '" + key + "' is stored in slices (a partitioned variable)");
  auto type = DataTypeFromTfEnum(e.dtype);
  if (!type.ok()) return type.status().WithContext(prefix_ + ".index: '" + key + "'");
  // The element count, checked against the entry's size before anything is allocated.
  const size_t element = DataTypeStorageBytes(*type, 1);
  uint64_t count = 1;
  for (int64_t d : e.shape) {
    if (d != 0 && count > e.size / static_cast<uint64_t>(d)) {
      return InvalidArgument(prefix_ + ".index: '" + key + "' has a shape larger than its " + std::to_string(e.size) +
                             " bytes");
    }
    count *= static_cast<uint64_t>(d);
  }
  if (e.size % element != 0 || count != e.size / element) {
    return InvalidArgument(prefix_ + ".index: '" + key + "' has " + std::to_string(e.size) + " bytes, its shape " +
                           ShapeToString(e.shape) + " holds " + std::to_string(count) + " elements of " +
                           std::to_string(element) + " bytes");
  }
  ONYX_ASSIGN_OR_RETURN(std::string_view bytes, EntryBytes(key, e));
  if (Crc32c(bytes) != e.crc32c) {
    return InvalidArgument(ShardPath(prefix_, e.shard, num_shards_) + ": '" + key + "' fails its CRC32C check");
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(*type, e.shape));
  if (!bytes.empty()) std::memcpy(t.raw(), bytes.data(), bytes.size());
  return t;
}

Result<std::vector<std::string>> TensorBundle::ReadStrings(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return NotFound(prefix_ + ".index: no tensor '" + key + "'");
  const Entry& e = it->second;
  const std::string where = ShardPath(prefix_, e.shard, num_shards_) + ": '" + key + "'";
  if (e.dtype != kTfString) return InvalidArgument(where + " is not a string tensor");
  uint64_t count = 1;
  for (int64_t d : e.shape) {
    // Each element takes at least one byte (its length), which bounds the count by the entry's size.
    if (d != 0 && count > e.size / static_cast<uint64_t>(d))
      return InvalidArgument(where + ": shape larger than its bytes");
    count *= static_cast<uint64_t>(d);
  }
  ONYX_ASSIGN_OR_RETURN(std::string_view bytes, EntryBytes(key, e));
  // TensorFlow's checksums cover the lengths as little-endian 4-byte integers (8 bytes from 4 GiB on), not as the
  // varints stored.
  std::vector<uint64_t> lengths;
  size_t pos = 0;
  uint32_t crc = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t n = 0;
    if (!ReadVarint64(bytes, &pos, &n)) return InvalidArgument(where + ": the string lengths are cut off");
    lengths.push_back(n);
    char le[8];
    std::memcpy(le, &n, 8);
    crc = Crc32cExtend(crc, std::string_view(le, n <= UINT32_MAX ? 4 : 8));
  }
  if (bytes.size() - pos < 4) return InvalidArgument(where + ": the lengths' checksum is cut off");
  uint32_t stored;
  std::memcpy(&stored, bytes.data() + pos, 4);
  if (UnmaskCrc32c(stored) != crc) return InvalidArgument(where + ": the string lengths fail their CRC32C check");
  crc = Crc32cExtend(crc, bytes.substr(pos, 4));
  pos += 4;
  std::vector<std::string> out;
  for (uint64_t n : lengths) {
    if (n > bytes.size() - pos) return InvalidArgument(where + ": a string runs past the entry's end");
    out.emplace_back(bytes.substr(pos, n));
    crc = Crc32cExtend(crc, out.back());
    pos += n;
  }
  if (pos != bytes.size())
    return InvalidArgument(where + ": " + std::to_string(bytes.size() - pos) + " bytes left over");
  if (crc != e.crc32c) return InvalidArgument(where + " fails its CRC32C check");
  return out;
}

}  // namespace onyx::convert::tf
