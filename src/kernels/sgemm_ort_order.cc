// MLAS's SGEMM summation order (see sgemm_ort_order.h for the rule). Layout of this file: the per-block compute
// (FMA chains over one K block, vectorized across N: AVX-512, AVX2 + FMA or scalar std::fma, each lane one output,
// so every path gives the same bits), MLAS's M1 special kernels (separate multiply and add, as its AVX code), then
// MlasSgemmOperation's and MlasGemm's dispatch.
#include "kernels/sgemm_ort_order.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/sgemm_tile.h"

// Sums in MLAS's roundings: no multiply-add contracted into an FMA beyond the explicit ones (GCC 12 contracts by
// default in C++ where the target has FMA).
#pragma GCC optimize("fp-contract=off")

namespace onyx::kernels {
namespace {

constexpr int64_t kStrideN = 128;                    // MLAS_SGEMM_STRIDEN
constexpr int64_t kStrideK = 128;                    // MLAS_SGEMM_STRIDEK
constexpr int64_t kPackedStrideK = 256;              // MLAS_SGEMM_PACKED_STRIDEK
constexpr int64_t kThreadAlignN = 16;                // MLAS_SGEMM_STRIDEN_THREAD_ALIGN
constexpr double kThreadComplexity = 64.0 * 1024.0;  // MLAS_SGEMM_THREAD_COMPLEXITY

// onyx's blocking (any blocking gives the same sums): tiles of up to 8 rows x 32 columns, B packed in panels of
// kPanelN columns per K block.
constexpr int64_t kTileN = kSgemmTileN;
constexpr int64_t kPanelN = 256;

std::atomic<int> g_forced_path{static_cast<int>(OrtSgemmPath::kAuto)};

OrtSgemmPath NativePath() {
  static const OrtSgemmPath path = [] {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return OrtSgemmPath::kScalar;
    if (__builtin_cpu_supports("avx512f") && ProcessIsaCap() != IsaCap::kAvx2) return OrtSgemmPath::kAvx512;
    return OrtSgemmPath::kAvx2;
  }();
  return path;
}

OrtSgemmPath ActivePath() {
  const auto forced = static_cast<OrtSgemmPath>(g_forced_path.load(std::memory_order_relaxed));
  return forced == OrtSgemmPath::kAuto ? NativePath() : forced;
}

// The tiles of sgemm_tile.h: first stores as MLAS's kernels do in ZeroMode, the others as without it.
using TileFn = SgemmTileFn;

template <int kRows>
void TileScalar(const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c, int64_t ldc,
                int64_t cols, float alpha, bool first, SgemmPrefetch /*prefetch*/) {
  for (int r = 0; r < kRows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < kc; ++kk) acc = std::fma(a[r * lda + kk], bp[kk * ldbp + j], acc);
      float& out = c[r * ldc + j];
      out = first ? acc * alpha : std::fma(acc, alpha, out);
    }
  }
}

void TileScalarAny(int rows, const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c,
                   int64_t ldc, int64_t cols, float alpha, bool first, SgemmPrefetch /*prefetch*/) {
  for (int r = 0; r < rows; ++r)
    TileScalar<1>(a + r * lda, lda, bp, ldbp, kc, c + r * ldc, ldc, cols, alpha, first, {});
}

#pragma GCC push_options
#pragma GCC target("avx2,fma")

template <int kRows>
void TileAvx2(const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c, int64_t ldc,
              int64_t cols, float alpha, bool first, SgemmPrefetch prefetch) {
  // 32 columns as 4 vectors of 8; 4 rows x 4 vectors = 16 accumulators would need every register, so 32 columns
  // are done as two halves of 16 (2 vectors x up to 6 rows).
  int64_t line = 0;  // of prefetch, spread over both halves
  for (int64_t half = 0; half < 2 && half * 16 < cols; ++half) {
    __m256 acc[kRows][2];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const float* b = bp + half * 16;
#pragma GCC unroll 4
    for (int64_t kk = 0; kk < kc; ++kk) {
      if ((kk & 1) == 0 && line < prefetch.lines) {
        _mm_prefetch(prefetch.begin + line * kSgemmLineBytes, _MM_HINT_T1);
        ++line;
      }
      const __m256 b0 = _mm256_loadu_ps(b + kk * ldbp);
      const __m256 b1 = _mm256_loadu_ps(b + kk * ldbp + 8);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const __m256 av = _mm256_broadcast_ss(a + r * lda + kk);
        acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
      }
    }
    // The accumulators leave the registers only here, through constant indices: indexing them in the loops below
    // made GCC keep the whole array in memory, storing it back on every step of the K loop (2.7x slower).
    alignas(32) float sums[kRows][16];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      _mm256_store_ps(sums[r], acc[r][0]);
      _mm256_store_ps(sums[r] + 8, acc[r][1]);
    }
    const __m256 alpha_v = _mm256_set1_ps(alpha);
    for (int r = 0; r < kRows; ++r) {
      for (int v = 0; v < 2; ++v) {
        const int64_t col0 = half * 16 + v * 8;
        const int64_t n = std::min<int64_t>(8, cols - col0);
        if (n <= 0) break;
        float* out = c + r * ldc + col0;
        const float* lanes = sums[r] + v * 8;
        if (n == 8) {
          const __m256 sum = _mm256_load_ps(lanes);
          const __m256 res = first ? _mm256_mul_ps(sum, alpha_v) : _mm256_fmadd_ps(sum, alpha_v, _mm256_loadu_ps(out));
          _mm256_storeu_ps(out, res);
        } else {
          for (int64_t j = 0; j < n; ++j) out[j] = first ? lanes[j] * alpha : std::fma(lanes[j], alpha, out[j]);
        }
      }
    }
  }
}

void TileAvx2Any(int rows, const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c,
                 int64_t ldc, int64_t cols, float alpha, bool first, SgemmPrefetch prefetch) {
  while (rows > 0) {
    const int r = std::min(rows, 6);
    switch (r) {
      case 6:
        TileAvx2<6>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 5:
        TileAvx2<5>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 4:
        TileAvx2<4>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 3:
        TileAvx2<3>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 2:
        TileAvx2<2>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      default:
        TileAvx2<1>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
    }
    rows -= r;
    a += r * lda;
    c += r * ldc;
    prefetch = {};  // the first call's share
  }
}

#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")

#include "kernels/sgemm_tile_avx512_sums.inc"

// 8 rows by pointers: the products of A as stored (MLAS's order for an unpacked B, 8 rows at a time). Packed products
// (sgemm_packed.h) on AVX-512 run the packed-rows tile (sgemm_tile_packed_rows.cc) instead.
constexpr int kAvx512TileRows = 8;

template <int kRows>
void TileAvx512(const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c, int64_t ldc,
                int64_t cols, float alpha, bool first, SgemmPrefetch prefetch) {
  __m512 acc[kRows][2];
  Avx512TileSums<kRows>(
      acc, [ a, lda ](int64_t kk, int r) __attribute__((always_inline)) { return a[r * lda + kk]; }, bp, ldbp, kc,
      prefetch);
  // Out of the registers through constant indices only (see TileAvx2).
  alignas(64) float sums[kRows][32];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    _mm512_store_ps(sums[r], acc[r][0]);
    _mm512_store_ps(sums[r] + 16, acc[r][1]);
  }
  const __m512 alpha_v = _mm512_set1_ps(alpha);
  for (int r = 0; r < kRows; ++r) {
    for (int v = 0; v < 2; ++v) {
      const int64_t n = std::min<int64_t>(16, cols - v * 16);
      if (n <= 0) break;
      const __mmask16 mask = n == 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
      float* out = c + r * ldc + v * 16;
      const __m512 sum = _mm512_load_ps(sums[r] + v * 16);
      const __m512 res =
          first ? _mm512_mul_ps(sum, alpha_v) : _mm512_fmadd_ps(sum, alpha_v, _mm512_maskz_loadu_ps(mask, out));
      _mm512_mask_storeu_ps(out, mask, res);
    }
  }
}

void TileAvx512Any(int rows, const float* a, int64_t lda, const float* bp, int64_t ldbp, int64_t kc, float* c,
                   int64_t ldc, int64_t cols, float alpha, bool first, SgemmPrefetch prefetch) {
  while (rows > 0) {
    const int r = std::min(rows, kAvx512TileRows);
    switch (r) {
      case 8:
        TileAvx512<8>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 7:
        TileAvx512<7>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 6:
        TileAvx512<6>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 5:
        TileAvx512<5>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 4:
        TileAvx512<4>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 3:
        TileAvx512<3>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      case 2:
        TileAvx512<2>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
      default:
        TileAvx512<1>(a, lda, bp, ldbp, kc, c, ldc, cols, alpha, first, prefetch);
        break;
    }
    rows -= r;
    a += r * lda;
    c += r * ldc;
    prefetch = {};  // the first call's share
  }
}

#pragma GCC pop_options

}  // namespace

SgemmTileFn ActiveSgemmTile() {
  switch (ActivePath()) {
    case OrtSgemmPath::kAvx512:
      return TileAvx512Any;
    case OrtSgemmPath::kAvx2:
      return TileAvx2Any;
    default:
      return TileScalarAny;
  }
}

int SgemmTileRows() {
  switch (ActivePath()) {
    case OrtSgemmPath::kAvx512:
      return kAvx512TileRows;
    case OrtSgemmPath::kAvx2:
      return 6;
    default:
      return 1;
  }
}

namespace {

// Scratch buffers reused by each thread across calls (no heap allocation once the shapes have run).
std::vector<float>& ThreadScratch(int which) {
  thread_local std::vector<float> buffers[2];
  return buffers[which];
}

// Copies op(B)[k0:k0+kc, n0:n0+nc] into rows of `ld` floats (zero-padded to a multiple of kTileN).
void PackB(bool trans_b, const float* b, int64_t ldb, int64_t k0, int64_t kc, int64_t n0, int64_t nc, float* panel,
           int64_t ld) {
  if (trans_b) {
    // Row j of the stored B is column j of op(B): copied in blocks of 8 rows, so that both the 8 rows read and the
    // panel rows written stay in cache (a whole column at a time is several times slower).
    for (int64_t j0 = 0; j0 < nc; j0 += 8) {
      const int64_t jn = std::min<int64_t>(8, nc - j0);
      const float* src = b + (n0 + j0) * ldb + k0;
      for (int64_t kk = 0; kk < kc; ++kk) {
        float* dst = panel + kk * ld + j0;
        for (int64_t j = 0; j < jn; ++j) dst[j] = src[j * ldb + kk];
      }
    }
    for (int64_t kk = 0; kk < kc; ++kk) std::fill(panel + kk * ld + nc, panel + (kk + 1) * ld, 0.0f);
    return;
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    float* dst = panel + kk * ld;
    std::copy(b + (k0 + kk) * ldb + n0, b + (k0 + kk) * ldb + n0 + nc, dst);
    std::fill(dst + nc, dst + ld, 0.0f);
  }
}

// The general case: per output, K blocks of k_block, each an FMA chain from 0; the first block stores
// acc * alpha when zero_mode, every other block stores fma(acc, alpha, C). C already holds beta * C when
// !zero_mode. Work is split over onyx's threads in tasks of (panel of columns, group of rows).
void BlockedProduct(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t k_block, bool zero_mode) {
  const TileFn tile = ActiveSgemmTile();
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const bool parallel = threads > 1 && flops >= 2e6;
  // Column panels of whole tiles about kPanelN wide; with threads, at least two tasks per thread (panels rounded to a
  // multiple of the thread count, else groups of rows, multiples of 8), handed out dynamically.
  const int64_t tiles_n = (n + kTileN - 1) / kTileN;
  int64_t panels = (tiles_n * kTileN + kPanelN - 1) / kPanelN;
  int64_t row_groups = 1;
  if (parallel) {
    if (panels >= 2 * threads) {
      panels = std::min(tiles_n, (panels + threads - 1) / threads * threads);
    } else {
      row_groups = std::max<int64_t>(1, std::min<int64_t>((2 * threads + panels - 1) / panels, m / 8));
    }
  }
  const int64_t rows_per_group = ((m + row_groups - 1) / row_groups + 7) / 8 * 8;
  row_groups = (m + rows_per_group - 1) / rows_per_group;
  const int64_t tasks = panels * row_groups;
  auto run_task = [&](int64_t task) {
    const int64_t panel = task / row_groups;
    const int64_t n0 = panel * tiles_n / panels * kTileN;
    const int64_t nc = std::min(n, (panel + 1) * tiles_n / panels * kTileN) - n0;
    const int64_t ld = (nc + kTileN - 1) / kTileN * kTileN;
    const int64_t m0 = (task % row_groups) * rows_per_group;
    const int64_t mc = std::min(rows_per_group, m - m0);
    std::vector<float>& pb = ThreadScratch(0);
    std::vector<float>& pa = ThreadScratch(1);
    for (int64_t k0 = 0; k0 < k; k0 += k_block) {
      const int64_t kc = std::min(k_block, k - k0);
      if (pb.size() < static_cast<size_t>(kc * ld)) pb.resize(static_cast<size_t>(kc * ld));
      PackB(trans_b, b, ldb, k0, kc, n0, nc, pb.data(), ld);
      const bool first = zero_mode && k0 == 0;
      for (int64_t i0 = m0; i0 < m0 + mc; i0 += 8) {
        const int rows = static_cast<int>(std::min<int64_t>(8, m0 + mc - i0));
        const float* ap = a + i0 * lda + k0;
        int64_t ald = lda;
        if (trans_a) {  // op(A)(i, kk) = a[kk * lda + i]: copy the rows x kc block
          if (pa.size() < static_cast<size_t>(8 * kc)) pa.resize(static_cast<size_t>(8 * kc));
          for (int r = 0; r < rows; ++r) {
            for (int64_t kk = 0; kk < kc; ++kk) pa[static_cast<size_t>(r * kc + kk)] = a[(k0 + kk) * lda + i0 + r];
          }
          ap = pa.data();
          ald = kc;
        }
        for (int64_t j0 = 0; j0 < nc; j0 += kTileN) {
          tile(rows, ap, ald, pb.data() + j0, ld, kc, c + i0 * ldc + n0 + j0, ldc, std::min(kTileN, nc - j0), alpha,
               first, {});
        }
      }
    }
  };
  if (parallel && tasks > 1) {
#pragma omp parallel for schedule(static) num_threads(static_cast <int>(std::min <int64_t>(threads, tasks)))
    for (int64_t t = 0; t < tasks; ++t) run_task(t);
  } else {
    for (int64_t t = 0; t < tasks; ++t) run_task(t);
  }
}

// MLAS's MlasSgemmKernelM1Avx: c[j] (+)= sum_k a[k] * b[k * ldb + j] without FMA. K goes in groups of 4: each
// group's products (each rounded) are added left to right from the first, then the group's sum is added to C
// (to +0 for the first group when zero_c); then a group of 2 if K % 4 >= 2, then a single product. The loops over
// j vectorize (each lane one output); nothing is contracted into an FMA (the file's fp-contract=off: GCC 12
// contracts in C++ by default where the target has FMA).
__attribute__((always_inline)) inline void KernelM1Body(const float* a, const float* b, float* c, int64_t k, int64_t n,
                                                        int64_t ldb, bool zero_c) {
  int64_t kk = 0;
  bool zero = zero_c;
  for (; kk + 4 <= k; kk += 4) {
    const float a0 = a[kk], a1 = a[kk + 1], a2 = a[kk + 2], a3 = a[kk + 3];
    const float* b0 = b + kk * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    if (zero) {
      for (int64_t j = 0; j < n; ++j) c[j] = (((a0 * b0[j] + a1 * b1[j]) + a2 * b2[j]) + a3 * b3[j]) + 0.0f;
    } else {
      for (int64_t j = 0; j < n; ++j) c[j] = (((a0 * b0[j] + a1 * b1[j]) + a2 * b2[j]) + a3 * b3[j]) + c[j];
    }
    zero = false;
  }
  if ((k - kk) & 2) {
    const float a0 = a[kk], a1 = a[kk + 1];
    const float* b0 = b + kk * ldb;
    const float* b1 = b0 + ldb;
    if (zero) {
      for (int64_t j = 0; j < n; ++j) c[j] = (a0 * b0[j] + a1 * b1[j]) + 0.0f;
    } else {
      for (int64_t j = 0; j < n; ++j) c[j] = (a0 * b0[j] + a1 * b1[j]) + c[j];
    }
    kk += 2;
    zero = false;
  }
  if ((k - kk) & 1) {
    const float a0 = a[kk];
    const float* b0 = b + kk * ldb;
    if (zero) {
      for (int64_t j = 0; j < n; ++j) c[j] = a0 * b0[j] + 0.0f;
    } else {
      for (int64_t j = 0; j < n; ++j) c[j] = a0 * b0[j] + c[j];
    }
  }
}

__attribute__((target("avx2"))) void KernelM1Avx2(const float* a, const float* b, float* c, int64_t k, int64_t n,
                                                  int64_t ldb, bool zero_c) {
  KernelM1Body(a, b, c, k, n, ldb, zero_c);
}

void KernelM1Plain(const float* a, const float* b, float* c, int64_t k, int64_t n, int64_t ldb, bool zero_c) {
  KernelM1Body(a, b, c, k, n, ldb, zero_c);
}

void KernelM1(const float* a, const float* b, float* c, int64_t k, int64_t n, int64_t ldb, bool zero_c) {
  if (ActivePath() == OrtSgemmPath::kScalar) {
    KernelM1Plain(a, b, c, k, n, ldb, zero_c);
  } else {
    KernelM1Avx2(a, b, c, k, n, ldb, zero_c);
  }
}

// MLAS's MlasSgemmKernelM1TransposeBAvx: c[i] (+)= sum_k a[k] * b[i * ldb + k] without FMA. Eight lane sums over
// k (lane l takes k = l mod 8; a partial last vector adds +0 to its empty lanes), reduced in the pattern of the
// kernel's block of 4, 2 or 1 outputs the output falls in, then added to C (to +0 when zero_c).
void KernelM1TransposeB(const float* a, const float* b, float* c, int64_t k, int64_t n, int64_t ldb, bool zero_c) {
  const int64_t blocks4 = n / 4 * 4;
  for (int64_t i = 0; i < n; ++i) {
    float l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const float* row = b + i * ldb;
    int64_t kk = 0;
    for (; kk + 8 <= k; kk += 8) {
      for (int q = 0; q < 8; ++q) {
        const float p = a[kk + q] * row[kk + q];
        l[q] = l[q] + p;
      }
    }
    if (kk < k) {
      for (int q = 0; q < 8; ++q) {
        const float p = kk + q < k ? a[kk + q] * row[kk + q] : 0.0f;
        l[q] = l[q] + p;
      }
    }
    float r;
    if (i < blocks4) {
      r = (((l[0] + l[1]) + l[2]) + l[3]) + (((l[4] + l[5]) + l[6]) + l[7]);
    } else if (i < blocks4 + 2 && (n & 2)) {
      r = ((l[0] + l[2]) + (l[4] + l[6])) + ((l[1] + l[3]) + (l[5] + l[7]));
    } else {
      r = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
    c[i] = r + (zero_c ? 0.0f : c[i]);
  }
}

// MlasSgemmMultiplyBeta.
void MultiplyBeta(float* c, int64_t m, int64_t n, int64_t ldc, float beta) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = c[i * ldc + j] * beta;
  }
}

// MlasPartitionWork.
void PartitionWork(int64_t id, int64_t count, int64_t total, int64_t* start, int64_t* size) {
  const int64_t per = total / count;
  const int64_t extra = total % count;
  if (id < extra) {
    *start = (per + 1) * id;
    *size = per + 1;
  } else {
    *start = per * id + extra;
    *size = per;
  }
}

}  // namespace

int OrtGemmBatchThreads(int64_t m, int64_t n, int64_t k, int64_t batch) {
  const int threads = std::max(omp_get_max_threads(), 1);
  const double complexity = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int64_t target = std::min<int64_t>(static_cast<int64_t>(complexity / (64.0 * 1024.0)) + 1, threads);
  batch = std::max<int64_t>(batch, 1);
  return static_cast<int>((target + batch - 1) / batch);
}

void SetOrtSgemmPathForTesting(OrtSgemmPath path) { g_forced_path.store(static_cast<int>(path)); }

OrtSgemmPath OrtSgemmActivePath() { return ActivePath(); }

int64_t OrtSgemmStrideK(int64_t n, int64_t k, bool trans_a) {
  int64_t stride_n = kStrideN;
  int64_t stride_k = kStrideK;
  if (n >= k) {
    while (stride_k / 2 >= k) {
      stride_n *= 2;
      stride_k /= 2;
    }
  } else if (!trans_a) {
    while (stride_n > 16 && stride_n / 2 >= n) {
      stride_k *= 2;
      stride_n /= 2;
    }
  }
  return stride_k;
}

void SgemmOrtOperation(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                       int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    // MLAS multiplies C by beta; a beta of 0 here writes zeros (C may be uninitialized).
    if (beta == 0.0f) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    } else {
      MultiplyBeta(c, m, n, ldc, beta);
    }
    return;
  }
  const bool m1_beta = alpha == 1.0f && (beta == 0.0f || beta == 1.0f);
  if (m == 1 && !trans_a && m1_beta) {
    if (trans_b) {
      KernelM1TransposeB(a, b, c, k, n, ldb, beta == 0.0f);
    } else {
      KernelM1(a, b, c, k, n, ldb, beta == 0.0f);
    }
    return;
  }
  if (n == 1 && ldb == 1 && ldc == 1 && m1_beta) {
    // C^T = B^T A^T with the roles swapped: MLAS's M1 kernels with B as the row vector.
    if (!trans_a) {
      KernelM1TransposeB(b, a, c, k, m, lda, beta == 0.0f);
    } else {
      KernelM1(b, a, c, k, m, lda, beta == 0.0f);
    }
    return;
  }
  if (beta != 0.0f && beta != 1.0f) MultiplyBeta(c, m, n, ldc, beta);
  BlockedProduct(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc, OrtSgemmStrideK(n, k, trans_a),
                 beta == 0.0f);
}

void SgemmOrtBlocks(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc, int64_t k_block) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    SgemmOrtOperation(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  if (beta != 0.0f && beta != 1.0f) MultiplyBeta(c, m, n, ldc, beta);
  BlockedProduct(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc, std::max<int64_t>(k_block, 1), beta == 0.0f);
}

void SgemmOrtM1(const float* a, const float* b, int64_t ldb, float* c, int64_t k, int64_t n, bool accumulate) {
  if (n <= 0) return;
  if (k <= 0) {
    if (!accumulate) std::fill(c, c + n, 0.0f);
    return;
  }
  KernelM1(a, b, c, k, n, ldb, !accumulate);
}

void SgemmOrtOrder(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                   const OrtSgemmOptions& options) {
  if (m <= 0 || n <= 0) return;
  if (options.b_packed) {
    // MlasSgemmPackedOperation: K blocks of 256 whatever the shape, no M1 kernels; its split over threads changes
    // nothing per output.
    SgemmOrtBlocks(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, kPackedStrideK);
    return;
  }
  // MlasGemmBatch's split: each part is one MlasSgemmOperation over its rows or columns.
  const double complexity = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  int64_t target = static_cast<int64_t>(complexity / kThreadComplexity) + 1;
  target = std::min<int64_t>(target, std::max(options.ort_threads, 1));
  const bool split_n = n > m;
  const int64_t blocked_n = (n + kThreadAlignN - 1) / kThreadAlignN;
  const int64_t parts = split_n ? std::min(target, blocked_n) : std::min(target, m);
  auto part = [&](int64_t p, int64_t* start, int64_t* count) {
    if (split_n) {
      PartitionWork(p, parts, blocked_n, start, count);
      *start *= kThreadAlignN;
      *count = std::min(n - *start, *count * kThreadAlignN);
    } else {
      PartitionWork(p, parts, m, start, count);
    }
  };
  // When every part sums in the same K blocks without a special kernel, one product over everything gives the same
  // bits with one parallel region instead of one per part.
  const bool unit = alpha == 1.0f && (beta == 0.0f || beta == 1.0f);
  bool uniform = k > 0;
  int64_t stride_k = -1;
  for (int64_t p = 0; p < parts && uniform; ++p) {
    int64_t start = 0, count = 0;
    part(p, &start, &count);
    if (count <= 0) continue;
    const int64_t pm = split_n ? m : count;
    const int64_t pn = split_n ? count : n;
    if (unit && ((pm == 1 && !trans_a) || (pn == 1 && ldb == 1 && ldc == 1))) uniform = false;
    const int64_t sk = OrtSgemmStrideK(pn, k, trans_a);
    if (stride_k >= 0 && sk != stride_k) uniform = false;
    stride_k = sk;
  }
  if (uniform && stride_k > 0) {
    SgemmOrtBlocks(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stride_k);
    return;
  }
  for (int64_t p = 0; p < parts; ++p) {
    int64_t start = 0, count = 0;
    part(p, &start, &count);
    if (count <= 0) continue;
    if (split_n) {
      SgemmOrtOperation(trans_a, trans_b, m, count, k, alpha, a, lda, b + start * (trans_b ? ldb : 1), ldb, beta,
                        c + start, ldc);
    } else {
      SgemmOrtOperation(trans_a, trans_b, count, n, k, alpha, a + start * (trans_a ? 1 : lda), lda, b, ldb, beta,
                        c + start * ldc, ldc);
    }
  }
}

}  // namespace onyx::kernels
