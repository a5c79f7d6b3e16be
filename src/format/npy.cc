#include "format/npy.h"

#include <cstring>

#include "core/mapped_file.h"

namespace onyx::format {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  const char* descr;
  DataType type;
};

// numpy dtype strings for each element type ('<' little-endian, '|' byte-sized).
constexpr Descr kDescrs[] = {
    {"<f4", DataType::kFloat},   {"<f8", DataType::kDouble},  {"<f2", DataType::kFloat16},
    {"|i1", DataType::kInt8},    {"<i2", DataType::kInt16},   {"<i4", DataType::kInt32},
    {"<i8", DataType::kInt64},   {"|u1", DataType::kUint8},   {"<u2", DataType::kUint16},
    {"<u4", DataType::kUint32},  {"<u8", DataType::kUint64},  {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\'' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\'' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

// Finds the value text after 'key': in the header dict.
Result<std::string_view> HeaderField(std::string_view header, std::string_view key) {
  // Built piecewise: "'" + std::string(key) + "'" trips g++ 12's -Wrestrict false positive at -O3.
  std::string quoted(1, '\'');
  quoted.append(key);
  quoted.push_back('\'');
  size_t p = header.find(quoted);
  if (p == std::string_view::npos) return InvalidArgument("npy header has no '" + std::string(key) + "'");
  p = header.find(':', p);
  if (p == std::string_view::npos) return InvalidArgument("npy header is malformed");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  size_t end;
  if (p < header.size() && header[p] == '(') {
    end = header.find(')', p);
    if (end == std::string_view::npos) return InvalidArgument("npy header shape is malformed");
    ++end;
  } else {
    end = header.find(',', p);
    if (end == std::string_view::npos) end = header.find('}', p);
    if (end == std::string_view::npos) return InvalidArgument("npy header is malformed");
  }
  return header.substr(p, end - p);
}

}  // namespace

Result<Tensor> ParseNpy(std::string_view bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) return InvalidArgument("not a .npy file (bad magic)");
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len;
  size_t pos;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return InvalidArgument("truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    pos = 12;
  } else {
    return InvalidArgument(".npy format version " + std::to_string(major) + " is not supported");
  }
  if (bytes.size() < pos + header_len) return InvalidArgument("truncated .npy header");
  std::string_view header = bytes.substr(pos, header_len);
  pos += header_len;
  ONYX_ASSIGN_OR_RETURN(std::string_view descr_text, HeaderField(header, "descr"));
  ONYX_ASSIGN_OR_RETURN(std::string_view fortran, HeaderField(header, "fortran_order"));
  ONYX_ASSIGN_OR_RETURN(std::string_view shape_text, HeaderField(header, "shape"));
  std::string descr(Trim(descr_text));
  if (descr.size() >= 2 && descr[0] == '=') descr[0] = '<';
  if (descr == "<b1" || descr == "|u1" || descr == "<u1" || descr == "|i1" || descr == "<i1") {
    descr[0] = '|';
  }
  if (Trim(fortran) != "False") return Unsupported(".npy arrays in Fortran order are not supported");
  DataType type = DataType::kUndefined;
  for (const auto& d : kDescrs) {
    if (descr == d.descr) type = d.type;
  }
  if (type == DataType::kUndefined) return Unsupported(".npy element type '" + descr + "' is not supported");
  Shape shape;
  std::string_view s = shape_text;
  if (s.size() < 2) return InvalidArgument(".npy shape is malformed");
  s = s.substr(1, s.size() - 2);
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view part = Trim(s.substr(0, comma));
    if (!part.empty()) {
      int64_t d = 0;
      for (char c : part) {
        if (c < '0' || c > '9') return InvalidArgument(".npy shape has a bad dimension '" + std::string(part) + "'");
        d = d * 10 + (c - '0');
        if (d > (int64_t{1} << 48)) return InvalidArgument(".npy shape dimension is too large");
      }
      shape.push_back(d);
    }
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  ONYX_ASSIGN_OR_RETURN(int64_t n, CheckedNumElements(shape));
  const size_t need = DataTypeStorageBytes(type, static_cast<size_t>(n));
  if (bytes.size() - pos < need) {
    return InvalidArgument(".npy data is truncated: " + std::to_string(bytes.size() - pos) + " bytes for shape " +
                           ShapeToString(shape) + " needing " + std::to_string(need));
  }
  Tensor t = Tensor::Allocate(type, std::move(shape));
  if (need > 0) std::memcpy(t.raw(), bytes.data() + pos, need);
  return t;
}

Result<Tensor> LoadNpy(const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  auto t = ParseNpy(bytes);
  if (!t.ok()) return t.status().WithContext("'" + path + "'");
  return t;
}

Result<std::string> SerializeNpy(const Tensor& tensor) {
  const char* descr = nullptr;
  for (const auto& d : kDescrs) {
    if (d.type == tensor.type()) descr = d.descr;
  }
  if (tensor.type() == DataType::kBFloat16) {
    return Unsupported("numpy has no bfloat16: cast to float before saving .npy");
  }
  if (descr == nullptr) {
    return Unsupported("element type " + std::string(DataTypeName(tensor.type())) + " cannot be saved as .npy");
  }
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    shape += std::to_string(tensor.shape()[i]);
    if (tensor.shape().size() == 1 || i + 1 < tensor.shape().size()) shape += ",";
    if (i + 1 < tensor.shape().size()) shape += " ";
  }
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, 6);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  out += header;
  out.append(static_cast<const char*>(tensor.raw()), tensor.nbytes());
  return out;
}

Status SaveNpy(const Tensor& tensor, const std::string& path) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(tensor));
  return WriteStringToFile(path, bytes);
}

}  // namespace onyx::format
