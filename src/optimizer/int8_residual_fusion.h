// The residual adds of 8-bit CNNs fused into the convolution before them: after the 8-bit layout pass
// (optimizer/int8_nhwc_layout.h), an ai.onyx.internal.QLinearAdd whose operand A or B is the channels-last result of
// an ai.onyx.internal.QLinearConv of one group with every quantization parameter a constant (what onyx's 1x1 and
// direct int8 kernels take), read by nothing else, becomes that QLinearConv with the Add's other operand and
// parameters as inputs 9-13 (ops/quant/qlinear_conv_nhwc.cc): onyx's kernels form the sum while the convolution's
// results are in registers instead of in a pass of its own over both images; after oneDNN's convolution the add runs
// in place. ResNet-50's bottleneck blocks end so (a 1x1 convolution), ResNet-18/34's basic blocks with a 3x3 one: the
// 16 residual adds took ~5% of ResNet-50 QDQ's time at 1 thread. ONNX Runtime's com.microsoft QLinearConv
// (channels_last = 1, int8 weights of zero points 0) and QLinearAdd, in models its optimizer saved, fuse the same way.
// The values are QLinearConv's, then QLinearAdd's, bit for bit.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Rewrites the main graph (after ApplyInt8NhwcLayout; subgraphs are left alone); returns how many adds were fused.
Result<int> FuseInt8ResidualAdds(ir::Model& model);

}  // namespace onyx::optimizer
