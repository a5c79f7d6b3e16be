// Unit tests of quantize/histogram.h: the streaming |x| histogram (exact re-binning when the range grows, memory
// independent of the number of samples) and the calibration thresholds on known distributions (percentiles of
// uniform and normal data, entropy against outliers and on uniform data).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "quantize/histogram.h"

namespace onyx::quantize {
namespace {

std::vector<float> Normal(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<float> Uniform(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

int64_t Total(const HistogramObserver& h) { return std::accumulate(h.bins().begin(), h.bins().end(), int64_t{0}); }

TEST(QuantizeHistogram, MemoryDoesNotGrowWithSamples) {
  HistogramObserver few(2048), many(2048);
  for (unsigned i = 0; i < 10; ++i) few.Observe(Normal(1000, i));
  for (unsigned i = 0; i < 200; ++i) many.Observe(Normal(1000, i));
  EXPECT_EQ(few.MemoryBytes(), many.MemoryBytes());
  EXPECT_EQ(many.bins().size(), 2048u);
  EXPECT_EQ(few.count(), 10000);
  EXPECT_EQ(many.count(), 200000);
  EXPECT_EQ(Total(many), 200000);
}

TEST(QuantizeHistogram, GrowingRangeRebinsExactly) {
  HistogramObserver h(1024);
  h.Observe(Uniform(5000, 0.0f, 1.0f, 1));
  const double w0 = h.bin_width();
  h.Observe(std::vector<float>{-3.9f});  // needs the width doubled twice
  EXPECT_DOUBLE_EQ(h.bin_width(), 4 * w0);
  EXPECT_EQ(Total(h), 5001);
  // All of the first 5000 values lie below 1, i.e. within the first ceil(1 / width) bins.
  const size_t limit = static_cast<size_t>(std::ceil(1.0 / h.bin_width()));
  int64_t low = 0;
  for (size_t i = 0; i <= limit && i < h.bins().size(); ++i) low += h.bins()[i];
  EXPECT_EQ(low, 5000);
  EXPECT_FLOAT_EQ(h.min(), -3.9f);
  EXPECT_LT(h.max(), 1.0f);
}

TEST(QuantizeHistogram, ZerosBeforeAnyNonzeroValueStayCounted) {
  HistogramObserver h(256);
  h.Observe(std::vector<float>(100, 0.0f));
  h.Observe(std::vector<float>{1.0f, NAN});
  EXPECT_EQ(h.count(), 101);
  EXPECT_EQ(h.bins()[0], 100);
  EXPECT_EQ(Total(h), 101);
}

TEST(QuantizeHistogram, MinMaxIsExact) {
  HistogramObserver h;
  h.Observe(std::vector<float>{-0.25f, 3.0f, 1.0f});
  h.Observe(std::vector<float>{7.5f});
  auto [lo, hi] = h.Range(CalibrationMethod::kMinMax, 99.9);
  EXPECT_EQ(lo, -0.25f);
  EXPECT_EQ(hi, 7.5f);
}

TEST(QuantizeHistogram, PercentileOfUniform) {
  HistogramObserver h(2048);
  for (unsigned i = 0; i < 20; ++i) h.Observe(Uniform(10000, 0.0f, 1.0f, i));
  EXPECT_NEAR(h.PercentileThreshold(99.0), 0.99, 0.005);
  EXPECT_NEAR(h.PercentileThreshold(50.0), 0.50, 0.005);
  auto [lo, hi] = h.Range(CalibrationMethod::kPercentile, 90.0);
  EXPECT_GE(lo, 0.0f);  // never below the observed minimum
  EXPECT_NEAR(hi, 0.90, 0.005);
}

TEST(QuantizeHistogram, PercentileOfNormalIsTwoSided) {
  HistogramObserver h(2048);
  for (unsigned i = 0; i < 20; ++i) h.Observe(Normal(10000, 100 + i));
  // P(|x| <= 3) = 99.73% and P(|x| <= 1.96) = 95% for a standard normal.
  EXPECT_NEAR(h.PercentileThreshold(99.73), 3.0, 0.08);
  EXPECT_NEAR(h.PercentileThreshold(95.0), 1.96, 0.03);
  auto [lo, hi] = h.Range(CalibrationMethod::kPercentile, 95.0);
  EXPECT_NEAR(lo, -1.96, 0.03);
  EXPECT_NEAR(hi, 1.96, 0.03);
}

TEST(QuantizeHistogram, EntropyClipsOutliers) {
  HistogramObserver h(2048);
  for (unsigned i = 0; i < 20; ++i) h.Observe(Normal(10000, 200 + i));
  h.Observe(std::vector<float>{60.0f});  // one far outlier stretches min/max
  const float t = h.EntropyThreshold(128);
  EXPECT_GT(t, 2.0f);   // keeps the body of the distribution
  EXPECT_LT(t, 10.0f);  // and drops the outlier that min/max would keep
  auto [lo, hi] = h.Range(CalibrationMethod::kEntropy, 0);
  EXPECT_LT(hi, 10.0f);
  EXPECT_GT(lo, -10.0f);
  EXPECT_EQ(h.Range(CalibrationMethod::kMinMax, 0).second, 60.0f);
}

TEST(QuantizeHistogram, EntropyKeepsUniformRange) {
  // Clipping a uniform distribution only loses information: the threshold stays near the maximum.
  HistogramObserver h(2048);
  for (unsigned i = 0; i < 10; ++i) h.Observe(Uniform(20000, -1.0f, 1.0f, 300 + i));
  EXPECT_GT(h.EntropyThreshold(128), 0.9f);
}

TEST(QuantizeHistogram, EmptyObserver) {
  HistogramObserver h;
  EXPECT_EQ(h.count(), 0);
  auto [lo, hi] = h.Range(CalibrationMethod::kEntropy, 0);
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 0.0f);
  EXPECT_EQ(h.PercentileThreshold(99), 0.0f);
}

}  // namespace
}  // namespace onyx::quantize
