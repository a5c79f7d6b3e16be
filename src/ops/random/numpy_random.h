// The random streams of the random operators. A seeded node draws exactly what numpy's legacy
// np.random.RandomState(int(seed)) draws (the generator ONNX's reference implementation uses), so seeded outputs
// are reproducible and agree with that implementation; an unseeded node draws from a fresh seed on every run.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

#include "runtime/kernel.h"

namespace onyx::ops::random {

// MT19937 read as numpy's legacy RandomState reads it.
class NumpyRandom {
 public:
  explicit NumpyRandom(uint32_t seed) : mt_(seed) {}

  // Uniform in [0, 1) with 53 random bits (RandomState.random_sample).
  double Uniform();
  // Standard normal by the polar method, the second value of each pair kept for the next call
  // (RandomState.standard_normal).
  double Gauss();
  // One draw of RandomState.binomial(1, p): 0 or 1, p in [0, 1].
  int Bernoulli(double p);

 private:
  std::mt19937 mt_;  // std::mt19937(seed) is seeded exactly like numpy's mt19937_seed
  bool has_gauss_ = false;
  double gauss_ = 0;
};

// The `seed` attribute of a random operator and where an unseeded node takes its seeds from.
class SeedSource {
 public:
  // Reads the optional float attribute `seed`.
  void Init(const KernelInfo& info);
  // The generator for one run: the same stream on every run when seeded, a new one otherwise.
  NumpyRandom Next();

 private:
  bool seeded_ = false;
  uint32_t seed_ = 0;
  std::mutex mu_;
  std::mt19937_64 seeds_;  // unseeded: per-run seeds, itself seeded from std::random_device
};

}  // namespace onyx::ops::random
