#include "convert/tflite/flexbuffer.h"

#include <cstring>

namespace onyx::convert::tflite {
namespace {

Status Malformed(const std::string& what) { return InvalidArgument("malformed FlexBuffer: " + what); }

bool ValidWidth(uint64_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

// An unsigned little-endian integer of `width` bytes at `at`.
Result<uint64_t> ReadUint(std::string_view b, uint64_t at, uint8_t width) {
  if (!ValidWidth(width)) return Malformed("width " + std::to_string(width));
  if (at > b.size() || b.size() - at < width) {
    return Malformed("read of " + std::to_string(width) + " bytes at " + std::to_string(at) + " of " +
                     std::to_string(b.size()));
  }
  uint64_t v = 0;
  for (uint8_t k = 0; k < width; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[at + k])) << (8 * k);
  return v;
}

Result<int64_t> ReadInt(std::string_view b, uint64_t at, uint8_t width) {
  ONYX_ASSIGN_OR_RETURN(uint64_t u, ReadUint(b, at, width));
  if (width < 8 && (u >> (8 * width - 1)) != 0) u |= ~uint64_t{0} << (8 * width);  // sign-extend
  return static_cast<int64_t>(u);
}

Result<double> ReadFloat(std::string_view b, uint64_t at, uint8_t width) {
  ONYX_ASSIGN_OR_RETURN(uint64_t u, ReadUint(b, at, width));
  if (width == 4) {
    const uint32_t bits = static_cast<uint32_t>(u);
    float f;
    std::memcpy(&f, &bits, 4);
    return static_cast<double>(f);
  }
  if (width == 8) {
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
  return Malformed("a float of " + std::to_string(width) + " bytes");
}

bool IsInline(FlexType t) {
  return t == FlexType::kNull || t == FlexType::kInt || t == FlexType::kUint || t == FlexType::kFloat ||
         t == FlexType::kBool;
}

bool IsTypedVector(uint8_t t) { return (t >= 11 && t <= 15) || t == 36; }
bool IsFixedVector(uint8_t t) { return t >= 16 && t <= 24; }

bool KnownType(uint8_t t) { return t <= 26 || t == 36; }

}  // namespace

Result<FlexValue> FlexValue::Make(std::string_view buffer, uint64_t at, uint8_t parent_width, uint8_t packed) {
  const uint8_t type = packed >> 2;
  if (!KnownType(type)) return Malformed("unknown type " + std::to_string(type));
  return FlexValue(buffer, at, parent_width, static_cast<FlexType>(type), static_cast<uint8_t>(1u << (packed & 3)));
}

Result<FlexValue> FlexValue::Root(std::string_view buffer) {
  if (buffer.size() < 3) return Malformed("only " + std::to_string(buffer.size()) + " bytes");
  const uint8_t width = static_cast<uint8_t>(buffer[buffer.size() - 1]);
  const uint8_t packed = static_cast<uint8_t>(buffer[buffer.size() - 2]);
  if (!ValidWidth(width) || buffer.size() - 2 < width) return Malformed("root width " + std::to_string(width));
  return Make(buffer, buffer.size() - 2 - width, width, packed);
}

bool FlexValue::IsVector() const {
  const uint8_t t = static_cast<uint8_t>(type_);
  return type_ == FlexType::kVector || IsTypedVector(t) || IsFixedVector(t);
}

Result<uint64_t> FlexValue::Target() const {
  ONYX_ASSIGN_OR_RETURN(uint64_t offset, ReadUint(buffer_, at_, parent_width_));
  if (offset > at_) return Malformed("offset " + std::to_string(offset) + " before the buffer's start");
  return at_ - offset;
}

Result<std::pair<uint64_t, uint64_t>> FlexValue::Data() const {
  ONYX_ASSIGN_OR_RETURN(uint64_t data, Target());
  const uint8_t t = static_cast<uint8_t>(type_);
  uint64_t length = 0;
  if (IsFixedVector(t)) {
    length = (t - 16) / 3 + 2;
  } else {
    if (data < byte_width_) return Malformed("a length before the buffer's start");
    ONYX_ASSIGN_OR_RETURN(length, ReadUint(buffer_, data - byte_width_, byte_width_));
  }
  // The elements (and an untyped vector's or map's type bytes, a string's terminator) lie inside the buffer.
  const uint64_t room = buffer_.size() - data;
  const uint64_t per = byte_width_ + ((type_ == FlexType::kVector || type_ == FlexType::kMap) ? 1 : 0);
  if (data > buffer_.size() || length > room / per) return Malformed(std::to_string(length) + " elements past the end");
  return std::make_pair(data, length);
}

Result<int64_t> FlexValue::AsInt() const {
  switch (type_) {
    case FlexType::kInt:
      return ReadInt(buffer_, at_, parent_width_);
    case FlexType::kUint:
    case FlexType::kBool: {
      ONYX_ASSIGN_OR_RETURN(uint64_t u, ReadUint(buffer_, at_, parent_width_));
      if (u > static_cast<uint64_t>(INT64_MAX)) return Malformed("an unsigned value beyond int64");
      return static_cast<int64_t>(u);
    }
    case FlexType::kIndirectInt: {
      ONYX_ASSIGN_OR_RETURN(uint64_t at, Target());
      return ReadInt(buffer_, at, byte_width_);
    }
    case FlexType::kIndirectUint: {
      ONYX_ASSIGN_OR_RETURN(uint64_t at, Target());
      ONYX_ASSIGN_OR_RETURN(uint64_t u, ReadUint(buffer_, at, byte_width_));
      if (u > static_cast<uint64_t>(INT64_MAX)) return Malformed("an unsigned value beyond int64");
      return static_cast<int64_t>(u);
    }
    default:
      return Malformed("type " + std::to_string(static_cast<int>(type_)) + " is not an integer");
  }
}

Result<double> FlexValue::AsDouble() const {
  if (type_ == FlexType::kFloat) return ReadFloat(buffer_, at_, parent_width_);
  if (type_ == FlexType::kIndirectFloat) {
    ONYX_ASSIGN_OR_RETURN(uint64_t at, Target());
    return ReadFloat(buffer_, at, byte_width_);
  }
  ONYX_ASSIGN_OR_RETURN(int64_t v, AsInt());
  return static_cast<double>(v);
}

Result<bool> FlexValue::AsBool() const {
  ONYX_ASSIGN_OR_RETURN(int64_t v, AsInt());
  return v != 0;
}

Result<std::string> FlexValue::AsString() const {
  if (type_ == FlexType::kString) {
    ONYX_ASSIGN_OR_RETURN(auto d, Data());
    if (buffer_.size() - d.first <= d.second) return Malformed("a string without room for its terminator");
    return std::string(buffer_.substr(d.first, d.second));
  }
  if (type_ == FlexType::kKey) {
    ONYX_ASSIGN_OR_RETURN(uint64_t at, Target());
    if (at >= buffer_.size()) return Malformed("a key past the end");
    const size_t end = buffer_.find('\0', at);
    if (end == std::string_view::npos) return Malformed("a key without its terminator");
    return std::string(buffer_.substr(at, end - at));
  }
  return Malformed("type " + std::to_string(static_cast<int>(type_)) + " is not a string");
}

Result<size_t> FlexValue::Size() const {
  if (!IsVector() && !IsMap()) return Malformed("type " + std::to_string(static_cast<int>(type_)) + " has no elements");
  ONYX_ASSIGN_OR_RETURN(auto d, Data());
  return static_cast<size_t>(d.second);
}

Result<FlexValue> FlexValue::At(size_t i) const {
  if (!IsVector() && !IsMap()) return Malformed("type " + std::to_string(static_cast<int>(type_)) + " has no elements");
  ONYX_ASSIGN_OR_RETURN(auto d, Data());
  if (i >= d.second) return Malformed("element " + std::to_string(i) + " of " + std::to_string(d.second));
  const uint64_t at = d.first + i * byte_width_;
  const uint8_t t = static_cast<uint8_t>(type_);
  if (type_ == FlexType::kVector || type_ == FlexType::kMap) {
    // The packed types follow the elements (Data() checked they lie inside the buffer).
    const uint8_t packed = static_cast<uint8_t>(buffer_[d.first + d.second * byte_width_ + i]);
    return Make(buffer_, at, byte_width_, packed);
  }
  FlexType element;
  if (t == 36) {
    element = FlexType::kBool;
  } else if (IsTypedVector(t)) {
    element = static_cast<FlexType>(t - 11 + 1);  // int, uint, float, key, string
  } else {
    element = static_cast<FlexType>((t - 16) % 3 + 1);
  }
  // A typed vector's elements carry no type byte: inline ones are read with the vector's width, keys and strings
  // point to data of width 1.
  return FlexValue(buffer_, at, byte_width_, element, IsInline(element) ? byte_width_ : 1);
}

Result<std::vector<std::string>> FlexValue::Keys() const {
  if (!IsMap()) return Malformed("type " + std::to_string(static_cast<int>(type_)) + " is not a map");
  ONYX_ASSIGN_OR_RETURN(auto d, Data());
  // Before a map's length: the keys vector's offset and its width.
  if (d.first < 3 * uint64_t{byte_width_}) return Malformed("a map's keys before the buffer's start");
  const uint64_t keys_at = d.first - 3 * uint64_t{byte_width_};
  ONYX_ASSIGN_OR_RETURN(uint64_t key_width, ReadUint(buffer_, d.first - 2 * uint64_t{byte_width_}, byte_width_));
  if (!ValidWidth(key_width)) return Malformed("keys of width " + std::to_string(key_width));
  const FlexValue keys(buffer_, keys_at, byte_width_, FlexType::kVectorKey, static_cast<uint8_t>(key_width));
  ONYX_ASSIGN_OR_RETURN(size_t n, keys.Size());
  if (n != d.second)
    return Malformed("a map of " + std::to_string(d.second) + " values and " + std::to_string(n) + " keys");
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    ONYX_ASSIGN_OR_RETURN(FlexValue k, keys.At(i));
    ONYX_ASSIGN_OR_RETURN(std::string s, k.AsString());
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::optional<FlexValue>> FlexValue::Get(std::string_view key) const {
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> keys, Keys());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != key) continue;
    ONYX_ASSIGN_OR_RETURN(FlexValue v, At(i));
    return std::optional<FlexValue>(v);
  }
  return std::optional<FlexValue>();
}

}  // namespace onyx::convert::tflite
