// Row classes of matrix products with a constant right operand: the row counts whose choice of implementation is
// measured once and shared. m itself up to kExactRowClasses rows (a decoder's step, a few beams: there the kernels'
// speeds change with each row), else the range (2^j, 2^(j+1)] holding m. A model run at many sequence lengths
// (prompts, sentences of any length) then times a handful of classes instead of every length, whose misses would
// spend the tuning budget of a process on a few of them and leave the rest on the fixed choice, each length building
// a product of its own (kernels/float_matmul.h, kernels/int8_matmul.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onyx::kernels {

struct RowClass {
  int64_t low = 0, high = 0;
  bool operator==(const RowClass&) const = default;
};
inline constexpr int64_t kExactRowClasses = 8;

inline RowClass ProductRowClass(int64_t m) {
  if (m <= kExactRowClasses) return {m, m};
  int64_t high = kExactRowClasses * 2;
  while (high < m) high *= 2;
  return {high / 2 + 1, high};
}

// The class as a tuning key's part: "5" or "65-128".
inline std::string RowClassText(int64_t m) {
  const RowClass rows = ProductRowClass(m);
  return rows.low == rows.high ? std::to_string(rows.low) : std::to_string(rows.low) + "-" + std::to_string(rows.high);
}

// Products built for this many row counts of one row class (and thread count): the next one runs every row count of
// the class (prompts or sentences of ever new lengths would otherwise build a primitive per length, ~0.2 ms each for
// float products; an 8-bit product also reorders or packs its weights).
inline constexpr int kBuildsPerRowClass = 4;

// A node's count of the products it built per row class and key (thread count, and A's signedness for 8-bit ones):
// the rule above, for the float and 8-bit product caches. Not thread-safe (the caches hold their locks).
class RowClassBuilds {
 public:
  // Counts one more build for `m` rows under `key`; true once the class has had kBuildsPerRowClass before it.
  bool CountBuild(int64_t m, int key) {
    const int64_t high = ProductRowClass(m).high;
    for (Count& c : counts_) {
      if (c.class_high == high && c.key == key) return ++c.count > kBuildsPerRowClass;
    }
    counts_.push_back({high, key, 1});
    return 1 > kBuildsPerRowClass;
  }
  // Builds counted so far (tests).
  size_t total() const {
    size_t n = 0;
    for (const Count& c : counts_) n += static_cast<size_t>(c.count);
    return n;
  }

 private:
  struct Count {
    int64_t class_high;
    int key;
    int count;
  };
  std::vector<Count> counts_;
};

}  // namespace onyx::kernels
