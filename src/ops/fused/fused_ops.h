// Registration of the fused family's own kernels (register.cc calls them).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops {

void RegisterFusedElementwise(KernelRegistry& registry);

}  // namespace onyx::ops
