// Highway implementation of elementwise_program.h (dispatched like vector_math.cc: foreach_target.h re-includes this
// file once per instruction set; the HWY_ONCE part picks the best one at run time). The steps' operations are
// single IEEE operations and compare-selects, so every target gives the same bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_program.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// foreach_target.h must come first: it re-includes this file, with the headers below, for each target.
#include <hwy/highway.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kernels/elementwise_jit.h"
#include "kernels/elementwise_program.h"
#include "kernels/vector_math.h"

HWY_BEFORE_NAMESPACE();
namespace onyx::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <ElementwiseStep::Op kOp, class V>
HWY_INLINE V ApplyBinary(V a, V b) {
  using Op = ElementwiseStep::Op;
  if constexpr (kOp == Op::kAdd) return hn::Add(a, b);
  if constexpr (kOp == Op::kSub) return hn::Sub(a, b);
  if constexpr (kOp == Op::kMul) return hn::Mul(a, b);
  if constexpr (kOp == Op::kDiv) return hn::Div(a, b);
  if constexpr (kOp == Op::kClampBelow) return hn::IfThenElse(hn::Lt(a, b), b, a);
  if constexpr (kOp == Op::kClampAbove) return hn::IfThenElse(hn::Gt(a, b), b, a);
  if constexpr (kOp == Op::kReplaceNaN) return hn::IfThenElse(hn::IsNaN(a), b, a);
}

// RoundEven of a[0, n) into out.
HWY_INLINE void RoundEvenBlock(const float* HWY_RESTRICT a, float* out, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Add(hn::Round(hn::LoadU(d, a + i)), hn::Zero(d)), d, out + i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) hn::StoreU(hn::Add(hn::Round(hn::LoadU(d1, a + i)), hn::Zero(d1)), d1, out + i);
}

// out[i] = op(a[i], b[i]) for i < n; a constant operand (kAConstant / kBConstant) is broadcast from its value. The
// operand kinds are template parameters so that the loop body has no branch.
template <ElementwiseStep::Op kOp, bool kAConstant, bool kBConstant>
HWY_INLINE void BinaryBlock(const float* HWY_RESTRICT a_ptr, float a_value, const float* HWY_RESTRICT b_ptr,
                            float b_value, float* out, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto a_const = hn::Set(d, a_value);
  const auto b_const = hn::Set(d, b_value);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto a = kAConstant ? a_const : hn::LoadU(d, a_ptr + i);
    const auto b = kBConstant ? b_const : hn::LoadU(d, b_ptr + i);
    hn::StoreU(ApplyBinary<kOp>(a, b), d, out + i);
  }
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) {
    const auto a = kAConstant ? hn::Set(d1, a_value) : hn::LoadU(d1, a_ptr + i);
    const auto b = kBConstant ? hn::Set(d1, b_value) : hn::LoadU(d1, b_ptr + i);
    hn::StoreU(ApplyBinary<kOp>(a, b), d1, out + i);
  }
}

template <ElementwiseStep::Op kOp>
HWY_INLINE void BinaryStep(const float* a, float a_value, const float* b, float b_value, float* out, int64_t n) {
  if (a == nullptr) {
    BinaryBlock<kOp, true, false>(a, a_value, b, b_value, out, n);
  } else if (b == nullptr) {
    BinaryBlock<kOp, false, true>(a, a_value, b, b_value, out, n);
  } else {
    BinaryBlock<kOp, false, false>(a, a_value, b, b_value, out, n);
  }
}

void RunProgramImpl(const ElementwiseStep* steps, int64_t num_steps, const float* x, float* y, int64_t n) {
  // Intermediate results of one block, one row per step but the last (which writes y directly): 23 x 1 KiB.
  constexpr int64_t kBlock = 256;
  HWY_ALIGN float regs[kMaxElementwiseSteps - 1][kBlock];
  for (int64_t lo = 0; lo < n; lo += kBlock) {
    const int64_t len = std::min(kBlock, n - lo);
    auto reg = [&](int r) -> const float* { return r == 0 ? x + lo : regs[r - 1]; };
    for (int64_t s = 0; s < num_steps; ++s) {
      const ElementwiseStep& step = steps[s];
      float* out = s + 1 == num_steps ? y + lo : regs[s];
      const float* a = step.a_is_constant ? nullptr : reg(step.a);
      const float* b = step.b_is_constant ? nullptr : reg(step.b);
      using Op = ElementwiseStep::Op;
      switch (step.op) {
        case Op::kAdd:
          BinaryStep<Op::kAdd>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kSub:
          BinaryStep<Op::kSub>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kMul:
          BinaryStep<Op::kMul>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kDiv:
          BinaryStep<Op::kDiv>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kClampBelow:
          BinaryStep<Op::kClampBelow>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kClampAbove:
          BinaryStep<Op::kClampAbove>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kReplaceNaN:
          BinaryStep<Op::kReplaceNaN>(a, step.a_value, b, step.b_value, out, len);
          break;
        case Op::kRoundEven:
          RoundEvenBlock(a, out, len);
          break;
        case Op::kSigmoid:
          Sigmoid(a, out, len);
          break;
        case Op::kTanh:
          Tanh(a, out, len);
          break;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace onyx::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace onyx::kernels {

HWY_EXPORT(RunProgramImpl);

bool IsBinary(ElementwiseStep::Op op) {
  return op != ElementwiseStep::Op::kSigmoid && op != ElementwiseStep::Op::kTanh &&
         op != ElementwiseStep::Op::kRoundEven;
}

void InterpretElementwiseProgram(std::span<const ElementwiseStep> steps, const float* x, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(RunProgramImpl)(steps.data(), static_cast<int64_t>(steps.size()), x, y, n);
}

ElementwiseProgram::ElementwiseProgram(std::vector<ElementwiseStep> steps)
    : steps_(std::move(steps)), jit_(ElementwiseJit::Create(steps_)) {}
ElementwiseProgram::~ElementwiseProgram() = default;
ElementwiseProgram::ElementwiseProgram(ElementwiseProgram&&) noexcept = default;
ElementwiseProgram& ElementwiseProgram::operator=(ElementwiseProgram&&) noexcept = default;

void ElementwiseProgram::Run(const float* x, float* y, int64_t n) const {
  int64_t done = 0;
  if (jit_ != nullptr) {
    // Whole vectors of 8 in machine code, the rest (the same operations one lane at a time) interpreted.
    done = n / 8 * 8;
    jit_->Run(x, y, n / 8);
  }
  if (done < n) InterpretElementwiseProgram(steps_, x + done, y + done, n - done);
}

}  // namespace onyx::kernels
#endif  // HWY_ONCE
