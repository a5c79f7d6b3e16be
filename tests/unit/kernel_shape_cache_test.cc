// Kernels keep what they derive from their input shapes (plans, output shapes, strides: issue 18, no allocation per
// run) and must notice when the shapes change: one session run with alternating batch sizes, and from several
// threads at once, gives exactly what a fresh session gives for each batch. The model goes through the kernels that
// keep such state: MatMul, Slice, Reshape, Transpose, broadcasting Add, LayerNormalization, Split, Unsqueeze,
// Squeeze, Concat, Gather, Flatten (and FusedAttention at level all).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "op_test_helpers.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

std::string Floats(int64_t n, unsigned seed) { return testing::RandomFloatsText(n, seed, 0.5f); }

std::string ModelText() {
  return R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,8,32] x) => (float[N,8,48] y, float[N,32] f) {
  wqkv = Constant<value = float[32,96] {)" +
         Floats(32 * 96, 1) + R"(}>()
  bias = Constant<value = float[32] {)" +
         Floats(32, 2) + R"(}>()
  heads = Constant<value = int64[4] {0, 8, 4, 8}>()
  back = Constant<value = int64[3] {0, 8, 32}>()
  s0 = Constant<value = int64[1] {0}>()
  s1 = Constant<value = int64[1] {32}>()
  s2 = Constant<value = int64[1] {64}>()
  s3 = Constant<value = int64[1] {96}>()
  axis = Constant<value = int64[1] {2}>()
  root = Constant<value = float {2.828427}>()
  row = Constant<value = int64 {3}>()
  zero = Constant<value = int64[1] {0}>()
  halves = Constant<value = int64[2] {16, 16}>()
  qkv = MatMul(x, wqkv)
  q0 = Slice(qkv, s0, s1, axis)
  k0 = Slice(qkv, s1, s2, axis)
  v0 = Slice(qkv, s2, s3, axis)
  q1 = Reshape(q0, heads)
  k1 = Reshape(k0, heads)
  v1 = Reshape(v0, heads)
  q = Transpose<perm = [0, 2, 1, 3]>(q1)
  k = Transpose<perm = [0, 2, 3, 1]>(k1)
  v = Transpose<perm = [0, 2, 1, 3]>(v1)
  scores = MatMul(q, k)
  scaled = Div(scores, root)
  p = Softmax<axis = -1>(scaled)
  o = MatMul(p, v)
  ot = Transpose<perm = [0, 2, 1, 3]>(o)
  o2 = Reshape(ot, back)
  a = Add(o2, bias)
  n = LayerNormalization<axis = -1>(a, bias, bias)
  lo, hi = Split<axis = 2>(n, halves)
  u = Unsqueeze(lo, zero)
  sq = Squeeze(u, zero)
  y = Concat<axis = 2>(sq, hi, lo)
  r = Gather<axis = 1>(n, row)
  f = Flatten<axis = 1>(r)
}
)";
}

Tensor Input(int64_t n) {
  Tensor x = Tensor::Allocate(DataType::kFloat, {n, 8, 32});
  std::mt19937 rng(static_cast<unsigned>(7 * n));
  std::uniform_real_distribution<float> d(-1, 1);
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = d(rng);
  return x;
}

using Outputs = std::vector<std::vector<float>>;

Outputs Flat(const std::vector<Value>& out) {
  Outputs flat;
  for (const Value& v : out) flat.emplace_back(v.tensor().data<float>(), v.tensor().data<float>() + v.tensor().size());
  return flat;
}

class KernelShapeCache : public ::testing::TestWithParam<optimizer::OptLevel> {};

TEST_P(KernelShapeCache, AlternatingBatchesGiveFreshSessionResults) {
  auto model = text::ParseModel(ModelText());
  ASSERT_TRUE(model.ok()) << model.status().message();
  SessionOptions options;
  options.intra_op_num_threads = 1;
  options.optimization_level = GetParam();
  std::vector<Outputs> fresh(4);
  for (int64_t n = 1; n <= 3; ++n) {
    auto alone = Session::Create(*model, options);
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    std::vector<Value> out;
    ASSERT_TRUE((*alone)->Run({{"x", Value(Input(n))}}, {}, &out).ok());
    ASSERT_EQ(out[0].tensor().shape(), (Shape{n, 8, 48}));
    ASSERT_EQ(out[1].tensor().shape(), (Shape{n, 32}));
    fresh[static_cast<size_t>(n)] = Flat(out);
  }
  auto session = Session::Create(*model, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  for (int64_t n : {1, 2, 3, 1, 3, 2, 2, 1, 3, 3}) {
    std::vector<Value> out;
    ASSERT_TRUE((*session)->Run({{"x", Value(Input(n))}}, {}, &out).ok());
    EXPECT_EQ(Flat(out), fresh[static_cast<size_t>(n)]) << "batch " << n;
  }
  // Runs from several threads at once, each with its own batch size.
  std::vector<std::thread> threads;
  std::vector<int> mismatches(3, 0);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      const int64_t n = t + 1;
      for (int i = 0; i < 20; ++i) {
        std::vector<Value> out;
        if (!(*session)->Run({{"x", Value(Input(n))}}, {}, &out).ok() || Flat(out) != fresh[static_cast<size_t>(n)]) {
          ++mismatches[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 3; ++t) EXPECT_EQ(mismatches[static_cast<size_t>(t)], 0) << "batch " << t + 1;
}

INSTANTIATE_TEST_SUITE_P(Levels, KernelShapeCache,
                         ::testing::Values(optimizer::OptLevel::kDisabled, optimizer::OptLevel::kAll));

}  // namespace
}  // namespace onyx
