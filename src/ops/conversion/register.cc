#include "ops/conversion/conversion.h"
#include "ops/op_list.h"

namespace onyx::ops {

void RegisterConversionOps(KernelRegistry& registry) {
  conversion::RegisterCastOps(registry);
  conversion::RegisterBitCastOp(registry);
}

}  // namespace onyx::ops
