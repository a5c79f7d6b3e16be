// What onyx's own blocked convolution kernels (winograd_conv.h) apply to each output after the
// convolution, in oneDNN's post-op order: the bias, the value already in the output added (a residual, oneDNN's sum
// post-op), then the activation.
#pragma once

#include <immintrin.h>

namespace onyx::kernels {

struct ConvEpilogue {
  enum class Activation { kNone, kRelu, kClip };
  bool sum = false;
  Activation activation = Activation::kNone;
  float alpha = 0;  // kRelu: the slope below zero (LeakyRelu; 0 for Relu); kClip: the lower bound
  float beta = 0;   // kClip: the upper bound
  bool operator==(const ConvEpilogue&) const = default;
};

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// e's activation applied to 8 outputs.
inline __m256 ApplyActivation(__m256 v, const ConvEpilogue& e) {
  switch (e.activation) {
    case ConvEpilogue::Activation::kNone:
      break;
    case ConvEpilogue::Activation::kRelu: {
      // x > 0 ? x : alpha * x (alpha 0: Relu)
      const __m256 positive = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ);
      v = _mm256_blendv_ps(_mm256_mul_ps(v, _mm256_set1_ps(e.alpha)), v, positive);
      break;
    }
    case ConvEpilogue::Activation::kClip:
      v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(e.alpha)), _mm256_set1_ps(e.beta));
      break;
  }
  return v;
}

// `v` (8 outputs, the convolution's sums) with `bias` added and `e` applied, stored at `out` (8 floats, read first
// when e.sum).
inline void StoreWithEpilogue(__m256 v, __m256 bias, const ConvEpilogue& e, float* out) {
  v = _mm256_add_ps(v, bias);
  if (e.sum) v = _mm256_add_ps(v, _mm256_loadu_ps(out));
  _mm256_storeu_ps(out, ApplyActivation(v, e));
}

#pragma GCC pop_options

}  // namespace onyx::kernels
