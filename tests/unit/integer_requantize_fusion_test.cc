// optimizer/integer_requantize_fusion.cc and ops/quant/requantize_int32.cc: a converted TFLite convolution's
// requantization (ConvInteger -> Add of the int32 bias -> Cast -> Mul by the multiplier -> QuantizeLinear) becomes
// one RequantizeInt32 node giving the unfused graph's bytes: per-channel and one-value bias and multiplier, uint8 and
// int8 outputs, multipliers large enough to saturate and round at halves; the chain stays where a value is read
// elsewhere or a constant would widen the shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "op_test_helpers.h"
#include "optimizer/optimizer.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

using testing::ReplaceAll;

// x [1,3,7,6] uint8 through a 3x3 ConvInteger of 5 output channels, then the requantization chain.
const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (uint8[1,3,7,6] x) => (Q[1,5,7,6] y EXTRA_OUT) {
  w = Constant<value = uint8[5,3,3,3] {WEIGHTS}>()
  xz = Constant<value = uint8 {7}>()
  wz = Constant<value = uint8 {128}>()
  acc = ConvInteger<pads = [1,1,1,1]>(x, w, xz, wz)
  bias = Constant<value = int32BIAS_SHAPE {BIAS}>()
  biased = Add(acc, bias)
  f = Cast<to = 1>(biased)
  m = Constant<value = floatMULT_SHAPE {MULT}>()
  scaled = Mul(m, f)
  s = Constant<value = float {SCALE}>()
  z = Constant<value = Q {ZP}>()
  y = QuantizeLinear(scaled, s, z)
}
)";

std::string ModelText(bool is_signed, bool per_channel, bool read_elsewhere, const std::string& mult_shape) {
  std::string t = kModel;
  std::string weights;
  for (int i = 0; i < 5 * 3 * 9; ++i) weights += (i ? ", " : "") + std::to_string((i * 53 + 11) % 256);
  ReplaceAll(t, "WEIGHTS", weights);
  ReplaceAll(t, "Q[", is_signed ? "int8[" : "uint8[");
  ReplaceAll(t, "value = Q {ZP}", is_signed ? "value = int8 {-3}" : "value = uint8 {131}");
  ReplaceAll(t, "BIAS_SHAPE {BIAS}", per_channel ? "[5,1,1] {-900, 0, 1200, 77, -31000}" : " {345}");
  ReplaceAll(t, "MULT_SHAPE", mult_shape);
  ReplaceAll(t, "{MULT}", mult_shape.empty() ? "{0.0021}" : "{0.0021, 0.0005, 0.004, 0.00125, 0.0103}");
  // A scale of 0.5: multiples of 0.25 land on halves, which round to even.
  ReplaceAll(t, "{SCALE}", "{0.5}");
  ReplaceAll(t, " EXTRA_OUT", read_elsewhere ? ", float[1,5,7,6] f" : "");
  return t;
}

int64_t Count(const ir::Model& m, const std::string& op) {
  auto h = ir::OperatorHistogram(m.graph);
  return h.count(op) ? h[op] : 0;
}

ir::Model Optimized(const ir::Model& model) {
  ir::Model m = model;
  optimizer::OptimizerOptions options;
  options.level = optimizer::OptLevel::kAll;
  options.run_constant_model = ConstantModelRunner(1);  // Constant nodes fold into initializers
  const Status st = optimizer::OptimizeModel(m, options);
  EXPECT_TRUE(st.ok()) << st.message();
  return m;
}

std::vector<uint8_t> RunBytes(const ir::Model& m, optimizer::OptLevel level, int threads) {
  SessionOptions o;
  o.optimization_level = level;
  o.intra_op_num_threads = threads;
  auto s = Session::Create(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  Tensor x = Tensor::Allocate(DataType::kUint8, {1, 3, 7, 6});
  for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = static_cast<uint8_t>((i * 97 + 5) % 256);
  std::vector<Value> out;
  const Status st = (*s)->Run({{"x", Value(x)}}, {"y"}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok() || out.empty()) return {};
  const auto* bytes = static_cast<const uint8_t*>(out[0].tensor().raw());
  return std::vector<uint8_t>(bytes, bytes + out[0].tensor().size());
}

TEST(IntegerRequantizeFusion, GivesTheBytesOfTheFourOperators) {
  for (bool is_signed : {false, true}) {
    for (bool per_channel : {false, true}) {
      for (const std::string mult_shape : {"", "[5,1,1]", "[1,5,1,1]"}) {
        SCOPED_TRACE(std::string(is_signed ? "int8" : "uint8") + (per_channel ? " per-channel bias" : " one bias") +
                     " multiplier " + (mult_shape.empty() ? "one" : mult_shape));
        auto m = text::ParseModel(ModelText(is_signed, per_channel, false, mult_shape));
        ASSERT_TRUE(m.ok()) << m.status().message();
        const ir::Model fused = Optimized(*m);
        EXPECT_EQ(Count(fused, "ai.onyx.internal.RequantizeInt32"), 1);
        EXPECT_EQ(Count(fused, "QuantizeLinear") + Count(fused, "Cast") + Count(fused, "Mul"), 0);
        const std::vector<uint8_t> want = RunBytes(*m, optimizer::OptLevel::kDisabled, 1);
        ASSERT_EQ(want.size(), 5u * 7 * 6);
        int saturated = 0;
        for (uint8_t b : want) saturated += is_signed ? (b == 0x80 || b == 0x7f) : (b == 0 || b == 255);
        EXPECT_GT(saturated, 0) << "the case should reach the saturation";
        for (int threads : {1, 2}) EXPECT_EQ(RunBytes(*m, optimizer::OptLevel::kAll, threads), want);
      }
    }
  }
}

TEST(IntegerRequantizeFusion, KeepsTheChainWhereItCannotFuse) {
  // The float product also a graph output: the Cast and Mul must stay.
  auto shared = text::ParseModel(ModelText(false, true, true, "[5,1,1]"));
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  EXPECT_EQ(Count(Optimized(*shared), "ai.onyx.internal.RequantizeInt32"), 0);
  // A multiplier of rank 5 would widen the rank-4 result: not fused, and still computed as written.
  auto wide = text::ParseModel(ModelText(false, true, false, "[1,1,5,1,1]"));
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  EXPECT_EQ(Count(Optimized(*wide), "ai.onyx.internal.RequantizeInt32"), 0);
}

}  // namespace
}  // namespace onyx
