#include "kernels/elementwise_jit.h"

#include <xbyak/xbyak.h>

#include <vector>

#include "kernels/cpu_isa.h"

namespace onyx::kernels {
namespace {

using Op = ElementwiseStep::Op;

// vcmpps predicates as C++'s < and > on floats compile them: ordered and quiet (false for NaN).
constexpr uint8_t kCmpLtOq = 0x11;
constexpr uint8_t kCmpGtOq = 0x1E;
constexpr uint8_t kCmpUnordQ = 0x03;         // either operand NaN
constexpr uint8_t kRoundNearestEven = 0x08;  // vroundps: to nearest even, inexact not signalled

// Registers ymm0..ymm14 hold the program's values; ymm15 is scratch (a constant first operand, a clamp's mask).
constexpr int kValueRegisters = 15;

// void fn(const float* x, float* y, const float* constants, int64_t vectors), System V: rdi, rsi, rdx, rcx.
class ChainGenerator : public Xbyak::CodeGenerator {
 public:
  // Throws Xbyak::Error when the code does not fit; returns false when the program needs more registers.
  ChainGenerator() : Xbyak::CodeGenerator(4096, Xbyak::DontSetProtectRWE) {}

  bool Generate(std::span<const ElementwiseStep> steps, std::vector<float>* constants) {
    const int num_values = static_cast<int>(steps.size()) + 1;
    // The last step reading each value (the result: one past the steps, for the store).
    std::vector<int> last_use(static_cast<size_t>(num_values), -1);
    for (int s = 0; s < static_cast<int>(steps.size()); ++s) {
      const ElementwiseStep& step = steps[static_cast<size_t>(s)];
      if (!step.a_is_constant) last_use[static_cast<size_t>(step.a)] = s;
      if (IsBinary(step.op) && !step.b_is_constant) last_use[static_cast<size_t>(step.b)] = s;
    }
    last_use.back() = static_cast<int>(steps.size());
    auto constant_operand = [&](float v) {
      const size_t offset = constants->size() * sizeof(float);
      constants->insert(constants->end(), 8, v);
      return ptr[rdx + offset];
    };
    std::vector<int> reg_of(static_cast<size_t>(num_values), -1);
    std::vector<bool> busy(kValueRegisters, false);
    auto allocate = [&]() -> int {
      for (int r = 0; r < kValueRegisters; ++r) {
        if (!busy[static_cast<size_t>(r)]) {
          busy[static_cast<size_t>(r)] = true;
          return r;
        }
      }
      return -1;
    };
    const Xbyak::Ymm scratch(15);
    Xbyak::Label loop;
    L(loop);
    reg_of[0] = allocate();
    vmovups(Xbyak::Ymm(reg_of[0]), ptr[rdi]);
    for (int s = 0; s < static_cast<int>(steps.size()); ++s) {
      const ElementwiseStep& step = steps[static_cast<size_t>(s)];
      if (step.op == Op::kSigmoid || step.op == Op::kTanh) return false;  // Highway's code: the interpreter
      const bool unary = !IsBinary(step.op);
      if (unary ? step.a_is_constant : (step.a_is_constant && step.b_is_constant)) return false;
      const bool selects = step.op == Op::kClampBelow || step.op == Op::kClampAbove || step.op == Op::kReplaceNaN;
      if (selects && step.a_is_constant) return false;
      // Operand a in a register (a constant first goes through scratch), b in a register or in memory.
      Xbyak::Ymm a(scratch);
      if (step.a_is_constant) {
        vmovups(scratch, constant_operand(step.a_value));
      } else {
        a = Xbyak::Ymm(reg_of[static_cast<size_t>(step.a)]);
      }
      const Xbyak::Address b_constant = step.b_is_constant ? constant_operand(step.b_value) : ptr[rdx];
      const Xbyak::Ymm b_register(step.b_is_constant || unary ? 15 : reg_of[static_cast<size_t>(step.b)]);
      const Xbyak::Operand& b = step.b_is_constant ? static_cast<const Xbyak::Operand&>(b_constant)
                                                   : static_cast<const Xbyak::Operand&>(b_register);
      // Operands read for the last time give their registers up before the result takes one (an instruction reads
      // its operands before it writes).
      for (int v : {step.a_is_constant ? -1 : step.a, step.b_is_constant || unary ? -1 : step.b}) {
        if (v >= 0 && last_use[static_cast<size_t>(v)] == s)
          busy[static_cast<size_t>(reg_of[static_cast<size_t>(v)])] = false;
      }
      const int dst_index = allocate();
      if (dst_index < 0) return false;
      reg_of[static_cast<size_t>(s + 1)] = dst_index;
      const Xbyak::Ymm dst(dst_index);
      switch (step.op) {
        case Op::kAdd:
          vaddps(dst, a, b);
          break;
        case Op::kSub:
          vsubps(dst, a, b);
          break;
        case Op::kMul:
          vmulps(dst, a, b);
          break;
        case Op::kDiv:
          vdivps(dst, a, b);
          break;
        case Op::kClampBelow:  // a < b ? b : a
          vcmpps(scratch, a, b, kCmpLtOq);
          vblendvps(dst, a, b, scratch);
          break;
        case Op::kClampAbove:  // a > b ? b : a
          vcmpps(scratch, a, b, kCmpGtOq);
          vblendvps(dst, a, b, scratch);
          break;
        case Op::kReplaceNaN:  // a is NaN ? b : a
          vcmpps(scratch, a, a, kCmpUnordQ);
          vblendvps(dst, a, b, scratch);
          break;
        case Op::kRoundEven:  // round(a) + 0: -0 becomes +0
          vroundps(dst, a, kRoundNearestEven);
          vxorps(scratch, scratch, scratch);
          vaddps(dst, dst, scratch);
          break;
        default:
          return false;
      }
    }
    vmovups(ptr[rsi], Xbyak::Ymm(reg_of.back()));
    add(rdi, 32);
    add(rsi, 32);
    dec(rcx);
    jnz(loop);
    vzeroupper();
    ret();
    return true;
  }
};

}  // namespace

struct ElementwiseJit::Code {
  ChainGenerator generator;
  std::vector<float> constants;  // each constant 8 times (one ymm load)
  void (*fn)(const float*, float*, const float*, int64_t) = nullptr;
};

std::unique_ptr<ElementwiseJit> ElementwiseJit::Create(std::span<const ElementwiseStep> steps) {
  if (EffectiveIsa() == Isa::kOther || steps.empty()) return nullptr;
  try {
    auto code = std::make_unique<Code>();
    if (!code->generator.Generate(steps, &code->constants)) return nullptr;
    code->generator.setProtectModeRE();  // written once, then executable and no longer writable
    code->fn = code->generator.getCode<void (*)(const float*, float*, const float*, int64_t)>();
    return std::unique_ptr<ElementwiseJit>(new ElementwiseJit(std::move(code)));
  } catch (const std::exception&) {  // Xbyak::Error: no executable memory, code too large
    return nullptr;
  }
}

ElementwiseJit::ElementwiseJit(std::unique_ptr<Code> code) : code_(std::move(code)) {}
ElementwiseJit::~ElementwiseJit() = default;

void ElementwiseJit::Run(const float* x, float* y, int64_t vectors) const {
  if (vectors > 0) code_->fn(x, y, code_->constants.data(), vectors);
}

}  // namespace onyx::kernels
