// RunTasks: every task once, each thread's own share first, and a thread that runs out takes over the rest of a slower
// one's share (kernels/parallel_tasks.h).
#include "kernels/parallel_tasks.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace onyx::kernels {
namespace {

TEST(ParallelTasks, RunsEveryTaskOnceForAnyCountAndTeam) {
  for (int threads : {1, 2, 3, 4, 7}) {
    for (int64_t count : {0, 1, 2, 3, 5, 8, 16, 17, 100, 1001}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(count));
      RunTasks(count, threads, [&](int64_t i) { runs[static_cast<size_t>(i)].fetch_add(1); });
      for (int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(runs[static_cast<size_t>(i)].load(), 1) << "task " << i << " of " << count << ", " << threads;
      }
    }
  }
}

TEST(ParallelTasks, WorkerIndexIsInTheTeamAndRunsOneTaskAtATime) {
  constexpr int kThreads = 3;
  constexpr int64_t kCount = 300;
  std::vector<std::atomic<int>> busy(kThreads);
  std::atomic<bool> overlap{false}, out_of_range{false};
  std::vector<std::atomic<int>> runs(kCount);
  RunTasks(kCount, kThreads, [&](int64_t i, int worker) {
    if (worker < 0 || worker >= kThreads) {
      out_of_range = true;
      return;
    }
    if (busy[static_cast<size_t>(worker)].fetch_add(1) != 0) overlap = true;
    runs[static_cast<size_t>(i)].fetch_add(1);
    busy[static_cast<size_t>(worker)].fetch_sub(1);
  });
  EXPECT_FALSE(out_of_range);
  EXPECT_FALSE(overlap);
  for (int64_t i = 0; i < kCount; ++i) EXPECT_EQ(runs[static_cast<size_t>(i)].load(), 1) << i;
  // One thread: worker 0, in order.
  std::vector<int64_t> order;
  RunTasks(5, 1, [&](int64_t i, int worker) {
    EXPECT_EQ(worker, 0);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelTasks, AThreadThatRunsOutTakesOverASlowerThreadsShare) {
  // Worker 0's tasks each take 2 ms, worker 1's nothing: with a static split worker 0 would run all of tasks 0..15 (32
  // ms); worker 1, done with its own share at once, takes chunks from the back of worker 0's.
  constexpr int64_t kCount = 32;
  std::vector<int> ran_on(kCount, -1);
  const auto start = std::chrono::steady_clock::now();
  RunTasks(kCount, 2, [&](int64_t i, int worker) {
    ran_on[static_cast<size_t>(i)] = worker;
    if (worker == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (ran_on[kCount - 1] == 0) GTEST_SKIP() << "OpenMP gave the team one thread";
  int first_share_by_worker1 = 0;
  for (int64_t i = 0; i < kCount / 2; ++i) first_share_by_worker1 += ran_on[static_cast<size_t>(i)] == 1;
  EXPECT_GE(first_share_by_worker1, 8) << "the idle thread took over too little of the slow one's share";
  EXPECT_LT(ms, 28.0);
}

TEST(ParallelTasks, InsideAParallelRegionRunsInOrderOnTheCallingThread) {
  std::vector<int64_t> order;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    RunTasks(4, 2, [&](int64_t i) { order.push_back(i); });
  }
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace onyx::kernels
