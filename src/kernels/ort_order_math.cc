#include "kernels/ort_order_math.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "kernels/cpu_isa.h"

// Every product-then-sum below must stay two roundings and every std::fma one. GCC 12 contracts a * b + c into a
// fused multiply-add in C++ even under -std=c++20 (its -ffp-contract=fast default applies outside ISO C) wherever the
// target has FMA, which would change the bits: off for this file.
#pragma GCC optimize("fp-contract=off")

namespace onyx::kernels {
namespace {

// ---- MLAS's exp constants (MlasExpConstants in mlas/lib/compute.cpp).
constexpr float kExpLowerRange = -103.9720840454f;          // AVX-512F kernel: vscalefps reaches subnormals
constexpr float kExpLowerRangeSumExp = -88.3762626647949f;  // FMA3 kernel: one exponent built from integers
constexpr float kRoundingBias = 12582912.0f;                // 1.5 * 2^23: x + bias rounds x to an integer
constexpr float kLog2Reciprocal = 1.44269504088896341f;
constexpr float kLog2High = -6.93145752e-1f;
constexpr float kLog2Low = -1.42860677e-6f;
constexpr float kExpPoly0 = 0x1.694000p-10f;
constexpr float kExpPoly1 = 0x1.125edcp-7f;
constexpr float kExpPoly2 = 0x1.555b5ap-5f;
constexpr float kExpPoly3 = 0x1.555450p-3f;
constexpr float kExpPoly4 = 0x1.fffff6p-2f;
constexpr float kExpPoly56 = 0x1.000000p+0f;
constexpr uint32_t kExponentOne = 0x3F800000u;

// ---- MLAS's erf constants (MlasErfConstants in mlas/lib/erf.cpp).
constexpr float kErfUpperAbsRange = 3.925f;
constexpr float kErfSplitBoundary = 0.921875f;
constexpr float kErfSmall[6] = {-5.99104969e-4f, 4.99339588e-3f,  -2.67667342e-2f,
                                1.12818025e-1f,  -3.76124859e-1f, 1.28379151e-1f};
constexpr float kErfBig[7] = {1.72948930e-5f, -3.83208680e-4f, 3.88393435e-3f, -2.42545605e-2f,
                              1.06777847e-1f, 6.34846687e-1f,  1.28717512e-1f};
constexpr float kErfExpLowerRange = -88.3762626647949f;
constexpr float kErfExpLog2Reciprocal = 1.44269504088896341f;
constexpr float kErfExpLog2Hi = -6.93145752e-1f;
constexpr float kErfExpLog2Lo = -1.42860677e-6f;
constexpr float kErfExp[7] = {1.38319808e-3f, 8.37550033e-3f, 4.16689515e-2f, 1.66664466e-1f,
                              4.99999851e-1f, 1.00000000e+0f, 1.00000000e+0f};
constexpr float kErfExpC = 1.25829120e+7f;

// x86's maxps/minps: the first operand when it compares greater (less), else the second (also on NaN).
inline float MaxPs(float a, float b) { return a > b ? a : b; }
inline float MinPs(float a, float b) { return a < b ? a : b; }

// ---- Scalar statements of one element: the reference for the vector code and its tails.

// exp(x) of the sum-of-exp kernels, x already biased by the negative maximum.
template <MlasFlavor F>
float ExpElement(float x) {
  x = MaxPs(F == MlasFlavor::kAvx512F ? kExpLowerRange : kExpLowerRangeSumExp, x);
  const float biased = std::fma(x, kLog2Reciprocal, kRoundingBias);
  const float m = biased - kRoundingBias;
  x = std::fma(m, kLog2High, x);
  x = std::fma(m, kLog2Low, x);
  float p = std::fma(kExpPoly0, x, kExpPoly1);
  p = std::fma(p, x, kExpPoly2);
  p = std::fma(p, x, kExpPoly3);
  p = std::fma(p, x, kExpPoly4);
  p = std::fma(p, x, kExpPoly56);
  p = std::fma(p, x, kExpPoly56);
  if constexpr (F == MlasFlavor::kAvx512F) {
    if (std::isnan(m)) return p;                // NaN in, NaN out (no integer scale to take)
    return std::ldexp(p, static_cast<int>(m));  // vscalefps: one correctly rounded scaling
  } else {
    // The integer in biased's low mantissa bits, shifted into the exponent field (wrapping as the vector shift does).
    const uint32_t scale = (std::bit_cast<uint32_t>(biased) << 23) + kExponentOne;
    return p * std::bit_cast<float>(scale);
  }
}

// MLAS erf's polynomial for small |x| (a = |x|, no sign).
float ErfSmallBranch(float a) {
  const float s = a * a;
  float p = std::fma(kErfSmall[0], s, kErfSmall[1]);
  for (int i = 2; i < 6; ++i) p = std::fma(p, s, kErfSmall[i]);
  return std::fma(p, a, a);
}

float ErfElement(float x) {
  const uint32_t sign = std::bit_cast<uint32_t>(x) & 0x80000000u;
  const float a = MinPs(std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7FFFFFFFu), kErfUpperAbsRange);
  float r;
  if (kErfSplitBoundary <= a) {
    float q = std::fma(kErfBig[0], a, kErfBig[1]);
    for (int i = 2; i < 7; ++i) q = std::fma(q, a, kErfBig[i]);
    q = std::fma(q, a, a);
    const float t = MaxPs(-q, kErfExpLowerRange);
    const float n = std::fma(kErfExpLog2Reciprocal, t, kErfExpC) - kErfExpC;
    float f = std::fma(kErfExpLog2Hi, n, t);
    f = std::fma(n, kErfExpLog2Lo, f);
    float y = std::fma(kErfExp[0], f, kErfExp[1]);
    for (int i = 2; i < 7; ++i) y = std::fma(y, f, kErfExp[i]);
    const uint32_t pow2 = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    r = 1.0f - y * std::bit_cast<float>(pow2);
  } else {
    r = ErfSmallBranch(a);
  }
  return std::bit_cast<float>(std::bit_cast<uint32_t>(r) | sign);
}

// The kernels' final reduction of their lane sums: the upper 8 lanes (AVX-512F) added to the lower 8, then two
// horizontal adds ((l0 + l1) + (l2 + l3) in each 128-bit half) and the upper half's sum plus the lower one's.
template <MlasFlavor F>
float ReduceLanes(const float* lanes) {
  float t[8];
  for (int i = 0; i < 8; ++i) t[i] = F == MlasFlavor::kAvx512F ? lanes[i + 8] + lanes[i] : lanes[i];
  const float lo = (t[0] + t[1]) + (t[2] + t[3]);
  const float hi = (t[4] + t[5]) + (t[6] + t[7]);
  return hi + lo;
}

template <MlasFlavor F>
constexpr int kLanes = F == MlasFlavor::kAvx512F ? 16 : 8;

// exp(in[i] - max) into out (when not null), summed as the flavour's kernel sums: element i goes to lane i % lanes,
// each lane adding its elements in order, then ReduceLanes. `lanes` holds the vector part's lane sums on entry (the
// first `done` elements); the rest is added here one element at a time.
template <MlasFlavor F>
float SumExpTail(const float* in, float* out, int64_t done, int64_t n, float neg_max, float* lanes) {
  for (int64_t i = done; i < n; ++i) {
    const float e = ExpElement<F>(neg_max + in[i]);
    if (out != nullptr) out[i] = e;
    lanes[i % kLanes<F>] += e;
  }
  return ReduceLanes<F>(lanes);
}

float MaxScalar(const float* in, int64_t n) {
  float m = -3.402823466e+38f;  // MlasMinimumF32Value; maximum is exact in any order (NaN aside)
  for (int64_t i = 0; i < n; ++i) m = std::max(m, in[i]);
  return m;
}

// ---- AVX-512F: MlasComputeSumExpF32KernelAvx512F.

__attribute__((target("avx512f"))) inline __m512 ExpAvx512(__m512 x) {
  x = _mm512_max_ps(_mm512_set1_ps(kExpLowerRange), x);
  const __m512 bias = _mm512_set1_ps(kRoundingBias);
  const __m512 biased = _mm512_fmadd_ps(x, _mm512_set1_ps(kLog2Reciprocal), bias);
  const __m512 m = _mm512_sub_ps(biased, bias);
  x = _mm512_fmadd_ps(m, _mm512_set1_ps(kLog2High), x);
  x = _mm512_fmadd_ps(m, _mm512_set1_ps(kLog2Low), x);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly0), x, _mm512_set1_ps(kExpPoly1));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kExpPoly2));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kExpPoly3));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kExpPoly4));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kExpPoly56));
  p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kExpPoly56));
  return _mm512_scalef_ps(p, m);
}

__attribute__((target("avx512f"))) float SumExpAvx512(const float* in, float* out, int64_t n, float neg_max) {
  const __m512 nm = _mm512_set1_ps(neg_max);
  __m512 acc = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 e = ExpAvx512(_mm512_add_ps(nm, _mm512_loadu_ps(in + i)));
    acc = _mm512_add_ps(acc, e);
    if (out != nullptr) _mm512_storeu_ps(out + i, e);
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, acc);
  return SumExpTail<MlasFlavor::kAvx512F>(in, out, i, n, neg_max, lanes);
}

__attribute__((target("avx512f"))) float MaxAvx512(const float* in, int64_t n) {
  __m512 m = _mm512_set1_ps(-3.402823466e+38f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(in + i));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, m);
  return std::max(MaxScalar(lanes, 16), MaxScalar(in + i, n - i));
}

// ---- AVX2 + FMA: MlasComputeSumExpF32KernelFma3 and MlasErfKernelFma3.

__attribute__((target("avx2,fma"))) inline __m256 ExpFma3(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(kExpLowerRangeSumExp), x);
  const __m256 bias = _mm256_set1_ps(kRoundingBias);
  const __m256 biased = _mm256_fmadd_ps(x, _mm256_set1_ps(kLog2Reciprocal), bias);
  const __m256 m = _mm256_sub_ps(biased, bias);
  x = _mm256_fmadd_ps(m, _mm256_set1_ps(kLog2High), x);
  x = _mm256_fmadd_ps(m, _mm256_set1_ps(kLog2Low), x);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kExpPoly0), x, _mm256_set1_ps(kExpPoly1));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kExpPoly2));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kExpPoly3));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kExpPoly4));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kExpPoly56));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kExpPoly56));
  const __m256i scale = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(biased), 23),
                                         _mm256_set1_epi32(static_cast<int>(kExponentOne)));
  return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

__attribute__((target("avx2,fma"))) float SumExpFma3(const float* in, float* out, int64_t n, float neg_max) {
  const __m256 nm = _mm256_set1_ps(neg_max);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = ExpFma3(_mm256_add_ps(nm, _mm256_loadu_ps(in + i)));
    acc = _mm256_add_ps(acc, e);
    if (out != nullptr) _mm256_storeu_ps(out + i, e);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  return SumExpTail<MlasFlavor::kFma3>(in, out, i, n, neg_max, lanes);
}

__attribute__((target("avx2,fma"))) float MaxFma3(const float* in, int64_t n) {
  __m256 m = _mm256_set1_ps(-3.402823466e+38f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(in + i));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  return std::max(MaxScalar(lanes, 8), MaxScalar(in + i, n - i));
}

__attribute__((target("avx2,fma"))) void ErfFma3(const float* in, float* out, int64_t n) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m256 sign = _mm256_and_ps(x, sign_bit);
    const __m256 a = _mm256_min_ps(_mm256_andnot_ps(sign_bit, x), _mm256_set1_ps(kErfUpperAbsRange));
    // Small |x|: x * P(x^2), the odd polynomial (its -1 folded into the last coefficient, + a).
    const __m256 s = _mm256_mul_ps(a, a);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kErfSmall[0]), s, _mm256_set1_ps(kErfSmall[1]));
    for (int k = 2; k < 6; ++k) p = _mm256_fmadd_ps(p, s, _mm256_set1_ps(kErfSmall[k]));
    p = _mm256_fmadd_ps(p, a, a);
    const __m256 big = _mm256_cmp_ps(_mm256_set1_ps(kErfSplitBoundary), a, _CMP_LE_OS);
    const __m256 small_result = _mm256_andnot_ps(big, p);
    // Large |x|: 1 - exp(-q(a)), computed for every lane with a zeroed where |x| is small (giving 1 - 1 = 0 there).
    const __m256 ab = _mm256_and_ps(big, a);
    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(kErfBig[0]), ab, _mm256_set1_ps(kErfBig[1]));
    for (int k = 2; k < 7; ++k) q = _mm256_fmadd_ps(q, ab, _mm256_set1_ps(kErfBig[k]));
    q = _mm256_fmadd_ps(q, ab, ab);
    const __m256 t = _mm256_max_ps(_mm256_xor_ps(q, sign_bit), _mm256_set1_ps(kErfExpLowerRange));
    const __m256 c = _mm256_set1_ps(kErfExpC);
    const __m256 r = _mm256_sub_ps(_mm256_fmadd_ps(_mm256_set1_ps(kErfExpLog2Reciprocal), t, c), c);
    __m256 f = _mm256_fmadd_ps(_mm256_set1_ps(kErfExpLog2Hi), r, t);
    f = _mm256_fmadd_ps(r, _mm256_set1_ps(kErfExpLog2Lo), f);
    __m256 y = _mm256_fmadd_ps(_mm256_set1_ps(kErfExp[0]), f, _mm256_set1_ps(kErfExp[1]));
    for (int k = 2; k < 7; ++k) y = _mm256_fmadd_ps(y, f, _mm256_set1_ps(kErfExp[k]));
    const __m256i pow2 = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(r), _mm256_set1_epi32(127)), 23);
    y = _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(y, _mm256_castsi256_ps(pow2)));
    _mm256_storeu_ps(out + i, _mm256_or_ps(_mm256_or_ps(y, small_result), sign));
  }
  for (; i < n; ++i) out[i] = ErfElement(in[i]);
}

bool HasAvx2Fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// Whether the AVX-512 code may run (the CPU has it and ONYX_MAX_ISA allows it); asked once, not per row.
bool Avx512Usable() {
  static const bool usable = EffectiveIsa() == Isa::kAvx512;
  return usable;
}

// Max and sum of exp of one row, in the flavour's order; vector code where this CPU can run it.
float RowMax(const float* in, int64_t n, MlasFlavor flavor) {
  if (flavor == MlasFlavor::kAvx512F && Avx512Usable()) return MaxAvx512(in, n);
  if (HasAvx2Fma()) return MaxFma3(in, n);
  return MaxScalar(in, n);
}

float RowSumExp(const float* in, float* out, int64_t n, float neg_max, MlasFlavor flavor) {
  if (flavor == MlasFlavor::kAvx512F) {
    if (Avx512Usable()) return SumExpAvx512(in, out, n, neg_max);
    float lanes[16] = {};
    return SumExpTail<MlasFlavor::kAvx512F>(in, out, 0, n, neg_max, lanes);
  }
  if (HasAvx2Fma()) return SumExpFma3(in, out, n, neg_max);
  float lanes[8] = {};
  return SumExpTail<MlasFlavor::kFma3>(in, out, 0, n, neg_max, lanes);
}

}  // namespace

MlasFlavor OrtMlasFlavor() { return Avx512Usable() ? MlasFlavor::kAvx512F : MlasFlavor::kFma3; }

void OrtSoftmaxRow(const float* in, float* out, int64_t n, MlasFlavor flavor) {
  if (n <= 0) return;
  const float neg_max = -RowMax(in, n, flavor);
  const float sum = RowSumExp(in, out, n, neg_max, flavor);
  const float scale = 1.0f / sum;
  for (int64_t i = 0; i < n; ++i) out[i] = scale * out[i];
}

void OrtLogSoftmaxRow(const float* in, float* out, int64_t n, MlasFlavor flavor) {
  if (n <= 0) return;
  const float neg_max = -RowMax(in, n, flavor);
  const float log_sum = std::log(RowSumExp(in, nullptr, n, neg_max, flavor));
  for (int64_t i = 0; i < n; ++i) out[i] = (in[i] + neg_max) - log_sum;
}

void OrtErf(const float* in, float* out, int64_t n) {
  if (HasAvx2Fma()) {
    ErfFma3(in, out, n);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = ErfElement(in[i]);
  }
}

void OrtGelu(const float* in, float* out, int64_t n, MlasFlavor flavor) {
  constexpr float kInvSqrt2 = 0.70710678118654752440f;
  constexpr int64_t kChunk = 256;  // t and erf(t) on the stack: x is still needed after erf when in == out
  float t[kChunk], e[kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t len = std::min(kChunk, n - start);
    for (int64_t i = 0; i < len; ++i) t[i] = in[start + i] * kInvSqrt2;
    OrtErf(t, e, len);
    for (int64_t i = 0; i < len; ++i) {
      float erf = e[i];
      // The AVX-512F GELU kernel's split: |t| > 0.921875 takes the exp branch, so the tie takes the polynomial.
      if (flavor == MlasFlavor::kAvx512F && std::fabs(t[i]) == kErfSplitBoundary) {
        erf = std::copysign(ErfSmallBranch(kErfSplitBoundary), t[i]);
      }
      out[start + i] = (0.5f * in[start + i]) * (erf + 1.0f);
    }
  }
}

void OrtLogistic(const float* in, float* out, int64_t n) {
  // MlasLogisticConstants (mlas/lib/logistic.cpp).
  constexpr float kAlpha[5] = {4.37031012579801e-11f, 1.15627324459942e-07f, 6.08574864600143e-05f,
                               8.51377133304701e-03f, 2.48287947061529e-01f};
  constexpr float kBeta[6] = {6.10247389755681e-13f, 5.76102136993427e-09f, 6.29106785017040e-06f,
                              1.70198817374094e-03f, 1.16817656904453e-01f, 9.93151921023180e-01f};
  for (int64_t i = 0; i < n; ++i) {
    const float x = MinPs(18.0f, MaxPs(-18.0f, in[i]));  // vmaxps/vminps: NaN passes through
    const float x2 = x * x;
    float p = std::fma(x2, kAlpha[0], kAlpha[1]);
    for (int k = 2; k < 5; ++k) p = std::fma(x2, p, kAlpha[k]);
    float q = std::fma(x2, kBeta[0], kBeta[1]);
    for (int k = 2; k < 6; ++k) q = std::fma(x2, q, kBeta[k]);
    p = x * p;
    const float r = p / q + 0.5f;
    out[i] = MaxPs(0.0f, r);
  }
}

float OrtEigenSum(const float* v, int64_t n, int64_t aligned_start) {
  if (n <= 0) return 0.0f;
  const int64_t start = std::min(aligned_start, n);
  const int64_t packets = (n - start) / 4;
  if (packets == 0) {
    float res = v[0];
    for (int64_t i = 1; i < n; ++i) res += v[i];
    return res;
  }
  __m128 p0 = _mm_loadu_ps(v + start);
  const int64_t end = start + packets * 4;
  if (packets > 1) {
    __m128 p1 = _mm_loadu_ps(v + start + 4);
    const int64_t end2 = start + (packets / 2) * 8;
    for (int64_t i = start + 8; i < end2; i += 8) {
      p0 = _mm_add_ps(p0, _mm_loadu_ps(v + i));
      p1 = _mm_add_ps(p1, _mm_loadu_ps(v + i + 4));
    }
    p0 = _mm_add_ps(p0, p1);
    if (end > end2) p0 = _mm_add_ps(p0, _mm_loadu_ps(v + end2));
  }
  alignas(16) float l[4];
  _mm_store_ps(l, p0);
  float res = (l[0] + l[2]) + (l[1] + l[3]);
  for (int64_t i = 0; i < start; ++i) res += v[i];
  for (int64_t i = end; i < n; ++i) res += v[i];
  return res;
}

}  // namespace onyx::kernels
