#include "ops/loss/loss_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterLossOps(KernelRegistry& registry) {
  loss::RegisterCrossEntropyOps(registry);
  loss::RegisterOptimizerOps(registry);
  loss::RegisterSumToShapeOps(registry);
}

}  // namespace onyx::ops
