#include "core/data_type.h"

#include <array>

namespace onyx {
namespace {

struct TypeInfoRow {
  std::string_view name;
  int bits;
};

constexpr std::array<TypeInfoRow, kMaxDataType + 1> kTypes = {{
    {"undefined", 0},   {"float", 32},         {"uint8", 8},         {"int8", 8},
    {"uint16", 16},     {"int16", 16},         {"int32", 32},        {"int64", 64},
    {"string", 0},      {"bool", 8},           {"float16", 16},      {"double", 64},
    {"uint32", 32},     {"uint64", 64},        {"complex64", 64},    {"complex128", 128},
    {"bfloat16", 16},   {"float8e4m3fn", 8},   {"float8e4m3fnuz", 8}, {"float8e5m2", 8},
    {"float8e5m2fnuz", 8}, {"uint4", 4},       {"int4", 4},          {"float4e2m1", 4},
    {"float8e8m0", 8},  {"uint2", 2},          {"int2", 2},
}};

}  // namespace

bool IsValidDataType(int32_t v) { return v > 0 && v <= kMaxDataType; }

std::string_view DataTypeName(DataType t) {
  auto i = static_cast<int32_t>(t);
  if (i < 0 || i > kMaxDataType) return "invalid";
  return kTypes[static_cast<size_t>(i)].name;
}

std::string TensorTypeString(DataType t) { return "tensor(" + std::string(DataTypeName(t)) + ")"; }

Result<DataType> DataTypeFromName(std::string_view name) {
  for (size_t i = 1; i < kTypes.size(); ++i) {
    if (kTypes[i].name == name) return static_cast<DataType>(i);
  }
  return InvalidArgument("unknown element type '" + std::string(name) + "'");
}

int DataTypeBits(DataType t) {
  auto i = static_cast<int32_t>(t);
  if (i < 0 || i > kMaxDataType) return 0;
  return kTypes[static_cast<size_t>(i)].bits;
}

size_t DataTypeStorageBytes(DataType t, size_t count) {
  if (t == DataType::kString) return count * sizeof(std::string);
  size_t bits = static_cast<size_t>(DataTypeBits(t));
  return (count * bits + 7) / 8;
}

bool IsFloatingPoint(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

bool IsFloat8(DataType t) {
  return t == DataType::kFloat8E4M3FN || t == DataType::kFloat8E4M3FNUZ || t == DataType::kFloat8E5M2 ||
         t == DataType::kFloat8E5M2FNUZ || t == DataType::kFloat8E8M0;
}

bool IsSubByte(DataType t) {
  return t == DataType::kInt4 || t == DataType::kUint4 || t == DataType::kFloat4E2M1 || t == DataType::kInt2 ||
         t == DataType::kUint2;
}

bool IsSignedInteger(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 || t == DataType::kInt64 ||
         t == DataType::kInt4 || t == DataType::kInt2;
}

bool IsUnsignedInteger(DataType t) {
  return t == DataType::kUint8 || t == DataType::kUint16 || t == DataType::kUint32 || t == DataType::kUint64 ||
         t == DataType::kUint4 || t == DataType::kUint2;
}

}  // namespace onyx
