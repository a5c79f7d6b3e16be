// Helpers shared by the TF neural-network, matrix and image converters (ops_nn.cc, ops_conv.cc, ops_matrix.cc,
// ops_image.cc): channels-last <-> channels-first transposes, window attributes, the fused_ops of _Fused* nodes,
// and small shape computations emitted as ONNX nodes.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "convert/tf/op_context.h"

namespace onyx::convert::tf {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A Transpose of `v` by `perm`, named after the node.
std::string Transposed(OpContext& ctx, const std::string& v, const std::vector<int64_t>& perm, const char* what);

// An error unless the node's data_format is `expected` (the channels-last form: "NHWC", "NWC", "NDHWC").
Status RequireFormat(const OpContext& ctx, const std::string& expected);

// The spatial entries of a (spatial_rank + 2)-vector window attribute in channels-last order (strides, dilations,
// ksize, rates); `fallback` for each when the attribute is absent.
Result<std::vector<int64_t>> SpatialAttr(const OpContext& ctx, const std::string& key, size_t spatial_rank,
                                         int64_t fallback);

// TF padding ("SAME", "VALID", "EXPLICIT") as ONNX attributes for a window op of `spatial_rank` dims: SAME is
// auto_pad SAME_UPPER (TF puts the odd pixel at the end, as SAME_UPPER does); EXPLICIT reads explicit_paddings
// ([before, after] per channels-last dim).
Status AddPadding(const OpContext& ctx, size_t spatial_rank, std::vector<ir::Attribute>* attrs);

// What a _FusedConv2D / FusedDepthwiseConv2dNative / _FusedMatMul adds after its product: BiasAdd (a bias value)
// or FusedBatchNorm (folded into a per-output-channel multiplier and bias), then at most one activation.
struct Fused {
  std::string bias_value;            // BiasAdd's argument
  std::vector<float> bn_multiplier;  // FusedBatchNorm: scale the output channels ...
  std::vector<float> bn_bias;        // ... and add this bias
  std::string activation;            // "" or the TF name: Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, Prelu
  std::string prelu_alpha;           // Prelu's argument (per output channel)
};
Result<Fused> FusedOps(const OpContext& ctx, size_t first_arg);
// Applies f.activation (if any) to `v`. Prelu's alpha broadcasts along the last axis: apply it channels-last.
Result<std::string> ApplyActivation(OpContext& ctx, const Fused& f, const std::string& v);

// Inference batch normalization as y = x * multiplier + bias from the four constant inputs starting at `first`
// (scale, offset, mean, variance): multiplier = scale / sqrt(variance + epsilon), bias = offset - mean * multiplier.
Status BatchNormAsAffine(const OpContext& ctx, size_t first, std::vector<float>* multiplier, std::vector<float>* bias);

// Shape computations: Shape(v)[i] as a 1-element int64 tensor (i < 0 counts from the end).
std::string ShapeDim(OpContext& ctx, const std::string& shape, int64_t i, const std::string& what);
// A scalar constant of an integer or float type.
std::string ConstScalar(OpContext& ctx, DataType type, double value, const std::string& what);

// Registered from AddNnOps.
void AddConvOps(std::map<std::string, OpFn>& table);    // convolutions, pooling, dilation
void AddMatrixOps(std::map<std::string, OpFn>& table);  // matrix products, Einsum, band parts
// Registered from AddImageOps.
void AddDetectionOps(std::map<std::string, OpFn>& table);       // NMS, TopK, Where, sets, searches
void AddImageTransformOps(std::map<std::string, OpFn>& table);  // ImageProjectiveTransformV3

}  // namespace onyx::convert::tf
