// Bias correction (a standard post-training quantization step, e.g. Nagel et al., "Data-Free Quantization", 2019):
// int8 weights W_q = W + dW shift each output channel's mean by E[dW x], which the following layers see as a
// systematic offset (large for depthwise convolutions, whose 9 weights per channel round coarsely). The mean of
// dW x per output channel is measured on the calibration samples with the float model's inputs x, and subtracted
// from the bias, so the quantized layer's output keeps the float layer's mean per channel.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "ir/model.h"
#include "quantize/calibration.h"
#include "quantize/options.h"
#include "quantize/report.h"

namespace onyx::quantize {

struct BiasCorrectionTarget {
  size_t node = 0;    // index in model.graph.nodes: a Conv, or a Gemm with transA = 0, with a constant float weight
  int64_t axis = -1;  // the weight's quantization axis (-1: per tensor), as the quantizer will quantize it
};

// Measures E[dW x] for every target on `data` (one run of the float model per sample, with a Conv/Gemm on dW next
// to each target) and rewrites each target's bias to b - E[dW x] (a new initializer; a Conv or Gemm without bias
// gets one). Returns how many biases changed. Targets whose bias is not a plain per-channel constant are skipped.
Result<int> CorrectBiases(ir::Model& model, const std::vector<BiasCorrectionTarget>& targets,
                          const CalibrationSet& data, const QuantizeOptions& options);

}  // namespace onyx::quantize
