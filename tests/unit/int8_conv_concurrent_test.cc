// Runs of one session executing the same channels-last int8 convolutions at once: each kernel keeps its oneDNN
// arguments between runs (kernels/int8_conv.cc) and uses them under a try_lock, a run that finds them busy builds
// its own. Every concurrent run must give exactly what a lone run gives for its input.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

std::string Values(int n, int lo, int hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(d(rng));
  return s;
}

// float x -> QuantizeLinear -> QLinearConv 3x3 (16 -> 32, y zp 0) -> QLinearConv 1x1 (32 -> 32, y zp 9) -> y.
std::string ModelText() {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,16,24,24] x) => (uint8[1,32,24,24] y) {
  xs = Constant<value = float {0.02}>()
  xz = Constant<value = uint8 {120}>()
  q = QuantizeLinear(x, xs, xz)
  w1 = Constant<value = int8[32,16,3,3] {)" +
         Values(32 * 16 * 9, -127, 127, 1) + R"(}>()
  w2 = Constant<value = int8[32,32,1,1] {)" +
         Values(32 * 32, -127, 127, 2) + R"(}>()
  ws = Constant<value = float {0.003}>()
  wz = Constant<value = int8 {0}>()
  s1 = Constant<value = float {0.2}>()
  z0 = Constant<value = uint8 {0}>()
  s2 = Constant<value = float {0.3}>()
  z9 = Constant<value = uint8 {9}>()
  c1 = QLinearConv<pads = [1,1,1,1]>(q, xs, xz, w1, ws, wz, s1, z0)
  y = QLinearConv(c1, s1, z0, w2, ws, wz, s2, z9)
}
)";
}

Tensor Input(unsigned seed) {
  Tensor x = Tensor::Allocate(DataType::kFloat, {1, 16, 24, 24}, false);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = d(rng);
  return x;
}

TEST(Int8ConvConcurrent, ConcurrentRunsGiveEachRunItsOwnResult) {
  auto m = text::ParseModel(ModelText());
  ASSERT_TRUE(m.ok()) << m.status().message();
  SessionOptions o;
  o.intra_op_num_threads = 1;
  auto s = Session::Create(*m, o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Session& session = **s;
  constexpr int kInputs = 4;
  std::vector<Tensor> inputs;
  std::vector<std::vector<uint8_t>> expected;
  for (int i = 0; i < kInputs; ++i) {
    inputs.push_back(Input(static_cast<unsigned>(i + 10)));
    std::vector<Value> out;
    ASSERT_TRUE(session.Run({{"x", Value(inputs.back())}}, {}, &out).ok());
    const Tensor& y = out.at(0).tensor();
    expected.emplace_back(y.data<uint8_t>(), y.data<uint8_t>() + y.size());
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 40; ++r) {
        const int i = (t + r) % kInputs;
        std::vector<Value> out;
        if (!session.Run({{"x", Value(inputs[static_cast<size_t>(i)])}}, {}, &out).ok()) {
          ++failures;
          continue;
        }
        const Tensor& y = out.at(0).tensor();
        if (std::vector<uint8_t>(y.data<uint8_t>(), y.data<uint8_t>() + y.size()) != expected[static_cast<size_t>(i)]) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace onyx
