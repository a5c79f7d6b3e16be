#include "ops/op_list.h"
#include "ops/reduction/reduction_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterReductionOps(KernelRegistry& registry) {
  RegisterReduceOps(registry);
  RegisterArgMinMaxOps(registry);
  RegisterSoftmaxOps(registry);
  RegisterCumulativeOps(registry);
  RegisterTopKOps(registry);
  RegisterLpNormalizationOps(registry);
}

}  // namespace onyx::ops
