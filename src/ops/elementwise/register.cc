#include "ops/elementwise/elementwise.h"
#include "ops/op_list.h"

namespace onyx::ops {

void RegisterElementwiseOps(KernelRegistry& registry) {
  elementwise::RegisterUnaryMathOps(registry);
  elementwise::RegisterActivationOps(registry);
  elementwise::RegisterClipOp(registry);
  elementwise::RegisterArithmeticOps(registry);
  elementwise::RegisterPowOp(registry);
  elementwise::RegisterLogicalAndBitwiseOps(registry);
  elementwise::RegisterComparisonOps(registry);
  elementwise::RegisterVariadicOps(registry);
  elementwise::RegisterWhereOp(registry);
}

}  // namespace onyx::ops
