#include "ops/nn/nn_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterNeuralNetOps(KernelRegistry& registry) {
  nn::RegisterMatMulOps(registry);
  nn::RegisterGemmOps(registry);
  nn::RegisterConvOps(registry);
  nn::RegisterConvTransposeOps(registry);
  nn::RegisterPoolOps(registry);
  nn::RegisterBatchNormOps(registry);
  nn::RegisterNormalizationOps(registry);
  nn::RegisterLrnOps(registry);
  nn::RegisterQuantizeOps(registry);
}

}  // namespace onyx::ops
