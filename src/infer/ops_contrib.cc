// Shape and type inference of ONNX Runtime's contrib operators (com.microsoft, plus SimplifiedLayerNormalization
// in the default domain) that src/ops/contrib implements, and of the optimizer's ai.onyx.internal FusedAttention,
// MatMulBias and FusedElementwise. Shapes follow onnxruntime's docs/ContribOperators.md; unknown where they depend on
// values.
#include <algorithm>

#include "infer/dim_math.h"
#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

constexpr const char* kMs = "com.microsoft";

// Output 0 like input 0 (activations, normalizations).
Status SameAsInput0(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  return Status::Ok();
}

// Y, mean, inv_std_var, input_skip_bias_sum of the Skip*LayerNormalization operators.
Status SkipLayerNorm(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  const Dims* in = ctx.input_shape(0);
  std::optional<Dims> stat;
  if (in != nullptr && !in->empty()) {
    stat = *in;
    stat->back() = DimOf(1);
  }
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (ctx.has_output(i)) ctx.set_output_tensor(i, DataType::kFloat, stat);
  }
  if (ctx.has_output(3)) PassThrough(ctx, 0, 3);
  return Status::Ok();
}

Status SimplifiedLayerNorm(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  if (ctx.has_output(1)) {
    const Dims* in = ctx.input_shape(0);
    std::optional<Dims> stat;
    if (in != nullptr) {
      ONYX_ASSIGN_OR_RETURN(const int64_t axis,
                            NormalizeAxis(ctx.GetInt("axis", -1), static_cast<int64_t>(in->size())));
      stat = *in;
      for (size_t i = static_cast<size_t>(axis); i < stat->size(); ++i) (*stat)[i] = DimOf(1);
    }
    ctx.set_output_tensor(1, DataType::kFloat, stat);
  }
  return Status::Ok();
}

// (QEmbedLayerNormalization: the same shapes, float results from 8-bit tables.)
Status EmbedLayerNorm(InferenceContext& ctx) {
  const Dims* ids = ctx.input_shape(0);
  const Dims* word = ctx.input_shape(2);
  const DataType t = ctx.node().op_type == "QEmbedLayerNormalization" ? DataType::kFloat : ctx.input_elem_type(2);
  std::optional<Dims> out;
  if (ids != nullptr && ids->size() == 2) {
    out = Dims{(*ids)[0], (*ids)[1], word != nullptr && word->size() == 2 ? (*word)[1] : UnknownDim()};
  }
  ctx.set_output_tensor(0, t, out);
  if (ctx.has_output(1)) {
    ctx.set_output_tensor(1, DataType::kInt32,
                          ids != nullptr && ids->size() == 2 ? std::optional<Dims>(Dims{(*ids)[0]}) : std::nullopt);
  }
  if (ctx.has_output(2)) ctx.set_output_tensor(2, t, out);
  return Status::Ok();
}

// Attention: output (B, S, v_hidden), present (2, B, N, P + S, H).
// (QAttention: the same shapes, past at input 8, float results from its uint8 input.)
Status Attention(InferenceContext& ctx) {
  const bool quantized = ctx.node().op_type == "QAttention";
  const size_t past_input = quantized ? 8 : 4;
  const Dims* x = ctx.input_shape(0);
  const Dims* w = ctx.input_shape(1);
  const DataType t = quantized ? DataType::kFloat : ctx.input_elem_type(0);
  const int64_t n = ctx.GetInt("num_heads", 0);
  ir::Dim v_hidden;
  ir::Dim qk_hidden;
  if (auto sizes = ctx.GetInts("qkv_hidden_sizes"); sizes && sizes->size() == 3) {
    qk_hidden = DimOf((*sizes)[0]);
    v_hidden = DimOf((*sizes)[2]);
  } else if (w != nullptr && w->size() == 2) {
    v_hidden = DimFloorDiv((*w)[1], DimOf(3));
    qk_hidden = v_hidden;
  }
  std::optional<Dims> out;
  if (x != nullptr && x->size() == 3) out = Dims{(*x)[0], (*x)[1], v_hidden};
  ctx.set_output_tensor(0, t, out);
  if (ctx.has_output(1)) {
    std::optional<Dims> present;
    if (x != nullptr && x->size() == 3 && n > 0) {
      ir::Dim total = (*x)[1];
      const Dims* past = ctx.has_input(past_input) ? ctx.input_shape(past_input) : nullptr;
      if (ctx.has_input(past_input))
        total = past != nullptr && past->size() == 5 ? DimAdd((*past)[3], total) : UnknownDim();
      present = Dims{DimOf(2), (*x)[0], DimOf(n), total, DimFloorDiv(qk_hidden, DimOf(n))};
    }
    ctx.set_output_tensor(1, t, present);
  }
  return Status::Ok();
}

// MultiHeadAttention: output (B, S, N * Hv); present_key/value (B, N, P + L, H).
Status MultiHeadAttention(InferenceContext& ctx) {
  const Dims* q = ctx.input_shape(0);
  const Dims* v = ctx.has_input(2) ? ctx.input_shape(2) : nullptr;
  const DataType t = ctx.input_elem_type(0);
  const int64_t n = ctx.GetInt("num_heads", 0);
  std::optional<Dims> out;
  ir::Dim kv_len, v_hidden;
  if (v != nullptr && v->size() == 3) {
    kv_len = (*v)[1];
    v_hidden = (*v)[2];
  } else if (v != nullptr && v->size() == 4) {
    kv_len = (*v)[2];
    v_hidden = DimMul((*v)[1], (*v)[3]);
  }
  if (q != nullptr && q->size() == 3) out = Dims{(*q)[0], (*q)[1], v_hidden};
  ctx.set_output_tensor(0, t, out);
  const Dims* past = ctx.has_input(6) ? ctx.input_shape(6) : nullptr;
  ir::Dim total = kv_len;
  if (ctx.has_input(6)) total = past != nullptr && past->size() == 4 ? DimAdd((*past)[2], kv_len) : UnknownDim();
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!ctx.has_output(i)) continue;
    std::optional<Dims> present;
    if (q != nullptr && q->size() == 3 && n > 0) {
      const ir::Dim head = i == 1 ? DimFloorDiv((*q)[2], DimOf(n)) : DimFloorDiv(v_hidden, DimOf(n));
      present = Dims{(*q)[0], DimOf(n), total, head};
    }
    ctx.set_output_tensor(i, t, present);
  }
  return Status::Ok();
}

// GroupQueryAttention: output (B, S, N * H); present (B, kvN, max(P, total_sequence_length), H) — the length
// depends on a value, so it stays unknown unless no past is given and total_sequence_length is known.
Status GroupQueryAttention(InferenceContext& ctx) {
  const Dims* q = ctx.input_shape(0);
  const DataType t = ctx.input_elem_type(0);
  const int64_t n = ctx.GetInt("num_heads", 0);
  const int64_t kvn = ctx.GetInt("kv_num_heads", 0);
  std::optional<Dims> out;
  ir::Dim head;
  if (q != nullptr && q->size() == 3 && n > 0) {
    head = ctx.has_input(1) ? DimFloorDiv((*q)[2], DimOf(n)) : DimFloorDiv((*q)[2], DimOf(n + 2 * kvn));
    out = Dims{(*q)[0], (*q)[1], DimMul(DimOf(n), head)};
  }
  ctx.set_output_tensor(0, t, out);
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!ctx.has_output(i)) continue;
    std::optional<Dims> present;
    if (q != nullptr && q->size() == 3 && kvn > 0) present = Dims{(*q)[0], DimOf(kvn), UnknownDim(), head};
    ctx.set_output_tensor(i, t, present);
  }
  return Status::Ok();
}

Status MatMulNBits(InferenceContext& ctx) {
  const Dims* a = ctx.input_shape(0);
  std::optional<Dims> out;
  if (a != nullptr && !a->empty()) {
    out = *a;
    out->back() = DimOf(ctx.GetInt("N", 0));
  }
  ctx.set_output_tensor(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}

// FusedMatMul: MatMul's shape with transposed operands (batch dims broadcast); transBatch reads a stored
// (rows, batch..., cols) operand as (batch..., rows, cols).
Status FusedMatMul(InferenceContext& ctx) {
  const Dims* a = ctx.input_shape(0);
  const Dims* b = ctx.input_shape(1);
  std::optional<Dims> out;
  if (a != nullptr && b != nullptr && a->size() >= 2 && b->size() >= 2) {
    auto logical = [](const Dims& d, bool trans_batch) {
      if (!trans_batch || d.size() < 3) return d;
      Dims l(d.begin() + 1, d.end() - 1);
      l.push_back(d.front());
      l.push_back(d.back());
      return l;
    };
    const Dims la = logical(*a, ctx.GetInt("transBatchA", 0) != 0);
    const Dims lb = logical(*b, ctx.GetInt("transBatchB", 0) != 0);
    const bool ta = ctx.GetInt("transA", 0) != 0, tb = ctx.GetInt("transB", 0) != 0;
    const Dims batch_a(la.begin(), la.end() - 2), batch_b(lb.begin(), lb.end() - 2);
    ONYX_ASSIGN_OR_RETURN(out, BroadcastShapes({&batch_a, &batch_b}));
    if (out) {
      out->push_back(ta ? la.back() : la[la.size() - 2]);
      out->push_back(tb ? lb[lb.size() - 2] : lb.back());
    }
  }
  ctx.set_output_tensor(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}

// QGemm: [M, N] of A and B (transA, transB); float without y_scale, else y_zero_point's type (A's when omitted).
Status QGemm(InferenceContext& ctx) {
  const Dims* a = ctx.input_shape(0);
  const Dims* b = ctx.input_shape(3);
  std::optional<Dims> out;
  if (a != nullptr && b != nullptr && a->size() == 2 && b->size() == 2) {
    const bool ta = ctx.GetInt("transA", 0) != 0, tb = ctx.GetInt("transB", 0) != 0;
    out = Dims{ta ? (*a)[1] : (*a)[0], tb ? (*b)[0] : (*b)[1]};
  }
  const DataType type = !ctx.has_input(7)  ? DataType::kFloat
                        : ctx.has_input(8) ? ctx.input_elem_type(8)
                                           : ctx.input_elem_type(0);
  ctx.set_output_tensor(0, type, out);
  return Status::Ok();
}

// FusedAttention: Q's shape with V's last dim; with Q, K, V as columns of wider rows, [S, H, Dv] from column_rows and
// column_heads.
Status FusedAttention(InferenceContext& ctx) {
  const auto heads = ctx.GetInts("column_heads");
  const auto rows = ctx.GetInts("column_rows");
  if (heads && rows && heads->size() == 3 && !rows->empty()) {
    ctx.set_output_tensor(0, ctx.input_elem_type(0),
                          Dims{ir::Dim::Value((*rows)[0]), ir::Dim::Value((*heads)[0]), ir::Dim::Value((*heads)[2])});
    return Status::Ok();
  }
  const Dims* q = ctx.input_shape(0);
  const Dims* v = ctx.input_shape(2);
  std::optional<Dims> out;
  if (q != nullptr && !q->empty()) {
    out = *q;
    out->back() = v != nullptr && !v->empty() ? v->back() : UnknownDim();
  }
  ctx.set_output_tensor(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}

// A [..., K] times a matrix B [K, N]: A's shape with the last dim N.
std::optional<Dims> ProductWithMatrixShape(const InferenceContext& ctx) {
  const Dims* a = ctx.input_shape(0);
  const Dims* b = ctx.input_shape(1);
  std::optional<Dims> out;
  if (a != nullptr && !a->empty()) {
    out = *a;
    out->back() = b != nullptr && b->size() == 2 ? b->back() : UnknownDim();
  }
  return out;
}

// MatMulBias (A [..., K], B [K, N], bias [N]): A's type.
Status MatMulBias(InferenceContext& ctx) {
  ctx.set_output_tensor(0, ctx.input_elem_type(0), ProductWithMatrixShape(ctx));
  return Status::Ok();
}

// DynamicQuantizeMatMul / MatMulIntegerToFloat (optimizer/dynamic_quant_fusion.cc: A [..., K], W [K, N]): float.
Status MatMulToFloat(InferenceContext& ctx) {
  ctx.set_output_tensor(0, DataType::kFloat, ProductWithMatrixShape(ctx));
  return Status::Ok();
}

// FusedElementwise (ir/fused_elementwise.h): X's shape with 1s in front up to attribute `rank`.
Status FusedElementwise(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  std::optional<Dims> out;
  if (x != nullptr) {
    const int64_t rank = ctx.GetInt("rank", 0);
    out = Dims(static_cast<size_t>(std::max<int64_t>(0, rank - static_cast<int64_t>(x->size()))), ir::Dim::Value(1));
    out->insert(out->end(), x->begin(), x->end());
  }
  ctx.set_output_tensor(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}

// QLinearAdd / QLinearMul (A, ..., B at 3): the broadcast of A and B, A's type. QLinearWhere (condition, X, ..., Y at
// 4): the broadcast of the three, X's type.
Status QLinearBinary(InferenceContext& ctx) {
  const bool where = ctx.node().op_type == "QLinearWhere";
  ONYX_ASSIGN_OR_RETURN(auto shape, where ? BroadcastInputs(ctx, {0, 1, 4}) : BroadcastInputs(ctx, {0, 3}));
  ctx.set_output_tensor(0, ctx.input_elem_type(where ? 1 : 0), shape);
  return Status::Ok();
}

// QLinearConcat(Y_scale, Y_zero_point, X0, X0_scale, X0_zero_point, ...): X0's type; the inputs' shape with the
// axis dims summed (unknown where one is).
Status QLinearConcat(InferenceContext& ctx) {
  std::optional<Dims> out;
  for (size_t i = 2; i < ctx.num_inputs(); i += 3) {
    const Dims* s = ctx.input_shape(i);
    if (s == nullptr) {
      out.reset();
      break;
    }
    if (!out) {
      out = *s;
      continue;
    }
    if (s->size() != out->size()) return InvalidArgument("inputs of different ranks");
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", 0), static_cast<int64_t>(s->size())));
    (*out)[static_cast<size_t>(axis)] = DimAdd((*out)[static_cast<size_t>(axis)], (*s)[static_cast<size_t>(axis)]);
  }
  ctx.set_output_tensor(0, ctx.num_inputs() > 2 ? ctx.input_elem_type(2) : DataType::kUndefined, out);
  return Status::Ok();
}

// QLinearGlobalAveragePool / QLinearAveragePool: X's type and rank; [N, C, 1, ...] or with channels_last
// [N, 1, ..., C] for the global one; the windowed one's spatial dims are left unknown.
Status QLinearPool(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  std::optional<Dims> out;
  if (x != nullptr && x->size() >= 3) {
    const bool last = ctx.GetInt("channels_last", 0) != 0;
    const bool global = ctx.node().op_type == "QLinearGlobalAveragePool";
    out = Dims(x->size(), global ? DimOf(1) : UnknownDim());
    out->front() = x->front();
    const size_t c = last ? x->size() - 1 : 1;
    (*out)[c] = (*x)[c];
  }
  ctx.set_output_tensor(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}

// ONNX Runtime's NHWC operators (its optimizer's level-all output): QLinearConv (y_zero_point's type, X's otherwise;
// [N, ?, ?, M] channels last or [N, M, ?, ?], M from the weights) and NhwcMaxPool (X's type, [N, ?, ?, C]).
Status MsNhwc(InferenceContext& ctx) {
  const bool conv = ctx.node().op_type == "QLinearConv";
  const Dims* x = ctx.input_shape(0);
  std::optional<Dims> out;
  if (x != nullptr && x->size() >= 3) {
    const bool last = !conv || ctx.GetInt("channels_last", 0) != 0;
    out = Dims(x->size(), UnknownDim());
    out->front() = x->front();
    const Dims* w = conv ? ctx.input_shape(3) : nullptr;
    const ir::Dim c = conv ? (w != nullptr && !w->empty() ? w->front() : UnknownDim()) : x->back();
    (*out)[last ? x->size() - 1 : 1] = c;
  }
  const DataType type = conv && ctx.has_input(7) ? ctx.input_elem_type(7) : ctx.input_elem_type(0);
  ctx.set_output_tensor(0, type, out);
  return Status::Ok();
}

// DynamicQuantizeLSTM: LSTM's outputs (Y [S, D, B, H], Y_h and Y_c [D, B, H]) with H from R [D, H, 4H], float.
Status DynamicQuantizeLstm(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  const Dims* r = ctx.input_shape(2);
  const std::string dir = ctx.GetString("direction", "forward");
  const ir::Dim d = DimOf(dir == "bidirectional" ? 2 : 1);
  const ir::Dim h = r != nullptr && r->size() == 3 ? (*r)[1] : UnknownDim();
  const bool known = x != nullptr && x->size() == 3;
  if (ctx.has_output(0)) {
    ctx.set_output_tensor(0, DataType::kFloat,
                          known ? std::optional<Dims>(Dims{(*x)[0], d, (*x)[1], h}) : std::nullopt);
  }
  for (size_t o : {size_t{1}, size_t{2}}) {
    if (ctx.has_output(o)) {
      ctx.set_output_tensor(o, DataType::kFloat, known ? std::optional<Dims>(Dims{d, (*x)[1], h}) : std::nullopt);
    }
  }
  return Status::Ok();
}

// com.microsoft QuantizeLinear: x's shape, y_zero_point's type (uint8 without one); DequantizeLinear: float32.
Status MsQuantize(InferenceContext& ctx) {
  const DataType type = ctx.has_input(2) ? ctx.input_elem_type(2) : DataType::kUint8;
  ctx.set_output_tensor(0, type, ShapeFromInput(ctx, 0));
  return Status::Ok();
}

Status MsDequantize(InferenceContext& ctx) {
  ctx.set_output_tensor(0, DataType::kFloat, ShapeFromInput(ctx, 0));
  return Status::Ok();
}

}  // namespace

void RegisterContribInference(OpInferenceRegistry& r) {
  for (const char* op : {"FastGelu", "BiasGelu", "QuickGelu", "Gelu", "RotaryEmbedding"}) {
    r.Add(kMs, op, SameAsInput0);
  }
  r.Add(kMs, "SkipLayerNormalization", SkipLayerNorm);
  r.Add(kMs, "SkipSimplifiedLayerNormalization", SkipLayerNorm);
  r.Add("", "SimplifiedLayerNormalization", SimplifiedLayerNorm);
  r.Add(kMs, "EmbedLayerNormalization", EmbedLayerNorm);
  r.Add(kMs, "QEmbedLayerNormalization", EmbedLayerNorm);
  r.Add(kMs, "Attention", Attention);
  r.Add(kMs, "QAttention", Attention);
  r.Add(kMs, "MultiHeadAttention", MultiHeadAttention);
  r.Add(kMs, "GroupQueryAttention", GroupQueryAttention);
  r.Add(kMs, "MatMulNBits", MatMulNBits);
  r.Add(kMs, "FusedMatMul", FusedMatMul);
  r.Add(kMs, "QGemm", QGemm);
  for (const char* op : {"QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"}) r.Add(kMs, op, SameAsInput0);
  for (const char* op : {"QLinearAdd", "QLinearMul", "QLinearWhere"}) r.Add(kMs, op, QLinearBinary);
  r.Add(kMs, "QLinearConcat", QLinearConcat);
  r.Add(kMs, "QLinearGlobalAveragePool", QLinearPool);
  r.Add(kMs, "QLinearAveragePool", QLinearPool);
  r.Add(kMs, "QLinearConv", MsNhwc);
  r.Add(kMs, "NhwcMaxPool", MsNhwc);
  r.Add(kMs, "DynamicQuantizeLSTM", DynamicQuantizeLstm);
  r.Add(kMs, "QuantizeLinear", MsQuantize);
  r.Add(kMs, "DequantizeLinear", MsDequantize);
  r.Add("ai.onyx.internal", "FusedAttention", FusedAttention);
  r.Add("ai.onyx.internal", "MatMulBias", MatMulBias);
  r.Add("ai.onyx.internal", "FusedElementwise", FusedElementwise);
  r.Add("ai.onyx.internal", "ByteLookup", [](InferenceContext& ctx) {
    // X's shape, the table's type
    const Dims* shape = ctx.input_shape(0);
    ctx.set_output_tensor(0, ctx.input_elem_type(1), shape != nullptr ? std::optional<Dims>(*shape) : std::nullopt);
    return Status::Ok();
  });
  r.Add("ai.onyx.internal", "RequantizeInt32", [](InferenceContext& ctx) {
    // acc's shape, the zero point's type (uint8 without one)
    const Dims* shape = ctx.input_shape(0);
    const DataType type = ctx.has_input(4) ? ctx.input_elem_type(4) : DataType::kUint8;
    ctx.set_output_tensor(0, type, shape != nullptr ? std::optional<Dims>(*shape) : std::nullopt);
    return Status::Ok();
  });
  r.Add("ai.onyx.internal", "DynamicQuantizeMatMul", MatMulToFloat);
  r.Add("ai.onyx.internal", "MatMulIntegerToFloat", MatMulToFloat);
  // The optimizer's stand-ins for operators the model's opset lacks: the standard operators' first output.
  for (const ir::InternalStandardTwin& twin : ir::kInternalStandardTwins) {
    r.Add(ir::kInternalDomain, twin.op_type, SameAsInput0);
  }
}

}  // namespace onyx::infer
