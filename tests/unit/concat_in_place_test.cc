// Concats whose producers write straight into the output (runtime/concat_in_place): the mechanism on its own,
// then whole sessions run several times with new inputs (the in-place path starts from the second run), with
// changing shapes, and with Concats that must keep copying.
#include "runtime/concat_in_place.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>

#include "ir/model.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

Tensor Iota(const Shape& shape, float start) {
  Tensor t = Tensor::Allocate(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

ir::Node ConcatNode(int64_t axis) {
  ir::Node n;
  n.op_type = "Concat";
  n.attributes.push_back(ir::IntAttr("axis", axis));
  return n;
}

TEST(ConcatInPlace, LearnsLayoutThenHandsOutSlicesAndAssembles) {
  const ir::Node concat = ConcatNode(1);
  ConcatInPlace cip;
  // Slots 0 and 1 are written by steps 0 and 1 and read once, by the Concat at step 2 (output slot 2).
  cip.Plan({{2, &concat, {0, 1}}}, {0, 1, 2}, {1, 1, 0}, {false, false, true});
  ASSERT_FALSE(cip.empty());
  ASSERT_EQ(cip.GroupOfStep(2), 0);
  EXPECT_EQ(cip.GroupOfStep(1), -1);

  // First run: nothing learned, so producers allocate on their own and the Concat copies.
  ConcatInPlace::RunState run = cip.StartRun();
  EXPECT_FALSE(cip.PlaceOutput(run, 0, DataType::kFloat, {1, 16, 2}).has_value());
  Value a = Iota({1, 16, 2}, 0), b = Iota({1, 48, 2}, 100);
  Value copied = Iota({1, 64, 2}, 0);
  Value out;
  EXPECT_FALSE(cip.Assemble(run, 2, {&a, &b}, &out));
  cip.Learn(run, 2, {&a, &b}, copied);

  // Second run: each producer gets its slice of one buffer, and the Concat's output is that buffer.
  run = cip.StartRun();
  std::optional<Tensor> pa = cip.PlaceOutput(run, 0, DataType::kFloat, {1, 16, 2});
  std::optional<Tensor> pb = cip.PlaceOutput(run, 1, DataType::kFloat, {1, 48, 2});
  ASSERT_TRUE(pa.has_value() && pb.has_value());
  EXPECT_EQ(static_cast<char*>(pb->raw()) - static_cast<char*>(pa->raw()), 16 * 2 * 4);
  for (int64_t i = 0; i < pa->size(); ++i) pa->data<float>()[i] = static_cast<float>(i);
  for (int64_t i = 0; i < pb->size(); ++i) pb->data<float>()[i] = 1000.0f + static_cast<float>(i);
  Value va(*pa), vb(*pb);
  ASSERT_TRUE(cip.Assemble(run, 2, {&va, &vb}, &out));
  ASSERT_EQ(out.tensor().shape(), (Shape{1, 64, 2}));
  EXPECT_EQ(out.tensor().data<float>()[31], 31.0f);
  EXPECT_EQ(out.tensor().data<float>()[32], 1000.0f);
  EXPECT_EQ(out.tensor().data<float>()[127], 1095.0f);

  // Another shape or type than learned: an ordinary allocation, and no assembly from foreign tensors.
  run = cip.StartRun();
  EXPECT_FALSE(cip.PlaceOutput(run, 0, DataType::kFloat, {1, 8, 2}).has_value());
  EXPECT_FALSE(cip.PlaceOutput(run, 0, DataType::kInt32, {1, 16, 2}).has_value());
  std::optional<Tensor> only_b = cip.PlaceOutput(run, 1, DataType::kFloat, {1, 48, 2});
  ASSERT_TRUE(only_b.has_value());
  Value vb2(*only_b);
  EXPECT_FALSE(cip.Assemble(run, 2, {&a, &vb2}, &out));
}

TEST(ConcatInPlace, PlansOnlyInputsWrittenEarlierAndReadOnce) {
  const ir::Node concat = ConcatNode(0);
  ConcatInPlace cip;
  // Slot 0 is read twice, slot 3 is a graph output, slot 4 a graph input: none of these Concats qualifies.
  cip.Plan({{2, &concat, {0, 1}}, {5, &concat, {1, 3}}, {6, &concat, {4, 1}}}, {0, 1, 2, 3, -1, 5, 6},
           {2, 1, 0, 1, 1, 0, 0}, {false, false, false, true, false, false, false});
  EXPECT_TRUE(cip.empty());
}

TEST(ConcatInPlace, NotContiguousOrUnalignedIsNotLearned) {
  const ir::Node concat = ConcatNode(1);
  ConcatInPlace cip;
  cip.Plan({{2, &concat, {0, 1}}}, {0, 1, 2}, {1, 1, 0}, {false, false, true});
  ConcatInPlace::RunState run = cip.StartRun();
  // Batch 2: the inputs' rows interleave in the output.
  Value a = Iota({2, 16}, 0), b = Iota({2, 16}, 0), y = Iota({2, 32}, 0);
  cip.Learn(run, 2, {&a, &b}, y);
  EXPECT_FALSE(cip.PlaceOutput(run, 0, DataType::kFloat, {2, 16}).has_value());
  // Batch 1 but the second slice would start 12 bytes in.
  Value c = Iota({1, 3}, 0), d = Iota({1, 5}, 0), z = Iota({1, 8}, 0);
  cip.Learn(run, 2, {&c, &d}, z);
  run = cip.StartRun();
  EXPECT_FALSE(cip.PlaceOutput(run, 0, DataType::kFloat, {1, 3}).has_value());
}

// Runs `text` on several inputs `x` in one session and checks each run against a fresh session with optimization
// off (whose one run has learned nothing, so every Concat copies).
void ExpectRepeatedRunsCorrect(const std::string& text, const std::vector<Shape>& x_shapes) {
  auto model = text::ParseModel(text);
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions plain;
  plain.optimization_level = optimizer::OptLevel::kDisabled;
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (size_t r = 0; r < x_shapes.size(); ++r) {
    Tensor x = Tensor::Allocate(DataType::kFloat, x_shapes[r]);
    for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = dist(rng);
    std::vector<Value> got, want;
    Status st = (*session)->Run({{"x", x}}, {}, &got);
    ASSERT_TRUE(st.ok()) << "run " << r << ": " << st.message();
    auto reference = Session::Create(*model, plain);
    ASSERT_TRUE(reference.ok());
    st = (*reference)->Run({{"x", x}}, {}, &want);
    ASSERT_TRUE(st.ok()) << "run " << r << ": " << st.message();
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      const Tensor& g = got[o].tensor();
      const Tensor& w = want[o].tensor();
      ASSERT_EQ(g.shape(), w.shape()) << "run " << r << ", output " << o;
      for (int64_t i = 0; i < g.size(); ++i) {
        ASSERT_FLOAT_EQ(g.data<float>()[i], w.data<float>()[i]) << "run " << r << ", output " << o << ", element " << i;
      }
    }
  }
}

TEST(ConcatInPlace, SessionRunsAgreeRunAfterRun) {
  // Both Concats qualify at batch 1 (each input written by one node and read only by its Concat); the shape
  // changes after three runs (relearned) and changes back.
  ExpectRepeatedRunsCorrect(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,C,H,W] x) => (float[1,D,H,W] y, float[1,E,H,W] z) {
  a = Relu(x)
  b = Sigmoid(x)
  c = Concat<axis = 1>(a, b)
  y = Mul(c, c)
  n = Neg(x)
  m = Exp(x)
  z = Concat<axis = -3>(n, m)
}
)",
                            {{1, 16, 4, 4}, {1, 16, 4, 4}, {1, 16, 4, 4}, {1, 32, 2, 2}, {1, 16, 4, 4}, {1, 16, 4, 4}});
}

TEST(ConcatInPlace, SessionKeepsCopyingWhereInPlaceCannotHold) {
  // Batch 2 (interleaved), an input read twice, an input that is a graph input, and an input that is a view
  // of another value (Reshape): every run must still be right.
  ExpectRepeatedRunsCorrect(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,16,4] x) => (float[N,32,4] y, float[N,32,4] z, float[N,16,4] v, float[N,32,4] w) {
  a = Relu(x)
  b = Sigmoid(x)
  y = Concat<axis = 1>(a, b)
  c = Abs(x)
  d = Neg(x)
  z0 = Concat<axis = 1>(c, d)
  z = Neg(z0)
  v = Mul(c, c)
  s = Shape(x)
  e = Reshape(d, s)
  w = Concat<axis = 1>(x, e)
}
)",
                            {{2, 16, 4}, {2, 16, 4}, {1, 16, 4}, {1, 16, 4}, {1, 16, 4}});
}

TEST(ConcatInPlace, PlansChainsWhoseInputsOnlyTheChainReads) {
  const ir::Node concat = ConcatNode(1);
  // DenseNet-like: slot 0 (step 0), Concat {0} at step 1 -> slot 1; slot 2 (step 2), Concat {0, 2} at step 3 ->
  // slot 3; slot 4 (step 4), Concat {0, 2, 4} at step 5 -> slot 5. Slot 0 is read by the three Concats, slot 2 by
  // two, slot 4 by one; slots 1 and 3 by other steps.
  {
    ConcatInPlace cip;
    cip.Plan({{1, &concat, {0}, 1}, {3, &concat, {0, 2}, 3}, {5, &concat, {0, 2, 4}, 5}}, {0, 1, 2, 3, 4, 5},
             {3, 1, 2, 1, 1, 0}, {false, false, false, false, false, true});
    ASSERT_FALSE(cip.empty());
    EXPECT_EQ(cip.GroupOfStep(1), 0);
    EXPECT_EQ(cip.GroupOfStep(3), 0);
    EXPECT_EQ(cip.GroupOfStep(5), 0);
  }
  {
    // Slot 2 also read by another step: the chain keeps copying.
    ConcatInPlace cip;
    cip.Plan({{1, &concat, {0}, 1}, {3, &concat, {0, 2}, 3}, {5, &concat, {0, 2, 4}, 5}}, {0, 1, 2, 3, 4, 5},
             {3, 1, 3, 1, 1, 0}, {false, false, false, false, false, true});
    EXPECT_TRUE(cip.empty());
  }
  {
    // An earlier Concat's output is a graph output: its view could not outlive the run's buffer.
    ConcatInPlace cip;
    cip.Plan({{1, &concat, {0}, 1}, {3, &concat, {0, 2}, 3}, {5, &concat, {0, 2, 4}, 5}}, {0, 1, 2, 3, 4, 5},
             {3, 1, 2, 1, 1, 0}, {false, false, false, true, false, true});
    EXPECT_TRUE(cip.empty());
  }
}

TEST(ConcatInPlace, ChainRunsAgreeRunAfterRun) {
  // Each Concat joins the previous one's inputs and one more (a dense block): one buffer for the chain, every Concat
  // returning its prefix; the earlier Concats' outputs are read elsewhere too. Shapes change (a 2 x 2 map gives
  // unaligned slices: copies) and change back.
  ExpectRepeatedRunsCorrect(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,C,H,W] x) => (float[1,D,H,W] y, float[1,E,H,W] z) {
  a = Relu(x)
  f1 = Sigmoid(x)
  c2 = Concat<axis = 1>(a, f1)
  f2 = ReduceMax<axes = [1], keepdims = 1>(c2)
  c3 = Concat<axis = 1>(a, f1, f2)
  f3 = Neg(c3)
  c4 = Concat<axis = 1>(a, f1, f2, f3)
  y = Mul(c4, c4)
  z = Exp(c2)
}
)",
                            {{1, 16, 4, 4}, {1, 16, 4, 4}, {1, 16, 4, 4}, {1, 32, 2, 2}, {1, 16, 4, 4}, {1, 16, 4, 4}});
}

TEST(ConcatInPlace, ConcurrentRunsOfOneSessionKeepTheirOwnBuffers) {
  // Session::Run may be called from several threads: each run hands out slices of its own Concat buffers.
  auto model = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,64,8] x) => (float[1,128,8] y) {
  a = Relu(x)
  b = Neg(x)
  c = Concat<axis = 1>(a, b)
  y = Mul(c, c)
}
)");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  auto worker = [&](float base, int* bad) {
    for (int r = 0; r < 200; ++r) {
      const float v = base + static_cast<float>(r);
      Tensor x = Tensor::Allocate(DataType::kFloat, {1, 64, 8});
      for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = v;
      std::vector<Value> out;
      if (!(*session)->Run({{"x", x}}, {}, &out).ok()) {
        ++*bad;
        continue;
      }
      const Tensor& y = out[0].tensor();
      // Rows 0..63 are Relu(v)^2 = v^2 and rows 64..127 are (-v)^2 = v^2: every element is v^2.
      for (int64_t i = 0; i < y.size(); ++i) {
        if (y.data<float>()[i] != v * v) {
          ++*bad;
          break;
        }
      }
    }
  };
  int bad1 = 0, bad2 = 0;
  std::thread t1(worker, 1.0f, &bad1);
  std::thread t2(worker, 1000.0f, &bad2);
  t1.join();
  t2.join();
  EXPECT_EQ(bad1, 0);
  EXPECT_EQ(bad2, 0);
}

}  // namespace
}  // namespace onyx
