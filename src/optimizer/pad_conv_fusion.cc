// Pad (constant mode, value 0, spatial axes only, no negative pads) feeding a Conv that reads it alone: the padding
// becomes the Conv's own `pads`. Converters from channels-last frameworks (tf2onnx) emit such Pads; folding them
// also keeps the convolution chain in one layout (see nchwc_layout.cc). The same for an AveragePool (floor mode),
// which then counts the padding (count_include_pad = 1, as the zeros it averaged were counted): PyTorch exports
// avg_pool2d(padding=1) as Pad + AveragePool (Inception-v3's 9 pools ran in the plain layout between reorders).
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// The Pad node's pads when it is a zero constant pad without axes, or nullopt.
std::optional<std::vector<int64_t>> ZeroPads(const GraphIndex& index, const PassContext& ctx, const ir::Node& pad) {
  if (pad.outputs.size() != 1 || pad.inputs.empty()) return std::nullopt;
  const auto* mode = pad.FindAttribute("mode");
  if (mode != nullptr && mode->s != "constant") return std::nullopt;
  const auto since = NodeSinceVersion(ctx.model, pad);
  if (!since) return std::nullopt;
  if (*since < 11) {
    if (AttrFloat(pad, "value", 0.0f) != 0.0f) return std::nullopt;
    auto pads = AttrInts(pad, *since < 2 ? "paddings" : "pads");
    return pads;
  }
  if (pad.inputs.size() < 2 || pad.inputs[1].empty()) return std::nullopt;
  if (pad.inputs.size() > 3 && !pad.inputs[3].empty()) return std::nullopt;  // axes (v18)
  if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
    const Tensor* value = index.Constant(pad.inputs[2]);
    if (value == nullptr || value->size() != 1 || value->DoubleAt(0) != 0.0) return std::nullopt;
  }
  const Tensor* pads = index.Constant(pad.inputs[1]);
  if (pads == nullptr || pads->type() != DataType::kInt64 || pads->rank() != 1) return std::nullopt;
  return pads->ToInt64Vector();
}

}  // namespace

Result<int> RunFusePadConv(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& conv = graph.nodes[static_cast<size_t>(i)];
    const bool is_pool = IsOnnxOp(conv, "AveragePool");
    if (is_pool) {
      // Windows past the end (ceil_mode) would count differently; own pads excluded from the count would differ
      // from the Pad's counted zeros.
      if (conv.inputs.size() != 1 || conv.outputs.size() != 1 || AttrInt(conv, "ceil_mode", 0) != 0) return false;
      if (AttrInt(conv, "count_include_pad", 0) == 0) {
        for (int64_t v : AttrInts(conv, "pads").value_or(std::vector<int64_t>{})) {
          if (v != 0) return false;
        }
      }
    } else if (!IsOnnxOp(conv, "Conv") || conv.inputs.size() < 2) {
      return false;
    }
    if (conv.inputs[0].empty()) return false;
    const auto* auto_pad = conv.FindAttribute("auto_pad");
    if (auto_pad != nullptr && !auto_pad->s.empty() && auto_pad->s != "NOTSET") return false;
    const std::string& x = conv.inputs[0];
    const int p = index.Producer(x);
    if (p < 0 || !index.HasSingleReader(x)) return false;
    const ir::Node& pad = graph.nodes[static_cast<size_t>(p)];
    if (!IsOnnxOp(pad, "Pad")) return false;
    auto pads = ZeroPads(index, ctx, pad);
    if (!pads || pads->size() < 6 || pads->size() % 2 != 0) return false;
    const size_t rank = pads->size() / 2;
    const size_t spatial = rank - 2;
    // Batch and channel axes unpadded, spatial pads not negative.
    if ((*pads)[0] != 0 || (*pads)[1] != 0 || (*pads)[rank] != 0 || (*pads)[rank + 1] != 0) return false;
    for (int64_t v : *pads) {
      if (v < 0) return false;
    }
    std::vector<int64_t> conv_pads = AttrInts(conv, "pads").value_or(std::vector<int64_t>(2 * spatial, 0));
    if (conv_pads.size() != 2 * spatial) return false;
    for (size_t d = 0; d < spatial; ++d) {
      conv_pads[d] += (*pads)[2 + d];
      conv_pads[spatial + d] += (*pads)[rank + 2 + d];
    }
    const std::string source = pad.inputs[0];
    ir::Node& fused = graph.nodes[static_cast<size_t>(i)];
    SetAttrInts(fused, "pads", conv_pads);
    if (is_pool) SetAttrInt(fused, "count_include_pad", 1);
    fused.inputs[0] = source;
    EraseNodes(graph, {p});
    return true;
  });
}

}  // namespace onyx::optimizer
