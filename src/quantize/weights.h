// Quantizing constant tensors (weights and biases) and the arithmetic of quantization parameters. Pure functions
// over tensors: no graph, no session (tests/unit/quantize_weights_test.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::quantize {

// How far a dequantized tensor is from the float one.
struct ErrorStats {
  double cosine = 1;         // 1 when both are all zeros
  double max_abs_error = 0;  // max |float - dequantized|
};
ErrorStats CompareValues(std::span<const float> reference, std::span<const float> approximation);

// The same statistics accumulated over many pairs of arrays (a tensor over calibration samples).
class ErrorAccumulator {
 public:
  void Add(std::span<const float> reference, std::span<const float> approximation);
  ErrorStats Get() const;
  bool empty() const { return !any_; }

 private:
  double dot_ = 0, ref_norm_ = 0, approx_norm_ = 0, worst_ = 0;
  bool any_ = false;
};

// A quantized constant and the DequantizeLinear inputs/attributes that give it back.
struct QuantizedTensor {
  Tensor q;           // int8, int4 or int32, the float tensor's shape
  Tensor scale;       // float: scalar (per tensor), [C] (per channel along `axis`) or blocked (see QuantizeBlockwise)
  Tensor zero_point;  // the scale's shape, the quantized type; undefined when omitted (biases, blocked)
  int64_t axis = -1;  // -1: per tensor
  int64_t block_size = 0;
  ErrorStats error;  // dequantized vs float
};

// Symmetric quantization of a float32 tensor to int8: scale = max|w| / 127 (64 with `reduce_range`, whose range is
// [-64, 64]), zero point 0, values rounded half to even. `axis` >= 0 gives one scale per index along it (per
// channel); -1 one scale for the tensor. An all-zero tensor or channel gets scale 1 (DequantizeLinear needs a
// nonzero scale and nothing is lost).
Result<QuantizedTensor> QuantizeSymmetric(const Tensor& w, int64_t axis, bool reduce_range);

// Blockwise symmetric quantization of a 2-D float32 [K, N] MatMul weight along K: each run of `block` rows of a
// column shares a scale max|w| / qmax (qmax 7 for 4 bits, values in [-8, 7] packed two per byte as ONNX packs
// int4; 127 for 8 bits). The scale tensor is [ceil(K / block), N]: DequantizeLinear-21 with axis 0 and
// block_size `block`. No zero point (0).
Result<QuantizedTensor> QuantizeBlockwise(const Tensor& w, int64_t block, int bits);

// A bias to int32 with the given per-tensor (1 value) or per-channel scales (one per element), zero point 0, as
// QLinearConv expects a bias: scale = s_input * s_weight. Values beyond int32 saturate.
Result<QuantizedTensor> QuantizeBias(const Tensor& bias, std::span<const float> scales);

// Asymmetric activation parameters for a calibrated range: the range is widened to contain 0 (so that 0 is exact
// and zero padding stays zero), scale = (rmax - rmin) / (qmax - qmin), zero point = round(qmin - rmin / scale)
// clamped into the type. uint8: [0, 255]; int8: [-128, 127]. An empty range (all zeros) gives scale 1, zero point 0, as
// ONNX Runtime does.
std::pair<float, int32_t> ActivationParams(float rmin, float rmax, DataType type);

// QuantizeLinear then DequantizeLinear of one value (round half to even, saturate), as the runtime computes it.
inline float FakeQuantize(float x, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  const float q = std::clamp(std::nearbyint(x / scale) + static_cast<float>(zero_point), static_cast<float>(qmin),
                             static_cast<float>(qmax));
  return (q - static_cast<float>(zero_point)) * scale;
}

// The dequantized values of a QuantizedTensor as float32, in the float tensor's layout.
Result<Tensor> Dequantize(const QuantizedTensor& qt);

}  // namespace onyx::quantize
