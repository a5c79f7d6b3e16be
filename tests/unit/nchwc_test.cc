// The blocked-layout path (optimizer/nchwc_layout + ops/nchwc, oneDNN) against the reference kernels: each model
// runs once with its weights fed as inputs (not constants, so the reference Conv/Pool kernels run) and once with
// them as initializers (rewritten into Nchwc* nodes), on random data of awkward sizes; outputs must agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "ir/model.h"
#include "kernels/cpu_isa.h"
#include "kernels/dnnl_util.h"
#include "kernels/tuning_cache.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

Tensor RandomTensor(const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t = Tensor::Allocate(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

int CountOp(const ir::Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

// Runs `text` both ways; inputs other than "x" become initializers in the blocked run. Returns how many
// NchwcConv nodes the blocked session holds; `ops` (when given) gets the count of every operator it holds. Outputs
// agree within atol + 1e-4 * |reference|.
int ExpectSameAsReference(const std::string& text, unsigned seed = 1, int* reorders = nullptr,
                          std::map<std::string, int>* ops = nullptr, float atol = 1e-4f) {
  if (!kernels::BlockedConvolutionIsFast()) return -2;  // the session leaves the layout pass off on this CPU
  auto parsed = text::ParseModel(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return -1;
  std::mt19937 rng(seed);
  std::vector<std::pair<std::string, Value>> feeds;
  ir::Model constant_model = *parsed;
  constant_model.graph.inputs.clear();
  std::vector<std::pair<std::string, Value>> x_feed;
  for (const auto& in : parsed->graph.inputs) {
    Shape shape;
    for (const auto& d : *in.type->shape) shape.push_back(d.is_value() ? d.value : 2);  // a symbolic dim: 2
    Tensor t = RandomTensor(shape, rng);
    feeds.emplace_back(in.name, t);
    if (in.name == "x") {
      constant_model.graph.inputs.push_back(in);
      x_feed.emplace_back(in.name, t);
    } else {
      constant_model.graph.initializers.push_back(ir::NamedTensor{in.name, "", t, {}, {}});
    }
  }
  auto reference = Session::Create(*parsed);
  EXPECT_TRUE(reference.ok()) << reference.status().message();
  auto blocked = Session::Create(constant_model);
  EXPECT_TRUE(blocked.ok()) << blocked.status().message();
  if (!reference.ok() || !blocked.ok()) return -1;
  EXPECT_EQ(CountOp((*reference)->model().graph, "NchwcConv"), 0);
  // Two runs with different x: the second goes through what the session keeps from the first (cached primitives,
  // Concats whose inputs are then written in place).
  for (int run = 0; run < 2; ++run) {
    if (run > 0) {
      auto x = std::find_if(feeds.begin(), feeds.end(), [](const auto& f) { return f.first == "x"; });
      x->second = RandomTensor(x->second.tensor().shape(), rng);
      x_feed[0].second = x->second;
    }
    std::vector<Value> want, got;
    Status st = (*reference)->Run(feeds, {}, &want);
    EXPECT_TRUE(st.ok()) << st.message();
    st = (*blocked)->Run(x_feed, {}, &got);
    EXPECT_TRUE(st.ok()) << st.message();
    if (want.size() != got.size()) return -1;
    for (size_t o = 0; o < want.size(); ++o) {
      const Tensor& w = want[o].tensor();
      const Tensor& g = got[o].tensor();
      EXPECT_EQ(w.shape(), g.shape()) << "output " << o;
      if (w.shape() != g.shape()) continue;
      int bad = 0;
      for (int64_t i = 0; i < w.size() && bad < 5; ++i) {
        const float a = w.data<float>()[i];
        const float b = g.data<float>()[i];
        if (std::fabs(a - b) > atol + 1e-4f * std::fabs(a)) {
          ADD_FAILURE() << "run " << run << ", output " << o << " element " << i << ": reference " << a << ", blocked "
                        << b;
          ++bad;
        }
      }
    }
  }
  if (reorders != nullptr) *reorders = CountOp((*blocked)->model().graph, "NchwcReorder");
  if (ops != nullptr) {
    for (const auto& node : (*blocked)->model().graph.nodes) ++(*ops)[node.op_type];
  }
  return CountOp((*blocked)->model().graph, "NchwcConv");
}

// Runs `text`, whose blocked ops read x through `a = Conv(x, eye)` (eye: the identity 1x1 weights of `channels`,
// added here, which passes x through exactly), unoptimized (plain kernels) and optimized (blocked ones), and returns
// both runs' outputs; the optimized graph must hold `count` nodes of `blocked_op`.
std::array<std::vector<Value>, 2> RunPlainAndBlocked(const std::string& text, int64_t channels, const Tensor& x,
                                                     const std::string& blocked_op, int count) {
  std::array<std::vector<Value>, 2> outputs;
  auto parsed = text::ParseModel(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return outputs;
  Tensor eye = Tensor::Allocate(DataType::kFloat, {channels, channels, 1, 1}, true);
  for (int64_t c = 0; c < channels; ++c) eye.data<float>()[c * channels + c] = 1.0f;
  parsed->graph.initializers.push_back(ir::NamedTensor{"eye", "", eye, {}, {}});
  for (int optimized = 0; optimized < 2; ++optimized) {
    SessionOptions options;
    options.optimization_level = optimized ? optimizer::OptLevel::kAll : optimizer::OptLevel::kDisabled;
    options.ort_summation_order = false;
    auto session = Session::Create(*parsed, options);
    EXPECT_TRUE(session.ok()) << session.status().message();
    if (!session.ok()) return outputs;
    if (optimized) {
      EXPECT_EQ(CountOp((*session)->model().graph, blocked_op), count);
    }
    const Status st = (*session)->Run({{"x", Value(x)}}, {}, &outputs[static_cast<size_t>(optimized)]);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  return outputs;
}

TEST(Nchwc, PlainInputConvWithOddChannelsAndStride) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,17,13] x, float[20,3,3,3] w, float[20] b) => (float[2,20,9,7] y) {
  y = Conv<pads = [1,1,1,1], strides = [2,2]>(x, w, b)
}
)"),
            1);
}

TEST(Nchwc, OneWeightOnSeveralSizesAsADetectorHead) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // A detector's head runs one convolution's weights on every pyramid level: the nodes share one prepared copy
  // of the weights (kernels/shared_weights.h) whatever layout or algorithm each level's shape gets.
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,40,36] x, float[32,32,3,3] w, float[32] b, float[32,32,3,3] w2) => (float[1,32,40,36] y1, float[1,32,20,18] y2, float[1,32,10,9] y3, float[1,32,10,9] y4) {
  p1 = MaxPool<kernel_shape = [2,2], strides = [2,2]>(x)
  p2 = MaxPool<kernel_shape = [2,2], strides = [2,2]>(p1)
  c1 = Conv<pads = [1,1,1,1]>(x, w, b)
  y1 = Relu(c1)
  c2 = Conv<pads = [1,1,1,1]>(p1, w, b)
  y2 = Relu(c2)
  y3 = Conv<pads = [1,1,1,1]>(p2, w, b)
  y4 = Conv<pads = [1,1,1,1]>(p2, w2, b)
}
)"),
            4);
}

TEST(Nchwc, ChainWithReluClipResidualAndDepthwise) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // conv -> relu -> depthwise conv (group 24) -> clip(0,6) -> 1x1 conv + residual add (of the relu output) -> out
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,5,11,9] x, float[24,5,3,3] w1, float[24] b1, float[24,1,3,3] w2, float[24,24,1,1] w3, float[24] b3) => (float[1,24,11,9] y) {
  lo = Constant<value = float {0}>()
  hi = Constant<value = float {0.5}>()
  c1 = Conv<pads = [1,1,1,1]>(x, w1, b1)
  r1 = Relu(c1)
  c2 = Conv<pads = [1,1,1,1], group = 24>(r1, w2)
  r2 = Clip(c2, lo, hi)
  c3 = Conv(r2, w3, b3)
  y = Add(c3, r1)
}
)"),
            3);
}

TEST(Nchwc, PointwiseThenDepthwiseFuseAtStrideOneAndTwo) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // MobileNet-v2's expand (1x1 + Clip 0..6) then depthwise 3x3 (+ Clip): each pair becomes one NchwcConv; odd
  // sizes check the stride-2 output size (ceil(13 / 2) = 7); the second pair's 1x1 has no bias, its
  // depthwise no activation.
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,8,13,11] x, float[32,8,1,1] w1, float[32] b1, float[32,1,3,3] w2, float[32] b2, float[32,32,1,1] w3,
   float[32,1,3,3] w4) => (float[2,32,13,11] y, float[2,32,7,6] z) {
  lo = Constant<value = float {0}>()
  hi = Constant<value = float {6}>()
  c1 = Conv(x, w1, b1)
  r1 = Clip(c1, lo, hi)
  c2 = Conv<pads = [1,1,1,1], group = 32>(r1, w2, b2)
  y = Clip(c2, lo, hi)
  c3 = Conv(y, w3)
  r3 = Relu(c3)
  z = Conv<pads = [1,1,1,1], strides = [2,2], group = 32, kernel_shape = [3,3]>(r3, w4)
}
)"),
            2);
}

TEST(Nchwc, DilatedGroupedConvAndPooling) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,16,15,12] x, float[32,8,3,3] w, float[32] b) => (float[2,32,4,3] m, float[2,32,5,4] a, float[2,32,1,1] ga) {
  c = Conv<dilations = [2,2], pads = [2,1,2,1], group = 2>(x, w, b)
  r = Relu(c)
  m = MaxPool<kernel_shape = [3,3], strides = [3,3], ceil_mode = 1>(r)
  a = AveragePool<kernel_shape = [3,3], strides = [3,3], pads = [1,1,1,1], count_include_pad = 1>(r)
  ga = GlobalAveragePool(r)
}
)"),
            1);
}

TEST(Nchwc, ConcatOfBlockedBranchesAndPlainConsumer) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // squeezenet's fire module: squeeze 1x1, two expand convs concatenated along channels, then a plain consumer.
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,9,9] x, float[16,16,1,1] ws, float[32,16,1,1] we1, float[32,16,3,3] we3) => (float[1,64,9,9] y, float[1,64,9,9] s) {
  sq = Conv(x, ws)
  sr = Relu(sq)
  e1 = Conv(sr, we1)
  e3 = Conv<pads = [1,1,1,1]>(sr, we3)
  r1 = Relu(e1)
  r3 = Relu(e3)
  y = Concat<axis = 1>(r1, r3)
  s = Sigmoid(y)
}
)"),
            3);
}

TEST(Nchwc, SplitIntoWholeBlocksStaysBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // YOLOv8's C2f module: a 1x1 convolution's 64 channels split into two halves, one half through a 3x3 convolution,
  // both concatenated with it; with the sizes as an input (opset 13) and as an attribute (opset 11), and as equal
  // parts without sizes. Only the output's reorder is left (and the input's).
  for (const char* form : {"13: split = Constant<value = int64[2] {32, 32}>()\n  a, b = Split<axis = 1>(c, split)",
                           "11: a, b = Split<axis = 1, split = [32, 32]>(c)", "13: a, b = Split<axis = 1>(c)"}) {
    std::string text = R"(
<ir_version: 7, opset_import: ["" : OPSET]>
g (float[1,16,9,9] x, float[64,16,1,1] w, float[32,32,3,3] w3, float[48,96,1,1] wo) => (float[1,48,9,9] y) {
  c = Conv(x, w)
  SPLIT
  d = Conv<pads = [1,1,1,1]>(b, w3)
  cat = Concat<axis = 1>(a, b, d)
  y = Conv(cat, wo)
}
)";
    const std::string f = form;
    text.replace(text.find("OPSET"), 5, f.substr(0, 2));
    text.replace(text.find("SPLIT"), 5, f.substr(4));
    SCOPED_TRACE(f);
    int reorders = -1;
    std::map<std::string, int> ops;
    EXPECT_EQ(ExpectSameAsReference(text, 1, &reorders, &ops), 3);
    EXPECT_EQ(reorders, 2);  // x in, y out
    EXPECT_EQ(ops["Split"], 1);
  }
  // Parts that are not whole blocks (20 + 44: neither 8 nor 16 divides them) stay in the plain layout, and still agree.
  int reorders = -1;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,9,9] x, float[64,16,1,1] w, float[20,20,1,1] w1, float[44,44,1,1] w2) => (float[1,20,9,9] p, float[1,44,9,9] q) {
  c = Conv(x, w)
  split = Constant<value = int64[2] {20, 44}>()
  a, b = Split<axis = 1>(c, split)
  p = Conv(a, w1)
  q = Conv(b, w2)
}
)",
                                  1, &reorders),
            3);
  EXPECT_GT(reorders, 3);
}

TEST(Nchwc, ValueReadByConvAndGraphOutput) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,6,6] x, float[16,16,3,3] w1, float[8,16,1,1] w2) => (float[1,16,6,6] c1, float[1,8,6,6] c2) {
  c1 = Conv<auto_pad = "SAME_UPPER">(x, w1)
  c2 = Conv(c1, w2)
}
)"),
            2);
}

TEST(Nchwc, WideDilationsAfterABlockedConv) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // Dilations of 4 and more on blocked input: oneDNN's AVX2 JIT kernels decline them; they run over their dilation
  // phases (ops/nchwc/dilation_phases.h). Sizes that are not multiples of the dilation, unequal pads, a grouped one
  // with a residual sum. Tuning off: the fixed rule takes the phases wherever the JIT kernels decline (timing could
  // pick the GEMM fallback for these small images, and then the phases would not be what runs).
  kernels::SetTuningModeOverride(kernels::TuningMode::kOff);
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,16,23,19] x, float[16,16,1,1] w0, float[32,16,3,3] w1, float[32] b1, float[24,32,3,3] w2,
   float[32,16,3,3] w3) => (float[2,24,16,19] c2, float[2,32,23,19] y) {
  a = Conv(x, w0)
  c1 = Conv<dilations = [5,4], pads = [5,4,5,4]>(a, w1, b1)
  r1 = Relu(c1)
  c2 = Conv<dilations = [6,6], pads = [3,7,2,5]>(r1, w2)
  c3 = Conv<dilations = [4,7], pads = [4,7,4,7], group = 2>(r1, w3)
  s = Add(c3, r1)
  y = Relu(s)
}
)"),
            4);
  kernels::SetTuningModeOverride(std::nullopt);
}

TEST(Nchwc, ResizeAndShapeOfBlockedValues) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // Upsampling between convolutions stays blocked (NchwcResize): linear by ONNX Runtime's formula (half_pixel), by
  // the separable taps (align_corners where scale x size is not the output size), nearest to sizes built from the
  // input's Shape at run time (NchwcShape, no reorder back for it; the batch dim symbolic, or constant folding would
  // fold the Shape).
  std::map<std::string, int> ops;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,12,9,7] x, float[12,12,1,1] w0, float[16,12,3,3] w1, float[16,12,3,3] w2) =>
  (float[N,16,18,14] y1, float[N,12,27,8] y2, float[N,16,18,14] y3, int64[4] s) {
  a = Conv(x, w0)
  r = Relu(a)
  s = Shape(r)
  scales = Constant<value = float[4] {1, 1, 2, 2}>()
  up = Resize<mode = "linear">(r, , scales)
  y1 = Conv<pads = [1,1,1,1]>(up, w1)
  starts = Constant<value = int64[1] {0}>()
  ends = Constant<value = int64[1] {2}>()
  nc = Slice(s, starts, ends)
  hw = Constant<value = int64[2] {27, 8}>()
  sizes = Concat<axis = 0>(nc, hw)
  y2 = Resize<mode = "nearest", nearest_mode = "round_prefer_ceil">(r, , , sizes)
  scales3 = Constant<value = float[4] {1, 1, 2.1, 2.1}>()
  up3 = Resize<mode = "linear", coordinate_transformation_mode = "align_corners">(r, , scales3)
  y3 = Conv<pads = [1,1,1,1]>(up3, w2)
}
)",
                                  1, nullptr, &ops),
            3);
  EXPECT_EQ(ops["NchwcResize"], 3);
  EXPECT_EQ(ops["NchwcShape"], 1);
  EXPECT_EQ(ops["Resize"], 0);
}

TEST(Nchwc, BlockedResizeIsBitIdenticalToThePlainOne) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // A 1x1 convolution by the identity passes x through exactly, so the resizes of the optimized session (blocked)
  // and of the unoptimized one (plain) read the same values: their outputs must agree to the bit.
  std::mt19937 rng(3);
  const Tensor x = RandomTensor({2, 11, 9, 7}, rng);
  const auto outputs = RunPlainAndBlocked(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,11,9,7] x) => (float[2,11,18,14] y1, float[2,11,18,14] y2, float[2,11,5,13] y3) {
  a = Conv(x, eye)
  s1 = Constant<value = float[4] {1, 1, 2, 2}>()
  y1 = Resize<mode = "linear">(a, , s1)
  s2 = Constant<value = float[4] {1, 1, 2.1, 2.1}>()
  y2 = Resize<mode = "linear", coordinate_transformation_mode = "align_corners">(a, , s2)
  s3 = Constant<value = int64[4] {2, 11, 5, 13}>()
  y3 = Resize<mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor">(a, , , s3)
}
)",
                                          11, x, "NchwcResize", 3);
  ASSERT_EQ(outputs[0].size(), 3u);
  ASSERT_EQ(outputs[1].size(), 3u);
  for (size_t o = 0; o < 3; ++o) {
    const Tensor& want = outputs[0][o].tensor();
    const Tensor& got = outputs[1][o].tensor();
    ASSERT_EQ(want.shape(), got.shape()) << "output " << o;
    for (int64_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(want.data<float>()[i], got.data<float>()[i]) << "output " << o << " element " << i;
    }
  }
}

TEST(Nchwc, BlockedPoolingAgreesWithThePlainOne) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // NchwcPool (its own loops, b channels at a time) against the plain pooling kernels on the same values (a 1x1
  // convolution by the identity passes x through exactly): max bit for bit, with a NaN that must reach every window
  // holding it; averages within float rounding (1/count multiplied, not divided). Ceil mode, pads, dilations, global.
  std::mt19937 rng(5);
  Tensor x = RandomTensor({2, 11, 13, 10}, rng);
  x.data<float>()[((1 * 11 + 4) * 13 + 6) * 10 + 3] = std::numeric_limits<float>::quiet_NaN();
  // A negative NaN too (what x86 arithmetic makes): the check must not depend on the sign bit.
  x.data<float>()[((0 * 11 + 9) * 13 + 2) * 10 + 7] = -std::numeric_limits<float>::quiet_NaN();
  const auto outputs = RunPlainAndBlocked(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,11,13,10] x) => (float[2,11,7,5] m1, float[2,11,13,11] m2, float[2,11,7,6] a1, float[2,11,7,4] a2,
                           float[2,11,1,1] g1, float[2,11,1,1] g2) {
  a = Conv(x, eye)
  m1 = MaxPool<kernel_shape = [3,3], strides = [2,2], ceil_mode = 1>(a)
  m2 = MaxPool<kernel_shape = [2,3], pads = [1,0,0,3], dilations = [2,1]>(a)
  a1 = AveragePool<kernel_shape = [3,3], strides = [2,2], pads = [1,1,1,1], count_include_pad = 1>(a)
  a2 = AveragePool<kernel_shape = [3,2], strides = [2,3], pads = [0,1,1,0], ceil_mode = 1>(a)
  g1 = GlobalAveragePool(a)
  g2 = GlobalMaxPool(a)
}
)",
                                          11, x, "NchwcPool", 6);
  ASSERT_EQ(outputs[0].size(), 6u);
  ASSERT_EQ(outputs[1].size(), 6u);
  int nans = 0;
  for (size_t o = 0; o < 6; ++o) {
    const Tensor& want = outputs[0][o].tensor();
    const Tensor& got = outputs[1][o].tensor();
    ASSERT_EQ(want.shape(), got.shape()) << "output " << o;
    const bool is_max = o == 0 || o == 1 || o == 5;
    for (int64_t i = 0; i < want.size(); ++i) {
      const float a = want.data<float>()[i], b = got.data<float>()[i];
      if (std::isnan(a)) {
        ++nans;
        ASSERT_TRUE(std::isnan(b)) << "output " << o << " element " << i;
      } else if (is_max) {
        ASSERT_EQ(a, b) << "output " << o << " element " << i;
      } else {
        ASSERT_NEAR(a, b, 1e-6f * (1.0f + std::fabs(a))) << "output " << o << " element " << i;
      }
    }
  }
  EXPECT_GT(nans, 12);  // each NaN reached a window of each output
}

TEST(Nchwc, UpsampleOfOpset9StaysBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  std::map<std::string, int> ops;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 4, opset_import: ["" : 9]>
g (float[1,8,5,6] x, float[8,8,3,3] w0, float[8,8,3,3] w1) => (float[1,8,10,18] y) {
  a = Conv<pads = [1,1,1,1]>(x, w0)
  scales = Constant<value = float[4] {1, 1, 2, 3}>()
  up = Upsample<mode = "nearest">(a, scales)
  y = Conv<pads = [1,1,1,1]>(up, w1)
}
)",
                                  1, nullptr, &ops),
            2);
  EXPECT_EQ(ops["NchwcResize"], 1);
}

TEST(Nchwc, OnePixelImagesReorderBothWays) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // Images of one pixel (NchwcReorder copies them: an image's blocked channels are its plain ones and the padding of
  // the last block) into and out of the blocked layout, two images of 20 channels (not a whole block either way).
  int reorders = 0;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,20,1,1] x, float[24,20,1,1] w0, float[24] b0, float[13,24,1,1] w1) => (float[2,13,1,1] y) {
  a = Conv(x, w0, b0)
  r = Relu(a)
  y = Conv(r, w1)
}
)",
                                  3, &reorders),
            2);
  EXPECT_EQ(reorders, 2);
}

TEST(Nchwc, WinogradSizedConvWithResidualAndRelu) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // 3x3 stride-1 convolutions of 16+ -> 64+ channels over >= 400 output pixels take a Winograd path: oneDNN's with
  // AVX-512, onyx's own F(4x4, 3x3) with AVX2 (kernels/winograd_conv.h). Its sums round differently from direct
  // ones: on these random weights the second convolution adds 576 terms into outputs up to ~100 and differs from
  // the exact sum by up to ~1.6e-4 (direct summation in float: ~6e-5; winograd_conv_test bounds it against the
  // terms' magnitude), so near-zero outputs are compared to 5e-4 here instead of 1e-4.
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,21,23] x, float[64,16,3,3] w1, float[64] b1, float[64,64,3,3] w2) => (float[1,64,21,23] y) {
  c1 = Conv<pads = [1,1,1,1]>(x, w1, b1)
  r1 = Relu(c1)
  c2 = Conv<pads = [1,1,1,1]>(r1, w2)
  s = Add(r1, c2)
  y = Relu(s)
}
)",
                                  1, nullptr, nullptr, 5e-4f),
            2);
}

TEST(Nchwc, ResidualBufferReusedOnlyWhenNothingReadsItLater) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // The fused residual sum writes into the residual's buffer when the conv is its last reader (r2); r1 is read
  // again after its fused sum (by the Sigmoid) and r3 is a graph output, so those two must be copied.
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,9,7] x, float[16,16,3,3] w1, float[16,16,3,3] w2, float[16,16,1,1] w3, float[16,16,1,1] w4)
  => (float[1,16,9,7] y, float[1,16,9,7] z, float[1,16,9,7] r3) {
  c1 = Conv<pads = [1,1,1,1]>(x, w1)
  r1 = Relu(c1)
  c2 = Conv<pads = [1,1,1,1]>(r1, w2)
  s2 = Add(c2, r1)
  r2 = Relu(s2)
  z = Sigmoid(r1)
  c3 = Conv(r2, w3)
  s3 = Add(c3, r2)
  r3 = Relu(s3)
  c4 = Conv(r3, w4)
  s4 = Add(r3, c4)
  y = Relu(s4)
}
)"),
            4);
  kernels::SetTuningModeOverride(std::nullopt);
}

TEST(Nchwc, ChannelZeroPadByConcatStaysBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // BlazeFace (TF export): channels padded by Concat with ConstantOfShape zeros, then a residual Add. 24 -> 28
  // channels keeps two blocks (the blocked buffer is reused); 28 -> 40 adds a block (zero blocks appended). The
  // padded values are also graph outputs, read back in the plain layout. A Sigmoid's blocked padding holds 0.5, so
  // padding it must not reuse its buffer (p3).
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 12]>
g (float[1,24,10,10] x, float[24,24,3,3] w0, float[28,1,3,3] wd, float[28,28,1,1] w1, float[28] b1, float[40,40,1,1] w2) => (float[1,28,10,10] p1, float[1,40,10,10] y, float[1,28,10,10] p3) {
  s4 = Constant<value = int64[4] {1,4,10,10}>()
  s12 = Constant<value = int64[4] {1,12,10,10}>()
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  r0 = Relu(c0)
  z4 = ConstantOfShape<value = float[1] {0}>(s4)
  p1 = Concat<axis = 1>(r0, z4)
  d = Conv<pads = [1,1,1,1], group = 28>(p1, wd)
  c1 = Conv(d, w1, b1)
  a1 = Add(c1, p1)
  r1 = Relu(a1)
  z12 = ConstantOfShape<value = float[1] {0}>(s12)
  p2 = Concat<axis = 1>(r1, z12)
  c2 = Conv(p2, w2)
  a2 = Add(c2, p2)
  y = Relu(a2)
  sg = Sigmoid(r0)
  p3 = Concat<axis = 1>(sg, z4)
}
)"),
            4);
  kernels::SetTuningModeOverride(std::nullopt);
}

TEST(Nchwc, ChannelZeroPadByPadNodeStaysBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // BlazeFace (TFLite conversion): channels padded by Pad [0,0,0,0, 0,c,0,0]. 24 -> 28 stays within two blocks
  // (a wider view of the same buffer); 28 -> 40 pads one zero block onto the block axis. p1 is also a graph output
  // (read back plain). A Pad with spatial amounts (p4) is not a channel pad and leaves the blocked layout.
  int reorders = -1;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,24,10,10] x, float[24,24,3,3] w0, float[28,1,3,3] wd, float[28,28,1,1] w1, float[28] b1, float[40,40,1,1] w2) => (float[1,28,10,10] p1, float[1,40,10,10] y, float[1,24,12,10] p4) {
  pads4 = Constant<value = int64[8] {0,0,0,0, 0,4,0,0}>()
  pads12 = Constant<value = int64[8] {0,0,0,0, 0,12,0,0}>()
  spatial = Constant<value = int64[8] {0,0,1,0, 0,0,1,0}>()
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  r0 = Relu(c0)
  p1 = Pad(r0, pads4)
  d = Conv<pads = [1,1,1,1], group = 28>(p1, wd)
  c1 = Conv(d, w1, b1)
  a1 = Add(c1, p1)
  r1 = Relu(a1)
  p2 = Pad(r1, pads12)
  c2 = Conv(p2, w2)
  a2 = Add(c2, p2)
  y = Relu(a2)
  p4 = Pad(r0, spatial)
}
)",
                                  1, &reorders),
            4);
  // x in; p1, y and r0 (for the spatial Pad) out. Pads that left the layout would add two reorders each.
  EXPECT_EQ(reorders, 4);
}

TEST(Nchwc, ResidualShortcutsAfterTheConvInNodeOrderStillFuse) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // TFLite's BlazeFace as converted: each block's convolution comes before its shortcut (a channel Pad, or a MaxPool
  // then a Pad) in the node order. The shortcut is walked early, so the Add and the Relu after it fuse into the 1x1
  // convolution as its residual sum and activation: no Add or Relu is left.
  std::map<std::string, int> ops;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,24,12,12] x, float[24,24,3,3] w0, float[24,1,3,3] wd1, float[28,24,1,1] w1, float[28] b1, float[28,1,3,3] wd2, float[32,28,1,1] w2) => (float[1,32,6,6] y) {
  pads4 = Constant<value = int64[8] {0,0,0,0, 0,4,0,0}>()
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  r0 = Relu(c0)
  d1 = Conv<pads = [1,1,1,1], group = 24>(r0, wd1)
  c1 = Conv(d1, w1, b1)
  p1 = Pad(r0, pads4)
  a1 = Add(p1, c1)
  r1 = Relu(a1)
  d2 = Conv<pads = [0,0,1,1], strides = [2,2], group = 28>(r1, wd2)
  c2 = Conv(d2, w2)
  m2 = MaxPool<kernel_shape = [2,2], strides = [2,2]>(r1)
  p2 = Pad(m2, pads4)
  a2 = Add(p2, c2)
  y = Relu(a2)
}
)",
                                  1, nullptr, &ops),
            5);
  EXPECT_EQ(ops["Add"], 0);
  EXPECT_EQ(ops["Relu"], 0);
}

TEST(Nchwc, PerChannelConstantsAndSumStayBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // What TF and Keras conversions write between convolutions: AddN as Sum, BiasAdd as an Add of [1, C, 1, 1], a
  // BatchNormalization after a residual sum as Mul and Add of [C, 1, 1] (constant first too), over 20 channels
  // (a partial last block, whose padding must stay zero for the next convolution). A 1-D [C] operand aligns with W,
  // not the channels: that Add leaves the layout.
  int reorders = -1;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,20,9,9] x, float[20,20,3,3] w0, float[20,20,1,1] w1, float[1,20,1,1] bias, float[20,1,1] scale, float[20,1,1] shift, float[20,20,3,3] w2, float[9] row) => (float[1,20,9,9] y, float[1,20,9,9] z) {
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  c1 = Conv(c0, w1)
  s = Sum(c0, c1, c0)
  b = Add(s, bias)
  m = Mul(scale, b)
  a = Sub(shift, m)
  y = Conv<pads = [1,1,1,1]>(a, w2)
  z = Add(a, row)
}
)",
                                  1, &reorders),
            3);
  // x in; y out; a read back plain once for the Add of a 1-D operand (z is that Add's plain output).
  EXPECT_EQ(reorders, 3);
}

TEST(Nchwc, QuantizeDequantizePairsBetweenFloatConvolutionsStayBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // A QDQ model whose convolutions stay in float (int8 activations on x86-64): the activations' Q/DQ pairs with
  // equal one-value parameters run on the blocked buffers. 20 channels: the padding goes through Q(0) = zero point
  // and back to 0 for the next convolution. A pair with different zero points (q2/d2) leaves the layout. Results
  // may differ by one quantization step where the two layouts' float sums round a value across a step.
  int reorders = -1;
  std::map<std::string, int> ops;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,20,9,9] x, float[20,20,3,3] w0, float[20,20,1,1] w1, float[20,20,1,1] w2) => (float[1,20,9,9] y) {
  s = Constant<value = float {0.01}>()
  z = Constant<value = int8 {-3}>()
  z2 = Constant<value = int8 {5}>()
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  q0 = QuantizeLinear(c0, s, z)
  d0 = DequantizeLinear(q0, s, z)
  c1 = Conv(d0, w1)
  q1 = QuantizeLinear(c1, s, z)
  d1 = DequantizeLinear(q1, s, z)
  c2 = Conv(d1, w2)
  q2 = QuantizeLinear(c2, s, z)
  y = DequantizeLinear(q2, s, z2)
}
)",
                                  1, &reorders, &ops, 0.0101f),
            3);
  // x in; c2 read back plain for the unequal pair. The two equal pairs then run as one pass each, still blocked
  // (FusedElementwise, optimizer/elementwise_chain_fusion.h).
  EXPECT_EQ(reorders, 2);
  EXPECT_EQ(ops["QuantizeLinear"], 1);
  EXPECT_EQ(ops["FusedElementwise"], 2);
}

TEST(Nchwc, PReluWithOneSlopePerChannelStaysBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // Palm detection (TFLite): PRelu between convolutions, its slope one per channel ([C,1,1]; 20 channels, so the
  // second block is partly padding), then one slope for all ([1]).
  int reorders = -1;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,9,9] x, float[20,8,3,3] w0, float[20,1,1] slope, float[20,20,1,1] w1, float[1] one) => (float[1,20,9,9] y) {
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  p0 = PRelu(c0, slope)
  c1 = Conv(p0, w1)
  y = PRelu(c1, one)
}
)",
                                  3, &reorders),
            2);
  // y out (the first convolution reads the plain x itself; with blocks of 8, AVX2, its 8 channels are one whole
  // block and x is reordered in as well); each PRelu run plain would add two.
  EXPECT_EQ(reorders, kernels::NchwcBlockSize() == 8 ? 2 : 1);
}

TEST(Nchwc, SiluFusesIntoTheConvolution) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // EfficientNet's SiLU as torch exports it, Mul(x, Sigmoid(x)), in both operand orders, after a convolution and
  // after the depthwise one fused into it; a Sigmoid also read elsewhere keeps the Mul apart.
  std::map<std::string, int> ops;
  EXPECT_GE(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,9,9] x, float[20,8,1,1] w0, float[20,1,3,3] wd, float[20,20,1,1] w1) => (float[1,20,9,9] y, float[1,20,9,9] z) {
  c0 = Conv(x, w0)
  s0 = Sigmoid(c0)
  m0 = Mul(c0, s0)
  d = Conv<group = 20, pads = [1,1,1,1]>(m0, wd)
  s1 = Sigmoid(d)
  m1 = Mul(s1, d)
  c1 = Conv(m1, w1)
  z = Sigmoid(c1)
  y = Mul(c1, z)
}
)",
                                  1, nullptr, &ops),
            2);                  // the depthwise convolution fused into the first or not, by the CPU's rules
  EXPECT_EQ(ops["Sigmoid"], 1);  // z's: it is a graph output, so y's Mul stays
  EXPECT_EQ(ops["Mul"], 1);
  EXPECT_EQ(ops["FusedElementwise"], 0);  // unfused, each SiLU would be a Sigmoid-and-Mul chain
}

TEST(Nchwc, GeluBetweenConvolutionsStaysBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // MaxViT's MBConv: a 1x1 convolution, GELU in its erf form as torch exports it (fused into one Gelu), then a
  // depthwise 3x3 convolution; 20 channels, so the last block is partly padding, which Gelu(0) = 0 keeps zero.
  int reorders = -1;
  std::map<std::string, int> ops;
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,9,9] x, float[20,8,1,1] w0, float[20,1,3,3] wd) => (float[1,20,9,9] y) {
  sqrt2 = Constant<value = float {1.4142135}>()
  one = Constant<value = float {1}>()
  half = Constant<value = float {0.5}>()
  c0 = Conv(x, w0)
  d = Div(c0, sqrt2)
  e = Erf(d)
  a = Add(e, one)
  m = Mul(c0, a)
  g = Mul(m, half)
  y = Conv<group = 20, pads = [1,1,1,1]>(g, wd)
}
)",
                                  1, &reorders, &ops),
            2);
  EXPECT_EQ(ops["Gelu"], 1);
  // x in (with blocks of 8, AVX2, its 8 channels are a whole block and the first convolution reads it plain) and y
  // out; a Gelu run plain would add two.
  EXPECT_EQ(reorders, kernels::NchwcBlockSize() == 8 ? 2 : 1);
}

TEST(Nchwc, HardSwishAndSqueezeExcitationStayBlocked) {
  if (!kernels::BlockedConvolutionIsFast())
    GTEST_SKIP() << "no blocked layout on this CPU: sessions keep the plain layout";
  // PaddleOCR's MobileNetV3 blocks: x * relu6(x + 3) / 6 (fused into HardSwish, then into the conv), a
  // squeeze-and-excitation gate (GlobalAveragePool, 1x1 convs, HardSigmoid whose f(0) != 0 dirties the blocked
  // padding, Mul by the zero-padded activation clears it), a Sigmoid gate convolved directly (its padding is not
  // zero: the conv must read a re-blocked copy), and scalar Mul/Add on blocked values. 20 channels: padded blocks.
  EXPECT_EQ(ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,3,9,11] x, float[20,3,3,3] w0, float[20] b0, float[8,20,1,1] wr, float[8] br, float[20,8,1,1] we, float[20] be, float[20,20,1,1] w1, float[20,20,1,1] w2) => (float[1,20,9,11] y, float[1,20,9,11] z) {
  three = Constant<value = float {3}>()
  six = Constant<value = float {6}>()
  zero = Constant<value = float {0}>()
  half = Constant<value = float {0.5}>()
  c0 = Conv<pads = [1,1,1,1]>(x, w0, b0)
  a = Add(c0, three)
  cl = Clip(a, zero, six)
  m = Mul(c0, cl)
  hs = Div(m, six)
  gp = GlobalAveragePool(hs)
  cr = Conv(gp, wr, br)
  rr = Relu(cr)
  ce = Conv(rr, we, be)
  gate = HardSigmoid<alpha = 0.2, beta = 0.5>(ce)
  se = Mul(hs, gate)
  c1 = Conv(se, w1)
  y = Mul(c1, half)
  sg = Sigmoid(c1)
  sh = Add(sg, half)
  z = Conv(sh, w2)
}
)"),
            5);
}

}  // namespace
}  // namespace onyx
