// The onyx-internal operator (domain ai.onyx.internal) for a chain of float32 elementwise steps over one input:
// the contract between the optimizer's fusion (src/optimizer/elementwise_chain_fusion.cc) and its kernel
// (src/ops/fused/fused_elementwise.cc, on kernels/elementwise_program.h), kept in ir/ so that neither layer
// includes the other.
//
// FusedElementwise(X) -> Y, X and Y float32:
//   steps (strings): one operation per step: Add, Sub, Mul, Div (a op b), ClampBelow (a < b ? b : a: Relu, Clip's
//     lower bound), ClampAbove (a > b ? b : a: Clip's upper bound), ReplaceNaN (a is NaN ? b : a), RoundEven (a to
//     the nearest integer, ties to even, -0 as +0), Sigmoid, Tanh (of a);
//   operands (ints): two per step, a then b (b unused by RoundEven, Sigmoid and Tanh: 0): r >= 0 reads register r (0 is
//   X,
//     k >= 1 the result of step k - 1, so r <= the step's index), r < 0 reads constants[-r - 1];
//   constants (floats);
//   rank (int, default 0): Y's rank is at least this (the one-element constants broadcast like [1, ..., 1] of their
//     own rank): Y is X's shape with 1s put in front up to it.
// Y is the last step's result. Each step computes what the ONNX operator it came from computes, bit for bit; a
// QuantizeLinear -> DequantizeLinear pair with one scale and zero point is x / s, NaN to 0, clamped to the 8-bit
// range less the zero point, RoundEven, times s (the 8-bit value never materializes).
#pragma once

namespace onyx::ir::fused {

inline constexpr const char* kFusedElementwise = "FusedElementwise";

}  // namespace onyx::ir::fused
