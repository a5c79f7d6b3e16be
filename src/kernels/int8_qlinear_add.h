// Elementwise addition of two 8-bit quantized tensors computed as ONNX Runtime's com.microsoft QLinearAdd computes it
// on x86-64 with AVX2 (MLAS's qladd_avx2 kernel), bit for bit: with ratios rA = a_scale / c_scale and
// rB = b_scale / c_scale (float divisions) and fixed = c_zp - fma(rA, a_zp, rB * b_zp),
//   c = saturate(round_half_even(fma(a, rA, fma(b, rB, fixed))))
// (for a b that is one value along the span MLAS folds fma(b, rB, fixed) once: the same bits), where a and b are the
// raw 8-bit values as floats. The fused multiply-adds matter: measured against ONNX Runtime 1.30 on every (a, b) pair
// for 40 random parameter sets, this form matched all 2.6M results; separate multiplies and adds (MLAS's SSE2 kernel)
// or other contractions of `fixed` did not (5-10 differences).
#pragma once

#include <cstdint>

namespace onyx::kernels {

struct QLinearAddParams {
  float ratio_a = 1, ratio_b = 1, fixed = 0;
};

QLinearAddParams MakeQLinearAddParams(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point,
                                      float c_scale, int32_t c_zero_point);

// out[i] = a[i] (+) b[i] for i < n.
template <typename Q>
void QLinearAddSpans(const Q* a, const Q* b, int64_t n, const QLinearAddParams& p, Q* out);

// out[i] = a[i] (+) b for i < n (b one value).
template <typename Q>
void QLinearAddScalar(const Q* a, Q b, int64_t n, const QLinearAddParams& p, Q* out);

}  // namespace onyx::kernels
