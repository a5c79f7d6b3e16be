#include "ops/signal/fft.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace onyx::ops::signal_ops {
namespace {

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Below this length an odd-sized transform is cheaper as a direct sum than as three padded FFTs.
constexpr int64_t kDirectMaxLength = 16;

// e^{-2 pi i num / den}, with the angle reduced first so large indices keep full precision.
Complex UnitRoot(int64_t num, int64_t den) {
  const double angle = -2.0 * std::numbers::pi * static_cast<double>(num % den) / static_cast<double>(den);
  return {std::cos(angle), std::sin(angle)};
}

}  // namespace

struct FftPlan::Radix2 {
  int64_t m = 0;
  std::vector<int64_t> bitrev;
  std::vector<Complex> twiddles;  // e^{-2 pi i k / m}, k < m / 2

  explicit Radix2(int64_t size) : m(size), bitrev(static_cast<size_t>(size)), twiddles(static_cast<size_t>(size / 2)) {
    int bits = 0;
    while ((int64_t{1} << bits) < m) ++bits;
    for (int64_t i = 0; i < m; ++i) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      bitrev[static_cast<size_t>(i)] = r;
    }
    for (int64_t k = 0; k < m / 2; ++k) twiddles[static_cast<size_t>(k)] = UnitRoot(k, m);
  }

  void Run(std::vector<Complex>& a, bool inverse) const {
    for (int64_t i = 0; i < m; ++i) {
      const int64_t r = bitrev[static_cast<size_t>(i)];
      if (i < r) std::swap(a[static_cast<size_t>(i)], a[static_cast<size_t>(r)]);
    }
    for (int64_t len = 2; len <= m; len <<= 1) {
      const int64_t half = len / 2, step = m / len;
      for (int64_t start = 0; start < m; start += len) {
        for (int64_t k = 0; k < half; ++k) {
          Complex w = twiddles[static_cast<size_t>(k * step)];
          if (inverse) w = std::conj(w);
          Complex& lo = a[static_cast<size_t>(start + k)];
          Complex& hi = a[static_cast<size_t>(start + k + half)];
          const Complex t = w * hi;
          hi = lo - t;
          lo += t;
        }
      }
    }
  }
};

FftPlan::FftPlan(int64_t n) : n_(n) {
  if (IsPowerOfTwo(n)) {
    method_ = Method::kRadix2;
    radix2_ = std::make_unique<Radix2>(n);
  } else if (n <= kDirectMaxLength) {
    method_ = Method::kDirect;
    twiddles_.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) twiddles_[static_cast<size_t>(k)] = UnitRoot(k, n);
  } else {
    // Bluestein: kt = (k^2 + t^2 - (k - t)^2) / 2 turns the DFT into a convolution with the chirp
    // e^{+pi i j^2 / n}, done circularly in a power-of-two length m >= 2n - 1.
    method_ = Method::kBluestein;
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    radix2_ = std::make_unique<Radix2>(m);
    chirp_.resize(static_cast<size_t>(n));
    // e^{-pi i k^2 / n} = e^{-2 pi i (k^2 mod 2n) / 2n}; k^2 mod 2n is kept incrementally ((k+1)^2 = k^2 + 2k + 1)
    // so the angle stays exact and nothing overflows.
    int64_t k2 = 0;
    for (int64_t k = 0; k < n; ++k) {
      chirp_[static_cast<size_t>(k)] = UnitRoot(k2, 2 * n);
      k2 = (k2 + 2 * k + 1) % (2 * n);
    }
    kernel_fft_.assign(static_cast<size_t>(m), Complex(0, 0));
    kernel_fft_[0] = std::conj(chirp_[0]);
    for (int64_t k = 1; k < n; ++k) {
      kernel_fft_[static_cast<size_t>(k)] = std::conj(chirp_[static_cast<size_t>(k)]);
      kernel_fft_[static_cast<size_t>(m - k)] = std::conj(chirp_[static_cast<size_t>(k)]);
    }
    radix2_->Run(kernel_fft_, /*inverse=*/false);
  }
}

FftPlan::~FftPlan() = default;

void FftPlan::Transform(std::vector<Complex>& data, bool inverse) const {
  switch (method_) {
    case Method::kRadix2:
      radix2_->Run(data, inverse);
      return;
    case Method::kDirect: {
      std::vector<Complex> out(static_cast<size_t>(n_));
      for (int64_t k = 0; k < n_; ++k) {
        Complex sum(0, 0);
        for (int64_t t = 0; t < n_; ++t) {
          Complex w = twiddles_[static_cast<size_t>((k * t) % n_)];
          if (inverse) w = std::conj(w);
          sum += data[static_cast<size_t>(t)] * w;
        }
        out[static_cast<size_t>(k)] = sum;
      }
      data = std::move(out);
      return;
    }
    case Method::kBluestein: {
      // The inverse transform is the conjugate of the forward transform of the conjugate.
      const int64_t m = radix2_->m;
      std::vector<Complex> a(static_cast<size_t>(m), Complex(0, 0));
      for (int64_t t = 0; t < n_; ++t) {
        const Complex x = inverse ? std::conj(data[static_cast<size_t>(t)]) : data[static_cast<size_t>(t)];
        a[static_cast<size_t>(t)] = x * chirp_[static_cast<size_t>(t)];
      }
      radix2_->Run(a, /*inverse=*/false);
      for (int64_t i = 0; i < m; ++i) a[static_cast<size_t>(i)] *= kernel_fft_[static_cast<size_t>(i)];
      radix2_->Run(a, /*inverse=*/true);
      const double scale = 1.0 / static_cast<double>(m);
      for (int64_t k = 0; k < n_; ++k) {
        const Complex y = a[static_cast<size_t>(k)] * scale * chirp_[static_cast<size_t>(k)];
        data[static_cast<size_t>(k)] = inverse ? std::conj(y) : y;
      }
      return;
    }
  }
}

}  // namespace onyx::ops::signal_ops
