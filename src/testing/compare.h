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

// For outputs that are random draws (Bernoulli and the Random* generators, whose values the spec leaves to each
// implementation even with a seed): checks what any correct sampler guarantees instead of the values. Same kind,
// element type and shape; and when every expected value is 0 or 1 (Bernoulli draws), every actual value is 0 or 1.
// Fails for other random outputs, whose support the expected sample does not tell.
Status CompareRandomDraws(const Value& actual, const Value& expected);

}  // namespace onyx::testing
