// An exact 8-bit matrix product on AVX2 without VNNI: the products whose results must be the exact int32 sums (uint8
// weights, as ONNX Runtime's U8U8 kernels compute them; int8 activations), where oneDNN's u8 x s8 kernels would add
// neighbouring products in saturating int16 (kernels/int8_gemm.h). Both operands are centred on their zero points
// into int16 (values in [-255, 255]) and multiplied in pairs along K with vpmaddwd, whose int32 pair sums cannot clip
// (|2 * 255 * 255| < 2^31): 16 products per instruction, against 8 for an int32 multiply.
//
// C[i][j] = sum_p (l[i][p] - l_zp[i]) * (r[p][j] - r_zp), row-major; the left operand's zero point may differ per
// row (a convolution's weight zero point per output channel). int32 sums wrap on overflow as the reference loops'.
#pragma once

#include <cstdint>
#include <vector>

namespace onyx::kernels {

// Whether ExactInt8Gemm runs here (AVX2).
bool ExactInt8GemmAvailable();

// Whether a product of 8-bit activations and weights of these signednesses takes ExactInt8Gemm: on CPUs whose
// oneDNN int8 kernels add products in saturating pairs (kernels/int8_gemm.h), where the sums must be exact there
// (uint8 weights, exact in ONNX Runtime's U8U8 kernels; int8 activations, on onyx's exact loops before), and where it
// runs. uint8 activations with int8 weights stay on oneDNN's path (ONNX Runtime's clipping, or the split one).
bool ExactInt8GemmWanted(bool activations_signed, bool weights_signed);

// The left operand centred and paired once: a convolution's constant weights, reused by every product.
class ExactInt8Left {
 public:
  template <typename L>
  static ExactInt8Left Pack(int64_t m, int64_t k, const L* l, int64_t ldl, const int32_t* l_zp);
  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  const uint32_t* pairs() const { return pairs_.data(); }  // row i's K/2 pairs (rounded up) at i * ((k + 1) / 2)

 private:
  int64_t m_ = 0, k_ = 0;
  std::vector<uint32_t> pairs_;
};

// C = left x (r - r_zp), R [left.k(), n] row-major (uint8_t or int8_t); false where it does not run (no AVX2).
template <typename R>
bool ExactInt8Gemm(const ExactInt8Left& left, int64_t n, const R* r, int64_t ldr, int32_t r_zp, int32_t* c, int64_t ldc,
                   int threads);

// L and R are uint8_t or int8_t; l_zp holds m values (one per row of L). Runs on `threads` OpenMP threads over
// column blocks. Returns false where it does not run (no AVX2): the caller computes the product otherwise.
template <typename L, typename R>
bool ExactInt8Gemm(int64_t m, int64_t n, int64_t k, const L* l, int64_t ldl, const int32_t* l_zp, const R* r,
                   int64_t ldr, int32_t r_zp, int32_t* c, int64_t ldc, int threads);

}  // namespace onyx::kernels
