// Calibration: reading a calibration set from a folder and observing chosen tensors of a float model over it,
// through onyx's own Session. The observed tensors become graph outputs of a copy of the model, all of them in one
// session (one run per sample) when their values fit QuantizeOptions::max_observed_bytes together, else in groups
// that do (calibration_plan.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/model.h"
#include "quantize/histogram.h"
#include "quantize/options.h"
#include "quantize/weights.h"

namespace onyx::quantize {

using Feeds = std::vector<std::pair<std::string, Value>>;

// The samples of a calibration folder, read from disk one at a time. Accepted layouts:
// - sub-folders (ONNX test-data style test_data_set_N/, or any names), one sample each, holding input_K.pb or
//   input_K.npy (K: the model's K-th real input) or NAME.npy / NAME.pb per input name;
// - .npy (or .pb) files at the top, one sample each, for a model with one input;
// - NAME.npy files at the top, one per model input, each stacking the samples along axis 0.
class CalibrationSet {
 public:
  static Result<CalibrationSet> Open(const std::string& dir, const ir::Graph& graph, int max_samples);
  size_t size() const { return samples_.size(); }
  Result<Feeds> Load(size_t i) const;

 private:
  struct Sample {
    std::vector<std::pair<std::string, std::string>> files;  // input name -> file
    int64_t row = -1;                                        // stacked layout: the row of each stacked array
  };
  const ir::Graph* graph_ = nullptr;
  std::vector<Sample> samples_;
  std::map<std::string, Tensor> stacked_;  // stacked layout: input name -> all samples
};

// What calibration learned about one tensor.
struct ObservedTensor {
  HistogramObserver observer;
  bool is_float = true;  // false: not a float32 tensor (e.g. an int64 shape computation); not quantized
  bool seen = false;
  std::pair<float, float> range{0.0f, 0.0f};
  float scale = 1;
  int32_t zero_point = 0;
  ErrorAccumulator error;  // QuantizeLinear -> DequantizeLinear vs float on the first samples
  // Entropy calibration: the clipped range is kept only when its squared QDQ error on the first samples is at most
  // that of the min/max range (a saturated Relu6 output, a spike at 6, is not an outlier to clip).
  bool kept_minmax = false;

  explicit ObservedTensor(int bins) : observer(bins) {}
};

struct CalibrationStats {
  int64_t sessions = 0;  // calibration sessions: each runs every sample once
  size_t observer_bytes = 0;
  int64_t observed_bytes_per_run = 0;  // estimated bytes of observed values one run holds (the largest group)
};

// Runs `model` on every sample of `data`, observing `tensors`; then sets each float tensor's range (by the
// options' method), its quantization parameters for options.activation_type, and measures its quantization error
// on the first options.error_samples samples (entropy: and keeps the min/max range where clipping errs more there).
Result<std::map<std::string, ObservedTensor>> Calibrate(const ir::Model& model, const std::vector<std::string>& tensors,
                                                        const CalibrationSet& data, const QuantizeOptions& options,
                                                        CalibrationStats* stats);

}  // namespace onyx::quantize
