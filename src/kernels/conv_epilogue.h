// What onyx's own blocked convolution kernels (winograd_conv.h) apply to each output after the
// convolution, in oneDNN's post-op order: the bias, the value already in the output added (a residual, oneDNN's sum
// post-op), then the activation.
#pragma once

#include <immintrin.h>

#include <bit>
#include <cstdint>
#include <vector>

namespace onyx::kernels {

struct ConvEpilogue {
  // kSwish: x * sigmoid(x) (SiLU); kHardSwish: x * clamp(x / 6 + 1 / 2, 0, 1) (ONNX's HardSwish).
  enum class Activation { kNone, kRelu, kClip, kSwish, kHardSwish };
  bool sum = false;
  Activation activation = Activation::kNone;
  float alpha = 0;  // kRelu: the slope below zero (LeakyRelu; 0 for Relu); kClip: the lower bound
  float beta = 0;   // kClip: the upper bound
  bool operator==(const ConvEpilogue&) const = default;
};

// The per-channel values a blocked kernel's epilogue reads for `channels` output channels padded to `padded` (whole
// blocks or panels): the bias (zero past `channels`, and everywhere without one), and per lane all bits set for a real
// channel, zero for a padding one, whose sums are cleared bitwise (0 * x is NaN where an input is infinite).
struct EpilogueChannels {
  std::vector<float> bias, lane_mask;
  EpilogueChannels() = default;
  EpilogueChannels(int64_t channels, int64_t padded, const float* bias_or_null)
      : bias(static_cast<size_t>(padded), 0.0f), lane_mask(static_cast<size_t>(padded), 0.0f) {
    for (int64_t c = 0; c < channels; ++c) {
      if (bias_or_null != nullptr) bias[static_cast<size_t>(c)] = bias_or_null[c];
      lane_mask[static_cast<size_t>(c)] = std::bit_cast<float>(~uint32_t{0});
    }
  }
};

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// e^x for 8 values, for Swish: x clamped to [-87.33654, 88] (e^x a normal float there; Swish's x / (1 + e^-x) is
// within 1e-36 of its value beyond), x = k ln2 + r with |r| <= ln2 / 2 (ln2 in two parts, k times the first exact),
// e^r by a degree-6 polynomial in Horner's form (relative error 1.7e-8 before rounding), times 2^k built in the
// exponent field (k in [-126, 127]). 15 vector operations: the range handling of a general exponential (two scalings
// for k = 128) cost a third more, and the epilogue's Swish ran at ~0.17 ns per output on an AMD EPYC Zen 5. NaN comes
// out finite (the callers divide x by it, which brings NaN back).
inline __m256 ExpApprox(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.33654f)), _mm256_set1_ps(88.0f));
  const __m256 k =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693145752f), x);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(1.42860677e-06f), r);
  __m256 p = _mm256_set1_ps(0.00138367875f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.00837485678f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.0416682288f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.166664198f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.499999911f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i biased = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
  return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(biased, 23)));
}

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
    case ConvEpilogue::Activation::kSwish: {
      // x / (1 + e^-x)
      const __m256 denominator = _mm256_add_ps(_mm256_set1_ps(1.0f), ExpApprox(_mm256_sub_ps(_mm256_setzero_ps(), v)));
      v = _mm256_div_ps(v, denominator);
      break;
    }
    case ConvEpilogue::Activation::kHardSwish: {
      const __m256 gate = _mm256_fmadd_ps(v, _mm256_set1_ps(1.0f / 6.0f), _mm256_set1_ps(0.5f));
      v = _mm256_mul_ps(v, _mm256_min_ps(_mm256_max_ps(gate, _mm256_setzero_ps()), _mm256_set1_ps(1.0f)));
      break;
    }
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

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")

// ExpApprox on 16 values: the same operations in the same order, so the same bits lane for lane.
inline __m512 ExpApprox16(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.33654f)), _mm512_set1_ps(88.0f));
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145752f), x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.42860677e-06f), r);
  __m512 p = _mm512_set1_ps(0.00138367875f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.00837485678f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.0416682288f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.166664198f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.499999911f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512i biased = _mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127));
  return _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(biased, 23)));
}

// e's activation applied to 16 outputs, as ApplyActivation to 8.
inline __m512 ApplyActivation16(__m512 v, const ConvEpilogue& e) {
  switch (e.activation) {
    case ConvEpilogue::Activation::kNone:
      break;
    case ConvEpilogue::Activation::kRelu: {
      // v > 0 ? v : alpha * v
      const __mmask16 positive = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
      v = _mm512_mask_blend_ps(positive, _mm512_mul_ps(v, _mm512_set1_ps(e.alpha)), v);
      break;
    }
    case ConvEpilogue::Activation::kClip:
      v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(e.alpha)), _mm512_set1_ps(e.beta));
      break;
    case ConvEpilogue::Activation::kSwish: {
      // As ApplyActivation, in one 16-lane pass (two 8-lane halves took twice the instructions).
      const __m512 denominator =
          _mm512_add_ps(_mm512_set1_ps(1.0f), ExpApprox16(_mm512_sub_ps(_mm512_setzero_ps(), v)));
      v = _mm512_div_ps(v, denominator);
      break;
    }
    case ConvEpilogue::Activation::kHardSwish: {
      // ApplyActivation on each half: one formula for both vector widths.
      const __m256 low = ApplyActivation(_mm512_castps512_ps256(v), e);
      const __m256 high = ApplyActivation(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)), e);
      v = _mm512_castpd_ps(
          _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(low)), _mm256_castps_pd(high), 1));
      break;
    }
  }
  return v;
}

#pragma GCC pop_options

}  // namespace onyx::kernels
