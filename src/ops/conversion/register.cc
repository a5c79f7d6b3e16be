#include "ops/conversion/conversion.h"
#include "ops/op_list.h"

namespace onyx::ops {

void RegisterConversionOps(KernelRegistry& registry) { conversion::RegisterCastOps(registry); }

}  // namespace onyx::ops
