// kernels::SumPixelsChannelsLast and kernels::MaxPoolRow (kernels/int8_pool.h) on every Highway target this CPU
// runs, against the plain loops: uint8 and int8 (negative values), channel counts around the vector block sizes, one
// pixel to many, windows of no tap to many.
#include "kernels/int8_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "hwy_test_targets.h"

namespace onyx {
namespace {

template <typename Q>
void Check() {
  std::mt19937 rng(3);
  for (int64_t target : HwyTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    for (int64_t channels : {1, 3, 15, 16, 17, 63, 64, 65, 80, 129, 1000}) {
      for (int64_t pixels : {1, 7, 49, 300}) {
        std::vector<Q> x(static_cast<size_t>(channels * pixels));
        for (Q& v : x) v = static_cast<Q>(rng());
        if (pixels == 300) {  // extremes everywhere: the largest sums of either sign
          for (size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? static_cast<Q>(-128) : static_cast<Q>(255);
        }
        std::vector<int32_t> sums(static_cast<size_t>(channels), 12345);
        kernels::SumPixelsChannelsLast(x.data(), pixels, channels, sums.data());
        int64_t wrong = 0;
        for (int64_t k = 0; k < channels; ++k) {
          int32_t expected = 0;
          for (int64_t p = 0; p < pixels; ++p) expected += x[static_cast<size_t>(p * channels + k)];
          wrong += sums[static_cast<size_t>(k)] != expected;
        }
        EXPECT_EQ(wrong, 0) << "channels " << channels << " pixels " << pixels;
      }
    }
  }
}

TEST(Int8PoolTest, SumPixelsChannelsLastUint8) { Check<uint8_t>(); }
TEST(Int8PoolTest, SumPixelsChannelsLastInt8) { Check<int8_t>(); }

template <typename Q>
void CheckMax() {
  std::mt19937 rng(5);
  const int64_t pixels_in = 40, out_pixels = 23, max_taps = 9;
  for (int64_t target : HwyTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    HwyTargetMock mock(target);
    for (int64_t channels : {1, 3, 15, 16, 17, 64, 65, 130, 257}) {
      std::vector<Q> x(static_cast<size_t>(pixels_in * channels));
      for (Q& v : x) v = static_cast<Q>(rng());
      std::vector<int64_t> offsets(static_cast<size_t>(out_pixels * max_taps));
      std::vector<int32_t> counts(static_cast<size_t>(out_pixels));
      for (int64_t o = 0; o < out_pixels; ++o) {
        counts[static_cast<size_t>(o)] = static_cast<int32_t>(o % (max_taps + 1));  // 0 (no tap) to max_taps
        for (int64_t t = 0; t < max_taps; ++t) {
          offsets[static_cast<size_t>(o * max_taps + t)] = static_cast<int64_t>(rng() % pixels_in) * channels;
        }
      }
      std::vector<Q> y(static_cast<size_t>(out_pixels * channels), static_cast<Q>(42));
      kernels::MaxPoolRow(x.data(), offsets.data(), counts.data(), max_taps, out_pixels, channels, y.data());
      int64_t wrong = 0;
      for (int64_t o = 0; o < out_pixels; ++o) {
        for (int64_t k = 0; k < channels; ++k) {
          Q expected = std::numeric_limits<Q>::lowest();
          for (int32_t t = 0; t < counts[static_cast<size_t>(o)]; ++t) {
            expected = std::max(expected, x[static_cast<size_t>(offsets[static_cast<size_t>(o * max_taps + t)] + k)]);
          }
          wrong += y[static_cast<size_t>(o * channels + k)] != expected;
        }
      }
      EXPECT_EQ(wrong, 0) << "channels " << channels;
    }
  }
}

TEST(Int8PoolTest, MaxPoolRowUint8) { CheckMax<uint8_t>(); }
TEST(Int8PoolTest, MaxPoolRowInt8) { CheckMax<int8_t>(); }

}  // namespace
}  // namespace onyx
