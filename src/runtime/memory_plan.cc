#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace onyx {

ArenaPlan PlanArena(const std::vector<BufferLifetime>& buffers, size_t alignment) {
  const auto round_up = [alignment](size_t bytes) { return ArenaBufferBytes(bytes, alignment); };
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Largest first; among equals the earlier request first (a deterministic plan for a repeated run).
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return round_up(buffers[a].bytes) > round_up(buffers[b].bytes); });
  std::vector<size_t> placed;  // indices placed so far
  placed.reserve(buffers.size());
  std::vector<std::pair<size_t, size_t>> taken;  // [begin, end) of the placed buffers live with the current one
  for (size_t i : order) {
    const BufferLifetime& b = buffers[i];
    const size_t bytes = round_up(b.bytes);
    taken.clear();
    for (size_t j : placed) {
      const BufferLifetime& o = buffers[j];
      if (o.first < b.last && b.first < o.last)
        taken.emplace_back(plan.offsets[j], plan.offsets[j] + round_up(o.bytes));
    }
    std::sort(taken.begin(), taken.end());
    // The lowest gap of `bytes` between the ranges taken over this buffer's lifetime.
    size_t offset = 0;
    for (const auto& [begin, end] : taken) {
      if (begin >= offset + bytes) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + bytes);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace onyx
