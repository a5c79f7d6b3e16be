// Highway implementation of vector_math.h. foreach_target.h re-includes this file once per instruction set
// that Highway targets (each pass inside its own HWY_NAMESPACE); the HWY_ONCE part at the end exports the per-target
// array functions and defines the public entry points that dispatch to the best one at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/vector_math.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// foreach_target.h must come first: it re-includes this file, with the headers below, for each target.
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/float16.h"
#include "kernels/cpu_isa.h"
#include "kernels/vector_math.h"

HWY_BEFORE_NAMESPACE();
namespace onyx::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- Per-vector functions, generic over the descriptor so that array tails run the same code one lane at a time.

// e^x. Results below FLT_MIN (x < kExpFlushBelow, the subnormal range) flush to zero: computing them costs a
// microcode assist per lane on x86 CPUs (Sigmoid, Exp and Softmax over values beyond +-87 ran 8-17x slower, measured
// on an Intel Xeon: a segmentation model's final Sigmoid took 0.37 ms instead of 0.035), and their magnitude (below
// 1.2e-38) is under any tolerance. The input is clamped into [kExpFlushBelow, 100] (+inf still overflows to +inf
// through the polynomial) and NaN is put back afterwards.
constexpr float kExpFlushBelow = -87.33654f;  // ln(FLT_MIN) rounded up: e^x at it is normal

// Arguments below 2^-26 in magnitude give e^x = 1 once rounded; they are zeroed first because the polynomial's
// fourth power of a tiny reduced argument is subnormal (|x| < 3e-10: EfficientNet's activations of 1e-11 made its
// x * sigmoid(x) 5x slower).
constexpr float kTinyArgument = 0x1p-26f;

template <class D, class V>
HWY_INLINE V ZeroTiny(D d, V x, float below) {
  return hn::IfThenZeroElse(hn::Lt(hn::Abs(x), hn::Set(d, below)), x);
}

template <class D, class V>
HWY_INLINE V ExpV(D d, V x) {
  const V floor = hn::Set(d, kExpFlushBelow);
  const V clamped = hn::Max(hn::Min(ZeroTiny(d, x, kTinyArgument), hn::Set(d, 100.0f)), floor);
  const V e = hn::IfThenZeroElse(hn::Lt(x, floor), hn::Exp(d, clamped));
  return hn::IfThenElse(hn::IsNaN(x), x, e);
}

// Highway's Tanh (sign(x) * expm1(2|x|) / (expm1(2|x|) + 2), 1 beyond |x| = 18.71), with the expm1 argument clamped
// at that limit (the lanes beyond it are replaced by 1 anyway, and unclamped their expm1 overflowed: large inputs
// were 3x slower) and zeroed below 2^-13, where tanh(x) rounds to x (expm1's polynomial went subnormal there).
template <class D, class V>
HWY_INLINE V TanhV(D d, V x) {
  const V limit = hn::Set(d, 18.714973875f);
  const V tiny = hn::Set(d, 0x1p-13f);
  const V sign = hn::And(hn::SignBit(d), x);
  const V abs_x = hn::Xor(x, sign);
  const V arg = hn::IfThenZeroElse(hn::Lt(abs_x, tiny), hn::Min(abs_x, limit));
  const V y = hn::Expm1(d, hn::Mul(arg, hn::Set(d, 2.0f)));
  const V z = hn::IfThenElse(hn::Gt(abs_x, limit), hn::Set(d, 1.0f), hn::Div(y, hn::Add(y, hn::Set(d, 2.0f))));
  const V t = hn::IfThenElse(hn::Lt(abs_x, tiny), x, hn::Xor(z, sign));
  return hn::IfThenElse(hn::IsNaN(x), x, t);
}

// e^x for x in [-87, 88] (callers bound it): 2^k e^r, k = round(x / ln 2), r = x - k ln 2 with ln 2 in two parts
// (k times the high part is exact for |k| < 2^9), e^r by a degree-6 polynomial (relative error 1.7e-8 before
// rounding), 2^k built in the exponent field. No range handling, so ~13 vector operations against ExpV's ~27 (its
// clamps, NaN and tiny-argument checks and Highway's general Exp). k is rounded by adding 1.5 * 2^23, which leaves
// round-to-nearest-even(x / ln 2) in the low bits of the sum (|k| < 2^22): the same k as hn::Round, and the integer
// for 2^k straight from the sum's bits, without Round and the float-to-int conversion (5 operations on AVX-512 with
// Highway's overflow fix-up).
template <class D, class V>
HWY_INLINE V ExpBoundedV(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, 12582912.0f);  // 1.5 * 2^23, bits 0x4B400000
  const V shifted = hn::Add(hn::Mul(x, hn::Set(d, 1.44269504f)), magic);
  const V k = hn::Sub(shifted, magic);
  V r = hn::NegMulAdd(k, hn::Set(d, 0.693145752f), x);
  r = hn::NegMulAdd(k, hn::Set(d, 1.42860677e-06f), r);
  V p = hn::Set(d, 0.00138367875f);
  p = hn::MulAdd(p, r, hn::Set(d, 0.00837485678f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.0416682288f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.166664198f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.499999911f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  const V scale = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::BitCast(di, shifted), hn::Set(di, 127 - 0x4B400000))));
  return hn::Mul(p, scale);
}

// e^x for x <= 0 (a softmax row's x - max; no NaN): arguments in (-2^-26, 0] give 1 (ExpV's reason: a tiny reduced
// argument's polynomial terms go subnormal), those below kExpFlushBelow give 0 (their e^x is below FLT_MIN: the
// callers flush such results anyway), the rest ExpBoundedV. About 20 vector operations against ExpV's general path,
// whose clamps and Highway's Exp made a BERT-like encoder's softmax rows (128 keys) 2.9 cycles per element on an
// Intel Xeon (Sapphire Rapids).
template <class D, class V>
HWY_INLINE V ExpNonPositiveV(D d, V x) {
  const V floor = hn::Set(d, kExpFlushBelow);
  const V near_zero = hn::IfThenZeroElse(hn::Gt(x, hn::Set(d, -kTinyArgument)), x);
  return hn::IfThenZeroElse(hn::Lt(x, floor), ExpBoundedV(d, hn::Max(near_zero, floor)));
}

// 1 / (1 + e^-x) from e = e^-|x| in (0, 1]: 1 / (1 + e) for x >= 0, e / (1 + e) below; one division. e by
// ExpNonPositiveV (no range handling beyond -|x|'s: about 20 vector operations; Highway's general Exp with ExpV's
// clamps made this 2.8x slower, 0.38 against 0.14 ns per value on an AMD EPYC Zen 5, where an EfficientNet's SiLU
// layers outweighed its convolutions). NaN is put back at the end (the clamp inside replaces it).
template <class D, class V>
HWY_INLINE V SigmoidV(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V e = ExpNonPositiveV(d, hn::Neg(hn::Abs(x)));
  const V numerator = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), e, one);
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Div(numerator, hn::Add(one, e)));
}

// erf is approximated on two ranges of a = |x|, split at kErfSplit:
//  - a < kErfSplit: erf(x) = x * P(x^2), P of degree 5 (minimax in relative error, 1.7e-8 before rounding);
//    P's constant term 2/sqrt(pi) is carried as hi + lo floats so that tiny x keep full relative accuracy;
//  - kErfSplit <= a <= kErfcEnd: erfc(a) = exp(R(u) - a^2), u = (a - 2.4609375) / 1.5390625 mapping the range to
//    [-1, 1], R of degree 8 fitted to log(erfc(a)) + a^2 (max abs error 1.4e-8, i.e. relative in erfc);
//    erf = sign(x) (1 - erfc). Beyond kErfcEnd, 1 - erfc rounds to 1 in float.
// Coefficients: weighted least squares iterated toward minimax on Chebyshev nodes, each rounded to float in turn
// with the later ones refitted (docs/kernels.md describes the fit).
constexpr float kErfSplit = 0.921875f;
constexpr float kErfcEnd = 4.0f;

template <class D, class V>
HWY_INLINE V ErfSmallV(D d, V x) {
  const V t = hn::Mul(x, x);
  V p = hn::Set(d, -0.000602913322f);
  p = hn::MulAdd(p, t, hn::Set(d, 0.00500215357f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.0267742611f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.112821005f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.376125365f));
  p = hn::MulAdd(p, t, hn::Set(d, -5.86353828e-08f));  // the low part of 2/sqrt(pi)
  return hn::MulAdd(x, hn::Set(d, 1.12837923f), hn::Mul(x, p));
}

// erfc(a) for a in [kErfSplit, kErfcEnd] (callers clamp a into it): the fused multiply-add rounds R(u) - a^2 once,
// which matters because exp turns an absolute error of the argument into a relative error of erfc.
template <class D, class V>
HWY_INLINE V ErfcMidV(D d, V a) {
  const V u = hn::Mul(hn::Sub(a, hn::Set(d, 2.4609375f)), hn::Set(d, 0.649746193f));
  V r = hn::Set(d, 5.08600715e-05f);
  r = hn::MulAdd(r, u, hn::Set(d, -0.000282339053f));
  r = hn::MulAdd(r, u, hn::Set(d, 0.00107760995f));
  r = hn::MulAdd(r, u, hn::Set(d, -0.00378880044f));
  r = hn::MulAdd(r, u, hn::Set(d, 0.0126191303f));
  r = hn::MulAdd(r, u, hn::Set(d, -0.0408427082f));
  r = hn::MulAdd(r, u, hn::Set(d, 0.135961473f));
  r = hn::MulAdd(r, u, hn::Set(d, -0.549621105f));
  r = hn::MulAdd(r, u, hn::Set(d, -1.54295242f));
  // The argument lies in [-18, -0.8].
  return ExpBoundedV(d, hn::NegMulAdd(a, a, r));
}

template <class D, class V>
HWY_INLINE V ClampToErfcRange(D d, V a) {
  return hn::Min(hn::Max(a, hn::Set(d, kErfSplit)), hn::Set(d, kErfcEnd));
}

template <class D, class V>
HWY_INLINE V ErfV(D d, V x) {
  const V a = hn::Abs(x);
  const V clamped = ClampToErfcRange(d, a);
  const V erfc = ErfcMidV(d, clamped);
  const V large = hn::CopySignToAbs(hn::Sub(hn::Set(d, 1.0f), erfc), x);
  // erf is odd: the small range works on |x| too, so that erf(-0) is -0.
  const V small = hn::CopySignToAbs(ErfSmallV(d, a), x);
  const V y = hn::IfThenElse(hn::Lt(a, hn::Set(d, kErfSplit)), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// Below 2^-40 in magnitude both GELUs round to 0.5 x (the next term, x^2 / sqrt(2 pi), is under half an ulp); those
// lanes are computed from 0 and replaced, because squaring them gives subnormals.
constexpr float kGeluLinearBelow = 0x1p-40f;

// y where |x| >= kGeluLinearBelow, else 0.5 x.
template <class D, class V>
HWY_INLINE V GeluLinearBelowTiny(D d, V x, V y) {
  return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, kGeluLinearBelow)), hn::Mul(hn::Set(d, 0.5f), x), y);
}

// R's coefficients, highest degree first.
constexpr float kGeluErfcR[] = {-4.92891922e-05f, 0.000160869124f, -0.000200299022f, 6.52231029e-05f, 0.000519754773f,
                                -0.00263191666f,  0.00865188148f,  -0.0234412327f,   0.0571335182f,   -0.131720468f,
                                0.30499655f,      -0.836321652f,   -1.36494124f};

// 0.5 x (1 + erf(z)), z = x / sqrt 2, for x neither NaN nor below kGeluLinearBelow in magnitude. 1 + erf(z) needs no
// relative accuracy near z = 0 (unlike erf itself), so one approximation covers every a = |z| in [0, 4]:
// erfc(a) = exp(R(u) - a^2), u = a / 2 - 1 in [-1, 1], R of degree 12 fitted to log(erfc(a)) + a^2 (max abs error
// 1.5e-9 before float evaluation); 1 + erf(z) is erfc(a) for negative z (relatively accurate down to the smallest
// results) and 2 - erfc(a) for positive z; past a = 4 erfc is taken as 0 (huge negative x give -0). a^2 = 0.5 x * x
// (exact in the fused multiply-add that forms the exponent). About 40 vector operations: the two-range form
// (erf's small-range polynomial beside the erfc branch, both computed for a vector holding both kinds of lanes) took
// ~70, 0.61 ns per value on an AMD EPYC Zen 5. The coefficients were fitted as erf's (docs/kernels.md).
//
// kN vectors at once, each operation applied to all of them before the next (the chains interleave in the
// out-of-order window: ~30 dependent operations of 4 cycles each per vector).
template <int kN, class D, class V>
HWY_INLINE void GeluNormalN(D d, V (&x)[kN]) {
  const V limit = hn::Set(d, kErfcEnd * 1.41421356f);
  V m[kN], u[kN], r[kN];
  for (int j = 0; j < kN; ++j) {
    m[j] = hn::Min(hn::Abs(x[j]), limit);                                  // |x| clamped: a = m / sqrt 2 <= 4
    u[j] = hn::MulAdd(m[j], hn::Set(d, 0.353553391f), hn::Set(d, -1.0f));  // a / 2 - 1
    r[j] = hn::Set(d, kGeluErfcR[0]);
  }
  for (size_t c = 1; c < std::size(kGeluErfcR); ++c) {
    for (int j = 0; j < kN; ++j) r[j] = hn::MulAdd(r[j], u[j], hn::Set(d, kGeluErfcR[c]));
  }
  for (int j = 0; j < kN; ++j) {
    // The exponent lies in [-18.1, 0].
    const V erfc_a = ExpBoundedV(d, hn::NegMulAdd(hn::Mul(hn::Set(d, 0.5f), m[j]), m[j], r[j]));
    const V erfc = hn::IfThenZeroElse(hn::Gt(hn::Abs(x[j]), limit), erfc_a);
    const V one_plus_erf = hn::IfThenElse(hn::Lt(x[j], hn::Zero(d)), erfc, hn::Sub(hn::Set(d, 2.0f), erfc));
    x[j] = hn::Mul(hn::Mul(hn::Set(d, 0.5f), x[j]), one_plus_erf);
  }
}

template <class D, class V>
HWY_INLINE V GeluNormalV(D d, V x) {
  V v[1] = {x};
  GeluNormalN<1>(d, v);
  return v[0];
}

// GeluNormalV for every lane: NaN stays NaN, tiny lanes give 0.5 x.
template <class D, class V>
HWY_INLINE V GeluV(D d, V x_in) {
  const V y = GeluNormalV(d, ZeroTiny(d, x_in, kGeluLinearBelow));
  return hn::IfThenElse(hn::IsNaN(x_in), x_in, GeluLinearBelowTiny(d, x_in, y));
}

// 0.5 x (1 + tanh(w)) = x * sigmoid(2w), w = sqrt(2/pi) (x + 0.044715 x^3) = x (k1 + k3 x^2).
template <class D, class V>
HWY_INLINE V GeluTanhV(D d, V x_in) {
  const V x = ZeroTiny(d, x_in, kGeluLinearBelow);  // see GeluV
  const V two_k1 = hn::Set(d, 1.59576912f);         // 2 sqrt(2/pi)
  const V two_k3 = hn::Set(d, 0.0713548162f);       // 2 sqrt(2/pi) 0.044715
  const V w2 = hn::Mul(x, hn::MulAdd(hn::Mul(x, x), two_k3, two_k1));
  return GeluLinearBelowTiny(d, x_in, hn::Mul(x, SigmoidV(d, w2)));
}

// ---- Array drivers.

// out[i] = f(d, in[i]) over whole vectors, then the tail as one more whole vector (its unused lanes repeat the last
// value): every element goes through the same instructions, so its bits do not depend on where it lies in the array
// (narrower vectors can differ: x86's 128-bit reciprocal estimate has 12 bits, the 512-bit one 14).
template <class F>
HWY_INLINE void MapArray(const float* in, float* out, int64_t n, F f) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, hn::LoadU(d, in + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN float tail[HWY_MAX_BYTES / sizeof(float)];
    for (int64_t k = 0; k < lanes; ++k) tail[k] = in[std::min(i + k, n - 1)];
    hn::Store(f(d, hn::Load(d, tail)), d, tail);
    std::copy_n(tail, n - i, out + i);
  }
}

// MapArray with kN vectors per step, f(d, v) transforming the array v of kN vectors in place: for long dependent
// chains (GELU's polynomial and exponential, ~30 operations deep at 4 cycles each), which f interleaves operation by
// operation; one vector at a time left the out-of-order window holding mostly one chain.
template <int kN, class F>
HWY_INLINE void MapArrayGroups(const float* in, float* out, int64_t n, F f) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + kN * lanes <= n; i += kN * lanes) {
    V v[kN];
    for (int j = 0; j < kN; ++j) v[j] = hn::LoadU(d, in + i + j * lanes);
    f(d, v);
    for (int j = 0; j < kN; ++j) hn::StoreU(v[j], d, out + i + j * lanes);
  }
  MapArray(in + i, out + i, n - i, [&](auto dd, auto x) HWY_ATTR {
    V v[kN];
    for (int j = 0; j < kN; ++j) v[j] = x;
    f(dd, v);
    return v[0];
  });
}

void ExpArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return ExpV(d, v); });
}
void TanhArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return TanhV(d, v); });
}
void SigmoidArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return SigmoidV(d, v); });
}
void SwishArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return hn::Mul(v, SigmoidV(d, v)); });
}
void ErfArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return ErfV(d, v); });
}
void ReluArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return hn::IfThenZeroElse(hn::Lt(v, hn::Zero(d)), v); });
}
void HardSwishArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto x) HWY_ATTR {
    const auto t = hn::Add(hn::Div(x, hn::Set(d, 6.0f)), hn::Set(d, 0.5f));
    const auto clamped = hn::IfThenElse(hn::Lt(t, hn::Zero(d)), hn::Zero(d),
                                        hn::IfThenElse(hn::Gt(t, hn::Set(d, 1.0f)), hn::Set(d, 1.0f), t));
    return hn::Mul(x, clamped);
  });
}
void LeakyReluArray(const float* in, float* out, int64_t n, float alpha) {
  MapArray(in, out, n, [alpha](auto d, auto v) HWY_ATTR {
    return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Mul(v, hn::Set(d, alpha)), v);
  });
}
// e^x - 1 for x <= 0 (lanes above 0 give 0: the callers select x there): Highway's Expm1 (4 ulp) on the argument
// clamped at -87 (expm1 rounds to -1 below) so that its exponential never goes subnormal; below 2^-13 in magnitude
// x + x^2 / 2 (relative error < 3e-9), below 2^-26 x itself, where the polynomial's powers would be subnormal.
template <class D, class V>
HWY_INLINE V Expm1NonPositiveV(D d, V x) {
  const V small = hn::Set(d, 0x1p-13f);
  const V xs = ZeroTiny(d, x, kTinyArgument);
  const V arg = hn::IfThenZeroElse(hn::Lt(hn::Abs(x), small), hn::Max(hn::Min(x, hn::Zero(d)), hn::Set(d, -87.0f)));
  const V quadratic = hn::MulAdd(hn::Mul(xs, xs), hn::Set(d, 0.5f), xs);
  return hn::IfThenElse(hn::Lt(hn::Abs(x), small),
                        hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, kTinyArgument)), x, quadratic), hn::Expm1(d, arg));
}

void ExpLinearArray(const float* in, float* out, int64_t n, float positive_scale, float negative_scale,
                    float input_divisor) {
  MapArray(in, out, n, [=](auto d, auto x) HWY_ATTR {
    const auto linear = hn::Mul(x, hn::Set(d, positive_scale));
    const auto scaled = input_divisor == 1.0f ? x : hn::Div(x, hn::Set(d, input_divisor));
    const auto negative = hn::Mul(Expm1NonPositiveV(d, scaled), hn::Set(d, negative_scale));
    return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), negative, linear);
  });
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, and e^x's full relative accuracy far below 0.
template <class D, class V>
HWY_INLINE V SoftplusV(D d, V x) {
  const V e = ExpNonPositiveV(d, hn::Neg(hn::Abs(x)));  // NaN comes back below
  const V y = hn::Add(hn::IfThenElseZero(hn::Gt(x, hn::Zero(d)), x), hn::Log1p(d, e));
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

void SoftplusArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return SoftplusV(d, v); });
}

// x tanh(softplus(x)) = x n / (n + 2) with n = e^x (e^x + 2): one exponential, no cancellation; tanh(softplus(x))
// rounds to 1 above x = 20 (where e^x would grow needlessly).
void MishArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto x) HWY_ATTR {
    const auto limit = hn::Set(d, 20.0f);
    const auto e = ExpV(d, hn::Min(x, limit));
    const auto num = hn::Mul(e, hn::Add(e, hn::Set(d, 2.0f)));
    const auto t = hn::IfThenElse(hn::Gt(x, limit), hn::Set(d, 1.0f), hn::Div(num, hn::Add(num, hn::Set(d, 2.0f))));
    return hn::IfThenElse(hn::IsNaN(x), x, hn::Mul(x, t));
  });
}

// A vector function valid where in_range holds for every lane (NaN lanes fail it), the float std:: function lane by
// lane for a vector with any lane outside (rare: overflow, out-of-domain and NaN inputs) and for the tail.
template <typename VectorFn, typename RangeFn, typename ScalarFn>
HWY_INLINE void MapArrayInRange(const float* in, float* out, int64_t n, VectorFn f, RangeFn in_range, ScalarFn scalar) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto x = hn::LoadU(d, in + i);
    if (hn::AllTrue(d, in_range(d, x))) {
      hn::StoreU(f(d, x), d, out + i);
    } else {
      for (int64_t k = i; k < i + lanes; ++k) out[k] = scalar(in[k]);
    }
  }
  for (; i < n; ++i) out[i] = scalar(in[i]);
}

// Highway's Sin / Cos (3 ulp) hold for |x| <= 39000; a vector with a lane beyond (or NaN or infinite) is computed
// by std::sin / std::cos lane by lane.
template <typename D, typename V>
HWY_INLINE auto WithinSinCosRange(D d, V x) {
  return hn::Le(hn::Abs(x), hn::Set(d, 39000.0f));
}
void SinArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n, [](auto d, auto x) HWY_ATTR { return hn::Sin(d, x); },
      [](auto d, auto x) HWY_ATTR { return WithinSinCosRange(d, x); }, [](float x) { return std::sin(x); });
}
void CosArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n, [](auto d, auto x) HWY_ATTR { return hn::Cos(d, x); },
      [](auto d, auto x) HWY_ATTR { return WithinSinCosRange(d, x); }, [](float x) { return std::cos(x); });
}

// Highway's inverse trigonometric functions (3 ulp): atan everywhere (NaN kept), asin / acos on [-1, 1] and NaN
// outside it, as std:: gives.
template <class D, class V>
HWY_INLINE V NaNOutsideUnit(D d, V x, V y) {
  const V nan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
  return hn::IfThenElse(hn::Gt(hn::Abs(x), hn::Set(d, 1.0f)), nan, hn::IfThenElse(hn::IsNaN(x), x, y));
}
// Hyperbolic functions: Highway's sinh (4 ulp) and e^|x| (1 ulp) for cosh, where |x| <= 88.72 (e^x finite in
// float); the inverse ones on their whole domain (3 ulp), std:: at the domain's edges (acosh below 1, atanh at or
// beyond +-1, where they are NaN or infinite).
void SinhArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n,
      [](auto d, auto x) HWY_ATTR {
        // Below 2^-12, sinh x rounds to x (x^3 / 6 is under half an ulp); Highway's flushed subnormal x to 0.
        return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, 0x1p-12f)), x, hn::Sinh(d, x));
      },
      [](auto d, auto x) HWY_ATTR { return hn::Le(hn::Abs(x), hn::Set(d, 88.72f)); },
      [](float x) { return std::sinh(x); });
}
void CoshArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n,
      [](auto d, auto x) HWY_ATTR {
        const auto e = ExpV(d, hn::Abs(x));
        const auto half = hn::Set(d, 0.5f);
        return hn::MulAdd(half, e, hn::Div(half, e));
      },
      [](auto d, auto x) HWY_ATTR { return hn::Le(hn::Abs(x), hn::Set(d, 88.72f)); },
      [](float x) { return std::cosh(x); });
}
void AsinhArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n, [](auto d, auto x) HWY_ATTR { return hn::Asinh(d, x); },
      [](auto d, auto x) HWY_ATTR { return hn::Le(hn::Abs(x), hn::Set(d, 3.4e38f)); },
      [](float x) { return std::asinh(x); });
}
void AcoshArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n, [](auto d, auto x) HWY_ATTR { return hn::Acosh(d, x); },
      [](auto d, auto x) HWY_ATTR { return hn::And(hn::Ge(x, hn::Set(d, 1.0f)), hn::Le(x, hn::Set(d, 3.4e38f))); },
      [](float x) { return std::acosh(x); });
}
void AtanhArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n, [](auto d, auto x) HWY_ATTR { return hn::Atanh(d, x); },
      [](auto d, auto x) HWY_ATTR { return hn::Lt(hn::Abs(x), hn::Set(d, 1.0f)); },
      [](float x) { return std::atanh(x); });
}

// log: Highway's for positive finite x (subnormals included), std::log lane by lane elsewhere (0, negatives, inf,
// NaN). floor, ceil, round-half-to-even, sqrt: exact vector instructions (the scalar functions' bits); the roundings
// take x's sign, which they always have, because Highway's emulation on targets without SSE4 lost it on zeros.
void LogArray(const float* in, float* out, int64_t n) {
  MapArrayInRange(
      in, out, n, [](auto d, auto x) HWY_ATTR { return hn::Log(d, x); },
      [](auto d, auto x) HWY_ATTR {
        return hn::And(hn::Gt(x, hn::Zero(d)), hn::Le(x, hn::Set(d, std::numeric_limits<float>::max())));
      },
      [](float x) { return std::log(x); });
}
void FloorArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto /*d*/, auto x) HWY_ATTR { return hn::CopySign(hn::Floor(x), x); });
}
void CeilArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto /*d*/, auto x) HWY_ATTR { return hn::CopySign(hn::Ceil(x), x); });
}
void RoundEvenArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto /*d*/, auto x) HWY_ATTR { return hn::CopySign(hn::Round(x), x); });
}
void SqrtArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto /*d*/, auto x) HWY_ATTR { return hn::Sqrt(x); });
}

// tan = sin / cos in double lanes (Highway's double sin and cos, then one division and one rounding to float), where
// |x| <= 1000, so that the quotient keeps float accuracy next to the poles too (a float cos there has no correct
// digit left); std::tan beyond and on Highway's scalar target (its emulated double functions, see
// PowScalarExponentImpl).
void TanArray(const float* in, float* out, int64_t n) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  for (; i + lanes <= n; i += lanes) {
    const auto xf = hn::LoadU(df, in + i);
    if (hn::AllTrue(df, hn::Le(hn::Abs(xf), hn::Set(df, 1000.0f)))) {
      const auto x = hn::PromoteTo(dd, xf);
      hn::StoreU(hn::DemoteTo(df, hn::Div(hn::Sin(dd, x), hn::Cos(dd, x))), df, out + i);
    } else {
      for (int64_t k = i; k < i + lanes; ++k) out[k] = std::tan(in[k]);
    }
  }
#endif
  for (; i < n; ++i) out[i] = std::tan(in[i]);
}

// Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0, in float (each result one rounding of the exact sum, as
// the double computation rounded to float gives), a select per lane.
void ShrinkArrayImpl(const float* in, float* out, int64_t n, float lambd, float bias) {
  MapArray(in, out, n, [lambd, bias](auto d, auto x) HWY_ATTR {
    const auto l = hn::Set(d, lambd), b = hn::Set(d, bias);
    const auto upper = hn::IfThenElseZero(hn::Gt(x, l), hn::Sub(x, b));
    return hn::IfThenElse(hn::Lt(x, hn::Neg(l)), hn::Add(x, b), upper);
  });
}

void AtanArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto x) HWY_ATTR { return hn::IfThenElse(hn::IsNaN(x), x, hn::Atan(d, x)); });
}
void AsinArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto x) HWY_ATTR {
    return NaNOutsideUnit(d, x, hn::Asin(d, hn::Min(hn::Max(x, hn::Set(d, -1.0f)), hn::Set(d, 1.0f))));
  });
}
void AcosArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto x) HWY_ATTR {
    return NaNOutsideUnit(d, x, hn::Acos(d, hn::Min(hn::Max(x, hn::Set(d, -1.0f)), hn::Set(d, 1.0f))));
  });
}

// Elementwise max / min of two arrays as the Max / Min operators define them per pair: a NaN operand wins (a's if
// both), else a < b ? b : a (max) / b < a ? b : a (min), a select per lane.
template <bool kMax>
void ExtremumPairArrays(const float* a, const float* b, float* out, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto pick = [](auto va, auto vb) HWY_ATTR {
    const auto ordered = kMax ? hn::IfThenElse(hn::Lt(va, vb), vb, va) : hn::IfThenElse(hn::Lt(vb, va), vb, va);
    return hn::IfThenElse(hn::IsNaN(va), va, hn::IfThenElse(hn::IsNaN(vb), vb, ordered));
  };
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(pick(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) hn::StoreU(pick(hn::LoadU(d1, a + i), hn::LoadU(d1, b + i)), d1, out + i);
}
void MaxPairArraysImpl(const float* a, const float* b, float* out, int64_t n) {
  ExtremumPairArrays<true>(a, b, out, n);
}
void MinPairArraysImpl(const float* a, const float* b, float* out, int64_t n) {
  ExtremumPairArrays<false>(a, b, out, n);
}

// Max pooling's accumulation: acc = (x > acc || x is NaN) ? x : acc per lane (pool.cc's NanMax), over one run of
// values, or over `taps` stride-2 taps (acc[i] against x[2i], x[2i + 1], ... in that order, the even lanes of two
// loads: no gather).
HWY_INLINE auto NanMaxStep(hn::ScalableTag<float> /*d*/, hn::Vec<hn::ScalableTag<float>> acc,
                           hn::Vec<hn::ScalableTag<float>> x) {
  return hn::IfThenElse(hn::Or(hn::Gt(x, acc), hn::IsNaN(x)), x, acc);
}
inline float NanMaxScalar(float acc, float x) { return (x > acc || x != x) ? x : acc; }
void NanMaxIntoImpl(float* acc, const float* in, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(NanMaxStep(d, hn::LoadU(d, acc + i), hn::LoadU(d, in + i)), d, acc + i);
  for (; i < n; ++i) acc[i] = NanMaxScalar(acc[i], in[i]);
}
void NanMaxTapsStride2Impl(float* acc, const float* in, int64_t n, int64_t taps, int64_t readable) {
  (void)readable;  // unused on the scalar target
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  // Each tap's vector reads in[2i + t .. 2i + t + 2 lanes - 1], one value past the taps for the last (its odd lane,
  // discarded): whole vectors while that stays inside `readable`.
  auto step = [&](float* a_out, const float* x) HWY_ATTR {
    auto a = hn::LoadU(d, a_out);
    for (int64_t t = 0; t < taps; ++t) {
      const float* p = x + t;
      a = NanMaxStep(d, a, hn::ConcatEven(d, hn::LoadU(d, p + lanes), hn::LoadU(d, p)));
    }
    hn::StoreU(a, d, a_out);
  };
  // A vector's last tap reads up to in[2 (i + lanes) + taps - 2].
  for (; i + lanes <= n && 2 * (i + lanes) + taps - 2 < readable; i += lanes) step(acc + i, in + 2 * i);
  // The last 1..lanes outputs through copies padded to whole vectors (a scalar tail was most of a row of 32).
  constexpr int64_t kMaxTaps = 16, kMaxLanes = 64;
  if (i < n && taps <= kMaxTaps && lanes <= kMaxLanes) {
    const int64_t r = n - i, count = 2 * (r - 1) + taps;
    float a_buf[kMaxLanes];
    float x_buf[2 * kMaxLanes + kMaxTaps] = {};
    std::copy_n(acc + i, r, a_buf);
    std::copy_n(in + 2 * i, count, x_buf);
    step(a_buf, x_buf);
    std::copy_n(a_buf, r, acc + i);
    i = n;
  }
#endif
  for (; i < n; ++i) {
    for (int64_t t = 0; t < taps; ++t) acc[i] = NanMaxScalar(acc[i], in[2 * i + t]);
  }
}

// IEEE half <-> float, rounding to nearest even as ONNX's Cast does: F16C's instructions on the x86 targets that have
// them (AVX2 and up); elsewhere core/float16.h's scalar conversions (Highway 1.0's emulation turned half infinity into
// a finite float).
void FloatToHalfArray(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> d;
  const hn::Rebind<hwy::float16_t, decltype(d)> dh;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto* o = reinterpret_cast<hwy::float16_t*>(out);
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::DemoteTo(dh, hn::LoadU(d, in + i)), dh, o + i);
#endif
  for (; i < n; ++i) out[i] = FloatToHalfBits(in[i]);
}
void HalfToFloatArray(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> d;
  const hn::Rebind<hwy::float16_t, decltype(d)> dh;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto* h = reinterpret_cast<const hwy::float16_t*>(in);
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::PromoteTo(d, hn::LoadU(dh, h + i)), d, out + i);
#endif
  for (; i < n; ++i) out[i] = HalfBitsToFloat(in[i]);
}

// GeluV, but vectors with no NaN and no tiny lane (nearly all of them) skip those lanes' fix-ups, two at a time:
// the same bits.
void GeluArray(const float* in, float* out, int64_t n) {
  constexpr int kN = 4;
  MapArrayGroups<kN>(in, out, n, [](auto d, auto(&v)[kN]) HWY_ATTR {
    const auto tiny = hn::Set(d, kGeluLinearBelow);
    auto normal = hn::Ge(hn::Abs(v[0]), tiny);  // NaN fails Ge
    for (int j = 1; j < kN; ++j) normal = hn::And(normal, hn::Ge(hn::Abs(v[j]), tiny));
    if (hn::AllTrue(d, normal)) {
      GeluNormalN<kN>(d, v);
    } else {
      for (int j = 0; j < kN; ++j) v[j] = GeluV(d, v[j]);
    }
  });
}
void GeluTanhArray(const float* in, float* out, int64_t n) {
  MapArray(in, out, n, [](auto d, auto v) HWY_ATTR { return GeluTanhV(d, v); });
}

// The maximum of a softmax row, NaN where the row holds a NaN (which operand hn::Max returns for NaN differs between
// targets, so the NaNs are looked for on their own): such a row's result is NaN, as ONNX's reference gives.
float SoftmaxRowMax(const float* in, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto m = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto nan = hn::FirstN(d, 0);  // no lane
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, in + i);
    m = hn::Max(m, v);
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  float max = hn::GetLane(hn::MaxOfLanes(d, m));
  bool any_nan = !hn::AllFalse(d, nan);
  for (; i < n; ++i) {
    any_nan = any_nan || std::isnan(in[i]);
    max = in[i] > max ? in[i] : max;
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : max;
}

// Sum of exp(in[i] - shift), storing each exponential in out when kStore. Float lanes accumulate blocks of
// kSumBlock elements (bounded rounding error per block), the block sums add up in double. A NaN input makes the
// sum NaN, but with kNonPositive: the caller's shift is the row's finite maximum and the row holds no NaN
// (SoftmaxRowMax), so every in[i] - shift is at most 0 and ExpNonPositiveV serves.
constexpr int64_t kSumBlock = 1024;

template <bool kNonPositive, class D, class V>
HWY_INLINE V ShiftedExpV(D d, V x) {
  if constexpr (kNonPositive) {
    return ExpNonPositiveV(d, x);
  } else {
    return ExpV(d, x);
  }
}

template <bool kStore, bool kNonPositive = false>
double SumExpShifted(const float* in, float* out, int64_t n, float shift) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vshift = hn::Set(d, shift);
  double total = 0;
  int64_t i = 0;
  while (i + lanes <= n) {
    const int64_t block_end = i + kSumBlock < n ? i + kSumBlock : n;
    auto acc0 = hn::Zero(d);
    auto acc1 = hn::Zero(d);
    for (; i + 2 * lanes <= block_end; i += 2 * lanes) {
      const auto e0 = ShiftedExpV<kNonPositive>(d, hn::Sub(hn::LoadU(d, in + i), vshift));
      const auto e1 = ShiftedExpV<kNonPositive>(d, hn::Sub(hn::LoadU(d, in + i + lanes), vshift));
      if constexpr (kStore) {
        hn::StoreU(e0, d, out + i);
        hn::StoreU(e1, d, out + i + lanes);
      }
      acc0 = hn::Add(acc0, e0);
      acc1 = hn::Add(acc1, e1);
    }
    for (; i + lanes <= block_end; i += lanes) {
      const auto e = ShiftedExpV<kNonPositive>(d, hn::Sub(hn::LoadU(d, in + i), vshift));
      if constexpr (kStore) hn::StoreU(e, d, out + i);
      acc0 = hn::Add(acc0, e);
    }
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1))));
  }
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) {
    const float e = hn::GetLane(ShiftedExpV<kNonPositive>(d1, hn::Sub(hn::LoadU(d1, in + i), hn::Set(d1, shift))));
    if constexpr (kStore) out[i] = e;
    total += static_cast<double>(e);
  }
  return total;
}

// x^y for a float array and one exponent: vectors whose lanes are all positive and finite take exp(y log x) in
// double lanes (the correctly rounded power but for a few values per million, one ulp off; vector_math.h); other
// vectors (zeros, negatives, infinities, NaN) std::pow(double(x), y) lane by lane, rounded to float.
void PowScalarExponentImpl(const float* in, float* out, int64_t n, double y) {
#if HWY_TARGET == HWY_SCALAR  // its emulated double Exp/Log/DemoteTo were 1 ulp off for ~10% of the values
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(std::pow(static_cast<double>(in[i]), y));
  return;
#endif
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  const auto vy = hn::Set(dd, y);
  const auto lo = hn::Set(dd, -745.0), hi = hn::Set(dd, 100.0);  // e^-745 is 0 in float, e^100 inf
  const auto fmin = hn::Set(df, std::numeric_limits<float>::min());
  const auto fmax = hn::Set(df, std::numeric_limits<float>::max());
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto xf = hn::LoadU(df, in + i);
    if (hn::AllTrue(df, hn::And(hn::Ge(xf, fmin), hn::Le(xf, fmax)))) {
      const auto arg = hn::Mul(vy, hn::Log(dd, hn::PromoteTo(dd, xf)));
      hn::StoreU(hn::DemoteTo(df, hn::Exp(dd, hn::Min(hn::Max(arg, lo), hi))), df, out + i);
    } else {
      for (int64_t k = i; k < i + lanes; ++k) out[k] = static_cast<float>(std::pow(static_cast<double>(in[k]), y));
    }
  }
  for (; i < n; ++i) out[i] = static_cast<float>(std::pow(static_cast<double>(in[i]), y));
}

// The remainder of a / b with the dividend's sign (C's fmod), exact: in double lanes, n = trunc(|a| / |b|) may be one
// off where the quotient lies next to an integer, but |a| - n |b| is exact (n < 2^25 and |b| has 24 significant
// bits, so the product and the difference fit in 53), and one step of |b| either way corrects it; the true remainder
// is a float, so the demotion is exact too. Lanes with a quotient of 2^24 or more, a zero, infinite or NaN operand go
// through std::fmod. Then, for divisor_sign (ONNX Mod's fmod=0, Python's %), a nonzero remainder whose sign differs
// from b's gets b added, in float as the scalar rule does.
float FmodScalar(float a, float b, bool divisor_sign) {
  float r = std::fmod(a, b);
  if (divisor_sign && r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b;
  return r;
}
void FmodArraysImpl(const float* a, const float* b, int64_t b_step, float* out, int64_t n, bool divisor_sign) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // its emulated double conversions are not trusted here (see PowScalarExponentImpl)
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  const auto limit = hn::Set(dd, 16777216.0);  // 2^24
  const auto zero_f = hn::Zero(df);
  for (; i + lanes <= n; i += lanes) {
    const auto af = hn::LoadU(df, a + i);
    const auto bf = b_step == 0 ? hn::Set(df, b[0]) : hn::LoadU(df, b + i);
    const auto x = hn::PromoteTo(dd, af), y = hn::PromoteTo(dd, bf);
    const auto ax = hn::Abs(x), ay = hn::Abs(y);
    // ay > 0 and finite, ax finite and below 2^24 ay (NaNs fail every comparison).
    const auto ok =
        hn::And(hn::And(hn::Gt(ay, hn::Zero(dd)), hn::Lt(ay, hn::Set(dd, HUGE_VAL))), hn::Lt(ax, hn::Mul(ay, limit)));
    if (!hn::AllTrue(dd, ok)) {
      for (int64_t k = i; k < i + lanes; ++k) out[k] = FmodScalar(a[k], b[b_step * k], divisor_sign);
      continue;
    }
    const auto q = hn::Trunc(hn::Div(ax, ay));
    auto r = hn::NegMulAdd(q, ay, ax);  // ax - q ay, exact
    r = hn::IfThenElse(hn::Lt(r, hn::Zero(dd)), hn::Add(r, ay), r);
    r = hn::IfThenElse(hn::Ge(r, ay), hn::Sub(r, ay), r);
    auto rf = hn::DemoteTo(df, hn::CopySign(r, x));
    if (divisor_sign) {
      const auto differ = hn::And(hn::Ne(rf, zero_f), hn::Xor(hn::Lt(rf, zero_f), hn::Lt(bf, zero_f)));
      rf = hn::IfThenElse(differ, hn::Add(rf, bf), rf);
    }
    hn::StoreU(rf, df, out + i);
  }
#endif
  for (; i < n; ++i) out[i] = FmodScalar(a[i], b[b_step * i], divisor_sign);
}

// ---- Row reductions for the Reduce* operators.

// Max (kMax) or min of a row, NaN if it holds one (numpy's maximum.reduce); -inf / +inf for an empty row.
template <bool kMax>
float ReduceRowExtremum(const float* in, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float start = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  auto m0 = hn::Set(d, start), m1 = m0;
  auto nans = hn::Zero(d);  // counts NaN lanes
  const auto one = hn::Set(d, 1.0f);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto v0 = hn::LoadU(d, in + i), v1 = hn::LoadU(d, in + i + lanes);
    m0 = kMax ? hn::Max(m0, v0) : hn::Min(m0, v0);
    m1 = kMax ? hn::Max(m1, v1) : hn::Min(m1, v1);
    nans = hn::Add(nans, hn::Add(hn::IfThenElseZero(hn::IsNaN(v0), one), hn::IfThenElseZero(hn::IsNaN(v1), one)));
  }
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, in + i);
    m0 = kMax ? hn::Max(m0, v) : hn::Min(m0, v);
    nans = hn::Add(nans, hn::IfThenElseZero(hn::IsNaN(v), one));
  }
  const auto m = kMax ? hn::Max(m0, m1) : hn::Min(m0, m1);
  float r = hn::GetLane(kMax ? hn::MaxOfLanes(d, m) : hn::MinOfLanes(d, m));
  bool nan = hn::GetLane(hn::SumOfLanes(d, nans)) != 0.0f;
  for (; i < n; ++i) {
    if (std::isnan(in[i])) nan = true;
    if (kMax ? in[i] > r : in[i] < r) r = in[i];
  }
  return nan ? std::numeric_limits<float>::quiet_NaN() : r;
}
float ReduceRowMaxImpl(const float* in, int64_t n) { return ReduceRowExtremum<true>(in, n); }
float ReduceRowMinImpl(const float* in, int64_t n) { return ReduceRowExtremum<false>(in, n); }

// Sum over a row of term(x) (0: x, 1: x^2, 2: |x|), each float promoted to double and summed in double lanes.
template <int kTerm>
double ReduceRowSumOf(const float* in, int64_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;  // half a vector of floats, one per double lane
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  auto term = [](auto x) HWY_ATTR {
    if constexpr (kTerm == 1) {
      return hn::Mul(x, x);
    } else if constexpr (kTerm == 2) {
      return hn::Abs(x);
    } else {
      return x;
    }
  };
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    a0 = hn::Add(a0, term(hn::PromoteTo(dd, hn::LoadU(df, in + i))));
    a1 = hn::Add(a1, term(hn::PromoteTo(dd, hn::LoadU(df, in + i + lanes))));
  }
  double sum = hn::GetLane(hn::SumOfLanes(dd, hn::Add(a0, a1)));
  for (; i < n; ++i) {
    const double v = static_cast<double>(in[i]);
    sum += kTerm == 1 ? v * v : (kTerm == 2 ? std::fabs(v) : v);
  }
  return sum;
}
// Sum of (x - mean)^2 over a row, in double lanes.
double ReduceRowSumSquaredDeviationsImpl(const float* in, int64_t n, double mean) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  const auto m = hn::Set(dd, mean);
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto d0 = hn::Sub(hn::PromoteTo(dd, hn::LoadU(df, in + i)), m);
    const auto d1 = hn::Sub(hn::PromoteTo(dd, hn::LoadU(df, in + i + lanes)), m);
    a0 = hn::Add(a0, hn::Mul(d0, d0));
    a1 = hn::Add(a1, hn::Mul(d1, d1));
  }
  double sum = hn::GetLane(hn::SumOfLanes(dd, hn::Add(a0, a1)));
  for (; i < n; ++i) {
    const double d = static_cast<double>(in[i]) - mean;
    sum += d * d;
  }
  return sum;
}

// out = ((x - shift_hi) - shift_lo) * scale + bias, each operation rounded in float (no fused multiply-add, so every
// target gives the same bits).
void NormalizeRowImpl(const float* in, float* out, int64_t n, float shift_hi, float shift_lo, float scale, float bias) {
  MapArray(in, out, n, [=](auto d, auto x) HWY_ATTR {
    const auto centered = hn::Sub(hn::Sub(x, hn::Set(d, shift_hi)), hn::Set(d, shift_lo));
    return hn::Add(hn::Mul(centered, hn::Set(d, scale)), hn::Set(d, bias));
  });
}

double ReduceRowSumImpl(const float* in, int64_t n) { return ReduceRowSumOf<0>(in, n); }
double ReduceRowSumSquaresImpl(const float* in, int64_t n) { return ReduceRowSumOf<1>(in, n); }
double ReduceRowSumAbsImpl(const float* in, int64_t n) { return ReduceRowSumOf<2>(in, n); }
double ReduceRowSumExpImpl(const float* in, int64_t n, float shift) {
  return SumExpShifted<false>(in, nullptr, n, shift);
}

// ArgMax / ArgMin across rows: positions [0, count) of `plane` (row i at plane + i * stride, n rows), a chunk of
// positions at a time with their running extremes and indices in vectors; a lane takes row i's value where it is
// beyond the extreme (or equal, for the last index), or NaN over a non-NaN extreme (NaN over NaN only for the last).
void ArgExtremeColumnsImpl(const float* plane, int64_t n, int64_t stride, int64_t count, bool max, bool last,
                           int64_t* out) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kChunk = 256;
  HWY_ALIGN float best[kChunk];
  HWY_ALIGN int32_t index[kChunk];
  for (int64_t j0 = 0; j0 < count; j0 += kChunk) {
    const int64_t len = std::min(kChunk, count - j0);
    const int64_t vec_len = len / lanes * lanes;
    for (int64_t j = 0; j < len; ++j) {
      best[j] = plane[j0 + j];
      index[j] = 0;
    }
    for (int64_t i = 1; i < n; ++i) {
      const float* row = plane + i * stride + j0;
      const auto vi = hn::Set(di, static_cast<int32_t>(i));
      for (int64_t j = 0; j < vec_len; j += lanes) {
        const auto v = hn::LoadU(d, row + j);
        const auto b = hn::Load(d, best + j);
        const auto beyond = max ? (last ? hn::Ge(v, b) : hn::Gt(v, b)) : (last ? hn::Le(v, b) : hn::Lt(v, b));
        const auto nan_v = hn::IsNaN(v);
        const auto take = hn::Or(beyond, last ? nan_v : hn::AndNot(hn::IsNaN(b), nan_v));
        hn::Store(hn::IfThenElse(take, v, b), d, best + j);
        hn::Store(hn::IfThenElse(hn::RebindMask(di, take), vi, hn::Load(di, index + j)), di, index + j);
      }
      for (int64_t j = vec_len; j < len; ++j) {
        const float v = row[j], b = best[j];
        const bool beyond = max ? (last ? v >= b : v > b) : (last ? v <= b : v < b);
        if (beyond || (std::isnan(v) && (last || !std::isnan(b)))) {
          best[j] = v;
          index[j] = static_cast<int32_t>(i);
        }
      }
    }
    for (int64_t j = 0; j < len; ++j) out[j0 + j] = index[j];
  }
}

void FillNaN(float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::numeric_limits<float>::quiet_NaN();
}

void SoftmaxRowImpl(const float* in, float* out, int64_t n) {
  if (n <= 0) return;
  const float max = SoftmaxRowMax(in, n);
  if (!std::isfinite(max)) return FillNaN(out, n);
  const double sum = SumExpShifted<true, true>(in, out, n, max);
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float scale = static_cast<float>(1.0 / sum);
  const auto vscale = hn::Set(d, scale);
  // Exponentials whose scaled value would be subnormal become 0 before the multiplication (vector_math.h: producing
  // a subnormal costs an assist per lane); the threshold errs upward by a relative 2^-20 against rounding.
  const float tiny = static_cast<float>(static_cast<double>(std::numeric_limits<float>::min()) * sum * (1 + 0x1p-20));
  const auto vtiny = hn::Set(d, tiny);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto e = hn::LoadU(d, out + i);
    hn::StoreU(hn::Mul(hn::IfThenZeroElse(hn::Lt(e, vtiny), e), vscale), d, out + i);
  }
  for (; i < n; ++i) out[i] = out[i] < tiny ? 0.0f : out[i] * scale;
}

void LogSoftmaxRowImpl(const float* in, float* out, int64_t n) {
  if (n <= 0) return;
  const float max = SoftmaxRowMax(in, n);
  if (!std::isfinite(max)) return FillNaN(out, n);
  const double sum = SumExpShifted<false, true>(in, nullptr, n, max);
  const float log_sum = static_cast<float>(std::log(sum));
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vmax = hn::Set(d, max);
  const auto vlog_sum = hn::Set(d, log_sum);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, in + i), vmax), vlog_sum), d, out + i);
  }
  for (; i < n; ++i) out[i] = (in[i] - max) - log_sum;
}

// Sum of in[i] - shift (kSquares: of its squares) over a row: float lanes, two accumulators, the lane sums and the
// tail added in double.
template <bool kSquares>
double CenteredSum(const float* in, int64_t n, float shift) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vshift = hn::Set(d, shift);
  auto acc0 = hn::Zero(d);
  auto acc1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto v0 = hn::Sub(hn::LoadU(d, in + i), vshift);
    const auto v1 = hn::Sub(hn::LoadU(d, in + i + lanes), vshift);
    acc0 = kSquares ? hn::MulAdd(v0, v0, acc0) : hn::Add(acc0, v0);
    acc1 = kSquares ? hn::MulAdd(v1, v1, acc1) : hn::Add(acc1, v1);
  }
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::Sub(hn::LoadU(d, in + i), vshift);
    acc0 = kSquares ? hn::MulAdd(v, v, acc0) : hn::Add(acc0, v);
  }
  double total = static_cast<double>(hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1))));
  for (; i < n; ++i) {
    const double v = static_cast<double>(in[i]) - static_cast<double>(shift);
    total += kSquares ? v * v : v;
  }
  return total;
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// On x86 with AVX2 and FMA, ONNX Runtime's float LayerNormalization (MLAS's AVX2 row kernel, used on AVX-512 CPUs
// too) is what the quantized transformers of issue 16 must reproduce bit for bit: one flipped rounding here moves the
// next DynamicQuantizeLinear's scale. Its arithmetic, in this order: the mean from 4 double lanes over groups of 4
// (lane k sums elements 4j + k), reduced as (l0 + l2) + (l1 + l3), the tail added in double, divided in double and
// rounded to float; the variance around that float mean from 8 float lanes of fused multiply-adds, reduced as
// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)), then the tail's squares in sequence; inv_std = 1 / sqrtf(var / n +
// eps) in float; out = fma((x - mean) * inv_std, scale, bias), or ((x - mean) * inv_std) * scale without a bias. The
// centered variance and double mean keep it accurate (no E[x^2] - E[x]^2 cancellation). Checked bit for bit against
// ONNX Runtime 1.30 (tests/data/ort_order/layernorm_op) for rows of 8 and more; rows shorter than 8 take ONNX Runtime's
// scalar path there, which this does not restate (within a few ulp of it).
// The sum of (in[i] - shift)^2 in MLAS's order: 8 float lanes of fused multiply-adds, reduced as
// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)), then the tail (under 8 elements) as GCC compiles MLAS's scalar
// loop: a block of 4 squared in a vector and added in order (the squares rounded: the empty asm keeps the compiler
// from fusing them), the rest fused. (x - 0 is x: shift 0 is the plain sum of squares.)
float MlasSquareSum(const float* in, int64_t n, float shift) {
  const hn::FixedTag<float, 8> d8;
  const auto vshift = hn::Set(d8, shift);
  auto vsum = hn::Zero(d8);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const auto centered = hn::Sub(hn::LoadU(d8, in + i), vshift);
    vsum = hn::MulAdd(centered, centered, vsum);
  }
  alignas(32) float lanes[8];
  hn::Store(vsum, d8, lanes);
  float r[4];
  for (int k = 0; k < 4; ++k) r[k] = lanes[k] + lanes[k + 4];
  float sum = (r[0] + r[2]) + (r[1] + r[3]);
  if (n - i >= 4) {
    for (int64_t end = i + 4; i < end; ++i) {
      const float centered = in[i] - shift;
      float square = centered * centered;
      asm("" : "+x"(square));
      sum += square;
    }
  }
  for (; i < n; ++i) {
    const float centered = in[i] - shift;
    sum = std::fma(centered, centered, sum);
  }
  return sum;
}

void LayerNormRowImpl(const float* in, const float* scale, const float* bias, float epsilon, float* out, int64_t n,
                      double* mean_out, double* inv_std_out) {
  if (n <= 0) return;
  const hn::FixedTag<float, 4> d4;
  const hn::FixedTag<double, 4> dd;
  const hn::FixedTag<float, 8> d8;
  auto vsum = hn::Zero(dd);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vsum = hn::Add(vsum, hn::PromoteTo(dd, hn::LoadU(d4, in + i)));
  alignas(32) double lane_sums[4];
  hn::Store(vsum, dd, lane_sums);
  double sum = (lane_sums[0] + lane_sums[2]) + (lane_sums[1] + lane_sums[3]);
  for (; i < n; ++i) sum += static_cast<double>(in[i]);
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float var = MlasSquareSum(in, n, mean);
  const auto vmean = hn::Set(d8, mean);
  const float inv_std = 1.0f / std::sqrt(var / static_cast<float>(n) + epsilon);
  if (mean_out != nullptr) *mean_out = mean;
  if (inv_std_out != nullptr) *inv_std_out = inv_std;
  const auto vinv = hn::Set(d8, inv_std);
  i = 0;
  for (; i + 8 <= n; i += 8) {
    const auto normalized = hn::Mul(hn::Sub(hn::LoadU(d8, in + i), vmean), vinv);
    const auto vs = hn::LoadU(d8, scale + i);
    hn::StoreU(bias != nullptr ? hn::MulAdd(normalized, vs, hn::LoadU(d8, bias + i)) : hn::Mul(normalized, vs), d8,
               out + i);
  }
  for (; i < n; ++i) {
    const float normalized = (in[i] - mean) * inv_std;
    out[i] = bias != nullptr ? std::fma(normalized, scale[i], bias[i]) : normalized * scale[i];
  }
}
#else
// Other instruction sets: the mean, then the variance around it (two passes: no cancellation of E[x^2] - E[x]^2),
// summed in float lanes whose sums add up in double.
void LayerNormRowImpl(const float* in, const float* scale, const float* bias, float epsilon, float* out, int64_t n,
                      double* mean_out, double* inv_std_out) {
  if (n <= 0) return;
  // The mean, then the variance around it (two passes: no cancellation of E[x^2] - E[x]^2).
  const double mean = CenteredSum<false>(in, n, 0.0f) / static_cast<double>(n);
  const double var = CenteredSum<true>(in, n, static_cast<float>(mean)) / static_cast<double>(n);
  const double inv_std = 1.0 / std::sqrt(var + static_cast<double>(epsilon));
  if (mean_out != nullptr) *mean_out = mean;
  if (inv_std_out != nullptr) *inv_std_out = inv_std;
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float m = static_cast<float>(mean), is = static_cast<float>(inv_std);
  const auto vm = hn::Set(d, m);
  const auto vis = hn::Set(d, is);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::Mul(hn::Mul(hn::Sub(hn::LoadU(d, in + i), vm), vis), hn::LoadU(d, scale + i));
    hn::StoreU(bias != nullptr ? hn::Add(v, hn::LoadU(d, bias + i)) : v, d, out + i);
  }
  for (; i < n; ++i) {
    const float v = (in[i] - m) * is * scale[i];
    out[i] = bias != nullptr ? v + bias[i] : v;
  }
}
#endif

void RmsNormRowImpl(const float* in, const float* scale, float epsilon, float* out, int64_t n, float* inv_rms_out) {
  if (n <= 0) return;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  // MLAS's AVX2 RMS kernel (see LayerNormRowImpl): 8 fused lanes, ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)),
  // the tail as GCC compiles its scalar loop (a block of 4 squares rounded then added, the rest fused).
  const hn::FixedTag<float, 8> d8;
  const float sum = MlasSquareSum(in, n, 0.0f);
  const float inv_rms = 1.0f / std::sqrt(sum / static_cast<float>(n) + epsilon);
  const auto vinv = hn::Set(d8, inv_rms);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d8, in + i), vinv), hn::LoadU(d8, scale + i)), d8, out + i);
  }
  for (; i < n; ++i) out[i] = in[i] * inv_rms * scale[i];
#else
  const float inv_rms =
      static_cast<float>(1.0 / std::sqrt(CenteredSum<true>(in, n, 0.0f) / static_cast<double>(n) + epsilon));
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vinv = hn::Set(d, inv_rms);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d, in + i), vinv), hn::LoadU(d, scale + i)), d, out + i);
  }
  for (; i < n; ++i) out[i] = in[i] * inv_rms * scale[i];
#endif
  if (inv_rms_out != nullptr) *inv_rms_out = inv_rms;
}

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace onyx::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onyx::kernels {

HWY_EXPORT(ExpArray);
HWY_EXPORT(TanhArray);
HWY_EXPORT(SigmoidArray);
HWY_EXPORT(SwishArray);
HWY_EXPORT(ErfArray);
HWY_EXPORT(ReluArray);
HWY_EXPORT(LeakyReluArray);
HWY_EXPORT(HardSwishArray);
HWY_EXPORT(ExpLinearArray);
HWY_EXPORT(SoftplusArray);
HWY_EXPORT(MishArray);
HWY_EXPORT(SinArray);
HWY_EXPORT(CosArray);
HWY_EXPORT(FloatToHalfArray);
HWY_EXPORT(HalfToFloatArray);
HWY_EXPORT(PowScalarExponentImpl);
HWY_EXPORT(FmodArraysImpl);
HWY_EXPORT(ReduceRowMaxImpl);
HWY_EXPORT(ReduceRowMinImpl);
HWY_EXPORT(ReduceRowSumImpl);
HWY_EXPORT(ReduceRowSumSquaredDeviationsImpl);
HWY_EXPORT(NormalizeRowImpl);
HWY_EXPORT(ReduceRowSumSquaresImpl);
HWY_EXPORT(ReduceRowSumAbsImpl);
HWY_EXPORT(ReduceRowSumExpImpl);
HWY_EXPORT(ArgExtremeColumnsImpl);
HWY_EXPORT(AtanArray);
HWY_EXPORT(SinhArray);
HWY_EXPORT(CoshArray);
HWY_EXPORT(AsinhArray);
HWY_EXPORT(AcoshArray);
HWY_EXPORT(AtanhArray);
HWY_EXPORT(TanArray);
HWY_EXPORT(NanMaxIntoImpl);
HWY_EXPORT(NanMaxTapsStride2Impl);
HWY_EXPORT(LogArray);
HWY_EXPORT(FloorArray);
HWY_EXPORT(CeilArray);
HWY_EXPORT(RoundEvenArray);
HWY_EXPORT(SqrtArray);
HWY_EXPORT(ShrinkArrayImpl);
HWY_EXPORT(AsinArray);
HWY_EXPORT(AcosArray);
HWY_EXPORT(MaxPairArraysImpl);
HWY_EXPORT(MinPairArraysImpl);
HWY_EXPORT(GeluArray);
HWY_EXPORT(GeluTanhArray);
HWY_EXPORT(SoftmaxRowImpl);
HWY_EXPORT(LogSoftmaxRowImpl);
HWY_EXPORT(LayerNormRowImpl);
HWY_EXPORT(RmsNormRowImpl);
HWY_EXPORT(TargetNameImpl);

void Exp(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(ExpArray)(in, out, n); }
void Tanh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(TanhArray)(in, out, n); }
void Sigmoid(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SigmoidArray)(in, out, n); }
void Swish(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SwishArray)(in, out, n); }
void Erf(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(ErfArray)(in, out, n); }
void Relu(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(ReluArray)(in, out, n); }
void LeakyRelu(const float* in, float* out, int64_t n, float alpha) {
  HWY_DYNAMIC_DISPATCH(LeakyReluArray)(in, out, n, alpha);
}
void HardSwish(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(HardSwishArray)(in, out, n); }
void ExpLinear(const float* in, float* out, int64_t n, float positive_scale, float negative_scale,
               float input_divisor) {
  HWY_DYNAMIC_DISPATCH(ExpLinearArray)(in, out, n, positive_scale, negative_scale, input_divisor);
}
void Softplus(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SoftplusArray)(in, out, n); }
void Mish(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(MishArray)(in, out, n); }
void Sin(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SinArray)(in, out, n); }
void Cos(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(CosArray)(in, out, n); }
void FloatToHalf(const float* in, uint16_t* out, int64_t n) { HWY_DYNAMIC_DISPATCH(FloatToHalfArray)(in, out, n); }
void HalfToFloat(const uint16_t* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(HalfToFloatArray)(in, out, n); }
void Fmod(const float* a, const float* b, int64_t b_step, float* out, int64_t n, bool divisor_sign) {
  HWY_DYNAMIC_DISPATCH(FmodArraysImpl)(a, b, b_step, out, n, divisor_sign);
}
void PowScalarExponent(const float* in, float* out, int64_t n, double exponent) {
  HWY_DYNAMIC_DISPATCH(PowScalarExponentImpl)(in, out, n, exponent);
}
float ReduceRowMax(const float* in, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceRowMaxImpl)(in, n); }
float ReduceRowMin(const float* in, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceRowMinImpl)(in, n); }
double ReduceRowSum(const float* in, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceRowSumImpl)(in, n); }
double ReduceRowSumSquaredDeviations(const float* in, int64_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(ReduceRowSumSquaredDeviationsImpl)(in, n, mean);
}
void NormalizeRow(const float* in, float* out, int64_t n, double shift, float scale, float bias) {
  const float hi = static_cast<float>(shift);
  const float lo = static_cast<float>(shift - static_cast<double>(hi));
  HWY_DYNAMIC_DISPATCH(NormalizeRowImpl)(in, out, n, hi, lo, scale, bias);
}
double ReduceRowSumSquares(const float* in, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceRowSumSquaresImpl)(in, n); }
double ReduceRowSumAbs(const float* in, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceRowSumAbsImpl)(in, n); }
double ReduceRowSumExp(const float* in, int64_t n, float shift) {
  return HWY_DYNAMIC_DISPATCH(ReduceRowSumExpImpl)(in, n, shift);
}
void ArgExtremeColumns(const float* plane, int64_t n, int64_t stride, int64_t count, bool max, bool last,
                       int64_t* out) {
  HWY_DYNAMIC_DISPATCH(ArgExtremeColumnsImpl)(plane, n, stride, count, max, last, out);
}
void Atan(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(AtanArray)(in, out, n); }
void Sinh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SinhArray)(in, out, n); }
void Cosh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(CoshArray)(in, out, n); }
void Asinh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(AsinhArray)(in, out, n); }
void Acosh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(AcoshArray)(in, out, n); }
void Atanh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(AtanhArray)(in, out, n); }
void Tan(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(TanArray)(in, out, n); }
void NanMaxInto(float* acc, const float* in, int64_t n) { HWY_DYNAMIC_DISPATCH(NanMaxIntoImpl)(acc, in, n); }
void NanMaxTapsStride2(float* acc, const float* in, int64_t n, int64_t taps, int64_t readable) {
  HWY_DYNAMIC_DISPATCH(NanMaxTapsStride2Impl)(acc, in, n, taps, readable);
}
void Log(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(LogArray)(in, out, n); }
void Floor(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(FloorArray)(in, out, n); }
void Ceil(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(CeilArray)(in, out, n); }
void RoundHalfEven(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(RoundEvenArray)(in, out, n); }
void Sqrt(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SqrtArray)(in, out, n); }
void Shrink(const float* in, float* out, int64_t n, float lambd, float bias) {
  HWY_DYNAMIC_DISPATCH(ShrinkArrayImpl)(in, out, n, lambd, bias);
}
void Asin(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(AsinArray)(in, out, n); }
void Acos(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(AcosArray)(in, out, n); }
void MaxPair(const float* a, const float* b, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(MaxPairArraysImpl)(a, b, out, n);
}
void MinPair(const float* a, const float* b, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(MinPairArraysImpl)(a, b, out, n);
}
void Gelu(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(GeluArray)(in, out, n); }
void GeluTanh(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(GeluTanhArray)(in, out, n); }
void SoftmaxRow(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(SoftmaxRowImpl)(in, out, n); }
void LogSoftmaxRow(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(LogSoftmaxRowImpl)(in, out, n); }
void LayerNormRow(const float* in, const float* scale, const float* bias, float epsilon, float* out, int64_t n,
                  double* mean, double* inv_std) {
  HWY_DYNAMIC_DISPATCH(LayerNormRowImpl)(in, scale, bias, epsilon, out, n, mean, inv_std);
}
void RmsNormRow(const float* in, const float* scale, float epsilon, float* out, int64_t n, float* inv_rms) {
  HWY_DYNAMIC_DISPATCH(RmsNormRowImpl)(in, scale, epsilon, out, n, inv_rms);
}
const char* ActiveTargetName() {
  ApplyIsaCap();  // normally done while the library loads; here too so that this report never predates the cap
  return HWY_DYNAMIC_DISPATCH(TargetNameImpl)();
}

}  // namespace onyx::kernels
#endif  // HWY_ONCE
