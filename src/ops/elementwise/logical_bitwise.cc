// Binary logic on bools (And, Or, Xor) and on integer bits (BitwiseAnd, BitwiseOr, BitwiseXor, BitShift).
// Not and BitwiseNot, being unary, live in unary_math.cc.
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

struct BitFn : NoAttributes {
  static constexpr bool kBoolOutput = false;
  static constexpr bool kDivides = false;
};

struct AndFn : BitFn {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(a & b);
  }
};

struct OrFn : BitFn {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(a | b);
  }
};

struct XorFn : BitFn {
  template <typename C>
  C operator()(C a, C b) const {
    return static_cast<C>(a ^ b);
  }
};

// Shifting by the bit width or more gives 0 (in C it would be undefined).
struct BitShiftFn : BitFn {
  bool left = true;
  Status Init(const KernelInfo& info) {
    if (!info.HasAttribute("direction")) return info.Error("attribute 'direction' is required");
    const std::string direction = info.GetString("direction");
    if (direction != "LEFT" && direction != "RIGHT") {
      return info.Error("attribute 'direction' is '" + direction + "', expected 'LEFT' or 'RIGHT'");
    }
    left = direction == "LEFT";
    return Status::Ok();
  }
  template <typename C>
  C operator()(C a, C b) const {
    if (b >= C(sizeof(C) * 8)) return C(0);
    return left ? static_cast<C>(static_cast<WideUnsigned<C>>(a) << b) : static_cast<C>(a >> b);
  }
};

}  // namespace

void RegisterLogicalAndBitwiseOps(KernelRegistry& registry) {
  using Bool = TypeList<bool>;
  AddBinary<Bool, AndFn>(registry, "And", 1);
  AddBinary<Bool, OrFn>(registry, "Or", 1);
  AddBinary<Bool, XorFn>(registry, "Xor", 1);
  AddBinary<IntTypes, AndFn>(registry, "BitwiseAnd", 18);
  AddBinary<IntTypes, OrFn>(registry, "BitwiseOr", 18);
  AddBinary<IntTypes, XorFn>(registry, "BitwiseXor", 18);
  AddBinary<UnsignedIntTypes, BitShiftFn>(registry, "BitShift", 11);
}

}  // namespace onyx::ops::elementwise
