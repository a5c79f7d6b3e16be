#include "kernels/int8_gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/dnnl_util.h"

namespace onyx::kernels {

Int8Arithmetic Int8GemmArithmetic() {
  static const Int8Arithmetic arithmetic = [] {
    const auto env_is_1 = [](const char* name) {
      const char* env = std::getenv(name);
      return env != nullptr && std::strcmp(env, "1") == 0;
    };
    if (env_is_1("ONYX_INT8_REFERENCE")) return Int8Arithmetic::kReferenceOnly;
    try {
      const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
      if (isa == dnnl::cpu_isa::avx2_vnni || isa == dnnl::cpu_isa::avx512_core_vnni ||
          isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx) {
        return Int8Arithmetic::kExact;
      }
      // oneDNN's x8s8 JIT kernels start at AVX2 (below it only its reference kernels, which are exact but slow).
      if (isa == dnnl::cpu_isa::avx2 || isa == dnnl::cpu_isa::avx512_core) {
        return env_is_1("ONYX_INT8_EXACT") ? Int8Arithmetic::kSplitPairs : Int8Arithmetic::kSaturatingPairs;
      }
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
    case Int8Arithmetic::kSplitPairs:
    case Int8Arithmetic::kSaturatingPairs:
      return !signed_activations;
    case Int8Arithmetic::kReferenceOnly:
      return false;
  }
  return false;
}

namespace {

// Whether some pair of neighbouring weights along K could clip (|w0| + |w1| > 128).
bool PairsCouldClip(const int8_t* w, int64_t k, int64_t n, int64_t ldw, int64_t cs) {
  for (int64_t p = 0; p + 1 < k; p += 2) {
    const int8_t* r0 = w + p * ldw;
    const int8_t* r1 = r0 + ldw;
    for (int64_t j = 0; j < n; ++j) {
      if (std::abs(int{r0[j * cs]}) + std::abs(int{r1[j * cs]}) > 128) return true;
    }
  }
  return false;
}

}  // namespace

bool Int8WeightsNeedSplit(const int8_t* w, int64_t k, int64_t n, int64_t ldw, int64_t cs) {
  return Int8GemmArithmetic() == Int8Arithmetic::kSplitPairs && PairsCouldClip(w, k, n, ldw, cs);
}

bool Int8WeightsInSevenBits(const int8_t* w, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (w[i] < -64 || w[i] > 64) return false;
  }
  return true;
}

bool Int8WeightsCannotClip(const int8_t* w, int64_t count) {
  return Int8GemmArithmetic() != Int8Arithmetic::kSplitPairs || Int8WeightsInSevenBits(w, count);
}

void Int8StackSplitWeights(const int8_t* w, int64_t k, int64_t n, int64_t ldw, int64_t cs, int8_t* out) {
  for (int64_t p = 0; p < k; ++p) {
    int8_t* lo = out + p * n;
    int8_t* hi = out + (k + p) * n;
    for (int64_t j = 0; j < n; ++j) {
      const int8_t v = w[p * ldw + j * cs];
      lo[j] = Int8SplitLow(v);
      hi[j] = Int8SplitHigh(v);
    }
  }
}

void Int8RepeatRows(const uint8_t* a, int64_t m, int64_t k, int64_t rs, int64_t cs, uint8_t* out) {
  for (int64_t i = 0; i < m; ++i) {
    uint8_t* row = out + i * 2 * k;
    if (cs == 1) {
      std::memcpy(row, a + i * rs, static_cast<size_t>(k));
    } else {
      for (int64_t p = 0; p < k; ++p) row[p] = a[i * rs + p * cs];
    }
    std::memcpy(row + k, row, static_cast<size_t>(k));
  }
}

namespace {

// dnnl_gemm_u8s8s32 on A' = [A, A] (m x 2k) and B' = [B_lo; B_hi] (2k x n), both built here without transposes:
// exactly sum_p (a - a_zp) * b on CPUs whose pairs could clip with B as it is (Int8SplitPairs). B's zero point must
// be 0 (its halves would need two).
dnnl_status_t SplitGemmU8S8(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const uint8_t* a,
                            int64_t lda, uint8_t a_zp, const int8_t* b, int64_t ldb, int32_t* c, int64_t ldc,
                            const int32_t* c_offset) {
  thread_local std::vector<uint8_t> a2;
  thread_local std::vector<int8_t> b2;
  a2.resize(static_cast<size_t>(m * 2 * k));
  b2.resize(static_cast<size_t>(2 * k * n));
  Int8RepeatRows(a, m, k, trans_a ? 1 : lda, trans_a ? lda : 1, a2.data());
  Int8StackSplitWeights(b, k, n, trans_b ? 1 : ldb, trans_b ? ldb : 1, b2.data());
  return dnnl_gemm_u8s8s32('N', 'N', 'F', m, n, 2 * k, 1.0f, a2.data(), 2 * k, a_zp, b2.data(), n, 0, 0.0f, c, ldc,
                           c_offset);
}

// A and B copied with K rounded up to a multiple of 4, the padding zeros, for a uint8 x int8 product whose pairs
// saturate (see Int8PadsDepth): a_pad [m, kp] and b_pad [kp, n], row-major.
void PadDepth(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, int64_t kp, const uint8_t* a, int64_t lda,
              const int8_t* b, int64_t ldb, std::vector<uint8_t>& a_pad, std::vector<int8_t>& b_pad) {
  a_pad.assign(static_cast<size_t>(m * kp), 0);
  b_pad.assign(static_cast<size_t>(kp * n), 0);
  for (int64_t i = 0; i < m; ++i) {
    if (!trans_a) {
      std::memcpy(a_pad.data() + i * kp, a + i * lda, static_cast<size_t>(k));
      continue;
    }
    for (int64_t p = 0; p < k; ++p) a_pad[static_cast<size_t>(i * kp + p)] = a[p * lda + i];
  }
  for (int64_t p = 0; p < k; ++p) {
    if (!trans_b) {
      std::memcpy(b_pad.data() + p * n, b + p * ldb, static_cast<size_t>(n));
      continue;
    }
    for (int64_t j = 0; j < n; ++j) b_pad[static_cast<size_t>(p * n + j)] = b[j * ldb + p];
  }
}

}  // namespace

bool Int8PadsDepth(int64_t k) { return k % 4 != 0 && Int8GemmArithmetic() == Int8Arithmetic::kSaturatingPairs; }

template <typename A>
bool GemmInt8(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda, A a_zp,
              const int8_t* b, int64_t ldb, int8_t b_zp, int32_t* c, int64_t ldc, int threads, bool exact_pairs) {
  if (!Int8GemmUsable(std::is_same_v<A, int8_t>)) return false;
  if (m <= 0 || n <= 0) return true;
  const ScopedOmpThreads scoped(PrimitiveThreads(2 * m * n * k, threads));
  const int32_t c_offset = 0;
  const char ta = trans_a ? 'T' : 'N', tb = trans_b ? 'T' : 'N';
  dnnl_status_t status;
  if constexpr (std::is_same_v<A, uint8_t>) {
    const bool split_anyway = exact_pairs && Int8GemmArithmetic() == Int8Arithmetic::kSaturatingPairs &&
                              PairsCouldClip(b, k, n, trans_b ? 1 : ldb, trans_b ? ldb : 1);
    if (split_anyway || Int8WeightsNeedSplit(b, k, n, trans_b ? 1 : ldb, trans_b ? ldb : 1)) {
      if (b_zp != 0) return false;  // the halves would need two zero points: the exact loops run
      return SplitGemmU8S8(trans_a, trans_b, m, n, k, a, lda, a_zp, b, ldb, c, ldc, &c_offset) == dnnl_success;
    }
    if (Int8PadsDepth(k) && b_zp == 0) {
      // Padded with zeros (raw zero times zero adds nothing to a pair, and nothing to the zero-point term).
      thread_local std::vector<uint8_t> a_pad;
      thread_local std::vector<int8_t> b_pad;
      const int64_t kp = (k + 3) / 4 * 4;
      PadDepth(trans_a, trans_b, m, n, k, kp, a, lda, b, ldb, a_pad, b_pad);
      status = dnnl_gemm_u8s8s32('N', 'N', 'F', m, n, kp, 1.0f, a_pad.data(), kp, a_zp, b_pad.data(), n, 0, 0.0f, c,
                                 ldc, &c_offset);
      return status == dnnl_success;
    }
    status = dnnl_gemm_u8s8s32(ta, tb, 'F', m, n, k, 1.0f, a, lda, a_zp, b, ldb, b_zp, 0.0f, c, ldc, &c_offset);
  } else {
    status = dnnl_gemm_s8s8s32(ta, tb, 'F', m, n, k, 1.0f, a, lda, a_zp, b, ldb, b_zp, 0.0f, c, ldc, &c_offset);
  }
  return status == dnnl_success;
}

template <typename A>
bool GemmInt8UnsignedWeights(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda,
                             A a_zp, const uint8_t* b, int64_t ldb, uint8_t b_zp, int32_t* c, int64_t ldc,
                             int threads) {
  // Only where oneDNN's products are exact; elsewhere kernels/int8_exact_gemm.h computes these (or the loops).
  if (Int8GemmArithmetic() != Int8Arithmetic::kExact) return false;
  if (m <= 0 || n <= 0) return true;
  // B - 128 as int8, compact, in B's orientation: [n, k] when trans_b, else [k, n].
  thread_local std::vector<int8_t> shifted;
  shifted.resize(static_cast<size_t>(k * n));
  const int64_t rows = trans_b ? n : k, cols = trans_b ? k : n;
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* src = b + r * ldb;
    int8_t* dst = shifted.data() + r * cols;
    for (int64_t q = 0; q < cols; ++q) dst[q] = static_cast<int8_t>(src[q] ^ 0x80);
  }
  const bool done = GemmInt8<A>(trans_a, trans_b, m, n, k, a, lda, a_zp, shifted.data(), cols, 0, c, ldc, threads);
  if (!done) return false;
  // sum_p (a - a_zp) (b8 - z8) with z8 = b_zp - 128: the product above less z8 times each row's sum of (a - a_zp).
  const int32_t z8 = int32_t{b_zp} - 128;
  if (z8 == 0) return true;
  for (int64_t i = 0; i < m; ++i) {
    int32_t row_sum = 0;
    for (int64_t p = 0; p < k; ++p) row_sum += int32_t{trans_a ? a[p * lda + i] : a[i * lda + p]} - int32_t{a_zp};
    const int32_t correction = static_cast<int32_t>(static_cast<uint32_t>(z8) * static_cast<uint32_t>(row_sum));
    int32_t* row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) row[j] = static_cast<int32_t>(static_cast<uint32_t>(row[j]) - correction);
  }
  return true;
}

void GemmU8ByWeights(int64_t m, int64_t n, int64_t k, const uint8_t* a, uint8_t a_zp, const void* b, bool b_signed,
                     int32_t b_zp, int32_t* c, int threads) {
  const bool done =
      b_signed ? GemmInt8<uint8_t>(false, false, m, n, k, a, k, a_zp, static_cast<const int8_t*>(b), n,
                                   static_cast<int8_t>(b_zp), c, n, threads)
               : GemmInt8UnsignedWeights<uint8_t>(false, false, m, n, k, a, k, a_zp, static_cast<const uint8_t*>(b), n,
                                                  static_cast<uint8_t>(b_zp), c, n, threads);
  if (done) return;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static) if (m > 1 && threads > 1)
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const int32_t w = b_signed ? int32_t{static_cast<const int8_t*>(b)[p * n + j]}
                                   : int32_t{static_cast<const uint8_t*>(b)[p * n + j]};
        sum += (int32_t{a[i * k + p]} - a_zp) * (w - b_zp);
      }
      c[i * n + j] = sum;
    }
  }
}

template bool GemmInt8UnsignedWeights<uint8_t>(bool, bool, int64_t, int64_t, int64_t, const uint8_t*, int64_t, uint8_t,
                                               const uint8_t*, int64_t, uint8_t, int32_t*, int64_t, int);
template bool GemmInt8UnsignedWeights<int8_t>(bool, bool, int64_t, int64_t, int64_t, const int8_t*, int64_t, int8_t,
                                              const uint8_t*, int64_t, uint8_t, int32_t*, int64_t, int);

template bool GemmInt8<uint8_t>(bool, bool, int64_t, int64_t, int64_t, const uint8_t*, int64_t, uint8_t, const int8_t*,
                                int64_t, int8_t, int32_t*, int64_t, int, bool);
template bool GemmInt8<int8_t>(bool, bool, int64_t, int64_t, int64_t, const int8_t*, int64_t, int8_t, const int8_t*,
                               int64_t, int8_t, int32_t*, int64_t, int, bool);

}  // namespace onyx::kernels
