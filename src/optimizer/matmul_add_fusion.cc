// MatMul + Add -> Gemm: Add(MatMul(A, B), C) = Gemm(A, B, C) when A is known to be 2-D, B is a constant matrix
// and C a constant that broadcasts along rows only ([N], [1, N], or one value). The MatMul output must have no
// other reader.
//
// Float activations of other (or unknown) rank, a transformer's [batch, sequence, hidden], times a constant float
// matrix B [K, N] plus a constant bias [N] become ai.onyx.internal.MatMulBias(A, B, bias) instead (src/ops/nn/
// matmul.cc: B packed once, the bias added to each output tile while it is in cache); a Gelu (erf form) reading only
// that product, or a dynamically quantized one (dynamic_quant_fusion.cc), then folds into it as its activation (the
// pass runs again after the Gelu and dynamic quantization fusions each round), and so does a Relu (float only). Small
// weights (under kernels::kMinPackedProductWeights values) keep their Add: a primitive call costs more than the pass it
// saves. A bare MatMul of such a constant matrix becomes a MatMulBias without a bias. These rewrites run at level all
// only (hardware-specific kernels; quantization's preparation runs extended).
#include <string>
#include <vector>

#include "kernels/float_matmul.h"  // kMinPackedProductWeights
#include "optimizer/graph_index.h"
#include "optimizer/optimizer.h"

namespace onyx::optimizer {
namespace {

bool IsInternalOp(const ir::Node& n, std::string_view op_type) {
  return n.domain == ir::kInternalDomain && n.op_type == op_type;
}

// Whether MatMul `mm` (B constant) is one MatMulBias packs: B a float matrix of kMinPackedProductWeights+ values, A
// float or of unknown type.
bool PackableProduct(const GraphIndex& index, const ir::Node& mm) {
  const Tensor* b = index.Constant(mm.inputs[1]);
  if (b == nullptr || b->type() != DataType::kFloat || b->rank() != 2 || b->size() < kernels::kMinPackedProductWeights)
    return false;
  const auto a_type = index.ElemType(mm.inputs[0]);
  return !a_type || *a_type == DataType::kFloat;
}

ir::Node MatMulBiasNode(std::string name, std::vector<std::string> inputs, std::vector<std::string> outputs) {
  ir::Node fused;
  fused.name = std::move(name);
  fused.op_type = "MatMulBias";
  fused.domain = ir::kInternalDomain;
  fused.inputs = std::move(inputs);
  fused.outputs = std::move(outputs);
  return fused;
}

// Add node i = MatMul(A, B) + bias with the MatMul on input `side`, B a constant matrix and bias a constant, its
// MatMul read by the Add alone (the caller matched those): one MatMulBias when B is float with
// kMinPackedProductWeights+ values, bias float [N] and A of any rank but 2 (or unknown).
bool FuseBatchedMatMulBias(ir::Graph& graph, const GraphIndex& index, int i, int side) {
  const ir::Node& add = graph.nodes[static_cast<size_t>(i)];
  const std::string& bias = add.inputs[static_cast<size_t>(1 - side)];
  const Tensor* c = index.Constant(bias);
  const ir::Node* mm = index.ProducerOp(add.inputs[static_cast<size_t>(side)], "MatMul");
  if (!PackableProduct(index, *mm) || c->type() != DataType::kFloat) return false;
  if (c->rank() != 1 || c->dim(0) != index.Constant(mm->inputs[1])->dim(1)) return false;
  // The MatMul is left to dead-code elimination.
  graph.nodes[static_cast<size_t>(i)] =
      MatMulBiasNode(add.name.empty() ? mm->name : add.name, {mm->inputs[0], mm->inputs[1], bias}, {add.outputs[0]});
  return true;
}

// Node i a bare MatMul(A, B) with B a constant float matrix of kMinPackedProductWeights+ values and A float: one
// MatMulBias(A, B) without a bias (LLaMA-style decoders' projections and language-model heads have none), which packs
// B once and picks its kernel per shape (a 32-token prompt's 512 x 8192 head: oneDNN's sgemm ran it at 40% of the
// FMA peak). Not where the product's only reader is an Add of a constant: that Add's visit fuses both.
bool FuseBareMatMul(ir::Graph& graph, const GraphIndex& index, int i) {
  const ir::Node& mm = graph.nodes[static_cast<size_t>(i)];
  if (!IsOnnxOp(mm, "MatMul") || mm.inputs.size() != 2 || mm.outputs.size() != 1) return false;
  if (!PackableProduct(index, mm)) return false;
  const std::string& y = mm.outputs[0];
  if (index.HasSingleReader(y)) {
    const ir::Node& reader = graph.nodes[static_cast<size_t>(index.Consumers(y).front())];
    if (IsOnnxOp(reader, "Add") && reader.inputs.size() == 2 &&
        index.Constant(reader.inputs[reader.inputs[0] == y ? 1 : 0]) != nullptr) {
      return false;
    }
  }
  graph.nodes[static_cast<size_t>(i)] = MatMulBiasNode(mm.name, mm.inputs, mm.outputs);
  return true;
}

// Gelu(MatMulBias(...)) (erf form, ONNX's or onyx's internal one) -> MatMulBias(..., activation "Gelu"); the same
// for the dynamic quantization fusion's DynamicQuantizeMatMul and MatMulIntegerToFloat (which apply kernels::Gelu,
// the Gelu kernel's own function, to each output row while it is in cache: the result is the unfused one's bits).
// Relu(MatMulBias(...)) -> MatMulBias(..., activation "Relu") (PyTorch's nn.Transformer and T5 feed-forward layers,
// MLPs): the clamp applied to each tile in cache instead of a pass over the output (the same values: max(x, 0)
// keeping NaN and -0, as the Relu kernel).
bool FoldActivation(ir::Graph& graph, const GraphIndex& index, int i) {
  const ir::Node& act = graph.nodes[static_cast<size_t>(i)];
  const bool relu = IsOnnxOp(act, "Relu");
  const bool gelu = IsOnnxOp(act, "Gelu") || IsInternalOp(act, "Gelu");
  if (!(relu || gelu) || act.inputs.size() != 1 || act.outputs.size() != 1) return false;
  if (const ir::Attribute* approx = act.FindAttribute("approximate"); approx != nullptr && approx->s != "none") {
    return false;
  }
  const int p = index.Producer(act.inputs[0]);
  if (p < 0 || !index.HasSingleReader(act.inputs[0])) return false;
  ir::Node& mm = graph.nodes[static_cast<size_t>(p)];
  const bool product =
      IsInternalOp(mm, "MatMulBias") ||
      (gelu && (IsInternalOp(mm, "DynamicQuantizeMatMul") || IsInternalOp(mm, "MatMulIntegerToFloat")));
  if (!product || mm.outputs.size() != 1 || mm.FindAttribute("activation") != nullptr) return false;
  mm.attributes.push_back(ir::StringAttr("activation", relu ? "Relu" : "Gelu"));
  mm.outputs[0] = act.outputs[0];
  EraseNodes(graph, {i});
  return true;
}

}  // namespace

Result<int> RunFuseMatMulAdd(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    // MatMulBias and the activation folds are onyx's own kernels (B packed for this CPU's oneDNN): level all only, like
    // the other hardware-specific rewrites; extended (and quantization's preparation) keeps standard operators. Not
    // where ONNX Runtime's arithmetic is asked for (OptimizerOptions::ort_fusions): they sum in oneDNN's order.
    const bool own_kernels = ctx.options.level >= OptLevel::kAll && !ctx.options.ort_fusions;
    if (own_kernels && FoldActivation(graph, index, i)) return true;
    if (own_kernels && FuseBareMatMul(graph, index, i)) return true;
    const ir::Node& add = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return false;
    if (ctx.model.OpsetVersion("").value_or(0) < 7) return false;  // Gemm before 7 needs broadcast=1
    for (int side = 0; side < 2; ++side) {
      const std::string& y = add.inputs[static_cast<size_t>(side)];
      const std::string& bias = add.inputs[static_cast<size_t>(1 - side)];
      const Tensor* c = index.Constant(bias);
      const ir::Node* mm = index.ProducerOp(y, "MatMul");
      if (c == nullptr || mm == nullptr || mm->inputs.size() != 2 || !index.HasSingleReader(y)) continue;
      const Tensor* b = index.Constant(mm->inputs[1]);
      if (b == nullptr || b->rank() != 2) continue;
      if (index.Rank(mm->inputs[0]) != std::optional<int64_t>(2)) {
        if (own_kernels && FuseBatchedMatMulBias(graph, index, i, side)) return true;
        continue;
      }
      if (!(b->type() == DataType::kFloat || b->type() == DataType::kDouble) || c->type() != b->type()) continue;
      if (c->rank() > 2 || (c->rank() == 2 && c->dim(0) != 1)) continue;
      const int64_t cols = c->rank() == 0 ? 1 : c->dim(c->rank() - 1);
      if (cols != 1 && cols != b->dim(1)) continue;
      ir::Node gemm;
      gemm.name = add.name.empty() ? mm->name : add.name;
      gemm.op_type = "Gemm";
      gemm.inputs = {mm->inputs[0], mm->inputs[1], bias};
      gemm.outputs = {add.outputs[0]};
      graph.nodes[static_cast<size_t>(i)] = std::move(gemm);  // the MatMul is left to dead-code elimination
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
