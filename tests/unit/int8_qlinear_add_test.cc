// kernels/int8_qlinear_add.h's vector loops (AVX-512 where the CPU has it, AVX2 + FMA under ONYX_MAX_ISA=avx2, the
// unit_avx2 run) against the formula the header states, evaluated one element at a time: every length from 0 to 70
// (full vectors and every tail), both 8-bit types, random parameters, saturation at both ends.
#include "kernels/int8_qlinear_add.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace onyx::kernels {
namespace {

template <typename Q>
Q Expected(Q a, Q b, const QLinearAddParams& p) {
  const float t = std::fma(static_cast<float>(a), p.ratio_a, std::fma(static_cast<float>(b), p.ratio_b, p.fixed));
  const float r = std::nearbyint(t);  // round half to even (the default rounding mode)
  constexpr float lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(r < lo ? lo : r > hi ? hi : r);
}

template <typename Q>
void CheckRandom(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> scale(0.002f, 0.2f);
  std::uniform_int_distribution<int> value(std::numeric_limits<Q>::lowest(), std::numeric_limits<Q>::max());
  for (int trial = 0; trial < 20; ++trial) {
    const QLinearAddParams p =
        MakeQLinearAddParams(scale(rng), value(rng), scale(rng), value(rng), scale(rng), value(rng));
    for (int64_t n = 0; n <= 70; ++n) {
      std::vector<Q> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), out(static_cast<size_t>(n) + 1, Q{7});
      for (auto& v : a) v = static_cast<Q>(value(rng));
      for (auto& v : b) v = static_cast<Q>(value(rng));
      QLinearAddSpans(a.data(), b.data(), n, p, out.data());
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(int{out[i]}, int{Expected(a[i], b[i], p)}) << "spans, n " << n << " at " << i;
      }
      EXPECT_EQ(int{out[static_cast<size_t>(n)]}, 7) << "wrote past n " << n;
      const Q scalar = static_cast<Q>(value(rng));
      QLinearAddScalar(a.data(), scalar, n, p, out.data());
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(int{out[i]}, int{Expected(a[i], scalar, p)}) << "scalar, n " << n << " at " << i;
      }
    }
  }
}

TEST(Int8QLinearAdd, VectorLoopsMatchTheFormulaUint8) { CheckRandom<uint8_t>(1); }
TEST(Int8QLinearAdd, VectorLoopsMatchTheFormulaInt8) { CheckRandom<int8_t>(2); }

TEST(Int8QLinearAdd, TiesRoundToEven) {
  // Ratios 1/2 (a_scale = b_scale = c_scale / 2), zero points 0: a + b odd lands on x.5.
  const QLinearAddParams p = MakeQLinearAddParams(0.5f, 0, 0.5f, 0, 1.0f, 0);
  std::vector<uint8_t> a(40), b(40), out(40);
  for (int i = 0; i < 40; ++i) a[i] = static_cast<uint8_t>(i), b[i] = static_cast<uint8_t>(2 * i + 1);
  QLinearAddSpans(a.data(), b.data(), 40, p, out.data());
  for (int i = 0; i < 40; ++i) {
    const int sum = 3 * i + 1;  // (a + b) / 2 = sum / 2
    const int expected = sum % 2 == 0 ? sum / 2 : ((sum / 2) % 2 == 0 ? sum / 2 : sum / 2 + 1);
    EXPECT_EQ(out[i], expected) << i;
  }
}

}  // namespace
}  // namespace onyx::kernels
