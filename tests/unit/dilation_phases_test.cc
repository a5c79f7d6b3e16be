// The horizontal dilation-phase layout of ops/nchwc/dilation_phases.h against its definition: a W-dilated stride-1
// window sum computed directly equals the same sum undilated and unpadded along W over the gathered phases laid
// side by side, scattered back; for widths that are not multiples of the dilation and unequal pads.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ops/nchwc/dilation_phases.h"

namespace onyx::ops::nchwc {
namespace {

// One row per image (the H axis plays no part in the layout: every row moves the same way).
struct Geometry {
  int64_t images, rows, block, in, kernel, dilation, pad_begin, pad_end;
  int64_t Out() const { return in + pad_begin + pad_end - dilation * (kernel - 1); }
};

void CheckPhases(const Geometry& g) {
  SCOPED_TRACE("in " + std::to_string(g.in) + " kernel " + std::to_string(g.kernel) + " dilation " +
               std::to_string(g.dilation));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  const int64_t out = g.Out(), b = g.block, rows = g.images * g.rows;
  std::vector<float> x(static_cast<size_t>(rows * g.in * b)), w(static_cast<size_t>(g.kernel));
  for (float& v : x) v = dist(rng);
  for (float& v : w) v = dist(rng);
  // Directly: y[o] = sum over taps of w[t] * x[o - pad + t * d] (zero outside), per lane.
  std::vector<float> want(static_cast<size_t>(rows * out * b));
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t c = 0; c < b; ++c) {
        float acc = 0;
        for (int64_t t = 0; t < g.kernel; ++t) {
          const int64_t col = o - g.pad_begin + t * g.dilation;
          acc += w[static_cast<size_t>(t)] *
                 (col < 0 || col >= g.in ? 0.0f : x[static_cast<size_t>((row * g.in + col) * b + c)]);
        }
        want[static_cast<size_t>((row * out + o) * b + c)] = acc;
      }
    }
  }
  PhaseLayout l = MakePhaseLayout(g.in, out, g.kernel, g.dilation, g.pad_begin);
  l.images = g.images;
  l.rows = g.rows;
  l.block = b;
  const int64_t in_width = l.PhaseInWidth(), out_width = l.PhaseOutWidth();
  ASSERT_EQ(out_width, in_width - (g.kernel - 1));
  std::vector<float> phases(static_cast<size_t>(rows * in_width * b), -1000.0f);
  GatherInputPhases(l, x.data(), phases.data());
  // Undilated and unpadded along W over the phases side by side (the straddling columns are computed too).
  std::vector<float> phase_out(static_cast<size_t>(rows * out_width * b));
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t j = 0; j < out_width; ++j) {
      for (int64_t c = 0; c < b; ++c) {
        float acc = 0;
        for (int64_t t = 0; t < g.kernel; ++t) {
          acc += w[static_cast<size_t>(t)] * phases[static_cast<size_t>((row * in_width + j + t) * b + c)];
        }
        phase_out[static_cast<size_t>((row * out_width + j) * b + c)] = acc;
      }
    }
  }
  std::vector<float> got(want.size(), -1000.0f);
  ScatterOutputPhases(l, phase_out.data(), got.data());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
  // Gathering the outputs back: each phase column that is an output column holds its value, every other zero.
  std::vector<float> back(phase_out.size(), -1000.0f);
  GatherOutputPhases(l, got.data(), back.data());
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t col = 0; col < out_width; ++col) {
      const int64_t r = col / l.sub_in, j = col % l.sub_in;
      const bool output = j < l.sub_out && j * g.dilation + r < out;
      for (int64_t c = 0; c < b; ++c) {
        const size_t at = static_cast<size_t>((row * out_width + col) * b + c);
        ASSERT_EQ(back[at], output ? phase_out[at] : 0.0f) << "row " << row << " phase column " << col;
      }
    }
  }
}

TEST(DilationPhases, SameSizeOutputNotMultipleOfDilation) {
  CheckPhases({2, 3, 8, 19, 3, 4, 4, 4});
  CheckPhases({1, 2, 16, 80, 3, 5, 5, 5});
}

TEST(DilationPhases, UnequalPadsKernelsAndDilations) {
  CheckPhases({1, 2, 4, 17, 2, 6, 7, 0});
  CheckPhases({3, 1, 8, 9, 3, 12, 12, 12});  // dilation wider than the image
  CheckPhases({1, 1, 8, 30, 5, 4, 1, 9});
}

}  // namespace
}  // namespace onyx::ops::nchwc
