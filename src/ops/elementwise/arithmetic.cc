// Binary arithmetic with broadcasting: Add, Sub, Mul, Div, Mod. Integers wrap on overflow; integer division
// truncates toward zero like C; a zero integer divisor is an error.
#include <cmath>

#include "kernels/binary_arithmetic.h"
#include "kernels/vector_math.h"
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

struct ArithmeticFn : NoAttributes {
  static constexpr bool kBoolOutput = false;
  static constexpr bool kDivides = false;
};

struct AddFn : ArithmeticFn {
  static constexpr kernels::BinaryOp kFloatOp = kernels::BinaryOp::kAdd;
  template <typename C>
  C operator()(C a, C b) const {
    return WrapAdd(a, b);
  }
};

struct SubFn : ArithmeticFn {
  static constexpr kernels::BinaryOp kFloatOp = kernels::BinaryOp::kSub;
  template <typename C>
  C operator()(C a, C b) const {
    return WrapSub(a, b);
  }
};

struct MulFn : ArithmeticFn {
  static constexpr kernels::BinaryOp kFloatOp = kernels::BinaryOp::kMul;
  template <typename C>
  C operator()(C a, C b) const {
    return WrapMul(a, b);
  }
};

struct DivFn : ArithmeticFn {
  static constexpr bool kDivides = true;
  static constexpr kernels::BinaryOp kFloatOp = kernels::BinaryOp::kDiv;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
      if (b == C(-1)) return WrapNeg(a);  // INT_MIN / -1 overflows (and traps on x86)
      return static_cast<C>(a / b);
    } else {
      return static_cast<C>(a / b);
    }
  }
};

// fmod=0: the remainder takes the divisor's sign (Python's %); fmod=1: the dividend's sign (C's fmod).
struct ModFn : ArithmeticFn {
  static constexpr bool kDivides = true;
  bool fmod = false;
  Status Init(const KernelInfo& info) {
    const int64_t v = info.GetInt("fmod", 0);
    if (v != 0 && v != 1) return info.Error("attribute 'fmod' is " + std::to_string(v) + ", expected 0 or 1");
    fmod = v == 1;
    return Status::Ok();
  }
  // float32: exact in double lanes (kernels::Fmod), the same bits as the scalar rule below.
  void ApplyFloatPairs(const float* a, const float* b, int64_t b_step, float* out, int64_t n) const {
    kernels::Fmod(a, b, b_step, out, n, !fmod);
  }
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (b == C(-1)) return C(0);  // INT_MIN % -1 overflows
        C r = static_cast<C>(a % b);
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    } else {
      C r = std::fmod(a, b);
      if (!fmod && r != C(0) && ((r < C(0)) != (b < C(0)))) r += b;
      return r;
    }
  }
};

}  // namespace

void RegisterArithmeticOps(KernelRegistry& registry) {
  AddBinary<NumericTypes, AddFn>(registry, "Add", 1);
  AddBinary<NumericTypes, SubFn>(registry, "Sub", 1);
  AddBinary<NumericTypes, MulFn>(registry, "Mul", 1);
  AddBinary<NumericTypes, DivFn>(registry, "Div", 1);
  AddBinary<NumericTypes, ModFn>(registry, "Mod", 10);
}

}  // namespace onyx::ops::elementwise
