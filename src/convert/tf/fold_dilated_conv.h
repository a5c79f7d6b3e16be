// TensorFlow writes a dilated convolution as SpaceToBatchND -> Conv2D (VALID, stride 1) -> BatchToSpaceND
// (tf.nn.atrous_conv2d, and Keras's dilation_rate in TF1 graphs): the input is padded and split into block x block
// phases along the batch, each phase convolved densely, and the results interleaved back and cropped. That is
// exactly one convolution with dilations = block shape over the padded input, cropped; and for stride 1, cropping
// c output rows at an edge is taking c rows less padding there. So the three nodes fold into one convolution with
// explicit pads = paddings - crops, which ONNX runs directly instead of six reshapes and transposes around it.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace onyx::convert::tf {

// The integer values of the Const node named so, nullopt when it is not an integer constant.
using ConstIntsLookup = std::function<std::optional<std::vector<int64_t>>(const std::string& node)>;

// Rewrites `nodes` (a GraphDef's node list in proto3 JSON) in place: each SpaceToBatchND -> (Fused)Conv2D /
// (Fused)DepthwiseConv2dNative -> BatchToSpaceND chain whose middle links have no other reader, constant 2-D block
// shape, paddings and crops, a VALID stride-1 undilated NHWC convolution, and paddings >= crops becomes the
// convolution reading SpaceToBatchND's input with dilations and EXPLICIT padding, the BatchToSpaceND an Identity of
// it. Returns how many chains were folded.
int FoldDilatedConvolutions(nlohmann::json& nodes, const ConstIntsLookup& const_ints);

}  // namespace onyx::convert::tf
