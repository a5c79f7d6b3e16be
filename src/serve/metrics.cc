#include "serve/metrics.h"

#include <cstdio>

namespace onyx::serve {
namespace {

// A label value with \, " and newlines escaped, as the exposition format requires.
std::string LabelValue(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void Family(const char* name, const char* type, const char* help, std::string* out) {
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

void Histogram::Add(double v) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (v <= bounds_[i]) ++counts_[i];
  }
  ++count_;
  sum_ += v;
}

void Histogram::Append(const std::string& name, const std::string& labels, std::string* out) const {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    *out += name + "_bucket{" + labels + ",le=\"" + Number(bounds_[i]) + "\"} " + std::to_string(counts_[i]) + "\n";
  }
  *out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(count_) + "\n";
  *out += name + "_sum{" + labels + "} " + Number(sum_) + "\n";
  *out += name + "_count{" + labels + "} " + std::to_string(count_) + "\n";
}

void InferenceMetrics::Record(bool success, double queue_seconds, double compute_seconds, double total_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(success ? success_ : failure_);
  queue_seconds_ += queue_seconds;
  compute_seconds_ += compute_seconds;
  duration_.Add(total_seconds);
  // Requests refused before reaching the model (bad input) spent no time queued or running: not observed there.
  if (queue_seconds > 0 || compute_seconds > 0) {
    queue_.Add(queue_seconds);
    compute_.Add(compute_seconds);
  }
}

void InferenceMetrics::RecordBatch(int64_t batch_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  batch_.Add(static_cast<double>(batch_size));
}

std::string InferenceMetrics::PrometheusText(const std::string& model_name) const {
  return Render({{"model=\"" + LabelValue(model_name) + "\"", this}});
}

std::string InferenceMetrics::Render(const std::vector<std::pair<std::string, const InferenceMetrics*>>& sets) {
  std::vector<std::unique_lock<std::mutex>> locks;
  for (const auto& [labels, m] : sets) locks.emplace_back(m->mutex_);
  std::string out;
  Family("onyx_inference_requests_total", "counter", "Inference requests answered, by outcome.", &out);
  for (const auto& [labels, m] : sets) {
    out += "onyx_inference_requests_total{" + labels + ",status=\"success\"} " + std::to_string(m->success_) + "\n";
    out += "onyx_inference_requests_total{" + labels + ",status=\"failure\"} " + std::to_string(m->failure_) + "\n";
  }
  Family("onyx_inference_queue_seconds_total", "counter",
         "Time requests waited for a run slot (--concurrency) or for their dynamic batch.", &out);
  for (const auto& [labels, m] : sets) {
    out += "onyx_inference_queue_seconds_total{" + labels + "} " + Number(m->queue_seconds_) + "\n";
  }
  Family("onyx_inference_compute_seconds_total", "counter", "Time spent running the model, per request.", &out);
  for (const auto& [labels, m] : sets) {
    out += "onyx_inference_compute_seconds_total{" + labels + "} " + Number(m->compute_seconds_) + "\n";
  }
  Family("onyx_inference_request_duration_seconds", "histogram", "Time from a request's handling to its answer.", &out);
  for (const auto& [labels, m] : sets) m->duration_.Append("onyx_inference_request_duration_seconds", labels, &out);
  Family("onyx_inference_queue_duration_seconds", "histogram",
         "Time a request that reached the model waited for a run slot or its batch.", &out);
  for (const auto& [labels, m] : sets) m->queue_.Append("onyx_inference_queue_duration_seconds", labels, &out);
  Family("onyx_inference_compute_duration_seconds", "histogram", "Time of the model run that answered a request.",
         &out);
  for (const auto& [labels, m] : sets) m->compute_.Append("onyx_inference_compute_duration_seconds", labels, &out);
  Family("onyx_inference_batch_size", "histogram",
         "Requests answered by one model run (above 1 only with dynamic batching).", &out);
  for (const auto& [labels, m] : sets) m->batch_.Append("onyx_inference_batch_size", labels, &out);
  return out;
}

std::shared_ptr<InferenceMetrics> MetricsRegistry::For(const std::string& model, const std::string& version) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = metrics_[{model, version}];
  if (!slot) slot = std::make_shared<InferenceMetrics>();
  return slot;
}

std::string MetricsRegistry::PrometheusText() const {
  std::vector<std::pair<std::string, std::shared_ptr<InferenceMetrics>>> held;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [key, m] : metrics_) {
      held.emplace_back("model=\"" + LabelValue(key.first) + "\",version=\"" + LabelValue(key.second) + "\"", m);
    }
  }
  std::vector<std::pair<std::string, const InferenceMetrics*>> sets;
  for (const auto& [labels, m] : held) sets.emplace_back(labels, m.get());
  return InferenceMetrics::Render(sets);
}

}  // namespace onyx::serve
