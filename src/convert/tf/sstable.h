// LevelDB-format tables ("SSTables", TensorFlow's tensorflow/core/lib/io/table format): the index of a TensorFlow
// checkpoint (variables.index) is one. A table is read whole and trusted in nothing: every handle, length and
// offset is checked against the bytes, each block's masked CRC32C verified, a Snappy block's stated size bounded
// before anything is allocated. Errors name the file and what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace onyx::convert::tf {

// CRC-32C (Castagnoli), extending `crc` (the CRC of the bytes before `data`).
uint32_t Crc32cExtend(uint32_t crc, std::string_view data);
inline uint32_t Crc32c(std::string_view data) { return Crc32cExtend(0, data); }
// LevelDB/TensorFlow store CRCs masked (rotated and offset) so that a CRC of bytes holding CRCs stays strong.
uint32_t MaskCrc32c(uint32_t crc);
uint32_t UnmaskCrc32c(uint32_t masked);

// Limits on what a table may make us allocate.
inline constexpr size_t kMaxSstableBlockBytes = size_t{1} << 30;  // one block, uncompressed
inline constexpr size_t kMaxSstableEntries = size_t{1} << 24;

// Every key/value pair of the table held in `bytes`, in stored (ascending key) order. `path` names it in errors.
Result<std::vector<std::pair<std::string, std::string>>> ReadSstable(std::string_view bytes, const std::string& path);

}  // namespace onyx::convert::tf
