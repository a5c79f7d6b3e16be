// The queue of timings deferred to the end of a run (kernels/deferred_tuning.h); how the blocked convolution uses it
// is tested with the tuning cache (tuning_cache_test.cc).
#include "kernels/deferred_tuning.h"

#include <gtest/gtest.h>

#include <vector>

namespace onyx {
namespace {

using kernels::DeferredTuning;

TEST(DeferredTuning, RunsTheLargestPriorityFirstAndTiesInQueueOrder) {
  DeferredTuning queue;
  EXPECT_TRUE(queue.empty());
  std::vector<int> order;
  queue.Add("a", 1.0, [&] {
    order.push_back(1);
    return false;
  });
  queue.Add("b", 5.0, [&] {
    order.push_back(2);
    return false;
  });
  queue.Add("c", 1.0, [&] {
    order.push_back(3);
    return false;
  });
  queue.Add("d", 7.5, [&] {
    order.push_back(4);
    return false;
  });
  queue.Add("e", 5.0, [&] {
    order.push_back(5);
    return false;
  });
  EXPECT_FALSE(queue.empty());
  queue.RunAll();
  EXPECT_EQ(order, (std::vector<int>{4, 2, 5, 1, 3}));
  EXPECT_TRUE(queue.empty());
  queue.RunAll();  // nothing left to run
  EXPECT_EQ(order.size(), 5u);
}

TEST(DeferredTuning, RequestsOfOneKeyAddUpAndRunTogether) {
  DeferredTuning queue;
  std::vector<int> order;
  // Key "s" (three nodes of one shape, 3 x 2.0) outranks "t" (5.0) though each of its requests alone is smaller.
  queue.Add("s", 2.0, [&] {
    order.push_back(1);
    return false;
  });
  queue.Add("t", 5.0, [&] {
    order.push_back(2);
    return false;
  });
  queue.Add("s", 2.0, [&] {
    order.push_back(3);
    return false;
  });
  queue.Add("u", 0.5, [&] {
    order.push_back(4);
    return false;
  });
  queue.Add("s", 2.0, [&] {
    order.push_back(5);
    return false;
  });
  queue.RunAll();
  EXPECT_EQ(order, (std::vector<int>{1, 3, 5, 2, 4}));
}

TEST(DeferredTuning, RequestsQueuedWhileRunningWaitForTheNextRunAll) {
  DeferredTuning queue;
  std::vector<int> order;
  queue.Add("a", 1.0, [&] {
    order.push_back(1);
    queue.Add("b", 9.0, [&] {
      order.push_back(2);
      return true;
    });
    return false;
  });
  EXPECT_FALSE(queue.RunAll());  // no request changed its kernel
  EXPECT_EQ(order, (std::vector<int>{1}));
  EXPECT_FALSE(queue.empty());
  EXPECT_TRUE(queue.RunAll());
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace onyx
