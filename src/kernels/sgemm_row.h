// Single-row float matrix products, C[1, N] (+)= A[1, K] * B[K, N], summed in the order ONNX Runtime's MLAS uses
// for a constant (prepacked) B, so that a classifier head (Flatten -> Gemm of PyTorch's Linear) gives the same
// logits to the last bit as ONNX Runtime.
//
// Why: in the quantized models of issue 16 every 8-bit tensor is identical to ONNX Runtime's, but the float head
// after the last DequantizeLinear went through oneDNN's sgemm, whose blocking sums the 2,048 products in another
// order: the outputs differed in the last bits. ONNX Runtime's Gemm and MatMul pack a constant B at session
// creation and then compute every output element the same way at any thread count (threads split N only): K is
// cut into slices of 256; within a slice the products are accumulated one after another from 0 with fused
// multiply-adds; each slice's sum is then added to C (to C's previous value, i.e. the bias copied in beforehand,
// or to nothing for the first slice when there is no C). These functions compute exactly that.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// c[j] (+)= sum_k a[k] * b[k * ldb + j] for j < n, in MLAS's packed order; `accumulate` false ignores c's values.
// Uses fused multiply-adds where the CPU has them (every x86 CPU since 2013); elsewhere a multiply and an add, which is
// what MLAS's own kernels for such CPUs do.
void SgemmRowPackedOrder(const float* a, const float* b, int64_t ldb, float* c, int64_t k, int64_t n, bool accumulate);

}  // namespace onyx::kernels
