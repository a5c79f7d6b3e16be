#include "ops/nchwc/nchwc_ops.h"
#include "ops/op_list.h"

namespace onyx::ops {

void RegisterNchwcOps(KernelRegistry& registry) {
  nchwc::RegisterNchwcConv(registry);
  nchwc::RegisterNchwcPool(registry);
  nchwc::RegisterNchwcReorder(registry);
}

}  // namespace onyx::ops
