// Weight-only quantization: each MatMul's constant [K, N] weight becomes blockwise int4 or int8 (blocks of
// `block` rows along K, one scale per block and column) behind a DequantizeLinear-21 with `axis` 0 and
// `block_size`; activations stay float. The model is raised to opset 21 (src/version) when lower.
#include <map>

#include "ir/graph_edit.h"
#include "quantize/graph_util.h"
#include "quantize/modes.h"
#include "quantize/weights.h"

namespace onyx::quantize {

Result<ir::Model> QuantizeWeightOnly(const ir::Model& input, const QuantizeOptions& options, QuantizeReport* report) {
  if (options.bits != 4 && options.bits != 8) return InvalidArgument("--bits takes 4 or 8");
  if (options.block < 16 || options.block > 256 || (options.block & (options.block - 1)) != 0) {
    return InvalidArgument("--block takes a power of two from 16 to 256, got " + std::to_string(options.block));
  }
  ONYX_ASSIGN_OR_RETURN(ir::Model model, AtLeastOpset(input, 21, report));
  ir::Graph& g = model.graph;
  Namer namer(g);
  std::map<std::string, std::string> dq_of;  // weight -> DequantizeLinear output
  std::vector<ir::Node> extra;
  for (ir::Node& n : g.nodes) {
    if (!Selected(n, options, {"MatMul"}) || n.op_type != "MatMul" || n.inputs.size() != 2) continue;
    const Tensor* w = ConstantTensor(g, n.inputs[1]);
    if (w == nullptr || w->type() != DataType::kFloat || w->rank() != 2) continue;
    const std::string name = n.inputs[1];
    auto it = dq_of.find(name);
    if (it == dq_of.end()) {
      const Tensor weight = *w;
      ONYX_ASSIGN_OR_RETURN(QuantizedTensor qt, QuantizeBlockwise(weight, options.block, options.bits));
      report->tensors.push_back(ConstantReport(name, "weight", qt));
      const std::string q = AddInitializer(g, namer, name + "_quantized", qt.q);
      const std::string scale = AddInitializer(g, namer, name + "_scale", qt.scale);
      const std::string dq = namer.Value(name + "_DequantizeLinear_Output");
      extra.push_back(MakeNode("DequantizeLinear", namer.Node(name + "_DequantizeLinear"), {q, scale}, {dq},
                               {ir::IntAttr("axis", 0), ir::IntAttr("block_size", options.block)}));
      it = dq_of.emplace(name, dq).first;
    }
    n.inputs[1] = it->second;
    ++report->quantized_nodes["MatMul"];
  }
  for (auto& n : extra) g.nodes.push_back(std::move(n));
  ir::RemoveDeadNodes(g);
  ONYX_RETURN_IF_ERROR(ir::TopologicalSort(g));
  return model;
}

}  // namespace onyx::quantize
