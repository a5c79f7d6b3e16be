#include "kernels/int8_gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "kernels/dnnl_util.h"

namespace onyx::kernels {

Int8Arithmetic Int8GemmArithmetic() {
  static const Int8Arithmetic arithmetic = [] {
    const char* env = std::getenv("ONYX_INT8_REFERENCE");
    if (env != nullptr && std::strcmp(env, "1") == 0) return Int8Arithmetic::kReferenceOnly;
    try {
      const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
      if (isa == dnnl::cpu_isa::avx2_vnni || isa == dnnl::cpu_isa::avx512_core_vnni ||
          isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx) {
        return Int8Arithmetic::kExact;
      }
      // oneDNN's x8s8 JIT kernels start at AVX2 (below it only its reference kernels, which are exact but slow).
      if (isa == dnnl::cpu_isa::avx2 || isa == dnnl::cpu_isa::avx512_core) return Int8Arithmetic::kSaturatingPairs;
      return Int8Arithmetic::kReferenceOnly;
    } catch (const dnnl::error&) {
      return Int8Arithmetic::kReferenceOnly;
    }
  }();
  return arithmetic;
}

bool Int8GemmUsable(bool signed_activations) {
  switch (Int8GemmArithmetic()) {
    case Int8Arithmetic::kExact:
      return true;
    case Int8Arithmetic::kSaturatingPairs:
      return !signed_activations;
    case Int8Arithmetic::kReferenceOnly:
      return false;
  }
  return false;
}

template <typename A>
bool GemmInt8(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda, A a_zp,
              const int8_t* b, int64_t ldb, int8_t b_zp, int32_t* c, int64_t ldc, int threads) {
  if (!Int8GemmUsable(std::is_same_v<A, int8_t>)) return false;
  if (m <= 0 || n <= 0) return true;
  const ScopedOmpThreads scoped(PrimitiveThreads(2 * m * n * k, threads));
  const int32_t c_offset = 0;
  const char ta = trans_a ? 'T' : 'N', tb = trans_b ? 'T' : 'N';
  dnnl_status_t status;
  if constexpr (std::is_same_v<A, uint8_t>) {
    status = dnnl_gemm_u8s8s32(ta, tb, 'F', m, n, k, 1.0f, a, lda, a_zp, b, ldb, b_zp, 0.0f, c, ldc, &c_offset);
  } else {
    status = dnnl_gemm_s8s8s32(ta, tb, 'F', m, n, k, 1.0f, a, lda, a_zp, b, ldb, b_zp, 0.0f, c, ldc, &c_offset);
  }
  return status == dnnl_success;
}

template bool GemmInt8<uint8_t>(bool, bool, int64_t, int64_t, int64_t, const uint8_t*, int64_t, uint8_t, const int8_t*,
                                int64_t, int8_t, int32_t*, int64_t, int);
template bool GemmInt8<int8_t>(bool, bool, int64_t, int64_t, int64_t, const int8_t*, int64_t, int8_t, const int8_t*,
                               int64_t, int8_t, int32_t*, int64_t, int);

}  // namespace onyx::kernels
