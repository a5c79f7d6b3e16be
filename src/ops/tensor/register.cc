#include "ops/op_list.h"
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterTensorOpsOps(KernelRegistry& registry) {
  movement::RegisterReshapeOps(registry);
  movement::RegisterTransposeOps(registry);
  movement::RegisterConcatSplitOps(registry);
  movement::RegisterSliceOps(registry);
  movement::RegisterGatherOps(registry);
  movement::RegisterScatterOps(registry);
  movement::RegisterExpandTileOps(registry);
  movement::RegisterPadOps(registry);
  movement::RegisterConstantOps(registry);
  movement::RegisterTriluOps(registry);
  movement::RegisterDropoutOps(registry);
  movement::RegisterSelectOps(registry);
  movement::RegisterUniqueOps(registry);
}

}  // namespace onyx::ops
