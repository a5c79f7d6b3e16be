#include "convert/tf/sstable.h"

#include <snappy.h>

#include <array>
#include <cstring>

namespace onyx::convert::tf {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterBytes = 48;  // two block handles padded to 40 bytes, then the 8-byte magic
constexpr size_t kTrailerBytes = 5;  // after each block: compression type, masked CRC32C
constexpr uint32_t kMaskDelta = 0xa282ead8u;

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;  // reflected Castagnoli polynomial
    table[i] = c;
  }
  return table;
}

uint32_t Fixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // little-endian on every platform onyx builds for
}

// A cursor over bytes that never reads past their end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && pos_ < bytes_.size(); shift += 7) {
      const auto b = static_cast<uint8_t>(bytes_[pos_++]);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  bool Take(uint64_t n, std::string_view* out) {
    if (n > bytes_.size() - pos_) return false;
    *out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  size_t pos() const { return pos_; }
  bool done() const { return pos_ >= bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

std::string At(uint64_t offset) { return "at offset " + std::to_string(offset); }

// The contents of the block `h` points at, its checksum verified and decompressed.
Result<std::string> ReadBlock(std::string_view file, const BlockHandle& h, const std::string& path) {
  if (h.offset > file.size() || h.size > file.size() - h.offset || kTrailerBytes > file.size() - h.offset - h.size) {
    return InvalidArgument(path + ": a block handle (offset " + std::to_string(h.offset) + ", " +
                           std::to_string(h.size) + " bytes) points past the end of the file (" +
                           std::to_string(file.size()) + " bytes): truncated or corrupt table");
  }
  const std::string_view contents = file.substr(h.offset, h.size);
  const char type = file[h.offset + h.size];
  const uint32_t stored = UnmaskCrc32c(Fixed32(file.data() + h.offset + h.size + 1));
  const uint32_t actual = Crc32cExtend(Crc32c(contents), std::string_view(&type, 1));
  if (stored != actual) return InvalidArgument(path + ": the block " + At(h.offset) + " fails its CRC32C check");
  if (type == 0) {
    if (h.size > kMaxSstableBlockBytes) return InvalidArgument(path + ": the block " + At(h.offset) + " is too large");
    return std::string(contents);
  }
  if (type != 1) {
    return Unsupported(path + ": the block " + At(h.offset) + " uses compression type " +
                       std::to_string(static_cast<uint8_t>(type)) + " (only none and Snappy are known)");
  }
  size_t length = 0;
  if (!snappy::GetUncompressedLength(contents.data(), contents.size(), &length)) {
    return InvalidArgument(path + ": the Snappy block " + At(h.offset) + " has no valid length header");
  }
  if (length > kMaxSstableBlockBytes) {
    return InvalidArgument(path + ": the Snappy block " + At(h.offset) + " claims " + std::to_string(length) +
                           " bytes uncompressed, over the " + std::to_string(kMaxSstableBlockBytes) + "-byte limit");
  }
  std::string out(length, '\0');
  if (!snappy::RawUncompress(contents.data(), contents.size(), out.data())) {
    return InvalidArgument(path + ": the Snappy block " + At(h.offset) + " does not decompress");
  }
  return out;
}

// A block's entries: keys prefix-compressed against the previous key, then the restart array and its length.
Status ParseBlock(std::string_view block, uint64_t offset, const std::string& path,
                  std::vector<std::pair<std::string, std::string>>* out) {
  const std::string where = path + ": the block " + At(offset);
  if (block.size() < 4) return InvalidArgument(where + " is too short for its restart count");
  const uint64_t restarts = Fixed32(block.data() + block.size() - 4);
  if (restarts > (block.size() - 4) / 4) {
    return InvalidArgument(where + " claims " + std::to_string(restarts) + " restart points, more than fit");
  }
  Reader r(block.substr(0, block.size() - 4 - 4 * restarts));
  std::string key;
  while (!r.done()) {
    uint64_t shared = 0, unshared = 0, value_size = 0;
    std::string_view delta, value;
    if (!r.Varint(&shared) || !r.Varint(&unshared) || !r.Varint(&value_size)) {
      return InvalidArgument(where + ": an entry header at byte " + std::to_string(r.pos()) + " is cut off");
    }
    if (shared > key.size()) {
      return InvalidArgument(where + ": an entry shares " + std::to_string(shared) +
                             " key bytes, the previous key has " + std::to_string(key.size()));
    }
    if (!r.Take(unshared, &delta) || !r.Take(value_size, &value)) {
      return InvalidArgument(where + ": an entry's key or value runs past the block's end");
    }
    if (out->size() >= kMaxSstableEntries)
      return InvalidArgument(path + ": more than " + std::to_string(kMaxSstableEntries) + " entries");
    key.resize(shared);
    key.append(delta);
    out->emplace_back(key, std::string(value));
  }
  return Status::Ok();
}

}  // namespace

uint32_t Crc32cExtend(uint32_t crc, std::string_view data) {
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  uint32_t c = ~crc;
  for (char ch : data) c = table[(c ^ static_cast<uint8_t>(ch)) & 0xff] ^ (c >> 8);
  return ~c;
}

uint32_t MaskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

uint32_t UnmaskCrc32c(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

Result<std::vector<std::pair<std::string, std::string>>> ReadSstable(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kFooterBytes) {
    return InvalidArgument(path + ": " + std::to_string(bytes.size()) + " bytes, too short for a table footer (" +
                           std::to_string(kFooterBytes) + "): truncated or not a table");
  }
  const std::string_view footer = bytes.substr(bytes.size() - kFooterBytes);
  uint64_t magic;
  std::memcpy(&magic, footer.data() + kFooterBytes - 8, 8);
  if (magic != kTableMagic)
    return InvalidArgument(path + ": no table magic number at the end: truncated or not a table");
  Reader r(footer.substr(0, kFooterBytes - 8));
  BlockHandle meta, index;
  if (!r.Varint(&meta.offset) || !r.Varint(&meta.size) || !r.Varint(&index.offset) || !r.Varint(&index.size)) {
    return InvalidArgument(path + ": the footer's block handles do not decode");
  }
  // The metaindex block (filters; TensorFlow writes none) is only checked, so that no byte goes unverified.
  ONYX_RETURN_IF_ERROR(ReadBlock(bytes, meta, path).status());
  ONYX_ASSIGN_OR_RETURN(std::string index_block, ReadBlock(bytes, index, path));
  std::vector<std::pair<std::string, std::string>> handles;
  ONYX_RETURN_IF_ERROR(ParseBlock(index_block, index.offset, path, &handles));
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [separator, value] : handles) {
    Reader hr(value);
    BlockHandle h;
    if (!hr.Varint(&h.offset) || !hr.Varint(&h.size) || !hr.done()) {
      return InvalidArgument(path + ": an index entry is not a block handle");
    }
    ONYX_ASSIGN_OR_RETURN(std::string block, ReadBlock(bytes, h, path));
    ONYX_RETURN_IF_ERROR(ParseBlock(block, h.offset, path, &entries));
  }
  return entries;
}

}  // namespace onyx::convert::tf
