#include "ops/image/image_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterImageOps(KernelRegistry& registry) {
  image::RegisterResizeOps(registry);
}

}  // namespace onyx::ops
