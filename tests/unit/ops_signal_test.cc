// Unit tests of the Signal family (DFT, STFT, HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix): what
// the ONNX backend suite leaves out: DFT lengths that are not powers of two (direct sum and Bluestein paths),
// zero-padding and truncation by dft_length, inner axes, negative axes, round trips, odd-length IRFFT, empty
// tensors, double precision, windows of size 0 and 1 and integer output types, and bad inputs and attributes
// giving an error rather than a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "op_test_helpers.h"
#include "op_tester.h"

namespace onyx {
namespace {

using testing::ExpectError;
using testing::F;
using testing::Op;
using testing::OpTest;
using testing::RunOk;
using testing::Values;
using C = std::complex<double>;

Tensor D(std::vector<double> values, Shape shape) { return Tensor::FromVector<double>(values, std::move(shape)); }
// Scalars (the dft_length and axis inputs), unlike the shared helpers' I64/I32 of a given shape.
Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }

// The textbook sum, for checking: X[k] = sum_t x[t] e^{-+2 pi i k t / n} over the first min(size, n) values.
std::vector<C> NaiveDft(const std::vector<C>& x, int64_t n, bool inverse) {
  std::vector<C> out(static_cast<size_t>(n));
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < n; ++k) {
    C sum(0, 0);
    for (int64_t t = 0; t < n && t < static_cast<int64_t>(x.size()); ++t) {
      sum += x[static_cast<size_t>(t)] * std::polar(1.0, sign * 2.0 * std::numbers::pi * static_cast<double>(k * t) / static_cast<double>(n));
    }
    out[static_cast<size_t>(k)] = inverse ? sum / static_cast<double>(n) : sum;
  }
  return out;
}

std::vector<float> Ramp(int64_t n, float scale = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7f * static_cast<float>(i)) * scale + 0.1f * static_cast<float>(i);
  return v;
}

// ---- DFT ----

class SignalDftLength : public ::testing::TestWithParam<int64_t> {};

// 8: radix-2; 5 and 12: direct sum; 17, 31 and 100: Bluestein.
TEST_P(SignalDftLength, RealForwardMatchesTheSum) {
  const int64_t n = GetParam();
  const std::vector<float> x = Ramp(n);
  Tensor out = RunOk(Op("DFT").Input(F(x, {1, n, 1})));
  ASSERT_EQ(out.shape(), (Shape{1, n, 2}));
  std::vector<C> cx(x.begin(), x.end());
  const std::vector<C> want = NaiveDft(cx, n, false);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_NEAR(out.data<float>()[2 * k], want[static_cast<size_t>(k)].real(), 1e-3) << "k=" << k;
    EXPECT_NEAR(out.data<float>()[2 * k + 1], want[static_cast<size_t>(k)].imag(), 1e-3) << "k=" << k;
  }
}

TEST_P(SignalDftLength, ComplexRoundTripRestoresTheSignal) {
  const int64_t n = GetParam();
  std::vector<double> x(static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < 2 * n; ++i) x[static_cast<size_t>(i)] = std::cos(1.3 * static_cast<double>(i)) + 0.01 * static_cast<double>(i);
  Tensor spectrum = RunOk(Op("DFT").Input(D(x, {n, 2})).Input(Value()).Input(I64(0)));
  Tensor back = RunOk(Op("DFT").Attr("inverse", int64_t{1}).Input(spectrum).Input(Value()).Input(I64(0)));
  ASSERT_EQ(back.shape(), (Shape{n, 2}));
  for (int64_t i = 0; i < 2 * n; ++i) EXPECT_NEAR(back.data<double>()[i], x[static_cast<size_t>(i)], 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Lengths, SignalDftLength, ::testing::Values(1, 5, 8, 12, 17, 31, 100));

TEST(SignalDft, InnerAxisWithBatchAndTrailingDims) {
  // [2, 3, 4, 1] transformed along axis 1 (length 3), in version 17 (attribute) and 20 (input, negative).
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i * i % 7);
  Tensor v17 = RunOk(Op("DFT", 17).Attr("axis", int64_t{1}).Input(F(x, {2, 3, 4, 1})));
  Tensor v20 = RunOk(Op("DFT").Input(F(x, {2, 3, 4, 1})).Input(Value()).Input(I64(-3)));
  ASSERT_EQ(v17.shape(), (Shape{2, 3, 4, 2}));
  EXPECT_EQ(Values<float>(v17), Values<float>(v20));
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t j = 0; j < 4; ++j) {
      std::vector<C> line;
      for (int64_t t = 0; t < 3; ++t) line.emplace_back(x[static_cast<size_t>((b * 3 + t) * 4 + j)], 0.0);
      const std::vector<C> want = NaiveDft(line, 3, false);
      for (int64_t k = 0; k < 3; ++k) {
        const float* got = v17.data<float>() + ((b * 3 + k) * 4 + j) * 2;
        EXPECT_NEAR(got[0], want[static_cast<size_t>(k)].real(), 1e-4);
        EXPECT_NEAR(got[1], want[static_cast<size_t>(k)].imag(), 1e-4);
      }
    }
  }
}

TEST(SignalDft, DftLengthPadsAndTruncates) {
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<C> cx(x.begin(), x.end());
  for (int64_t len : {2, 6}) {
    Tensor out = RunOk(Op("DFT").Input(F(x, {4, 1})).Input(I64(len)).Input(I64(0)));
    ASSERT_EQ(out.shape(), (Shape{len, 2}));
    const std::vector<C> want = NaiveDft(cx, len, false);  // uses the first min(4, len) values, zero-padded
    for (int64_t k = 0; k < len; ++k) {
      EXPECT_NEAR(out.data<float>()[2 * k], want[static_cast<size_t>(k)].real(), 1e-5);
      EXPECT_NEAR(out.data<float>()[2 * k + 1], want[static_cast<size_t>(k)].imag(), 1e-5);
    }
  }
  // Version 17 takes dft_length as input 1 too (an int32 one here).
  Tensor v17 = RunOk(Op("DFT", 17).Attr("axis", int64_t{0}).Input(F(x, {4, 1})).Input(I32(6)));
  EXPECT_EQ(v17.shape(), (Shape{6, 2}));
  EXPECT_NEAR(v17.data<float>()[0], 10.0f, 1e-5);
}

TEST(SignalDft, OnesidedKeepsHalfTheBins) {
  const std::vector<float> x = Ramp(7);
  Tensor out = RunOk(Op("DFT").Attr("onesided", int64_t{1}).Input(F(x, {7, 1})).Input(Value()).Input(I64(0)));
  ASSERT_EQ(out.shape(), (Shape{4, 2}));
  std::vector<C> cx(x.begin(), x.end());
  const std::vector<C> want = NaiveDft(cx, 7, false);
  for (int64_t k = 0; k < 4; ++k) EXPECT_NEAR(out.data<float>()[2 * k + 1], want[static_cast<size_t>(k)].imag(), 1e-4);
}

TEST(SignalDft, IrfftInvertsRfftForOddAndEvenLengths) {
  for (int64_t n : {7, 8, 19}) {
    const std::vector<float> x = Ramp(n, 2.0f);
    Tensor half = RunOk(Op("DFT").Attr("onesided", int64_t{1}).Input(F(x, {1, n, 1})));
    ASSERT_EQ(half.shape(), (Shape{1, n / 2 + 1, 2}));
    // An odd length cannot be inferred from the bins (the default is 2 * (bins - 1)): give it.
    OpTest inv = Op("DFT").Attr("inverse", int64_t{1}).Attr("onesided", int64_t{1}).Input(half);
    if (n % 2 == 1) inv.Input(I64(n));
    Tensor back = RunOk(inv);
    ASSERT_EQ(back.shape(), (Shape{1, n, 1})) << "n=" << n;
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(back.data<float>()[i], x[static_cast<size_t>(i)], 1e-4) << "n=" << n;
  }
}

TEST(SignalDft, EmptyBatchAndFloat16) {
  Tensor out = RunOk(Op("DFT").Input(F({}, {0, 4, 1})));
  EXPECT_EQ(out.shape(), (Shape{0, 4, 2}));
  Tensor h = Tensor::Allocate(DataType::kFloat16, {2, 1});
  h.data<Float16>()[0] = Float16(1.0f);
  h.data<Float16>()[1] = Float16(3.0f);
  Tensor hout = RunOk(Op("DFT").Input(h).Input(Value()).Input(I64(0)));
  ASSERT_EQ(hout.type(), DataType::kFloat16);
  EXPECT_EQ(static_cast<float>(hout.data<Float16>()[0]), 4.0f);
  EXPECT_EQ(static_cast<float>(hout.data<Float16>()[2]), -2.0f);
}

TEST(SignalDft, Errors) {
  ExpectError(Op("DFT").Input(F({1, 2}, {2})), "rank >= 2");
  ExpectError(Op("DFT").Input(F({1, 2, 3}, {1, 3})), "last dimension");
  // The last axis holds the complex components.
  ExpectError(Op("DFT").Input(F({1, 2}, {2, 1})).Input(Value()).Input(I64(1)), "out of range");
  ExpectError(Op("DFT").Input(F({1, 2}, {2, 1})).Input(Value()).Input(I64(-1)), "out of range");
  ExpectError(Op("DFT", 17).Attr("axis", int64_t{2}).Input(F({1, 2}, {1, 2, 1})), "out of range");
  ExpectError(Op("DFT").Input(F({1, 2}, {2, 1})).Input(I64(0)).Input(I64(0)), "dft_length");
  ExpectError(Op("DFT").Input(F({1, 2}, {2, 1})).Input(I64(-3)).Input(I64(0)), "dft_length");
  ExpectError(Op("DFT").Attr("inverse", int64_t{2}).Input(F({1, 2}, {2, 1})), "inverse");
  // An IRFFT of one bin has no default length.
  ExpectError(Op("DFT").Attr("inverse", int64_t{1}).Attr("onesided", int64_t{1}).Input(F({1, 0}, {1, 2})).Input(Value()).Input(I64(0)),
              "dft_length");
  ExpectError(Op("DFT").Input(Tensor::FromVector<int32_t>({1, 2}, {2, 1})));
}

// ---- STFT ----

TEST(SignalStft, WindowedFramesMatchTheSum) {
  const int64_t length = 10, frame = 4, step = 3;
  const std::vector<float> x = Ramp(length);
  const std::vector<float> w = {0.1f, 0.5f, 1.0f, 0.25f};
  for (int64_t onesided : {0, 1}) {
    Tensor out = RunOk(Op("STFT", 17).Attr("onesided", onesided).Input(F(x, {1, length, 1})).Input(I64(step)).Input(F(w, {frame})));
    const int64_t bins = onesided ? frame / 2 + 1 : frame;
    ASSERT_EQ(out.shape(), (Shape{1, 3, bins, 2}));
    for (int64_t f = 0; f < 3; ++f) {
      std::vector<C> seg;
      for (int64_t t = 0; t < frame; ++t) seg.emplace_back(x[static_cast<size_t>(f * step + t)] * w[static_cast<size_t>(t)], 0.0);
      const std::vector<C> want = NaiveDft(seg, frame, false);
      for (int64_t k = 0; k < bins; ++k) {
        const float* got = out.data<float>() + (f * bins + k) * 2;
        EXPECT_NEAR(got[0], want[static_cast<size_t>(k)].real(), 1e-5);
        EXPECT_NEAR(got[1], want[static_cast<size_t>(k)].imag(), 1e-5);
      }
    }
  }
}

TEST(SignalStft, ComplexSignalWithoutWindowAndOddFrame) {
  // Complex input, rectangular window from frame_length 3, two batches.
  std::vector<float> x(2 * 5 * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 1.0f;
  Tensor out = RunOk(Op("STFT", 17).Attr("onesided", int64_t{0}).Input(F(x, {2, 5, 2})).Input(I64(2)).Input(Value()).Input(I64(3)));
  ASSERT_EQ(out.shape(), (Shape{2, 2, 3, 2}));
  // Batch 1, frame 1, bin 0: the sum of samples 2..4 of batch 1.
  float re = 0, im = 0;
  for (int t = 2; t < 5; ++t) {
    re += x[static_cast<size_t>((5 + t) * 2)];
    im += x[static_cast<size_t>((5 + t) * 2 + 1)];
  }
  EXPECT_NEAR(out.data<float>()[((1 * 2 + 1) * 3 + 0) * 2], re, 1e-5);
  EXPECT_NEAR(out.data<float>()[((1 * 2 + 1) * 3 + 0) * 2 + 1], im, 1e-5);
}

TEST(SignalStft, Errors) {
  const Tensor x = F(Ramp(8), {1, 8, 1});
  ExpectError(Op("STFT", 17).Input(x).Input(I64(0)).Input(F({1, 1}, {2})), "frame_step");
  ExpectError(Op("STFT", 17).Input(x).Input(I64(2)).Input(F({1, 1}, {2})).Input(I64(3)), "frame_length");
  ExpectError(Op("STFT", 17).Input(x).Input(I64(2)).Input(Value()).Input(I64(9)), "frame length");
  ExpectError(Op("STFT", 17).Input(F(Ramp(8), {8, 1})).Input(I64(2)), "signal");
  ExpectError(Op("STFT", 17).Input(x).Input(I64(2)).Input(D({1, 1}, {2})), "window");
  ExpectError(Op("STFT", 17).Attr("onesided", int64_t{3}).Input(x).Input(I64(2)), "onesided");
}

// ---- Windows ----

void ExpectFloats(const Tensor& t, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(t.size(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.DoubleAt(static_cast<int64_t>(i)), want[i], tol) << "i=" << i;
}

TEST(SignalWindow, HannPeriodicAndSymmetric) {
  ExpectFloats(RunOk(Op("HannWindow", 17).Input(I64(4))), {0, 0.5, 1, 0.5});
  ExpectFloats(RunOk(Op("HannWindow", 17).Attr("periodic", int64_t{0}).Input(I32(5))), {0, 0.5, 1, 0.5, 0});
}

TEST(SignalWindow, HammingAndBlackmanValues) {
  const double a0 = 25.0 / 46.0, a1 = 21.0 / 46.0;
  ExpectFloats(RunOk(Op("HammingWindow", 17).Input(I64(4))), {a0 - a1, a0, a0 + a1, a0});
  ExpectFloats(RunOk(Op("BlackmanWindow", 17).Attr("periodic", int64_t{0}).Input(I64(3))), {0, 1, 0});
  ExpectFloats(RunOk(Op("BlackmanWindow", 17).Input(I64(4))), {0, 0.34, 1, 0.34});
}

TEST(SignalWindow, SizesZeroAndOneAndOutputTypes) {
  Tensor empty = RunOk(Op("HannWindow", 17).Input(I64(0)));
  EXPECT_EQ(empty.shape(), (Shape{0}));
  ExpectFloats(RunOk(Op("HannWindow", 17).Attr("periodic", int64_t{0}).Input(I64(1))), {1});
  ExpectFloats(RunOk(Op("HannWindow", 17).Input(I64(1))), {0});
  Tensor d = RunOk(Op("HammingWindow", 17).Attr("output_datatype", int64_t{11}).Input(I64(3)));
  EXPECT_EQ(d.type(), DataType::kDouble);
  EXPECT_DOUBLE_EQ(d.data<double>()[0], 25.0 / 46.0 - 21.0 / 46.0);
  // Integer outputs truncate: only the peak of a symmetric window reaches 1.
  Tensor i = RunOk(Op("HannWindow", 17).Attr("periodic", int64_t{0}).Attr("output_datatype", int64_t{7}).Input(I64(5)));
  EXPECT_EQ(i.type(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>(i), (std::vector<int64_t>{0, 0, 1, 0, 0}));
}

TEST(SignalWindow, Errors) {
  ExpectError(Op("HannWindow", 17).Input(I64(-1)), "size");
  ExpectError(Op("HannWindow", 17).Input(F({4}, {})), "integer");
  ExpectError(Op("HannWindow", 17).Attr("output_datatype", int64_t{8}).Input(I64(4)), "output_datatype");
  ExpectError(Op("HannWindow", 17).Attr("output_datatype", int64_t{99}).Input(I64(4)), "output_datatype");
  ExpectError(Op("BlackmanWindow", 17).Attr("periodic", int64_t{2}).Input(I64(4)), "periodic");
}

// ---- MelWeightMatrix ----

OpTest Mel(int64_t bins, int64_t dft, int64_t rate, float lo, float hi) {
  return Op("MelWeightMatrix", 17)
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(bins)))
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(dft)))
      .Input(Tensor::Scalar<int32_t>(static_cast<int32_t>(rate)))
      .Input(Tensor::Scalar<float>(lo))
      .Input(Tensor::Scalar<float>(hi));
}

TEST(SignalMelWeightMatrix, TrianglesOverTheSpectrogramBins) {
  Tensor out = RunOk(Mel(8, 16, 8192, 0, 4096));
  ASSERT_EQ(out.shape(), (Shape{9, 8}));
  // The mel points fall on bins so close together that every band is a single 1 (ONNX's test data).
  std::vector<float> want(72, 0.0f);
  const int ones[8][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (const auto& p : ones) want[static_cast<size_t>(p[0] * 8 + p[1])] = 1.0f;
  EXPECT_EQ(Values<float>(out), want);

  // Wider bands rise and fall linearly: every column sums its triangle, values within [0, 1].
  Tensor wide = RunOk(Op("MelWeightMatrix", 17)
                          .Attr("output_datatype", int64_t{11})
                          .Input(I64(3))
                          .Input(I64(64))
                          .Input(I64(16000))
                          .Input(Tensor::Scalar<double>(100.0))
                          .Input(Tensor::Scalar<double>(8000.0)));
  ASSERT_EQ(wide.shape(), (Shape{33, 3}));
  EXPECT_EQ(wide.type(), DataType::kDouble);
  double peak = 0;
  for (double v : Values<double>(wide)) {
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);
    peak = std::max(peak, v);
  }
  EXPECT_EQ(peak, 1.0);
}

TEST(SignalMelWeightMatrix, Errors) {
  ExpectError(Mel(0, 16, 8192, 0, 4096), "num_mel_bins");
  ExpectError(Mel(8, 0, 8192, 0, 4096), "dft_length");
  ExpectError(Mel(8, 16, 0, 0, 4096), "sample_rate");
  ExpectError(Mel(8, 16, 8192, 100, 50), "edge");
  // Far above the Nyquist frequency, the top band has no spectrogram bin.
  ExpectError(Mel(8, 16, 8192, 0, 40000), "upper_edge_hertz");
}

}  // namespace
}  // namespace onyx
