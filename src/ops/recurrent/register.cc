#include "ops/op_list.h"
#include "ops/recurrent/recurrent_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterRecurrentOps(KernelRegistry& registry) {
  recurrent::RegisterRnnOps(registry);
  recurrent::RegisterEinsumOps(registry);
  recurrent::RegisterDetOps(registry);
}

}  // namespace onyx::ops
