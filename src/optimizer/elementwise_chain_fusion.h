// Chains of float32 elementwise operators over one tensor (Add, Sub, Mul and Div with a one-element constant or
// with each other, Relu, Clip with constant bounds, Sigmoid, Tanh) become one ai.onyx.internal.FusedElementwise node
// (ir/fused_elementwise.h) that reads the tensor once and writes the result once, bit-identical to the chain.
// Converted TensorFlow models are full of them: Keras' hard-swish arrives as x * c * relu6(x + 3) with c a float16
// rounding of 1/6 (which HardSwish cannot take exactly), swish as x * sigmoid(x). A QuantizeLinear ->
// DequantizeLinear pair with one scale and zero point joins as one more member (QDQ models' activations between
// float convolutions: one pass instead of two, the 8-bit value never stored).
//
// Runs on the final graph, after the layout passes (its chains then read the blocked values those passes leave):
// the steps are elementwise, so the layout does not matter to them.
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::optimizer {

// Rewrites the main graph; returns the number of chains fused. Subgraphs are left alone.
Result<int> FuseElementwiseChains(ir::Model& model);

}  // namespace onyx::optimizer
