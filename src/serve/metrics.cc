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

}  // namespace

void InferenceMetrics::Record(bool success, double queue_seconds, double compute_seconds, double total_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(success ? success_ : failure_);
  queue_seconds_ += queue_seconds;
  compute_seconds_ += compute_seconds;
  total_seconds_ += total_seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (total_seconds <= kBuckets[i]) ++bucket_counts_[i];
  }
}

std::string InferenceMetrics::PrometheusText(const std::string& model_name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string model = "model=\"" + LabelValue(model_name) + "\"";
  const uint64_t count = success_ + failure_;
  std::string out;
  out += "# HELP onyx_inference_requests_total Inference requests answered, by outcome.\n";
  out += "# TYPE onyx_inference_requests_total counter\n";
  out += "onyx_inference_requests_total{" + model + ",status=\"success\"} " + std::to_string(success_) + "\n";
  out += "onyx_inference_requests_total{" + model + ",status=\"failure\"} " + std::to_string(failure_) + "\n";
  out += "# HELP onyx_inference_queue_seconds_total Time requests waited for a free run slot (--concurrency).\n";
  out += "# TYPE onyx_inference_queue_seconds_total counter\n";
  out += "onyx_inference_queue_seconds_total{" + model + "} " + Number(queue_seconds_) + "\n";
  out += "# HELP onyx_inference_compute_seconds_total Time spent running the model.\n";
  out += "# TYPE onyx_inference_compute_seconds_total counter\n";
  out += "onyx_inference_compute_seconds_total{" + model + "} " + Number(compute_seconds_) + "\n";
  out += "# HELP onyx_inference_request_duration_seconds Time from a request's handling to its answer.\n";
  out += "# TYPE onyx_inference_request_duration_seconds histogram\n";
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    out += "onyx_inference_request_duration_seconds_bucket{" + model + ",le=\"" + Number(kBuckets[i]) + "\"} " +
           std::to_string(bucket_counts_[i]) + "\n";
  }
  out += "onyx_inference_request_duration_seconds_bucket{" + model + ",le=\"+Inf\"} " + std::to_string(count) + "\n";
  out += "onyx_inference_request_duration_seconds_sum{" + model + "} " + Number(total_seconds_) + "\n";
  out += "onyx_inference_request_duration_seconds_count{" + model + "} " + std::to_string(count) + "\n";
  return out;
}

}  // namespace onyx::serve
