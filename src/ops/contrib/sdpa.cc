#include "ops/contrib/sdpa.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/cpu_isa.h"
#include "kernels/dnnl_util.h"
#include "kernels/sgemm_tile.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/nn/gemm_kernel.h"

namespace onyx::ops::contrib {
namespace {

constexpr int64_t kPanel = kernels::kSgemmTileN;  // columns per panel of B
constexpr int64_t kDepthBlock = 256;              // K per pass of the tile (its sums start from C after the first)
// Query rows from which a head's products run on onyx's FMA tile: below, packing K^T costs more than it saves (a
// decoder's step has one row).
constexpr int64_t kTileMinRows = 8;

// One head's buffers, per executing thread, reused from call to call (no allocation per run).
struct HeadScratch {
  std::vector<float> scores, keys, values;
};
HeadScratch& ThreadHeadScratch() {
  thread_local HeadScratch scratch;
  return scratch;
}

// C[m, n] (row stride ldc) = alpha * A[m, k] (row stride lda) times B, whose columns [32 q, 32 q + 32) are
// panel_of(q): row kk at panel_of(q) + kk * ldbp, 32 readable floats. On onyx's FMA tile (sgemm_tile.h), which reads
// A's rows in place.
template <class PanelOf>
void TileProduct(kernels::SgemmTileFn tile, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 PanelOf panel_of, int64_t ldbp, float* c, int64_t ldc) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  for (int64_t k0 = 0; k0 < k; k0 += kDepthBlock) {
    const int64_t kc = std::min(kDepthBlock, k - k0);
    for (int64_t q = 0; q < panels; ++q) {
      tile(static_cast<int>(m), a + k0, lda, panel_of(q) + k0 * ldbp, ldbp, kc, c + q * kPanel, ldc,
           std::min(kPanel, n - q * kPanel), alpha, k0 == 0, kernels::SgemmPrefetch{});
    }
  }
}

}  // namespace

void RunSdpa(const SdpaProblem& p) {
  const int64_t n = p.kv_len;
  const int64_t group = p.kv_heads > 0 ? p.q_heads / p.kv_heads : 1;
  // Multiply-adds per head, counted in ParallelFor's units at 64 per unit: a problem of under ~2M multiply-adds
  // (a decoding step: one query row per head) stays on one thread, where waking the pool costs more than it saves
  // (and far more when the machine is oversubscribed and a waiting thread spins).
  const int64_t work = std::max<int64_t>(1, p.q_len * n * (p.head_size + p.v_head_size) / 64);
  ParallelFor(p.batch * p.q_heads, work, [&](int64_t begin, int64_t end) {
    // Heads in parallel: each head's products on its own thread (no nested teams of oneDNN threads competing
    // for the same cores).
    std::optional<kernels::ScopedOmpThreads> one_thread;
    if (omp_in_parallel()) one_thread.emplace(1);
    // The scores of one head, in a buffer of the executing thread reused from call to call (no allocation per run).
    HeadScratch& scratch = ThreadHeadScratch();
    std::vector<float>& scores = scratch.scores;
    // With AVX-512 and enough query rows, both products on onyx's FMA tile (Q's and P's rows read in place, K^T
    // packed per head, V read in place where its rows fill whole panels): BERT-like's 128 x 128 x 64 heads ran at
    // about half the FMA peak through oneDNN's sgemm, which packs both operands on every call.
    const kernels::SgemmTileFn tile =
        p.q_len >= kTileMinRows && kernels::SgemmTileRows() == 8 ? kernels::ActiveSgemmTile() : nullptr;
    const int64_t panels = (n + kPanel - 1) / kPanel;
    // Query rows per block: with the tile, a block's scores (rows x keys) stay in a quarter of L2 between the two
    // products and the softmax (a diffusion U-Net's 1024 x 1024 scores per head, 4 MB, went through L3 three times);
    // every output is the same sum chain whatever the block, so the bits do not depend on it.
    const int64_t block_rows =
        tile == nullptr ? std::max<int64_t>(p.q_len, 1)
                        : std::max<int64_t>(kTileMinRows, kernels::L2CacheBytes() / 4 /
                                                              (std::max<int64_t>(n, 1) * int64_t{sizeof(float)}) /
                                                              kTileMinRows * kTileMinRows);
    const int64_t rows_held = std::min(block_rows, p.q_len);
    if (scores.size() < static_cast<size_t>(rows_held * n)) scores.resize(static_cast<size_t>(rows_held * n));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item / p.q_heads;
      const int64_t h = item % p.q_heads;
      const int64_t kvh = h / group;
      if (n == 0) {
        for (int64_t i = 0; i < p.q_len; ++i) std::fill_n(p.out.Row(b, h, i), p.v_head_size, 0.0f);
        continue;
      }
      const int64_t ldb = p.k.row_stride;
      // With the tile: K^T in panels of 32 keys ([dim][32], zeros past the last key), K's rows transposed 16 at a
      // time or K^T's rows copied; V read in place where its rows fill whole panels, else copied with zeros up to
      // the last panel's end. Once per head, for every block of query rows.
      const float* v = p.v.Row(b, kvh, 0);
      int64_t ldv = p.v.row_stride;
      if (tile != nullptr) {
        std::vector<float>& keys = scratch.keys;
        const auto panel_floats = static_cast<size_t>(p.head_size * kPanel);
        if (keys.size() < panels * panel_floats) keys.resize(panels * panel_floats);
        for (int64_t q = 0; q < panels; ++q) {
          float* panel = keys.data() + q * p.head_size * kPanel;
          const int64_t cols = std::min(kPanel, n - q * kPanel);
          if (cols < kPanel) std::fill_n(panel, panel_floats, 0.0f);
          if (p.k_transposed) {
            for (int64_t d = 0; d < p.head_size; ++d) {
              std::copy_n(p.k.Row(b, kvh, d) + q * kPanel, cols, panel + d * kPanel);
            }
          } else {
            for (int64_t r0 = 0; r0 < cols; r0 += 16) {
              kernels::PackSgemmRowsStrided(static_cast<int>(std::min<int64_t>(16, cols - r0)),
                                            p.k.Row(b, kvh, q * kPanel + r0), ldb, p.head_size, panel + r0, kPanel);
            }
          }
        }
        if (p.v_head_size % kPanel != 0) {
          const int64_t width = (p.v_head_size + kPanel - 1) / kPanel * kPanel;
          std::vector<float>& values = scratch.values;
          if (values.size() < static_cast<size_t>(n * width)) values.resize(static_cast<size_t>(n * width));
          for (int64_t r = 0; r < n; ++r) {
            std::copy_n(p.v.Row(b, kvh, r), p.v_head_size, values.data() + r * width);
            std::fill(values.data() + r * width + p.v_head_size, values.data() + (r + 1) * width, 0.0f);
          }
          v = values.data();
          ldv = width;
        }
      }
      const float* key_bias = p.key_bias.empty() ? nullptr : p.key_bias.data() + b * n;
      const int64_t valid = p.valid_len.empty() ? n : std::clamp<int64_t>(p.valid_len[static_cast<size_t>(b)], 0, n);
      const int64_t offset = p.causal_offset.empty() ? n - p.q_len : p.causal_offset[static_cast<size_t>(b)];
      for (int64_t r0 = 0; r0 < p.q_len; r0 += block_rows) {
        const int64_t rows = std::min(block_rows, p.q_len - r0);
        // scores = scale * Q K^T for this block's rows.
        if (tile != nullptr) {
          TileProduct(
              tile, rows, n, p.head_size, p.scale, p.q.Row(b, h, r0), p.q.row_stride,
              [&](int64_t q) { return scratch.keys.data() + q * p.head_size * kPanel; }, kPanel, scores.data(), n);
        } else {
          nn::Gemm<float>(false, !p.k_transposed, rows, n, p.head_size, p.scale, p.q.Row(b, h, r0), p.q.row_stride,
                          p.k.Row(b, kvh, 0), ldb, 0.0f, scores.data(), n);
        }
        for (int64_t i = r0; i < r0 + rows; ++i) {
          float* row = scores.data() + (i - r0) * n;
          if (p.softcap > 0.0f) {
            for (int64_t j = 0; j < n; ++j) row[j] /= p.softcap;
            kernels::Tanh(row, row, n);
            for (int64_t j = 0; j < n; ++j) row[j] *= p.softcap;
          }
          if (p.bias.data != nullptr) {
            const float* bias = p.bias.Row(b, h, i);
            for (int64_t j = 0; j < n; ++j) row[j] += bias[j];
          }
          if (key_bias != nullptr) {
            for (int64_t j = 0; j < n; ++j) row[j] += key_bias[j];
          }
          // The keys this row may see: [lo, hi).
          int64_t lo = 0;
          int64_t hi = valid;
          const int64_t last = i + offset;  // the newest key a causal row sees
          if (p.causal) {
            if (p.causal_exclude) {
              hi = std::min(hi, last + 1);
            } else {
              for (int64_t j = std::max<int64_t>(last + 1, 0); j < n; ++j) row[j] += p.causal_filter;
            }
          }
          if (p.local_window > 0) lo = std::max<int64_t>(lo, last - p.local_window + 1);
          hi = std::max(hi, lo);
          if (lo > 0) std::fill(row, row + lo, 0.0f);
          if (hi > lo) kernels::SoftmaxRow(row + lo, row + lo, hi - lo);
          std::fill(row + hi, row + n, 0.0f);
        }
        // out = P V for this block's rows.
        float* out = p.out.Row(b, h, r0);
        if (tile != nullptr) {
          TileProduct(
              tile, rows, p.v_head_size, n, 1.0f, scores.data(), n, [&](int64_t q) { return v + q * kPanel; }, ldv, out,
              p.out.row_stride);
        } else {
          nn::Gemm<float>(false, false, rows, p.v_head_size, n, 1.0f, scores.data(), n, p.v.Row(b, kvh, 0),
                          p.v.row_stride, 0.0f, out, p.out.row_stride);
        }
      }
    }
  });
}

}  // namespace onyx::ops::contrib
