// Running a Highway kernel test on every target this CPU supports, as the kernel's own dispatch would pick each.
#pragma once

#include <hwy/targets.h>

#include <cstdint>
#include <vector>

namespace onyx {

// The targets of this CPU that a kernel file compiled with the tests' flags dispatches between, best first: the
// including file's HWY_TARGETS (the same compiler flags) plus `extra` targets the kernel file adds for itself
// (int8_lookup.cc: HWY_AVX3_DL).
inline std::vector<int64_t> HwyTargetsToTest(int64_t extra = 0) {
  std::vector<int64_t> targets;
  for (int64_t t = hwy::SupportedTargets() & (HWY_TARGETS | extra); t != 0; t &= t - 1) targets.push_back(t & ~(t - 1));
  return targets;
}

// Makes Highway dispatch to `target` until the end of the scope, then restores its own choice.
struct HwyTargetMock {
  explicit HwyTargetMock(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~HwyTargetMock() { hwy::SetSupportedTargetsForTest(0); }
  HwyTargetMock(const HwyTargetMock&) = delete;
  HwyTargetMock& operator=(const HwyTargetMock&) = delete;
};

}  // namespace onyx
