#include "ops/op_list.h"
#include "ops/sequence/sequence.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterSequenceOps(KernelRegistry& registry) {
  sequence::RegisterSequenceBasicOps(registry);
  sequence::RegisterSplitConcatOps(registry);
  sequence::RegisterSequenceMapOps(registry);
  sequence::RegisterOptionalOps(registry);
}

}  // namespace onyx::ops
