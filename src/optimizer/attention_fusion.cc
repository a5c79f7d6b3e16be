// Attention: the scaled dot-product chain torch exports for nn.MultiheadAttention and hand-written attention,
//   MatMul([Div|Mul c](Q), K^T) -> [Div|Mul c] -> [Add mask] -> Softmax(last axis) -> MatMul(., V)
// becomes one ai.onyx.internal.FusedAttention(Q, K^T, V, mask; scale, k_transposed = 1) node (src/ops/contrib/
// fused_attention.cc): one kernel that keeps each head's score matrix in cache instead of writing the scores, the
// scaled scores, the masked scores and the probabilities as four tensors. When K^T is a Transpose swapping the
// last two axes of K, the node reads K (k_transposed = 0) and the Transpose goes too. The scale constants must be
// scalars (folded into one factor in double), every intermediate must have no other reader, and the element type must
// be known to be float32 (the kernel's type). torch's sequence-first head transposes around it fold in too
// (ToSeqFirst).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

// If `v` is Div(x, c) or Mul(x, c)/Mul(c, x) with a scalar float constant c and `v` has one reader: x, and the
// factor it applies.
std::optional<std::pair<std::string, double>> ScaledBy(const GraphIndex& index, const std::string& v) {
  if (!index.HasSingleReader(v)) return std::nullopt;
  if (const ir::Node* div = index.ProducerOp(v, "Div"); div != nullptr && div->inputs.size() == 2) {
    const auto c = ScalarOf(index.Constant(div->inputs[1]));
    if (c && *c != 0.0 && std::isfinite(*c)) return std::make_pair(div->inputs[0], 1.0 / *c);
  }
  if (const ir::Node* mul = index.ProducerOp(v, "Mul"); mul != nullptr && mul->inputs.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const auto c = ScalarOf(index.Constant(mul->inputs[static_cast<size_t>(1 - k)]));
      if (c && std::isfinite(*c)) return std::make_pair(mul->inputs[static_cast<size_t>(k)], *c);
    }
  }
  return std::nullopt;
}

struct Scores {
  std::string q, k_t;
  double scale = 1.0;
};

// `v` = [scale](MatMul([scale](Q), K^T)), each step read only by the next.
std::optional<Scores> MatchScores(const GraphIndex& index, const std::string& v) {
  Scores s;
  std::string mm = v;
  if (auto scaled = ScaledBy(index, v)) {
    mm = scaled->first;
    s.scale = scaled->second;
  }
  const ir::Node* matmul = index.ProducerOp(mm, "MatMul");
  if (matmul == nullptr || matmul->inputs.size() != 2 || !index.HasSingleReader(mm)) return std::nullopt;
  s.q = matmul->inputs[0];
  s.k_t = matmul->inputs[1];
  if (auto scaled_q = ScaledBy(index, s.q)) {
    s.q = scaled_q->first;
    s.scale *= scaled_q->second;
  }
  return s;
}

// Softmax over the last axis: opset 13+ with axis -1 (the default); before 13 only an explicit axis -1 (the 2-D
// coercion then also normalizes the last axis alone).
bool IsLastAxisSoftmax(const ir::Model& model, const ir::Node& softmax) {
  const auto since = NodeSinceVersion(model, softmax);
  if (!since) return false;
  const bool has_axis = softmax.FindAttribute("axis") != nullptr;
  const int64_t axis = AttrInt(softmax, "axis", *since >= 13 ? -1 : 1);
  return axis == -1 && (*since >= 13 || has_axis);
}

// The element type of `value` where the graph fixes it: GraphIndex::ElemType, extended through the operators
// between a transformer's weights and its attention (Split's later outputs, Slice, Concat, Gather, MatMul, ...),
// whose outputs take their first input's type, and onyx's MatMulBias.
std::optional<DataType> TypeOf(const GraphIndex& index, const std::string& value, int depth = 0) {
  if (auto t = index.ElemType(value)) return t;
  const int p = index.Producer(value);
  if (p < 0 || depth > 32) return std::nullopt;
  const ir::Node& n = index.graph().nodes[static_cast<size_t>(p)];
  for (const char* op :
       {"Split", "Slice", "Concat", "Gather", "MatMul", "Gemm", "Softmax", "Squeeze", "Unsqueeze", "Expand", "Flatten",
        "LayerNormalization", "Transpose", "Reshape", "Add", "Mul", "Div", "Sub"}) {
    if (IsOnnxOp(n, op) && !n.inputs.empty()) return TypeOf(index, n.inputs[0], depth + 1);
  }
  // The MatMul + bias fusion's node (matmul_add_fusion.cc, which runs first): float32 only.
  if (n.domain == ir::kInternalDomain && n.op_type == "MatMulBias") return DataType::kFloat;
  return std::nullopt;
}

// The input of `value`'s producer when it is a Transpose with exactly `perm` read only by `value`'s reader.
std::optional<std::string> TransposedFrom(const GraphIndex& index, const std::string& value,
                                          const std::vector<int64_t>& perm) {
  const ir::Node* tr = index.ProducerOp(value, "Transpose");
  if (tr == nullptr || tr->inputs.size() != 1 || !index.HasSingleReader(value)) return std::nullopt;
  if (AttrInts(*tr, "perm") != std::optional<std::vector<int64_t>>(perm)) return std::nullopt;
  return tr->inputs[0];
}

// torch's nn.MultiheadAttention (sequence first): Q and V are Transpose([1, 0, 2]) of [S, B*H, D] tensors, K^T a
// Transpose([1, 2, 0]) of one, and the output goes through Transpose([1, 0, 2]) back to [S, B*H, Dv]. The fused
// node then reads and writes those [S, B*H, D] tensors in place (seq_first = 1, sdpa.h's strided rows): four
// copies per layer fewer. Only without a mask (whose layout would change too).
bool ToSeqFirst(ir::Graph& graph, const GraphIndex& index, int i) {
  const ir::Node& n = graph.nodes[static_cast<size_t>(i)];
  if (n.domain != ir::kInternalDomain || n.op_type != "FusedAttention" || n.inputs.size() != 3 ||
      n.outputs.size() != 1 || AttrInt(n, "seq_first", 0) != 0) {
    return false;
  }
  const bool k_transposed = AttrInt(n, "k_transposed", 0) != 0;
  const auto q = TransposedFrom(index, n.inputs[0], {1, 0, 2});
  const auto k =
      TransposedFrom(index, n.inputs[1], k_transposed ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{1, 0, 2});
  const auto v = TransposedFrom(index, n.inputs[2], {1, 0, 2});
  if (!q || !k || !v || !index.HasSingleReader(n.outputs[0])) return false;
  const int reader = index.Consumers(n.outputs[0])[0];
  const ir::Node& out = graph.nodes[static_cast<size_t>(reader)];
  if (!IsOnnxOp(out, "Transpose") || out.outputs.size() != 1 ||
      AttrInts(out, "perm") != std::optional<std::vector<int64_t>>(std::vector<int64_t>{1, 0, 2})) {
    return false;
  }
  ir::Node& fused = graph.nodes[static_cast<size_t>(i)];
  fused.inputs = {*q, *k, *v};
  fused.outputs = {out.outputs[0]};
  SetAttrInt(fused, "k_transposed", 0);
  SetAttrInt(fused, "seq_first", 1);
  EraseNodes(graph, {reader});  // the input Transposes are left to dead-code elimination
  return true;
}

// One input of a seq_first FusedAttention as columns of a wider tensor: x = Reshape(Slice(P, b, e, last axis), [R, H,
// D]) with constant bounds 0 <= b < e, e - b = H D, step 1, each read only here: P's rows (its last axis, F values)
// hold the R rows of x's heads at columns b .. e.
struct HeadColumns {
  std::string source;
  int64_t offset = 0, rows = 0, heads = 0, size = 0;
};

std::optional<HeadColumns> SlicedHeads(const GraphIndex& index, const std::string& x) {
  const ir::Node* reshape = index.ProducerOp(x, "Reshape");
  if (reshape == nullptr || reshape->inputs.size() != 2 || !index.HasSingleReader(x)) return std::nullopt;
  const Tensor* target = index.Constant(reshape->inputs[1]);
  if (target == nullptr || !IsInteger(target->type()) || target->size() != 3) return std::nullopt;
  const HeadColumns shape{"", 0, target->IntAt(0), target->IntAt(1), target->IntAt(2)};
  if (shape.rows < 0 || shape.heads <= 0 || shape.size <= 0) return std::nullopt;
  const std::string& sliced = reshape->inputs[0];
  const ir::Node* slice = index.ProducerOp(sliced, "Slice");
  if (slice == nullptr || slice->inputs.size() < 4 || !index.HasSingleReader(sliced)) return std::nullopt;
  auto one = [&](size_t k) -> std::optional<int64_t> {
    const Tensor* t = k < slice->inputs.size() ? index.Constant(slice->inputs[k]) : nullptr;
    if (t == nullptr || !IsInteger(t->type()) || t->size() != 1) return std::nullopt;
    return t->IntAt(0);
  };
  const auto begin = one(1), end = one(2), axis = one(3);
  if (!begin || !end || !axis || *begin < 0 || *end - *begin != shape.heads * shape.size) return std::nullopt;
  const std::optional<int64_t> rank = index.Rank(slice->inputs[0]);
  if (*axis != -1 && (!rank || *axis != *rank - 1)) return std::nullopt;
  if (slice->inputs.size() > 4 && !slice->inputs[4].empty() && one(4) != int64_t{1}) return std::nullopt;
  HeadColumns c = shape;
  c.source = slice->inputs[0];
  c.offset = *begin;
  return c;
}

// torch's nn.MultiheadAttention slices Q, K and V out of one input projection ([S, B, 3E]) and reshapes each to
// [S, B*H, D]: with B = 1 the seq_first node reads them in place, as columns of the projection's rows (attributes
// column_offsets / column_heads / column_rows, src/ops/contrib/fused_attention.cc): the three Slice copies (1.2-1.9
// ms of a BERT-like encoder on an AMD Zen 4) go.
bool FromProjectionColumns(ir::Graph& graph, const GraphIndex& index, int i) {
  const ir::Node& n = graph.nodes[static_cast<size_t>(i)];
  if (n.domain != ir::kInternalDomain || n.op_type != "FusedAttention" || n.inputs.size() != 3 ||
      AttrInt(n, "seq_first", 0) != 1 || n.FindAttribute("column_offsets") != nullptr) {
    return false;
  }
  const auto q = SlicedHeads(index, n.inputs[0]);
  const auto k = SlicedHeads(index, n.inputs[1]);
  const auto v = SlicedHeads(index, n.inputs[2]);
  if (!q || !k || !v || k->heads != q->heads || v->heads != q->heads || k->size != q->size || v->rows != k->rows) {
    return false;
  }
  ir::Node& fused = graph.nodes[static_cast<size_t>(i)];
  fused.inputs = {q->source, k->source, v->source};
  SetAttrInts(fused, "column_offsets", {q->offset, k->offset, v->offset});
  SetAttrInts(fused, "column_heads", {q->heads, q->size, v->size});
  SetAttrInts(fused, "column_rows", {q->rows, k->rows});
  return true;  // the Slices and Reshapes are left to dead-code elimination
}

}  // namespace

Result<int> RunFuseAttention(ir::Graph& graph, const PassContext& ctx) {
  if (ctx.options.ort_fusions) return 0;  // ONNX Runtime keeps these MatMul/Softmax chains (OptimizerOptions)
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    if (ToSeqFirst(graph, index, i) || FromProjectionColumns(graph, index, i)) return true;
    const ir::Node& out = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(out, "MatMul") || out.inputs.size() != 2 || out.outputs.size() != 1) return false;
    const std::string& probs = out.inputs[0];
    const std::string& v = out.inputs[1];
    const ir::Node* softmax = index.ProducerOp(probs, "Softmax");
    if (softmax == nullptr || !index.HasSingleReader(probs) || !IsLastAxisSoftmax(ctx.model, *softmax)) return false;
    const std::string& logits = softmax->inputs[0];
    if (!index.HasSingleReader(logits)) return false;
    std::optional<Scores> scores;
    std::string mask;
    if (const ir::Node* add = index.ProducerOp(logits, "Add"); add != nullptr && add->inputs.size() == 2) {
      for (int side = 0; side < 2 && !scores; ++side) {
        scores = MatchScores(index, add->inputs[static_cast<size_t>(side)]);
        if (scores) mask = add->inputs[static_cast<size_t>(1 - side)];
      }
    } else {
      scores = MatchScores(index, logits);
    }
    if (!scores) return false;
    // The kernel computes float32 only: the type must be known.
    // (MatMul makes Q, K^T and V one type; Add makes the mask the same.)
    if (TypeOf(index, scores->q) != DataType::kFloat && TypeOf(index, v) != DataType::kFloat) return false;
    // K^T made by a Transpose that only swaps the last two axes (torch's k.transpose(-1, -2)) and read only here:
    // the kernel reads K itself, and the Transpose of the whole key cache goes away.
    std::string k_input = scores->k_t;
    int64_t k_transposed = 1;
    if (const ir::Node* tr = index.ProducerOp(scores->k_t, "Transpose");
        tr != nullptr && tr->inputs.size() == 1 && index.HasSingleReader(scores->k_t)) {
      const auto perm = AttrInts(*tr, "perm");
      bool swap_last_two = perm && perm->size() >= 2;
      for (size_t a = 0; swap_last_two && a + 2 < perm->size(); ++a) {
        swap_last_two = (*perm)[a] == static_cast<int64_t>(a);
      }
      const int64_t r = perm ? static_cast<int64_t>(perm->size()) : 0;
      if (swap_last_two && (*perm)[static_cast<size_t>(r - 2)] == r - 1 &&
          (*perm)[static_cast<size_t>(r - 1)] == r - 2) {
        k_input = tr->inputs[0];
        k_transposed = 0;
      }
    }
    ir::Node fused;
    fused.name = out.name;
    fused.op_type = "FusedAttention";
    fused.domain = ir::kInternalDomain;
    fused.inputs = {scores->q, k_input, v};
    if (!mask.empty()) fused.inputs.push_back(mask);
    fused.outputs = {out.outputs[0]};
    SetAttrFloat(fused, "scale", static_cast<float>(scores->scale));
    SetAttrInt(fused, "k_transposed", k_transposed);
    graph.nodes[static_cast<size_t>(i)] = std::move(fused);  // the chain's other nodes go to dead-code elimination
    return true;
  });
}

}  // namespace onyx::optimizer
