// Offsets in one arena for buffers whose lifetimes are known: the requests a run made, recorded by the buffer pool
// (runtime/buffer_pool.h), which serves the next runs of the same requests from the arena. Buffers live at the same
// time never share bytes; placing the largest first, each at the lowest offset free over its whole lifetime
// (greedy by size, the rule of ONNX Runtime's memory patterns and TFLite's arena planner), keeps the arena near the
// largest set of bytes ever live at once, where size classes and per-class reuse held about twice that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onyx {

// A buffer of `bytes` live from event `first` (its request) until event `last` (its release), first < last.
struct BufferLifetime {
  size_t bytes = 0;
  uint32_t first = 0, last = 0;
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // per buffer, a multiple of the alignment
  size_t arena_bytes = 0;       // the end of the highest buffer
};

// The bytes a buffer of `bytes` takes in an arena of `alignment` (a power of two): at least one alignment unit.
inline size_t ArenaBufferBytes(size_t bytes, size_t alignment) {
  return ((bytes > 0 ? bytes : 1) + alignment - 1) & ~(alignment - 1);
}

// Places `buffers` (each taking ArenaBufferBytes) so that two whose lifetimes overlap never overlap in the arena.
ArenaPlan PlanArena(const std::vector<BufferLifetime>& buffers, size_t alignment);

}  // namespace onyx
