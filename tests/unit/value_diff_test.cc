// The statistics of `onyx compare` (testing::DiffValues) and the run observer it records intermediate values with.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/session.h"
#include "testing/value_diff.h"
#include "text/parser.h"

namespace onyx::testing {
namespace {

Value Floats(std::vector<float> v, Shape shape) { return Value(Tensor::FromVector(v, std::move(shape))); }

TEST(ValueDiff, IdenticalValues) {
  ValueDiff d = DiffValues(Floats({1, 2, 3, 4}, {2, 2}), Floats({1, 2, 3, 4}, {2, 2}), {});
  EXPECT_TRUE(d.within_tolerance());
  EXPECT_EQ(d.elements, 4);
  EXPECT_EQ(d.max_abs, 0);
  EXPECT_DOUBLE_EQ(d.cosine, 1);
  EXPECT_EQ(d.argmax_rows, 2);
  EXPECT_EQ(d.argmax_same, 2);
}

TEST(ValueDiff, CountsElementsOutOfToleranceAndFindsTheWorst) {
  const Tolerance tol{1e-3, 1e-5};
  // Element 1 is off by 1e-4 relative to 2 (within), element 3 by 0.5 (out).
  ValueDiff d = DiffValues(Floats({1, 2.0002f, 3, 4.5f}, {1, 4}), Floats({1, 2, 3, 4}, {1, 4}), tol);
  EXPECT_TRUE(d.comparable);
  EXPECT_FALSE(d.within_tolerance());
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_EQ(d.worst_index, 3);
  EXPECT_NEAR(d.max_abs, 0.5, 1e-6);
  EXPECT_NEAR(d.max_rel, 0.125, 1e-6);
  EXPECT_NEAR(d.mean_abs, (0.0002 + 0.5) / 4, 1e-6);
  EXPECT_LT(d.cosine, 1);
  EXPECT_EQ(d.argmax_rows, 1);
  EXPECT_EQ(d.argmax_same, 1);  // both peak at the last class
  // A different winning class shows in the argmax agreement.
  d = DiffValues(Floats({5, 0}, {1, 2}), Floats({0, 5}, {1, 2}), tol);
  EXPECT_EQ(d.argmax_same, 0);
  EXPECT_DOUBLE_EQ(d.cosine, 0);
}

TEST(ValueDiff, NanInfinityIntegersAndShapes) {
  EXPECT_TRUE(DiffValues(Floats({NAN, INFINITY}, {2}), Floats({NAN, INFINITY}, {2}), {}).within_tolerance());
  ValueDiff d = DiffValues(Floats({1, 0}, {2}), Floats({NAN, 0}, {2}), {});
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_TRUE(std::isinf(d.max_abs));
  EXPECT_EQ(d.worst_index, 0);
  d = DiffValues(Value(Tensor::FromVector<int64_t>({1, 2, 3}, {3})), Value(Tensor::FromVector<int64_t>({1, 5, 3}, {3})),
                 {1, 1});  // integers compare exactly whatever the tolerance
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_EQ(d.worst_index, 1);
  d = DiffValues(Floats({1, 2}, {2}), Floats({1, 2}, {1, 2}), {});
  EXPECT_FALSE(d.comparable);
  EXPECT_NE(d.note.find("shape"), std::string::npos);
  d = DiffValues(Value(Tensor::FromVector<std::string>({"a", "b"}, {2})),
                 Value(Tensor::FromVector<std::string>({"a", "c"}, {2})), {});
  EXPECT_EQ(d.mismatches, 1);
}

TEST(RunObserver, SeesEveryMainGraphValueInOrder) {
  auto model = text::ParseModel(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] x) => (float[3] z) {
      y = Neg(x)
      z = Relu(y)
    }
  )");
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions options;
  options.optimization_level = optimizer::OptLevel::kDisabled;
  auto session = Session::Create(std::move(model).value(), options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<std::string> seen;
  std::vector<float> y;
  RunOptions run;
  run.observer = [&](const ir::Node& node, size_t output_index, const Value& v) {
    seen.push_back(node.op_type + ":" + node.outputs[output_index]);
    if (node.op_type == "Neg") y.assign(v.tensor().data<float>(), v.tensor().data<float>() + 3);
  };
  std::vector<Value> outputs;
  ASSERT_TRUE((*session)->Run({{"x", Floats({1, -2, 3}, {3})}}, {}, &outputs, run).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"Neg:y", "Relu:z"}));
  EXPECT_EQ(y, (std::vector<float>{-1, 2, -3}));
  EXPECT_EQ(outputs[0].tensor().data<float>()[1], 2);
  // Without an observer nothing is called (the plain Run).
  seen.clear();
  ASSERT_TRUE((*session)->Run({{"x", Floats({1, -2, 3}, {3})}}, {}, &outputs).ok());
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace onyx::testing
