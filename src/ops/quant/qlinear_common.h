// What ONNX Runtime's 8-bit com.microsoft operators share: reading their one-value scales and zero points, and the
// 256-entry tables of its lookup-table operators (QLinearSigmoid, QLinearLeakyRelu, QLinearWhere, QLinearConcat's
// requantization), built as its QlinearBuildLookupTable builds them: every byte value dequantized
// (x_scale * (q - x_zero_point) in float32), mapped, then quantized to Y's parameters (kernels::QuantizeFloat, the
// same roundings as MLAS's MlasQuantizeLinear).
#pragma once

#include <cstdint>
#include <functional>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx {
class KernelContext;
}

namespace onyx::ops::quant {

// A scale input: one float32 value (a scalar or any shape of one element). `name` names the input in errors, e.g.
// "input 'A_scale' (1)".
Result<float> ScalarScale(const Tensor& t, const char* name);

// A zero point input of the data's 8-bit `type`: 0 when absent.
Result<int32_t> ScalarZeroPoint(const Tensor* t, DataType type, const char* name);

// QLinearAdd of tensors a and b (one 8-bit type, numpy broadcasting) with their parameters, into ctx's output 0
// (qlinear_binary.cc; also the fused residual add of ai.onyx.internal.QLinearConv where the shapes differ).
Status QLinearAddTensors(const Tensor& a, float a_scale, int32_t a_zero_point, const Tensor& b, float b_scale,
                         int32_t b_zero_point, float c_scale, int32_t c_zero_point, KernelContext& ctx);

// A byte's value as `type` (uint8 or int8).
inline int32_t ByteValue(DataType type, int b) {
  return type == DataType::kUint8 ? b : static_cast<int8_t>(static_cast<uint8_t>(b));
}

// f(in, out, n): the float mapping of a lookup-table operator over n values (in != out).
using FloatMapping = std::function<void(const float* in, float* out, int64_t n)>;

// table[b] = quantize(f(x_scale * (ByteValue(b) - x_zp)), y_scale, y_zp) for the 256 byte values b, quantized to
// `type` (the input's and output's 8-bit type); f null: the identity (a requantization).
void BuildQLinearTable(DataType type, float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, const FloatMapping& f,
                       uint8_t* table);

// The global average of `channels` images of `size` values each per batch entry, in MLAS's arithmetic
// (MlasQLinearGlobalAveragePool: the exact int32 sum less x_zp * size, requantized with the float scale
// x_scale / (y_scale * size)): in is [batch, channels, size] or, channels_last, [batch, size, channels]; out is
// [batch, channels]. Like MLAS it refuses images of 2^24 or more values and scales outside [2^-32, 256), where the
// result would be constant. For Q in {uint8_t, int8_t}. (qlinear_pool.cc; QLinearGlobalAveragePool, and
// QLinearAveragePool over a whole unpadded image.)
template <typename Q>
Status QLinearGlobalAverage(const Q* in, int64_t batch, int64_t channels, int64_t size, bool channels_last,
                            float x_scale, int32_t x_zp, float y_scale, int32_t y_zp, Q* out);

}  // namespace onyx::ops::quant
