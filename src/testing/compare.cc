#include "testing/compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace onyx::testing {
namespace {

std::string IndexString(const Shape& shape, int64_t linear) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      idx[d] = linear % shape[d];
      linear /= shape[d];
    }
  }
  return ShapeToString(idx);
}

std::string Num(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

Status SameTypeAndShape(const Tensor& a, const Tensor& e) {
  if (a.type() != e.type()) {
    return InvalidArgument("element type " + std::string(DataTypeName(a.type())) + ", expected " +
                           std::string(DataTypeName(e.type())));
  }
  if (a.shape() != e.shape()) {
    return InvalidArgument("shape " + ShapeToString(a.shape()) + ", expected " + ShapeToString(e.shape()));
  }
  return Status::Ok();
}

Status CompareTensors(const Tensor& a, const Tensor& e, const Tolerance& tol) {
  ONYX_RETURN_IF_ERROR(SameTypeAndShape(a, e));
  const int64_t n = e.size();
  const DataType t = e.type();
  if (t == DataType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      if (a.data<std::string>()[i] != e.data<std::string>()[i]) {
        return InvalidArgument("element " + IndexString(e.shape(), i) + ": got \"" + a.data<std::string>()[i] +
                               "\", expected \"" + e.data<std::string>()[i] + "\"");
      }
    }
    return Status::Ok();
  }
  if (IsFloatingPoint(t) || t == DataType::kComplex64 || t == DataType::kComplex128) {
    const bool complex = t == DataType::kComplex64 || t == DataType::kComplex128;
    const int64_t count = complex ? 2 * n : n;
    for (int64_t i = 0; i < count; ++i) {
      double x;
      double y;
      if (t == DataType::kComplex64) {
        x = a.data<float>()[i];
        y = e.data<float>()[i];
      } else if (t == DataType::kComplex128) {
        x = a.data<double>()[i];
        y = e.data<double>()[i];
      } else {
        x = a.DoubleAt(i);
        y = e.DoubleAt(i);
      }
      if (std::isnan(y)) {
        if (!std::isnan(x)) return InvalidArgument("element " + IndexString(e.shape(), complex ? i / 2 : i) + ": got " + Num(x) + ", expected nan");
        continue;
      }
      if (std::isinf(y) || std::isinf(x)) {
        if (x != y) return InvalidArgument("element " + IndexString(e.shape(), complex ? i / 2 : i) + ": got " + Num(x) + ", expected " + Num(y));
        continue;
      }
      if (!(std::fabs(x - y) <= tol.atol + tol.rtol * std::fabs(y))) {
        return InvalidArgument("element " + IndexString(e.shape(), complex ? i / 2 : i) + ": got " + Num(x) + ", expected " +
                               Num(y) + " (difference " + Num(std::fabs(x - y)) + ")");
      }
    }
    return Status::Ok();
  }
  if (IsFloat8(t) || IsSubByte(t)) {
    // Bit patterns must be identical (NaN encodings included).
    if (std::memcmp(a.raw(), e.raw(), e.nbytes()) != 0) {
      for (size_t i = 0; i < e.nbytes(); ++i) {
        if (static_cast<const uint8_t*>(a.raw())[i] != static_cast<const uint8_t*>(e.raw())[i]) {
          return InvalidArgument("byte " + std::to_string(i) + " of packed " + std::string(DataTypeName(t)) + " data differs");
        }
      }
    }
    return Status::Ok();
  }
  for (int64_t i = 0; i < n; ++i) {
    if (a.IntAt(i) != e.IntAt(i) || (t == DataType::kUint64 && a.data<uint64_t>()[i] != e.data<uint64_t>()[i])) {
      return InvalidArgument("element " + IndexString(e.shape(), i) + ": got " + std::to_string(a.IntAt(i)) +
                             ", expected " + std::to_string(e.IntAt(i)));
    }
  }
  return Status::Ok();
}

}  // namespace

Status CompareValues(const Value& actual, const Value& expected, const Tolerance& tol) {
  if (expected.is_none()) {
    if (!actual.is_none()) return InvalidArgument("got a " + actual.KindName() + ", expected an empty optional");
    return Status::Ok();
  }
  if (expected.is_tensor()) {
    if (!actual.is_tensor()) return InvalidArgument("got a " + actual.KindName() + ", expected a tensor");
    return CompareTensors(actual.tensor(), expected.tensor(), tol);
  }
  if (expected.is_sequence()) {
    if (!actual.is_sequence()) return InvalidArgument("got a " + actual.KindName() + ", expected a sequence");
    const auto& a = actual.sequence().items;
    const auto& e = expected.sequence().items;
    if (a.size() != e.size()) {
      return InvalidArgument("sequence of " + std::to_string(a.size()) + " items, expected " + std::to_string(e.size()));
    }
    for (size_t i = 0; i < e.size(); ++i) {
      Status st = CompareValues(a[i], e[i], tol);
      if (!st.ok()) return st.WithContext("sequence item " + std::to_string(i));
    }
    return Status::Ok();
  }
  if (expected.is_map()) {
    if (!actual.is_map()) return InvalidArgument("got a " + actual.KindName() + ", expected a map");
    ONYX_RETURN_IF_ERROR(CompareTensors(actual.map().keys, expected.map().keys, tol).WithContext("map keys"));
    return CompareTensors(actual.map().values, expected.map().values, tol).WithContext("map values");
  }
  return InvalidArgument("nothing to compare");
}

Status CompareRandomDraws(const Value& actual, const Value& expected) {
  if (!expected.is_tensor()) return InvalidArgument("random draws other than tensors cannot be checked");
  if (!actual.is_tensor()) return InvalidArgument("got a " + actual.KindName() + ", expected a tensor");
  const Tensor& a = actual.tensor();
  const Tensor& e = expected.tensor();
  ONYX_RETURN_IF_ERROR(SameTypeAndShape(a, e));
  if (e.type() == DataType::kString || e.type() == DataType::kComplex64 || e.type() == DataType::kComplex128) {
    return InvalidArgument("random draws of " + std::string(DataTypeName(e.type())) + " cannot be checked");
  }
  auto is_zero_or_one = [](double v) { return v == 0.0 || v == 1.0; };
  for (int64_t i = 0; i < e.size(); ++i) {
    if (!is_zero_or_one(e.DoubleAt(i))) {
      return InvalidArgument("the expected random draws are not all 0 or 1, so their support is unknown: element " +
                             IndexString(e.shape(), i) + " is " + Num(e.DoubleAt(i)));
    }
  }
  for (int64_t i = 0; i < a.size(); ++i) {
    if (!is_zero_or_one(a.DoubleAt(i))) {
      return InvalidArgument("element " + IndexString(a.shape(), i) + ": got " + Num(a.DoubleAt(i)) +
                             ", a Bernoulli draw must be 0 or 1");
    }
  }
  return Status::Ok();
}

}  // namespace onyx::testing
