// Counters of `onyx serve`, exposed at GET /metrics in Prometheus' text format (as Triton exposes its nv_inference_*
// metrics): requests by outcome, and time spent waiting for a run slot, running the model and answering.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

namespace onyx::serve {

class InferenceMetrics {
 public:
  // One finished inference request. `queue_seconds`: waiting for a run slot; `compute_seconds`: Session::Run;
  // `total_seconds`: from the start of the handler (parsing included) to the response being ready.
  void Record(bool success, double queue_seconds, double compute_seconds, double total_seconds);

  // The exposition text, every series labelled with model="<model_name>".
  std::string PrometheusText(const std::string& model_name) const;

  // Upper bounds (seconds) of the request-duration histogram's buckets; +Inf is implied.
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1.0,  2.5};

 private:
  mutable std::mutex mutex_;
  uint64_t success_ = 0;
  uint64_t failure_ = 0;
  double queue_seconds_ = 0;
  double compute_seconds_ = 0;
  double total_seconds_ = 0;
  std::array<uint64_t, kBuckets.size()> bucket_counts_{};  // requests with total <= kBuckets[i] (cumulative)
};

}  // namespace onyx::serve
