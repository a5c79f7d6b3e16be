// The model input's quantization written channels last (ai.onyx.internal.QuantizeLinear, channels_last = 1): the
// int8 layout pass puts it where a float QuantizeLinear feeds the channels-last region, in place of the quantized
// copy and its Transpose, and the rewritten graph's results are byte-identical to the ONNX graph's (QuantizeLinear,
// then QLinearConv channels first) on ties, NaN and saturating inputs, for uint8 and int8, with images split between
// threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "optimizer/int8_nhwc_layout.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

// x (float [3,3,40,40]) -> QuantizeLinear -> q -> QLinearConv 3x3 pad 1 (8 outputs) -> y; q is also an output
// (read channels first: the original QuantizeLinear stays for it).
std::string ModelText(const std::string& qtype, int zp, bool q_is_output) {
  std::string w;
  std::mt19937 rng(5);
  for (int i = 0; i < 8 * 3 * 9; ++i) w += (i ? "," : "") + std::to_string(static_cast<int>(rng() % 255) - 127);
  std::string t = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3,3,40,40] x) => (QT[3,8,40,40] y QOUT) {
  xs = Constant<value = float {0.0186584}>()
  xz = Constant<value = QT {ZP}>()
  q = QuantizeLinear(x, xs, xz)
  w = Constant<value = int8[8,3,3,3] {W}>()
  ws = Constant<value = float {0.004}>()
  wz = Constant<value = int8 {0}>()
  ys = Constant<value = float {0.05}>()
  yz = Constant<value = QT {ZP}>()
  y = QLinearConv<pads = [1,1,1,1]>(q, xs, xz, w, ws, wz, ys, yz)
}
)";
  auto put = [&](const std::string& key, const std::string& v) {
    for (size_t at; (at = t.find(key)) != std::string::npos;) t.replace(at, key.size(), v);
  };
  put("QOUT", q_is_output ? ", QT[3,3,40,40] q" : "");
  put("QT", qtype);
  put("ZP", std::to_string(zp));
  put("{W}", "{" + w + "}");
  return t;
}

Tensor Input() {
  Tensor x = Tensor::Allocate(DataType::kFloat, {3, 3, 40, 40}, false);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.size(); ++i) {
    switch (i % 7) {
      case 0:
        p[i] = (static_cast<float>(static_cast<int>(rng() % 600) - 300) + 0.5f) * 0.0186584f;
        break;  // ties
      case 1:
        p[i] = i % 5 == 0 ? std::numeric_limits<float>::quiet_NaN() : 1e6f * d(rng);
        break;
      default:
        p[i] = d(rng);
    }
  }
  return x;
}

std::vector<Value> Run(const ir::Model& m, optimizer::OptLevel level, const Tensor& x) {
  SessionOptions o;
  o.optimization_level = level;
  o.intra_op_num_threads = 2;  // threads take runs of pixels that cross from one image into the next
  auto s = Session::Create(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  std::vector<Value> out;
  const Status st = (*s)->Run({{"x", Value(x)}}, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

void Check(const std::string& qtype, int zp, bool q_is_output) {
  SCOPED_TRACE(qtype + " zp " + std::to_string(zp) + (q_is_output ? " q is an output" : ""));
  auto m = text::ParseModel(ModelText(qtype, zp, q_is_output));
  ASSERT_TRUE(m.ok()) << m.status().message();
  ir::Model rewritten = *m;
  auto n = optimizer::ApplyInt8NhwcLayout(rewritten);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 1);
  auto h = ir::OperatorHistogram(rewritten.graph);
  EXPECT_EQ(h["ai.onyx.internal.QuantizeLinear"], 1);
  EXPECT_EQ(h["QuantizeLinear"], q_is_output ? 1 : 0);
  EXPECT_EQ(h["Transpose"], 1);  // only y back to channels first

  const Tensor x = Input();
  // The ONNX graph exactly as given, against the rewritten one.
  const std::vector<Value> want = Run(*m, optimizer::OptLevel::kDisabled, x);
  const std::vector<Value> got = Run(rewritten, optimizer::OptLevel::kDisabled, x);
  ASSERT_EQ(want.size(), got.size());
  ASSERT_EQ(want.size(), q_is_output ? 2u : 1u);
  for (size_t i = 0; i < want.size(); ++i) {
    const Tensor& e = want[i].tensor();
    const Tensor& g = got[i].tensor();
    ASSERT_EQ(e.shape(), g.shape());
    ASSERT_EQ(e.type(), g.type());
    int64_t differing = 0;
    for (int64_t k = 0; k < e.size(); ++k) differing += e.data<uint8_t>()[k] != g.data<uint8_t>()[k];
    EXPECT_EQ(differing, 0) << "output " << i << " of " << e.size();
  }
}

TEST(Int8QuantizeNhwc, Uint8InputQuantizedStraightIntoChannelsLast) {
  Check("uint8", 128, false);
  Check("uint8", 3, true);
}

TEST(Int8QuantizeNhwc, Int8InputQuantizedStraightIntoChannelsLast) {
  Check("int8", 0, false);
  Check("int8", -5, true);
}

TEST(Int8QuantizeNhwc, PerAxisOrUntypedQuantizeKeepsTheTranspose) {
  // A per-channel scale is not what the channels-last kernel computes: the pass keeps QuantizeLinear + Transpose.
  std::string t = ModelText("uint8", 0, false);
  auto replace = [&](const std::string& from, const std::string& to) { t.replace(t.find(from), from.size(), to); };
  replace("q = QuantizeLinear(x, xs, xz)",
          "xs3 = Constant<value = float[3] {0.01, 0.02, 0.03}>()\n  xz3 = Constant<value = uint8[3] {0, 0, 0}>()\n"
          "  q = QuantizeLinear(x, xs3, xz3)");
  auto m = text::ParseModel(t);
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto n = optimizer::ApplyInt8NhwcLayout(*m);
  ASSERT_TRUE(n.ok());
  auto h = ir::OperatorHistogram(m->graph);
  EXPECT_EQ(h["ai.onyx.internal.QuantizeLinear"], 0);
  EXPECT_EQ(h["QuantizeLinear"], 1);
  EXPECT_EQ(h["Transpose"], 2);
}

}  // namespace
}  // namespace onyx
