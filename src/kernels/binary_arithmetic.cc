// Highway implementation of binary_arithmetic.h (the per-target pattern of vector_math.cc).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/binary_arithmetic.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// foreach_target.h must come first: it re-includes this file, with the headers below, for each target.
#include <hwy/highway.h>

#include <cstdint>

#include "kernels/binary_arithmetic.h"

HWY_BEFORE_NAMESPACE();
namespace onyx::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <BinaryOp kOp, class V>
HWY_INLINE V Apply(V a, V b) {
  if constexpr (kOp == BinaryOp::kAdd) return hn::Add(a, b);
  if constexpr (kOp == BinaryOp::kSub) return hn::Sub(a, b);
  if constexpr (kOp == BinaryOp::kMul) return hn::Mul(a, b);
  if constexpr (kOp == BinaryOp::kDiv) return hn::Div(a, b);
}

// The whole vectors, then the rest one lane at a time (the same single operation per lane).
template <BinaryOp kOp, bool kAWalks, bool kBWalks>
HWY_INLINE void Arrays(const float* a, const float* b, float* out, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto a0 = hn::Set(d, a[0]);
  const auto b0 = hn::Set(d, b[0]);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto va = kAWalks ? hn::LoadU(d, a + i) : a0;
    const auto vb = kBWalks ? hn::LoadU(d, b + i) : b0;
    hn::StoreU(Apply<kOp>(va, vb), d, out + i);
  }
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) {
    const auto va = hn::LoadU(d1, a + (kAWalks ? i : 0));
    const auto vb = hn::LoadU(d1, b + (kBWalks ? i : 0));
    hn::StoreU(Apply<kOp>(va, vb), d1, out + i);
  }
}

template <BinaryOp kOp>
HWY_INLINE void ArraysOf(const float* a, int64_t a_step, const float* b, int64_t b_step, float* out, int64_t n) {
  if (a_step != 0 && b_step != 0) {
    Arrays<kOp, true, true>(a, b, out, n);
  } else if (a_step != 0) {
    Arrays<kOp, true, false>(a, b, out, n);
  } else if (b_step != 0) {
    Arrays<kOp, false, true>(a, b, out, n);
  } else {
    Arrays<kOp, false, false>(a, b, out, n);
  }
}

void BinaryArraysImpl(BinaryOp op, const float* a, int64_t a_step, const float* b, int64_t b_step, float* out,
                      int64_t n) {
  if (n <= 0) return;
  switch (op) {
    case BinaryOp::kAdd:
      return ArraysOf<BinaryOp::kAdd>(a, a_step, b, b_step, out, n);
    case BinaryOp::kSub:
      return ArraysOf<BinaryOp::kSub>(a, a_step, b, b_step, out, n);
    case BinaryOp::kMul:
      return ArraysOf<BinaryOp::kMul>(a, a_step, b, b_step, out, n);
    case BinaryOp::kDiv:
      return ArraysOf<BinaryOp::kDiv>(a, a_step, b, b_step, out, n);
  }
}

// One block of kBlock values held in registers (a vector of kBlock lanes, or kBlock / lanes vectors).
template <BinaryOp kOp, int64_t kBlock, bool kAWalks>
HWY_INLINE void BlockRows(const float* a, const float* b, float* out, int64_t rows) {
  const hn::CappedTag<float, kBlock> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if (lanes == kBlock) {
    const auto fixed = hn::LoadU(d, kAWalks ? b : a);
    const float* walk = kAWalks ? a : b;
    for (int64_t r = 0; r < rows; ++r) {
      const auto v = hn::LoadU(d, walk + r * kBlock);
      hn::StoreU(kAWalks ? Apply<kOp>(v, fixed) : Apply<kOp>(fixed, v), d, out + r * kBlock);
    }
    return;
  }
  // Narrower vectors than the block (SSE4, or 8-lane AVX2 under a 16 block): the block in parts.
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < kBlock; j += lanes) {
      const auto va = hn::LoadU(d, a + (kAWalks ? r * kBlock : 0) + j);
      const auto vb = hn::LoadU(d, b + (kAWalks ? 0 : r * kBlock) + j);
      hn::StoreU(Apply<kOp>(va, vb), d, out + r * kBlock + j);
    }
  }
}

template <BinaryOp kOp>
HWY_INLINE void BlockRowsOf(const float* a, const float* b, float* out, int64_t rows, int64_t block, bool a_walks) {
  if (block == 16) {
    a_walks ? BlockRows<kOp, 16, true>(a, b, out, rows) : BlockRows<kOp, 16, false>(a, b, out, rows);
  } else {
    a_walks ? BlockRows<kOp, 8, true>(a, b, out, rows) : BlockRows<kOp, 8, false>(a, b, out, rows);
  }
}

void BinaryBlockRowsImpl(BinaryOp op, const float* a, const float* b, float* out, int64_t rows, int64_t block,
                         bool a_walks) {
  switch (op) {
    case BinaryOp::kAdd:
      return BlockRowsOf<BinaryOp::kAdd>(a, b, out, rows, block, a_walks);
    case BinaryOp::kSub:
      return BlockRowsOf<BinaryOp::kSub>(a, b, out, rows, block, a_walks);
    case BinaryOp::kMul:
      return BlockRowsOf<BinaryOp::kMul>(a, b, out, rows, block, a_walks);
    case BinaryOp::kDiv:
      return BlockRowsOf<BinaryOp::kDiv>(a, b, out, rows, block, a_walks);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onyx::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onyx::kernels {

HWY_EXPORT(BinaryArraysImpl);
HWY_EXPORT(BinaryBlockRowsImpl);

void BinaryArrays(BinaryOp op, const float* a, int64_t a_step, const float* b, int64_t b_step, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryArraysImpl)(op, a, a_step, b, b_step, out, n);
}

void BinaryBlockRows(BinaryOp op, const float* a, const float* b, float* out, int64_t rows, int64_t block,
                     bool a_walks) {
  if (block != 8 && block != 16) return;
  HWY_DYNAMIC_DISPATCH(BinaryBlockRowsImpl)(op, a, b, out, rows, block, a_walks);
}

}  // namespace onyx::kernels
#endif  // HWY_ONCE
