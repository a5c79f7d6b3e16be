// Unit tests of the TensorOps family (shape and data movement): what the ONNX backend suite leaves out: empty
// tensors, strings and sub-byte types, negative axes and indices, clamping, every attribute/input version form,
// reductions with duplicate indices, NaN handling in Unique, seeded Dropout, and bad input giving an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "format/tensor_proto.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using namespace testing;  // NOLINT: the shared op-test helpers
using testing::I64;       // with the one-dimensional form below

Tensor I64(std::vector<int64_t> values) {
  Shape s = {static_cast<int64_t>(values.size())};
  return I64(std::move(values), s);
}

// An int4 tensor from values in [-8, 7], packed two per byte (first element in the low nibble).
Tensor Int4(std::vector<int> values, Shape shape) {
  Tensor t = Tensor::Allocate(DataType::kInt4, std::move(shape), /*zero=*/true);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t& byte = t.data<uint8_t>()[i / 2];
    byte = static_cast<uint8_t>(byte | ((values[i] & 0xf) << (i % 2 ? 4 : 0)));
  }
  return t;
}
std::vector<int> Int4Values(const Tensor& t) {
  std::vector<int> out;
  for (int64_t i = 0; i < t.size(); ++i) {
    int v = (t.data<uint8_t>()[i / 2] >> (i % 2 ? 4 : 0)) & 0xf;
    out.push_back(v >= 8 ? v - 16 : v);
  }
  return out;
}

Value Omitted() { return Value(); }

ir::Attribute TensorAttr(const std::string& name, Tensor t) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kTensor;
  a.t.tensor = std::move(t);
  return a;
}

// ---- Reshape, Squeeze, Unsqueeze, Flatten, Shape, Size, Identity ----

TEST(TensorOpsReshape, ZeroCopiesAndMinusOneInfers) {
  Tensor out = RunOk(
      Op("Reshape")
          .Input(F({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}, {2, 3, 4}))
          .Input(I64({0, -1, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 6, 2}));
  EXPECT_EQ(Values<float>(out)[23], 24.0f);
}

TEST(TensorOpsReshape, AllowZeroKeepsLiteralZero) {
  Tensor out = RunOk(Op("Reshape", 14).Attr("allowzero", int64_t{1}).Input(F({}, {0, 3})).Input(I64({3, 0})));
  EXPECT_EQ(out.shape(), (Shape{3, 0}));
  // Without allowzero, the 0 copies the input's dimension.
  out = RunOk(Op("Reshape", 14).Input(F({}, {0, 3})).Input(I64({0, 3, 1})));
  EXPECT_EQ(out.shape(), (Shape{0, 3, 1}));
}

TEST(TensorOpsReshape, Errors) {
  ExpectError(Op("Reshape").Input(F({1, 2, 3, 4}, {4})).Input(I64({-1, -1})), "more than one -1");
  ExpectError(Op("Reshape").Input(F({1, 2, 3, 4}, {4})).Input(I64({3, -1})), "cannot");
  ExpectError(Op("Reshape").Input(F({1, 2, 3, 4}, {4})).Input(I64({5})), "cannot reshape");
  ExpectError(Op("Reshape").Attr("allowzero", int64_t{1}).Input(F({}, {0})).Input(I64({0, -1})), "allowzero");
  ExpectError(Op("Reshape").Input(F({1, 2, 3, 4}, {4})).Input(I64({-2, -2})), "invalid dimension");
}

TEST(TensorOpsReshape, Version1UsesAttribute) {
  Tensor out = RunOk(Op("Reshape", 4).Attr("shape", std::vector<int64_t>{2, -1}).Input(S({"a", "b", "c", "d"}, {4})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"a", "b", "c", "d"}));
  ExpectError(Op("Reshape", 4).Input(F({1}, {1})), "'shape'");
}

TEST(TensorOpsSqueeze, AllOnesAxesInputAndAttribute) {
  EXPECT_EQ(RunOk(Op("Squeeze").Input(F({1, 2}, {1, 2, 1}))).shape(), (Shape{2}));
  EXPECT_EQ(RunOk(Op("Squeeze").Input(F({1, 2}, {1, 2, 1})).Input(I64({-1}))).shape(), (Shape{1, 2}));
  EXPECT_EQ(RunOk(Op("Squeeze", 11).Attr("axes", std::vector<int64_t>{0}).Input(F({1, 2}, {1, 2, 1}))).shape(),
            (Shape{2, 1}));
  ExpectError(Op("Squeeze").Input(F({1, 2}, {1, 2, 1})).Input(I64({1})), "not 1");
  ExpectError(Op("Squeeze").Input(F({1, 2}, {1, 2, 1})).Input(I64({3})), "out of range");
}

TEST(TensorOpsUnsqueeze, NegativeAndUnsortedAxes) {
  Tensor out = RunOk(Op("Unsqueeze").Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(I64({-1, 0})));
  EXPECT_EQ(out.shape(), (Shape{1, 2, 3, 1}));
  out = RunOk(Op("Unsqueeze", 11).Attr("axes", std::vector<int64_t>{0, -1}).Input(F({7}, {})));
  EXPECT_EQ(out.shape(), (Shape{1, 1}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{7}));
  ExpectError(Op("Unsqueeze").Input(F({1}, {1})).Input(I64({0, 0})), "repeated");
  ExpectError(Op("Unsqueeze", 11).Input(F({1}, {1})), "axes");
}

TEST(TensorOpsFlatten, AxisZeroAndNegative) {
  Tensor x = F(std::vector<float>(24, 1.0f), {2, 3, 4});
  EXPECT_EQ(RunOk(Op("Flatten").Attr("axis", int64_t{0}).Input(x)).shape(), (Shape{1, 24}));
  EXPECT_EQ(RunOk(Op("Flatten").Attr("axis", int64_t{-1}).Input(x)).shape(), (Shape{6, 4}));
  EXPECT_EQ(RunOk(Op("Flatten").Attr("axis", int64_t{3}).Input(x)).shape(), (Shape{24, 1}));
  EXPECT_EQ(RunOk(Op("Flatten").Input(F({}, {2, 0, 3}))).shape(), (Shape{2, 0}));
  ExpectError(Op("Flatten").Attr("axis", int64_t{4}).Input(x), "out of range");
  ExpectError(Op("Flatten", 9).Attr("axis", int64_t{-1}).Input(x), "negative");
}

TEST(TensorOpsShape, StartEndClampAndSize) {
  Tensor x = F(std::vector<float>(24, 0.0f), {2, 3, 4});
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Shape").Input(x))), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Shape").Attr("start", int64_t{-2}).Input(x))), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Shape").Attr("start", int64_t{-10}).Attr("end", int64_t{1}).Input(x))),
            (std::vector<int64_t>{2}));
  EXPECT_EQ(RunOk(Op("Shape").Attr("start", int64_t{2}).Attr("end", int64_t{1}).Input(x)).shape(), (Shape{0}));
  EXPECT_EQ(RunOk(Op("Shape").Input(F({1}, {}))).shape(), (Shape{0}));
  Tensor size = RunOk(Op("Size").Input(S({"a", "b", "c"}, {3, 1})));
  EXPECT_EQ(size.shape(), Shape{});
  EXPECT_EQ(Values<int64_t>(size), (std::vector<int64_t>{3}));
}

TEST(TensorOpsIdentity, PassesSequencesAndEmptyOptionals) {
  SequenceValue seq;
  seq.elem_type = DataType::kFloat;
  seq.items.push_back(F({1, 2}, {2}));
  seq.items.push_back(F({3}, {1}));
  auto out = RunAll(Op("Identity").Input(Value(seq)));
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].is_sequence());
  ASSERT_EQ(out[0].sequence().items.size(), 2u);
  EXPECT_EQ(Values<float>(out[0].sequence().items[1].tensor()), (std::vector<float>{3}));
  out = RunAll(Op("Identity").Input(Value::None()));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].is_none());
  EXPECT_EQ(Values<std::string>(RunOk(Op("Identity").Input(S({"x"}, {1})))), (std::vector<std::string>{"x"}));
}

// ---- Transpose, DepthToSpace, SpaceToDepth ----

TEST(TensorOpsTranspose, DefaultPermStringsAndInt4) {
  Tensor out = RunOk(Op("Transpose").Input(S({"a", "b", "c", "d", "e", "f"}, {2, 3})));
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
  out = RunOk(Op("Transpose").Input(Int4({1, -2, 3, -4, 5, -6}, {2, 3})));
  EXPECT_EQ(out.type(), DataType::kInt4);
  EXPECT_EQ(Int4Values(out), (std::vector<int>{1, -4, -2, 5, 3, -6}));
  out = RunOk(Op("Transpose").Attr("perm", std::vector<int64_t>{1, 2, 0}).Input(F({1, 2, 3, 4}, {1, 2, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(RunOk(Op("Transpose").Input(F({}, {0, 3}))).shape(), (Shape{3, 0}));
  ExpectError(Op("Transpose").Attr("perm", std::vector<int64_t>{0, 0}).Input(F({1, 2}, {1, 2})), "permutation");
  ExpectError(Op("Transpose").Attr("perm", std::vector<int64_t>{0}).Input(F({1, 2}, {1, 2})), "rank");
}

// Transposes take a tiled path for 1-, 2-, 4- and 8-byte elements (vector registers for full tiles of 1 and 4); every
// permutation of awkward 4-D shapes (tile remainders, size-1 axes that collapse away) must match the element-by-element
// definition.
template <typename T>
void ExpectTransposesMatchDefinition(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<T> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<T>(i % 251);
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    Tensor out = RunOk(Op("Transpose").Attr("perm", perm).Input(T_<T>(values, shape)));
    Shape out_shape(4);
    for (size_t i = 0; i < 4; ++i) out_shape[i] = shape[static_cast<size_t>(perm[i])];
    ASSERT_EQ(out.shape(), out_shape);
    const std::vector<T> got = Values<T>(out);
    int64_t in_strides[4];
    in_strides[3] = 1;
    for (int i = 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * shape[static_cast<size_t>(i) + 1];
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t o = 0; o < n; ++o) {
      int64_t src = 0;
      for (size_t i = 0; i < 4; ++i) src += idx[i] * in_strides[perm[i]];
      ASSERT_EQ(got[static_cast<size_t>(o)], values[static_cast<size_t>(src)])
          << "perm " << perm[0] << perm[1] << perm[2] << perm[3] << " at " << o;
      for (int i = 3; i >= 0; --i) {
        if (++idx[i] < out_shape[static_cast<size_t>(i)]) break;
        idx[i] = 0;
      }
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TensorOpsTranspose, EveryPermutationOfAwkwardShapes) {
  ExpectTransposesMatchDefinition<float>({2, 17, 33, 5});
  ExpectTransposesMatchDefinition<float>({1, 40, 1, 19});
  ExpectTransposesMatchDefinition<uint8_t>({3, 18, 7, 20});
  ExpectTransposesMatchDefinition<uint16_t>({5, 16, 16, 3});
  ExpectTransposesMatchDefinition<int64_t>({2, 3, 31, 17});
  // Full 16 x 16 tiles through vector registers (1- and 4-byte values), with remainders, split between threads.
  ExpectTransposesMatchDefinition<uint8_t>({2, 35, 33, 50});
  ExpectTransposesMatchDefinition<float>({1, 48, 40, 37});
  ExpectTransposesMatchDefinition<int32_t>({3, 16, 32, 17});
}

// Groups of 2-4 values next to each other on one side (an RGB image's NCHW <-> NHWC) are copied a group at a time,
// 4096 groups per work item: past one chunk, with outer axes and each element size.
TEST(TensorOpsTranspose, SmallGroupsInterleavedAndSplitPastAChunk) {
  ExpectTransposesMatchDefinition<uint8_t>({2, 3, 70, 61});
  ExpectTransposesMatchDefinition<float>({1, 4, 67, 65});
  ExpectTransposesMatchDefinition<uint16_t>({2, 2, 97, 43});
  ExpectTransposesMatchDefinition<int64_t>({3, 2, 33, 129});
}

TEST(TensorOpsDepthToSpace, CrdAndRoundTripThroughSpaceToDepth) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  Tensor x = F(v, {1, 4, 2, 2});
  Tensor crd = RunOk(Op("DepthToSpace").Attr("blocksize", int64_t{2}).Attr("mode", std::string("CRD")).Input(x));
  EXPECT_EQ(crd.shape(), (Shape{1, 1, 4, 4}));
  EXPECT_EQ(Values<float>(crd), (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  // SpaceToDepth inverts DepthToSpace in DCR mode.
  Tensor dcr = RunOk(Op("DepthToSpace").Attr("blocksize", int64_t{2}).Input(x));
  Tensor back = RunOk(Op("SpaceToDepth").Attr("blocksize", int64_t{2}).Input(dcr));
  EXPECT_EQ(back.shape(), x.shape());
  EXPECT_EQ(Values<float>(back), v);
  ExpectError(Op("DepthToSpace").Attr("blocksize", int64_t{3}).Input(x), "multiple");
  ExpectError(Op("DepthToSpace").Attr("blocksize", int64_t{0}).Input(x), "blocksize");
  ExpectError(Op("DepthToSpace").Attr("blocksize", int64_t{2}).Attr("mode", std::string("XYZ")).Input(x), "mode");
  ExpectError(Op("SpaceToDepth").Attr("blocksize", int64_t{3}).Input(x), "multiples");
}

// ---- Concat, Split ----

// Large Concats copy their contiguous runs on several threads (one long run split into chunks, or many runs
// split between threads); every element must land where the definition puts it.
TEST(TensorOpsConcat, LargeRunsSplitAcrossThreads) {
  auto make = [](const Shape& shape, float base) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = base + static_cast<float>(i);
    return T_<float>(v, shape);
  };
  for (int64_t axis : {0, 1, 2}) {
    Shape sa{3, 50, 1001}, sb{3, 50, 1001};
    sb[static_cast<size_t>(axis)] = axis == 0 ? 2 : (axis == 1 ? 7 : 333);
    Tensor a = make(sa, 0.0f), b = make(sb, 1e6f);
    Tensor out = RunOk(Op("Concat").Attr("axis", axis).Input(a).Input(b));
    Shape so = sa;
    so[static_cast<size_t>(axis)] += sb[static_cast<size_t>(axis)];
    ASSERT_EQ(out.shape(), so);
    const std::vector<float> got = Values<float>(out);
    const std::vector<float> va = Values<float>(a), vb = Values<float>(b);
    size_t o = 0;
    for (int64_t i = 0; i < so[0]; ++i) {
      for (int64_t j = 0; j < so[1]; ++j) {
        for (int64_t k = 0; k < so[2]; ++k, ++o) {
          const int64_t idx[3] = {i, j, k};
          const bool from_a = idx[axis] < sa[static_cast<size_t>(axis)];
          int64_t p[3] = {i, j, k};
          if (!from_a) p[axis] -= sa[static_cast<size_t>(axis)];
          const Shape& s = from_a ? sa : sb;
          const size_t at = static_cast<size_t>((p[0] * s[1] + p[1]) * s[2] + p[2]);
          ASSERT_EQ(got[o], from_a ? va[at] : vb[at]) << "axis " << axis << " at " << o;
        }
      }
    }
  }
}

TEST(TensorOpsConcat, NegativeAxisEmptyInputsAndStrings) {
  Tensor out = RunOk(Op("Concat")
                         .Attr("axis", int64_t{-1})
                         .Input(F({1, 2}, {2, 1}))
                         .Input(F({}, {2, 0}))
                         .Input(F({3, 4, 5, 6}, {2, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  out = RunOk(Op("Concat").Attr("axis", int64_t{0}).Input(S({"a"}, {1})).Input(S({"b", "c"}, {2})));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"a", "b", "c"}));
  ExpectError(Op("Concat").Attr("axis", int64_t{0}).Input(F({1, 2}, {1, 2})).Input(F({1, 2, 3}, {1, 3})),
              "does not match");
  ExpectError(Op("Concat").Attr("axis", int64_t{2}).Input(F({1, 2}, {1, 2})), "out of range");
  ExpectError(Op("Concat").Input(F({1, 2}, {1, 2})), "axis");
}

TEST(TensorOpsSplit, UnevenNumOutputsAndSplitForms) {
  OpTest t = Op("Split", 18).Attr("num_outputs", int64_t{3}).Input(I64({1, 2, 3, 4, 5, 6, 7}));
  t.num_outputs = 3;
  auto out = RunAll(t);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values<int64_t>(out[0].tensor()), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Values<int64_t>(out[1].tensor()), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(Values<int64_t>(out[2].tensor()), (std::vector<int64_t>{7}));

  OpTest s = Op("Split", 13).Attr("axis", int64_t{-1}).Input(F({1, 2, 3, 4, 5, 6}, {2, 3})).Input(I64({0, 1, 2}));
  s.num_outputs = 3;
  out = RunAll(s);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 0}));
  EXPECT_EQ(Values<float>(out[1].tensor()), (std::vector<float>{1, 4}));
  EXPECT_EQ(Values<float>(out[2].tensor()), (std::vector<float>{2, 3, 5, 6}));

  OpTest a = Op("Split", 11).Attr("split", std::vector<int64_t>{1, 3}).Input(S({"a", "b", "c", "d"}, {4}));
  a.num_outputs = 2;
  out = RunAll(a);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<std::string>(out[1].tensor()), (std::vector<std::string>{"b", "c", "d"}));

  OpTest uneven = Op("Split", 13).Input(F({1, 2, 3}, {3}));
  uneven.num_outputs = 2;
  ExpectError(uneven, "evenly");
  OpTest bad_sum = Op("Split", 13).Input(F({1, 2, 3}, {3})).Input(I64({1, 1}));
  bad_sum.num_outputs = 2;
  ExpectError(bad_sum, "sums to");
  OpTest mismatch = Op("Split", 18).Attr("num_outputs", int64_t{2}).Input(F({1, 2, 3}, {3}));
  mismatch.num_outputs = 3;
  ExpectError(mismatch, "num_outputs");
}

// ---- Slice ----

TEST(TensorOpsSlice, NegativeStepsAndClamping) {
  Tensor x = I64({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Values<int64_t>(
                RunOk(Op("Slice").Input(x).Input(I64({kMax})).Input(I64({kMin})).Input(I64({0})).Input(I64({-3})))),
            (std::vector<int64_t>{9, 6, 3, 0}));
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Slice").Input(x).Input(I64({-3})).Input(I64({kMax})))),
            (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(
      Values<int64_t>(RunOk(Op("Slice").Input(x).Input(I64({8})).Input(I64({-100})).Input(Omitted()).Input(I64({-2})))),
      (std::vector<int64_t>{8, 6, 4, 2, 0}));
  EXPECT_EQ(RunOk(Op("Slice").Input(x).Input(I64({5})).Input(I64({2}))).shape(), (Shape{0}));
  EXPECT_EQ(
      RunOk(Op("Slice").Input(F({}, {0})).Input(I64({0})).Input(I64({-1})).Input(I64({0})).Input(I64({-1}))).shape(),
      (Shape{0}));
  ExpectError(Op("Slice").Input(x).Input(I64({0})).Input(I64({5})).Input(I64({0})).Input(I64({0})), "steps");
  ExpectError(Op("Slice").Input(x).Input(I64({0, 0})).Input(I64({5})), "entries");
  ExpectError(Op("Slice").Input(x).Input(I64({0})).Input(I64({5})).Input(I64({1})), "out of range");
}

TEST(TensorOpsSlice, TwoDimensionalStringsAndVersion1) {
  Tensor x = S({"a", "b", "c", "d", "e", "f"}, {2, 3});
  Tensor out =
      RunOk(Op("Slice").Input(x).Input(I64({-1, 2})).Input(I64({-3, 0})).Input(I64({1, 0})).Input(I64({-1, -1})));
  EXPECT_EQ(out.shape(), (Shape{1, 2}));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"f", "e"}));
  out = RunOk(Op("Slice", 9)
                  .Attr("starts", std::vector<int64_t>{1})
                  .Attr("ends", std::vector<int64_t>{1000})
                  .Attr("axes", std::vector<int64_t>{1})
                  .Input(x));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"b", "c", "e", "f"}));
}

// ---- Gather family ----

TEST(TensorOpsGather, NegativeIndicesScalarIndexAndErrors) {
  Tensor x = F({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor out = RunOk(Op("Gather").Input(x).Input(I64({-1, 0}, {2})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{5, 6, 1, 2}));
  out = RunOk(Op("Gather").Attr("axis", int64_t{-1}).Input(x).Input(T_<int32_t>({1}, {})));
  EXPECT_EQ(out.shape(), (Shape{3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{2, 4, 6}));
  out = RunOk(Op("Gather").Input(S({"x", "y"}, {2})).Input(I64({1, 1, 0}, {3})));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"y", "y", "x"}));
  EXPECT_EQ(RunOk(Op("Gather").Input(x).Input(I64({}, {0}))).shape(), (Shape{0, 2}));
  ExpectError(Op("Gather").Input(x).Input(I64({3})), "out of range");
  ExpectError(Op("Gather").Input(x).Input(I64({-4})), "out of range");
  ExpectError(Op("Gather").Input(x).Input(F({0}, {1})), "int32 or int64");
}

TEST(TensorOpsGatherElements, MiddleAxisInt32IndicesSmallerThanData) {
  // data [2, 3, 2]; indices [2, 2, 1] (int32) along axis 1: out[i][j][k] = data[i][idx[i][j][k]][k], only k = 0.
  Tensor data = F({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 3, 2});
  Tensor out = RunOk(Op("GatherElements").Attr("axis", int64_t{1}).Input(data).Input(I32({2, 0, -2, 1}, {2, 2, 1})));
  EXPECT_EQ(out.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{4, 0, 8, 8}));
  ExpectError(Op("GatherElements").Attr("axis", int64_t{1}).Input(data).Input(I32({3, 0, 0, 0}, {2, 2, 1})),
              "out of range");
}

TEST(TensorOpsGatherElements, NegativeAxisAndIndices) {
  Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor out = RunOk(Op("GatherElements").Attr("axis", int64_t{-1}).Input(x).Input(I64({-1, 0, 1, 1}, {2, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{3, 1, 5, 5}));
  ExpectError(Op("GatherElements").Input(x).Input(I64({2, 0, 0}, {1, 3})), "out of range");
  ExpectError(Op("GatherElements").Input(x).Input(I64({0}, {1})), "rank");
}

TEST(TensorOpsGatherND, BatchDimsAndSlices) {
  Tensor x = I64({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  Tensor out = RunOk(Op("GatherND").Attr("batch_dims", int64_t{1}).Input(x).Input(I64({1, 0}, {2, 1})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{2, 3, 4, 5}));
  out = RunOk(Op("GatherND").Input(x).Input(I64({-1, 0, 0, 1}, {2, 2})));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{4, 5, 2, 3}));
  ExpectError(Op("GatherND").Input(x).Input(I64({2}, {1, 1})), "out of range");
  ExpectError(Op("GatherND").Input(x).Input(I64({0, 0, 0, 0}, {1, 4})), "last dimension");
}

// ---- Scatter family ----

TEST(TensorOpsScatterElements, ReductionsWithDuplicateIndices) {
  Tensor data = F({1, 1, 1, 1}, {1, 4});
  Tensor idx = I64({1, 1, -1}, {1, 3});
  Tensor upd = F({2, 3, 5}, {1, 3});
  EXPECT_EQ(Values<float>(RunOk(Op("ScatterElements", 16)
                                    .Attr("axis", int64_t{1})
                                    .Attr("reduction", std::string("add"))
                                    .Input(data)
                                    .Input(idx)
                                    .Input(upd))),
            (std::vector<float>{1, 6, 1, 6}));
  EXPECT_EQ(Values<float>(RunOk(Op("ScatterElements", 16)
                                    .Attr("axis", int64_t{1})
                                    .Attr("reduction", std::string("mul"))
                                    .Input(data)
                                    .Input(idx)
                                    .Input(upd))),
            (std::vector<float>{1, 6, 1, 5}));
  EXPECT_EQ(Values<float>(RunOk(Op("ScatterElements", 18)
                                    .Attr("axis", int64_t{1})
                                    .Attr("reduction", std::string("min"))
                                    .Input(data)
                                    .Input(idx)
                                    .Input(upd))),
            (std::vector<float>{1, 1, 1, 1}));
  // Without a reduction the last write wins.
  EXPECT_EQ(Values<float>(RunOk(Op("ScatterElements").Attr("axis", int64_t{1}).Input(data).Input(idx).Input(upd))),
            (std::vector<float>{1, 3, 1, 5}));
  ExpectError(Op("ScatterElements", 16).Attr("reduction", std::string("max")).Input(data).Input(idx).Input(upd),
              "reduction");
  ExpectError(Op("ScatterElements").Attr("axis", int64_t{1}).Input(data).Input(I64({4}, {1, 1})).Input(F({0}, {1, 1})),
              "out of range");
}

TEST(TensorOpsScatterElements, MiddleAxisInt32IndicesSmallerThanData) {
  // data [2, 3, 2]; indices [2, 2, 1] (int32) along axis 1: out[i][idx[i][j][k]][k] = upd[i][j][k], only k = 0.
  Tensor data = F({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 3, 2});
  Tensor idx = I32({2, 0, -2, 1}, {2, 2, 1});
  Tensor upd = F({-1, -2, -3, -4}, {2, 2, 1});
  EXPECT_EQ(Values<float>(RunOk(Op("ScatterElements").Attr("axis", int64_t{1}).Input(data).Input(idx).Input(upd))),
            (std::vector<float>{-2, 1, 2, 3, -1, 5, 6, 7, -4, 9, 10, 11}));
  // The last axis: each row of the indices addresses its own row of data.
  Tensor idx_last = I32({1, 1, 0, 1, 0, 0}, {3, 2});
  Tensor data_last = F({0, 0, 0, 0, 0, 0}, {3, 2});
  Tensor upd_last = F({1, 2, 3, 4, 5, 6}, {3, 2});
  EXPECT_EQ(Values<float>(RunOk(Op("ScatterElements", 16)
                                    .Attr("axis", int64_t{-1})
                                    .Attr("reduction", std::string("add"))
                                    .Input(data_last)
                                    .Input(idx_last)
                                    .Input(upd_last))),
            (std::vector<float>{0, 3, 3, 4, 11, 0}));
  ExpectError(Op("ScatterElements").Attr("axis", int64_t{1}).Input(data).Input(I32({3, 0, 0, 0}, {2, 2, 1})).Input(upd),
              "out of range");
}

TEST(TensorOpsScatter, OldOperatorAndStrings) {
  Tensor out =
      RunOk(Op("Scatter", 10).Input(S({"a", "b", "c"}, {3})).Input(I64({2, 0}, {2})).Input(S({"z", "y"}, {2})));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"y", "b", "z"}));
}

TEST(TensorOpsScatterND, SlicesAndReductions) {
  Tensor data = I64({1, 2, 3, 4}, {2, 2});
  Tensor out = RunOk(Op("ScatterND").Input(data).Input(I64({-1}, {1, 1})).Input(I64({7, 8}, {1, 2})));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 2, 7, 8}));
  out = RunOk(Op("ScatterND", 18)
                  .Attr("reduction", std::string("max"))
                  .Input(data)
                  .Input(I64({0, 1, 0, 1}, {2, 2}))
                  .Input(I64({5, 1}, {2})));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 5, 3, 4}));
  out = RunOk(Op("ScatterND", 16)
                  .Attr("reduction", std::string("mul"))
                  .Input(data)
                  .Input(I64({0, 0}, {2, 1}))
                  .Input(I64({2, 3, 4, 5}, {2, 2})));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{8, 30, 3, 4}));
  ExpectError(Op("ScatterND").Input(data).Input(I64({0}, {1, 1})).Input(I64({7}, {1})), "shape");
}

// ---- Expand, Tile ----

TEST(TensorOpsExpand, BidirectionalBroadcast) {
  Tensor out = RunOk(Op("Expand").Input(F({1, 2, 3}, {3, 1})).Input(I64({2, 1, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  // A smaller shape keeps the input's dimensions.
  EXPECT_EQ(RunOk(Op("Expand").Input(F({1, 2, 3}, {3, 1})).Input(I64({1}))).shape(), (Shape{3, 1}));
  EXPECT_EQ(RunOk(Op("Expand").Input(F({1}, {1})).Input(I64({0}))).shape(), (Shape{0}));
  ExpectError(Op("Expand").Input(F({1, 2, 3}, {3})).Input(I64({2})), "broadcast");
}

TEST(TensorOpsTile, RepeatsZeroAndStrings) {
  Tensor out = RunOk(Op("Tile").Input(S({"a", "b"}, {1, 2})).Input(I64({2, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 4}));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"a", "b", "a", "b", "a", "b", "a", "b"}));
  EXPECT_EQ(RunOk(Op("Tile").Input(F({1, 2}, {2})).Input(I64({0}))).shape(), (Shape{0}));
  ExpectError(Op("Tile").Input(F({1, 2}, {2})).Input(I64({1, 1})), "rank");
  ExpectError(Op("Tile").Input(F({1, 2}, {2})).Input(I64({-1})), "negative");
}

// ---- Pad ----

TEST(TensorOpsPad, ModesOnOneAxis) {
  Tensor x = F({1, 2, 3}, {3});
  auto pad = [&](const std::string& mode, std::vector<int64_t> pads) {
    return Values<float>(RunOk(Op("Pad").Attr("mode", mode).Input(x).Input(I64(std::move(pads)))));
  };
  EXPECT_EQ(pad("constant", {2, 1}), (std::vector<float>{0, 0, 1, 2, 3, 0}));
  EXPECT_EQ(pad("reflect", {2, 3}), (std::vector<float>{3, 2, 1, 2, 3, 2, 1, 2}));
  EXPECT_EQ(pad("edge", {2, 1}), (std::vector<float>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(pad("wrap", {2, 4}), (std::vector<float>{2, 3, 1, 2, 3, 1, 2, 3, 1}));
  EXPECT_EQ(pad("constant", {-1, 1}), (std::vector<float>{2, 3, 0}));
  EXPECT_EQ(pad("edge", {-2, -1}), (std::vector<float>{}));
}

// Reflect, edge and wrap over every axis of a 3-D tensor, pads of both signs (the last axis cut on one side and
// grown past its size on the other), against the per-element definition of each mode.
TEST(TensorOpsPad, ModesOnEveryAxisMatchTheDefinition) {
  const Shape in_shape{3, 4, 7};
  std::vector<float> x(3 * 4 * 7);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  auto source = [](const std::string& mode, int64_t i, int64_t dim) {
    if (i >= 0 && i < dim) return i;
    if (mode == "edge") return i < 0 ? int64_t{0} : dim - 1;
    if (mode == "wrap") return ((i % dim) + dim) % dim;
    const int64_t period = 2 * (dim - 1);  // reflect
    int64_t r = ((i % period) + period) % period;
    return r >= dim ? period - r : r;
  };
  const std::vector<std::vector<int64_t>> pad_sets = {{1, 2, 3, 2, 1, 5}, {0, -1, -2, 1, 3, 6}, {2, 0, 9, 0, 2, -3}};
  for (const std::string mode : {"reflect", "edge", "wrap"}) {
    for (const auto& pads : pad_sets) {
      if (mode == "reflect" && (pads[2] > 6 || pads[5] > 6)) continue;  // reflect needs pads below the size
      SCOPED_TRACE(mode + " pads " + ShapeToString(pads));
      const Tensor out = RunOk(Op("Pad", 19).Attr("mode", mode).Input(F(x, in_shape)).Input(I64(pads, {6})));
      Shape want_shape(3);
      for (size_t d = 0; d < 3; ++d) want_shape[d] = in_shape[d] + pads[d] + pads[d + 3];
      ASSERT_EQ(out.shape(), want_shape);
      int64_t k = 0;
      for (int64_t a = 0; a < want_shape[0]; ++a)
        for (int64_t b = 0; b < want_shape[1]; ++b)
          for (int64_t c = 0; c < want_shape[2]; ++c, ++k) {
            const int64_t ia = source(mode, a - pads[0], 3), ib = source(mode, b - pads[1], 4),
                          ic = source(mode, c - pads[2], 7);
            ASSERT_EQ(out.data<float>()[k], x[static_cast<size_t>((ia * 4 + ib) * 7 + ic)])
                << a << "," << b << "," << c;
          }
    }
  }
}

TEST(TensorOpsPad, AxesConstantValueAndVersions) {
  Tensor x = F({1, 2, 3, 4}, {2, 2});
  Tensor out = RunOk(Op("Pad", 18).Input(x).Input(I64({1, 0})).Input(F({9}, {})).Input(I64({-1})));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{9, 1, 2, 9, 3, 4}));
  out = RunOk(Op("Pad", 2).Attr("pads", std::vector<int64_t>{0, 1, 0, 0}).Attr("value", 7.5f).Input(x));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{7.5f, 1, 2, 7.5f, 3, 4}));
  out = RunOk(Op("Pad", 1).Attr("paddings", std::vector<int64_t>{1, 0, 0, 0}).Input(x));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 0, 1, 2, 3, 4}));
  out = RunOk(Op("Pad").Input(S({"a"}, {1})).Input(I64({1, 1})).Input(S({"-"}, {})));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"-", "a", "-"}));
  out = RunOk(Op("Pad").Attr("mode", std::string("reflect")).Input(Int4({-3, 5}, {2})).Input(I64({1, 1})));
  EXPECT_EQ(Int4Values(out), (std::vector<int>{5, -3, 5, -3}));
  ExpectError(Op("Pad").Input(x).Input(I64({1, 1})), "entries");
  ExpectError(Op("Pad").Input(x).Input(I64({-3, 0, 0, 0})), "remove");
  ExpectError(Op("Pad").Attr("mode", std::string("edge")).Input(F({}, {0})).Input(I64({1, 0})), "size 0");
  ExpectError(Op("Pad", 18).Attr("mode", std::string("wrap")).Input(x).Input(I64({1, 1, 1, 1})), "mode");
  ExpectError(Op("Pad").Input(x).Input(I64({1, 1, 1, 1})).Input(I64({0}, {})), "constant_value");
}

// ---- Constant family ----

TEST(TensorOpsConstant, AttributeForms) {
  Tensor out = RunOk(Op("Constant").Attr("value_ints", std::vector<int64_t>{4, 5}));
  EXPECT_EQ(out.type(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{4, 5}));
  out = RunOk(Op("Constant").Attr("value_float", 2.5f));
  EXPECT_EQ(out.shape(), Shape{});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{2.5f}));
  out = RunOk(Op("Constant").Attr("value_string", std::string("hi")));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"hi"}));
  OpTest t = Op("Constant");
  t.attributes.push_back(TensorAttr("value", S({"p", "q"}, {2, 1})));
  out = RunOk(t);
  EXPECT_EQ(out.shape(), (Shape{2, 1}));
  EXPECT_EQ(Values<std::string>(out), (std::vector<std::string>{"p", "q"}));
  ExpectError(Op("Constant"), "exactly one");
  ExpectError(Op("Constant").Attr("value_int", int64_t{1}).Attr("value_float", 1.0f), "exactly one");
}

TEST(TensorOpsConstant, SparseValueIsDensified) {
  auto sparse_attr = [](Tensor values, Tensor indices, std::vector<int64_t> dims) {
    pb::SparseTensorProto proto;
    format::TensorToProto(values, proto.mutable_values());
    format::TensorToProto(indices, proto.mutable_indices());
    for (int64_t d : dims) proto.add_dims(d);
    ir::Attribute a;
    a.name = "sparse_value";
    a.type = ir::AttrType::kSparseTensor;
    a.sparse_tensor = proto.SerializeAsString();
    return a;
  };
  OpTest linear = Op("Constant");
  linear.attributes.push_back(sparse_attr(F({5, 7}, {2}), I64({1, 4}), {2, 3}));
  Tensor out = RunOk(linear);
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0, 5, 0, 0, 7, 0}));
  OpTest coords = Op("Constant");
  coords.attributes.push_back(sparse_attr(I64({9}), I64({1, 2}, {1, 2}), {2, 3}));
  EXPECT_EQ(Values<int64_t>(RunOk(coords)), (std::vector<int64_t>{0, 0, 0, 0, 0, 9}));
  OpTest bad = Op("Constant");
  bad.attributes.push_back(sparse_attr(F({5}, {1}), I64({6}), {2, 3}));
  ExpectError(bad, "out of range");
}

TEST(TensorOpsConstantOfShape, ValueAndEmptyShape) {
  OpTest t = Op("ConstantOfShape");
  t.attributes.push_back(TensorAttr("value", T_<int32_t>({7}, {1})));
  Tensor out = RunOk(t.Input(I64({2, 3})));
  EXPECT_EQ(out.type(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>(out), std::vector<int32_t>(6, 7));
  out = RunOk(Op("ConstantOfShape").Input(I64({}, {0})));
  EXPECT_EQ(out.shape(), Shape{});
  EXPECT_EQ(Values<float>(out), (std::vector<float>{0}));
  EXPECT_EQ(RunOk(Op("ConstantOfShape").Input(I64({2, 0}))).size(), 0);
  ExpectError(Op("ConstantOfShape").Input(I64({-1})), "negative");
  OpTest two = Op("ConstantOfShape");
  two.attributes.push_back(TensorAttr("value", F({1, 2}, {2})));
  ExpectError(two.Input(I64({1})), "exactly one");
}

TEST(TensorOpsConstantOfShape, PackedInt4ValueKeepsThePaddingBitsZero) {
  // int4 -3 is the nibble 0xD; three of them fill one byte and the low half of the next, whose high half stays 0.
  Tensor value = Tensor::Allocate(DataType::kInt4, {1}, /*zero=*/true);
  value.data<uint8_t>()[0] = 0x0D;
  OpTest t = Op("ConstantOfShape", 21);
  t.attributes.push_back(TensorAttr("value", value));
  Tensor out = RunOk(t.Input(I64({3}, {1})));
  ASSERT_EQ(out.type(), DataType::kInt4);
  ASSERT_EQ(out.nbytes(), 2u);
  EXPECT_EQ(out.data<uint8_t>()[0], 0xDD);
  EXPECT_EQ(out.data<uint8_t>()[1], 0x0D);
}

TEST(TensorOpsRange, IntegerAndFloatCounts) {
  EXPECT_EQ(Values<int32_t>(RunOk(
                Op("Range").Input(T_<int32_t>({10}, {})).Input(T_<int32_t>({4}, {})).Input(T_<int32_t>({-3}, {})))),
            (std::vector<int32_t>{10, 7}));
  EXPECT_EQ(Values<float>(RunOk(Op("Range").Input(F({0}, {})).Input(F({1}, {})).Input(F({0.25f}, {})))),
            (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  EXPECT_EQ(RunOk(Op("Range").Input(I64({5}, {})).Input(I64({1}, {})).Input(I64({1}, {}))).shape(), (Shape{0}));
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Range").Input(I64({kMax - 1}, {})).Input(I64({kMax}, {})).Input(I64({5}, {})))),
            (std::vector<int64_t>{kMax - 1}));
  ExpectError(Op("Range").Input(I64({0}, {})).Input(I64({4}, {})).Input(I64({0}, {})), "delta");
  ExpectError(Op("Range").Input(I64({0}, {})).Input(F({4}, {})).Input(I64({1}, {})), "one type");
}

TEST(TensorOpsEyeLike, OffsetAndDtype) {
  Tensor out =
      RunOk(Op("EyeLike").Attr("k", int64_t{1}).Attr("dtype", int64_t{6}).Input(F({0, 0, 0, 0, 0, 0}, {2, 3})));
  EXPECT_EQ(out.type(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>(out), (std::vector<int32_t>{0, 1, 0, 0, 0, 1}));
  out = RunOk(Op("EyeLike").Attr("k", int64_t{-1}).Input(B({false, false, false, false}, {2, 2})));
  EXPECT_EQ(Bools(out), (std::vector<bool>{false, false, true, false}));
  ExpectError(Op("EyeLike").Input(F({0, 0}, {2})), "rank 2");
}

TEST(TensorOpsOneHot, AxisNegativeAndOutOfRangeIndices) {
  Tensor out = RunOk(Op("OneHot")
                         .Attr("axis", int64_t{0})
                         .Input(I64({0, -1, 5}, {3}))
                         .Input(I64({3}, {}))
                         .Input(S({"off", "on"}, {2})));
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  EXPECT_EQ(Values<std::string>(out),
            (std::vector<std::string>{"on", "off", "off", "off", "off", "off", "off", "on", "off"}));
  out = RunOk(Op("OneHot").Input(F({1.9f}, {1})).Input(F({2}, {1})).Input(F({-1, 1}, {2})));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{-1, 1}));
  ExpectError(Op("OneHot").Input(I64({0})).Input(I64({0}, {})).Input(F({0, 1}, {2})), "depth");
  ExpectError(Op("OneHot").Input(I64({0})).Input(I64({2}, {})).Input(F({0, 1, 2}, {3})), "values");
  ExpectError(Op("OneHot").Attr("axis", int64_t{2}).Input(I64({0})).Input(I64({2}, {})).Input(F({0, 1}, {2})), "axis");
}

// ---- Dropout, Trilu ----

TEST(TensorOpsDropout, InferenceIsIdentityWithTrueMask) {
  OpTest t = Op("Dropout", 13).Input(F({1, 2, 3}, {3})).Input(F({0.9f}, {}));
  t.num_outputs = 2;
  auto out = RunAll(t);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<float>(out[0].tensor()), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(Bools(out[1].tensor()), (std::vector<bool>{true, true, true}));
}

TEST(TensorOpsDropout, TrainingIsSeededAndScaled) {
  std::vector<float> v(200, 1.0f);
  OpTest t = Op("Dropout", 13).Attr("seed", int64_t{42}).Input(F(v, {200})).Input(F({0.5f}, {})).Input(B({true}, {}));
  t.num_outputs = 2;
  auto a = RunAll(t);
  auto b = RunAll(t);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(Values<float>(a[0].tensor()), Values<float>(b[0].tensor()));
  int kept = 0;
  for (int64_t i = 0; i < 200; ++i) {
    const bool m = a[1].tensor().data<bool>()[i];
    EXPECT_EQ(a[0].tensor().data<float>()[i], m ? 2.0f : 0.0f);
    kept += m ? 1 : 0;
  }
  EXPECT_GT(kept, 50);
  EXPECT_LT(kept, 150);
  ExpectError(Op("Dropout", 13).Input(F({1}, {1})).Input(F({1.5f}, {})).Input(B({true}, {})), "ratio");
}

TEST(TensorOpsTrilu, BatchedLowerAndUpperWithK) {
  Tensor x = I64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3});
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Trilu").Attr("upper", int64_t{0}).Input(x).Input(I64({-1}, {})))),
            (std::vector<int64_t>{0, 0, 0, 4, 0, 0, 0, 0, 0, 10, 0, 0}));
  EXPECT_EQ(Values<int64_t>(RunOk(Op("Trilu").Input(x).Input(I64({1}, {})))),
            (std::vector<int64_t>{0, 2, 3, 0, 0, 6, 0, 8, 9, 0, 0, 12}));
  EXPECT_EQ(Values<std::string>(RunOk(Op("Trilu").Input(S({"a", "b", "c", "d"}, {2, 2})))),
            (std::vector<std::string>{"a", "b", "", "d"}));
  ExpectError(Op("Trilu").Input(I64({1, 2})), "rank");
}

// ---- NonZero, Compress, ReverseSequence, Unique ----

// Coordinates in row-major order of the hits, axis by axis, for 1-D to 4-D inputs (rows of the last axis walked
// with an odometer), against the linear index decomposed.
TEST(TensorOpsNonZero, CoordinatesOfEveryRankMatchTheLinearIndex) {
  for (const Shape& shape : {Shape{37}, Shape{5, 7}, Shape{3, 4, 5}, Shape{2, 3, 1, 6}, Shape{2, 0, 3}}) {
    SCOPED_TRACE(ShapeToString(shape));
    const int64_t size = NumElements(shape);
    std::vector<float> x = UniformFloats(static_cast<size_t>(size), 9, -1.0f, 1.0f);
    for (float& v : x) v = v < 0.2f ? 0.0f : v;
    const Tensor out = RunOk(Op("NonZero").Input(F(x, shape)));
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < size; ++i) {
      if (x[static_cast<size_t>(i)] != 0.0f) hits.push_back(i);
    }
    const int64_t n = static_cast<int64_t>(hits.size()), rank = static_cast<int64_t>(shape.size());
    ASSERT_EQ(out.shape(), (Shape{rank, n}));
    for (int64_t j = 0; j < n; ++j) {
      int64_t linear = hits[static_cast<size_t>(j)];
      for (int64_t d = rank - 1; d >= 0; --d) {
        ASSERT_EQ(out.data<int64_t>()[d * n + j], linear % shape[static_cast<size_t>(d)]) << j << " axis " << d;
        linear /= shape[static_cast<size_t>(d)];
      }
    }
  }
}

TEST(TensorOpsNonZero, NaNNegativeZeroAndScalar) {
  Tensor out = RunOk(Op("NonZero").Input(F({0, -0.0f, kNaN, 2}, {2, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 1, 0, 1}));
  out = RunOk(Op("NonZero").Input(F({3}, {})));
  EXPECT_EQ(out.shape(), (Shape{1, 1}));
  EXPECT_EQ(RunOk(Op("NonZero").Input(F({}, {0, 3}))).shape(), (Shape{2, 0}));
}

TEST(TensorOpsCompress, FlattenedShortConditionAndErrors) {
  Tensor x = F({1, 2, 3, 4, 5, 6}, {3, 2});
  EXPECT_EQ(Values<float>(RunOk(Op("Compress").Input(x).Input(B({false, true, true}, {3})))),
            (std::vector<float>{2, 3}));
  Tensor out = RunOk(Op("Compress").Attr("axis", int64_t{-2}).Input(x).Input(B({true, false, true}, {3})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 5, 6}));
  ExpectError(Op("Compress").Attr("axis", int64_t{1}).Input(x).Input(B({false, false, true}, {3})), "beyond");
  ExpectError(Op("Compress").Input(x).Input(I64({1})), "bool");
}

TEST(TensorOpsReverseSequence, BatchAxisZero) {
  Tensor x = I64({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4});
  Tensor out = RunOk(
      Op("ReverseSequence").Attr("batch_axis", int64_t{0}).Attr("time_axis", int64_t{1}).Input(x).Input(I64({3, 0})));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{2, 1, 0, 3, 4, 5, 6, 7}));
  ExpectError(Op("ReverseSequence").Input(x).Input(I64({3, 3, 3, 3})), "length");
  ExpectError(Op("ReverseSequence").Input(x).Input(I64({1, 1})), "batch size");
  ExpectError(Op("ReverseSequence").Attr("batch_axis", int64_t{0}).Input(x).Input(I64({1, 1})), "batch_axis");
}

TEST(TensorOpsUnique, SortedWithNaNAndUnsorted) {
  Tensor x = F({2, kNaN, 1, 2, kNaN, -1}, {6});
  OpTest t = Op("Unique").Input(x);
  t.num_outputs = 4;
  auto out = RunAll(t);
  ASSERT_EQ(out.size(), 4u);
  std::vector<float> y = Values<float>(out[0].tensor());
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 2.0f);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(Values<int64_t>(out[1].tensor()), (std::vector<int64_t>{5, 2, 0, 1}));
  EXPECT_EQ(Values<int64_t>(out[2].tensor()), (std::vector<int64_t>{2, 3, 1, 2, 3, 0}));
  EXPECT_EQ(Values<int64_t>(out[3].tensor()), (std::vector<int64_t>{1, 1, 2, 2}));

  OpTest u = Op("Unique").Attr("sorted", int64_t{0}).Input(S({"b", "a", "b", "c"}, {4}));
  u.num_outputs = 4;
  out = RunAll(u);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values<std::string>(out[0].tensor()), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(Values<int64_t>(out[1].tensor()), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(Values<int64_t>(out[2].tensor()), (std::vector<int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(Values<int64_t>(out[3].tensor()), (std::vector<int64_t>{2, 1, 1}));
}

TEST(TensorOpsUnique, AlongAxisAndEmpty) {
  OpTest t = Op("Unique").Attr("axis", int64_t{-1}).Input(I64({1, 0, 1, 2, 0, 2}, {2, 3}));
  t.num_outputs = 4;
  auto out = RunAll(t);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<int64_t>(out[0].tensor()), (std::vector<int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(Values<int64_t>(out[2].tensor()), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(Values<int64_t>(out[3].tensor()), (std::vector<int64_t>{1, 2}));
  Tensor empty = RunOk(Op("Unique").Input(F({}, {0, 2})));
  EXPECT_EQ(empty.shape(), (Shape{0}));
}

}  // namespace
}  // namespace onyx
