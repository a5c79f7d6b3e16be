// Subgraphs whose 8-bit result depends on one 8-bit value alone, element by element, become one byte table: the
// subgraph runs once on the 256 byte values through the runtime's own kernels (the constant-model runner that
// constant folding uses) and is replaced by ai.onyx.internal.ByteLookup(X, table) (ops/quant/qlinear_lookup.cc),
// whose bytes are the subgraph's wherever its kernels compute each element alone with the same operations wherever it
// lies (the quantization kernels, the activations' vector loops, the QLinear* tables and products).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

// Whether `n` is a standard unary activation (one output, each element from the same element of input 0; its other
// inputs, if any, parameters): HardSwish, HardSigmoid, Sigmoid, Tanh, Relu, LeakyRelu, Elu, Selu, Softplus, Softsign,
// Mish, Gelu, Erf, Clip, Swish, Abs, Neg, Identity.
bool IsUnaryActivation(const ir::Node& n);

// Whether every input of `n` from `first` on is absent or a one-element constant (per-tensor parameters).
bool ScalarConstantInputs(const GraphIndex& index, const ir::Node& n, size_t first = 1);

// `nodes` (in order) run on the 256 byte values of `x_type` fed as `x`, every other input a constant of `index`; the
// 256 8-bit values of `y`, or nullopt where the runner is missing or fails.
std::optional<Tensor> EvaluateOnEveryByte(const std::vector<const ir::Node*>& nodes, const std::string& x,
                                          DataType x_type, const std::string& y, const GraphIndex& index,
                                          const PassContext& ctx);

// ai.onyx.internal.ByteLookup(x, table) named `name`, writing `y`; the table becomes an initializer of `graph`.
ir::Node ByteLookupNode(ir::Graph& graph, const std::string& name, const std::string& x, Tensor table,
                        const std::string& y);

}  // namespace onyx::optimizer
