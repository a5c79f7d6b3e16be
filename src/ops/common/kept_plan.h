// The plan a kernel derived on its last run from what its inputs are (shapes, the values of small shape-like inputs)
// kept for the next run whose inputs are the same, so that a run in steady state allocates nothing.
//
// Session::Run may be called from several threads at once: the plan is immutable and shared, and the pointer to it
// is read and replaced under a short lock. A run whose inputs differ makes its own plan and keeps it in turn (the
// last shape wins: models whose shapes change every run pay what they paid before).
#pragma once

#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "core/status.h"

namespace onyx::ops {

template <typename Plan>
class KeptPlan {
 public:
  // The kept plan when `fits(plan)` says it serves this run, else null.
  template <typename Fits>
  std::shared_ptr<const Plan> Find(Fits&& fits) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (plan_ != nullptr && fits(*plan_)) return plan_;
    return nullptr;
  }

  void Keep(std::shared_ptr<const Plan> plan) {
    std::lock_guard<std::mutex> lock(mutex_);
    plan_ = std::move(plan);
  }

  // The kept plan if it fits, else the one `make()` returns (a Result<std::shared_ptr<const Plan>>), kept.
  template <typename Fits, typename Make>
  Result<std::shared_ptr<const Plan>> FindOrMake(Fits&& fits, Make&& make) {
    if (std::shared_ptr<const Plan> kept = Find(std::forward<Fits>(fits))) return kept;
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> made, make());
    Keep(made);
    return made;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Plan> plan_;
};

}  // namespace onyx::ops
