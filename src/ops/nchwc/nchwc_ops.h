// Registration of the blocked-layout kernels (see ir/nchwc_ops.h for what each operator does).
#pragma once

#include "ir/nchwc_ops.h"

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::nchwc {

using ir::nchwc::kConv;
using ir::nchwc::kPool;
using ir::nchwc::kReorder;

void RegisterNchwcConv(KernelRegistry& registry);
void RegisterNchwcPool(KernelRegistry& registry);
void RegisterNchwcReorder(KernelRegistry& registry);

}  // namespace onyx::ops::nchwc
