#include "ops/op_list.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterQuantizedOps(KernelRegistry& registry) {
  quant::RegisterQLinearAddOps(registry);
  quant::RegisterQLinearPoolOps(registry);
  quant::RegisterMaxPool8BitOps(registry);
  quant::RegisterQLinearConvNhwcOps(registry);
  quant::RegisterMatMulIntegerToFloatOps(registry);
  quant::RegisterQGemmOps(registry);
  quant::RegisterQuantizeNhwcOps(registry);
  quant::RegisterQLinearConcatOps(registry);
  quant::RegisterQLinearLookupOps(registry);
  quant::RegisterQLinearSoftmaxOps(registry);
  quant::RegisterQLinearAveragePoolOps(registry);
  quant::RegisterRequantizeInt32Ops(registry);
}

}  // namespace onyx::ops
