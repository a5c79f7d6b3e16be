// Machine code for an elementwise program (elementwise_program.h) on AVX CPUs, generated once per program with Xbyak
// (Debian's libxbyak-dev, the JIT assembler oneDNN is built on): the loop loads 8 inputs into a ymm register, runs
// every step in registers (each value of the program in its own register until its last reader) and stores the
// result, so that the chain costs one pass at about the speed of a copy. The instructions are the single IEEE
// operations the standalone operators execute (vaddps, vsubps, vmulps, vdivps; vcmpps + vblendvps for the clamps),
// so the bits are theirs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "kernels/elementwise_program.h"

namespace onyx::kernels {

class ElementwiseJit {
 public:
  // Null where the CPU (as capped by ONYX_MAX_ISA) lacks AVX2, for programs with Sigmoid or Tanh (their vector
  // code is Highway's), for more live values than registers, or when code generation fails: the caller then runs
  // the portable interpreter.
  static std::unique_ptr<ElementwiseJit> Create(std::span<const ElementwiseStep> steps);
  ~ElementwiseJit();
  ElementwiseJit(const ElementwiseJit&) = delete;
  ElementwiseJit& operator=(const ElementwiseJit&) = delete;

  // y[i] for i < vectors * 8 (y may be x).
  void Run(const float* x, float* y, int64_t vectors) const;

 private:
  struct Code;
  explicit ElementwiseJit(std::unique_ptr<Code> code);
  std::unique_ptr<Code> code_;
};

}  // namespace onyx::kernels
