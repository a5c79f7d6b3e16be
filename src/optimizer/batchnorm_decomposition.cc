// BatchNormalization (inference) that no Conv absorbed -> x * s + b per channel, s = scale / sqrt(var + epsilon),
// b = B - mean * s, computed in double and rounded once to X's type: for X of rank 3 and more a depthwise Conv with
// a 1x...x1 kernel (weights s, bias b), as ONNX Runtime's blocked-layout pass rewrites it; for [N, C] a Mul and an
// Add. Why: a normalization after a Concat or a pooling (DenseNet's BN -> ReLU -> Conv, pre-activation ResNets) ran
// as the generic kernel, in double, in the plain layout between two reorders (DenseNet-121: 63 of 137 ms); as a
// convolution it runs blocked, with the ReLU after it fused.
#include <cmath>

#include "ir/graph_edit.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Result<int> RunDecomposeBatchNorm(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& bn = graph.nodes[static_cast<size_t>(i)];
    auto stats = InferenceBatchNormParams(index, ctx.model, bn);
    if (!stats) return false;
    // A Conv producer is FuseConvBatchNorm's (it runs first in each round; this pass leaves those alone in case the
    // Conv has other readers there, which it declines).
    if (index.ProducerOp(bn.inputs[0], "Conv") != nullptr && index.HasSingleReader(bn.inputs[0])) return false;
    auto rank = index.Rank(bn.inputs[0]);
    if (!rank || *rank < 2) return false;
    const auto& params = *stats;
    const int64_t channels = params[0]->size();
    // X's type; before version 15 the statistics have it too (from 15 they may differ, and X's must be known).
    auto type = index.ElemType(bn.inputs[0]);
    if (!type && NodeSinceVersion(ctx.model, bn) < 15) type = params[0]->type();
    if (!type || !IsFusableFloat(*type)) return false;
    const double eps = AttrFloat(bn, "epsilon", 1e-5f);
    std::vector<double> s(static_cast<size_t>(channels)), b(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      const double sc = params[0]->DoubleAt(c) / std::sqrt(params[3]->DoubleAt(c) + eps);
      s[static_cast<size_t>(c)] = sc;
      b[static_cast<size_t>(c)] = params[1]->DoubleAt(c) - params[2]->DoubleAt(c) * sc;
    }
    ir::Node& node = graph.nodes[static_cast<size_t>(i)];
    if (*rank >= 3) {
      // A depthwise convolution with a 1x...x1 kernel (weights [C, 1, 1, ...], bias b): the layout pass then runs it
      // blocked and fuses a following activation into it, one pass over memory for BN -> ReLU.
      Shape w_shape(static_cast<size_t>(*rank), 1);
      w_shape[0] = channels;
      const std::string w_name = AddInitializer(graph, node.outputs[0] + "_bn_scale", FloatTensor(*type, w_shape, s));
      const std::string b_name =
          AddInitializer(graph, node.outputs[0] + "_bn_bias", FloatTensor(*type, Shape{channels}, b));
      ir::Node conv;
      conv.name = node.name;
      conv.op_type = "Conv";
      conv.inputs = {node.inputs[0], w_name, b_name};
      conv.outputs = {node.outputs[0]};
      SetAttrInt(conv, "group", channels);
      SetAttrInts(conv, "kernel_shape", std::vector<int64_t>(static_cast<size_t>(*rank - 2), 1));
      node = std::move(conv);
      return true;
    }
    // [N, C]: a Mul and an Add by [C] constants.
    const std::string s_name = AddInitializer(graph, node.outputs[0] + "_bn_scale", FloatTensor(*type, {channels}, s));
    const std::string b_name = AddInitializer(graph, node.outputs[0] + "_bn_bias", FloatTensor(*type, {channels}, b));
    ir::Node mul;
    mul.name = node.name + "/scale";
    mul.op_type = "Mul";
    mul.inputs = {node.inputs[0], s_name};
    mul.outputs = {ir::UniqueValueName(graph, node.outputs[0] + "_bn_scaled")};
    ir::Node add;
    add.name = node.name + "/bias";
    add.op_type = "Add";
    add.inputs = {mul.outputs[0], b_name};
    add.outputs = {node.outputs[0]};
    node = std::move(mul);
    graph.nodes.push_back(std::move(add));  // the driver sorts the nodes again after the round
    return true;
  });
}

}  // namespace onyx::optimizer
