// The built-in kernels: KernelRegistry::Global() (declared by the runtime) filled from the one list of operator
// families. Defined here, in the ops layer, so that the runtime includes nothing of the kernels it runs.
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx {

const KernelRegistry& KernelRegistry::Global() {
  // Never destroyed: kernels may still be created from other static destructors' threads at exit.
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
#define ONYX_REGISTER_FAMILY(name) ops::Register##name##Ops(*r);
    ONYX_OP_FAMILIES(ONYX_REGISTER_FAMILY)
#undef ONYX_REGISTER_FAMILY
    return r;
  }();
  return *registry;
}

}  // namespace onyx
