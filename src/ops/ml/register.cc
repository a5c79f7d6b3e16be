#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterMachineLearningOps(KernelRegistry& registry) { (void)registry; }

}  // namespace onyx::ops
