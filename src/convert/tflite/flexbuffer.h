// Bounds-checked reading of FlexBuffers (the schema-less format of TFLite custom operators' custom_options, e.g.
// MediaPipe's). A value is addressed by its position, its parent's byte width and its packed type; every offset,
// width and length is checked against the buffer, so a truncated or hostile buffer gives an error, never an
// out-of-bounds read (the FlexBuffers library's own accessors trust the buffer unless a Verifier runs first).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace onyx::convert::tflite {

// FlexBuffers value types (flexbuffers.h's Type).
enum class FlexType : uint8_t {
  kNull = 0,
  kInt = 1,
  kUint = 2,
  kFloat = 3,
  kKey = 4,
  kString = 5,
  kIndirectInt = 6,
  kIndirectUint = 7,
  kIndirectFloat = 8,
  kMap = 9,
  kVector = 10,
  kVectorInt = 11,  // typed vectors: 11..15 (int, uint, float, key, deprecated string)
  kVectorKey = 14,
  kVectorInt2 = 16,  // fixed-length typed vectors: 16..24 (int, uint, float) x (2, 3, 4)
  kBlob = 25,
  kBool = 26,
  kVectorBool = 36,
};

class FlexValue {
 public:
  // The root value of a FlexBuffer (its last byte is the root's width, the one before its packed type).
  static Result<FlexValue> Root(std::string_view buffer);

  FlexType type() const { return type_; }
  bool IsNull() const { return type_ == FlexType::kNull; }
  bool IsMap() const { return type_ == FlexType::kMap; }
  bool IsVector() const;  // untyped, typed or fixed-length typed vectors (not maps, strings or blobs)

  // Scalars: ints, uints and bools as integers; AsDouble also takes ints. Other types are an error.
  Result<int64_t> AsInt() const;
  Result<double> AsDouble() const;
  Result<bool> AsBool() const;
  Result<std::string> AsString() const;  // strings and keys

  // Vectors and maps: the number of elements, element i (a map's values in key order).
  Result<size_t> Size() const;
  Result<FlexValue> At(size_t i) const;
  // A map's keys (sorted, as FlexBuffers stores them) and the value of `key` (nullopt when absent).
  Result<std::vector<std::string>> Keys() const;
  Result<std::optional<FlexValue>> Get(std::string_view key) const;

 private:
  FlexValue(std::string_view buffer, uint64_t at, uint8_t parent_width, FlexType type, uint8_t byte_width)
      : buffer_(buffer), at_(at), parent_width_(parent_width), type_(type), byte_width_(byte_width) {}
  // An element at `at` of width `parent_width` whose packed type byte is `packed`.
  static Result<FlexValue> Make(std::string_view buffer, uint64_t at, uint8_t parent_width, uint8_t packed);
  // The position an offset-typed value points to.
  Result<uint64_t> Target() const;
  // For vectors, strings and maps: the start of the data and the element count (stored just before).
  Result<std::pair<uint64_t, uint64_t>> Data() const;

  std::string_view buffer_;
  uint64_t at_ = 0;
  uint8_t parent_width_ = 1;  // the width the value (or its offset) is stored with
  FlexType type_ = FlexType::kNull;
  uint8_t byte_width_ = 1;  // the width of what an offset points to (a vector's elements...)
};

}  // namespace onyx::convert::tflite
