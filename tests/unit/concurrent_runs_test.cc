// Runs of one session from several threads at once (how `onyx serve`, `onyx batch --workers` and Python threads use
// a session): each run must give exactly what it gives alone. oneDNN primitives kept by the kernels used to share
// one scratchpad per primitive (its default mode, as Debian builds it), so two runs of ResNet-like convolutions at
// once gave wrong results or crashed; kernels now create them with user scratchpads (kernels/dnnl_util.h).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/tuning_cache.h"
#include "op_test_helpers.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

std::string Floats(int64_t n, unsigned seed, float scale) { return testing::RandomFloatsText(n, seed, scale); }

// A 3x3 convolution of 64 channels (Winograd where oneDNN has it), a 1x1 with a residual sum and a strided 1x1
// (oneDNN reduces it to unit stride in its scratchpad): ResNet's layers, through the blocked layout at level all.
std::string ModelText(const std::string& batch = "1") {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[)" +
         batch + R"(,64,28,28] x) => (float[)" + batch + R"(,128,14,14] y) {
  w1 = Constant<value = float[64,64,3,3] {)" +
         Floats(64 * 64 * 9, 1, 0.05f) + R"(}>()
  w2 = Constant<value = float[64,64,1,1] {)" +
         Floats(64 * 64, 2, 0.1f) + R"(}>()
  w3 = Constant<value = float[128,64,1,1] {)" +
         Floats(128 * 64, 3, 0.1f) + R"(}>()
  a = Conv<pads = [1,1,1,1]>(x, w1)
  ar = Relu(a)
  b = Conv(ar, w2)
  s = Add(b, x)
  y = Conv<strides = [2,2]>(s, w3)
}
)";
}

TEST(ConcurrentRuns, BlockedConvolutionsGiveEachRunItsOwnResult) {
  auto model = text::ParseModel(ModelText());
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions options;
  options.intra_op_num_threads = 1;
  auto session = Session::Create(*model, options);
  ASSERT_TRUE(session.ok()) << session.status().message();

  constexpr int kThreads = 3;
  std::vector<Tensor> inputs;
  std::vector<std::vector<float>> expected;
  for (int t = 0; t < kThreads; ++t) {
    Tensor x = Tensor::Allocate(DataType::kFloat, {1, 64, 28, 28});
    std::mt19937 rng(100 + t);
    std::uniform_real_distribution<float> d(-1, 1);
    for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = d(rng);
    std::vector<Value> out;
    ASSERT_TRUE((*session)->Run({{"x", Value(x)}}, {}, &out).ok());
    const Tensor& y = out[0].tensor();
    expected.emplace_back(y.data<float>(), y.data<float>() + y.size());
    inputs.push_back(std::move(x));
  }
  std::vector<int> wrong(kThreads, 0), failed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 30; ++r) {
        std::vector<Value> out;
        if (!(*session)->Run({{"x", Value(inputs[t])}}, {}, &out).ok()) {
          ++failed[t];
          continue;
        }
        const Tensor& y = out[0].tensor();
        for (int64_t i = 0; i < y.size(); ++i) {
          if (y.data<float>()[i] != expected[t][static_cast<size_t>(i)]) {
            ++wrong[t];
            break;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t;
    EXPECT_EQ(wrong[t], 0) << "thread " << t << ": runs whose result differs from the same input run alone";
  }
}

// A dynamic batch: the kernels keep primitives for several input shapes (a server's batches alternate between batch
// sizes); switching back and forth must give what a fresh session gives.
TEST(ConcurrentRuns, AlternatingBatchSizesGiveFreshSessionResults) {
  // Fixed rules: a choice timed in one session and not another (the cold-cache budget) would differ in the last bits.
  kernels::SetTuningModeOverride(kernels::TuningMode::kOff);
  struct Restore {
    ~Restore() { kernels::SetTuningModeOverride(std::nullopt); }
  } restore;
  auto model = text::ParseModel(ModelText("N"));
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions options;
  options.intra_op_num_threads = 1;
  auto session = Session::Create(*model, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto input = [](int64_t n) {
    Tensor x = Tensor::Allocate(DataType::kFloat, {n, 64, 28, 28});
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> d(-1, 1);
    for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = d(rng);
    return x;
  };
  std::vector<std::vector<float>> fresh(4);
  for (int64_t n = 1; n <= 3; ++n) {
    auto alone = Session::Create(*model, options);
    ASSERT_TRUE(alone.ok());
    std::vector<Value> out;
    ASSERT_TRUE((*alone)->Run({{"x", Value(input(n))}}, {}, &out).ok());
    const Tensor& y = out[0].tensor();
    fresh[static_cast<size_t>(n)].assign(y.data<float>(), y.data<float>() + y.size());
  }
  for (int64_t n : {1, 2, 3, 1, 3, 2, 2, 1}) {
    std::vector<Value> out;
    ASSERT_TRUE((*session)->Run({{"x", Value(input(n))}}, {}, &out).ok());
    const Tensor& y = out[0].tensor();
    ASSERT_EQ(y.dim(0), n);
    const std::vector<float> got(y.data<float>(), y.data<float>() + y.size());
    EXPECT_EQ(got, fresh[static_cast<size_t>(n)]) << "batch " << n;
  }
}

}  // namespace
}  // namespace onyx
