// A chain of float32 elementwise steps over one input, evaluated in one pass: each step reads the input, earlier
// steps' results or a constant, and the chain's last result is the output. The chain reads its input and writes its
// output once, where one operator per step reads and writes the whole tensor per step (TensorFlow's decomposed
// hard-swish, x * c * relu6(x + 3), is four passes). On AVX CPUs the steps run in registers, in machine code made
// for the program (elementwise_jit.h); elsewhere, and for Sigmoid and Tanh, blocks of a few hundred elements run
// through every step while they stay in L1.
//
// Each step computes exactly what the standalone ONNX operator it replaces computes, element by element (the
// same IEEE operation, no contraction into fused multiply-adds; Sigmoid and Tanh through the same vector_math.h
// functions), so a fused chain gives the bits of the unfused one.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace onyx::kernels {

struct ElementwiseStep {
  enum class Op : uint8_t {
    kAdd,         // a + b
    kSub,         // a - b
    kMul,         // a * b
    kDiv,         // a / b
    kClampBelow,  // a < b ? b : a (Relu with b = 0, Clip's lower bound; NaN stays)
    kClampAbove,  // a > b ? b : a (Clip's upper bound; NaN stays)
    kReplaceNaN,  // a is NaN ? b : a
    kRoundEven,   // a rounded to the nearest integer, ties to even, plus +0 (so -0 becomes +0, as through an int32)
    kSigmoid,     // kernels::Sigmoid(a)
    kTanh,        // kernels::Tanh(a)
  };
  Op op = Op::kAdd;
  // Operands: a register (0 the input, k >= 1 the result of step k - 1) or, where `*_is_constant`, the value.
  int a = 0;
  int b = 0;
  bool a_is_constant = false;
  bool b_is_constant = false;
  float a_value = 0;
  float b_value = 0;
};

// The most steps a chain may have (their intermediate blocks live on the stack).
inline constexpr int kMaxElementwiseSteps = 24;

// Whether the step reads operand b.
bool IsBinary(ElementwiseStep::Op op);

// The block interpreter alone: y[i] = the last step's result for x[i], i < n; y may be x. `steps` must be valid:
// 1..kMaxElementwiseSteps steps, each register operand < its step's index + 1, unary steps reading a register.
void InterpretElementwiseProgram(std::span<const ElementwiseStep> steps, const float* x, float* y, int64_t n);

class ElementwiseJit;

// A program prepared once (its machine code generated where the CPU allows) and run many times.
class ElementwiseProgram {
 public:
  // `steps` as for InterpretElementwiseProgram.
  explicit ElementwiseProgram(std::vector<ElementwiseStep> steps);
  ~ElementwiseProgram();
  ElementwiseProgram(ElementwiseProgram&&) noexcept;
  ElementwiseProgram& operator=(ElementwiseProgram&&) noexcept;

  // y[i] = the last step's result for x[i], i < n; y may be x. Safe to call from several threads at once.
  void Run(const float* x, float* y, int64_t n) const;
  bool compiled() const { return jit_ != nullptr; }  // whether machine code runs the whole vectors
  const std::vector<ElementwiseStep>& steps() const { return steps_; }

 private:
  std::vector<ElementwiseStep> steps_;
  std::unique_ptr<ElementwiseJit> jit_;
};

}  // namespace onyx::kernels
