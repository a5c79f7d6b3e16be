// Registration functions of the Image family's files, called by RegisterImageOps (register.cc).
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::image {

void RegisterResizeOps(KernelRegistry& registry);             // resize.cc: Resize, Upsample
void RegisterGridSampleOps(KernelRegistry& registry);         // grid_sample.cc: GridSample
void RegisterAffineGridOps(KernelRegistry& registry);         // affine_grid.cc: AffineGrid
void RegisterRoiAlignOps(KernelRegistry& registry);           // roi_align.cc: RoiAlign
void RegisterMaxUnpoolOps(KernelRegistry& registry);          // max_unpool.cc: MaxUnpool
void RegisterCol2ImOps(KernelRegistry& registry);             // col2im.cc: Col2Im
void RegisterCenterCropPadOps(KernelRegistry& registry);      // center_crop_pad.cc: CenterCropPad
void RegisterNonMaxSuppressionOps(KernelRegistry& registry);  // non_max_suppression.cc: NonMaxSuppression
void RegisterDeformConvOps(KernelRegistry& registry);         // deform_conv.cc: DeformConv

}  // namespace onyx::ops::image
