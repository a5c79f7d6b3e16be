// The Conversion family's per-file registration functions, called from register.cc.
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::conversion {

void RegisterCastOps(KernelRegistry& registry);
void RegisterBitCastOp(KernelRegistry& registry);

}  // namespace onyx::ops::conversion
