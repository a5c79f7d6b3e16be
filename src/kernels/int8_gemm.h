// 8-bit integer GEMM with int32 accumulation on oneDNN (u8 x s8 and s8 x s8, zero points applied inside), for the
// integer kernels of ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul. With VNNI the int32 sums equal the
// reference loops' (wrapping on overflow like them), so the callers keep their own requantization and results
// stay bit for bit the same; without VNNI they are ONNX Runtime's saturating sums (Int8GemmArithmetic).
#pragma once

#include <cstdint>

namespace onyx::kernels {

// How oneDNN's int8 kernels multiply u8 x s8 on this CPU. With VNNI (or AMX) the products accumulate straight into
// int32: exact. Without it (AVX2 and AVX-512 without VNNI: AMD Zen 1-3, Intel before Cascade Lake) they add each two
// neighbouring products along K in saturating int16 (vpmaddubsw) before the int32 sum, which clips where both are
// large. ONNX Runtime's MLAS kernels do exactly the same on those CPUs (its U8S8 GEMM; measured bit for bit with
// onnxruntime 1.30 on an AMD EPYC: MatMulInteger, DynamicQuantizeMatMul), so onyx follows them there: its results
// are ONNX Runtime's, and the int8 path is as fast as it (the exact loops are ~20x slower than float).
// ONYX_INT8_REFERENCE=1 in the environment selects the exact reference loops everywhere (ONNX's int32 semantics).
enum class Int8Arithmetic {
  kExact,            // VNNI/AMX: oneDNN's sums are the exact int32 sums
  kSaturatingPairs,  // no VNNI: u8 x s8 in saturating int16 pairs, as oneDNN and ONNX Runtime's MLAS compute them
  kReferenceOnly,    // ONYX_INT8_REFERENCE=1, or oneDNN has no int8 kernel here: onyx's exact loops only
};
Int8Arithmetic Int8GemmArithmetic();

// Whether oneDNN's int8 kernels run for activations of this signedness. Signed (s8 x s8) activations without VNNI:
// no, since oneDNN shifts them to u8 (+128) before pairing while MLAS pairs |a| with sign-adjusted weights, so the
// two saturate on different values; the exact loops run instead (ONNX Runtime does not fuse int8 activations on
// x86-64 either).
bool Int8GemmUsable(bool signed_activations);

// c[i][j] = sum_p (a[i][p] - a_zp) * (b[p][j] - b_zp), row-major; op(a) is [m, k] (a stored [k, m] when trans_a),
// op(b) is [k, n] (b stored [n, k] when trans_b). A is uint8_t or int8_t. Runs on `threads` OpenMP threads (fewer
// for small products). Returns false when oneDNN refuses or !Int8GemmUsable (the caller then computes it itself).
template <typename A>
bool GemmInt8(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda, A a_zp,
              const int8_t* b, int64_t ldb, int8_t b_zp, int32_t* c, int64_t ldc, int threads);

}  // namespace onyx::kernels
