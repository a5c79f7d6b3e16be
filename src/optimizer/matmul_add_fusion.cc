// MatMul + Add -> Gemm: Add(MatMul(A, B), C) = Gemm(A, B, C) when A is known to be 2-D, B is a constant matrix
// and C a constant that broadcasts along rows only ([N], [1, N], or one value). The MatMul output must have no
// other reader. (Batched MatMuls keep their Add: Gemm is 2-D only.)
#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Result<int> RunFuseMatMulAdd(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
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
      if (b == nullptr || b->rank() != 2 || index.Rank(mm->inputs[0]) != std::optional<int64_t>(2)) continue;
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
