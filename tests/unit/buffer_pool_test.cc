// BufferPool (runtime/buffer_pool.h): blocks released inside the pool are reused by the next request that fits; blocks
// that left it (a session's outputs, held by the caller) come back when their last holder lets go, from any thread,
// and a session's next run takes them instead of fresh memory.
#include "runtime/buffer_pool.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "op_test_helpers.h"
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

}  // namespace
}  // namespace onyx
