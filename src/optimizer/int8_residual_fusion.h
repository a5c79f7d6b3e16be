// The residual adds of 8-bit CNNs fused into the 1x1 convolution before them: after the 8-bit layout pass
// (optimizer/int8_nhwc_layout.h), an ai.onyx.internal.QLinearAdd whose operand A or B is the channels-last result of
// a 1x1 ai.onyx.internal.QLinearConv (one group, no padding, no dilation, every quantization parameter a constant)
// that nothing else reads becomes that QLinearConv with the Add's other operand and parameters as inputs 9-13
// (ops/quant/qlinear_conv_nhwc.cc), so the sum is formed while the convolution's results are in registers instead of
// in a pass of its own over both images. ResNet-50's bottleneck blocks end so: their 16 residual adds took ~5% of
// the QDQ model's time at 1 thread. The values are QLinearConv's, then QLinearAdd's, bit for bit.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Rewrites `graph` (the main graph after ApplyInt8NhwcLayout); returns how many adds were fused.
Result<int> FuseInt8ResidualAdds(ir::Graph& graph);

}  // namespace onyx::optimizer
