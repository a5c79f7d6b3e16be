#include "ops/random/numpy_random.h"

#include <algorithm>
#include <cmath>

namespace onyx::ops::random {

double NumpyRandom::Uniform() {
  const uint32_t a = static_cast<uint32_t>(mt_()) >> 5;
  const uint32_t b = static_cast<uint32_t>(mt_()) >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double NumpyRandom::Gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * Uniform() - 1.0;
    x2 = 2.0 * Uniform() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

int NumpyRandom::Bernoulli(double p) {
  // numpy's inversion algorithm for binomial(n, p) with n = 1, run on min(p, 1 - p) and mirrored for p > 0.5.
  // Every call consumes at least one draw, even for p = 0 or 1, which keeps the stream aligned with numpy's.
  const bool flip = p > 0.5;
  const double pp = flip ? 1.0 - p : p;
  const double q = 1.0 - pp;
  const double qn = std::exp(std::log(q));
  const double np = pp;
  const double bound = std::min(1.0, np + 10.0 * std::sqrt(np * q + 1));
  int x = 0;
  double px = qn;
  double u = Uniform();
  while (u > px) {
    ++x;
    if (x > bound) {
      x = 0;
      px = qn;
      u = Uniform();
    } else {
      u -= px;
      px = ((1 - x + 1) * pp * px) / (x * q);
    }
  }
  return flip ? 1 - x : x;
}

void SeedSource::Init(const KernelInfo& info) {
  const float seed = info.GetFloat("seed", std::nanf(""));
  if (info.HasAttribute("seed") && !std::isnan(seed)) {
    seeded_ = true;
    // numpy takes int(seed) in [0, 2^32); other values wrap modulo 2^32 here instead of failing.
    const double truncated = std::trunc(static_cast<double>(seed));
    const double wrapped = truncated - 4294967296.0 * std::floor(truncated / 4294967296.0);
    seed_ = std::isfinite(wrapped) ? static_cast<uint32_t>(wrapped) : 0;
  } else {
    seeds_.seed(std::random_device{}());
  }
}

NumpyRandom SeedSource::Next() {
  if (seeded_) return NumpyRandom(seed_);
  std::lock_guard<std::mutex> lock(mu_);
  return NumpyRandom(static_cast<uint32_t>(seeds_()));
}

}  // namespace onyx::ops::random
