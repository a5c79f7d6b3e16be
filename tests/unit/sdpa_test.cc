// The attention core (ops/contrib/sdpa.h) against a double-precision reference: one query row (oneDNN's sgemm) and
// many (onyx's FMA tile where the CPU has AVX-512), keys in whole and partial panels of 32 and past one depth
// block of 256, head sizes that fill panels or not (V read in place or copied), K as stored or transposed, heads
// sharing key/value heads, an additive bias and causal masking.
#include "ops/contrib/sdpa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace onyx::ops::contrib {
namespace {

struct Case {
  int64_t batch, q_heads, kv_heads, q_len, kv_len, head_size, v_head_size;
  bool k_transposed, bias, causal;
};

void Check(const Case& t, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](std::vector<float>& v, size_t n) {
    v.resize(n);
    for (auto& x : v) x = dist(rng);
  };
  std::vector<float> q, k, v, bias;
  fill(q, static_cast<size_t>(t.batch * t.q_heads * t.q_len * t.head_size));
  fill(k, static_cast<size_t>(t.batch * t.kv_heads * t.kv_len * t.head_size));
  fill(v, static_cast<size_t>(t.batch * t.kv_heads * t.kv_len * t.v_head_size));
  fill(bias, static_cast<size_t>(t.batch * t.q_heads * t.q_len * t.kv_len));
  std::vector<float> out(static_cast<size_t>(t.batch * t.q_heads * t.q_len * t.v_head_size), 7.0f);

  SdpaProblem p;
  p.batch = t.batch;
  p.q_heads = t.q_heads;
  p.kv_heads = t.kv_heads;
  p.q_len = t.q_len;
  p.kv_len = t.kv_len;
  p.head_size = t.head_size;
  p.v_head_size = t.v_head_size;
  p.scale = 0.3f;
  p.k_transposed = t.k_transposed;
  // (b, h, row) layouts: Q [B, H, S, D]; K [B, Hkv, T, D] or, transposed, [B, Hkv, D, T]; V [B, Hkv, T, Dv].
  p.q = {q.data(), t.q_heads * t.q_len * t.head_size, t.q_len * t.head_size, t.head_size};
  if (t.k_transposed) {
    p.k = {k.data(), t.kv_heads * t.head_size * t.kv_len, t.head_size * t.kv_len, t.kv_len};
  } else {
    p.k = {k.data(), t.kv_heads * t.kv_len * t.head_size, t.kv_len * t.head_size, t.head_size};
  }
  p.v = {v.data(), t.kv_heads * t.kv_len * t.v_head_size, t.kv_len * t.v_head_size, t.v_head_size};
  p.out = {out.data(), t.q_heads * t.q_len * t.v_head_size, t.q_len * t.v_head_size, t.v_head_size};
  if (t.bias) p.bias = {bias.data(), t.q_heads * t.q_len * t.kv_len, t.q_len * t.kv_len, t.kv_len};
  p.causal = t.causal;
  p.causal_exclude = true;
  RunSdpa(p);

  const int64_t group = t.q_heads / t.kv_heads;
  for (int64_t b = 0; b < t.batch; ++b) {
    for (int64_t h = 0; h < t.q_heads; ++h) {
      const int64_t kvh = h / group;
      for (int64_t i = 0; i < t.q_len; ++i) {
        const int64_t visible = t.causal ? std::min(t.kv_len, i + t.kv_len - t.q_len + 1) : t.kv_len;
        std::vector<double> s(static_cast<size_t>(t.kv_len), 0.0);
        double max = -INFINITY;
        for (int64_t j = 0; j < visible; ++j) {
          double dot = 0.0;
          for (int64_t d = 0; d < t.head_size; ++d) {
            const double kd = t.k_transposed ? p.k.Row(b, kvh, d)[j] : p.k.Row(b, kvh, j)[d];
            dot += static_cast<double>(p.q.Row(b, h, i)[d]) * kd;
          }
          s[static_cast<size_t>(j)] = 0.3 * dot + (t.bias ? p.bias.Row(b, h, i)[j] : 0.0);
          max = std::max(max, s[static_cast<size_t>(j)]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j < visible; ++j) sum += std::exp(s[static_cast<size_t>(j)] - max);
        for (int64_t e = 0; e < t.v_head_size; ++e) {
          double ref = 0.0;
          for (int64_t j = 0; j < visible; ++j) {
            ref += std::exp(s[static_cast<size_t>(j)] - max) / sum * p.v.Row(b, kvh, j)[e];
          }
          ASSERT_NEAR(p.out.Row(b, h, i)[e], ref, 2e-5)
              << "q_len " << t.q_len << " kv_len " << t.kv_len << " head " << t.head_size << "/" << t.v_head_size
              << " k_transposed " << t.k_transposed << " at b " << b << " h " << h << " row " << i << " col " << e;
        }
      }
    }
  }
}

TEST(Sdpa, MatchesTheDefinitionOnEveryProductPath) {
  uint32_t seed = 1;
  // One query row (a decoder's step) and a few (below the tile's row count).
  Check({1, 2, 2, 1, 40, 16, 16, false, false, false}, seed++);
  Check({1, 2, 1, 5, 33, 24, 20, true, true, false}, seed++);
  // Tile rows: keys in whole and partial panels and past a depth block, head sizes filling panels (V in place) or
  // not (copied), K as stored or transposed, shared key/value heads, bias, causal.
  for (int64_t kv_len : {8, 32, 45, 128, 300}) {
    Check({1, 2, 2, 20, kv_len, 64, 64, false, false, false}, seed++);
    Check({2, 4, 2, 9, kv_len, 40, 24, true, true, false}, seed++);
  }
  Check({1, 3, 3, 30, 30, 100, 96, false, true, true}, seed++);
  Check({1, 1, 1, 128, 128, 64, 64, false, false, true}, seed++);
  Check({1, 2, 2, 17, 270, 300, 33, true, false, false}, seed++);
}

}  // namespace
}  // namespace onyx::ops::contrib
