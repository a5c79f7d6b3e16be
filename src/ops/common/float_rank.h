// Candidates ranked by a float value as one 64-bit integer, for selections that compare many times (TopK's partial
// sort, NonMaxSuppression's heap): comparing these directly instead of indices through their values halved those
// kernels. Without a branch on the sign: one per value was a misprediction on data of both signs.
#pragma once

#include <bit>
#include <cstdint>

namespace onyx::ops {

// The bits of v in an order unsigned integers compare as the floats do (-0 as +0, -inf lowest, +inf at 0xFF800000);
// for a NaN, some value above +inf (callers map NaN where they want it first).
inline uint32_t OrderedFloatBits(float v) {
  uint32_t bits = std::bit_cast<uint32_t>(v + 0.0f);                              // -0 + 0 = +0
  bits ^= static_cast<uint32_t>(static_cast<int32_t>(bits) >> 31) | 0x80000000u;  // negatives complemented
  return bits;
}

// A rank: `key` first, then the lower index (below 2^32) first; larger ranks come first.
inline uint64_t RankOf(uint32_t key, int64_t index) {
  return (static_cast<uint64_t>(key) << 32) | (0xFFFFFFFFu - static_cast<uint32_t>(index));
}
inline int64_t IndexOfRank(uint64_t rank) { return 0xFFFFFFFFu - static_cast<uint32_t>(rank); }

}  // namespace onyx::ops
