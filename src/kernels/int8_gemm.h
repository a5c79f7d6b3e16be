// 8-bit integer GEMM with int32 accumulation on oneDNN (u8 x s8 and s8 x s8, zero points applied inside), for the
// integer kernels of ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul. With VNNI the int32 sums equal the
// reference loops' (wrapping on overflow like them), so the callers keep their own requantization and results
// stay bit for bit the same; without VNNI too (split weights, Int8GemmArithmetic).
#pragma once

#include <cstdint>

namespace onyx::kernels {

// How oneDNN's int8 kernels multiply u8 x s8 on this CPU. With VNNI (or AMX) the products accumulate straight into
// int32: exact. Without it (AVX2, and AVX-512 without VNNI: AMD Zen 1-3, Intel before Cascade Lake) they add each two
// neighbouring products along K in saturating int16 (vpmaddubsw) before the int32 sum, which clips where
// |a0 w0 + a1 w1| > 32767. ONNX Runtime's MLAS kernels do exactly the same there (measured bit for bit with
// onnxruntime 1.30 on an AMD EPYC: its MatMulInteger sums differ from ONNX's exact ones in 510 of 294,912 elements
// of a BERT projection), and so does onyx by default: ONNX Runtime's results, at its speed (onyx's exact loops were
// 10-20x slower than float there). Weights within [-64, 64] (ONNX Runtime's quantizer with reduce_range) never
// clip. The clipping costs accuracy with full-range weights (a dynamically quantized MLP of onyx's tests: output
// cosine 0.999 -> 0.978), so ONYX_INT8_EXACT=1 makes onyx exact on such CPUs: a weight matrix with a pair that could
// clip runs as W = W_lo + W_hi (w_lo = w >> 1, w_hi = w - w_lo, both in [-64, 64]: 255 * 128 < 32767), the halves
// stacked along K against the activations read twice (twice the int8 products; convolutions whose weights could
// clip take the im2col + GEMM path; measured 1.5-20x slower than ONNX Runtime, docs/quantization.md).
// ONYX_INT8_REFERENCE=1 selects onyx's exact reference loops everywhere.
enum class Int8Arithmetic {
  kExact,            // VNNI/AMX: oneDNN's sums are the exact int32 sums
  kSaturatingPairs,  // no VNNI (default): pairs clip as ONNX Runtime's MLAS clips them
  kSplitPairs,       // no VNNI and ONYX_INT8_EXACT=1: weights split where a pair could clip: exact
  kReferenceOnly,    // ONYX_INT8_REFERENCE=1, or oneDNN has no int8 JIT kernel here: onyx's exact loops only
};
Int8Arithmetic Int8GemmArithmetic();

// Whether oneDNN's int8 kernels run for activations of this signedness. Signed (s8 x s8) activations without VNNI:
// no, since oneDNN shifts them to u8 (+128) before pairing, which the split's bound does not cover, and MLAS pairs
// |a| with sign-adjusted weights; the exact loops run instead (ONNX Runtime does not fuse int8 activations on x86-64
// either).
bool Int8GemmUsable(bool signed_activations);

// Whether the u8 x s8 products against these weights must be split on this CPU (kSplitPairs and some pair
// |w[2i][j]| + |w[2i+1][j]| > 128 along K; element (p, j) at w[p * ldw + j * cs]).
bool Int8WeightsNeedSplit(const int8_t* w, int64_t k, int64_t n, int64_t ldw, int64_t cs = 1);
// Whether every weight is within [-64, 64], so that no pairing of products can clip (255 * 128 < 32767): what a
// convolution's oneDNN kernel needs on kSplitPairs CPUs, whose pairing follows its own weight layout (ONNX Runtime's
// quantizer writes such weights with reduce_range); always true on other CPUs.
bool Int8WeightsCannotClip(const int8_t* w, int64_t count);
// Whether every weight is within [-64, 64] (whatever the CPU).
bool Int8WeightsInSevenBits(const int8_t* w, int64_t count);
// The split: w_lo = w >> 1 and w_hi = w - w_lo, each in [-64, 64] (w_lo + w_hi = w).
inline int8_t Int8SplitLow(int8_t w) { return static_cast<int8_t>(w >> 1); }
inline int8_t Int8SplitHigh(int8_t w) { return static_cast<int8_t>(w - (w >> 1)); }
// The split weights stacked for one product of depth 2k: out[2k, n] row-major, rows [0, k) the low halves and rows
// [k, 2k) the high ones, of the weights addressed as in Int8WeightsNeedSplit.
void Int8StackSplitWeights(const int8_t* w, int64_t k, int64_t n, int64_t ldw, int64_t cs, int8_t* out);
// Each row of the activations twice, for Int8StackSplitWeights' product: out[m, 2k] row-major, element (i, p) of the
// activations at a[i * rs + p * cs].
void Int8RepeatRows(const uint8_t* a, int64_t m, int64_t k, int64_t rs, int64_t cs, uint8_t* out);

// Whether a uint8 x int8 product of depth k runs with k padded to a multiple of 4 (zeros): on CPUs whose products add
// in saturating pairs, oneDNN 2.6's int8 GEMM and matmul split K into blocks whose first one can have an odd length
// (K = 257-258, 261, 505-522 with K mod 4 in {1, 2}, measured on AVX2), so that pairs after it start at odd k and
// saturate differently from MLAS's (which pairs (k, k + 1) from even k throughout; ONNX Runtime's results): sums off
// by up to 42,300. A depth that is a multiple of 4 keeps every block boundary even.
bool Int8PadsDepth(int64_t k);

// c[i][j] = sum_p (a[i][p] - a_zp) * (b[p][j] - b_zp), row-major; op(a) is [m, k] (a stored [k, m] when trans_a),
// op(b) is [k, n] (b stored [n, k] when trans_b). A is uint8_t or int8_t. Runs on `threads` OpenMP threads (fewer
// for small products). Returns false when oneDNN refuses or !Int8GemmUsable (the caller then computes it itself).
// With `exact_pairs`, the sums are exact on CPUs whose pairs saturate too (weights with a pair that could clip split as
// under ONYX_INT8_EXACT=1): for operators whose ONNX Runtime results are exact there (ConvInteger).
template <typename A>
bool GemmInt8(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda, A a_zp,
              const int8_t* b, int64_t ldb, int8_t b_zp, int32_t* c, int64_t ldc, int threads,
              bool exact_pairs = false);

// The same product for uint8 weights (ConvInteger / MatMulInteger with both operands uint8: TFLite's uint8 models,
// ONNX Runtime's quantizer with QUInt8 weights) where oneDNN's products are exact (kExact; false elsewhere, where
// kernels/int8_exact_gemm.h gives the exact sums ONNX Runtime's U8U8 kernels give): B - 128 as int8 with zero point
// 0, then (b_zp - 128) times each row's sum of (a - a_zp) subtracted.
template <typename A>
bool GemmInt8UnsignedWeights(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda,
                             A a_zp, const uint8_t* b, int64_t ldb, uint8_t b_zp, int32_t* c, int64_t ldc, int threads);

// c[i][j] = sum_p (a[i][p] - a_zp) * (b[p][j] - b_zp) for uint8 A [m, k] and B [k, n] of int8 or uint8 (b_signed),
// row-major and compact, one zero point each: GemmInt8 / GemmInt8UnsignedWeights where they run (with this CPU's
// arithmetic, as above), else exact loops. For operators that quantize their float input to uint8 and multiply it
// by 8-bit weights (QAttention, DynamicQuantizeLSTM).
void GemmU8ByWeights(int64_t m, int64_t n, int64_t k, const uint8_t* a, uint8_t a_zp, const void* b, bool b_signed,
                     int32_t b_zp, int32_t* c, int threads);

}  // namespace onyx::kernels
