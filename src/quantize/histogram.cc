#include "quantize/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace onyx::quantize {

HistogramObserver::HistogramObserver(int num_bins) : bins_(static_cast<size_t>(std::max(num_bins / 2, 8) * 2), 0) {}

void HistogramObserver::Observe(std::span<const float> values) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo, absmax = 0;
  int64_t n = 0;
  // Branch-free, as a SIMD reduction: a NaN compares false everywhere, so it moves none of the three (min and max
  // are exact in any order; only which of -0 and +0 wins a tie may differ from a sequential scan).
  const float* data = values.data();
  const size_t size = values.size();
#pragma omp simd reduction(min : lo) reduction(max : hi, absmax) reduction(+ : n)
  for (size_t i = 0; i < size; ++i) {
    const float v = data[i];
    const float a = std::fabs(v);
    lo = v < lo ? v : lo;
    hi = hi < v ? v : hi;
    absmax = absmax < a ? a : absmax;
    n += v == v ? 1 : 0;
  }
  if (n == 0) return;
  min_ = count_ == 0 ? lo : std::min(min_, lo);
  max_ = count_ == 0 ? hi : std::max(max_, hi);
  count_ += n;
  const size_t nb = bins_.size();
  if (std::isinf(absmax)) absmax = std::numeric_limits<float>::max();
  if (width_ == 0 && absmax > 0) width_ = static_cast<double>(absmax) / static_cast<double>(nb);
  // Grow: each doubling of the width merges bins (2i, 2i+1) into bin i, so old counts stay exact.
  while (width_ > 0 && static_cast<double>(absmax) > width_ * static_cast<double>(nb)) {
    for (size_t i = 0; i < nb / 2; ++i) bins_[i] = bins_[2 * i] + bins_[2 * i + 1];
    std::fill(bins_.begin() + static_cast<std::ptrdiff_t>(nb / 2), bins_.end(), 0);
    width_ *= 2;
  }
  if (width_ == 0) {  // every value is 0
    bins_[0] += n;
    return;
  }
  // The bin of each value, a chunk at a time (a loop that only computes indices vectorizes), then counted. A
  // multiplication by 1 / width rather than a division (which would cost more than all the rest): a value within a
  // rounding of a bin edge may land in the bin on the other side, a difference the methods cannot tell from noise.
  // Calibration data piles into a few bins, and back-to-back increments of one counter wait on each other:
  // large inputs count into four interleaved histograms, summed at the end. NaNs go to a discarded extra bin.
  const double inverse_width = 1.0 / width_, last = static_cast<double>(nb - 1);
  const bool interleave = values.size() >= 8 * nb;
  thread_local std::vector<int64_t> ways;
  if (interleave) ways.assign(4 * (nb + 1), 0);
  constexpr size_t kChunk = 1024;
  alignas(64) int32_t index[kChunk];
  const int32_t discard = static_cast<int32_t>(nb);
  const double skip = static_cast<double>(nb);
  for (size_t begin = 0; begin < values.size(); begin += kChunk) {
    const size_t len = std::min(kChunk, values.size() - begin);
    const float* x = values.data() + begin;
#pragma omp simd
    for (size_t j = 0; j < len; ++j) {
      double q = static_cast<double>(std::fabs(x[j])) * inverse_width;
      q = q < last ? q : last;      // also a NaN's
      q = x[j] == x[j] ? q : skip;  // selects, not branches: the loop vectorizes
      index[j] = static_cast<int32_t>(q);
    }
    if (!interleave) {
      for (size_t j = 0; j < len; ++j) {
        if (index[j] != discard) ++bins_[index[j]];
      }
      continue;
    }
    int64_t* w0 = ways.data();
    int64_t* w1 = w0 + (nb + 1);
    int64_t* w2 = w1 + (nb + 1);
    int64_t* w3 = w2 + (nb + 1);
    size_t j = 0;
    for (; j + 4 <= len; j += 4) {
      ++w0[index[j]];
      ++w1[index[j + 1]];
      ++w2[index[j + 2]];
      ++w3[index[j + 3]];
    }
    for (; j < len; ++j) ++w0[index[j]];
  }
  if (interleave) {
    for (size_t b = 0; b < nb; ++b) {
      bins_[b] += ways[b] + ways[(nb + 1) + b] + ways[2 * (nb + 1) + b] + ways[3 * (nb + 1) + b];
    }
  }
}

float HistogramObserver::PercentileThreshold(double percentile) const {
  int64_t total = 0;
  for (int64_t c : bins_) total += c;
  if (total == 0 || width_ == 0) return 0;
  const double target = std::clamp(percentile, 0.0, 100.0) / 100.0 * static_cast<double>(total);
  int64_t cum = 0;
  for (size_t i = 0; i < bins_.size(); ++i) {
    cum += bins_[i];
    if (static_cast<double>(cum) >= target) {
      return static_cast<float>(
          std::min(width_ * static_cast<double>(i + 1), static_cast<double>(std::max(-min_, max_))));
    }
  }
  return std::max(-min_, max_);
}

float HistogramObserver::EntropyThreshold(int quantized_bins) const {
  const size_t nb = bins_.size();
  const size_t nq = static_cast<size_t>(std::max(quantized_bins, 2));
  const float absmax = std::max(-min(), max());
  if (width_ == 0 || nq >= nb) return absmax;
  // The highest nonempty bin: thresholds beyond it clip nothing.
  size_t last = nb;
  while (last > 0 && bins_[last - 1] == 0) --last;
  if (last <= nq) return absmax;
  double best_kl = std::numeric_limits<double>::infinity();
  size_t best = last;
  std::vector<double> p(nb), q(nb);
  double outliers = 0;
  for (size_t j = nq; j < nb; ++j) outliers += static_cast<double>(bins_[j]);
  for (size_t i = nq; i <= last; ++i) {
    // P: the first i bins, the clipped mass (everything at or beyond bin i) piled into the last one.
    for (size_t j = 0; j < i; ++j) p[j] = static_cast<double>(bins_[j]);
    p[i - 1] += outliers;
    if (i < nb) outliers -= static_cast<double>(bins_[i]);
    // Q: the first i bins (without the outliers) merged into nq levels, each level's mass spread evenly over the
    // bins of P it covers that are nonzero.
    const double per = static_cast<double>(i) / static_cast<double>(nq);
    for (size_t k = 0; k < nq; ++k) {
      const size_t start = static_cast<size_t>(std::floor(static_cast<double>(k) * per));
      const size_t end = k + 1 == nq ? i : static_cast<size_t>(std::floor(static_cast<double>(k + 1) * per));
      double mass = 0;
      size_t nonzero = 0;
      for (size_t j = start; j < end; ++j) {
        mass += static_cast<double>(bins_[j]);
        nonzero += p[j] > 0 ? 1 : 0;
      }
      for (size_t j = start; j < end; ++j) q[j] = p[j] > 0 && nonzero > 0 ? mass / static_cast<double>(nonzero) : 0;
    }
    double psum = 0, qsum = 0;
    for (size_t j = 0; j < i; ++j) {
      psum += p[j];
      qsum += q[j];
    }
    if (psum == 0 || qsum == 0) continue;
    double kl = 0;
    for (size_t j = 0; j < i; ++j) {
      if (p[j] <= 0) continue;
      const double pj = p[j] / psum;
      const double qj = std::max(q[j] / qsum, 1e-12);
      kl += pj * std::log(pj / qj);
    }
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  return static_cast<float>(std::min(width_ * static_cast<double>(best), static_cast<double>(absmax)));
}

std::pair<float, float> HistogramObserver::Range(CalibrationMethod method, double percentile) const {
  if (count_ == 0) return {0.0f, 0.0f};
  float t = 0;
  switch (method) {
    case CalibrationMethod::kMinMax:
      return {min_, max_};
    case CalibrationMethod::kPercentile:
      t = PercentileThreshold(percentile);
      break;
    // Asymmetric quantization spends all 255 steps on [0, t] when the tensor is never negative (Relu outputs),
    // about 128 on each side otherwise.
    case CalibrationMethod::kEntropy:
      t = EntropyThreshold(min_ >= 0 ? 255 : 128);
      break;
  }
  return {std::max(min_, -t), std::min(max_, t)};
}

}  // namespace onyx::quantize
