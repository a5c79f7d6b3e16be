// Counters of `onyx serve`, exposed at GET /metrics in Prometheus' text format (as Triton exposes its nv_inference_*
// metrics): per model and version, requests by outcome, histograms of the time spent waiting (for a run slot or for
// a dynamic batch to fill), running the model and answering, and of the batch sizes the model ran.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace onyx::serve {

// A cumulative histogram over fixed upper bounds (+Inf implied), as Prometheus exposes them.
class Histogram {
 public:
  explicit Histogram(std::span<const double> bounds) : bounds_(bounds), counts_(bounds.size(), 0) {}
  void Add(double v);
  // The _bucket, _sum and _count lines of `name` with `labels` (`model="m"` or `model="m",version="1"`).
  void Append(const std::string& name, const std::string& labels, std::string* out) const;
  uint64_t count() const { return count_; }

 private:
  std::span<const double> bounds_;
  std::vector<uint64_t> counts_;  // observations <= bounds_[i] (cumulative)
  uint64_t count_ = 0;
  double sum_ = 0;
};

class InferenceMetrics {
 public:
  // One finished inference request. `queue_seconds`: waiting for a run slot or a batch; `compute_seconds`: the
  // Session::Run that answered it (a whole batch's); `total_seconds`: from the start of the handler (parsing
  // included) to the response being ready.
  void Record(bool success, double queue_seconds, double compute_seconds, double total_seconds);
  // One run of the model that answered `batch_size` requests at once (1 without dynamic batching).
  void RecordBatch(int64_t batch_size);

  // The exposition text of this one set of series, every series labelled with model="<model_name>".
  std::string PrometheusText(const std::string& model_name) const;

  // Upper bounds (seconds) of the latency histograms' buckets; +Inf is implied.
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
  static constexpr std::array<double, 8> kBatchBuckets = {1, 2, 4, 8, 16, 32, 64, 128};

  // Renders several sets of series (label text, metrics), each metric family once with its HELP and TYPE lines.
  static std::string Render(const std::vector<std::pair<std::string, const InferenceMetrics*>>& sets);

 private:
  mutable std::mutex mutex_;
  uint64_t success_ = 0;
  uint64_t failure_ = 0;
  double queue_seconds_ = 0;
  double compute_seconds_ = 0;
  Histogram duration_{kBuckets};
  Histogram queue_{kBuckets};
  Histogram compute_{kBuckets};
  Histogram batch_{kBatchBuckets};
};

// One InferenceMetrics per (model, version), kept across unloads and reloads so counters never go backwards.
class MetricsRegistry {
 public:
  std::shared_ptr<InferenceMetrics> For(const std::string& model, const std::string& version);
  std::string PrometheusText() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<InferenceMetrics>> metrics_;
};

}  // namespace onyx::serve
