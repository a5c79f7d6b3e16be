// Small helpers shared by the operator unit tests: tensor literals, one-node runs, value checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/value.h"
#include "op_tester.h"

namespace onyx::testing {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// n uniform values in [-scale, scale] from `seed`, comma-separated: a constant's data in the ONNX text syntax.
inline std::string RandomFloatsText(int64_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(d(rng));
  return s;
}

// n uniform values in [lo, hi) from `seed` (64-bit Mersenne twister).
// n uniform integers in [lo, hi] from `seed`, comma-separated: an integer constant's data in the ONNX text syntax.
inline std::string RandomIntsText(int64_t n, int lo, int hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(d(rng));
  return s;
}

// Replaces every `key` in `text` with `value` (filling a model template of the ONNX text syntax).
inline void ReplaceAll(std::string& text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
}

inline std::vector<float> UniformFloats(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A float tensor of standard-normal values from `seed`.
inline Tensor NormalTensor(Shape shape, uint64_t seed) {
  Tensor t = Tensor::Allocate(DataType::kFloat, std::move(shape));
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

template <typename T>
Tensor T_(std::vector<T> values, Shape shape) {
  return Tensor::FromVector<T>(values, std::move(shape));
}
inline Tensor F(std::vector<float> values, Shape shape) { return T_<float>(std::move(values), std::move(shape)); }
inline Tensor I64(std::vector<int64_t> values, Shape shape) { return T_<int64_t>(std::move(values), std::move(shape)); }
inline Tensor I32(std::vector<int32_t> values, Shape shape) { return T_<int32_t>(std::move(values), std::move(shape)); }
inline Tensor U8(std::vector<uint8_t> values, Shape shape) { return T_<uint8_t>(std::move(values), std::move(shape)); }
inline Tensor S(std::vector<std::string> values, Shape shape) {
  return T_<std::string>(std::move(values), std::move(shape));
}
// Bool tensors are filled element by element: std::vector<bool> has no contiguous storage to copy from.
inline Tensor B(std::vector<bool> values, Shape shape) {
  Tensor t = Tensor::Allocate(DataType::kBool, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i];
  return t;
}

// A node of `op_type` imported at `opset` of `domain` ("" = ai.onnx), with no inputs or attributes yet.
inline OpTest Op(const std::string& op_type, int64_t opset = 21, const std::string& domain = "") {
  OpTest t;
  t.op_type = op_type;
  t.opset = opset;
  t.domain = domain;
  return t;
}

// A list-of-strings attribute. A free function rather than an OpTest::Attr overload: a braced list of string
// literals would also convert to the std::string of Attr(name, std::string) and make such calls ambiguous.
inline OpTest& StringsAttr(OpTest& t, const std::string& name, std::vector<std::string> values) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(values);
  t.attributes.push_back(std::move(a));
  return t;
}

// Runs the node and returns all its outputs, failing the test on an error. A failed run still gives one (empty)
// value per declared output, so that a test reading outputs[i] fails on its checks instead of reading past the end.
inline std::vector<Value> RunAll(const OpTest& t) {
  auto r = RunOp(t);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return std::vector<Value>(static_cast<size_t>(t.num_outputs));
  return *r;
}

// Runs the node and returns output `i`, failing the test on an error.
inline Tensor RunOk(const OpTest& t, size_t i = 0) {
  auto r = RunOp(t);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || r->size() <= i || !(*r)[i].is_tensor()) return Tensor();
  return (*r)[i].tensor();
}

// The run fails; with a non-empty `fragment`, with a message containing it.
inline void ExpectError(const OpTest& t, const std::string& fragment = "") {
  auto r = RunOp(t);
  ASSERT_FALSE(r.ok()) << t.op_type << " unexpectedly succeeded"
                       << (fragment.empty() ? "" : "; expected an error mentioning '" + fragment + "'");
  if (!fragment.empty()) {
    EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().ToString();
  }
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto s = t.values<T>();
  return {s.begin(), s.end()};
}
// std::vector<bool> cannot be built from a span of bool storage, hence the loop.
inline std::vector<bool> Bools(const Tensor& t) {
  std::vector<bool> out;
  for (int64_t i = 0; i < t.size(); ++i) out.push_back(t.data<bool>()[i]);
  return out;
}

// A tensor value of element type T, this shape and exactly these elements.
template <typename T>
void ExpectTensor(const Value& v, const Shape& shape, const std::vector<T>& expected) {
  ASSERT_TRUE(v.is_tensor()) << "got a " << v.KindName();
  const Tensor& t = v.tensor();
  ASSERT_EQ(t.type(), DataTypeOf<T>::value);
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(t.size(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(t.data<T>()[i], expected[i]) << "element " << i;
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

// Runs `session` twice with input `name` = x (the second run on what the first prepared) and expects its first output
// to hold exactly the int32 values `want`; reports at most five differing elements a run, after `what`.
inline void ExpectRunsGiveInt32(Session& session, const std::string& name, const Tensor& x,
                                const std::vector<int64_t>& want, const std::string& what) {
  for (int run = 0; run < 2; ++run) {
    std::vector<Value> got;
    const Status st = session.Run({{name, x}}, {}, &got);
    ASSERT_TRUE(st.ok()) << st.message();
    const Tensor& y = got[0].tensor();
    ASSERT_EQ(y.size(), static_cast<int64_t>(want.size()));
    int bad = 0;
    for (size_t i = 0; i < want.size() && bad < 5; ++i) {
      if (y.data<int32_t>()[i] != want[i]) {
        ADD_FAILURE() << what << "run " << run << " element " << i << ": " << y.data<int32_t>()[i] << " vs " << want[i];
        ++bad;
      }
    }
  }
}

}  // namespace onyx::testing
