#include "testing/value_diff.h"

#include <cmath>

namespace onyx::testing {
namespace {

bool Complex(DataType t) { return t == DataType::kComplex64 || t == DataType::kComplex128; }

ValueDiff DiffTensors(const Tensor& a, const Tensor& r, const Tolerance& tol) {
  ValueDiff d;
  if (a.type() != r.type()) {
    d.note = "element type " + std::string(DataTypeName(a.type())) + " vs " + std::string(DataTypeName(r.type()));
    return d;
  }
  if (a.shape() != r.shape()) {
    d.note = "shape " + ShapeToString(a.shape()) + " vs " + ShapeToString(r.shape());
    return d;
  }
  const DataType t = r.type();
  if (IsFloat8(t) || IsSubByte(t) || Complex(t)) {
    d.note = "element type " + std::string(DataTypeName(t)) + " is compared by the conformance runner only";
    return d;
  }
  d.comparable = true;
  d.elements = r.size();
  if (t == DataType::kString) {
    for (int64_t i = 0; i < r.size(); ++i) {
      if (a.data<std::string>()[i] != r.data<std::string>()[i]) {
        if (d.mismatches++ == 0) d.worst_index = i;
      }
    }
    return d;
  }
  const bool floating = IsFloatingPoint(t);
  double dot = 0, norm_a = 0, norm_r = 0, sum_abs = 0;
  int64_t finite_pairs = 0;
  for (int64_t i = 0; i < r.size(); ++i) {
    const double x = a.DoubleAt(i);
    const double y = r.DoubleAt(i);
    if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
      const bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if (!same) {
        ++d.mismatches;
        if (d.max_abs != INFINITY) {
          d.max_abs = INFINITY;
          d.worst_index = i;
        }
      }
      continue;
    }
    const double diff = std::fabs(x - y);
    sum_abs += diff;
    ++finite_pairs;
    dot += x * y;
    norm_a += x * x;
    norm_r += y * y;
    if (diff > d.max_abs || d.worst_index < 0) {
      if (diff > d.max_abs) d.max_abs = diff;
      d.worst_index = i;
    }
    if (y != 0) d.max_rel = std::max(d.max_rel, diff / std::fabs(y));
    const bool ok = floating ? diff <= tol.atol + tol.rtol * std::fabs(y) : x == y;
    if (!ok) ++d.mismatches;
  }
  d.mean_abs = finite_pairs > 0 ? sum_abs / static_cast<double>(finite_pairs) : 0;
  if (norm_a == 0 && norm_r == 0) {
    d.cosine = 1;
  } else if (norm_a == 0 || norm_r == 0) {
    d.cosine = 0;
  } else {
    d.cosine = dot / (std::sqrt(norm_a) * std::sqrt(norm_r));
  }
  if (floating && r.rank() >= 1 && r.rank() <= 3 && r.shape().back() > 1) {
    const int64_t classes = r.shape().back();
    d.argmax_rows = r.size() / classes;
    for (int64_t row = 0; row < d.argmax_rows; ++row) {
      int64_t best_a = 0, best_r = 0;
      for (int64_t c = 1; c < classes; ++c) {
        if (a.DoubleAt(row * classes + c) > a.DoubleAt(row * classes + best_a)) best_a = c;
        if (r.DoubleAt(row * classes + c) > r.DoubleAt(row * classes + best_r)) best_r = c;
      }
      if (best_a == best_r) ++d.argmax_same;
    }
  }
  return d;
}

}  // namespace

ValueDiff DiffValues(const Value& actual, const Value& reference, const Tolerance& tol) {
  if (actual.is_tensor() && reference.is_tensor()) return DiffTensors(actual.tensor(), reference.tensor(), tol);
  ValueDiff d;
  if (actual.KindName() != reference.KindName()) {
    d.note = actual.KindName() + " vs " + reference.KindName();
    return d;
  }
  if (!reference.is_sequence()) {
    d.note = "a " + reference.KindName() + " is compared by the conformance runner only";
    return d;
  }
  const auto& a = actual.sequence().items;
  const auto& r = reference.sequence().items;
  if (a.size() != r.size()) {
    d.note = std::to_string(a.size()) + " vs " + std::to_string(r.size()) + " sequence items";
    return d;
  }
  // Items summed: counts add up, maxima are the largest of any item; cosine and argmax are left out.
  d.comparable = true;
  double sum_abs = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    ValueDiff item = DiffValues(a[i], r[i], tol);
    if (!item.comparable) {
      item.note = "sequence item " + std::to_string(i) + ": " + item.note;
      return item;
    }
    d.elements += item.elements;
    d.mismatches += item.mismatches;
    d.max_abs = std::max(d.max_abs, item.max_abs);
    d.max_rel = std::max(d.max_rel, item.max_rel);
    sum_abs += item.mean_abs * static_cast<double>(item.elements);
  }
  d.mean_abs = d.elements > 0 ? sum_abs / static_cast<double>(d.elements) : 0;
  return d;
}

}  // namespace onyx::testing
