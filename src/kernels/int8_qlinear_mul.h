// Elementwise product of two 8-bit quantized tensors computed as ONNX Runtime's com.microsoft QLinearMul computes it
// on x86-64 (MLAS's MlasQLinearMul, one kernel for every x86 CPU, built for SSE2): the exact integer product
// p = (a - a_zp) * (b - b_zp), then c = saturate(round_half_even(float(p) * ratio + float(c_zp))) with
// ratio = a_scale * b_scale / c_scale in float (a product, then a division), the multiply and the add rounded
// separately (no fused multiply-add), the conversion that of cvtps2dq (out-of-range values give INT32_MIN, hence the
// type's minimum), saturated to 16 then 8 bits as its packs do.
#pragma once

#include <cstdint>

namespace onyx::kernels {

struct QLinearMulParams {
  float ratio = 1, c_zero_point = 0;
  int32_t a_zero_point = 0, b_zero_point = 0;
};

QLinearMulParams MakeQLinearMulParams(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point,
                                      float c_scale, int32_t c_zero_point);

// out[i] = a[i] (*) b[i] for i < n.
template <typename Q>
void QLinearMulSpans(const Q* a, const Q* b, int64_t n, const QLinearMulParams& p, Q* out);

// out[r * span + i] = a[r * span + i] (*) b[i] for r < rows, i < span: every row of a times the same span of b (the
// same per-lane arithmetic as QLinearMulSpans, its set-up once for all rows).
template <typename Q>
void QLinearMulRowsRepeatedB(const Q* a, const Q* b, int64_t rows, int64_t span, const QLinearMulParams& p, Q* out);

// out[i] = a[i] (*) b for i < n (b one value).
template <typename Q>
void QLinearMulScalar(const Q* a, Q b, int64_t n, const QLinearMulParams& p, Q* out);

}  // namespace onyx::kernels
