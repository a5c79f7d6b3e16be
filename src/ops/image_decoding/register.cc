#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterImageDecodingOps(KernelRegistry& registry) { (void)registry; }

}  // namespace onyx::ops
