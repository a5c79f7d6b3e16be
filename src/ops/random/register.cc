#include "ops/op_list.h"
#include "ops/random/random_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterRandomOps(KernelRegistry& registry) {
  random::RegisterDistributionOps(registry);
  random::RegisterSamplingOps(registry);
}

}  // namespace onyx::ops
