#include "ops/image/image_util.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/data_type.h"
#include "core/low_precision.h"

namespace onyx::ops::image {

void GatherElements(const Tensor& in, const std::vector<int64_t>& src, Tensor& out) {
  const DataType type = in.type();
  const int64_t n = out.size();
  if (type == DataType::kString) {
    const std::string* pin = in.data<std::string>();
    std::string* pout = out.data<std::string>();
    for (int64_t i = 0; i < n; ++i) pout[i] = src[i] < 0 ? std::string() : pin[src[i]];
    return;
  }
  const int bits = DataTypeBits(type);
  if (bits == 4 || bits == 2) {
    // Packed elements: clear the bytes first so that every slot written below starts from zero.
    std::memset(out.raw(), 0, out.nbytes());
    for (int64_t i = 0; i < n; ++i) {
      if (src[i] < 0) continue;
      if (bits == 4) {
        SetPackedNibble(out.raw(), i, GetPackedNibble(in.raw(), src[i]));
      } else {
        SetPacked2Bit(out.raw(), i, GetPacked2Bit(in.raw(), src[i]));
      }
    }
    return;
  }
  const size_t width = static_cast<size_t>(bits / 8);
  const auto* pin = static_cast<const unsigned char*>(in.raw());
  auto* pout = static_cast<unsigned char*>(out.raw());
  for (int64_t i = 0; i < n; ++i) {
    unsigned char* dst = pout + static_cast<size_t>(i) * width;
    if (src[i] < 0) {
      std::memset(dst, 0, width);
    } else {
      std::memcpy(dst, pin + static_cast<size_t>(src[i]) * width, width);
    }
  }
}

bool IsRealNumberType(DataType t) {
  return IsFloatingPoint(t) || IsFloat8(t) || t == DataType::kBool ||
         ((IsSignedInteger(t) || IsUnsignedInteger(t)) && !IsSubByte(t));
}

using RealTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                           uint32_t, uint64_t, bool>;

Result<std::vector<double>> ReadAsDoubles(const Tensor& t, const std::string& what) {
  std::vector<double> v(static_cast<size_t>(t.size()));
  if (IsFloat8(t.type())) {
    const auto* p = t.data<uint8_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = Float8ToFloat(t.type(), p[i]);
    return v;
  }
  Status st = Dispatch<RealTypes>(t.type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = ToDouble(p[i]);
    return Status::Ok();
  });
  if (!st.ok()) {
    return InvalidArgument(what + " has element type " + std::string(DataTypeName(t.type())) +
                           ", which this operator cannot interpolate");
  }
  return v;
}

namespace {

template <typename T>
T RoundSaturate(double v) {
  if (std::isnan(v)) return T(0);
  v = std::nearbyint(v);
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v <= lo) return std::numeric_limits<T>::lowest();
  if (v >= hi) return std::numeric_limits<T>::max();  // 2^63 and 2^64 round up in double: compare with >=
  return static_cast<T>(v);
}

}  // namespace

Status WriteFromDoubles(const std::vector<double>& values, Tensor& out) {
  if (IsFloat8(out.type())) {
    auto* p = out.data<uint8_t>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = DoubleToFloat8(out.type(), values[i]);
    return Status::Ok();
  }
  return Dispatch<RealTypes>(out.type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        p[i] = values[i] != 0;
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = RoundSaturate<T>(values[i]);
      } else {
        p[i] = FromDouble<T>(values[i]);
      }
    }
    return Status::Ok();
  });
}

Status CheckOutputShape(const Shape& shape, const std::string& what) {
  Result<int64_t> n = CheckedNumElements(shape);
  if (!n.ok()) return InvalidArgument(what + ": " + n.status().message());
  return Status::Ok();
}

int64_t ShapeProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) p *= shape[i];
  return p;
}

}  // namespace onyx::ops::image
