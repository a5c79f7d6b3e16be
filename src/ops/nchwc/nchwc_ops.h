// Registration of the blocked-layout kernels (see nchwc_names.h for what each operator does).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::nchwc {

void RegisterNchwcConv(KernelRegistry& registry);
void RegisterNchwcPool(KernelRegistry& registry);
void RegisterNchwcReorder(KernelRegistry& registry);

}  // namespace onyx::ops::nchwc
