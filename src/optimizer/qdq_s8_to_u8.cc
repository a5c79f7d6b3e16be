// int8 QDQ activations to uint8, as ONNX Runtime's x86-64 build does before it fuses QDQ groups (its
// QDQS8ToU8Transformer, level extended, after EnsureUniqueDQForNodeUnit gave every reader of a DQ a DQ of its own):
// MLAS has no int8 x int8 convolution or matmul there, so ONNX Runtime shifts an int8 Q -> DQ pair to uint8 (the zero
// point plus 128) and the groups around it then fuse as uint8 x int8 ones (FuseQdqGroups, which runs next). The
// shift is exact: saturate(round(x / s) + z) + 128 = saturate'(round(x / s) + z + 128) over [0, 255], and the DQ
// subtracts the shifted zero point again; only which groups fuse (and so the results) follows ONNX Runtime's.
//
//   Q(x, s, z:int8) -> q -> DQ(q, s', z':int8)   with z == z' constant scalars, q read by that DQ alone and not a
//                                                graph output, the DQ's value read by one node at most
//   => Q(x, s, z + 128:uint8) -> q' -> DQ(q', s', z + 128:uint8)
//
// "Read by one node at most": ONNX Runtime first duplicates a DQ read by several nodes (or by a node and the graph's
// outputs or a subgraph), one copy per reader, and then the Q has several readers and is left as it is. DQs of
// constant int8 tensors (weights) keep int8: observed with ONNX Runtime 1.30, whose source also has a conversion of
// such DQs that its x86-64 build did not apply to a constant added to uint8 activations. Checked against ONNX
// Runtime's own optimized models; tests/data/quant/qdq_s8_gemm and tests/unit/int8_qdq_fusion_test.cc keep the cases.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "ir/graph_edit.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// The value of a constant one-element int8 zero point, or nullopt.
std::optional<int8_t> ConstantInt8(const GraphIndex& index, const std::string& name) {
  const Tensor* t = index.Constant(name);
  if (t == nullptr || t->size() != 1 || t->type() != DataType::kInt8) return std::nullopt;
  return t->data<int8_t>()[0];
}

// An int8 tensor's values plus 128 as uint8 (x XOR 0x80), same shape.
Tensor ShiftedToUint8(const Tensor& t) {
  Tensor u = Tensor::Allocate(DataType::kUint8, t.shape());
  const int8_t* s = t.data<int8_t>();
  uint8_t* d = u.data<uint8_t>();
  for (int64_t k = 0; k < t.size(); ++k) d[k] = static_cast<uint8_t>(static_cast<int32_t>(s[k]) + 128);
  return u;
}

// Q at node i with its DQ: converted, or false.
bool TryConvertPair(ir::Graph& graph, const GraphIndex& index, int i) {
  ir::Node& q = graph.nodes[static_cast<size_t>(i)];
  if (!IsOnnxOp(q, "QuantizeLinear") || q.inputs.size() != 3 || q.inputs[2].empty() || q.outputs.size() != 1) {
    return false;
  }
  if (AttrInt(q, "output_dtype", 0) != 0) return false;  // a type stated apart from the zero point stays
  const std::string& quantized = q.outputs[0];
  if (index.IsGraphOutput(quantized)) return false;
  if (index.ReadEdges(quantized) != 1 || index.Consumers(quantized).size() != 1) return false;
  const int dq_index = index.Consumers(quantized).front();
  ir::Node& dq = graph.nodes[static_cast<size_t>(dq_index)];
  if (!IsOnnxOp(dq, "DequantizeLinear") || dq.inputs.size() != 3 || dq.inputs[0] != quantized || dq.inputs[2].empty() ||
      dq.outputs.size() != 1) {
    return false;
  }
  // EnsureUniqueDQForNodeUnit would give each reader of the DQ's value a DQ of its own (and the Q more readers).
  // (A DQ read only inside subgraphs keeps its one copy.)
  const std::string& dequantized = dq.outputs[0];
  int explicit_edges = 0;
  for (int c : index.Consumers(dequantized)) {
    const auto& in = graph.nodes[static_cast<size_t>(c)].inputs;
    explicit_edges += static_cast<int>(std::count(in.begin(), in.end(), dequantized));
  }
  const bool subgraph_reader = index.ReadEdges(dequantized) != explicit_edges;
  const bool dq_unique =
      explicit_edges == 0 || (explicit_edges == 1 && !subgraph_reader && !index.IsGraphOutput(dequantized));
  if (!dq_unique) return false;
  const std::optional<int8_t> qz = ConstantInt8(index, q.inputs[2]), dz = ConstantInt8(index, dq.inputs[2]);
  if (!qz || !dz || *qz != *dz) return false;
  const std::string zero_point =
      AddInitializer(graph, q.inputs[2] + "_u8", ShiftedToUint8(*index.Constant(q.inputs[2])));
  const std::string shifted = ir::UniqueValueName(graph, quantized + "_u8");
  q.inputs[2] = zero_point;  // (AddInitializer adds no node: q and dq still refer to theirs)
  q.outputs[0] = shifted;
  dq.inputs[2] = zero_point;
  dq.inputs[0] = shifted;
  return true;
}

}  // namespace

Result<int> RunConvertQdqS8ToU8(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(
      graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> { return TryConvertPair(graph, index, i); });
}

}  // namespace onyx::optimizer
