// The one way onyx's own kernels spread independent tasks over OpenMP threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace onyx::kernels {

// Runs task(0) .. task(count - 1), statically split over min(threads, count) OpenMP threads. One thread, or a call
// from inside a parallel region, runs them in order with no parallel region at all: even a serialized one
// allocates libgomp's team (the steady-state allocation test counts it).
template <typename Task>
void RunTasks(int64_t count, int threads, const Task& task) {
  const int team = static_cast<int>(std::min<int64_t>(std::max(threads, 1), count));
  if (team > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static) num_threads(team)
    for (int64_t i = 0; i < count; ++i) task(i);
  } else {
    for (int64_t i = 0; i < count; ++i) task(i);
  }
}

}  // namespace onyx::kernels
