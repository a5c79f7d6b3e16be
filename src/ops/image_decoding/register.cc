#include "ops/image_decoding/image_decoding_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterImageDecodingOps(KernelRegistry& registry) { image_decoding::RegisterImageDecoderOps(registry); }

}  // namespace onyx::ops
