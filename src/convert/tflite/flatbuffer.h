// Bounds-checked reading of FlatBuffers tables (the format of .tflite files) without generated code: a table is
// located through its vtable, fields are addressed by their id in the schema (declaration order). Every offset is
// checked against the buffer, so a truncated or hostile file gives an error, never an out-of-bounds read. (The
// FlatBuffers library's own accessors trust the buffer unless a schema-generated Verifier runs first.)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace onyx::convert::tflite {

class FlatTable {
 public:
  FlatTable() = default;
  // The root table of a FlatBuffer.
  static Result<FlatTable> Root(std::string_view buffer);

  bool valid() const { return !buffer_.empty(); }
  bool Has(int field) const { return FieldOffset(field) != 0; }

  // Scalars: `fallback` when the field is absent (FlatBuffers omits defaults).
  Result<int64_t> Int(int field, int width, bool is_signed, int64_t fallback) const;
  Result<int32_t> Int32(int field, int32_t fallback = 0) const {
    ONYX_ASSIGN_OR_RETURN(int64_t v, Int(field, 4, true, fallback));
    return static_cast<int32_t>(v);
  }
  Result<int8_t> Int8(int field, int8_t fallback = 0) const {
    ONYX_ASSIGN_OR_RETURN(int64_t v, Int(field, 1, true, fallback));
    return static_cast<int8_t>(v);
  }
  Result<bool> Bool(int field, bool fallback = false) const {
    ONYX_ASSIGN_OR_RETURN(int64_t v, Int(field, 1, false, fallback ? 1 : 0));
    return v != 0;
  }
  Result<float> Float(int field, float fallback) const;

  // A sub-table; an invalid FlatTable when absent.
  Result<FlatTable> Table(int field) const;
  Result<std::string> String(int field) const;  // "" when absent
  // Vectors: empty when absent.
  Result<std::vector<FlatTable>> Tables(int field) const;
  Result<std::vector<int32_t>> Int32s(int field) const;
  Result<std::vector<int64_t>> Int64s(int field) const;
  Result<std::vector<float>> Floats(int field) const;
  Result<std::string_view> Bytes(int field) const;  // [ubyte] / [byte]

 private:
  FlatTable(std::string_view buffer, uint32_t offset) : buffer_(buffer), offset_(offset) {}
  // The field's offset inside the table, 0 when absent (or the vtable is too short).
  uint32_t FieldOffset(int field) const;
  // The start of the vector a uoffset field points to, and its length.
  Result<std::pair<uint32_t, uint32_t>> Vector(int field, uint32_t element_size) const;
  Result<uint32_t> Deref(int field) const;  // absolute position a uoffset field points to

  std::string_view buffer_;
  uint32_t offset_ = 0;
};

}  // namespace onyx::convert::tflite
