#include "kernels/winograd_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <memory>

#include "kernels/parallel_tasks.h"

namespace onyx::kernels {
namespace {

constexpr int64_t kLanes = 8;  // channels per vector: one AVX2 register (a block of 16 is two of them)

// The transform matrices: input B^T d B, weights G g G^T, output A^T m A (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015), from interpolation points 0, -1, 1 and infinity for F(2x2, 3x3) and 0, -1, 1,
// 1/2, -2 and infinity for F(4x4, 3x3). The latter are Barabasz, Anderson and Gregg's ("Error Analysis and Improving
// the Accuracy of Winograd Convolution", 2020) in place of the common 0, +-1, +-2: measured on ResNet-like data
// (64 channels, ReLU inputs) they halve the largest error (1.6e-4 against 3.4e-4 on outputs up to 100; direct
// summation in float 6e-5; F(2x2, 3x3) 2.6e-5). Only G is kept as numbers (the weights are transformed once, in
// double); B^T and A^T are spelled out as the additions below, which skip the zero and unit coefficients a matrix
// product would multiply by.
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kG4[6][3] = {{1, 0, 0},
                              {-1.0 / 3, 1.0 / 3, -1.0 / 3},
                              {1.0 / 3, 1.0 / 3, 1.0 / 3},
                              {-16.0 / 15, -8.0 / 15, -4.0 / 15},
                              {1.0 / 15, -2.0 / 15, 4.0 / 15},
                              {0, 0, 1}};

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// B^T d for one column d of a 4x4 (F(2x2)) or 6x6 (F(4x4)) input tile; `stride` apart in d and in r.
template <int kAlpha>
inline void InputTransform1d(const __m256* d, __m256* r, int stride) {
  if constexpr (kAlpha == 4) {
    r[0] = _mm256_sub_ps(d[0], d[2 * stride]);
    r[stride] = _mm256_add_ps(d[stride], d[2 * stride]);
    r[2 * stride] = _mm256_sub_ps(d[2 * stride], d[stride]);
    r[3 * stride] = _mm256_sub_ps(d[stride], d[3 * stride]);
  } else {
    const __m256 d0 = d[0], d1 = d[stride], d2 = d[2 * stride], d3 = d[3 * stride], d4 = d[4 * stride],
                 d5 = d[5 * stride];
    const __m256 half = _mm256_set1_ps(0.5f), three_halves = _mm256_set1_ps(1.5f), two = _mm256_set1_ps(2.0f),
                 five_halves = _mm256_set1_ps(2.5f);
    // r0 = d0 - 3/2 d1 - 2 d2 + 3/2 d3 + d4 = (d0 + d4) + 3/2 (d3 - d1) - 2 d2
    const __m256 f = _mm256_sub_ps(d3, d1);
    r[0] = _mm256_fnmadd_ps(two, d2, _mm256_fmadd_ps(three_halves, f, _mm256_add_ps(d0, d4)));
    // r1 = d1 - 5/2 d2 + 1/2 d3 + d4; r2 = -d1 + 1/2 d2 + 5/2 d3 + d4
    r[stride] = _mm256_fnmadd_ps(five_halves, d2, _mm256_fmadd_ps(half, d3, _mm256_add_ps(d1, d4)));
    r[2 * stride] = _mm256_fmadd_ps(five_halves, d3, _mm256_fmadd_ps(half, d2, _mm256_sub_ps(d4, d1)));
    // r3 = (d4 - d2) + 2 (d3 - d1); r4 = (d4 - d2) - 1/2 (d3 - d1)
    const __m256 e = _mm256_sub_ps(d4, d2);
    r[3 * stride] = _mm256_fmadd_ps(two, f, e);
    r[4 * stride] = _mm256_fnmadd_ps(half, f, e);
    // r5 = d1 - 3/2 d2 - 2 d3 + 3/2 d4 + d5 = (d1 + d5) + 3/2 (d4 - d2) - 2 d3
    r[5 * stride] = _mm256_fnmadd_ps(two, d3, _mm256_fmadd_ps(three_halves, e, _mm256_add_ps(d1, d5)));
  }
}

// A^T m for one column m of a transformed tile: kAlpha - 2 outputs, `stride` apart in m and in o.
template <int kAlpha>
inline void OutputTransform1d(const __m256* m, __m256* o, int stride) {
  if constexpr (kAlpha == 4) {
    const __m256 m1 = m[stride], m2 = m[2 * stride];
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], m1), m2);
    o[stride] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m[3 * stride]);
  } else {
    // o0 = m0 + m1 + m2 + m3 + m4, o1 = -m1 + m2 + m3 / 2 - 2 m4, o2 = m1 + m2 + m3 / 4 + 4 m4,
    // o3 = -m1 + m2 + m3 / 8 - 8 m4 + m5
    const __m256 m3 = m[3 * stride], m4 = m[4 * stride];
    const __m256 a = _mm256_add_ps(m[2 * stride], m[stride]), b = _mm256_sub_ps(m[2 * stride], m[stride]);
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], a), _mm256_add_ps(m3, m4));
    o[stride] = _mm256_fnmadd_ps(_mm256_set1_ps(2.0f), m4, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), m3, b));
    o[2 * stride] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), m4, _mm256_fmadd_ps(_mm256_set1_ps(0.25f), m3, a));
    o[3 * stride] = _mm256_add_ps(
        _mm256_fnmadd_ps(_mm256_set1_ps(8.0f), m4, _mm256_fmadd_ps(_mm256_set1_ps(0.125f), m3, b)), m[5 * stride]);
  }
}

// One tile of 8 input channels, B^T d B, into its kAlpha^2 positions of V ([position][tiles][channels]).
template <int kAlpha>
void TransformInputTile(const float* plane, int64_t block, int64_t height, int64_t width, int64_t y0, int64_t x0,
                        float* v, int64_t position_stride) {
  __m256 d[kAlpha * kAlpha];
  const bool inside = y0 >= 0 && x0 >= 0 && y0 + kAlpha <= height && x0 + kAlpha <= width;
  for (int i = 0; i < kAlpha; ++i) {
    const int64_t y = y0 + i;
    for (int j = 0; j < kAlpha; ++j) {
      const int64_t x = x0 + j;
      d[i * kAlpha + j] = inside || (y >= 0 && y < height && x >= 0 && x < width)
                              ? _mm256_loadu_ps(plane + (y * width + x) * block)
                              : _mm256_setzero_ps();
    }
  }
  __m256 t[kAlpha * kAlpha];
  for (int j = 0; j < kAlpha; ++j) InputTransform1d<kAlpha>(d + j, t + j, kAlpha);               // columns
  for (int i = 0; i < kAlpha; ++i) InputTransform1d<kAlpha>(t + i * kAlpha, d + i * kAlpha, 1);  // rows
  for (int p = 0; p < kAlpha * kAlpha; ++p) _mm256_storeu_ps(v + p * position_stride, d[p]);
}

// One tile of 8 output channels: A^T m A from the GEMMs' results, then bias, residual and activation, stored where
// inside the output.
template <int kAlpha>
void TransformOutputTile(const float* m, int64_t position_stride, const float* bias, const ConvEpilogue& e,
                         float* plane, int64_t block, int64_t out_height, int64_t out_width, int64_t y0, int64_t x0) {
  constexpr int kTile = kAlpha - 2;
  __m256 s[kAlpha * kAlpha];
  for (int p = 0; p < kAlpha * kAlpha; ++p) s[p] = _mm256_loadu_ps(m + p * position_stride);
  __m256 t[kTile * kAlpha];
  for (int j = 0; j < kAlpha; ++j) OutputTransform1d<kAlpha>(s + j, t + j, kAlpha);  // columns
  __m256 y[kTile * kTile];
  for (int i = 0; i < kTile; ++i) OutputTransform1d<kAlpha>(t + i * kAlpha, y + i * kTile, 1);  // rows
  const __m256 b = _mm256_loadu_ps(bias);
  for (int i = 0; i < kTile; ++i) {
    if (y0 + i >= out_height) break;
    for (int j = 0; j < kTile; ++j) {
      if (x0 + j >= out_width) break;
      StoreWithEpilogue(y[i * kTile + j], b, e, plane + ((y0 + i) * out_width + x0 + j) * block);
    }
  }
}

// How Run walks the tiles. Whole: each stage over every tile, spread over the threads stage by stage (positions x
// tiles x channels of transformed data in between). Chunked: each thread takes chunks of tiles through all three
// stages at once, so that a chunk's transformed data stays in the core's L2; each chunk reads every position's
// weights again, so only while those stay in cache.
struct TilePlan {
  int64_t tiles = 0;   // in all
  int64_t chunk = 0;   // tiles per chunk; 0: whole
  int64_t chunks = 0;  // in all
  int64_t slots = 1;   // scratch areas (one per thread taking chunks)
};

// Transformed data of one chunk: about 256 KB, half of a 512 KB L2 (the smallest of current x86 server cores; Intel
// client cores have 256 KB-2 MB); at most this many bytes of transformed weights are read again per chunk; and
// fewer tiles than kMinChunk make the GEMMs' row tiles short.
constexpr int64_t kChunkBytes = 256 << 10;
constexpr int64_t kMaxChunkedWeightBytes = 1 << 20;
constexpr int64_t kMinChunk = 12;
// Transformed data of all tiles at once is capped (a 512x512 map of 256 channels would need 1.2 GB in F(4x4)):
// past this, chunks as large as the cap allows per thread, which read the weights again per thousands of tiles.
constexpr int64_t kMaxScratchBytes = int64_t{32} << 20;

TilePlan PlanTiles(const WinogradConvShape& s, int tile, int threads) {
  const int64_t positions = (tile + 2) * (tile + 2);
  TilePlan plan;
  plan.tiles = s.batch * ((s.out_height + tile - 1) / tile) * ((s.out_width + tile - 1) / tile);
  const int64_t per_tile_bytes = positions * (s.in_channels + s.out_channels) * 4;
  const int64_t weight_bytes = positions * s.in_channels * s.out_channels * 4;
  int64_t chunk = kChunkBytes / per_tile_bytes;
  if (weight_bytes > kMaxChunkedWeightBytes || chunk < kMinChunk || plan.tiles < 2 * chunk) {
    if (plan.tiles * per_tile_bytes <= kMaxScratchBytes) return plan;  // whole
    chunk = std::max(kMinChunk, kMaxScratchBytes / (std::max(threads, 1) * per_tile_bytes));
  }
  plan.chunk = chunk;
  plan.chunks = (plan.tiles + chunk - 1) / chunk;
  plan.slots = std::clamp<int64_t>(threads, 1, plan.chunks);
  return plan;
}

int64_t PlanScratchFloats(const WinogradConvShape& s, int tile, const TilePlan& plan) {
  const int64_t positions = (tile + 2) * (tile + 2);
  const int64_t tiles = plan.chunk > 0 ? plan.chunk : plan.tiles;
  return plan.slots * positions * tiles * (s.in_channels + s.out_channels);
}

template <int kAlpha>
void RunTransforms(const WinogradConvShape& s, const TilePlan& plan, const std::vector<PackedSgemm>& gemms,
                   const float* bias, const ConvEpilogue& e, const float* src, float* dst, float* scratch,
                   int threads) {
  constexpr int kTile = kAlpha - 2;
  constexpr int kPositions = kAlpha * kAlpha;
  const int64_t tiles_w = (s.out_width + kTile - 1) / kTile;
  const int64_t tiles_per_image = (s.out_height + kTile - 1) / kTile * tiles_w;
  const int64_t c = s.in_channels, k = s.out_channels;
  // 8 channels at a time (one vector): group g is lanes g * 8 % block.. of block g * 8 / block.
  const int64_t b = s.block, c_blocks = c / kLanes, k_blocks = k / kLanes;
  // Tiles [t0, t0 + count) in and out of `v` ([position][count][c]) and `m` ([position][count][k]).
  // A tile's image and first output row and column.
  struct Origin {
    int64_t n, y, x;
  };
  auto origin = [&](int64_t tile) {
    return Origin{tile / tiles_per_image, tile % tiles_per_image / tiles_w * kTile, tile % tiles_w * kTile};
  };
  // Where group g of image n starts in a blocked tensor of `channels` x `pixels`.
  auto group_offset = [&](int64_t n, int64_t g, int64_t channels, int64_t pixels) {
    return (n * (channels / b) + g * kLanes / b) * pixels * b + g * kLanes % b;
  };
  auto input = [&](int64_t tile, int64_t cb, int64_t t0, int64_t count, float* v) {
    const Origin o = origin(tile);
    TransformInputTile<kAlpha>(src + group_offset(o.n, cb, c, s.height * s.width), b, s.height, s.width,
                               o.y - s.pad_top, o.x - s.pad_left, v + (tile - t0) * c + cb * kLanes, count * c);
  };
  auto output = [&](int64_t tile, int64_t kb, int64_t t0, int64_t count, const float* m) {
    const Origin o = origin(tile);
    TransformOutputTile<kAlpha>(m + (tile - t0) * k + kb * kLanes, count * k, bias + kb * kLanes, e,
                                dst + group_offset(o.n, kb, k, s.out_height * s.out_width), b, s.out_height,
                                s.out_width, o.y, o.x);
  };
  if (plan.chunk == 0) {
    const int64_t tiles = plan.tiles;
    float* v = scratch;
    float* m = scratch + kPositions * tiles * c;
    RunTasks(tiles * c_blocks, threads, [&](int64_t task) { input(task / c_blocks, task % c_blocks, 0, tiles, v); });
    RunTasks(kPositions, threads,
             [&](int64_t p) { gemms[p].Run(tiles, v + p * tiles * c, m + p * tiles * k, /*threads=*/1); });
    RunTasks(tiles * k_blocks, threads, [&](int64_t task) { output(task / k_blocks, task % k_blocks, 0, tiles, m); });
    return;
  }
  // Each thread takes chunks (a contiguous range first, then others' left over) through its own slot of scratch.
  const int64_t slot_floats = kPositions * plan.chunk * (c + k);
  RunTasks(plan.chunks, static_cast<int>(plan.slots), [&](int64_t chunk, int slot) {
    float* v = scratch + slot * slot_floats;
    float* m = v + kPositions * plan.chunk * c;
    const int64_t t0 = chunk * plan.chunk, count = std::min(plan.chunk, plan.tiles - t0);
    for (int64_t tile = t0; tile < t0 + count; ++tile) {
      for (int64_t cb = 0; cb < c_blocks; ++cb) input(tile, cb, t0, count, v);
    }
    for (int p = 0; p < kPositions; ++p) gemms[p].Run(count, v + p * count * c, m + p * count * k, 1);
    for (int64_t tile = t0; tile < t0 + count; ++tile) {
      for (int64_t kb = 0; kb < k_blocks; ++kb) output(tile, kb, t0, count, m);
    }
  });
}

#pragma GCC pop_options

// Output channels transformed together: the loops over them vectorize, and each position's row of the transformed
// weights receives a whole cache line at a time.
constexpr int64_t kFilterGroup = 16;

// The weight transform runs where the convolution does (WinogradConv::Supported: AVX2 + FMA), in 4-double vectors:
// a 512x512 layer's 262,144 filters took ~27 ms at 1 thread in SSE2 code, most of a first run's time there.
#pragma GCC push_options
#pragma GCC target("avx2,fma")

// G g G^T of `count` <= kFilterGroup 3x3 filters, filter o at weights + o * stride (row-major, 9 floats), into
// u[position][o], in double.
template <int kAlpha>
void TransformFilters(const double (&g_matrix)[kAlpha][3], const float* weights, int64_t stride, int64_t count,
                      double (&u)[kAlpha * kAlpha][kFilterGroup]) {
  double g[9][kFilterGroup];
  for (int64_t o = 0; o < count; ++o) {
    for (int t = 0; t < 9; ++t) g[t][o] = weights[o * stride + t];
  }
  for (int64_t o = count; o < kFilterGroup; ++o) {
    for (int t = 0; t < 9; ++t) g[t][o] = 0.0;
  }
  double gg[kAlpha][3][kFilterGroup];
  for (int i = 0; i < kAlpha; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int64_t o = 0; o < kFilterGroup; ++o) {
        gg[i][j][o] = g_matrix[i][0] * g[j][o] + g_matrix[i][1] * g[3 + j][o] + g_matrix[i][2] * g[6 + j][o];
      }
    }
  }
  for (int i = 0; i < kAlpha; ++i) {
    for (int j = 0; j < kAlpha; ++j) {
      for (int64_t o = 0; o < kFilterGroup; ++o) {
        u[i * kAlpha + j][o] =
            gg[i][0][o] * g_matrix[j][0] + gg[i][1][o] * g_matrix[j][1] + gg[i][2][o] * g_matrix[j][2];
      }
    }
  }
}

// Row `i` (input channel i) of every position's transformed weights: rows[position][o] for all k output channels.
template <int kAlpha>
void TransformWeightRow(const double (&g_matrix)[kAlpha][3], const float* weights, int64_t c, int64_t k, int64_t i,
                        float* rows) {
  double filters[kAlpha * kAlpha][kFilterGroup];
  for (int64_t o0 = 0; o0 < k; o0 += kFilterGroup) {
    const int64_t count = std::min(kFilterGroup, k - o0);
    TransformFilters<kAlpha>(g_matrix, weights + (o0 * c + i) * 9, c * 9, count, filters);
    for (int p = 0; p < kAlpha * kAlpha; ++p) {
      for (int64_t o = 0; o < count; ++o) rows[p * k + o0 + o] = static_cast<float>(filters[p][o]);
    }
  }
}

#pragma GCC pop_options

}  // namespace

bool WinogradConv::Supported(const WinogradConvShape& s) {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && s.batch >= 1 && s.in_channels > 0 &&
         s.out_channels > 0 && (s.block == 8 || s.block == 16) && s.in_channels % s.block == 0 &&
         s.out_channels % s.block == 0 && s.out_height > 0 && s.out_width > 0 && s.height > 0 && s.width > 0 &&
         s.pad_top >= 0 && s.pad_left >= 0 && s.out_height + 2 - s.pad_top >= s.height &&
         s.out_width + 2 - s.pad_left >= s.width;
}

WinogradConv::WinogradConv(int tile, int64_t in_channels, int64_t out_channels, const float* weights, const float* bias,
                           const ConvEpilogue& epilogue, int threads)
    : tile_(tile == 2 ? 2 : 4),
      alpha_(tile_ + 2),
      in_channels_(in_channels),
      out_channels_(out_channels),
      bias_(static_cast<size_t>(out_channels), 0.0f),
      epilogue_(epilogue) {
  const int64_t c = in_channels, k = out_channels;
  const int positions = alpha_ * alpha_;
  // Each position's [c, k] matrix, transformed in double and rounded once, written row by row (input channel by
  // input channel) straight into its packed product, over `threads` threads.
  gemms_.reserve(static_cast<size_t>(positions));
  for (int p = 0; p < positions; ++p) {
    gemms_.emplace_back(PackedSgemm::RowsLater{}, c, k, nullptr, MatMulActivation::kNone);
  }
  const int64_t row_tasks = std::min<int64_t>(c, std::max(threads, 1));
  RunTasks(row_tasks, threads, [&](int64_t task) {
    std::vector<float> rows(static_cast<size_t>(positions * k));
    for (int64_t i = task * c / row_tasks; i < (task + 1) * c / row_tasks; ++i) {
      if (tile_ == 2) {
        TransformWeightRow<4>(kG2, weights, c, k, i, rows.data());
      } else {
        TransformWeightRow<6>(kG4, weights, c, k, i, rows.data());
      }
      for (int p = 0; p < positions; ++p) gemms_[p].SetRow(i, rows.data() + p * k);
    }
  });
  if (bias != nullptr) std::copy_n(bias, k, bias_.begin());
}

int64_t WinogradConv::ScratchFloats(const WinogradConvShape& shape, int threads) const {
  return PlanScratchFloats(shape, tile_, PlanTiles(shape, tile_, threads));
}

void WinogradConv::Run(const WinogradConvShape& shape, const float* src, float* dst, float* scratch,
                       int threads) const {
  const TilePlan plan = PlanTiles(shape, tile_, threads);
  if (tile_ == 2) {
    RunTransforms<4>(shape, plan, gemms_, bias_.data(), epilogue_, src, dst, scratch, threads);
  } else {
    RunTransforms<6>(shape, plan, gemms_, bias_.data(), epilogue_, src, dst, scratch, threads);
  }
}

}  // namespace onyx::kernels
