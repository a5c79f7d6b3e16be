// The onyx-internal operators (domain ai.onyx.internal) that compute in oneDNN's 16-channel blocked layout
// (nChw16c). A blocked value is a float32 tensor [N, ceil(C/16), H, W, 16] whose padding channels hold zeros;
// the optimizer's layout pass (src/optimizer/nchwc_layout.h) rewrites chains of 2-D convolutions into these ops
// so that the layout changes only at the chain's borders. Elementwise ops that keep zeros at zero (Add, Relu,
// Clip around 0, Concat of whole blocks along axis 1) run on blocked values unchanged.
#pragma once

namespace onyx::ops::nchwc {

// NchwcConv(X, W, B?, Sum?, DwW?, DwB?) -> Y: Conv's attributes plus
//   input_blocked (int): X is blocked (1) or plain NCHW (0); Y is always blocked;
//   activation (string: "", Relu, LeakyRelu, Clip, Tanh, HardSwish), activation_alpha/activation_beta (float): a
//   fused activation applied after the bias (and after adding Sum);
//   Sum: a blocked tensor of Y's shape added to the convolution's result (a fused residual Add);
//   DwW [C, 1, 3, 3], DwB [C]: a depthwise 3x3 convolution (pads 1, stride dw_stride = 1 or 2) applied to the
//   result of a 1x1 convolution, then dw_activation (same names, dw_activation_alpha/beta): oneDNN's depthwise
//   post-op, so the 1x1 output never leaves the cache (MobileNet's expand + depthwise pairs). Not with Sum.
// W and B must be initializers: the weights are reordered into oneDNN's preferred layout once, at creation.
inline constexpr const char* kConv = "NchwcConv";
// NchwcPool(X) -> Y on blocked tensors: mode = max | avg (count_include_pad) | global_avg | global_max, with
// MaxPool/AveragePool's window attributes.
inline constexpr const char* kPool = "NchwcPool";
// NchwcReorder(X) -> Y: to_blocked = 1: plain [N, C, H, W] to blocked; 0: blocked to plain with `channels` C.
inline constexpr const char* kReorder = "NchwcReorder";

inline constexpr int kBlock = 16;

}  // namespace onyx::ops::nchwc
