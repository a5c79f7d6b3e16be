#include "convert/tflite/flatbuffer.h"

namespace onyx::convert::tflite {
namespace {

template <typename T>
bool Load(std::string_view b, uint64_t at, T* out) {
  if (at + sizeof(T) > b.size()) return false;
  std::memcpy(out, b.data() + at, sizeof(T));  // FlatBuffers are little-endian, as every target onyx runs on
  return true;
}

Status Corrupt(const std::string& what) { return InvalidArgument("corrupt FlatBuffer: " + what); }

}  // namespace

Result<FlatTable> FlatTable::Root(std::string_view buffer) {
  uint32_t root = 0;
  if (!Load(buffer, 0, &root) || root >= buffer.size()) return Corrupt("the root offset points outside the file");
  FlatTable t(buffer, root);
  int32_t vtable_rel = 0;
  if (!Load(buffer, root, &vtable_rel)) return Corrupt("the root table is truncated");
  return t;
}

uint32_t FlatTable::FieldOffset(int field) const {
  int32_t vtable_rel = 0;
  if (!Load(buffer_, offset_, &vtable_rel)) return 0;
  const int64_t vtable = static_cast<int64_t>(offset_) - vtable_rel;
  uint16_t vtable_size = 0;
  if (vtable < 0 || !Load(buffer_, static_cast<uint64_t>(vtable), &vtable_size)) return 0;
  const uint64_t entry = 4 + 2 * static_cast<uint64_t>(field);
  if (entry + 2 > vtable_size) return 0;
  uint16_t field_offset = 0;
  if (!Load(buffer_, static_cast<uint64_t>(vtable) + entry, &field_offset)) return 0;
  return field_offset;
}

Result<int64_t> FlatTable::Int(int field, int width, bool is_signed, int64_t fallback) const {
  const uint32_t at = FieldOffset(field);
  if (at == 0) return fallback;
  const uint64_t pos = static_cast<uint64_t>(offset_) + at;
  switch (width) {
    case 1: {
      uint8_t v;
      if (!Load(buffer_, pos, &v)) break;
      return is_signed ? static_cast<int64_t>(static_cast<int8_t>(v)) : static_cast<int64_t>(v);
    }
    case 4: {
      uint32_t v;
      if (!Load(buffer_, pos, &v)) break;
      return is_signed ? static_cast<int64_t>(static_cast<int32_t>(v)) : static_cast<int64_t>(v);
    }
    case 8: {
      int64_t v;
      if (!Load(buffer_, pos, &v)) break;
      return v;
    }
    default:
      return Internal("unsupported field width");
  }
  return Corrupt("field " + std::to_string(field) + " runs past the end of the file");
}

Result<float> FlatTable::Float(int field, float fallback) const {
  const uint32_t at = FieldOffset(field);
  if (at == 0) return fallback;
  float v;
  if (!Load(buffer_, static_cast<uint64_t>(offset_) + at, &v)) return Corrupt("a float field is truncated");
  return v;
}

Result<uint32_t> FlatTable::Deref(int field) const {
  const uint32_t at = FieldOffset(field);
  const uint64_t pos = static_cast<uint64_t>(offset_) + at;
  uint32_t rel = 0;
  if (!Load(buffer_, pos, &rel)) return Corrupt("an offset field is truncated");
  const uint64_t target = pos + rel;
  if (target >= buffer_.size()) return Corrupt("an offset points outside the file");
  return static_cast<uint32_t>(target);
}

Result<FlatTable> FlatTable::Table(int field) const {
  if (!Has(field)) return FlatTable();
  ONYX_ASSIGN_OR_RETURN(uint32_t at, Deref(field));
  int32_t vtable_rel = 0;
  if (!Load(buffer_, at, &vtable_rel)) return Corrupt("a table is truncated");
  return FlatTable(buffer_, at);
}

Result<std::pair<uint32_t, uint32_t>> FlatTable::Vector(int field, uint32_t element_size) const {
  if (!Has(field)) return std::pair<uint32_t, uint32_t>{0, 0};
  ONYX_ASSIGN_OR_RETURN(uint32_t at, Deref(field));
  uint32_t length = 0;
  if (!Load(buffer_, at, &length)) return Corrupt("a vector length is truncated");
  const uint64_t start = static_cast<uint64_t>(at) + 4;
  if (start + static_cast<uint64_t>(length) * element_size > buffer_.size()) {
    return Corrupt("a vector of " + std::to_string(length) + " elements runs past the end of the file");
  }
  return std::pair<uint32_t, uint32_t>{static_cast<uint32_t>(start), length};
}

Result<std::string> FlatTable::String(int field) const {
  ONYX_ASSIGN_OR_RETURN(auto v, Vector(field, 1));
  return std::string(buffer_.substr(v.first, v.second));
}

Result<std::string_view> FlatTable::Bytes(int field) const {
  ONYX_ASSIGN_OR_RETURN(auto v, Vector(field, 1));
  return buffer_.substr(v.first, v.second);
}

Result<std::vector<int32_t>> FlatTable::Int32s(int field) const {
  ONYX_ASSIGN_OR_RETURN(auto v, Vector(field, 4));
  std::vector<int32_t> out(v.second);
  if (v.second > 0) std::memcpy(out.data(), buffer_.data() + v.first, 4 * static_cast<size_t>(v.second));
  return out;
}

Result<std::vector<int64_t>> FlatTable::Int64s(int field) const {
  ONYX_ASSIGN_OR_RETURN(auto v, Vector(field, 8));
  std::vector<int64_t> out(v.second);
  if (v.second > 0) std::memcpy(out.data(), buffer_.data() + v.first, 8 * static_cast<size_t>(v.second));
  return out;
}

Result<std::vector<float>> FlatTable::Floats(int field) const {
  ONYX_ASSIGN_OR_RETURN(auto v, Vector(field, 4));
  std::vector<float> out(v.second);
  if (v.second > 0) std::memcpy(out.data(), buffer_.data() + v.first, 4 * static_cast<size_t>(v.second));
  return out;
}

Result<std::vector<FlatTable>> FlatTable::Tables(int field) const {
  ONYX_ASSIGN_OR_RETURN(auto v, Vector(field, 4));
  std::vector<FlatTable> out;
  out.reserve(v.second);
  for (uint32_t i = 0; i < v.second; ++i) {
    const uint64_t slot = static_cast<uint64_t>(v.first) + 4 * static_cast<uint64_t>(i);
    uint32_t rel = 0;
    Load(buffer_, slot, &rel);
    const uint64_t at = slot + rel;
    int32_t vtable_rel = 0;
    if (at >= buffer_.size() || !Load(buffer_, at, &vtable_rel)) return Corrupt("a table in a vector is out of bounds");
    out.push_back(FlatTable(buffer_, static_cast<uint32_t>(at)));
  }
  return out;
}

}  // namespace onyx::convert::tflite
