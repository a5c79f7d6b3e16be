// The FP32 peak of this CPU per core, per vector ISA: a loop of independent fused multiply-adds (enough chains to
// cover the FMA latency on every FMA port), timed on 1 thread and on every thread at once. bench/compare.py reads
// the result (bench/fma_peak.sh compiles and runs this, caching the JSON) for its "% of peak" column.
// Prints one JSON line: {"avx512": {"1": GFLOP/s, "all": GFLOP/s per core, "threads": N}, "avx2": {...}}; an ISA
// the CPU lacks is left out. On CPUs with AVX-512 VNNI it adds "avx512_vnni": the int8 peak (u8 x s8 products
// accumulated in int32 by vpdpbusd, a multiply-add counted as 2 ops), in GOP/s: the ceiling for int8 convolutions.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kChains = 12;  // >= latency (4) x ports (2) on recent x86 cores, and fits 16 vector registers
constexpr long kIterations = 200'000'000 / kChains;

// Each returns the sum of its accumulators so that nothing is optimized away; flops = 2 x lanes x chains x iterations.
__attribute__((target("avx512f"))) float Avx512Loop(long iterations) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) float Avx2Loop(long iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float s = 0;
  for (float v : lanes) s += v;
  return s;
}

// 64 multiply-adds per instruction (16 int32 lanes x 4 byte pairs); ops = 2 x 64 x chains x iterations. Written as
// one block of instructions on 12 fixed registers: GCC 12 compiles the intrinsic here with two register copies per
// multiply-add, and an accumulator array with memory round trips.
__attribute__((target("avx512f,avx512vnni"))) float VnniLoop(long iterations) {
  static_assert(kChains == 12, "the block below names 12 accumulators");
  int32_t out[16];
  asm volatile(
      "vpternlogd $0xff, %%zmm0, %%zmm0, %%zmm0\n\t"  // all ones: u8 255 and s8 -1
      "vmovdqa64 %%zmm0, %%zmm1\n\t"
      "vpxord %%zmm4, %%zmm4, %%zmm4\n\t vpxord %%zmm5, %%zmm5, %%zmm5\n\t vpxord %%zmm6, %%zmm6, %%zmm6\n\t"
      "vpxord %%zmm7, %%zmm7, %%zmm7\n\t vpxord %%zmm8, %%zmm8, %%zmm8\n\t vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
      "vpxord %%zmm10, %%zmm10, %%zmm10\n\t vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
      "vpxord %%zmm12, %%zmm12, %%zmm12\n\t vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
      "vpxord %%zmm14, %%zmm14, %%zmm14\n\t vpxord %%zmm15, %%zmm15, %%zmm15\n\t"
      "1:\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm4\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm5\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm6\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm7\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm8\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm9\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm10\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm11\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm12\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm13\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm14\n\t vpdpbusd %%zmm1, %%zmm0, %%zmm15\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vpaddd %%zmm4, %%zmm15, %%zmm15\n\t"
      "vmovdqu32 %%zmm15, %[out]\n\t"
      : [n] "+r"(iterations), [out] "=m"(out)
      :
      : "xmm0", "xmm1", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
        "xmm15", "cc");
  return static_cast<float>(out[0]);
}

// GFLOP/s per core of `loop` run on `threads` threads at once (best of 3, after a warm-up that lets the clock settle).
double PerCoreGflops(float (*loop)(long), int lanes, int threads) {
  double best = 0;
  for (int round = 0; round < 4; ++round) {
    std::vector<float> sink(threads);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[t] = loop(kIterations); });
    for (auto& th : pool) th.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sink[0] == 12345.0f) std::printf(" ");  // keep the results alive
    const double flops = 2.0 * lanes * kChains * static_cast<double>(kIterations);
    if (round > 0) best = std::max(best, flops / seconds / 1e9);
  }
  return best;
}

}  // namespace

int main() {
  const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string json = "{";
  auto add = [&](const char* name, float (*loop)(long), int lanes) {
    const double one = PerCoreGflops(loop, lanes, 1);
    const double every = PerCoreGflops(loop, lanes, all);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%s\": {\"1\": %.1f, \"all\": %.1f, \"threads\": %d}",
                  json.size() > 1 ? ", " : "", name, one, every, all);
    json += buf;
  };
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) add("avx512", Avx512Loop, 16);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) add("avx2", Avx2Loop, 8);
  // A vpdpbusd's 64 multiply-adds count as a 64-lane FMA in PerCoreGflops.
  if (__builtin_cpu_supports("avx512vnni")) add("avx512_vnni", VnniLoop, 64);
  std::printf("%s}\n", json.c_str());
  return 0;
}
