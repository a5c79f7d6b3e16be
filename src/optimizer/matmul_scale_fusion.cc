// ONNX Runtime's MatMulScaleFusion, for OptimizerOptions::ort_fusions only: a float MatMul whose output (or one
// input) is multiplied or divided by a scalar constant becomes com.microsoft FusedMatMul with that factor as alpha
//
//   Mul(MatMul(a, b), c) | Div(MatMul(a, b), c) | MatMul(Mul(a, c), b) | ...  =>  FusedMatMul(a, b, alpha)
//
// as its optimizer writes transformers' attention scores. The arithmetic differs from the unfused pair where MLAS
// takes another path with alpha != 1 (a single-row product: its GEMV kernel only runs alpha 1), and for a factor
// that is not a power of two (round(sum * (1/c)) against round(sum / c)). alpha = c, or 1 / c for a Div, in float,
// times the factors already folded. The intermediates must have no other reader and not be graph outputs.
#include <optional>
#include <string>

#include "optimizer/graph_index.h"
#include "optimizer/pass_list.h"

namespace onyx::optimizer {
namespace {

bool IsFloatMatMul(const ir::Node& n, const GraphIndex& index) {
  const bool matmul = IsOnnxOp(n, "MatMul") || (n.domain == "com.microsoft" && n.op_type == "FusedMatMul");
  if (!matmul || n.inputs.size() != 2 || n.outputs.size() != 1) return false;
  auto type = index.ElemType(n.inputs[0]);
  return !type || *type == DataType::kFloat;
}

// The float factor a Mul/Div node `n` applies to `value` (its other input a scalar float constant; a Div only with
// `value` as the dividend); nullopt otherwise.
std::optional<float> ScaleOf(const ir::Node& n, const std::string& value, const GraphIndex& index) {
  if (n.inputs.size() != 2 || n.outputs.size() != 1) return std::nullopt;
  const bool mul = IsOnnxOp(n, "Mul"), div = IsOnnxOp(n, "Div");
  if (!mul && !div) return std::nullopt;
  const size_t other = n.inputs[0] == value ? 1 : 0;
  if (n.inputs[1 - other] != value || (div && other != 1)) return std::nullopt;
  const Tensor* c = index.Constant(n.inputs[other]);
  if (c == nullptr || c->type() != DataType::kFloat || c->size() != 1) return std::nullopt;
  const float factor = c->data<float>()[0];
  return div ? 1.0f / factor : factor;
}

ir::Node AsFusedMatMul(const ir::Node& mm) {
  if (mm.domain == "com.microsoft") return mm;
  ir::Node fused;
  fused.name = mm.name;
  fused.op_type = "FusedMatMul";
  fused.domain = "com.microsoft";
  fused.inputs = mm.inputs;
  fused.outputs = mm.outputs;
  SetAttrFloat(fused, "alpha", 1.0f);
  return fused;
}

}  // namespace

Result<int> RunFuseMatMulScale(ir::Graph& graph, const PassContext& ctx) {
  if (!ctx.options.ort_fusions) return 0;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& node = graph.nodes[static_cast<size_t>(i)];
    // The output side: Mul/Div(MatMul(a, b), c).
    if ((IsOnnxOp(node, "Mul") || IsOnnxOp(node, "Div")) && node.inputs.size() == 2) {
      for (const std::string& product : node.inputs) {
        const int p = index.Producer(product);
        if (p < 0 || !index.HasSingleReader(product) || index.IsGraphOutput(product)) continue;
        const ir::Node& mm = graph.nodes[static_cast<size_t>(p)];
        if (!IsFloatMatMul(mm, index)) continue;
        auto scale = ScaleOf(node, product, index);
        if (!scale) continue;
        ir::Node fused = AsFusedMatMul(mm);
        SetAttrFloat(fused, "alpha", AttrFloat(fused, "alpha", 1.0f) * *scale);
        fused.outputs = node.outputs;
        fused.name = mm.name;
        graph.nodes[static_cast<size_t>(i)] = std::move(fused);  // the MatMul is left to dead-code elimination
        return true;
      }
      return false;
    }
    // The input side: MatMul(Mul/Div(a, c), b) and MatMul(a, Mul/Div(b, c)).
    if (!IsFloatMatMul(node, index)) return false;
    for (size_t k = 0; k < 2; ++k) {
      const std::string& operand = node.inputs[k];
      const int p = index.Producer(operand);
      if (p < 0 || !index.HasSingleReader(operand) || index.IsGraphOutput(operand)) continue;
      const ir::Node& scaled = graph.nodes[static_cast<size_t>(p)];
      for (const std::string& source : scaled.inputs) {
        auto scale = ScaleOf(scaled, source, index);
        if (!scale) continue;
        ir::Node fused = AsFusedMatMul(node);
        SetAttrFloat(fused, "alpha", AttrFloat(fused, "alpha", 1.0f) * *scale);
        fused.inputs[k] = source;
        graph.nodes[static_cast<size_t>(i)] = std::move(fused);
        return true;
      }
    }
    return false;
  });
}

}  // namespace onyx::optimizer
