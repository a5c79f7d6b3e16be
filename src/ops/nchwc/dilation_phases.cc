#include "ops/nchwc/dilation_phases.h"

#include <algorithm>
#include <cstring>

#include "ops/common/parallel.h"

namespace onyx::ops::nchwc {

PhaseLayout MakePhaseLayout(int64_t in, int64_t out, int64_t kernel, int64_t dilation, int64_t pad_begin) {
  PhaseLayout l;
  l.dilation = dilation;
  l.pad_begin = pad_begin;
  l.in = in;
  l.out = out;
  l.sub_out = (out + dilation - 1) / dilation;
  l.sub_in = l.sub_out + kernel - 1;
  return l;
}

namespace {

// One pixel of `block` floats: fixed-size copies for the blocks the layout uses (inlined as vector moves; a call to
// memcpy per 32-byte pixel costs more than the copy).
inline void CopyPixel(float* dst, const float* src, int64_t block) {
  switch (block) {
    case 8:
      std::memcpy(dst, src, 8 * sizeof(float));
      break;
    case 16:
      std::memcpy(dst, src, 16 * sizeof(float));
      break;
    default:
      std::memcpy(dst, src, static_cast<size_t>(block) * sizeof(float));
  }
}

inline void ZeroPixel(float* dst, int64_t block) { std::fill(dst, dst + block, 0.0f); }

// Calls f(row) for every row (image x H) over the session's threads; each moves one row of the full tensor, which
// so stays in cache while its d phases are laid out.
template <typename F>
void ForEachRow(const PhaseLayout& l, int64_t work_per_row, F&& f) {
  ParallelFor(l.images * l.rows, work_per_row, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) f(row);
  });
}

// Copies between phase outputs and y, one direction or the other.
template <bool kToY>
void MoveOutputPhases(const PhaseLayout& l, float* phases, float* y) {
  const int64_t b = l.block, phase_width = l.PhaseOutWidth();
  ForEachRow(l, phase_width * b, [&](int64_t row) {
    float* y_row = y + row * l.out * b;
    float* phase_row = phases + row * phase_width * b;
    if (!kToY) std::fill(phase_row, phase_row + phase_width * b, 0.0f);
    for (int64_t r = 0; r < l.dilation; ++r) {
      for (int64_t j = 0; j < l.sub_out; ++j) {
        const int64_t w = j * l.dilation + r;
        if (w >= l.out) break;
        float* p = phase_row + (r * l.sub_in + j) * b;
        if (kToY) {
          CopyPixel(y_row + w * b, p, b);
        } else {
          CopyPixel(p, y_row + w * b, b);
        }
      }
    }
  });
}

}  // namespace

void GatherInputPhases(const PhaseLayout& l, const float* x, float* phases) {
  const int64_t b = l.block, phase_width = l.PhaseInWidth();
  ForEachRow(l, phase_width * b, [&](int64_t row) {
    const float* x_row = x + row * l.in * b;
    float* dst = phases + row * phase_width * b;
    for (int64_t r = 0; r < l.dilation; ++r) {
      for (int64_t j = 0; j < l.sub_in; ++j, dst += b) {
        const int64_t w = j * l.dilation + r - l.pad_begin;
        if (w < 0 || w >= l.in) {
          ZeroPixel(dst, b);
        } else {
          CopyPixel(dst, x_row + w * b, b);
        }
      }
    }
  });
}

void ScatterOutputPhases(const PhaseLayout& l, const float* phases, float* y) {
  MoveOutputPhases<true>(l, const_cast<float*>(phases), y);
}

void GatherOutputPhases(const PhaseLayout& l, const float* y, float* phases) {
  MoveOutputPhases<false>(l, phases, const_cast<float*>(y));
}

}  // namespace onyx::ops::nchwc
