// The onyx-internal operators (domain ai.onyx.internal) that compute in oneDNN's channel-blocked layouts (nChw16c,
// nChw8c): the contract between the optimizer's layout pass and the kernels of src/ops/nchwc/, kept in ir/ so that
// neither layer includes the other. A blocked value is a float32 tensor [N, ceil(C/b), H, W, b] whose padding
// channels hold zeros, b being the channel block (kBlockAttr below); the optimizer's layout pass
// (src/optimizer/nchwc_layout.h) rewrites chains of 2-D convolutions into these ops so that the layout changes only
// at the chain's borders. Elementwise ops that keep zeros at zero (Add, Relu, Clip around 0, Concat of whole blocks
// along axis 1) run on blocked values unchanged.
#pragma once

#include <cstdint>

namespace onyx::ir::nchwc {

// NchwcConv(X, W, B?, Sum?, DwW?, DwB?) -> Y: Conv's attributes plus
//   input_blocked (int): X is blocked (1) or plain NCHW (0); Y is always blocked;
//   activation (string: "", Relu, LeakyRelu, Clip, Tanh, HardSwish, Swish = x * sigmoid(x)),
//   activation_alpha/activation_beta (float): a fused activation applied after the bias (and after adding Sum); Sum: a
//   blocked tensor of Y's shape added to the convolution's result (a fused residual Add); DwW [C, 1, 3, 3], DwB [C]: a
//   depthwise 3x3 convolution (pads 1, stride dw_stride = 1 or 2) applied to the result of a 1x1 convolution, then
//   dw_activation (same names, dw_activation_alpha/beta): oneDNN's depthwise post-op, so the 1x1 output never leaves
//   the cache (MobileNet's expand + depthwise pairs). Not with Sum.
// W and B must be initializers: the weights are reordered into oneDNN's preferred layout once, at creation.
inline constexpr const char* kConv = "NchwcConv";
// NchwcPool(X) -> Y on blocked tensors: mode = max | avg (count_include_pad) | global_avg | global_max, with
// MaxPool/AveragePool's window attributes.
inline constexpr const char* kPool = "NchwcPool";
// NchwcResize(X, roi?, scales?, sizes?) -> Y on blocked tensors: Upsample's or Resize's inputs and attributes, the
// original named by onnx_op (string) and onnx_version (int, its since_version), plus `channels` (X's logical C).
// Nearest and linear modes over H and W only (N and C keep their sizes), without antialias or tf_crop_and_resize;
// computed by the Resize kernels (src/ops/image/resize.cc), bit-identical to the plain operator.
inline constexpr const char* kResize = "NchwcResize";
// NchwcShape(X) -> int64 shape: Shape of a blocked tensor as its plain form [N, C, H, W] (attribute `channels`, and
// Shape-15's start/end), so that reading a blocked value's shape needs no reorder back to the plain layout.
inline constexpr const char* kShape = "NchwcShape";
// NchwcReorder(X) -> Y: to_blocked = 1: plain [N, C, H, W] to blocked; 0: blocked to plain with `channels` C.
inline constexpr const char* kReorder = "NchwcReorder";

// Every Nchwc* node carries the channel block b of the values it reads and writes as int attribute `block`: 16
// (nChw16c, one AVX-512 register of floats) or 8 (nChw8c, AVX2). The layout pass chooses it once per process from
// the CPU as capped by ONYX_MAX_ISA (kernels/cpu_isa.h); a node without the attribute (a model optimized and saved
// before it existed) means 16.
inline constexpr const char* kBlockAttr = "block";
inline constexpr int kDefaultBlock = 16;
inline constexpr bool IsValidBlock(int64_t b) { return b == 8 || b == 16; }

}  // namespace onyx::ir::nchwc
