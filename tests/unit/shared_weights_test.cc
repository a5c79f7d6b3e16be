// kernels/shared_weights.h (prepared weights shared between kernels of one source) and kernels/thread_buffers.h.
#include "kernels/shared_weights.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "kernels/thread_buffers.h"

namespace onyx::kernels {
namespace {

struct Layout {
  int tile = 0;
  bool operator==(const Layout&) const = default;
};

TEST(SharedWeightsCache, OneCopyPerSourceAndLayoutWhileHeld) {
  SharedWeightsCache<int, Layout> cache;
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
  int made = 0;
  auto make = [&](int v) {
    return [&made, v] {
      ++made;
      return std::make_shared<const int>(v);
    };
  };
  auto first = cache.Get(a, Layout{2}, make(10));
  auto again = cache.Get(a, Layout{2}, make(11));
  EXPECT_EQ(first.get(), again.get());  // the second kernel of the same initializer shares the first one's copy
  EXPECT_EQ(made, 1);
  auto other_layout = cache.Get(a, Layout{4}, make(12));
  auto other_source = cache.Get(b, Layout{2}, make(13));  // equal bytes elsewhere: another initializer
  EXPECT_EQ(*other_layout, 12);
  EXPECT_EQ(*other_source, 13);
  EXPECT_EQ(made, 3);
  // Once no kernel holds a copy, the next request prepares it again (the source may be gone and its address reused).
  first.reset();
  again.reset();
  auto remade = cache.Get(a, Layout{2}, make(14));
  EXPECT_EQ(*remade, 14);
  EXPECT_EQ(made, 4);
}

TEST(SharedWeightsCache, FailedPreparationIsNotRecorded) {
  SharedWeightsCache<int, Layout> cache;
  const float a[1] = {0};
  auto failed = cache.Get(a, Layout{2}, [] { return std::shared_ptr<const int>(); });
  EXPECT_EQ(failed, nullptr);
  auto made = cache.Get(a, Layout{2}, [] { return std::make_shared<const int>(5); });
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(*made, 5);
}

TEST(ThreadBuffers, AlignedGrowingAndDistinctPerSlot) {
  auto* scratch = static_cast<uint8_t*>(ThreadBuffer(ThreadBufferSlot::kKernelScratch, 1000));
  auto* between = static_cast<uint8_t*>(ThreadBuffer(ThreadBufferSlot::kIntermediate, 1000));
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(scratch) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(between) % 64, 0u);
  // Two slots used at once must not overlap.
  EXPECT_TRUE(scratch + 1000 <= between || between + 1000 <= scratch);
  std::memset(scratch, 1, 1000);
  std::memset(between, 2, 1000);
  EXPECT_EQ(scratch[999], 1);
  // A smaller request keeps the buffer; a larger one gets room for all of it.
  EXPECT_EQ(ThreadBuffer(ThreadBufferSlot::kKernelScratch, 10), scratch);
  auto* larger = static_cast<uint8_t*>(ThreadBuffer(ThreadBufferSlot::kKernelScratch, 1 << 20));
  std::memset(larger, 3, 1 << 20);
  EXPECT_EQ(larger[(1 << 20) - 1], 3);
  EXPECT_EQ(between[0], 2);  // the other slot untouched
  EXPECT_EQ(ThreadFloats(ThreadBufferSlot::kIntermediate2, 0) != nullptr, true);
}

}  // namespace
}  // namespace onyx::kernels
