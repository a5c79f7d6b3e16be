// ONNX element types (numbers as in TensorProto.DataType), their properties, and type dispatch.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/float16.h"
#include "core/status.h"

namespace onyx {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};

constexpr int kMaxDataType = 26;

bool IsValidDataType(int32_t v);
// ONNX's lower-case name: "float", "int64", "float8e4m3fn", ...
std::string_view DataTypeName(DataType t);
// The name as onnxruntime prints it in NodeArg.type: "tensor(float)".
std::string TensorTypeString(DataType t);
Result<DataType> DataTypeFromName(std::string_view name);
// Bits per element: 1..64 (4 for int4/uint4/float4e2m1, 2 for int2/uint2); 0 for undefined and string.
int DataTypeBits(DataType t);
// Bytes needed for `count` elements, packed as ONNX packs sub-byte types.
size_t DataTypeStorageBytes(DataType t, size_t count);
bool IsFloatingPoint(DataType t);  // float, double, float16, bfloat16 (the types kernels compute on)
bool IsFloat8(DataType t);
bool IsSubByte(DataType t);
bool IsSignedInteger(DataType t);
bool IsUnsignedInteger(DataType t);
inline bool IsInteger(DataType t) { return IsSignedInteger(t) || IsUnsignedInteger(t); }

// Compile-time map from C++ type to DataType.
template <typename T>
struct DataTypeOf;
#define ONYX_DATATYPE_OF(T, E) \
  template <>                  \
  struct DataTypeOf<T> {       \
    static constexpr DataType value = DataType::E; \
  };
ONYX_DATATYPE_OF(float, kFloat)
ONYX_DATATYPE_OF(double, kDouble)
ONYX_DATATYPE_OF(Float16, kFloat16)
ONYX_DATATYPE_OF(BFloat16, kBFloat16)
ONYX_DATATYPE_OF(int8_t, kInt8)
ONYX_DATATYPE_OF(int16_t, kInt16)
ONYX_DATATYPE_OF(int32_t, kInt32)
ONYX_DATATYPE_OF(int64_t, kInt64)
ONYX_DATATYPE_OF(uint8_t, kUint8)
ONYX_DATATYPE_OF(uint16_t, kUint16)
ONYX_DATATYPE_OF(uint32_t, kUint32)
ONYX_DATATYPE_OF(uint64_t, kUint64)
ONYX_DATATYPE_OF(bool, kBool)
ONYX_DATATYPE_OF(std::string, kString)
ONYX_DATATYPE_OF(std::complex<float>, kComplex64)
ONYX_DATATYPE_OF(std::complex<double>, kComplex128)
#undef ONYX_DATATYPE_OF

template <typename T>
struct TypeTag {
  using type = T;
};

// Type lists for dispatch.
template <typename... Ts>
struct TypeList {};

using FloatTypes = TypeList<float, double, Float16, BFloat16>;
using SignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntTypes = TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
using NumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                              uint16_t, uint32_t, uint64_t>;
using AllFixedTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                               uint16_t, uint32_t, uint64_t, bool>;
using AllTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t,
                          uint16_t, uint32_t, uint64_t, bool, std::string>;

namespace detail {
template <typename F, typename T, typename... Ts>
Status DispatchImpl(DataType t, F&& f, TypeList<T, Ts...>) {
  if (t == DataTypeOf<T>::value) return f(TypeTag<T>{});
  if constexpr (sizeof...(Ts) > 0) {
    return DispatchImpl(t, std::forward<F>(f), TypeList<Ts...>{});
  } else {
    return Unsupported("element type " + std::string(DataTypeName(t)) + " is not supported here");
  }
}
}  // namespace detail

// Calls f(TypeTag<T>{}) for the T in List matching `t`; f returns Status.
// Unsupported("element type X is not supported here") when `t` is not in List.
template <typename List, typename F>
Status Dispatch(DataType t, F&& f) {
  return detail::DispatchImpl(t, std::forward<F>(f), List{});
}

// Float conversions for any numeric element type (used by generic kernels).
template <typename T>
inline double ToDouble(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return static_cast<double>(v);
  }
}
template <typename T>
inline T FromDouble(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}
// Computation type: float for the 16-bit floats, T otherwise.
template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<Float16> {
  using type = float;
};
template <>
struct ComputeTypeOf<BFloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

}  // namespace onyx
