// What `onyx quantize` did: every quantized tensor's parameters and error, and (static mode) how closely the
// quantized model's outputs follow the float model's on the calibration set. Printed as text, saved as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "quantize/weights.h"

namespace onyx::quantize {

struct TensorReport {
  std::string name;  // the float tensor's name in the input model
  std::string kind;  // "weight", "bias" or "activation"
  std::string type;  // the quantized element type: "int8", "uint8", "int4", "int32"
  std::vector<float> scales;
  std::vector<int32_t> zero_points;
  int64_t axis = -1;  // per-channel / blocked axis; -1 per tensor
  int64_t block_size = 0;
  float range_min = 0, range_max = 0;  // activations: the calibrated range
  ErrorStats error;
  bool error_measured = false;  // activations: measured on the first samples; weights: always
};

struct OutputReport {
  std::string name;
  ErrorStats error;            // over all evaluation samples
  double top1_agreement = -1;  // classifier-like outputs ([N, C], C > 1): share of rows with the same argmax
  int64_t samples = 0;
};

struct QuantizeReport {
  std::string mode;  // "dynamic", "static", "weight-only"
  std::string calibration_method;
  int64_t calibration_samples = 0;
  int64_t sessions = 0;                            // calibration sessions (each runs every sample once)
  size_t observer_bytes = 0;                       // memory of all histogram observers together
  int64_t observed_bytes_per_run = 0;              // estimated observed values one calibration run holds
  std::map<std::string, int64_t> quantized_nodes;  // op_type -> count
  int64_t opset_from = 0, opset_to = 0;
  std::vector<TensorReport> tensors;
  std::vector<OutputReport> outputs;
  std::vector<std::string> notes;  // nodes left in float and why
};

std::string ReportToJson(const QuantizeReport& report);
// A readable summary: one line per tensor (per-channel scales as their min..max), then the outputs' agreement.
std::string ReportToText(const QuantizeReport& report, bool per_tensor_lines);

}  // namespace onyx::quantize
