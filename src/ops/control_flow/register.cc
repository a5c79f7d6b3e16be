#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterControlFlowOps(KernelRegistry& registry) { (void)registry; }

}  // namespace onyx::ops
