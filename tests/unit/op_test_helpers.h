// Small helpers shared by the operator unit tests: tensor literals, one-node runs, value checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_tester.h"

namespace onyx::testing {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

template <typename T>
Tensor T_(std::vector<T> values, Shape shape) {
  return Tensor::FromVector<T>(values, std::move(shape));
}
inline Tensor F(std::vector<float> values, Shape shape) { return T_<float>(std::move(values), std::move(shape)); }
inline Tensor I64(std::vector<int64_t> values, Shape shape) { return T_<int64_t>(std::move(values), std::move(shape)); }

inline OpTest Op(const std::string& op_type, int64_t opset) {
  OpTest t;
  t.op_type = op_type;
  t.opset = opset;
  return t;
}

// Runs the node and returns output `i`, failing the test on an error.
inline Tensor RunOk(const OpTest& t, size_t i = 0) {
  auto r = RunOp(t);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || r->size() <= i || !(*r)[i].is_tensor()) return Tensor();
  return (*r)[i].tensor();
}

// The run fails with a message containing `fragment`.
inline void ExpectError(const OpTest& t, const std::string& fragment) {
  auto r = RunOp(t);
  ASSERT_FALSE(r.ok()) << "expected an error mentioning '" << fragment << "'";
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().ToString();
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto s = t.values<T>();
  return {s.begin(), s.end()};
}

// A float tensor of this shape with these values (NaN matches NaN, infinities exactly, the rest within tol).
inline void ExpectFloats(const Tensor& t, const Shape& shape, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.type(), DataType::kFloat);
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.size(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    const float got = t.data<float>()[i];
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i << " is " << got;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got, expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got, expected[i], tol) << "element " << i;
    }
  }
}

}  // namespace onyx::testing
