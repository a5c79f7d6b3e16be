// Helpers shared by operator kernels: axes, broadcasting, strided iteration.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/binary_arithmetic.h"
#include "ops/common/parallel.h"

namespace onyx::ops {

// Copies a short run of bytes (one pixel's channels of a channels-last Split or Concat: tens of bytes) in 16-byte
// moves: a memcpy call of a run-time size cost more than the copy itself, run after run.
inline void CopyShortRun(uint8_t* to, const uint8_t* from, size_t bytes) {
  size_t k = 0;
  for (; k + 16 <= bytes; k += 16) std::memcpy(to + k, from + k, 16);
  for (; k < bytes; ++k) to[k] = from[k];
}

// Maps a possibly negative axis into [0, rank); error when out of range.
Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank);
// Normalizes a list of axes; error on duplicates or out-of-range axes.
Result<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank);

// numpy-style multidirectional broadcasting of shapes.
Result<Shape> BroadcastShapes(const Shape& a, const Shape& b);
Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes);

// Strides (in elements) to read `in` as if it had shape `out` (0 where broadcast). `in` must broadcast to `out`.
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);
// The same into `strides` (resized; no allocation once its capacity suffices).
void BroadcastStridesInto(const Shape& in, const Shape& out, std::vector<int64_t>& strides);

// The vectors BroadcastBinary works in, one set per thread and reused, so that a broadcast costs no allocation per
// call once a thread has seen the rank.
struct BroadcastScratch {
  std::vector<int64_t> full[2];
  Shape dims;
  std::vector<int64_t> sa, sb;
};
BroadcastScratch& ThreadBroadcastScratch();

// Iterates over every index of `shape` in row-major order, calling f(linear_index, offsets...) where each offset
// advances by the matching stride vector. Handles rank 0 and empty shapes.
template <size_t N, typename F>
void ForEachStrided(const Shape& shape, const std::vector<int64_t> (&strides)[N], F&& f) {
  const int64_t total = NumElements(shape);
  if (total == 0) return;
  const size_t rank = shape.size();
  // The index on the stack for the usual ranks: a run calls this for many nodes, and a vector each time would be
  // a heap allocation per call (issue 18).
  constexpr size_t kInlineRank = 12;
  int64_t inline_idx[kInlineRank] = {};
  std::vector<int64_t> heap_idx;
  int64_t* idx = inline_idx;
  if (rank > kInlineRank) {
    heap_idx.assign(rank, 0);
    idx = heap_idx.data();
  }
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

// The offsets into two broadcast operands of consecutive rows over the outer dims dims[0, rank) (their strides sa
// and sb): found by division once, then advanced like an odometer, since a division per dimension and row costs
// more than a short row itself (a squeeze-and-excitation gate broadcast over H x W rows of 8 values).
class RowOffsets {
 public:
  RowOffsets(const Shape& dims, const std::vector<int64_t>& sa, const std::vector<int64_t>& sb, size_t rank,
             int64_t row)
      : dims_(dims), sa_(sa), sb_(sb), rank_(rank), row_(row) {
    Seek();
  }
  void Next() {
    ++row_;
    if (rank_ > kMaxRank) {  // no odometer that wide: divide again
      Seek();
      return;
    }
    for (size_t d = rank_; d-- > 0;) {
      a += sa_[d];
      b += sb_[d];
      if (++idx_[d] < dims_[d]) return;
      a -= sa_[d] * dims_[d];
      b -= sb_[d] * dims_[d];
      idx_[d] = 0;
    }
  }
  int64_t a = 0, b = 0;  // the current row's offsets

 private:
  static constexpr size_t kMaxRank = 16;
  void Seek() {
    a = b = 0;
    int64_t rest = row_;
    for (size_t d = rank_; d-- > 0;) {
      const int64_t i = rest % dims_[d];
      rest /= dims_[d];
      if (d < kMaxRank) idx_[d] = i;
      a += i * sa_[d];
      b += i * sb_[d];
    }
  }
  const Shape& dims_;
  const std::vector<int64_t>& sa_;
  const std::vector<int64_t>& sb_;
  size_t rank_;
  int64_t row_;
  int64_t idx_[kMaxRank] = {};
};

// Whether BroadcastBinary's operands and output are all float32 (where kernels::BinaryArrays can serve).
template <typename TA, typename TB, typename TO>
inline constexpr bool kFloatOperands =
    std::is_same_v<TA, float>&& std::is_same_v<TB, float>&& std::is_same_v<TO, float>;

// A case of BroadcastBinary: rows of one channel block (8 or 16 contiguous values: the blocked layouts' channel
// blocks) where one operand walks the rows and the other repeats one block over them (a squeeze-and-excitation gate
// [N, C/b, 1, 1, b] times a feature map [N, C/b, H, W, b]). The block length is a compile-time constant here, so the
// rows vectorize without a loop set-up per row of 8 values. `dims`, `sa`, `sb`: the collapsed dims and strides.
// Returns false (doing nothing) for other shapes.
template <typename TA, typename TB, typename TO, typename F>
bool BroadcastBlockRows(const TA* pa, const TB* pb, TO* po, const Shape& dims, const std::vector<int64_t>& sa,
                        const std::vector<int64_t>& sb, int64_t rows, F& f, std::optional<kernels::BinaryOp> float_op) {
  const size_t rank = dims.size();
  if (rank < 2 || sa[rank - 1] != 1 || sb[rank - 1] != 1) return false;
  const int64_t inner = dims[rank - 1];
  if (inner != 8 && inner != 16) return false;
  const size_t k = rank - 2;
  const bool a_walks = sa[k] == inner && sb[k] == 0;
  if (!a_walks && !(sb[k] == inner && sa[k] == 0)) return false;
  const int64_t m = dims[k];
  auto run = [&](auto block) {
    constexpr int64_t kBlock = decltype(block)::value;
    ParallelFor(rows, kBlock, [&](int64_t lo, int64_t hi) {
      // The outer index lo / m over dims[0, k), and the row i within it.
      RowOffsets outer(dims, sa, sb, k, lo / m);
      int64_t i = lo % m;
      for (int64_t r = lo; r < hi;) {
        const int64_t count = std::min(m - i, hi - r);
        TO* ro = po + r * kBlock;
        if constexpr (kFloatOperands<TA, TB, TO>) {
          if (float_op.has_value()) {
            const TA* ra = pa + outer.a + (a_walks ? i * kBlock : 0);
            const TB* rb = pb + outer.b + (a_walks ? 0 : i * kBlock);
            kernels::BinaryBlockRows(*float_op, ra, rb, ro, count, kBlock, a_walks);
            r += count;
            i = 0;
            outer.Next();
            continue;
          }
        }
        if (a_walks) {
          const TA* ra = pa + outer.a + i * kBlock;
          const TB* rb = pb + outer.b;
          for (int64_t t = 0; t < count; ++t) {
#pragma GCC ivdep
            for (int64_t j = 0; j < kBlock; ++j) ro[t * kBlock + j] = f(ra[t * kBlock + j], rb[j]);
          }
        } else {
          const TA* ra = pa + outer.a;
          const TB* rb = pb + outer.b + i * kBlock;
          for (int64_t t = 0; t < count; ++t) {
#pragma GCC ivdep
            for (int64_t j = 0; j < kBlock; ++j) ro[t * kBlock + j] = f(ra[j], rb[t * kBlock + j]);
          }
        }
        r += count;
        i = 0;
        outer.Next();
      }
    });
  };
  if (inner == 8) {
    run(std::integral_constant<int64_t, 8>{});
  } else {
    run(std::integral_constant<int64_t, 16>{});
  }
  return true;
}

// A case of BroadcastBinary: rows of fewer than 8 values where one operand walks every row and the other repeats one
// row for all (an image's per-channel mean or scale over channels-last pixels, [1, H, W, 3] - [1, 1, 1, 3], the
// preprocessing of a converted TensorFlow model; the general strided loop took ~2 ns per value). Float arithmetic
// (`float_op`) runs over 64 rows at a time against the repeated row laid out 64 times; other cases element by
// element. Returns false (doing nothing) for other shapes.
template <typename TA, typename TB, typename TO, typename F>
bool BroadcastShortRows(const TA* pa, const TB* pb, TO* po, const Shape& dims, const std::vector<int64_t>& sa,
                        const std::vector<int64_t>& sb, F& f, std::optional<kernels::BinaryOp> float_op) {
  if (dims.size() != 2 || sa[1] != 1 || sb[1] != 1) return false;
  const int64_t inner = dims[1], rows = dims[0];
  if (inner >= 8) return false;
  const bool a_walks = sa[0] == inner && sb[0] == 0;
  if (!a_walks && !(sb[0] == inner && sa[0] == 0)) return false;
  if constexpr (kFloatOperands<TA, TB, TO>) {
    if (float_op.has_value()) {
      constexpr int64_t kRows = 64;
      float pattern[kRows * 8];
      const float* row = a_walks ? pb : pa;
      for (int64_t r = 0; r < kRows; ++r) std::copy_n(row, inner, pattern + r * inner);
      ParallelFor(rows, inner, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; r += kRows) {
          const int64_t len = std::min(kRows, hi - r) * inner;
          const float* walk = (a_walks ? pa : pb) + r * inner;
          kernels::BinaryArrays(*float_op, a_walks ? walk : pattern, 1, a_walks ? pattern : walk, 1, po + r * inner,
                                len);
        }
      });
      return true;
    }
  }
  ParallelFor(rows, inner, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const TA* ra = pa + (a_walks ? r * inner : 0);
      const TB* rb = pb + (a_walks ? 0 : r * inner);
      for (int64_t j = 0; j < inner; ++j) po[r * inner + j] = f(ra[j], rb[j]);
    }
  });
  return true;
}

// Applies out[i] = f(a[i'], b[i'']) with numpy broadcasting; `out` must already have the broadcast shape. The
// shapes are collapsed to rows of a contiguous inner run in which each input either advances or stays put (a
// bias over the last axis, a per-row statistic), so the inner loops vectorize; rows are split across threads.
// f must be a pure function of its arguments. `out` is a tensor of its own or `a` itself (then a has out's shape).
// `float_op`, for float32 operands, names the arithmetic f computes: the runs then go through the vectorized
// kernels::BinaryArrays / BinaryBlockRows (the same bits, one IEEE operation per element).
template <typename TA, typename TB, typename TO, typename F>
void BroadcastBinary(const Tensor& a, const Tensor& b, Tensor& out, F&& f,
                     std::optional<kernels::BinaryOp> float_op = std::nullopt) {
  const TA* pa = a.data<TA>();
  const TB* pb = b.data<TB>();
  TO* po = out.data<TO>();
  const int64_t n = out.size();
  if (n == 0) return;
  // out[lo, hi) from a and b stepping 0 or 1 per element: the vector kernel, or f.
  auto run = [&](const TA* ra, int64_t a_step, const TB* rb, int64_t b_step, TO* ro, int64_t len) {
    if constexpr (kFloatOperands<TA, TB, TO>) {
      if (float_op.has_value()) {
        kernels::BinaryArrays(*float_op, ra, a_step, rb, b_step, ro, len);
        return;
      }
    }
    if (a_step == 1 && b_step == 1) {
#pragma GCC ivdep
      for (int64_t j = 0; j < len; ++j) ro[j] = f(ra[j], rb[j]);
    } else if (a_step == 1) {
      const TB v = rb[0];
#pragma GCC ivdep
      for (int64_t j = 0; j < len; ++j) ro[j] = f(ra[j], v);
    } else if (b_step == 1) {
      const TA v = ra[0];
#pragma GCC ivdep
      for (int64_t j = 0; j < len; ++j) ro[j] = f(v, rb[j]);
    } else {
      const TO v = f(ra[0], rb[0]);
      for (int64_t j = 0; j < len; ++j) ro[j] = v;
    }
  };
  const bool a_full = a.shape() == out.shape();
  const bool b_full = b.shape() == out.shape();
  if ((a_full && (b_full || b.size() == 1)) || (b_full && a.size() == 1)) {
    const int64_t a_step = a_full ? 1 : 0;
    const int64_t b_step = b_full ? 1 : 0;
    ParallelFor(n, 1, [&](int64_t lo, int64_t hi) {
      run(pa + lo * a_step, a_step, pb + lo * b_step, b_step, po + lo, hi - lo);
    });
    return;
  }
  // The calling thread's scratch, bound here: the parallel loop below reads it through these references.
  BroadcastScratch& scratch = ThreadBroadcastScratch();
  BroadcastStridesInto(a.shape(), out.shape(), scratch.full[0]);
  BroadcastStridesInto(b.shape(), out.shape(), scratch.full[1]);
  const std::vector<int64_t>& full_a = scratch.full[0];
  const std::vector<int64_t>& full_b = scratch.full[1];
  // Collapse: drop size-1 dims, merge neighbours that both inputs walk the same way.
  Shape& dims = scratch.dims;
  std::vector<int64_t>& sa = scratch.sa;
  std::vector<int64_t>& sb = scratch.sb;
  dims.clear();
  sa.clear();
  sb.clear();
  for (size_t d = 0; d < out.shape().size(); ++d) {
    const int64_t len = out.shape()[d];
    if (len == 1) continue;
    if (!dims.empty() && sa.back() == full_a[d] * len && sb.back() == full_b[d] * len) {
      dims.back() *= len;
      sa.back() = full_a[d];
      sb.back() = full_b[d];
      continue;
    }
    dims.push_back(len);
    sa.push_back(full_a[d]);
    sb.push_back(full_b[d]);
  }
  const int64_t inner = dims.back();
  const int64_t ia = sa.back();
  const int64_t ib = sb.back();
  if (BroadcastShortRows<TA, TB, TO>(pa, pb, po, dims, sa, sb, f, float_op)) return;
  if (inner < 8 || ia > 1 || ib > 1) {
    ForEachStrided(out.shape(), scratch.full,
                   [&](int64_t i, const int64_t* off) { po[i] = f(pa[off[0]], pb[off[1]]); });
    return;
  }
  const size_t outer_rank = dims.size() - 1;
  const int64_t rows = n / inner;
  if (BroadcastBlockRows<TA, TB, TO>(pa, pb, po, dims, sa, sb, rows, f, float_op)) return;
  ParallelFor(rows, inner, [&](int64_t lo, int64_t hi) {
    RowOffsets offsets(dims, sa, sb, outer_rank, lo);
    // ivdep (in run): the output is a fresh tensor or `a` itself (Sum accumulates in place), element for element, so
    // no iteration reads what another writes; without it GCC assumes overlap and keeps the short rows scalar.
    for (int64_t r = lo; r < hi; ++r, offsets.Next())
      run(pa + offsets.a, ia, pb + offsets.b, ib, po + r * inner, inner);
  });
}

}  // namespace onyx::ops
