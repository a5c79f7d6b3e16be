// Helpers shared by the reduction family: per-file registration functions, the outer/axis/inner split of a
// shape around one axis, and element-level utilities (NaN tests, saturating casts from double).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/data_type.h"
#include "core/tensor.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops {

void RegisterReduceOps(KernelRegistry& registry);
void RegisterArgMinMaxOps(KernelRegistry& registry);
void RegisterSoftmaxOps(KernelRegistry& registry);
void RegisterCumulativeOps(KernelRegistry& registry);
void RegisterTopKOps(KernelRegistry& registry);
void RegisterLpNormalizationOps(KernelRegistry& registry);

namespace reduction {

// A shape seen as [outer, n, inner] around `axis` (0 <= axis <= rank): element (o, i, j) lies at
// (o * n + i) * inner + j. With axis == rank, n and inner are 1 (the whole shape is outer).
struct AxisSplit {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

inline AxisSplit SplitAt(const Shape& shape, int64_t axis) {
  AxisSplit s;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) {
      s.outer *= shape[static_cast<size_t>(d)];
    } else if (d == axis) {
      s.n = shape[static_cast<size_t>(d)];
    } else {
      s.inner *= shape[static_cast<size_t>(d)];
    }
  }
  return s;
}

// Old Softmax-style operators coerce the input to 2-D [prod(dims[:axis]), prod(dims[axis:])].
inline AxisSplit SplitCoerced2D(const Shape& shape, int64_t axis) {
  AxisSplit s;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    (d < axis ? s.outer : s.n) *= shape[static_cast<size_t>(d)];
  }
  return s;
}

template <typename T>
inline constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

template <typename T>
inline bool IsNan(T v) {
  if constexpr (kIsFloat<T>) {
    return std::isnan(ToDouble(v));
  } else {
    return false;
  }
}

// double -> T; integer targets saturate (NaN becomes 0) instead of the undefined behaviour of a plain cast.
template <typename T>
inline T CastFromDouble(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return FromDouble<T>(v);
  }
}

// Integer arithmetic with two's complement wraparound (as numpy does), without signed-overflow UB.
template <typename T>
inline T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
inline T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Promote to uint64 so that uint16*uint16 does not go through (signed) int.
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return static_cast<T>(a * b);
  }
}

}  // namespace reduction
}  // namespace onyx::ops
