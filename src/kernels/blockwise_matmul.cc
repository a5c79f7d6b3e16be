#include "kernels/blockwise_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kGroup = 16;  // values widened at once; blocks are whole groups
// From this many rows of A the weights are widened into floats once per run (WidenedRange), in chunks of outputs.
constexpr int64_t kWidenFromRows = 8;
constexpr int64_t kWidenedOutputs = 24;

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// 16 values of 4 bits (8 bytes, the low nibble first) as two vectors of 8 floats: the values at even positions
// (low nibbles) and at odd ones (high nibbles); A is laid out to match (PermutedRows).
inline void Widen4(const uint8_t* p, __m256i mask, __m256* even, __m256* odd) {
  const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  *even = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, mask));
  *odd = _mm256_cvtepi32_ps(_mm256_srli_epi32(bytes, 4));
}

// 16 values of 8 bits, in order.
inline void Widen8(const uint8_t* p, __m256i, __m256* first, __m256* second) {
  *first = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
  *second = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8))));
}

inline float HorizontalSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}

// kOutputs outputs (rows of q, `row_bytes` apart) times kRows rows of A (padded to whole groups, `lda` apart, each
// group of 16 as its even then its odd positions for 4 bits): y[r * ldy + o] for r < kRows, o < kOutputs. Each
// (output, row) keeps two accumulator chains per block (the two halves of each group), the block's sum scaled into
// a running total per lane; the zero points' share, sum over blocks of s * zero * sum(a over the block), is taken
// off at the end (scaled_zeros: s * zero per block; asum: [kRows][blocks], A's block sums). kGroups: groups per
// whole block when known at compile time (the loop then unrolls), else 0.
template <int kBits, int kOutputs, int kRows, int kGroups>
void Outputs(const uint8_t* q, int64_t row_bytes, int64_t blob, int64_t block, int64_t blocks, int64_t k,
             const float* scales, const float* scaled_zeros, int64_t blocks_stride, const float* a, int64_t lda,
             const float* asum, float* y, int64_t ldy, const float* bias) {
  __m256 total[kOutputs][kRows];
#pragma GCC unroll 4
  for (int o = 0; o < kOutputs; ++o) {
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) total[o][r] = _mm256_setzero_ps();
  }
  const __m256i mask = _mm256_set1_epi32(0x0F);
  auto block_sums = [&](int64_t b, int64_t groups) __attribute__((always_inline)) {
    const int64_t k0 = b * block;
    __m256 even[kOutputs][kRows], odd[kOutputs][kRows];
#pragma GCC unroll 4
    for (int o = 0; o < kOutputs; ++o) {
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) even[o][r] = odd[o][r] = _mm256_setzero_ps();
    }
#pragma GCC unroll 8
    for (int64_t g = 0; g < groups; ++g) {
      __m256 a0[kRows], a1[kRows];
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        a0[r] = _mm256_loadu_ps(a + r * lda + k0 + g * kGroup);
        a1[r] = _mm256_loadu_ps(a + r * lda + k0 + g * kGroup + 8);
      }
#pragma GCC unroll 4
      for (int o = 0; o < kOutputs; ++o) {
        __m256 w0, w1;
        const uint8_t* p = q + o * row_bytes + b * blob + g * kGroup * kBits / 8;
        if constexpr (kBits == 4) {
          Widen4(p, mask, &w0, &w1);
        } else {
          Widen8(p, mask, &w0, &w1);
        }
#pragma GCC unroll 4
        for (int r = 0; r < kRows; ++r) {
          even[o][r] = _mm256_fmadd_ps(a0[r], w0, even[o][r]);
          odd[o][r] = _mm256_fmadd_ps(a1[r], w1, odd[o][r]);
        }
      }
    }
#pragma GCC unroll 4
    for (int o = 0; o < kOutputs; ++o) {
      const __m256 sv = _mm256_broadcast_ss(scales + o * blocks_stride + b);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        total[o][r] = _mm256_fmadd_ps(sv, _mm256_add_ps(even[o][r], odd[o][r]), total[o][r]);
      }
    }
  };
  const int64_t whole = k / block;  // blocks of `block` values; a last one may hold fewer
  for (int64_t b = 0; b < whole; ++b) block_sums(b, kGroups > 0 ? kGroups : block / kGroup);
  for (int64_t b = whole; b < blocks; ++b) block_sums(b, (k - b * block + kGroup - 1) / kGroup);
#pragma GCC unroll 4
  for (int o = 0; o < kOutputs; ++o) {
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      __m256 c = _mm256_setzero_ps();
      int64_t b = 0;
      for (; b + 8 <= blocks; b += 8) {
        c = _mm256_fmadd_ps(_mm256_loadu_ps(scaled_zeros + o * blocks_stride + b),
                            _mm256_loadu_ps(asum + r * blocks + b), c);
      }
      float correction = HorizontalSum(c);
      for (; b < blocks; ++b) correction += scaled_zeros[o * blocks_stride + b] * asum[r * blocks + b];
      y[r * ldy + o] = HorizontalSum(total[o][r]) - correction + (bias != nullptr ? bias[o] : 0.0f);
    }
  }
}

// Outputs [n0, n1) for rows [0, m) of A.
template <int kBits, int kGroups>
void OutputRange(const uint8_t* q, int64_t blob, int64_t block, int64_t blocks, int64_t k, const float* scales,
                 const float* scaled_zeros, const float* a, int64_t lda, const float* asum, int64_t m, int64_t n0,
                 int64_t n1, float* y, int64_t ldy, const float* bias) {
  const int64_t row_bytes = blocks * blob;
  for (int64_t r = 0; r < m;) {
    const bool pair = r + 1 < m;
    for (int64_t n = n0; n < n1;) {
      const uint8_t* qn = q + n * row_bytes;
      const float* sn = scales + n * blocks;
      const float* zn = scaled_zeros + n * blocks;
      const float* ar = a + r * lda;
      const float* asr = asum + r * blocks;
      float* yn = y + r * ldy + n;
      const float* bn = bias != nullptr ? bias + n : nullptr;
      // Rows in pairs (each output's values widened once for both); a single row takes four outputs at a time,
      // sharing A's loads.
      if (pair && n + 1 < n1) {
        Outputs<kBits, 2, 2, kGroups>(qn, row_bytes, blob, block, blocks, k, sn, zn, blocks, ar, lda, asr, yn, ldy, bn);
        n += 2;
      } else if (pair) {
        Outputs<kBits, 1, 2, kGroups>(qn, row_bytes, blob, block, blocks, k, sn, zn, blocks, ar, lda, asr, yn, ldy, bn);
        n += 1;
      } else if (n + 3 < n1) {
        Outputs<kBits, 4, 1, kGroups>(qn, row_bytes, blob, block, blocks, k, sn, zn, blocks, ar, lda, asr, yn, ldy, bn);
        n += 4;
      } else if (n + 1 < n1) {
        Outputs<kBits, 2, 1, kGroups>(qn, row_bytes, blob, block, blocks, k, sn, zn, blocks, ar, lda, asr, yn, ldy, bn);
        n += 2;
      } else {
        Outputs<kBits, 1, 1, kGroups>(qn, row_bytes, blob, block, blocks, k, sn, zn, blocks, ar, lda, asr, yn, ldy, bn);
        n += 1;
      }
    }
    r += pair ? 2 : 1;
  }
}

// Rows of A from many: the outputs' weights widened once into floats (w = (q - zero) * scale, laid out as A is,
// `lda` per output) and then multiplied as a float product, kRows rows x kOutputs outputs at a time, the sums kept
// per lane and added up at the end. Widening per row pair cost a 32-row prompt 1.7x the float product's time.
template <int kBits>
void Dequantize(const uint8_t* q_row, int64_t blob, int64_t block, int64_t blocks, int64_t k, const float* scales,
                const float* zeros, float* w) {
  const __m256i mask = _mm256_set1_epi32(0x0F);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t k0 = b * block;
    const int64_t groups = (std::min(block, k - k0) + kGroup - 1) / kGroup;
    const __m256 s = _mm256_set1_ps(scales[b]);
    const __m256 z = _mm256_set1_ps(zeros[b]);
    for (int64_t g = 0; g < groups; ++g) {
      __m256 w0, w1;
      const uint8_t* p = q_row + b * blob + g * kGroup * kBits / 8;
      if constexpr (kBits == 4) {
        Widen4(p, mask, &w0, &w1);
      } else {
        Widen8(p, mask, &w0, &w1);
      }
      _mm256_storeu_ps(w + k0 + g * kGroup, _mm256_mul_ps(_mm256_sub_ps(w0, z), s));
      _mm256_storeu_ps(w + k0 + g * kGroup + 8, _mm256_mul_ps(_mm256_sub_ps(w1, z), s));
    }
  }
}

template <int kRows, int kOutputs>
void Dots(const float* a, int64_t lda, const float* w, int64_t length, float* y, int64_t ldy, const float* bias) {
  __m256 acc[kRows][kOutputs];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int o = 0; o < kOutputs; ++o) acc[r][o] = _mm256_setzero_ps();
  }
  for (int64_t kk = 0; kk < length; kk += 8) {
    __m256 wv[kOutputs];
#pragma GCC unroll 4
    for (int o = 0; o < kOutputs; ++o) wv[o] = _mm256_loadu_ps(w + o * lda + kk);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m256 av = _mm256_loadu_ps(a + r * lda + kk);
#pragma GCC unroll 4
      for (int o = 0; o < kOutputs; ++o) acc[r][o] = _mm256_fmadd_ps(av, wv[o], acc[r][o]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int o = 0; o < kOutputs; ++o) {
      y[r * ldy + o] = HorizontalSum(acc[r][o]) + (bias != nullptr ? bias[o] : 0.0f);
    }
  }
}

// Outputs [n0, n1) (at most kWidenedOutputs) for rows [0, m) through widened weights in `w`.
template <int kBits>
void WidenedRange(const uint8_t* q, int64_t blob, int64_t block, int64_t blocks, int64_t k, const float* scales,
                  const float* zeros, const float* a, int64_t lda, int64_t m, int64_t n0, int64_t n1, float* y,
                  int64_t ldy, const float* bias, float* w) {
  const int64_t count = n1 - n0;
  for (int64_t o = 0; o < count; ++o) {
    float* row = w + o * lda;
    std::fill(row, row + lda, 0.0f);
    Dequantize<kBits>(q + (n0 + o) * blocks * blob, blob, block, blocks, k, scales + (n0 + o) * blocks,
                      zeros + (n0 + o) * blocks, row);
  }
  for (int64_t r = 0; r < m;) {
    const int64_t rows = std::min<int64_t>(4, m - r);
    for (int64_t o = 0; o < count;) {
      const float* wo = w + o * lda;
      const float* ar = a + r * lda;
      float* yo = y + r * ldy + n0 + o;
      const float* bo = bias != nullptr ? bias + n0 + o : nullptr;
      if (rows == 4 && o + 3 <= count) {
        Dots<4, 3>(ar, lda, wo, lda, yo, ldy, bo);
        o += 3;
      } else if (rows == 4) {
        Dots<4, 1>(ar, lda, wo, lda, yo, ldy, bo);
        o += 1;
      } else {
        for (int64_t rr = 0; rr < rows; ++rr) Dots<1, 1>(ar + rr * lda, lda, wo, lda, yo + rr * ldy, ldy, bo);
        o += 1;
      }
    }
    r += rows;
  }
}

#pragma GCC pop_options

}  // namespace

bool BlockwiseQuantizedMatMul::Supported(int bits, int64_t block) {
  return (bits == 4 || bits == 8) && block >= kGroup && block % kGroup == 0 && __builtin_cpu_supports("avx2") &&
         __builtin_cpu_supports("fma");
}

BlockwiseQuantizedMatMul::BlockwiseQuantizedMatMul(int64_t k, int64_t n, int bits, int64_t block, const uint8_t* q,
                                                   std::vector<float> scales, std::vector<float> zero_points)
    : k_(k),
      n_(n),
      bits_(bits),
      block_(block),
      blocks_((k + block - 1) / block),
      blob_(block * bits / 8),
      q_(q),
      scales_(std::move(scales)),
      zero_points_(std::move(zero_points)),
      scaled_zeros_(scales_.size()) {
  for (size_t i = 0; i < scales_.size(); ++i) scaled_zeros_[i] = scales_[i] * zero_points_[i];
}

void BlockwiseQuantizedMatMul::Run(int64_t m, const float* a, const float* bias, float* y, int threads) const {
  if (m <= 0 || n_ <= 0) return;
  // A padded to whole groups (zeros past k; no copy when k is a multiple of 16) and, for few rows, its block sums,
  // in buffers of the calling thread: no allocation per run in steady state.
  const int64_t lda = (k_ + kGroup - 1) / kGroup * kGroup;
  thread_local std::vector<float> padded, sums;
  const float* rows = a;
  if (bits_ == 4) {
    // Each group of 16 as its 8 even positions then its 8 odd ones: a byte's two values (Widen4) meet theirs.
    padded.assign(static_cast<size_t>(m * lda), 0.0f);
    for (int64_t r = 0; r < m; ++r) {
      float* row = padded.data() + r * lda;
      for (int64_t kk = 0; kk < k_; ++kk) row[kk / kGroup * kGroup + (kk % 2) * 8 + kk % kGroup / 2] = a[r * k_ + kk];
    }
    rows = padded.data();
  } else if (lda != k_) {
    padded.assign(static_cast<size_t>(m * lda), 0.0f);
    for (int64_t r = 0; r < m; ++r) std::memcpy(padded.data() + r * lda, a + r * k_, sizeof(float) * k_);
    rows = padded.data();
  }
  if (m >= kWidenFromRows) {
    // Chunks of kWidenedOutputs outputs, widened into a buffer of each thread.
    const int64_t wchunks = (n_ + kWidenedOutputs - 1) / kWidenedOutputs;
    auto run_widened = [&](int64_t c) {
      thread_local std::vector<float> widened;
      widened.resize(static_cast<size_t>(kWidenedOutputs * lda));
      const int64_t n0 = c * kWidenedOutputs, n1 = std::min(n_, n0 + kWidenedOutputs);
      if (bits_ == 4) {
        WidenedRange<4>(q_, blob_, block_, blocks_, k_, scales_.data(), zero_points_.data(), rows, lda, m, n0, n1, y,
                        n_, bias, widened.data());
      } else {
        WidenedRange<8>(q_, blob_, block_, blocks_, k_, scales_.data(), zero_points_.data(), rows, lda, m, n0, n1, y,
                        n_, bias, widened.data());
      }
    };
    RunTasks(wchunks, threads, run_widened);
    return;
  }
  sums.resize(static_cast<size_t>(m * blocks_));
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t b = 0; b < blocks_; ++b) {
      const int64_t k0 = b * block_, k1 = std::min(k_, k0 + block_);
      float s = 0.0f;
      for (int64_t kk = k0; kk < k1; ++kk) s += a[r * k_ + kk];
      sums[static_cast<size_t>(r * blocks_ + b)] = s;
    }
  }
  // Chunks of outputs: multiples of 4 (outputs are computed 4 or 2 at a time), about 4 chunks per thread.
  const int64_t chunk = std::max<int64_t>(4, (n_ / std::max(1, threads) / 4 + 3) / 4 * 4);
  const int64_t chunks = (n_ + chunk - 1) / chunk;
  const float* asum = sums.data();
  auto run_chunk = [&](int64_t c) {
    const int64_t n0 = c * chunk, n1 = std::min(n_, n0 + chunk);
    // Common block sizes with their group loop unrolled.
    auto range = [&](auto bits, auto groups) {
      OutputRange<decltype(bits)::value, decltype(groups)::value>(q_, blob_, block_, blocks_, k_, scales_.data(),
                                                                  scaled_zeros_.data(), rows, lda, asum, m, n0, n1, y,
                                                                  n_, bias);
    };
    auto by_block = [&](auto bits) {
      switch (block_ / kGroup) {
        case 2:
          return range(bits, std::integral_constant<int, 2>{});
        case 4:
          return range(bits, std::integral_constant<int, 4>{});
        case 8:
          return range(bits, std::integral_constant<int, 8>{});
        default:
          return range(bits, std::integral_constant<int, 0>{});
      }
    };
    if (bits_ == 4) {
      by_block(std::integral_constant<int, 4>{});
    } else {
      by_block(std::integral_constant<int, 8>{});
    }
  };
  RunTasks(chunks, threads, run_chunk);
}

}  // namespace onyx::kernels
