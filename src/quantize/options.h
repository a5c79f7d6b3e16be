// The settings of `onyx quantize` (and onyx.quantize in Python): which kind of quantized model to make and how.
// The conventions follow ONNX Runtime's quantization tool so that its users find what they expect: symmetric
// int8 weights (zero point 0, range [-127, 127]), asymmetric uint8/int8 activations, int32 biases with scale
// s_input * s_weight, QuantizeLinear/DequantizeLinear pairs named "<tensor>_QuantizeLinear" and so on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/data_type.h"

namespace onyx::quantize {

enum class Mode {
  kDynamic,     // weights int8 now, activations at run time (DynamicQuantizeLinear + MatMulInteger/ConvInteger)
  kStatic,      // QDQ: activation ranges from a calibration set, QuantizeLinear/DequantizeLinear around operators
  kWeightOnly,  // blockwise int4/int8 MatMul weights behind a blocked DequantizeLinear (opset 21)
};

enum class CalibrationMethod { kMinMax, kPercentile, kEntropy };

// How a static model is written (ONNX Runtime's QuantFormat): QuantizeLinear/DequantizeLinear pairs around float
// operators, or the integer operators themselves (QLinearConv, QLinearMatMul, com.microsoft QLinearAdd, ...).
enum class Format { kQdq, kQOperator };

// Where calibration stands (for a progress bar): `done` of `total` model runs.
struct Progress {
  int64_t done = 0;
  int64_t total = 0;
  std::string stage;  // "calibrating", "measuring"
};

struct QuantizeOptions {
  Mode mode = Mode::kDynamic;
  bool per_channel = false;  // weights: one scale per output channel instead of one per tensor
  // Weights in 7 bits ([-64, 64]), as ONNX Runtime's reduce_range, for CPUs whose int8 dot products saturate
  // in 16 bits (pre-VNNI x86).
  bool reduce_range = false;

  // Static mode.
  std::string calibration_dir;
  DataType activation_type = DataType::kUint8;  // or kInt8
  Format format = Format::kQdq;
  CalibrationMethod method = CalibrationMethod::kMinMax;
  double percentile = 99.999;  // --calibrate-method percentile: share of |x| kept
  int num_bins = 2048;         // histogram bins per observed tensor (fixed: memory does not grow)
  // The observed tensors become graph outputs, which a run holds until it ends: they share one session (each sample
  // runs once) as long as their values take at most this many bytes together (0: no limit), else they are split.
  int64_t max_observed_bytes = int64_t{1} << 30;
  int max_outputs_per_session = 0;  // and at most this many observed tensors per session (0: no limit)
  int max_samples = 0;              // 0: every sample of the calibration folder
  int error_samples = 4;            // activation quantization error is measured on this many samples
  // Before quantizing, fold BatchNormalization, zero Pads and per-channel Mul/Add into Convs, MatMul + Add into Gemm,
  // constant-fold and clean up (standard ONNX only: prepare.h).
  bool prepare = true;
  // Subtract from each quantized Conv/Gemm's bias the mean error its int8 weights add to each output channel over
  // the calibration samples (bias_correction.h).
  bool bias_correction = true;
  std::vector<std::string> exclude;   // node names left in float
  std::vector<std::string> op_types;  // empty: the default set of the mode
  int threads = 0;                    // calibration sessions' threads (0: all cores)

  // Weight-only mode.
  int bits = 4;    // 4 or 8
  int block = 32;  // elements per block along K, 16..256, a power of two

  std::function<void(const Progress&)> progress;  // called during calibration and measurement; may be empty
};

}  // namespace onyx::quantize
