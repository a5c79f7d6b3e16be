#include "ops/contrib/sdpa.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/nn/gemm_kernel.h"

namespace onyx::ops::contrib {

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
    thread_local std::vector<float> thread_scores;
    std::vector<float>& scores = thread_scores;
    if (scores.size() < static_cast<size_t>(p.q_len * n)) scores.resize(static_cast<size_t>(p.q_len * n));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item / p.q_heads;
      const int64_t h = item % p.q_heads;
      const int64_t kvh = h / group;
      float* out0 = p.out.Row(b, h, 0);
      if (n == 0) {
        for (int64_t i = 0; i < p.q_len; ++i) std::fill_n(p.out.Row(b, h, i), p.v_head_size, 0.0f);
        continue;
      }
      // scores = scale * Q K^T, one product per head.
      const int64_t ldb = p.k.row_stride;
      nn::Gemm<float>(false, !p.k_transposed, p.q_len, n, p.head_size, p.scale, p.q.Row(b, h, 0), p.q.row_stride,
                      p.k.Row(b, kvh, 0), ldb, 0.0f, scores.data(), n);
      const float* key_bias = p.key_bias.empty() ? nullptr : p.key_bias.data() + b * n;
      const int64_t valid = p.valid_len.empty() ? n : std::clamp<int64_t>(p.valid_len[static_cast<size_t>(b)], 0, n);
      const int64_t offset = p.causal_offset.empty() ? n - p.q_len : p.causal_offset[static_cast<size_t>(b)];
      for (int64_t i = 0; i < p.q_len; ++i) {
        float* row = scores.data() + i * n;
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
      // out = P V.
      nn::Gemm<float>(false, false, p.q_len, p.v_head_size, n, 1.0f, scores.data(), n, p.v.Row(b, kvh, 0),
                      p.v.row_stride, 0.0f, out0, p.out.row_stride);
    }
  });
}

}  // namespace onyx::ops::contrib
