// The one way onyx's own kernels spread independent tasks over OpenMP threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

namespace onyx::kernels {

namespace parallel_tasks_detail {

// One thread's share of the tasks, [next, end) packed into one atomic word: its owner takes chunks from the front, a
// thread that has run out takes chunks from the back. On its own cache line, so that owners claiming their next chunks
// do not contend.
struct alignas(64) TaskRange {
  std::atomic<uint64_t> state{0};
  int64_t chunk = 1;

  void Set(int64_t begin, int64_t end, int64_t chunk_tasks) {
    state.store(Pack(begin, end), std::memory_order_relaxed);
    chunk = std::max<int64_t>(chunk_tasks, 1);
  }
  // Claims [*begin, *end) from the front (owner) or the back (thief); false once the range is empty.
  bool Take(bool front, int64_t* begin, int64_t* end) {
    uint64_t s = state.load(std::memory_order_relaxed);
    for (;;) {
      const int64_t next = static_cast<int64_t>(s & 0xffffffffu), last = static_cast<int64_t>(s >> 32);
      if (next >= last) return false;
      const int64_t a = front ? next : std::max(next, last - chunk);
      const int64_t b = front ? std::min(last, next + chunk) : last;
      const uint64_t rest = front ? Pack(b, last) : Pack(next, a);
      if (state.compare_exchange_weak(s, rest, std::memory_order_relaxed)) {
        *begin = a;
        *end = b;
        return true;
      }
    }
  }
  static uint64_t Pack(int64_t next, int64_t end) {
    return static_cast<uint64_t>(next) | (static_cast<uint64_t>(end) << 32);
  }
};

// Teams beyond this many threads split statically (no stack array of ranges that large).
constexpr int kMaxStealingTeam = 64;
// Each share is claimed in about this many chunks: the most a thread that runs out can take from a slower one is one
// chunk at a time, and each claim is one atomic operation.
constexpr int64_t kChunksPerShare = 8;

// task(i), or task(i, worker) for a task that takes the index of the thread running it (0 .. team - 1: scratch per
// thread).
template <typename Task>
void Call(const Task& task, int64_t i, int worker) {
  if constexpr (std::is_invocable_v<const Task&, int64_t, int>) {
    task(i, worker);
  } else {
    task(i);
  }
}

}  // namespace parallel_tasks_detail

// Runs task(0) .. task(count - 1) over min(threads, count) OpenMP threads. Each thread first runs its own contiguous
// share (the share a static split gives it, so that kernels in sequence find the data a thread wrote in its own
// caches), in chunks from the front; a thread whose share is done takes chunks from the back of another's. Why: the
// vCPUs of a shared machine do not run at one speed (one of two measured 35-55% slower than the other for seconds at
// a time on an AMD EPYC VM, session 52), and a static split waits for the slowest thread; ONNX Runtime's thread pool
// balances the same way. Tasks must be independent: which thread runs one is not fixed. One thread, or a call from
// inside a parallel region, runs them in order with no parallel region at all: even a serialized one allocates
// libgomp's team (the steady-state allocation test counts it). A task callable as task(i, worker) also gets the index
// of the thread that runs it, 0 .. min(threads, count) - 1, for scratch of its own: one thread runs one task at a time.
template <typename Task>
void RunTasks(int64_t count, int threads, const Task& task) {
  namespace d = parallel_tasks_detail;
  const int team = static_cast<int>(std::min<int64_t>(std::max(threads, 1), count));
  if (team <= 1 || omp_in_parallel()) {
    for (int64_t i = 0; i < count; ++i) d::Call(task, i, 0);
    return;
  }
  if (team > d::kMaxStealingTeam || count > int64_t{0x7fffffff}) {
#pragma omp parallel for schedule(static) num_threads(team)
    for (int64_t i = 0; i < count; ++i) d::Call(task, i, omp_get_thread_num());
    return;
  }
  d::TaskRange ranges[d::kMaxStealingTeam];
  for (int t = 0; t < team; ++t) {
    const int64_t begin = count * t / team, end = count * (t + 1) / team;
    ranges[t].Set(begin, end, (end - begin + d::kChunksPerShare - 1) / d::kChunksPerShare);
  }
#pragma omp parallel num_threads(team)
  {
    // A team smaller than asked for still runs every share: the missing threads' shares are taken as others'.
    const int me = omp_get_thread_num();
    int64_t a = 0, b = 0;
    while (ranges[me].Take(true, &a, &b)) {
      for (int64_t i = a; i < b; ++i) d::Call(task, i, me);
    }
    for (int k = 1; k < team; ++k) {
      d::TaskRange& other = ranges[(me + k) % team];
      while (other.Take(false, &a, &b)) {
        for (int64_t i = a; i < b; ++i) d::Call(task, i, me);
      }
    }
  }
}

}  // namespace onyx::kernels
