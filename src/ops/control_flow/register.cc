#include "ops/control_flow/control_flow.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterControlFlowOps(KernelRegistry& registry) {
  control_flow::RegisterIfOps(registry);
  control_flow::RegisterLoopOps(registry);
  control_flow::RegisterScanOps(registry);
}

}  // namespace onyx::ops
