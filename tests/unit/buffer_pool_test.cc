// BufferPool (runtime/buffer_pool.h): blocks released inside the pool are reused by the next request that fits; blocks
// that left it (a session's outputs, held by the caller) come back when their last holder lets go, from any thread,
// and a session's next run takes them instead of fresh memory.
#include "runtime/buffer_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "op_test_helpers.h"
#include "runtime/memory_plan.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

TEST(BufferPool, ReleasedValueIsReused) {
  BufferPool pool;
  Value v(pool.Allocate(DataType::kFloat, {1000}));
  const void* block = v.tensor().raw();
  pool.Release(v);
  EXPECT_EQ(pool.free_blocks(), 1u);
  Tensor again = pool.Allocate(DataType::kFloat, {900});
  EXPECT_EQ(again.raw(), block);
  EXPECT_EQ(pool.free_blocks(), 0u);
}

TEST(BufferPool, BlockDroppedOutsideThePoolComesBack) {
  BufferPool pool;
  Tensor out = pool.Allocate(DataType::kFloat, {1000});  // handed to a caller, never released to the pool
  const void* block = out.raw();
  EXPECT_EQ(pool.returned_blocks(), 0u);
  out = Tensor();  // the caller lets go
  EXPECT_EQ(pool.returned_blocks(), 1u);
  // Too small a block is not taken for a larger request; a request it fits takes it.
  Tensor larger = pool.Allocate(DataType::kFloat, {4000});
  EXPECT_NE(larger.raw(), block);
  EXPECT_EQ(pool.returned_blocks(), 1u);
  Tensor fits = pool.Allocate(DataType::kFloat, {1000});
  EXPECT_EQ(fits.raw(), block);
  EXPECT_EQ(pool.returned_blocks(), 0u);
}

TEST(BufferPool, BlocksComeBackFromOtherThreadsAndOutliveThePool) {
  auto pool = std::make_unique<BufferPool>();
  std::vector<Tensor> held;
  for (int i = 0; i < 8; ++i) held.push_back(pool->Allocate(DataType::kInt64, {100 + i}));
  std::thread other([&] { held.resize(4); });  // four released on another thread
  other.join();
  EXPECT_EQ(pool->returned_blocks(), 4u);
  pool.reset();  // frees the returned blocks; the held ones stay valid
  for (Tensor& t : held) {
    t.data<int64_t>()[0] = 7;
    EXPECT_EQ(t.data<int64_t>()[0], 7);
  }
  held.clear();  // freed (the pool is gone), not returned
}

TEST(BufferPool, SessionOutputsDroppedByTheCallerServeTheNextRun) {
  auto model = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4096] x) => (float[N,4096] y) {
  y = Add(x, x)
}
)");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto session = Session::Create(*model, SessionOptions{});
  ASSERT_TRUE(session.ok()) << session.status().message();
  const Tensor x = testing::NormalTensor({8, 4096}, 1);
  std::vector<Value> first;
  ASSERT_TRUE((*session)->Run({{"x", Value(x)}}, {}, &first).ok());
  const void* first_block = first[0].tensor().raw();
  first.clear();  // the caller drops the first run's output
  std::vector<Value> second;
  ASSERT_TRUE((*session)->Run({{"x", Value(x)}}, {}, &second).ok());
  EXPECT_EQ(second[0].tensor().raw(), first_block);
  // Held by the caller, a run's output is never handed to the next run.
  std::vector<Value> third;
  ASSERT_TRUE((*session)->Run({{"x", Value(x)}}, {}, &third).ok());
  EXPECT_NE(third[0].tensor().raw(), second[0].tensor().raw());
  for (int64_t i = 0; i < 8 * 4096; ++i) {
    ASSERT_EQ(second[0].tensor().data<float>()[i], 2 * x.data<float>()[i]);
    ASSERT_EQ(third[0].tensor().data<float>()[i], 2 * x.data<float>()[i]);
  }
}

size_t Rounded64(size_t bytes) { return (std::max<size_t>(bytes, 1) + 63) / 64 * 64; }

TEST(MemoryPlan, BuffersLiveTogetherNeverShareBytes) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferLifetime> buffers;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const uint32_t first = rng() % 100;
      buffers.push_back(BufferLifetime{1 + rng() % 100000, first, first + 1 + static_cast<uint32_t>(rng() % 30)});
    }
    const ArenaPlan plan = PlanArena(buffers, 64);
    ASSERT_EQ(plan.offsets.size(), buffers.size());
    size_t all = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      all += Rounded64(buffers[i].bytes);
      EXPECT_EQ(plan.offsets[i] % 64, 0u);
      EXPECT_LE(plan.offsets[i] + Rounded64(buffers[i].bytes), plan.arena_bytes);
      for (size_t j = 0; j < i; ++j) {
        const bool together = buffers[i].first < buffers[j].last && buffers[j].first < buffers[i].last;
        const bool share = plan.offsets[i] < plan.offsets[j] + Rounded64(buffers[j].bytes) &&
                           plan.offsets[j] < plan.offsets[i] + Rounded64(buffers[i].bytes);
        ASSERT_FALSE(together && share) << "trial " << trial << ": buffers " << j << " and " << i;
      }
    }
    // At least the bytes live at the busiest event, at most all buffers side by side.
    size_t busiest = 0;
    for (uint32_t e = 0; e < 140; ++e) {
      size_t live = 0;
      for (const BufferLifetime& b : buffers) live += b.first <= e && e < b.last ? Rounded64(b.bytes) : 0;
      busiest = std::max(busiest, live);
    }
    EXPECT_GE(plan.arena_bytes, busiest);
    EXPECT_LE(plan.arena_bytes, all);
  }
}

TEST(MemoryPlan, ChainTakesTwoBuffers) {
  // a -> b -> c -> d, each released once the next is made: never more than two live, so two buffers' bytes.
  const std::vector<BufferLifetime> chain = {{4000, 0, 2}, {4000, 1, 4}, {4000, 3, 6}, {4000, 5, 7}};
  const ArenaPlan plan = PlanArena(chain, 64);
  EXPECT_EQ(plan.arena_bytes, 2 * Rounded64(4000));
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_EQ(plan.offsets[1], plan.offsets[3]);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
}

// One run of a chain through `pool`: a, b = f(a), c = f(b), and an output kept past the run (in `kept`). Returns the
// addresses of a, b and c; checks that each buffer kept its values while it was live.
struct ChainAddresses {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
};
ChainAddresses RunChain(BufferPool& pool, std::vector<Tensor>& kept, int64_t n = 1000) {
  ChainAddresses at;
  pool.BeginRun();
  Value a(pool.Allocate(DataType::kFloat, {n}));
  std::fill_n(a.tensor().data<float>(), n, 1.0f);
  Value b(pool.Allocate(DataType::kFloat, {n}));
  for (int64_t i = 0; i < n; ++i) b.tensor().data<float>()[i] = a.tensor().data<float>()[i] + 1.0f;
  at.a = a.tensor().raw();
  pool.Release(a);
  Value c(pool.Allocate(DataType::kFloat, {n}));
  for (int64_t i = 0; i < n; ++i) c.tensor().data<float>()[i] = b.tensor().data<float>()[i] + 1.0f;
  at.b = b.tensor().raw();
  pool.Release(b);
  Tensor out = pool.Allocate(DataType::kFloat, {n});
  for (int64_t i = 0; i < n; ++i) out.data<float>()[i] = c.tensor().data<float>()[i] + 1.0f;
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out.data<float>()[i], 4.0f) << i;
  at.c = c.tensor().raw();
  pool.Release(c);
  kept.push_back(std::move(out));
  pool.EndRun();
  return at;
}

// As RunChain (no output), but `a` (filled with `value`) stays held by a second holder past its release, where the
// plan gives its bytes to c: c must land elsewhere, and `a` keep its values while c is written. Returns the holder.
Value RunChainHoldingA(BufferPool& pool, float value) {
  const int64_t n = 1000;
  pool.BeginRun();
  Value a(pool.Allocate(DataType::kFloat, {n}));
  std::fill_n(a.tensor().data<float>(), n, value);
  Value held = a;
  Value b(pool.Allocate(DataType::kFloat, {n}));
  pool.Release(a);
  Value c(pool.Allocate(DataType::kFloat, {n}));
  std::fill_n(c.tensor().data<float>(), n, -1.0f);
  const auto* h = static_cast<const char*>(held.tensor().raw());
  const auto* cb = static_cast<const char*>(c.tensor().raw());
  EXPECT_TRUE(cb + 4000 <= h || cb >= h + 4000) << "c over the held tensor's bytes";
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(held.tensor().data<float>()[i], value) << i;
  pool.Release(b);
  pool.Release(c);
  pool.EndRun();
  return held;
}

TEST(BufferPool, RepeatedRunsTakeTheirBuffersFromAnArena) {
  BufferPool pool;
  std::vector<Tensor> kept;
  RunChain(pool, kept);
  EXPECT_EQ(pool.arena_bytes(), 0u);  // one run: nothing to compare with
  kept.clear();
  RunChain(pool, kept);
  // Two like runs: a plan for a, b and c (not the output, which outlives the run); a and b are live together, c
  // takes a's bytes.
  EXPECT_EQ(pool.arena_bytes(), 2 * Rounded64(4000));
  kept.clear();
  const ChainAddresses third = RunChain(pool, kept);
  EXPECT_EQ(pool.planned_requests(), 3u);
  EXPECT_EQ(third.a, third.c);
  EXPECT_NE(third.a, third.b);
  const auto* arena_begin = static_cast<const char*>(std::min(third.a, third.b));
  const auto* output = static_cast<const char*>(kept.back().raw());
  EXPECT_TRUE(output + 4000 <= arena_begin || output >= arena_begin + pool.arena_bytes()) << "output in the arena";
  const ChainAddresses fourth = RunChain(pool, kept);  // the third's output still held: no matter
  EXPECT_EQ(fourth.a, third.a);
  EXPECT_EQ(fourth.b, third.b);
}

TEST(BufferPool, TensorHeldPastItsPlannedReleaseKeepsItsBytes) {
  BufferPool pool;
  std::vector<Tensor> kept;
  RunChain(pool, kept);
  RunChain(pool, kept);
  ASSERT_GT(pool.arena_bytes(), 0u);
  Value held = RunChainHoldingA(pool, 7.0f);
  // That run differed (a never came back): the plan is gone; like runs make a new one, and the held tensor, dropped
  // late, is no trouble.
  EXPECT_EQ(pool.arena_bytes(), 0u);
  RunChain(pool, kept);
  RunChain(pool, kept);
  EXPECT_GT(pool.arena_bytes(), 0u);
  held = Value();
  const ChainAddresses again = RunChain(pool, kept);
  EXPECT_EQ(pool.planned_requests(), 3u);
  EXPECT_EQ(again.a, again.c);
}

TEST(BufferPool, TensorKeptAcrossRunsKeepsItsBytesUntilDroppedOnAnotherThread) {
  // A planned tensor kept past the run (a caller holding an intermediate through a view): the runs after it, with
  // their new plan, never write over it, and its last holder may let go of it on any thread.
  BufferPool pool;
  std::vector<Tensor> kept;
  RunChain(pool, kept);
  RunChain(pool, kept);
  ASSERT_GT(pool.arena_bytes(), 0u);
  Tensor view = RunChainHoldingA(pool, 5.0f).tensor();
  for (int run = 0; run < 4; ++run) RunChain(pool, kept);
  EXPECT_EQ(pool.planned_requests(), 3u);
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(view.data<float>()[i], 5.0f) << i;
  std::thread other([&] { view = Tensor(); });
  other.join();
  const ChainAddresses planned = RunChain(pool, kept);
  EXPECT_EQ(pool.planned_requests(), 3u);
  EXPECT_EQ(planned.a, planned.c);
}

TEST(BufferPool, RunOfOtherShapesDropsThePlan) {
  BufferPool pool;
  std::vector<Tensor> kept;
  RunChain(pool, kept, 1000);
  RunChain(pool, kept, 1000);
  ASSERT_EQ(pool.arena_bytes(), 2 * Rounded64(4000));
  RunChain(pool, kept, 3000);  // checks its values with a plan for smaller buffers in place
  EXPECT_EQ(pool.arena_bytes(), 0u);
  RunChain(pool, kept, 3000);
  EXPECT_EQ(pool.arena_bytes(), 2 * Rounded64(12000));
  const ChainAddresses big = RunChain(pool, kept, 3000);
  EXPECT_EQ(pool.planned_requests(), 3u);
  EXPECT_EQ(big.a, big.c);
}

TEST(BufferPool, SessionRunsFromItsArenaGiveTheFirstRunsOutputs) {
  // Residual adds, a Split's views of one block, a Concat and a Conv: the values the first run (no plan) gives, every
  // run after (planned from the third), at 1 and 2 threads.
  auto model = text::ParseModel(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,16,12,12] x, float[16,16,3,3] w) => (float[1,32,12,12] y, float[1,8,12,12] z) {
  c1 = Conv<pads = [1,1,1,1]>(x, w)
  r1 = Relu(c1)
  s1 = Add(r1, x)
  c2 = Conv<pads = [1,1,1,1]>(s1, w)
  s2 = Add(c2, s1)
  p, q = Split<num_outputs = 2, axis = 1>(s2)
  t = Tanh(p)
  u = Sigmoid(q)
  k = Concat<axis = 1>(t, u, s1)
  y = Mul(k, k)
  z = Sub(t, u)
}
)");
  ASSERT_TRUE(model.ok()) << model.status().message();
  for (int threads : {1, 2}) {
    SessionOptions options;
    options.intra_op_num_threads = threads;
    auto session = Session::Create(*model, options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    const std::vector<std::pair<std::string, Value>> feeds = {{"x", Value(testing::NormalTensor({1, 16, 12, 12}, 3))},
                                                              {"w", Value(testing::NormalTensor({16, 16, 3, 3}, 4))}};
    std::vector<Value> first;
    ASSERT_TRUE((*session)->Run(feeds, {}, &first).ok());
    for (int run = 1; run < 6; ++run) {
      std::vector<Value> out;
      ASSERT_TRUE((*session)->Run(feeds, {}, &out).ok());
      ASSERT_EQ(out.size(), first.size());
      for (size_t o = 0; o < out.size(); ++o) {
        const Tensor& got = out[o].tensor();
        const Tensor& want = first[o].tensor();
        ASSERT_EQ(got.shape(), want.shape());
        for (int64_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(got.data<float>()[i], want.data<float>()[i])
              << threads << " thread(s), run " << run << ", output " << o << ", element " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace onyx
