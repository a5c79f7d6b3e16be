// Transposes around a binary elementwise operator: Transpose(Binary(Transpose(x, p), c), q) with q undoing p is
// Binary(x, Transpose(c, q)). Converted TensorFlow models compute in NHWC and leave such pairs where a
// squeeze-and-excitation gate from Dense layers (an NHWC [N, 1, 1, C] tensor) multiplies an NCHW feature map:
// x goes to NHWC for the Mul and back for the next convolution. Afterwards only the small gate is transposed
// (a constant one folds), and the feature map stays in the convolutions' layout. Elementwise, so the values are the
// same bits. The other operand must have the transposes' rank (a lower rank would broadcast differently once
// transposed); the Binary's result must have no other reader.
#include "ir/graph_edit.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

bool IsBinaryElementwise(const ir::Node& n, const ir::Model& model) {
  if (n.inputs.size() != 2 || n.outputs.size() != 1) return false;
  if (!IsOnnxOp(n, "Add") && !IsOnnxOp(n, "Sub") && !IsOnnxOp(n, "Mul") && !IsOnnxOp(n, "Div")) return false;
  const auto since = NodeSinceVersion(model, n);
  return since && *since >= 7;  // numpy broadcasting (before 7: the legacy axis attributes)
}

// Whether applying p, then q is the identity.
bool Undoes(const std::vector<int64_t>& p, const std::vector<int64_t>& q) {
  if (p.size() != q.size()) return false;
  for (size_t k = 0; k < q.size(); ++k) {
    if (q[k] < 0 || static_cast<size_t>(q[k]) >= p.size() || p[static_cast<size_t>(q[k])] != static_cast<int64_t>(k)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<int> RunSinkTransposeThroughBinary(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& outer = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(outer, "Transpose") || outer.inputs.size() != 1 || outer.outputs.size() != 1) return false;
    const auto q = AttrInts(outer, "perm");
    if (!q) return false;
    const int b = index.Producer(outer.inputs[0]);
    if (b < 0 || !index.HasSingleReader(outer.inputs[0])) return false;
    const ir::Node& binary = graph.nodes[static_cast<size_t>(b)];
    if (!IsBinaryElementwise(binary, ctx.model)) return false;
    for (size_t side = 0; side < 2; ++side) {
      const ir::Node* inner = index.ProducerOp(binary.inputs[side], "Transpose");
      if (inner == nullptr || inner->inputs.size() != 1) continue;
      const auto p = AttrInts(*inner, "perm");
      if (!p || !Undoes(*p, *q)) continue;
      const std::string& other = binary.inputs[1 - side];
      if (index.Rank(other) != static_cast<int64_t>(q->size())) continue;
      // The other operand transposed by q; the binary reads x and it, and takes the outer Transpose's output.
      ir::Node transposed;
      transposed.name = outer.name + "/operand";
      transposed.op_type = "Transpose";
      transposed.inputs = {other};
      transposed.outputs = {ir::UniqueValueName(graph, other + "/transposed")};
      transposed.attributes = {ir::IntsAttr("perm", *q)};
      ir::Node rewritten = binary;
      rewritten.inputs[side] = inner->inputs[0];
      rewritten.inputs[1 - side] = transposed.outputs[0];
      rewritten.outputs = outer.outputs;
      graph.nodes[static_cast<size_t>(i)] = std::move(rewritten);
      EraseNodes(graph, {b});
      graph.nodes.push_back(std::move(transposed));
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
