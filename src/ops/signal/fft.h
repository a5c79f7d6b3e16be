// One-dimensional discrete Fourier transform of any length, shared by DFT and STFT. Lengths that are powers of two
// use an iterative radix-2 FFT; other lengths use Bluestein's chirp-z algorithm (a convolution done with radix-2
// FFTs), so every length costs O(n log n). Very short odd lengths use the direct sum, which is cheaper there.
// Everything is computed in double precision whatever the tensor type.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace onyx::ops::signal_ops {

using Complex = std::complex<double>;

class FftPlan {
 public:
  // n >= 1.
  explicit FftPlan(int64_t n);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  int64_t size() const { return n_; }
  // In place, data.size() == size(): forward is X[k] = sum_t x[t] e^{-2 pi i k t / n}; inverse uses e^{+...}
  // and does NOT divide by n (callers scale).
  void Transform(std::vector<Complex>& data, bool inverse) const;

 private:
  struct Radix2;
  enum class Method { kRadix2, kDirect, kBluestein };

  int64_t n_;
  Method method_;
  std::unique_ptr<Radix2> radix2_;  // size n (kRadix2) or the Bluestein convolution size
  std::vector<Complex> twiddles_;   // kDirect: e^{-2 pi i k / n}
  std::vector<Complex> chirp_;      // kBluestein: e^{-pi i k^2 / n}
  std::vector<Complex> kernel_fft_;  // kBluestein: FFT of the conjugate chirp, wrapped
};

}  // namespace onyx::ops::signal_ops
