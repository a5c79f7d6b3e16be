// The float tail of a dynamically quantized MatMul into one operator, as ONNX Runtime's MatMulIntegerToFloat fusion
// does at level extended:
//
//   MatMulInteger(A_q, W, a_zp[, w_zp]) -> Cast(to float) -> Mul(., s) [-> Add(., bias)]
//     with s = Mul(a_scale, w_scale), or s a constant
//   =>  ai.onyx.internal.MatMulIntegerToFloat(A_q, W, a_scale, w_scale, a_zp, w_zp[, bias])
//   or, when A_q, a_scale and a_zp come from a DynamicQuantizeLinear(X) that only this chain reads (the usual case),
//   =>  ai.onyx.internal.DynamicQuantizeMatMul(X, W, w_scale, w_zp[, bias]), which quantizes X itself exactly as
//       DynamicQuantizeLinear does (ONNX Runtime's DynamicQuantizeMatMulFusion, the same inputs)
//
// (onnxruntime's quantize_dynamic and `onyx quantize --mode dynamic` write every MatMul of a transformer this way;
// A_q, a_scale, a_zp come from a DynamicQuantizeLinear.) The kernel (ops/quant/matmul_integer_to_float.cc) computes
// the same float operations in the same order: float(acc) * (a_scale * w_scale), the scale product formed in float as
// the Mul node forms it, then + bias; so results do not depend on the fusion, bit for bit.
//
// Only exact cases: every intermediate read by the next node alone and not a graph output; W a constant int8 matrix
// whose zero point, if any, is constant zeros (the prepacked oneDNN kernel takes none); a_scale and a_zp scalars
// (DynamicQuantizeLinear's outputs, or constants of one value); w_scale a constant float of one value or one per
// column; the bias a constant float of one per column ([N], or [1, ..., N] no longer than A's known rank).
#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

bool IsFloatOf(const Tensor* t, int64_t count) {
  return t != nullptr && t->type() == DataType::kFloat && (t->size() == 1 || t->size() == count);
}

// A constant whose values all sit on the last axis (leading dims 1) and number `count`.
bool IsRowVector(const Tensor* t, int64_t count) {
  if (t == nullptr || t->rank() == 0 || t->size() != count) return false;
  for (int64_t d = 0; d + 1 < t->rank(); ++d) {
    if (t->dim(d) != 1) return false;
  }
  return true;
}

// Whether `value` is a one-value scale (a_scale) or zero point (a_zp) of A: output `output` of the
// DynamicQuantizeLinear `dql` (the one producing A), or a one-value constant of `type` (any type when nullopt).
bool IsScalarParam(const GraphIndex& index, const std::string& value, const ir::Node* dql, size_t output,
                   std::optional<DataType> type) {
  if (dql != nullptr) return dql->outputs.size() > output && dql->outputs[output] == value;
  const Tensor* c = index.Constant(value);
  return c != nullptr && c->size() == 1 && (!type || c->type() == *type);
}

struct Match {
  std::string a, w, a_scale, w_scale, a_zp, w_zp, bias, output;
  std::string float_a;  // DynamicQuantizeLinear's input when the chain is its only reader
  int last = -1;        // the node replaced (the Mul or the Add); the rest goes to dead-code elimination
};

// From the Mul(float(acc), s) at node i.
std::optional<Match> MatchChain(const ir::Graph& graph, const GraphIndex& index, int i) {
  const ir::Node& mul = graph.nodes[static_cast<size_t>(i)];
  if (!IsOnnxOp(mul, "Mul") || mul.inputs.size() != 2 || mul.outputs.size() != 1) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const std::string& accf = mul.inputs[static_cast<size_t>(side)];
    const std::string& s = mul.inputs[static_cast<size_t>(1 - side)];
    const ir::Node* cast = index.ProducerOp(accf, "Cast");
    if (cast == nullptr || cast->inputs.size() != 1 || !index.HasSingleReader(accf)) continue;
    if (AttrInt(*cast, "to", 0) != static_cast<int64_t>(DataType::kFloat)) continue;
    const ir::Node* mmi = index.ProducerOp(cast->inputs[0], "MatMulInteger");
    if (mmi == nullptr || mmi->inputs.size() < 2 || !index.HasSingleReader(cast->inputs[0])) continue;
    Match m;
    m.a = mmi->inputs[0];
    m.w = mmi->inputs[1];
    m.a_zp = mmi->inputs.size() > 2 ? mmi->inputs[2] : "";
    m.w_zp = mmi->inputs.size() > 3 ? mmi->inputs[3] : "";
    const Tensor* w = index.Constant(m.w);
    if (w == nullptr || w->type() != DataType::kInt8 || w->rank() != 2) continue;
    const int64_t n = w->dim(1);
    if (!m.w_zp.empty()) {
      const Tensor* z = index.Constant(m.w_zp);
      if (z == nullptr || z->type() != DataType::kInt8 || (z->size() != 1 && !IsRowVector(z, n))) continue;
      bool zeros = true;
      for (int64_t k = 0; k < z->size(); ++k) zeros = zeros && z->data<int8_t>()[k] == 0;
      if (!zeros) continue;
    }
    // A from a DynamicQuantizeLinear: its scale and zero point must be that node's. Otherwise A must be 8-bit with
    // constant one-value parameters.
    const ir::Node* dql = index.ProducerOp(m.a, "DynamicQuantizeLinear");
    if (dql != nullptr && (dql->outputs.empty() || dql->outputs[0] != m.a)) continue;
    const std::optional<DataType> a_type = dql != nullptr ? std::optional(DataType::kUint8) : index.ElemType(m.a);
    if (a_type != DataType::kUint8 && a_type != DataType::kInt8) continue;
    if (!m.a_zp.empty() && !IsScalarParam(index, m.a_zp, dql, 2, a_type)) continue;
    if (m.a_zp.empty() && dql != nullptr) continue;  // not what a quantizer writes; keep it simple
    // The scale: Mul(a_scale, w_scale) read only here, or a constant (then the whole multiplier, as a_scale).
    if (const ir::Node* smul = index.ProducerOp(s, "Mul")) {
      if (smul->inputs.size() != 2 || !index.HasSingleReader(s)) continue;
      bool found = false;
      for (int k = 0; k < 2 && !found; ++k) {
        const std::string& as = smul->inputs[static_cast<size_t>(k)];
        const std::string& ws = smul->inputs[static_cast<size_t>(1 - k)];
        const Tensor* wst = index.Constant(ws);
        if (!IsScalarParam(index, as, dql, 1, DataType::kFloat) || index.Constant(as) == wst) continue;
        if (!IsFloatOf(wst, n) || wst->rank() > 1) continue;
        m.a_scale = as;
        m.w_scale = ws;
        found = true;
      }
      if (!found) continue;
    } else {
      const Tensor* st = index.Constant(s);
      if (!IsFloatOf(st, n) || st->rank() > 1) continue;
      m.a_scale = s;
    }
    m.output = mul.outputs[0];
    m.last = i;
    if (dql != nullptr && dql->outputs.size() == 3 && !m.w_scale.empty() && index.HasSingleReader(m.a) &&
        index.HasSingleReader(m.a_zp) && index.HasSingleReader(m.a_scale)) {
      m.float_a = dql->inputs[0];
    }
    // The bias: Add(product, bias) or Add(bias, product), the product read only there.
    if (index.HasSingleReader(m.output)) {
      const int reader = index.Consumers(m.output)[0];
      const ir::Node& add = graph.nodes[static_cast<size_t>(reader)];
      if (IsOnnxOp(add, "Add") && add.inputs.size() == 2 && add.outputs.size() == 1 && add.inputs[0] != add.inputs[1]) {
        const std::string& bias = add.inputs[0] == m.output ? add.inputs[1] : add.inputs[0];
        const Tensor* b = index.Constant(bias);
        const std::optional<int64_t> a_rank = index.Rank(m.a);
        if (b != nullptr && b->type() == DataType::kFloat && IsRowVector(b, n) &&
            (b->rank() == 1 || (a_rank && b->rank() <= *a_rank))) {
          m.bias = bias;
          m.output = add.outputs[0];
          m.last = reader;
        }
      }
    }
    return m;
  }
  return std::nullopt;
}

}  // namespace

Result<int> RunFuseDynamicQuantMatMul(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    std::optional<Match> m = MatchChain(graph, index, i);
    if (!m) return false;
    ir::Node& last = graph.nodes[static_cast<size_t>(m->last)];
    ir::Node fused;
    fused.name = last.name.empty() ? m->output + "_matmul_integer_to_float" : last.name;
    fused.domain = ir::kInternalDomain;
    if (!m->float_a.empty()) {
      fused.op_type = "DynamicQuantizeMatMul";
      fused.inputs = {m->float_a, m->w, m->w_scale, m->w_zp, m->bias};
    } else {
      fused.op_type = "MatMulIntegerToFloat";
      fused.inputs = {m->a, m->w, m->a_scale, m->w_scale, m->a_zp, m->w_zp, m->bias};
    }
    while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
    fused.outputs = {m->output};
    last = std::move(fused);
    // With the bias the Add became the fused node; the Mul, now unread, goes at once so that the scan (which goes on
    // from this position) does not match it again. MatMulInteger, Cast and the scale Mul are left to dead-code
    // elimination.
    if (m->last != i) EraseNodes(graph, {i});
    return true;
  });
}

}  // namespace onyx::optimizer
