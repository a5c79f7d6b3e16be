// Comparing computed values with expected ones the way ONNX's backend test runner does.
#pragma once

#include <string>

#include "core/status.h"
#include "core/value.h"

namespace onyx::testing {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

// Ok when equal: same kind, element type and shape; floating values within atol + rtol * |expected| (NaN equals NaN,
// infinities must match); integers, bools and strings exactly; sequences and optionals element by element.
// The error message names the first mismatch: "element [1, 2]: got 0.5, expected 0.25".
Status CompareValues(const Value& actual, const Value& expected, const Tolerance& tol = {});

}  // namespace onyx::testing
