// Float kernels that compute exactly what ONNX Runtime's CPU kernels compute, bit for bit: its softmax and erf (the
// MLAS x86-64 kernels: their polynomials, range reductions, fused multiply-adds and the vector-lane order of their
// sums) and the float sums of its ReduceSum/ReduceMean (Eigen's vectorized reduction). Used under
// KernelInfo::ort_summation_order (by default at optimization level disabled), where a quantized model re-quantizes
// after every float step and one rounding that differs from ONNX Runtime's moves every later value (issue 16).
//
// MLAS picks its kernels from the CPU: the AVX-512F ones where the CPU has AVX-512F, the FMA3 (AVX2) ones otherwise.
// The two differ in their results (16 or 8 sum lanes, a different exp range reduction), so these functions take the
// flavour to restate, and OrtMlasFlavor() gives the one ONNX Runtime picks on this CPU, under ONYX_MAX_ISA's cap
// (kernels/cpu_isa.h), so that a capped run matches ONNX Runtime on an AVX2-only CPU. CPUs without AVX2 and FMA
// (MLAS's SSE2 kernels, which multiply and add separately) are not restated: they get the FMA3 flavour's results,
// computed without vector instructions.
//
// Rules not restated: a NaN in a softmax row gives NaN where MLAS's max kernel (vmaxps, which returns its second
// operand on NaN) may not; such rows differ.
#pragma once

#include <cstdint>

namespace onyx::kernels {

enum class MlasFlavor {
  kAvx512F,  // MlasComputeSumExpF32KernelAvx512F: 16 sum lanes, exp scaled with vscalefps (range down to -103.97)
  kFma3,     // MlasComputeSumExpF32KernelFma3: 8 sum lanes, exp scaled by an exponent built from integers (-88.38)
};

// The flavour ONNX Runtime's MLAS uses on this CPU under ONYX_MAX_ISA: kAvx512F where onyx runs AVX-512, else kFma3.
MlasFlavor OrtMlasFlavor();

// One softmax row as MlasComputeSoftmax computes it: the maximum; exp(x - max) of each element, stored into out and
// summed in the flavour's lanes; then every out[i] multiplied by 1 / sum (a division once, then products).
// n == 0 does nothing. in == out is allowed.
void OrtSoftmaxRow(const float* in, float* out, int64_t n, MlasFlavor flavor);

// One LogSoftmax row as MLAS computes it: (x - max) - log(sum of exp(x - max)), the sum as in OrtSoftmaxRow and
// the logarithm std::log of that float sum.
void OrtLogSoftmaxRow(const float* in, float* out, int64_t n, MlasFlavor flavor);

// erf(x) elementwise as MlasErfKernelFma3 computes it (ONNX Runtime's Erf on every AVX2 CPU, AVX-512 ones
// included): |x| clamped to 3.925; below 0.921875 an odd polynomial in fused multiply-adds, above it
// 1 - exp(-q(|x|)) with MLAS's own exp polynomial; the sign copied back. NaN gives +-erf(3.925) as in MLAS.
void OrtErf(const float* in, float* out, int64_t n);

// GELU (erf form) as ONNX Runtime's fused Gelu computes it (com.microsoft Gelu, which its GeluFusion writes at level
// extended, and ONNX Gelu-20): t = x * 0.70710677f (1/sqrt(2) in float; the exported graph divides by sqrt(2)
// instead, another rounding), erf(t) as OrtErf, then (0.5 x) * (erf + 1). The AVX-512F flavour is
// MlasGeluErfKernelAvx512F, whose erf takes the small-|t| branch at |t| == 0.921875 exactly where MlasErfKernelFma3
// takes the other one; everywhere else the two agree bit for bit. in == out is allowed.
void OrtGelu(const float* in, float* out, int64_t n, MlasFlavor flavor);

// The logistic function as MLAS's MlasLogisticKernelFma3 computes it (ONNX Runtime's Sigmoid and the table of its
// QLinearSigmoid on every AVX2 CPU, AVX-512 ones included): x clamped to [-18, 18], p(x^2) * x / q(x^2) + 0.5 with
// Eigen's rational coefficients, the polynomials in fused multiply-adds, the result's lower bound 0 (maxps: NaN gives
// NaN). in == out is allowed.
void OrtLogistic(const float* in, float* out, int64_t n);

// The float sum of v[0..n) in the order of Eigen's vectorized reduction over 4-float (SSE) packets, which is
// how ONNX Runtime's ReduceSum and ReduceMean add a contiguous run of values: the elements before `aligned_start`
// (those before the first 16-byte boundary of the row) are left out first; from there two packet accumulators take
// alternate packets, are added, take one more packet if one is left, and are reduced as (l0 + l2) + (l1 + l3);
// then the skipped head and the tail that fills no packet are added one by one. aligned_start is taken modulo
// nothing: pass (-offset) mod 4 for a row that starts `offset` floats into a 16-byte aligned tensor.
float OrtEigenSum(const float* v, int64_t n, int64_t aligned_start);

}  // namespace onyx::kernels
