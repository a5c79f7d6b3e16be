#include "ops/image/image_ops.h"
#include "ops/op_list.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterImageOps(KernelRegistry& registry) {
  image::RegisterResizeOps(registry);
  image::RegisterGridSampleOps(registry);
  image::RegisterAffineGridOps(registry);
  image::RegisterRoiAlignOps(registry);
  image::RegisterMaxUnpoolOps(registry);
  image::RegisterCol2ImOps(registry);
  image::RegisterCenterCropPadOps(registry);
  image::RegisterNonMaxSuppressionOps(registry);
  image::RegisterDeformConvOps(registry);
}

}  // namespace onyx::ops
