// Operators of onyx's private domain (ai.onyx.internal) that the graph optimizer's fusions emit: Gelu (ONNX opset 20),
// LayerNormalization (opset 17), HardSwish (14) and GroupNormalization (21, per-channel scale) where a model's opset
// predates the standard operator (they run the standard kernels, which read nothing version-specific), and
// FusedElementwise (fused_elementwise.cc). Registered after every other family (op_list.h order).
#include "ir/gradient.h"
#include "ops/fused/fused_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterFusedOps(KernelRegistry& registry) {
  const std::pair<const char*, int> standard[] = {
      {"Gelu", 20}, {"LayerNormalization", 17}, {"HardSwish", 14}, {"GroupNormalization", 21}};
  for (const auto& [op, since] : standard) {
    if (const KernelFactory* factory = registry.Find("", op, since)) {
      registry.Add(ir::kInternalDomain, op, 1, kLatestVersion, *factory);
    }
  }
  RegisterFusedElementwise(registry);
}

}  // namespace onyx::ops
