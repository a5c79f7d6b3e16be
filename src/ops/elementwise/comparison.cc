// Comparisons with broadcasting, giving bool: Equal (also bools and strings), Less, Greater, LessOrEqual,
// GreaterOrEqual. NaN compares unequal and unordered, as in IEEE arithmetic.
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

struct CompareFn : NoAttributes {
  static constexpr bool kBoolOutput = true;
  static constexpr bool kDivides = false;
};

struct EqualFn : CompareFn {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a == b;
  }
};
struct LessFn : CompareFn {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a < b;
  }
};
struct GreaterFn : CompareFn {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a > b;
  }
};
struct LessOrEqualFn : CompareFn {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a <= b;
  }
};
struct GreaterOrEqualFn : CompareFn {
  template <typename C>
  bool operator()(const C& a, const C& b) const {
    return a >= b;
  }
};

}  // namespace

void RegisterComparisonOps(KernelRegistry& registry) {
  AddBinary<AllTypes, EqualFn>(registry, "Equal", 1);
  AddBinary<NumericTypes, LessFn>(registry, "Less", 1);
  AddBinary<NumericTypes, GreaterFn>(registry, "Greater", 1);
  AddBinary<NumericTypes, LessOrEqualFn>(registry, "LessOrEqual", 12);
  AddBinary<NumericTypes, GreaterOrEqualFn>(registry, "GreaterOrEqual", 12);
}

}  // namespace onyx::ops::elementwise
