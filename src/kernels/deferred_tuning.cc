#include "kernels/deferred_tuning.h"

#include <algorithm>
#include <map>
#include <utility>

namespace onyx::kernels {

void DeferredTuning::Add(const std::string& key, double priority, std::function<bool()> tune) {
  std::lock_guard<std::mutex> lock(mutex_);
  requests_.push_back({key, priority, std::move(tune)});
}

bool DeferredTuning::empty() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_.empty();
}

bool DeferredTuning::RunAll() {
  std::vector<Request> requests;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests.swap(requests_);
  }
  // Each key's total and the position of its first request.
  std::map<std::string, std::pair<double, size_t>> keys;
  for (size_t i = 0; i < requests.size(); ++i) {
    auto it = keys.try_emplace(requests[i].key, 0.0, i).first;
    it->second.first += requests[i].priority;
  }
  std::stable_sort(requests.begin(), requests.end(), [&](const Request& a, const Request& b) {
    const auto& ka = keys.at(a.key);
    const auto& kb = keys.at(b.key);
    return ka.first != kb.first ? ka.first > kb.first : ka.second < kb.second;
  });
  bool changed = false;
  for (auto& request : requests) changed = request.tune() || changed;
  return changed;
}

}  // namespace onyx::kernels
