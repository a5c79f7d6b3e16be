#include "ops/op_list.h"
#include "ops/signal/signal.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterSignalOps(KernelRegistry& registry) {
  signal_ops::RegisterDftOps(registry);
  signal_ops::RegisterStftOps(registry);
  signal_ops::RegisterWindowOps(registry);
  signal_ops::RegisterMelWeightMatrixOps(registry);
}

}  // namespace onyx::ops
