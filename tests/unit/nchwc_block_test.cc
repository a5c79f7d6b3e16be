// The blocked layout at both channel blocks, whatever this CPU is: each model is rewritten by the layout pass with
// block 8 (nChw8c, AVX2) and with block 16 (nChw16c, AVX-512) explicitly, run without further optimization, and
// compared with the reference kernels (weights fed as inputs, so no Nchwc* node). nchwc_test.cc covers the block
// the process chooses (run it with ONYX_MAX_ISA=avx2 for the AVX2 choice).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "ir/model.h"
#include "ir/nchwc_ops.h"
#include "kernels/cpu_isa.h"
#include "optimizer/nchwc_layout.h"
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

struct Rewritten {
  int convs = -1;     // NchwcConv nodes
  int reorders = -1;  // NchwcReorder nodes
};

SessionOptions Unoptimized() {
  SessionOptions so;
  so.optimization_level = optimizer::OptLevel::kDisabled;
  return so;
}

// Rewrites `text` with channel block `block` (inputs other than "x" become initializers), checks that every
// Nchwc* node and every blocked constant the pass made use that block, and compares two runs with the reference.
Rewritten ExpectSameAsReference(const std::string& text, int block, unsigned seed = 1, float atol = 1e-4f) {
  Rewritten r;
  auto parsed = text::ParseModel(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return r;
  std::mt19937 rng(seed);
  std::vector<std::pair<std::string, Value>> feeds;
  ir::Model blocked_model = *parsed;
  blocked_model.graph.inputs.clear();
  for (const auto& in : parsed->graph.inputs) {
    Shape shape;
    for (const auto& d : *in.type->shape) shape.push_back(d.value);
    Tensor t = RandomTensor(shape, rng);
    feeds.emplace_back(in.name, t);
    if (in.name == "x") {
      blocked_model.graph.inputs.push_back(in);
    } else {
      blocked_model.graph.initializers.push_back(ir::NamedTensor{in.name, "", t, {}, {}});
    }
  }
  const size_t initializers_before = blocked_model.graph.initializers.size();
  auto converted = optimizer::ApplyNchwcLayout(blocked_model, block);
  EXPECT_TRUE(converted.ok()) << converted.status().message();
  if (!converted.ok()) return r;
  for (const auto& n : blocked_model.graph.nodes) {
    if (n.domain != ir::kInternalDomain || n.op_type.rfind("Nchwc", 0) != 0) continue;
    const auto* a = n.FindAttribute(ir::nchwc::kBlockAttr);
    EXPECT_TRUE(a != nullptr && a->i == block) << n.name << " (" << n.op_type << ") lacks block " << block;
  }
  for (size_t i = initializers_before; i < blocked_model.graph.initializers.size(); ++i) {
    const Tensor& t = blocked_model.graph.initializers[i].tensor;
    if (t.type() == DataType::kFloat) {
      EXPECT_EQ(t.rank(), 5);
      EXPECT_EQ(t.dim(t.rank() - 1), block) << blocked_model.graph.initializers[i].name;
    }
  }
  auto reference = Session::Create(*parsed, Unoptimized());
  EXPECT_TRUE(reference.ok()) << reference.status().message();
  auto blocked = Session::Create(blocked_model, Unoptimized());
  EXPECT_TRUE(blocked.ok()) << blocked.status().message();
  if (!reference.ok() || !blocked.ok()) return r;
  for (int run = 0; run < 2; ++run) {
    auto x = std::find_if(feeds.begin(), feeds.end(), [](const auto& f) { return f.first == "x"; });
    if (run > 0) x->second = RandomTensor(x->second.tensor().shape(), rng);
    std::vector<Value> want, got;
    Status st = (*reference)->Run(feeds, {}, &want);
    EXPECT_TRUE(st.ok()) << st.message();
    st = (*blocked)->Run({*x}, {}, &got);
    EXPECT_TRUE(st.ok()) << st.message();
    if (want.size() != got.size()) return r;
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
          ADD_FAILURE() << "block " << block << ", run " << run << ", output " << o << " element " << i
                        << ": reference " << a << ", blocked " << b;
          ++bad;
        }
      }
    }
  }
  r.convs = CountOp((*blocked)->model().graph, ir::nchwc::kConv);
  r.reorders = CountOp((*blocked)->model().graph, ir::nchwc::kReorder);
  return r;
}

class NchwcBlock : public ::testing::TestWithParam<int> {};

TEST_P(NchwcBlock, PlainAndBlockedInputsWithOddChannelsStrideAndPooling) {
  // 3 input channels: the first conv reads the plain input; 13 and 21 channels: partly padded last blocks at
  // either size. The blocked poolings read the second conv's result (the ceil-mode one sized by ONNX's rounding).
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,17,13] x, float[13,3,3,3] w, float[13] b, float[21,13,3,3] w2) => (float[2,21,3,3] m, float[2,21,3,3] a, float[2,21,1,1] ga) {
  c = Conv<pads = [1,1,1,1], strides = [2,2]>(x, w, b)
  r = Relu(c)
  c2 = Conv<pads = [1,1,1,1]>(r, w2)
  m = MaxPool<kernel_shape = [3,3], strides = [3,3], ceil_mode = 1>(c2)
  a = AveragePool<kernel_shape = [3,3], strides = [3,3], pads = [1,1,1,1], count_include_pad = 1>(c2)
  ga = GlobalAveragePool(c2)
}
)",
                                            GetParam());
  EXPECT_EQ(r.convs, 2);
}

TEST_P(NchwcBlock, BlockedInputOfFewerChannelsThanOneBlock) {
  // 5 channels written blocked by the first conv, read blocked by two more: NchwcConv pads their weights with zero
  // input channels to the whole block (oneDNN's JIT kernels decline partial-block inputs).
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,3,10,9] x, float[5,3,3,3] w0, float[6,5,3,3] w1, float[6] b1, float[7,5,1,1] w2) => (float[1,6,5,5] y, float[1,7,10,9] z) {
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  r0 = Relu(c0)
  y = Conv<pads = [1,1,1,1], strides = [2,2]>(r0, w1, b1)
  z = Conv(r0, w2)
}
)",
                                            GetParam(), 5);
  EXPECT_EQ(r.convs, 3);
}

TEST_P(NchwcBlock, DilatedConvolutionWithResidualSum) {
  // Dilation 5 (M-LSD's dilated convs): oneDNN 2.6's AVX2 kernels (block 8) decline it, so NchwcConv runs it in the
  // layouts oneDNN chooses, reordering around it, with the residual sum and Relu still fused.
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,20,17] x, float[16,16,3,3] w0, float[16,16,3,3] w1, float[16] b1) => (float[1,16,20,17] y) {
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  r0 = Relu(c0)
  c1 = Conv<pads = [5,5,5,5], dilations = [5,5]>(r0, w1, b1)
  s = Add(c1, r0)
  y = Relu(s)
}
)",
                                            GetParam(), 7);
  EXPECT_EQ(r.convs, 2);
}

TEST_P(NchwcBlock, ResidualActivationsAndFusedDepthwise) {
  // MobileNet-v2's expand (1x1 + Clip 0..6) then depthwise 3x3 stride 2 (+ Clip); a residual Add and Relu fused
  // into the last conv. 24 channels: three whole blocks of 8, so the depthwise conv fuses into the 1x1 one as
  // oneDNN's post-op; one and a half blocks of 16, so it stays a convolution of its own.
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,13,11] x, float[24,8,1,1] w1, float[24] b1, float[24,1,3,3] w2, float[24] b2, float[24,24,3,3] w3) => (float[1,24,7,6] y) {
  lo = Constant<value = float {0}>()
  hi = Constant<value = float {6}>()
  c1 = Conv(x, w1, b1)
  r1 = Clip(c1, lo, hi)
  c2 = Conv<pads = [1,1,1,1], strides = [2,2], group = 24>(r1, w2, b2)
  d = Clip(c2, lo, hi)
  c3 = Conv<pads = [1,1,1,1]>(d, w3)
  s = Add(c3, d)
  y = Relu(s)
}
)",
                                            GetParam());
  EXPECT_EQ(r.convs, GetParam() == 8 ? 2 : 3);
}

TEST_P(NchwcBlock, ConcatOfWholeBlocksStaysBlocked) {
  // Two 8-channel branches concatenated: whole blocks at block 8 (the Concat stays blocked: only x in and y out
  // reorder), not at block 16 (the Concat runs plain: its two inputs and its output reorder as well).
  const int block = GetParam();
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,9,9] x, float[8,16,1,1] w1, float[8,16,3,3] w3, float[16,16,1,1] w) => (float[1,16,9,9] y) {
  e1 = Conv(x, w1)
  e3 = Conv<pads = [1,1,1,1]>(x, w3)
  r1 = Relu(e1)
  r3 = Relu(e3)
  c = Concat<axis = 1>(r1, r3)
  y = Conv(c, w)
}
)",
                                            block);
  EXPECT_EQ(r.convs, 3);
  EXPECT_EQ(r.reorders, block == 8 ? 2 : 5);
}

TEST_P(NchwcBlock, PReluSlopeAndChannelPadInBlocks) {
  // 20 channels (a partly padded last block at both sizes); the per-channel slope is laid out in blocks of the
  // pass's size. Pad 20 -> 28 channels stays in two blocks of 16, grows from three to four blocks of 8.
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,9,9] x, float[20,8,3,3] w0, float[20,1,1] slope, float[28,28,1,1] w1) => (float[1,28,9,9] y) {
  pads = Constant<value = int64[8] {0,0,0,0, 0,8,0,0}>()
  c0 = Conv<pads = [1,1,1,1]>(x, w0)
  p0 = PRelu(c0, slope)
  p1 = Pad(p0, pads)
  c1 = Conv(p1, w1)
  y = Add(c1, p1)
}
)",
                                            GetParam(), 3);
  EXPECT_EQ(r.convs, 2);
  // y out, and x in at block 8 (8 channels: a whole block; below one block of 16 the first conv reads x plain).
  // The PRelu and the Pad stay blocked.
  EXPECT_EQ(r.reorders, GetParam() == 8 ? 2 : 1);
}

TEST_P(NchwcBlock, WinogradSizedConvolutions) {
  // 3x3 stride-1 convs of 16 -> 64 channels over 21x23 pixels: Winograd where oneDNN offers it (AVX-512), onyx's own
  // F(4x4, 3x3) in blocks of 8 (AVX2), or direct; the same results either way, within Winograd's rounding (outputs up
  // to ~100 from 576 terms differ from the exact sums by up to ~1.6e-4: nchwc_test.cc says more).
  const Rewritten r = ExpectSameAsReference(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,21,23] x, float[64,16,3,3] w1, float[64] b1, float[64,64,3,3] w2) => (float[1,64,21,23] y) {
  c1 = Conv<pads = [1,1,1,1]>(x, w1, b1)
  r1 = Relu(c1)
  c2 = Conv<pads = [1,1,1,1]>(r1, w2)
  s = Add(r1, c2)
  y = Relu(s)
}
)",
                                            GetParam(), 1, 5e-4f);
  EXPECT_EQ(r.convs, 2);
}

INSTANTIATE_TEST_SUITE_P(Blocks, NchwcBlock, ::testing::Values(8, 16),
                         [](const ::testing::TestParamInfo<int>& info) { return "b" + std::to_string(info.param); });

TEST(NchwcBlockChoice, PassTakesTheProcessBlockByDefault) {
  if (kernels::NchwcBlockSize() == 0) GTEST_SKIP() << "no blocked layout on this CPU";
  auto parsed = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,5,5] x, float[16,16,1,1] w) => (float[1,16,5,5] y) {
  y = Conv(x, w)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ir::Model m = *parsed;
  m.graph.inputs.pop_back();
  m.graph.initializers.push_back(
      ir::NamedTensor{"w", "", Tensor::Allocate(DataType::kFloat, {16, 16, 1, 1}, true), {}, {}});
  auto converted = optimizer::ApplyNchwcLayout(m);
  ASSERT_TRUE(converted.ok()) << converted.status().message();
  EXPECT_EQ(*converted, 1);
  int seen = 0;
  for (const auto& n : m.graph.nodes) {
    if (n.op_type != ir::nchwc::kConv && n.op_type != ir::nchwc::kReorder) continue;
    const auto* a = n.FindAttribute(ir::nchwc::kBlockAttr);
    ASSERT_NE(a, nullptr) << n.name;
    EXPECT_EQ(a->i, kernels::NchwcBlockSize()) << n.name;
    ++seen;
  }
  EXPECT_EQ(seen, 3);  // reorder in, conv, reorder out
}

TEST(NchwcBlockChoice, PassRejectsOtherBlocks) {
  ir::Model m;
  auto converted = optimizer::ApplyNchwcLayout(m, 12);
  ASSERT_FALSE(converted.ok());
  EXPECT_NE(converted.status().message().find("12"), std::string::npos) << converted.status().message();
}

TEST(NchwcBlockChoice, KernelRejectsOtherBlocksNamingTheNode) {
  auto parsed = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,16,5,5] x) => (float[1,16,5,5] y) {
  y = Relu(x)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ir::Model m = *parsed;
  ir::Node& n = m.graph.nodes[0];
  n.name = "to_blocked_12";
  n.op_type = ir::nchwc::kReorder;
  n.domain = ir::kInternalDomain;
  n.attributes = {ir::IntAttr("to_blocked", 1), ir::IntAttr(ir::nchwc::kBlockAttr, 12)};
  m.opset_import.push_back({ir::kInternalDomain, 1});
  auto session = Session::Create(m, Unoptimized());
  ASSERT_FALSE(session.ok());
  const std::string& msg = session.status().message();
  EXPECT_NE(msg.find("to_blocked_12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("attribute 'block' is 12"), std::string::npos) << msg;
}

}  // namespace
}  // namespace onyx
