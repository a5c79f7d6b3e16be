// Vectorized float32 transcendental functions over contiguous arrays, for the hot activation and softmax kernels.
// Built on Highway (Debian libhwy-dev) with dynamic dispatch: the code is compiled for several instruction sets
// (AVX-512, AVX2, SSE4, ...) and the best one the CPU supports is chosen on the first call, so the library itself
// stays built for baseline x86-64.
//
// Every array function takes `n` elements from `in` and writes `n` to `out`; `in == out` (in place) is allowed,
// any other overlap is not. NaN inputs give NaN; +-inf, denormals and huge magnitudes follow the mathematical
// limits, except that results in the subnormal range (below FLT_MIN = 1.2e-38 in magnitude) flush to zero: computing
// them costs a microcode assist per lane on x86 CPUs (several times slower), and no function here consumes or
// produces a subnormal value for inputs of large magnitude. The error bounds below are measured against
// double-precision std:: functions on dense sweeps by tests/unit/vector_math_test.cc (docs/kernels.md); "rel" is
// relative to the exact value, "abs" absolute.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// e^x; rel <= 2e-7 where the result is normal, 0 below x = -87.33654 (where it would be subnormal), overflow to
// +inf above ~88.72.
void Exp(const float* in, float* out, int64_t n);

// tanh(x); rel <= 5e-7 (tanh(-0) is -0).
void Tanh(const float* in, float* out, int64_t n);

// 1 / (1 + e^-x), computed from e^-|x| so that no intermediate overflows; rel <= 3e-7 (0 below x = -87.33654).
void Sigmoid(const float* in, float* out, int64_t n);

// x * Sigmoid(x) (SiLU, ONNX Swish with alpha 1), one product after Sigmoid's value: rel <= 4e-7 (0 below x =
// -87.33654). The activation a blocked convolution applies after oneDNN's primitive (nchwc_conv.cc).
void Swish(const float* in, float* out, int64_t n);

// erf(x); abs <= 2e-7 everywhere, rel <= 3e-7 for |x| < 0.92.
void Erf(const float* in, float* out, int64_t n);

// x < 0 ? alpha x : x, exactly (a select per lane; NaN, -0 and infinities as the scalar expression gives them). Not
// transcendental, but the scalar loop stayed a branch per element, mispredicted on data of both signs (a 3-D U-Net's
// LeakyRelu over 2M normalized values: 11.6 ms, against 1.5 on positive ones).
void LeakyRelu(const float* in, float* out, int64_t n, float alpha);

// x < 0 ? 0 : x, exactly (NaN and -0 kept), for the same reason: standalone Relu over 400k values of both signs
// 0.52 -> 0.25 ms.
void Relu(const float* in, float* out, int64_t n);

// x * clamp(x / 6 + 0.5, 0, 1) (ONNX HardSwish), exactly the scalar expression's float operations (a division, an add,
// the clamp keeping NaN, a product): a quantized MobileNet-v3's float HardSwish between its 8-bit layers, standalone
// over 200k values 0.144 -> ~0.02 ms.
void HardSwish(const float* in, float* out, int64_t n);

// x > 0 ? positive_scale x : negative_scale (e^(x / input_divisor) - 1), the exponential linear units: Elu (1,
// alpha, 1), Selu (gamma, gamma alpha, 1), Celu (1, alpha, alpha); at 0 and NaN positive_scale x. rel <= 3e-7
// (Highway's expm1 above -87, -1 below; x + x^2 / 2 below 2^-13 in magnitude).
void ExpLinear(const float* in, float* out, int64_t n, float positive_scale, float negative_scale, float input_divisor);

// log(1 + e^x) as max(x, 0) + log1p(e^-|x|); rel <= 4e-7 (0 below x = -87.3, where e^x would be subnormal).
void Softplus(const float* in, float* out, int64_t n);

// Mish: x tanh(softplus(x)), as x n / (n + 2) with n = e^x (e^x + 2); rel <= 5e-7 (0 below x = -87.3, where e^x
// would be subnormal: |results| < 1.1e-36 there).
void Mish(const float* in, float* out, int64_t n);

// sin(x), cos(x): Highway's (3 ulp) for |x| <= 39000, std:: beyond (per vector holding such a lane).
void Sin(const float* in, float* out, int64_t n);
void Cos(const float* in, float* out, int64_t n);

// atan(x), asin(x), acos(x): Highway's polynomials (asin / acos NaN outside [-1, 1], as std:: gives).
void Atan(const float* in, float* out, int64_t n);
void Asin(const float* in, float* out, int64_t n);
void Acos(const float* in, float* out, int64_t n);

// sinh, cosh (where |x| <= 88.72), asinh, acosh, atanh (inside their domains): Highway's polynomials (sinh 4 ulp,
// the others 3; cosh from e^|x|), std:: lane by lane for a vector with a lane outside. tan: sin / cos in double lanes
// where |x| <= 1000 (float accuracy next to the poles too), std::tan beyond.
void Sinh(const float* in, float* out, int64_t n);
void Cosh(const float* in, float* out, int64_t n);
void Asinh(const float* in, float* out, int64_t n);
void Acosh(const float* in, float* out, int64_t n);
void Atanh(const float* in, float* out, int64_t n);
void Tan(const float* in, float* out, int64_t n);

// log: Highway's (rel 2e-7) for positive finite x, std::log elsewhere. floor, ceil, round half to even, sqrt: the
// scalar functions' bits (vector instructions).
void Log(const float* in, float* out, int64_t n);
void Floor(const float* in, float* out, int64_t n);
void Ceil(const float* in, float* out, int64_t n);
void RoundHalfEven(const float* in, float* out, int64_t n);
void Sqrt(const float* in, float* out, int64_t n);

// Max pooling's accumulation, bit for bit acc = (x > acc || x is NaN) ? x : acc: over a run (acc[i] against in[i]),
// or over `taps` stride-2 taps (acc[i] against in[2i], in[2i + 1], ..., in[2i + taps - 1], in that order; in holds
// readable >= 2(n - 1) + taps values: one more lets the last vector be read whole).
void NanMaxInto(float* acc, const float* in, int64_t n);
void NanMaxTapsStride2(float* acc, const float* in, int64_t n, int64_t taps, int64_t readable);

// ONNX Shrink on float: x < -lambd ? x + bias : x > lambd ? x - bias : 0, bit-exact with the double computation
// rounded to float.
void Shrink(const float* in, float* out, int64_t n, float lambd, float bias);

// out = Max(a, b) / Min(a, b) elementwise, exactly as the operators' scalar rule: a NaN operand is the result (a's if
// both are), else a < b ? b : a (Max) or b < a ? b : a (Min). out may be a or b.
void MaxPair(const float* a, const float* b, float* out, int64_t n);
void MinPair(const float* a, const float* b, float* out, int64_t n);

// Float to IEEE half bits and back, rounding to nearest even: the bits of core/float16.h's FloatToHalfBits and
// HalfBitsToFloat, except that a signalling NaN half becomes a quiet NaN float (F16C's conversion, where present).
void FloatToHalf(const float* in, uint16_t* out, int64_t n);
void HalfToFloat(const uint16_t* in, float* out, int64_t n);

// x^exponent over a float array: exp(exponent log x) in double lanes where x is positive and finite: the correctly
// rounded power but for a few values per million (one float ulp off, where the exact power lies next to a rounding
// boundary); std::pow(double(x), exponent) rounded to float elsewhere (and on Highway's scalar target throughout).
void PowScalarExponent(const float* in, float* out, int64_t n, double exponent);

// out[i] = fmod(a[i], b[i * b_step]) (b_step 0: one divisor, 1: b as long as a), bit-exact with std::fmod; with
// divisor_sign (ONNX Mod fmod=0, Python's %), a nonzero remainder whose sign differs from the divisor's gets the
// divisor added (in float). Exact arithmetic in double lanes where |a / b| < 2^24, std::fmod elsewhere.
void Fmod(const float* a, const float* b, int64_t b_step, float* out, int64_t n, bool divisor_sign);

// Reductions of a contiguous row (the Reduce* operators over trailing axes). Max and min: NaN if the row holds one,
// -inf / +inf for an empty row; exact. Sums: each value (its square, its magnitude) promoted to double and added in
// double lanes, so within a few double roundings of the exact sum. SumExp: sum of e^(x - shift), float exponentials
// (rel 2e-7) added in double; NaN if the row holds one.
float ReduceRowMax(const float* in, int64_t n);
float ReduceRowMin(const float* in, int64_t n);
double ReduceRowSum(const float* in, int64_t n);
double ReduceRowSumSquares(const float* in, int64_t n);
double ReduceRowSumAbs(const float* in, int64_t n);
double ReduceRowSumExp(const float* in, int64_t n, float shift);
// Sum of (x - mean)^2 over a row, each term in double (the variance of the normalizations).
double ReduceRowSumSquaredDeviations(const float* in, int64_t n, double mean);
// out = (x - shift) * scale + bias over a row, in float: the shift split into two floats (its error below 1e-14
// relative), so that x - shift keeps its accuracy where the mean dwarfs the deviations; then one rounding each.
void NormalizeRow(const float* in, float* out, int64_t n, double shift, float scale, float bias);

// ArgMax (max) / ArgMin along rows: out[j] = the index i in [0, n) of the extreme of plane[i * stride + j], for j in
// [0, count); NaN is the extreme; the first index of ties, or the last where `last` (select_last_index). n < 2^31.
void ArgExtremeColumns(const float* plane, int64_t n, int64_t stride, int64_t count, bool max, bool last, int64_t* out);

// GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)). For negative x it uses erfc, so the small results keep their
// relative accuracy: |error| <= 5e-8 + 5e-7 |y|, and rel <= 1.5e-6 where |y| >= 1e-6 (x > -5.3); below x = -5.6
// (|y| < 5e-8) results flush to zero.
void Gelu(const float* in, float* out, int64_t n);

// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), computed as x * sigmoid(2 * that
// argument), the same function without the cancellation of 1 + tanh for negative x; |error| <= 5e-8 + 5e-7 |y|,
// rel <= 2.5e-6 where |y| >= 1e-6.
void GeluTanh(const float* in, float* out, int64_t n);

// Softmax of one contiguous row: out[i] = exp(in[i] - max) / sum_j exp(in[j] - max), the sum accumulated in
// float blocks added in double. A row whose maximum is not finite (a NaN anywhere, +inf, or every value -inf)
// gives NaN everywhere, as the formula does. n == 0 does nothing.
void SoftmaxRow(const float* in, float* out, int64_t n);

// LogSoftmax of one contiguous row: out[i] = in[i] - max - log(sum_j exp(in[j] - max)); same NaN rule.
void LogSoftmaxRow(const float* in, float* out, int64_t n);

// LayerNormalization of one contiguous row: out[i] = (in[i] - mean) * inv_std * scale[i] + bias[i] (bias may be
// null), inv_std = 1 / sqrt(variance + epsilon), the variance taken around the mean (two passes). On x86 CPUs with
// AVX2 the arithmetic is ONNX Runtime's (MLAS's AVX2 row kernel) operation for operation, so the outputs are
// bit-identical to its float LayerNormalization: mean summed in double, variance in float lanes with fused
// multiply-adds, the output formed in float. Elsewhere the sums run in float lanes added in double. mean and inv_std
// (each may be null) receive the statistics. A NaN or inf in the row makes the row NaN. n == 0 does nothing.
void LayerNormRow(const float* in, const float* scale, const float* bias, float epsilon, float* out, int64_t n,
                  double* mean, double* inv_std);

// RMS normalization of one contiguous row: out[i] = in[i] * inv_rms * scale[i], inv_rms = 1 / sqrt(mean(in^2) +
// epsilon), also written to *inv_rms when not null. On x86 CPUs with AVX2: ONNX Runtime 1.30's arithmetic for
// SimplifiedLayerNormalization (MLAS's AVX2 row kernel: squares summed in 8 float lanes of fused multiply-adds,
// reduced in its order, out = (x * inv_rms) * scale), bit-identical for rows of 16 or more; elsewhere lane sums added
// in double. n == 0 does nothing.
void RmsNormRow(const float* in, const float* scale, float epsilon, float* out, int64_t n, float* inv_rms);

// The instruction set the dispatcher chose for this CPU, in Highway's naming ("AVX3" is AVX-512, "AVX2", "SSE4").
// ONYX_MAX_ISA=avx2 (kernels/cpu_isa.h) disables the AVX-512 targets, so the choice is then AVX2 at best.
const char* ActiveTargetName();

}  // namespace onyx::kernels
