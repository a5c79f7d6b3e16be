// A float product with weights quantized blockwise along K, read in their quantized form (com.microsoft
// MatMulNBits' layout, the weight-only quantization of transformer MatMuls):
//   Y[m, n] = sum_b scale[n, b] * sum_{k in block b} A[m, k] * (q[n, k] - zero[n, b])  (+ bias[n])
// Why: a decoder's step is bandwidth-bound, and the weights in 4 bits are an eighth of their float size. Dequantizing
// them once at creation (the float product's speed, 8x the memory) threw that away; here each block's values are
// widened in registers and never stored as floats. Per block the sums are taken as s * (sum a*q - zero * sum a)
// over the block's values: the same products as the definition, summed in another order (no cancellation beyond a
// block of at most a few hundred terms). AVX2 + FMA; elsewhere the caller keeps its dequantized path.
#pragma once

#include <cstdint>
#include <vector>

namespace onyx::kernels {

class BlockwiseQuantizedMatMul {
 public:
  // Whether this CPU runs the product for `bits`-bit values in blocks of `block` values.
  static bool Supported(int bits, int64_t block);

  // q: n rows of ceil(k / block) blocks of block * bits / 8 bytes, values low bits first (borrowed: it must
  // outlive the product); scales and zero points: n x blocks floats (zero points decoded by the caller; padding
  // values past k in the last block may hold anything).
  BlockwiseQuantizedMatMul(int64_t k, int64_t n, int bits, int64_t block, const uint8_t* q, std::vector<float> scales,
                           std::vector<float> zero_points);

  // a: [m, k] row-major; y: [m, n]; bias: n values or null. On up to `threads` OpenMP threads.
  void Run(int64_t m, const float* a, const float* bias, float* y, int threads) const;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }

 private:
  int64_t k_, n_;
  int bits_;
  int64_t block_, blocks_, blob_;
  const uint8_t* q_;
  std::vector<float> scales_, zero_points_;
  std::vector<float> scaled_zeros_;  // scale * zero point per block: the zero points' share of each block's sum
};

}  // namespace onyx::kernels
