// Operators of onyx's private domain (ai.onyx.internal) that the graph optimizer's fusions emit: the twins of standard
// operators a model's opset predates (ir::kInternalStandardTwins: Gelu, LayerNormalization, HardSwish and
// GroupNormalization with its per-channel scale of opset 21), which run the standard kernels (they read nothing
// version-specific), and FusedElementwise (fused_elementwise.cc). Registered after every other family (op_list.h
// order).
#include "ir/gradient.h"
#include "ops/fused/fused_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterFusedOps(KernelRegistry& registry) {
  for (const ir::InternalStandardTwin& twin : ir::kInternalStandardTwins) {
    if (const KernelFactory* factory = registry.Find("", twin.op_type, twin.since_version)) {
      registry.Add(ir::kInternalDomain, twin.op_type, 1, kLatestVersion, *factory);
    }
  }
  RegisterFusedElementwise(registry);
}

}  // namespace onyx::ops
