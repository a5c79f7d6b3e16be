// Intra-op parallelism for the kernels' own loops: OpenMP, the runtime oneDNN uses too, so both share one pool
// and one thread count (set by the session).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace onyx::ops {

// Below this many elements of simple work a loop stays on one thread (waking the pool costs more).
inline constexpr int64_t kParallelGrain = 1 << 15;

// Calls f(begin, end) over [0, n) split into contiguous chunks, one per thread when `n` (in units of about one
// element of work each) is large enough; f must be safe to run concurrently on disjoint ranges.
template <typename F>
void ParallelFor(int64_t n, int64_t work_per_item, F&& f) {
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (threads <= 1 || n * work_per_item < kParallelGrain || n < 2) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, n);
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = n * c / chunks;
    const int64_t end = n * (c + 1) / chunks;
    if (begin < end) f(begin, end);
  }
}

}  // namespace onyx::ops
