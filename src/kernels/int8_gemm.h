// 8-bit integer GEMM with int32 accumulation on oneDNN (u8 x s8 and s8 x s8, zero points applied inside), for the
// integer kernels of ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul. Exact: the int32 sums equal the
// reference loops' (wrapping on overflow like them), so the callers keep their own requantization and results
// stay bit for bit the same.
#pragma once

#include <cstdint>

namespace onyx::kernels {

// Whether oneDNN's int8 GEMM is exact on this CPU: with VNNI (or AMX) the u8 x s8 products accumulate straight into
// int32; without it oneDNN pairs them in saturating int16 (vpmaddubsw), which can clip, so callers keep their
// reference loops. ONYX_INT8_REFERENCE=1 in the environment also turns it off (for comparisons).
bool Int8GemmIsExact();

// c[i][j] = sum_p (a[i][p] - a_zp) * (b[p][j] - b_zp), row-major; op(a) is [m, k] (a stored [k, m] when trans_a),
// op(b) is [k, n] (b stored [n, k] when trans_b). A is uint8_t or int8_t. Runs on `threads` OpenMP threads (fewer
// for small products). Returns false when oneDNN refuses (the caller then computes it itself).
template <typename A>
bool GemmInt8(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda, A a_zp,
              const int8_t* b, int64_t ldb, int8_t b_zp, int32_t* c, int64_t ldc, int threads);

}  // namespace onyx::kernels
