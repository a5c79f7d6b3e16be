#include "quantize/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onyx::quantize {

HistogramObserver::HistogramObserver(int num_bins) : bins_(static_cast<size_t>(std::max(num_bins / 2, 8) * 2), 0) {}

void HistogramObserver::Observe(std::span<const float> values) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo, absmax = 0;
  int64_t n = 0;
  for (float v : values) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    absmax = std::max(absmax, std::fabs(v));
    ++n;
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
  for (float v : values) {
    if (std::isnan(v)) continue;
    const double a = std::fabs(static_cast<double>(v));
    size_t b = width_ > 0 ? static_cast<size_t>(std::min(a / width_, static_cast<double>(nb - 1))) : 0;
    ++bins_[b];
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
