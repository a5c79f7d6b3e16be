// x * f(x) on 8-bit data as one byte table: com.microsoft QLinearMul(X, QLinearSigmoid(X)) (SiLU / Swish, what the QDQ
// fusion makes of EfficientNet's and YOLO's DQ -> Sigmoid -> Q, DQ -> Mul -> Q groups) or QLinearMul(X,
// QLinearLeakyRelu(X)), operands in either order, every quantization parameter a one-element constant (zero points may
// be absent), becomes ai.onyx.internal.ByteLookup (optimizer/byte_table.h): the product of a byte and its table entry
// depends on that byte alone, so the two operators run once on the 256 byte values give the bytes they give, and the
// run reads X once instead of X twice plus f(X) (the product's exact integer arithmetic took 15% of EfficientNet-B0
// QDQ's time). The table operator stays where others read its result; dead-code elimination drops it otherwise.
#include "optimizer/byte_table.h"

namespace onyx::optimizer {
namespace {

bool IsMsOp(const ir::Node& n, std::string_view op) { return n.domain == "com.microsoft" && n.op_type == op; }

// The 8-bit type of X: a zero point constant's among the two operators' (their types agree, or the kernels reject
// them), else the graph's declared type; nullopt when neither says.
std::optional<DataType> ByteType(const GraphIndex& index, const ir::Node& f, const ir::Node& mul,
                                 const std::string& x) {
  for (const auto& [n, i] :
       {std::pair{&f, size_t{2}}, {&f, size_t{4}}, {&mul, size_t{2}}, {&mul, size_t{5}}, {&mul, size_t{7}}}) {
    if (i < n->inputs.size() && !n->inputs[i].empty()) return index.Constant(n->inputs[i])->type();
  }
  return index.ElemType(x);
}

}  // namespace

Result<int> RunFuseQLinearLookupMul(ir::Graph& graph, const PassContext& ctx) {
  if (!ctx.options.run_constant_model) return 0;
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& mul = graph.nodes[static_cast<size_t>(i)];
    if (!IsMsOp(mul, "QLinearMul") || mul.inputs.size() < 7 || mul.outputs.size() != 1 || mul.inputs[0].empty() ||
        mul.inputs[3].empty()) {
      return false;
    }
    for (size_t k : {1, 2, 4, 5, 6, 7}) {
      const bool optional = k == 2 || k == 5 || k == 7;
      if (k >= mul.inputs.size() || mul.inputs[k].empty()) {
        if (!optional) return false;
        continue;
      }
      const Tensor* t = index.Constant(mul.inputs[k]);
      if (t == nullptr || t->size() != 1) return false;
    }
    for (size_t side = 0; side < 2; ++side) {  // side: the operand that is f(X)
      const std::string& fx = mul.inputs[side * 3];
      const std::string& x = mul.inputs[(1 - side) * 3];
      const int p = index.Producer(fx);
      if (p < 0) continue;
      const ir::Node& f = graph.nodes[static_cast<size_t>(p)];
      if ((!IsMsOp(f, "QLinearSigmoid") && !IsMsOp(f, "QLinearLeakyRelu")) || f.inputs.size() < 4 || f.inputs[0] != x ||
          f.outputs.size() != 1 || f.inputs[1].empty() || f.inputs[3].empty() || !ScalarConstantInputs(index, f)) {
        continue;
      }
      const std::optional<DataType> x_type = ByteType(index, f, mul, x);
      if (!x_type) continue;
      std::optional<Tensor> table = EvaluateOnEveryByte({&f, &mul}, x, *x_type, mul.outputs[0], index, ctx);
      if (!table) continue;
      graph.nodes[static_cast<size_t>(i)] = ByteLookupNode(graph, mul.name, x, std::move(*table), mul.outputs[0]);
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
