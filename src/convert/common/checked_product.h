// Products of dimensions and sizes that a converted file states: they may be anything, and an int64 overflow is
// undefined behaviour, so the converters multiply them here and refuse what does not fit.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace onyx::convert {

// first * values[0] * values[1] * ..., or nullopt when a product leaves int64.
inline std::optional<int64_t> CheckedProduct(const std::vector<int64_t>& values, int64_t first = 1) {
  int64_t product = first;
  for (int64_t v : values) {
    if (__builtin_mul_overflow(product, v, &product)) return std::nullopt;
  }
  return product;
}

}  // namespace onyx::convert
