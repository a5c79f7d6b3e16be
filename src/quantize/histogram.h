// The streaming observer of one calibrated tensor: exact running min/max and a histogram of |x| with a fixed number
// of bins over [0, bins * width). When a larger |x| arrives the width doubles and neighbouring bins merge in pairs,
// so re-binning is exact and memory never grows with the number of samples. The calibration methods read their
// range from it (tests/unit/quantize_histogram_test.cc).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "quantize/options.h"

namespace onyx::quantize {

class HistogramObserver {
 public:
  explicit HistogramObserver(int num_bins = 2048);

  void Observe(std::span<const float> values);  // NaNs are skipped

  int64_t count() const { return count_; }
  float min() const { return count_ > 0 ? min_ : 0.0f; }
  float max() const { return count_ > 0 ? max_ : 0.0f; }
  double bin_width() const { return width_; }
  const std::vector<int64_t>& bins() const { return bins_; }
  // Bytes this observer holds (for the bounded-memory check).
  size_t MemoryBytes() const { return sizeof(*this) + bins_.capacity() * sizeof(int64_t); }

  // The smallest t (a bin edge) with at least `percentile`% of the |x| values within [0, t].
  float PercentileThreshold(double percentile) const;
  // The |x| clipping threshold that minimizes the KL divergence between the histogram and its quantization into
  // `quantized_bins` levels (the entropy calibration of TensorRT and ONNX Runtime).
  float EntropyThreshold(int quantized_bins = 128) const;

  // The calibrated range of the tensor: min/max, or min/max clipped to [-t, t] for percentile and entropy.
  std::pair<float, float> Range(CalibrationMethod method, double percentile) const;

 private:
  std::vector<int64_t> bins_;
  double width_ = 0;  // 0 until a nonzero |x| arrives (zeros are counted in bin 0 meanwhile)
  float min_ = 0, max_ = 0;
  int64_t count_ = 0;
};

}  // namespace onyx::quantize
