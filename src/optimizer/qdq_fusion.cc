// QDQ groups to integer operators, as ONNX Runtime's QDQ selector/action transformer does at level extended, so
// that a QDQ model computes onyx's integer kernels' (and ONNX Runtime's) results instead of the float path's:
//
//   DQ(x), DQ(w)[, DQ(int32 bias)] -> Conv [-> Relu/Clip made redundant by the Q] -> Q   =>  QLinearConv
//   DQ(a), DQ(b) -> MatMul -> Q                                                         =>  QLinearMatMul
//   DQ(a), DQ(b)[, DQ(int32 c)] -> Gemm [-> redundant Relu/Clip -> Q | -> Q]     =>  com.microsoft.QGemm (a float
//                                                   result without the Q, ONNX Runtime's GemmNodeGroupSelector)
//   DQ(a), DQ(b) -> Add [-> redundant Relu/Clip] -> Q                    =>  ai.onyx.internal.QLinearAdd
//   DQ -> GlobalAveragePool [-> redundant Relu/Clip] -> Q                =>  ai.onyx.internal.QLinearGlobalAveragePool
//   DQ(x0), DQ(x1), ... -> Concat [-> redundant Relu/Clip] -> Q          =>  ai.onyx.internal.QLinearConcat
//   DQ -> MaxPool(12+)/Reshape/Transpose/Squeeze/Unsqueeze/Flatten/Slice/Gather/.../nearest Resize -> Q  =>  the op
//                                                   on 8-bit data
//                                                   (2-D MaxPool as ai.onyx.internal.MaxPool, a fast 8-bit kernel)
//
// under ONNX Runtime's conditions (qdq_selectors.cc): the target's output read only by the Q (or by the redundant
// Relu/Clip, read only by the Q) and not a graph output; every existing input of the target from a DQ; input and
// output 8-bit types equal; uint8 activations for Conv and MatMul (ONNX Runtime's x86-64 build fuses no int8 ones
// there; it does fuse int8 Concat groups); an int32 bias, passed through raw as ONNX Runtime does (its DQ scale is
// assumed to be x_scale * w_scale); for the dropped groups, Q and DQ with the same constant scalar scale (positive for
// MaxPool) and zero point. A DQ read by other nodes stays for them (ONNX Runtime duplicates it; reading its input
// directly is the same).
//
//   DQ -> AveragePool/LeakyRelu/Sigmoid/Softmax -> Q, DQ, DQ -> Mul -> Q, DQ, DQ -> Where -> Q
//                                                   =>  com.microsoft.QLinearAveragePool/LeakyRelu/Sigmoid/Softmax/
//                                                       Mul/Where (ops/quant: ONNX Runtime's arithmetic)
//
// Exactness rule: ONNX Runtime also fuses the groups above when their parameters are per-axis or not constants (its
// kernels then read them per run or fail), which onyx does not reproduce. Fusing some groups of a graph and not
// others would match neither ONNX Runtime's unfused results nor its fused ones, so a graph holding such a group (or
// one onyx cannot express: 16-bit types) is left entirely as it is: its results then stay those of ONNX Runtime at
// level disabled (docs/quantization.md). Its other QDQ rewrites change no byte and need no twin for exactness: it
// drops the QDQ of ArgMax/ReduceMax/ReduceMin (positive scale) and of Split (every output's Q with the DQ's
// parameters): the maximum and its index commute with a positive-scale dequantization, and a value requantized with
// its own parameters rounds back to itself; it fuses no Einsum or Reciprocal group (ONNX Runtime 1.30's optimized
// models, checked). onyx drops the Split's too, for speed (RunDropSplitQdq below: the split then stays 8-bit and
// channels last).
#include "optimizer/qdq_fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph_edit.h"
#include "optimizer/graph_index.h"

namespace onyx::optimizer {
namespace {

bool Is8Bit(std::optional<DataType> t) { return t == DataType::kUint8 || t == DataType::kInt8; }

bool IsDropOp(const ir::Node& n);

// The element type of a quantized value: an initializer's type, a QuantizeLinear's output type (from its zero point
// or output_dtype, uint8 by default), a QLinearConv/QLinearMatMul's (its y_zero_point's, else its x's), a dropped
// group's op (its input's: groups fused earlier in the scan feed later ones), or what the index knows.
std::optional<DataType> QuantType(const GraphIndex& index, const std::string& value, int depth = 0) {
  if (depth > 64) return std::nullopt;
  if (const Tensor* c = index.Constant(value)) return c->type();
  auto zero_point_type = [&](const ir::Node& n, size_t zp_input) -> std::optional<DataType> {
    if (n.inputs.size() <= zp_input || n.inputs[zp_input].empty()) return std::nullopt;
    if (const Tensor* z = index.Constant(n.inputs[zp_input])) return z->type();
    return index.ElemType(n.inputs[zp_input]);
  };
  if (const ir::Node* q = index.ProducerOp(value, "QuantizeLinear")) {
    if (q->inputs.size() > 2 && !q->inputs[2].empty()) return zero_point_type(*q, 2);
    const int64_t od = AttrInt(*q, "output_dtype", 0);
    if (od != 0) return static_cast<DataType>(od);
    return DataType::kUint8;
  }
  const int p = index.Producer(value);
  if (p >= 0) {
    const ir::Node& n = index.graph().nodes[static_cast<size_t>(p)];
    const bool internal = n.domain == ir::kInternalDomain;
    const bool ms = n.domain == "com.microsoft";
    if (IsOnnxOp(n, "QLinearConv") || IsOnnxOp(n, "QLinearMatMul") ||
        ((internal || ms) && (n.op_type == "QLinearAdd" || n.op_type == "QLinearMul"))) {
      if (auto t = zero_point_type(n, 7)) return t;
      return QuantType(index, n.inputs[0], depth + 1);
    }
    if (ms && (n.op_type == "QLinearSigmoid" || n.op_type == "QLinearLeakyRelu" || n.op_type == "QLinearAveragePool" ||
               n.op_type == "QLinearSoftmax")) {
      if (auto t = zero_point_type(n, 4)) return t;
      return QuantType(index, n.inputs[0], depth + 1);
    }
    if (ms && n.op_type == "QLinearWhere" && n.inputs.size() > 1) {
      if (auto t = zero_point_type(n, 8)) return t;
      return QuantType(index, n.inputs[1], depth + 1);
    }
    if (n.domain == "com.microsoft" && n.op_type == "QGemm" && n.inputs.size() > 7 && !n.inputs[7].empty()) {
      if (auto t = zero_point_type(n, 8)) return t;
      return QuantType(index, n.inputs[0], depth + 1);
    }
    if (internal && n.op_type == "QLinearGlobalAveragePool") {
      if (auto t = zero_point_type(n, 4)) return t;
      return QuantType(index, n.inputs[0], depth + 1);
    }
    if (internal && n.op_type == "QLinearConcat" && n.inputs.size() > 2) {
      if (auto t = zero_point_type(n, 1)) return t;
      return QuantType(index, n.inputs[2], depth + 1);
    }
    if (internal && n.op_type == "ByteLookup" && n.inputs.size() == 2) {  // the table's type
      if (const Tensor* table = index.Constant(n.inputs[1])) return table->type();
    }
    // A dropped group's op; a Split of 8-bit data (DropSplitQdq), any of its outputs.
    if (((IsDropOp(n) || (internal && n.op_type == "MaxPool")) && !n.inputs.empty() && n.outputs[0] == value) ||
        (IsOnnxOp(n, "Split") && !n.inputs.empty())) {
      if (auto t = QuantType(index, n.inputs[0], depth + 1); t == DataType::kUint8 || t == DataType::kInt8) return t;
    }
  }
  return index.ElemType(value);
}

// A DequantizeLinear or QuantizeLinear node's parameters.
struct QParams {
  std::string data, scale, zero_point;  // zero_point "" when omitted
  std::optional<DataType> type;         // the quantized side's element type
  int64_t axis = 1;
  bool has_block_size = false;
};

QParams ParamsOf(const GraphIndex& index, const ir::Node& n, bool is_dq) {
  QParams p;
  p.data = is_dq ? n.inputs[0] : n.outputs[0];
  p.scale = n.inputs.size() > 1 ? n.inputs[1] : "";
  p.zero_point = n.inputs.size() > 2 ? n.inputs[2] : "";
  p.axis = AttrInt(n, "axis", 1);
  p.has_block_size = AttrInt(n, "block_size", 0) != 0;
  p.type = is_dq ? QuantType(index, n.inputs[0]) : QuantType(index, n.outputs[0]);
  return p;
}

// One value of a constant scalar (rank 0 or one element) float scale, or nullopt.
std::optional<float> ConstantScale(const GraphIndex& index, const std::string& name) {
  const Tensor* t = index.Constant(name);
  if (t == nullptr || t->size() != 1 || t->type() != DataType::kFloat) return std::nullopt;
  return t->data<float>()[0];
}

std::optional<int32_t> ConstantZeroPoint(const GraphIndex& index, const std::string& name, DataType type) {
  if (name.empty()) return 0;
  const Tensor* t = index.Constant(name);
  if (t == nullptr || t->size() != 1 || t->type() != type) return std::nullopt;
  return type == DataType::kUint8 ? int32_t{t->data<uint8_t>()[0]} : int32_t{t->data<int8_t>()[0]};
}

// The number of elements of a constant, or -1 when the value is not a constant.
int64_t ConstantSize(const GraphIndex& index, const std::string& name) {
  const Tensor* t = index.Constant(name);
  return t != nullptr ? t->size() : -1;
}

enum class Verdict { kNone, kFuse, kOrtOnly };

struct Plan {
  Verdict verdict = Verdict::kNone;
  ir::Node replacement;    // for kFuse of Conv/MatMul: the node taking the Q's place
  int drop_target = -1;    // for kFuse of a dropped group: the node that takes the DQ's input and the Q's output
  std::string drop_input;  // ... the DQ's input
};

// The Relu or Clip between a target and its Q, when the Q makes it redundant (ONNX Runtime's
// IsClipMadeRedundantByQ): Relu when the Q's zero point is the type's minimum, Clip when its constant range covers
// the whole quantized range.
bool RedundantActivation(const GraphIndex& index, const ir::Node& act, const QParams& q) {
  if (!Is8Bit(q.type)) return false;
  const std::optional<float> scale = ConstantScale(index, q.scale);
  const std::optional<int32_t> zp = ConstantZeroPoint(index, q.zero_point, *q.type);
  if (!scale || !zp) return false;
  const int32_t lo = *q.type == DataType::kUint8 ? 0 : -128, hi = *q.type == DataType::kUint8 ? 255 : 127;
  if (IsOnnxOp(act, "Relu")) return *zp == lo;
  if (!IsOnnxOp(act, "Clip")) return false;
  float cmin = -INFINITY, cmax = INFINITY;
  if (act.inputs.size() > 1 || act.FindAttribute("min") == nullptr) {  // Clip-11+: optional inputs
    for (size_t k = 1; k < 3; ++k) {
      if (act.inputs.size() <= k || act.inputs[k].empty()) continue;
      const std::optional<float> v = ConstantScale(index, act.inputs[k]);
      if (!v) return false;
      (k == 1 ? cmin : cmax) = *v;
    }
  } else {
    cmin = AttrFloat(act, "min", -INFINITY);
    cmax = AttrFloat(act, "max", INFINITY);
  }
  const double qmin = std::rint(static_cast<double>(cmin / *scale)) + *zp;
  const double qmax = std::rint(static_cast<double>(cmax / *scale)) + *zp;
  return qmin <= lo && qmax >= hi;
}

const char* kDropOps[] = {"MaxPool", "Reshape", "Transpose",      "Squeeze", "Unsqueeze", "Flatten",
                          "Slice",   "Gather",  "GatherElements", "Expand",  "Tile",      "Resize"};

bool IsDropOp(const ir::Node& n) {
  for (const char* op : kDropOps) {
    if (IsOnnxOp(n, op)) return true;
  }
  return false;
}

// The DequantizeLinear producing input k of `target`, or null.
const ir::Node* DqInput(const GraphIndex& index, const ir::Node& target, size_t k) {
  if (target.inputs.size() <= k || target.inputs[k].empty()) return nullptr;
  return index.ProducerOp(target.inputs[k], "DequantizeLinear");
}

// How many of the target's inputs come from DequantizeLinear nodes.
int CountDqInputs(const GraphIndex& index, const ir::Node& target) {
  int count = 0;
  for (size_t k = 0; k < target.inputs.size(); ++k) count += DqInput(index, target, k) != nullptr;
  return count;
}

int CountExistingInputs(const ir::Node& n) {
  return static_cast<int>(std::count_if(n.inputs.begin(), n.inputs.end(), [](const auto& s) { return !s.empty(); }));
}

// The elementwise and pooling groups of ONNX Runtime's UnarySelector (DQ -> AveragePool/GlobalAveragePool/LeakyRelu/
// Sigmoid/Softmax -> Q), BinarySelector (DQ, DQ -> Add/Mul -> Q) and WhereSelector (condition, DQ, DQ -> Where -> Q):
// the data inputs all from DQs, their types and the Q's equal and 8-bit. It replaces them with com.microsoft
// QLinear* operators, which onyx implements with the same arithmetic (ops/quant); Add and GlobalAveragePool become
// onyx's own QLinearAdd and QLinearGlobalAveragePool (the same arithmetic, and the 8-bit layout pass takes them).
// Those kernels take one scale and zero point per tensor (ONNX Runtime's insist on that at run time); other
// parameters, and AveragePool dilations (which ONNX Runtime's kernel ignores), leave the graph unfused.
bool IsElementwiseTarget(const ir::Node& n) {
  for (const char* op :
       {"Add", "Mul", "Where", "AveragePool", "GlobalAveragePool", "LeakyRelu", "Sigmoid", "Softmax"}) {
    if (IsOnnxOp(n, op)) return true;
  }
  return false;
}

Plan ClassifyElementwise(const ir::Model& model, const GraphIndex& index, const ir::Node& q, const QParams& qp,
                         const ir::Node& target, int dq_count) {
  Plan plan;
  const bool is_where = IsOnnxOp(target, "Where");
  const bool binary = IsOnnxOp(target, "Add") || IsOnnxOp(target, "Mul");
  // The data inputs: Where's X and Y (its condition is boolean), a binary op's two, a unary op's one.
  std::vector<size_t> data = is_where ? std::vector<size_t>{1, 2}
                             : binary ? std::vector<size_t>{0, 1}
                                      : std::vector<size_t>{0};
  if (target.inputs.size() != (is_where ? 3 : data.size()) || dq_count != static_cast<int>(data.size())) return plan;
  std::vector<QParams> in;
  for (size_t k : data) {
    const ir::Node* dq = DqInput(index, target, k);
    if (dq == nullptr) return plan;
    in.push_back(ParamsOf(index, *dq, true));
  }
  for (const QParams& p : in) {
    if (!p.type || !qp.type) {
      plan.verdict = Verdict::kOrtOnly;
      return plan;
    }
    if (*p.type != *qp.type) return plan;
  }
  if (!Is8Bit(qp.type)) {
    plan.verdict = Verdict::kOrtOnly;  // 16-bit: ONNX Runtime has QLinearAdd for uint16, onyx not
    return plan;
  }
  auto scalar = [&](const QParams& p) {
    return ConstantSize(index, p.scale) == 1 && !p.has_block_size &&
           (p.zero_point.empty() || ConstantSize(index, p.zero_point) == 1);
  };
  plan.verdict = Verdict::kOrtOnly;  // from here on: what ONNX Runtime fuses and onyx cannot express
  for (const QParams& p : in) {
    if (!scalar(p)) return plan;
  }
  if (!scalar(qp)) return plan;
  ir::Node fused;
  fused.name = target.name.empty() ? q.name : target.name;
  fused.domain = "com.microsoft";
  fused.op_type = "QLinear" + target.op_type;
  if (is_where) fused.inputs.push_back(target.inputs[0]);
  for (const QParams& p : in) {
    fused.inputs.push_back(p.data);
    fused.inputs.push_back(p.scale);
    fused.inputs.push_back(p.zero_point);
  }
  fused.inputs.push_back(qp.scale);
  fused.inputs.push_back(qp.zero_point);
  if (IsOnnxOp(target, "Add") || IsOnnxOp(target, "GlobalAveragePool")) fused.domain = ir::kInternalDomain;
  if (IsOnnxOp(target, "GlobalAveragePool")) SetAttrInt(fused, "channels_last", 0);
  if (IsOnnxOp(target, "AveragePool")) {
    if (const auto d = AttrInts(target, "dilations")) {
      for (int64_t v : *d) {
        if (v != 1) return plan;
      }
    }
    for (const auto& a : target.attributes) {
      if (a.name != "dilations") fused.attributes.push_back(a);
    }
  }
  if (IsOnnxOp(target, "LeakyRelu")) SetAttrFloat(fused, "alpha", AttrFloat(target, "alpha", 0.01f));
  if (IsOnnxOp(target, "Softmax")) {
    const int since = NodeSinceVersion(model, target).value_or(13);
    SetAttrInt(fused, "opset", since);
    SetAttrInt(fused, "axis", AttrInt(target, "axis", since < 13 ? 1 : -1));
  }
  fused.outputs = {q.outputs[0]};
  plan.verdict = Verdict::kFuse;
  plan.replacement = std::move(fused);
  return plan;
}

// DQ(x0), DQ(x1), ... -> Concat -> Q (ONNX Runtime's InputVariadicSelector, to com.microsoft QLinearConcat, int8
// included): every input from a DQ, all DQ inputs and the Q output of one type, 16- and 4-bit types left unfused.
// onyx's ai.onyx.internal.QLinearConcat computes the same bytes for constant scalar scales and zero points; any other
// parameters ONNX Runtime would fuse too (its kernel then takes them per run or fails), so the graph stays unfused.
Plan ClassifyConcat(const GraphIndex& index, const ir::Node& q, const QParams& qp, const ir::Node& target,
                    int dq_count) {
  Plan plan;
  if (target.inputs.empty() || dq_count != static_cast<int>(target.inputs.size())) return plan;
  std::vector<QParams> in;
  for (size_t k = 0; k < target.inputs.size(); ++k) in.push_back(ParamsOf(index, *DqInput(index, target, k), true));
  if (!qp.type) {
    plan.verdict = Verdict::kOrtOnly;
    return plan;
  }
  for (const QParams& p : in) {
    if (!p.type) {
      plan.verdict = Verdict::kOrtOnly;
      return plan;
    }
    if (*p.type != *qp.type) return plan;
  }
  const DataType type = *qp.type;
  if (type == DataType::kUint16 || type == DataType::kInt16) return plan;
  plan.verdict = Verdict::kOrtOnly;  // from here on: what ONNX Runtime fuses and onyx cannot express
  if (!Is8Bit(qp.type) || target.FindAttribute("axis") == nullptr) return plan;
  // An omitted zero point: ONNX Runtime inserts a uint8 0 (SetOptionalZeroPoint), the same only for uint8 data; the
  // kernel needs Y's.
  auto scalar = [&](const QParams& p, bool zero_point_required) {
    if (p.has_block_size || !ConstantScale(index, p.scale)) return false;
    if (p.zero_point.empty()) return !zero_point_required && type == DataType::kUint8;
    return ConstantZeroPoint(index, p.zero_point, type).has_value();
  };
  if (!scalar(qp, true)) return plan;
  for (const QParams& p : in) {
    if (!scalar(p, false)) return plan;
  }
  ir::Node fused;
  fused.name = target.name.empty() ? q.name : target.name;
  fused.domain = ir::kInternalDomain;
  fused.op_type = "QLinearConcat";
  fused.inputs = {qp.scale, qp.zero_point};
  for (const QParams& p : in) {
    fused.inputs.push_back(p.data);
    fused.inputs.push_back(p.scale);
    fused.inputs.push_back(p.zero_point);
  }
  SetAttrInt(fused, "axis", AttrInt(target, "axis", 0));
  fused.outputs = {q.outputs[0]};
  plan.verdict = Verdict::kFuse;
  plan.replacement = std::move(fused);
  return plan;
}

// DQ(A), DQ(B)[, DQ(C)] -> Gemm [-> Q] (ONNX Runtime's GemmNodeGroupSelector, its Q optional) => com.microsoft.QGemm:
// every input from a DQ; int8 A only with int8 B; Y's type A's; 16- and 4-bit types left unfused; with C, beta 1 and
// C int32 (passed through raw, its scale assumed a_scale * b_scale as ONNX Runtime does). `q`: the group's Q, or null
// for a float result. onyx's QGemm takes what ONNX Runtime's kernel takes: one scale and zero point for A and Y, one
// or N for B.
Plan ClassifyGemm(const GraphIndex& index, const ir::Node& gemm, const ir::Node* q) {
  Plan plan;
  const int dq_count = CountDqInputs(index, gemm);
  if (gemm.outputs.size() != 1 || dq_count < 2 || dq_count != CountExistingInputs(gemm)) return plan;
  const ir::Node* dqa = DqInput(index, gemm, 0);
  const ir::Node* dqb = DqInput(index, gemm, 1);
  if (dqa == nullptr || dqb == nullptr) return plan;
  const QParams ap = ParamsOf(index, *dqa, true), bp = ParamsOf(index, *dqb, true);
  std::optional<QParams> yp;
  if (q != nullptr) yp = ParamsOf(index, *q, false);
  if (!ap.type || !bp.type || (yp && !yp->type)) {
    plan.verdict = Verdict::kOrtOnly;  // types onyx cannot see; ONNX Runtime may fuse
    return plan;
  }
  if (*ap.type == DataType::kInt8 && *bp.type != DataType::kInt8) return plan;
  if (yp && *yp->type != *ap.type) return plan;
  auto narrow = [](DataType t) {
    return t == DataType::kUint16 || t == DataType::kInt16 || t == DataType::kUint4 || t == DataType::kInt4;
  };
  if (narrow(*ap.type) || narrow(*bp.type)) return plan;
  std::string bias;
  if (dq_count == 3) {
    if (AttrFloat(gemm, "beta", 1.0f) != 1.0f) return plan;
    const ir::Node* dqc = DqInput(index, gemm, 2);
    if (dqc == nullptr || QuantType(index, dqc->inputs[0]) != DataType::kInt32) return plan;
    bias = dqc->inputs[0];
  }
  // From here on ONNX Runtime fuses the group; what onyx cannot express leaves the graph unfused.
  plan.verdict = Verdict::kOrtOnly;
  if (!Is8Bit(ap.type) || !Is8Bit(bp.type)) return plan;
  const Tensor* b_const = index.Constant(bp.data);
  const int64_t n = b_const == nullptr || b_const->rank() != 2 ? -1
                    : AttrInt(gemm, "transB", 0) != 0          ? b_const->dim(0)
                                                               : b_const->dim(1);
  auto float_params = [&](const QParams& p, bool per_column) {
    const Tensor* s = index.Constant(p.scale);
    if (s == nullptr || s->type() != DataType::kFloat || p.has_block_size || s->rank() > 1) return false;
    if (s->size() != 1 && !(per_column && s->size() == n)) return false;
    if (p.zero_point.empty()) return true;
    const Tensor* z = index.Constant(p.zero_point);
    return z != nullptr && z->type() == *p.type && z->size() == s->size() && z->rank() == s->rank();
  };
  if (!float_params(ap, false) || !float_params(bp, true) || (yp && !float_params(*yp, false))) return plan;
  ir::Node fused;
  fused.name = gemm.name.empty() ? (q != nullptr ? q->name : gemm.outputs[0]) : gemm.name;
  fused.domain = "com.microsoft";
  fused.op_type = "QGemm";
  fused.inputs = {ap.data, ap.scale, ap.zero_point, bp.data, bp.scale, bp.zero_point, bias};
  if (yp) {
    fused.inputs.push_back(yp->scale);
    fused.inputs.push_back(yp->zero_point);
  }
  while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
  SetAttrFloat(fused, "alpha", AttrFloat(gemm, "alpha", 1.0f));
  SetAttrInt(fused, "transA", AttrInt(gemm, "transA", 0));
  SetAttrInt(fused, "transB", AttrInt(gemm, "transB", 0));
  fused.outputs = {q != nullptr ? q->outputs[0] : gemm.outputs[0]};
  plan.verdict = Verdict::kFuse;
  plan.replacement = std::move(fused);
  return plan;
}

// A Gemm without a Q in its group (ONNX Runtime's selector then makes a float QGemm): its output read by no Q and not
// by a Relu/Clip alone (one edge) whose own value has one edge and is no graph output: that makes the group the Q's,
// or no group.
bool GemmGroupHasNoQ(const ir::Graph& graph, const GraphIndex& index, const ir::Node& gemm) {
  const std::string& out = gemm.outputs[0];
  const auto& readers = index.Consumers(out);
  for (int r : readers) {
    if (IsOnnxOp(graph.nodes[static_cast<size_t>(r)], "QuantizeLinear")) return false;
  }
  if (index.ReadEdges(out) == 1 && readers.size() == 1) {
    const ir::Node& r = graph.nodes[static_cast<size_t>(readers[0])];
    if ((IsOnnxOp(r, "Relu") || IsOnnxOp(r, "Clip")) && r.outputs.size() == 1 && index.ReadEdges(r.outputs[0]) == 1 &&
        !index.IsGraphOutput(r.outputs[0])) {
      return false;
    }
  }
  return true;
}

// Node i as the Q of a group (or as a Gemm whose group has no Q); what to do with it.
Plan Classify(const ir::Model& model, const ir::Graph& graph, const GraphIndex& index, int i) {
  Plan plan;
  const ir::Node& q = graph.nodes[static_cast<size_t>(i)];
  if (IsOnnxOp(q, "Gemm") && q.outputs.size() == 1 && GemmGroupHasNoQ(graph, index, q)) {
    return ClassifyGemm(index, q, nullptr);
  }
  if (!IsOnnxOp(q, "QuantizeLinear") || q.inputs.size() < 2 || q.outputs.size() != 1) return plan;
  const QParams qp = ParamsOf(index, q, false);
  const std::string& v = q.inputs[0];
  int target_index = index.Producer(v);
  if (target_index < 0 || !index.HasSingleReader(v)) return plan;
  const ir::Node* act = nullptr;
  {
    const ir::Node& p = graph.nodes[static_cast<size_t>(target_index)];
    if ((IsOnnxOp(p, "Relu") || IsOnnxOp(p, "Clip")) && p.outputs.size() == 1) {
      const int t = index.Producer(p.inputs[0]);
      if (t < 0 || !index.HasSingleReader(p.inputs[0])) return plan;
      const ir::Node& target = graph.nodes[static_cast<size_t>(t)];
      if (!IsOnnxOp(target, "Conv") && !IsOnnxOp(target, "MatMul") && !IsElementwiseTarget(target) &&
          !IsOnnxOp(target, "Concat") && !IsOnnxOp(target, "Gemm")) {
        return plan;
      }
      if (CountDqInputs(index, target) == 0) return plan;
      if (!RedundantActivation(index, p, qp)) return plan;  // ONNX Runtime leaves the group unfused too
      act = &p;
      target_index = t;
    }
  }
  const ir::Node& target = graph.nodes[static_cast<size_t>(target_index)];
  (void)act;
  const int dq_count = CountDqInputs(index, target);
  if (dq_count == 0 || target.outputs.size() != 1) return plan;
  const ir::Node* dq0 = DqInput(index, target, 0);

  if (IsDropOp(target)) {
    if (dq_count != 1 || dq0 == nullptr) return plan;
    if (IsOnnxOp(target, "MaxPool") && NodeSinceVersion(model, target).value_or(0) < 12) return plan;
    if (IsOnnxOp(target, "MaxPool") && target.outputs.size() != 1) return plan;
    // ONNX Runtime 1.30 drops the QDQ of nearest-neighbour Resize only (linear ones stay float between their DQ and Q,
    // observed in its optimized model).
    if (const ir::Attribute* mode = target.FindAttribute("mode");
        IsOnnxOp(target, "Resize") && mode != nullptr && mode->s != "nearest") {
      return plan;
    }
    const QParams dp = ParamsOf(index, *dq0, true);
    if (!dp.type || !qp.type || *dp.type != *qp.type) return plan;
    if (!Is8Bit(dp.type)) {
      plan.verdict = Verdict::kOrtOnly;  // 16-bit groups: ONNX Runtime drops those too, onyx's kernels lack the types
      return plan;
    }
    const std::optional<float> ds = ConstantScale(index, dp.scale), qs = ConstantScale(index, qp.scale);
    const std::optional<int32_t> dz = ConstantZeroPoint(index, dp.zero_point, *dp.type);
    const std::optional<int32_t> qz = ConstantZeroPoint(index, qp.zero_point, *qp.type);
    if (!ds || !qs || !dz || !qz || *ds != *qs || *dz != *qz) return plan;
    if (IsOnnxOp(target, "MaxPool") && !(*qs > 0)) return plan;
    plan.verdict = Verdict::kFuse;
    plan.drop_target = target_index;
    plan.drop_input = dq0->inputs[0];
    return plan;
  }

  if (IsElementwiseTarget(target)) return ClassifyElementwise(model, index, q, qp, target, dq_count);
  if (IsOnnxOp(target, "Concat")) return ClassifyConcat(index, q, qp, target, dq_count);
  if (IsOnnxOp(target, "Gemm")) return ClassifyGemm(index, target, &q);

  const bool is_conv = IsOnnxOp(target, "Conv"), is_matmul = IsOnnxOp(target, "MatMul");
  if (!is_conv && !is_matmul) return plan;
  if (dq_count != CountExistingInputs(target)) return plan;  // every input from a DQ
  const ir::Node* dq1 = DqInput(index, target, 1);
  if (dq0 == nullptr || dq1 == nullptr) return plan;
  const QParams xp = ParamsOf(index, *dq0, true), wp = ParamsOf(index, *dq1, true);
  if (!xp.type || !wp.type || !qp.type) {
    plan.verdict = Verdict::kOrtOnly;  // types onyx cannot see; ONNX Runtime may fuse
    return plan;
  }
  if (*xp.type != *qp.type) return plan;
  // ONNX Runtime's x86-64 CPU build leaves int8 activations to the float path (QDQIsInt8Allowed() is false there:
  // MLAS's int8 x int8 kernels can overflow without VNNI), as observed with 1.30.
  if (*xp.type == DataType::kInt8) return plan;
  if (!Is8Bit(xp.type) || !Is8Bit(wp.type)) {
    if (*xp.type == DataType::kUint16 || *xp.type == DataType::kInt16) return plan;  // not fused without 16-bit
    plan.verdict = Verdict::kOrtOnly;
    return plan;
  }
  // onyx's QLinear kernels take per-tensor activations and output; weights per tensor or per output channel.
  const bool x_scalar = ConstantSize(index, xp.scale) == 1 && !xp.has_block_size;
  const bool y_scalar = ConstantSize(index, qp.scale) == 1 && !qp.has_block_size;
  const int64_t w_scales = ConstantSize(index, wp.scale);
  const Tensor* w_const = index.Constant(wp.data);
  bool w_ok = w_scales == 1 && !wp.has_block_size;
  if (!w_ok && w_scales > 1 && !wp.has_block_size && w_const != nullptr) {
    w_ok = is_conv ? (wp.axis == 0 && w_const->dim(0) == w_scales)
                   : (w_const->rank() == 2 && (wp.axis == 1 || wp.axis == -1) && w_const->dim(1) == w_scales);
  }
  if (!x_scalar || !y_scalar || !w_ok) {
    plan.verdict = Verdict::kOrtOnly;
    return plan;
  }
  ir::Node fused;
  fused.name = target.name.empty() ? q.name : target.name;
  fused.op_type = is_conv ? "QLinearConv" : "QLinearMatMul";
  fused.inputs = {xp.data, xp.scale, xp.zero_point, wp.data, wp.scale, wp.zero_point, qp.scale, qp.zero_point};
  if (is_conv) {
    fused.attributes = target.attributes;
    if (target.inputs.size() > 2 && !target.inputs[2].empty()) {
      const ir::Node* dq2 = DqInput(index, target, 2);
      if (dq2 == nullptr) return plan;
      if (QuantType(index, dq2->inputs[0]) != DataType::kInt32) return plan;
      fused.inputs.push_back(dq2->inputs[0]);
    }
  }
  fused.outputs = {q.outputs[0]};
  plan.verdict = Verdict::kFuse;
  plan.replacement = std::move(fused);
  return plan;
}

// A Concat reading a DQ that onyx does not fuse with its Q although ONNX Runtime might. ONNX Runtime's Concat selector
// takes only a Concat whose every input comes from a DQ and whose output is read by one Q alone (no graph output), so
// a Concat with a float input, or with no Q after it (a model's last Concat of boxes and scores), stays float there
// too and is safe. For the rest only the groups fused here count as safe.
bool ConcatLeftUnfused(const ir::Model& model, const ir::Graph& graph, const GraphIndex& index, const ir::Node& n) {
  if (!IsOnnxOp(n, "Concat") || CountDqInputs(index, n) == 0) return false;
  if (CountDqInputs(index, n) != CountExistingInputs(n)) return false;  // a float input: no group there either
  if (n.outputs.size() == 1 && index.IsGraphOutput(n.outputs[0])) return false;
  if (n.outputs.size() != 1 || !index.HasSingleReader(n.outputs[0])) return true;
  int reader = index.Consumers(n.outputs[0]).front();
  const ir::Node& r = graph.nodes[static_cast<size_t>(reader)];
  if ((IsOnnxOp(r, "Relu") || IsOnnxOp(r, "Clip")) && r.outputs.size() == 1) {  // made redundant by the Q, or not
    if (!index.HasSingleReader(r.outputs[0])) return true;
    reader = index.Consumers(r.outputs[0]).front();
  } else if (!IsOnnxOp(r, "QuantizeLinear")) {
    return false;  // read by a float operator: no group
  }
  return Classify(model, graph, index, reader).verdict != Verdict::kFuse;
}

}  // namespace

namespace {

// Fuses the QDQ groups onyx can express; with all_or_nothing, none when the graph holds one that ONNX Runtime would
// fuse and onyx cannot (the exactness rule at the top).
Result<int> FuseGroups(ir::Graph& graph, const PassContext& ctx, bool all_or_nothing) {
  if (all_or_nothing) {
    const GraphIndex index(graph, ctx);
    for (int i = 0; i < static_cast<int>(graph.nodes.size()); ++i) {
      const ir::Node& n = graph.nodes[static_cast<size_t>(i)];
      if (ConcatLeftUnfused(ctx.model, graph, index, n) ||
          Classify(ctx.model, graph, index, i).verdict == Verdict::kOrtOnly) {
        return 0;
      }
    }
  }
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    Plan plan = Classify(ctx.model, graph, index, i);
    if (plan.verdict != Verdict::kFuse) return false;
    if (plan.drop_target >= 0) {
      ir::Node& target = graph.nodes[static_cast<size_t>(plan.drop_target)];
      target.inputs[0] = plan.drop_input;
      target.outputs[0] = graph.nodes[static_cast<size_t>(i)].outputs[0];
      // 2-D pooling of 8-bit data has a fast kernel of its own (ops/quant/max_pool_8bit.cc).
      const auto kernel = AttrInts(target, "kernel_shape");
      if (IsOnnxOp(target, "MaxPool") && kernel && kernel->size() == 2) target.domain = ir::kInternalDomain;
      EraseNodes(graph, {i});
      return true;
    }
    graph.nodes[static_cast<size_t>(i)] = std::move(plan.replacement);  // the rest goes to dead-code elimination
    return true;
  });
}

}  // namespace

Result<int> RunFuseQdqGroups(ir::Graph& graph, const PassContext& ctx) { return FuseGroups(graph, ctx, true); }

// DQ -> Split -> Q on every output, each Q the only reader of its output with the DQ's constant per-tensor type,
// positive scale and zero point: the Split on the 8-bit data, as ONNX Runtime drops this QDQ too. A value requantized
// with its own parameters rounds back to itself ((x - zp) * s / s is within float rounding of x - zp), so the bytes
// are the same; the Q nodes go, and the 8-bit layout pass can keep the split channels last (YOLO's C2f blocks).
Result<int> RunDropSplitQdq(ir::Graph& graph, const PassContext& ctx) {
  return RewriteEachNode(graph, ctx, [&](const GraphIndex& index, int i) -> Result<bool> {
    const ir::Node& split = graph.nodes[static_cast<size_t>(i)];
    if (!IsOnnxOp(split, "Split") || split.inputs.empty() || split.outputs.empty()) return false;
    const ir::Node* dq = index.ProducerOp(split.inputs[0], "DequantizeLinear");
    if (dq == nullptr || dq->inputs.empty()) return false;
    const QParams dp = ParamsOf(index, *dq, true);
    if (!Is8Bit(dp.type) || dp.has_block_size) return false;
    const std::optional<float> ds = ConstantScale(index, dp.scale);
    const std::optional<int32_t> dz = ConstantZeroPoint(index, dp.zero_point, *dp.type);
    if (!ds || !dz || !(*ds > 0.0f) || !std::isfinite(*ds)) return false;
    std::vector<int> quantizes;
    for (const std::string& out : split.outputs) {
      if (out.empty() || !index.HasSingleReader(out)) return false;
      const int reader = index.Consumers(out)[0];
      const ir::Node& q = graph.nodes[static_cast<size_t>(reader)];
      if (!IsOnnxOp(q, "QuantizeLinear") || q.inputs.size() < 2 || q.inputs[0] != out || q.outputs.size() != 1) {
        return false;
      }
      const QParams qp = ParamsOf(index, q, false);
      if (qp.type != dp.type || qp.has_block_size) return false;
      const std::optional<float> qs = ConstantScale(index, qp.scale);
      const std::optional<int32_t> qz = ConstantZeroPoint(index, qp.zero_point, *qp.type);
      if (!qs || !qz || *qs != *ds || *qz != *dz) return false;
      quantizes.push_back(reader);
    }
    ir::Node m = split;
    m.inputs[0] = dq->inputs[0];
    for (size_t k = 0; k < quantizes.size(); ++k) {
      m.outputs[k] = graph.nodes[static_cast<size_t>(quantizes[k])].outputs[0];
    }
    graph.nodes[static_cast<size_t>(i)] = std::move(m);
    EraseNodes(graph, std::move(quantizes));
    return true;
  });
}

Result<int> ConvertQdqToQOperator(ir::Model& model) {
  OptimizerOptions options;
  options.level = OptLevel::kExtended;
  const PassContext ctx{model, options, true};
  // Constant nodes' tensors (scales, zero points, weights) as initializers, where the fusion reads constants.
  std::vector<int> constants;
  for (size_t i = 0; i < model.graph.nodes.size(); ++i) {
    const ir::Node& n = model.graph.nodes[i];
    const ir::Attribute* value = n.FindAttribute("value");
    if (IsOnnxOp(n, "Constant") && n.outputs.size() == 1 && value != nullptr && n.attributes.size() == 1 &&
        value->type == ir::AttrType::kTensor) {
      ir::NamedTensor t = value->t;
      t.name = n.outputs[0];
      model.graph.initializers.push_back(std::move(t));
      constants.push_back(static_cast<int>(i));
    }
  }
  EraseNodes(model.graph, constants);
  ONYX_ASSIGN_OR_RETURN(int fused, FuseGroups(model.graph, ctx, false));
  // onyx's own operators to the standard and com.microsoft ones of the same arithmetic.
  bool ms = false;
  for (ir::Node& n : model.graph.nodes) {
    if (n.domain != ir::kInternalDomain) {
      ms = ms || n.domain == "com.microsoft";
      continue;
    }
    if (n.op_type == "MaxPool") {
      n.domain.clear();
    } else {
      n.domain = "com.microsoft";
      ms = true;
    }
  }
  if (ms && !model.OpsetVersion("com.microsoft")) model.opset_import.push_back({"com.microsoft", 1});
  ir::RemoveDeadNodes(model.graph);
  return fused;
}

}  // namespace onyx::optimizer
