// ai.onnx.preview.training.Gradient: replaced, before the runtime sees the graph, by the nodes that compute the
// gradients (reverse-mode differentiation of the forward nodes between `xs` and `y`).
#pragma once

#include "core/status.h"
#include "ir/model.h"

namespace onyx::ir {

// Expands every Gradient node of the main graph. Supported forward operators: Add, Sub, Mul, Div (with
// broadcasting), Neg, Identity, Relu, and 2-D MatMul; any other operator on a path from xs to y is an error that
// names it.
Status ExpandGradients(Model& model);

}  // namespace onyx::ir
