// x * f(x) on 8-bit data as one byte table: com.microsoft QLinearMul(X, QLinearSigmoid(X)) (SiLU / Swish, what the QDQ
// fusion makes of EfficientNet's and YOLO's DQ -> Sigmoid -> Q, DQ -> Mul -> Q groups) or QLinearMul(X,
// QLinearLeakyRelu(X)), operands in either order, becomes ai.onyx.internal.QLinearLookupMul:
//   Y = QLinearLookupMul(X, f_X_scale, f_X_zero_point, f_Y_scale, f_Y_zero_point,
//                        A_scale, A_zero_point, B_scale, B_zero_point, C_scale, C_zero_point)
//       <lookup = "Sigmoid" | "LeakyRelu", alpha, lookup_is_a>
// whose kernel (ops/quant/qlinear_lookup.cc) evaluates the two operators' own arithmetic on the 256 byte values once
// and then looks each byte up: the product of a byte and its table entry depends on that byte alone, so the bytes are
// those of the two operators one after the other, and the run reads X once instead of X twice plus f(X) (the
// product's exact integer arithmetic took 15% of EfficientNet-B0 QDQ's time). Every quantization parameter must be a
// one-element constant (zero points may be absent). The table operator stays where others read its result; dead-code
// elimination drops it otherwise.
#include <string>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

bool IsMsOp(const ir::Node& n, std::string_view op) { return n.domain == "com.microsoft" && n.op_type == op; }

// Input i of n is a one-element constant, or (for an optional zero point) absent.
bool ScalarParam(const GraphIndex& index, const ir::Node& n, size_t i, bool optional) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return optional;
  const Tensor* t = index.Constant(n.inputs[i]);
  return t != nullptr && t->size() == 1;
}

std::string InputOrEmpty(const ir::Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : std::string(); }

}  // namespace

Result<int> RunFuseQLinearLookupMul(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& mul = graph.nodes[static_cast<size_t>(i)];
    if (!IsMsOp(mul, "QLinearMul") || mul.inputs.size() < 7 || mul.outputs.size() != 1 || mul.inputs[0].empty() ||
        mul.inputs[3].empty()) {
      return false;
    }
    for (size_t k : {1, 2, 4, 5, 6, 7}) {
      if (!ScalarParam(index, mul, k, k == 2 || k == 5 || k == 7)) return false;
    }
    for (size_t side = 0; side < 2; ++side) {  // side: the operand that is f(X)
      const std::string& fx = mul.inputs[side * 3];
      const std::string& x = mul.inputs[(1 - side) * 3];
      const int p = index.Producer(fx);
      if (p < 0) continue;
      const ir::Node& f = graph.nodes[static_cast<size_t>(p)];
      const bool sigmoid = IsMsOp(f, "QLinearSigmoid");
      if ((!sigmoid && !IsMsOp(f, "QLinearLeakyRelu")) || f.inputs.size() < 4 || f.inputs[0] != x ||
          f.outputs.size() != 1 || !ScalarParam(index, f, 1, false) || !ScalarParam(index, f, 2, true) ||
          !ScalarParam(index, f, 3, false) || !ScalarParam(index, f, 4, true)) {
        continue;
      }
      ir::Node fused;
      fused.name = mul.name;
      fused.op_type = "QLinearLookupMul";
      fused.domain = ir::kInternalDomain;
      fused.inputs = {x,
                      f.inputs[1],
                      InputOrEmpty(f, 2),
                      f.inputs[3],
                      InputOrEmpty(f, 4),
                      mul.inputs[1],
                      InputOrEmpty(mul, 2),
                      mul.inputs[4],
                      InputOrEmpty(mul, 5),
                      mul.inputs[6],
                      InputOrEmpty(mul, 7)};
      fused.attributes.push_back(ir::StringAttr("lookup", sigmoid ? "Sigmoid" : "LeakyRelu"));
      if (!sigmoid) fused.attributes.push_back(ir::FloatAttr("alpha", AttrFloat(f, "alpha", 0.01f)));
      fused.attributes.push_back(ir::IntAttr("lookup_is_a", side == 0 ? 1 : 0));
      fused.outputs = mul.outputs;
      graph.nodes[static_cast<size_t>(i)] = std::move(fused);
      return true;
    }
    return false;
  });
}

}  // namespace onyx::optimizer
