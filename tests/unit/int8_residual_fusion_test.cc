// The residual-add fusion of the 8-bit layout (optimizer/int8_residual_fusion.h) and the fused node's kernel
// (ops/quant/qlinear_conv_nhwc.cc, kernels/int8_pointwise_nhwc.h): which QLinearAdds
// go into the convolution before them, and that the fused node gives the bytes of the two operators one after the
// other, with the convolution's result as the Add's A or B, uint8 and int8, stride 1 and 2, 1x1 and 3x3 windows, with
// onyx's kernels (the add in their registers) and with oneDNN's convolution (the add after it, in place), and with a
// residual that broadcasts.
#include "optimizer/int8_residual_fusion.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "kernels/int8_pointwise_nhwc.h"
#include "kernels/tuning_cache.h"
#include "op_test_helpers.h"
#include "optimizer/int8_nhwc_layout.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

// x [1,32,7,9] -> r = QLinearConv 3x3 (pad 1, stride S) and c = QLinearConv 1x1 (stride S) -> s = QLinearAdd(ADD)
// -> output s, 40 output channels (one whole and one partial panel of 32), 7 x 9 or 4 x 5 pixels (partial tiles).
const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (T[1,32,7,9] x) => (T s) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = T {XZ}>()
  wz = Constant<value = int8 {0}>()
  w3 = Constant<value = int8[40,32,3,3] {W3}>()
  w1 = Constant<value = int8[40,32,1,1] {W1}>()
  ws = Constant<value = float[40] {WS}>()
  b = Constant<value = int32[40] {B}>()
  rs = Constant<value = float {0.7}>()
  rz = Constant<value = T {RZ}>()
  cs = Constant<value = float {0.4}>()
  cz = Constant<value = T {CZ}>()
  ss = Constant<value = float {0.55}>()
  sz = Constant<value = T {SZ}>()
  r = QLinearConv<pads = [1,1,1,1], strides = [S,S]>(x, xs, xz, w3, ws, wz, rs, rz, b)
  c = QLinearConv<strides = [S,S]>(x, xs, xz, w1, ws, wz, cs, cz, b)
  s = ai.onyx.internal.QLinearAdd(ADD, ss, sz)
}
)";

using testing::ReplaceAll;

struct Case {
  bool is_signed = false;
  bool conv_is_a = true;
  int stride = 1;
  bool three_by_three = false;  // c is a 3x3 convolution (pad 1) instead of 1x1
};

std::string ModelText(const Case& c) {
  std::string t = kModel;
  ReplaceAll(t, "{W3}", "{" + testing::RandomIntsText(40 * 32 * 9, -127, 127, 1) + "}");
  ReplaceAll(t, "{W1}", "{" + testing::RandomIntsText(40 * 32, -127, 127, 2) + "}");
  ReplaceAll(t, "{B}", "{" + testing::RandomIntsText(40, -3000, 3000, 3) + "}");
  std::string ws;
  for (int i = 0; i < 40; ++i) ws += (i ? "," : "") + std::to_string(0.0005 * (i + 1));
  ReplaceAll(t, "{WS}", "{" + ws + "}");
  ReplaceAll(t, "ADD", c.conv_is_a ? "c, cs, cz, r, rs, rz" : "r, rs, rz, c, cs, cz");
  ReplaceAll(t, "T[", c.is_signed ? "int8[" : "uint8[");
  ReplaceAll(t, "T s", c.is_signed ? "int8 s" : "uint8 s");
  ReplaceAll(t, "T {", c.is_signed ? "int8 {" : "uint8 {");
  ReplaceAll(t, "{XZ}", c.is_signed ? "{-3}" : "{5}");
  ReplaceAll(t, "{RZ}", c.is_signed ? "{-128}" : "{0}");
  ReplaceAll(t, "{CZ}", c.is_signed ? "{7}" : "{131}");
  ReplaceAll(t, "{SZ}", c.is_signed ? "{-20}" : "{100}");
  ReplaceAll(t, "S,S", std::to_string(c.stride) + "," + std::to_string(c.stride));
  if (c.three_by_three) {
    ReplaceAll(t, "c = QLinearConv<strides", "c = QLinearConv<pads = [1,1,1,1], strides");
    ReplaceAll(t, "xz, w1, ws", "xz, w3, ws");
  }
  return t;
}

// `shape` of random bytes (uint8 or int8) from `seed`.
Tensor RandomBytes(DataType type, Shape shape, unsigned seed) {
  Tensor t = Tensor::Allocate(type, std::move(shape), false);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.size(); ++i) static_cast<uint8_t*>(t.raw())[i] = static_cast<uint8_t>(rng() % 256);
  return t;
}

// The model's one output for `feeds` at `level`, on 2 threads.
Tensor RunModel(const ir::Model& m, const std::vector<std::pair<std::string, Value>>& feeds,
                optimizer::OptLevel level) {
  SessionOptions o;
  o.optimization_level = level;
  o.intra_op_num_threads = 2;
  auto s = Session::Create(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return Tensor();
  std::vector<Value> out;
  const Status st = (*s)->Run(feeds, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok() || out.size() != 1) return Tensor();
  return out[0].tensor();
}

Tensor RunModel(const ir::Model& m, const Tensor& x, optimizer::OptLevel level) {
  return RunModel(m, {{"x", Value(x)}}, level);
}

int64_t Differing(const Tensor& e, const Tensor& g) {
  EXPECT_EQ(e.shape(), g.shape());
  EXPECT_EQ(e.type(), g.type());
  if (e.shape() != g.shape() || e.type() != g.type()) return -1;
  int64_t n = 0;
  for (int64_t k = 0; k < e.size(); ++k) {
    n += static_cast<const uint8_t*>(e.raw())[k] != static_cast<const uint8_t*>(g.raw())[k];
  }
  return n;
}

// The layout pass, then the fusion: the graph the session runs at level all on a CPU with AVX-512 VNNI.
ir::Model Fused(const ir::Model& m, int* fused) {
  ir::Model r = m;
  auto layout = optimizer::ApplyInt8NhwcLayout(r);
  EXPECT_TRUE(layout.ok());
  auto n = optimizer::FuseInt8ResidualAdds(r);
  EXPECT_TRUE(n.ok());
  *fused = n.ok() ? *n : -1;
  return r;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (value != nullptr) setenv(name, value, 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(Int8ResidualFusion, FusesTheAddIntoTheConvolution) {
  for (bool conv_is_a : {true, false}) {
    auto m = text::ParseModel(ModelText({false, conv_is_a, 1}));
    ASSERT_TRUE(m.ok()) << m.status().message();
    int fused = 0;
    const ir::Model r = Fused(*m, &fused);
    EXPECT_EQ(fused, 1);
    auto h = ir::OperatorHistogram(r.graph);
    EXPECT_EQ(h["ai.onyx.internal.QLinearAdd"], 0);
    EXPECT_EQ(h["ai.onyx.internal.QLinearConv"], 2);
    int with_sum = 0;
    for (const auto& node : r.graph.nodes) {
      if (node.op_type != "QLinearConv" || node.inputs.size() <= 9) continue;
      ++with_sum;
      const auto* w = node.FindAttribute("sum_conv_operand");
      ASSERT_NE(w, nullptr);
      EXPECT_EQ(w->i, conv_is_a ? 0 : 1);
      EXPECT_EQ(node.inputs.size(), 14u);
    }
    EXPECT_EQ(with_sum, 1);
  }
}

// The model with r a graph output too (read twice, so it cannot fuse): c is the one operand that may.
std::string WithResidualKept(std::string t) {
  ReplaceAll(t, "=> (uint8 s)", "=> (uint8 s, uint8 r)");
  return t;
}

TEST(Int8ResidualFusion, PrefersTheSmallerWindow) {
  // c (1x1) and r (3x3) both eligible: c fuses, whichever operand of the Add it is.
  for (bool conv_is_a : {true, false}) {
    auto m = text::ParseModel(ModelText({false, conv_is_a, 1}));
    ASSERT_TRUE(m.ok()) << m.status().message();
    int fused = 0;
    const ir::Model r = Fused(*m, &fused);
    ASSERT_EQ(fused, 1);
    for (const auto& node : r.graph.nodes) {
      if (node.op_type == "QLinearConv" && node.inputs.size() > 9) {
        EXPECT_EQ(node.inputs[3], "w1");
      }
    }
  }
}

TEST(Int8ResidualFusion, LeavesAddsOfGroupedOrSharedConvolutions) {
  auto count = [](const std::string& t) {
    auto m = text::ParseModel(t);
    EXPECT_TRUE(m.ok()) << m.status().message();
    int fused = -1;
    if (m.ok()) Fused(*m, &fused);
    return fused;
  };
  const std::string base = WithResidualKept(ModelText({false, true, 1}));
  EXPECT_EQ(count(base), 1);
  // A convolution of 4 groups: onyx's kernels take one group only.
  std::string t = base;
  ReplaceAll(t, "c = QLinearConv<strides = [1,1]>(x, xs, xz, w1,", "c = QLinearConv<group = 4>(x, xs, xz, w8,");
  ReplaceAll(t, "  w1 = Constant",
             "  w8 = Constant<value = int8[40,8,1,1] {" + testing::RandomIntsText(40 * 8, -127, 127, 4) +
                 "}>()\n  w1 = Constant");
  EXPECT_EQ(count(t), 0);
  // The result read again (a graph output too): it must exist, so it stays.
  t = base;
  ReplaceAll(t, "=> (uint8 s, uint8 r)", "=> (uint8 s, uint8 r, uint8 c)");
  EXPECT_EQ(count(t), 0);
}

TEST(Int8ResidualFusion, SameBytesAsConvolutionThenAdd) {
  for (bool is_signed : {false, true}) {
    for (bool conv_is_a : {true, false}) {
      for (int variant = 0; variant < 3; ++variant) {
        const int stride = variant == 1 ? 2 : 1;
        const Case c{is_signed, conv_is_a, stride, variant == 2};
        SCOPED_TRACE(std::string(is_signed ? "int8" : "uint8") + (conv_is_a ? " conv=A" : " conv=B") + " stride " +
                     std::to_string(stride) + (c.three_by_three ? " 3x3" : " 1x1"));
        auto m = text::ParseModel(ModelText(c));
        ASSERT_TRUE(m.ok()) << m.status().message();
        const Tensor x = RandomBytes(is_signed ? DataType::kInt8 : DataType::kUint8, {1, 32, 7, 9}, 7);
        const Tensor expected = RunModel(*m, x, optimizer::OptLevel::kDisabled);
        int fused = 0;
        const ir::Model r = Fused(*m, &fused);
        ASSERT_EQ(fused, 1);
        // The fused graph as given, with each implementation of the 1x1 convolution (onyx's where the CPU has VNNI),
        // and the session's own optimization.
        for (const char* impl : {"onyx", "dnnl"}) {
          if (std::string(impl) == "onyx" && !kernels::PointwiseNhwcInt8::Supported()) continue;
          ScopedEnv env("ONYX_INT8_NHWC_IMPL", impl);
          EXPECT_EQ(Differing(expected, RunModel(r, x, optimizer::OptLevel::kDisabled)), 0) << impl;
        }
        EXPECT_EQ(Differing(expected, RunModel(*m, x, optimizer::OptLevel::kAll)), 0) << "level all";
      }
    }
  }
}

// Each implementation the tuning may pick for the fused 1x1 convolution + add (ops/quant/qlinear_conv_nhwc.cc
// ChooseImplementation: onyx's pipelined tiles "onyx", its 14-pixel tiles "onyx-tiles", oneDNN's primitive), forced
// through the tuning cache: the same bytes as the unfused graph, and the choice taken (as noted) the cache's. 40 output
// channels (a full panel and a partial one) over 63 pixels: the pipelined tiles and their rest rows, 1 and 2 threads.
TEST(Int8ResidualFusion, EveryTunedImplementationGivesTheSameBytes) {
  if (!kernels::PointwiseNhwcInt8::Supported()) GTEST_SKIP() << "no AVX-512 VNNI here";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("onyx-int8pw-tuning-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  struct Restore {
    ~Restore() {
      kernels::SetTuningModeOverride(std::nullopt);
      kernels::TuningCache::ResetProcess(kernels::DefaultTuningDir());
    }
  } restore;
  auto m = text::ParseModel(ModelText(Case{false, true, 1, false}));
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Tensor x = RandomBytes(DataType::kUint8, {1, 32, 7, 9}, 7);
  const Tensor expected = RunModel(*m, x, optimizer::OptLevel::kDisabled);
  // The signatures the fused node's tuning uses, found by tuning once.
  kernels::TuningCache::ResetProcess(dir.string());
  kernels::SetTuningModeOverride(kernels::TuningMode::kAlways);
  EXPECT_EQ(Differing(expected, RunModel(*m, x, optimizer::OptLevel::kAll)), 0);
  std::vector<std::string> signatures;
  for (const auto& d : kernels::TuningCache::Process()->Decisions()) {
    if (d.signature.find("int8pw_addip") != std::string::npos) signatures.push_back(d.signature);
  }
  ASSERT_FALSE(signatures.empty());
  for (const char* choice : {"onyx", "onyx-tiles", "onednn"}) {
    SCOPED_TRACE(choice);
    fs::remove_all(dir);
    kernels::TuningCache::ResetProcess(dir.string());
    for (const auto& sig : signatures) ASSERT_TRUE(kernels::TuningCache::Process()->Record(sig, {choice, {}}).ok());
    kernels::TuningCache::ResetProcess(dir.string());
    kernels::SetTuningModeOverride(kernels::TuningMode::kCache);
    EXPECT_EQ(Differing(expected, RunModel(*m, x, optimizer::OptLevel::kAll)), 0);
    int taken = 0;
    for (const auto& d : kernels::TuningCache::Process()->Decisions()) {
      taken += d.signature.find("int8pw_addip") != std::string::npos && d.entry.choice == choice ? 1 : 0;
    }
    EXPECT_GE(taken, 1);
  }
  fs::remove_all(dir);
}

// A model ONNX Runtime's optimizer saved at level all: com.microsoft QLinearConv (channels last, int8 weights) and
// QLinearAdd. The Add fuses into onyx's node (its domain imported), with the same bytes; uint8 weights (zero point
// 128) stay as they are.
TEST(Int8ResidualFusion, FusesOnnxRuntimesChannelsLastForm) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (uint8[1,5,6,32] x, uint8[1,5,6,40] r) => (uint8 s) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {5}>()
  wz = Constant<value = WT {WZ}>()
  w1 = Constant<value = WT[40,32,1,1] {W1}>()
  ws = Constant<value = float {0.003}>()
  rs = Constant<value = float {0.7}>()
  rz = Constant<value = uint8 {9}>()
  cs = Constant<value = float {0.4}>()
  cz = Constant<value = uint8 {131}>()
  ss = Constant<value = float {0.55}>()
  sz = Constant<value = uint8 {100}>()
  c = com.microsoft.QLinearConv<channels_last = 1>(x, xs, xz, w1, ws, wz, cs, cz)
  s = com.microsoft.QLinearAdd(c, cs, cz, r, rs, rz, ss, sz)
}
)";
  for (bool uint8_weights : {false, true}) {
    std::string t = text;
    ReplaceAll(t, "WT", uint8_weights ? "uint8" : "int8");
    ReplaceAll(t, "{WZ}", uint8_weights ? "{128}" : "{0}");
    ReplaceAll(t, "{W1}",
               "{" + testing::RandomIntsText(40 * 32, uint8_weights ? 0 : -127, uint8_weights ? 255 : 127, 2) + "}");
    auto m = text::ParseModel(t);
    ASSERT_TRUE(m.ok()) << m.status().message();
    ir::Model fused_model = *m;
    auto n = optimizer::FuseInt8ResidualAdds(fused_model);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, uint8_weights ? 0 : 1);
    if (uint8_weights) continue;
    EXPECT_TRUE(fused_model.OpsetVersion(ir::kInternalDomain).has_value());
    auto h = ir::OperatorHistogram(fused_model.graph);
    EXPECT_EQ(h["ai.onyx.internal.QLinearConv"], 1);
    EXPECT_EQ(h["com.microsoft.QLinearAdd"], 0);
    const std::vector<std::pair<std::string, Value>> feeds = {
        {"x", Value(RandomBytes(DataType::kUint8, {1, 5, 6, 32}, 13))},
        {"r", Value(RandomBytes(DataType::kUint8, {1, 5, 6, 40}, 14))}};
    EXPECT_EQ(Differing(RunModel(*m, feeds, optimizer::OptLevel::kDisabled),
                        RunModel(fused_model, feeds, optimizer::OptLevel::kDisabled)),
              0);
  }
}

// A 3x3 convolution of 512 channels whose int32 sums can pass 2^24 (uint8 x with zero point 0, weights up to 127):
// oneDNN cannot requantize it exactly itself, so its int32 sums and a pass, or onyx's direct kernel (on VNNI, timed),
// compute it, with the residual add fused. Every way gives the reference's bytes (level disabled: ONNX's QLinearConv
// and the QLinearAdd).
TEST(Int8ResidualFusion, WideConvolutionWithoutOneDnnsRequantization) {
  std::string t = R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (uint8[1,512,6,5] x, uint8[1,40,6,5] r) => (uint8 s) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {0}>()
  wz = Constant<value = int8 {0}>()
  w3 = Constant<value = int8[40,512,3,3] {W3}>()
  ws = Constant<value = float {0.00002}>()
  cs = Constant<value = float {0.4}>()
  cz = Constant<value = uint8 {128}>()
  rs = Constant<value = float {0.7}>()
  rz = Constant<value = uint8 {9}>()
  ss = Constant<value = float {0.55}>()
  sz = Constant<value = uint8 {100}>()
  c = QLinearConv<pads = [1,1,1,1]>(x, xs, xz, w3, ws, wz, cs, cz)
  s = ai.onyx.internal.QLinearAdd(r, rs, rz, c, cs, cz, ss, sz)
}
)";
  ReplaceAll(t, "{W3}", "{" + testing::RandomIntsText(40 * 512 * 9, -127, 127, 5) + "}");
  auto m = text::ParseModel(t);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const std::vector<std::pair<std::string, Value>> feeds = {
      {"x", Value(RandomBytes(DataType::kUint8, {1, 512, 6, 5}, 17))},
      {"r", Value(RandomBytes(DataType::kUint8, {1, 40, 6, 5}, 18))}};
  const Tensor expected = RunModel(*m, feeds, optimizer::OptLevel::kDisabled);
  for (const char* impl : {"onyx", "dnnl", ""}) {
    ScopedEnv env("ONYX_INT8_NHWC_IMPL", *impl ? impl : nullptr);
    EXPECT_EQ(Differing(expected, RunModel(*m, feeds, optimizer::OptLevel::kAll)), 0) << "'" << impl << "'";
  }
}

// A fused node whose residual broadcasts ([1, 1, 1, M] channels last: one value per channel): the general QLinearAdd
// after the convolution, the bytes of the two nodes.
TEST(Int8ResidualFusion, BroadcastResidualAddsAfterTheConvolution) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (uint8[1,5,6,32] x, uint8[1,1,1,40] r) => (uint8 s) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {5}>()
  wz = Constant<value = int8 {0}>()
  w1 = Constant<value = int8[40,32,1,1] {W1}>()
  ws = Constant<value = float {0.003}>()
  rs = Constant<value = float {0.7}>()
  rz = Constant<value = uint8 {9}>()
  cs = Constant<value = float {0.4}>()
  cz = Constant<value = uint8 {131}>()
  ss = Constant<value = float {0.55}>()
  sz = Constant<value = uint8 {100}>()
  FUSED
}
)";
  std::string separate = text, fused = text;
  ReplaceAll(separate, "FUSED",
             "c = ai.onyx.internal.QLinearConv<channels_last = 1>(x, xs, xz, w1, ws, wz, cs, cz)\n"
             "  s = ai.onyx.internal.QLinearAdd(r, rs, rz, c, cs, cz, ss, sz)");
  ReplaceAll(
      fused, "FUSED",
      "s = ai.onyx.internal.QLinearConv<channels_last = 1, sum_conv_operand = 1>(x, xs, xz, w1, ws, wz, cs, cz, , r, "
      "rs, rz, ss, sz)");
  for (std::string* t : {&separate, &fused})
    ReplaceAll(*t, "{W1}", "{" + testing::RandomIntsText(40 * 32, -127, 127, 2) + "}");
  auto a = text::ParseModel(separate);
  auto b = text::ParseModel(fused);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  const std::vector<std::pair<std::string, Value>> feeds = {
      {"x", Value(RandomBytes(DataType::kUint8, {1, 5, 6, 32}, 11))},
      {"r", Value(RandomBytes(DataType::kUint8, {1, 1, 1, 40}, 12))}};
  const Tensor e = RunModel(*a, feeds, optimizer::OptLevel::kDisabled);
  const Tensor g = RunModel(*b, feeds, optimizer::OptLevel::kDisabled);
  EXPECT_EQ(g.shape(), (Shape{1, 5, 6, 40}));
  EXPECT_EQ(Differing(e, g), 0);
}

// The kernels that add in their epilogue write over the residual where the fused node is its last reader (the
// session's ReuseInputAsOutput): the same bytes as the two nodes, whether the residual is read again afterwards (it
// must then keep its bytes) or not, with onyx's 1x1 and direct kernels and with oneDNN's convolution (the 3x3 window
// over 512 channels, whose sums may pass 2^24, is where oneDNN does not requantize itself and the direct kernel runs).
TEST(Int8ResidualFusion, ResidualOverwrittenOnlyWhereNothingReadsItLater) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onyx.internal" : 1]>
g (uint8[1,5,6,C] x, uint8[1,5,6,40] r0) => (uint8 OUT) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {5}>()
  wz = Constant<value = int8 {0}>()
  w = Constant<value = int8[40,C,K,K] {W}>()
  ws = Constant<value = float {0.0003}>()
  rs = Constant<value = float {0.7}>()
  rz = Constant<value = uint8 {9}>()
  cs = Constant<value = float {0.4}>()
  cz = Constant<value = uint8 {131}>()
  ss = Constant<value = float {0.55}>()
  sz = Constant<value = uint8 {100}>()
  r = ai.onyx.internal.QLinearAdd(r0, rs, rz, r0, rs, rz, rs, rz)
  FUSED
  LATER
}
)";
  for (int k : {1, 3}) {
    const int channels = k == 1 ? 32 : 512;
    for (bool read_later : {false, true}) {
      SCOPED_TRACE(std::to_string(k) + "x" + std::to_string(k) + (read_later ? ", r read later" : ""));
      const std::string pads = k == 3 ? "pads = [1,1,1,1], " : "";
      std::string separate = text, fused = text;
      ReplaceAll(separate, "FUSED",
                 "c = ai.onyx.internal.QLinearConv<" + pads +
                     "channels_last = 1>(x, xs, xz, w, ws, wz, cs, cz)\n"
                     "  s = ai.onyx.internal.QLinearAdd(r, rs, rz, c, cs, cz, ss, sz)");
      ReplaceAll(fused, "FUSED",
                 "s = ai.onyx.internal.QLinearConv<" + pads +
                     "channels_last = 1, sum_conv_operand = 1>(x, xs, xz, w, ws, wz, cs, cz, , r, rs, rz, ss, sz)");
      for (std::string* t : {&separate, &fused}) {
        ReplaceAll(*t, "{W}", "{" + testing::RandomIntsText(40 * channels * k * k, -127, 127, 2) + "}");
        ReplaceAll(*t, "K,K", std::to_string(k) + "," + std::to_string(k));
        ReplaceAll(*t, ",C", "," + std::to_string(channels));
        ReplaceAll(*t, "OUT", read_later ? "t" : "s");
        ReplaceAll(*t, "LATER", read_later ? "t = ai.onyx.internal.QLinearAdd(s, ss, sz, r, rs, rz, ss, sz)" : "");
      }
      auto a = text::ParseModel(separate);
      auto b = text::ParseModel(fused);
      ASSERT_TRUE(a.ok()) << a.status().message();
      ASSERT_TRUE(b.ok()) << b.status().message();
      const std::vector<std::pair<std::string, Value>> feeds = {
          {"x", Value(RandomBytes(DataType::kUint8, {1, 5, 6, channels}, 11))},
          {"r0", Value(RandomBytes(DataType::kUint8, {1, 5, 6, 40}, 12))}};
      const Tensor e = RunModel(*a, feeds, optimizer::OptLevel::kDisabled);
      for (const char* impl : {"onyx", "dnnl"}) {
        ScopedEnv env("ONYX_INT8_NHWC_IMPL", impl);
        EXPECT_EQ(Differing(e, RunModel(*b, feeds, optimizer::OptLevel::kDisabled)), 0) << impl;
      }
    }
  }
}

}  // namespace
}  // namespace onyx
