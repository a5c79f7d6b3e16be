// How far one value is from a reference: the statistics `onyx compare` reports (beyond compare.h's pass/fail with
// the first mismatch).
#pragma once

#include <cstdint>
#include <string>

#include "core/value.h"
#include "testing/compare.h"

namespace onyx::testing {

struct ValueDiff {
  // False when the two cannot be compared element by element (kinds, element types or shapes differ); `note` says
  // why and the statistics are unset.
  bool comparable = false;
  std::string note;
  int64_t elements = 0;
  // Elements outside |a - r| <= atol + rtol * |r| (NaN matches NaN; infinities must be equal); for integers, bools
  // and strings, elements that differ.
  int64_t mismatches = 0;
  int64_t worst_index = -1;  // the element with the largest absolute difference (the first mismatch for strings)
  double max_abs = 0, max_rel = 0, mean_abs = 0;
  double cosine = 1;  // cosine similarity of the two as vectors (1 when both are all zero); numeric only
  // For floating tensors of rank 1 to 3 whose last dim is > 1 (class scores [N, C], logits [N, T, V]): rows (along
  // the last axis) whose argmax is the same, out of `argmax_rows`.
  int64_t argmax_rows = 0, argmax_same = 0;

  bool within_tolerance() const { return comparable && mismatches == 0; }
};

// `actual` against `reference`, tensor against tensor (sequences item by item, summed; maps and optionals compared
// for equality of kind only).
ValueDiff DiffValues(const Value& actual, const Value& reference, const Tolerance& tol);

}  // namespace onyx::testing
