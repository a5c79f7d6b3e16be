// Helpers shared by the Signal family (DFT, STFT, window functions, MelWeightMatrix) and the per-file registration
// functions called from register.cc.
#pragma once

#include <cstdint>
#include <string>

#include "core/data_type.h"
#include "core/status.h"
#include "core/tensor.h"
#include "runtime/kernel.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::signal_ops {

// Input i as one integer (a scalar or a one-element tensor of any integer type).
inline Result<int64_t> ScalarIntInput(const KernelContext& ctx, size_t i, const std::string& name) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(i));
  if (!IsInteger(t->type())) {
    return InvalidArgument("input '" + name + "' (" + std::to_string(i) + ") has element type " +
                           std::string(DataTypeName(t->type())) + ", expected an integer type");
  }
  if (t->size() != 1) {
    return InvalidArgument("input '" + name + "' (" + std::to_string(i) + ") has shape " +
                           ShapeToString(t->shape()) + ", expected a scalar");
  }
  return t->IntAt(0);
}

// Input i as one floating-point number (a scalar or one-element tensor of a float type).
inline Result<double> ScalarFloatInput(const KernelContext& ctx, size_t i, const std::string& name) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(i));
  if (!IsFloatingPoint(t->type())) {
    return InvalidArgument("input '" + name + "' (" + std::to_string(i) + ") has element type " +
                           std::string(DataTypeName(t->type())) + ", expected a floating-point type");
  }
  if (t->size() != 1) {
    return InvalidArgument("input '" + name + "' (" + std::to_string(i) + ") has shape " +
                           ShapeToString(t->shape()) + ", expected a scalar");
  }
  return t->DoubleAt(0);
}

void RegisterDftOps(KernelRegistry& registry);
void RegisterStftOps(KernelRegistry& registry);
void RegisterWindowOps(KernelRegistry& registry);
void RegisterMelWeightMatrixOps(KernelRegistry& registry);

}  // namespace onyx::ops::signal_ops
