// Helpers shared by operator kernels: axes, broadcasting, strided iteration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::ops {

// Maps a possibly negative axis into [0, rank); error when out of range.
Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank);
// Normalizes a list of axes; error on duplicates or out-of-range axes.
Result<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank);

// numpy-style multidirectional broadcasting of shapes.
Result<Shape> BroadcastShapes(const Shape& a, const Shape& b);
Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes);

// Strides (in elements) to read `in` as if it had shape `out` (0 where broadcast). `in` must broadcast to `out`.
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);

// Iterates over every index of `shape` in row-major order, calling f(linear_index, offsets...) where each offset
// advances by the matching stride vector. Handles rank 0 and empty shapes.
template <size_t N, typename F>
void ForEachStrided(const Shape& shape, const std::vector<int64_t> (&strides)[N], F&& f) {
  const int64_t total = NumElements(shape);
  if (total == 0) return;
  const size_t rank = shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t off[N] = {};
  for (int64_t linear = 0; linear < total; ++linear) {
    f(linear, off);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

// Applies out[i] = f(a[i'], b[i'']) with numpy broadcasting; `out` must already have the broadcast shape.
template <typename TA, typename TB, typename TO, typename F>
void BroadcastBinary(const Tensor& a, const Tensor& b, Tensor& out, F&& f) {
  const TA* pa = a.data<TA>();
  const TB* pb = b.data<TB>();
  TO* po = out.data<TO>();
  const int64_t n = out.size();
  if (a.shape() == out.shape() && b.shape() == out.shape()) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    return;
  }
  if (a.shape() == out.shape() && b.size() == 1) {
    const TB v = pb[0];
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], v);
    return;
  }
  if (b.shape() == out.shape() && a.size() == 1) {
    const TA v = pa[0];
    for (int64_t i = 0; i < n; ++i) po[i] = f(v, pb[i]);
    return;
  }
  std::vector<int64_t> strides[2] = {BroadcastStrides(a.shape(), out.shape()), BroadcastStrides(b.shape(), out.shape())};
  ForEachStrided(out.shape(), strides, [&](int64_t i, const int64_t* off) { po[i] = f(pa[off[0]], pb[off[1]]); });
}

}  // namespace onyx::ops
