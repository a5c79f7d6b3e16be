// Neural-network operators: convolutions and pools (output sizes from kernel, strides, pads, dilations —
// symbolic inputs give expressions such as "(H-1)/2+1"), normalizations, MatMul/Gemm, recurrent layers,
// quantization, losses, attention.
#include <algorithm>

#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

struct WindowAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad;
  bool ceil_mode = false;
};

// Reads the window attributes for `spatial` dims; the kernel comes from the attribute or `kernel_dims`.
Result<WindowAttrs> ReadWindow(const InferenceContext& ctx, size_t spatial, const Dims* kernel_dims) {
  WindowAttrs w;
  if (auto k = ctx.GetInts("kernel_shape")) {
    w.kernel = *k;
  } else if (kernel_dims != nullptr && kernel_dims->size() == spatial + 2) {
    for (size_t i = 0; i < spatial; ++i) {
      const ir::Dim& d = (*kernel_dims)[i + 2];
      w.kernel.push_back(d.is_value() ? d.value : -1);
    }
  } else {
    w.kernel.assign(spatial, -1);
  }
  if (w.kernel.size() != spatial)
    return InvalidArgument("'kernel_shape' has " + std::to_string(w.kernel.size()) + " entries for " +
                           std::to_string(spatial) + " spatial dims");
  w.strides = ctx.GetInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  w.dilations = ctx.GetInts("dilations").value_or(std::vector<int64_t>(spatial, 1));
  w.pads = ctx.GetInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  w.auto_pad = ctx.GetString("auto_pad", "NOTSET");
  w.ceil_mode = ctx.GetInt("ceil_mode", 0) != 0;
  if (w.strides.size() != spatial || w.dilations.size() != spatial || w.pads.size() != 2 * spatial) {
    return InvalidArgument("'strides', 'dilations' or 'pads' do not match " + std::to_string(spatial) +
                           " spatial dims");
  }
  for (int64_t s : w.strides) {
    if (s <= 0) return InvalidArgument("stride " + std::to_string(s) + " is not positive");
  }
  return w;
}

// Spatial output dims of a convolution or pool.
Dims WindowOutput(const Dims& in_spatial, const WindowAttrs& w) {
  Dims out;
  for (size_t i = 0; i < in_spatial.size(); ++i) {
    const ir::Dim& in = in_spatial[i];
    int64_t s = w.strides[i];
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      out.push_back(DimCeilDiv(in, DimOf(s)));
      continue;
    }
    if (w.kernel[i] < 0) {
      out.push_back(UnknownDim());
      continue;
    }
    int64_t effective = w.dilations[i] * (w.kernel[i] - 1) + 1;
    int64_t pad = w.auto_pad == "VALID" ? 0 : w.pads[i] + w.pads[i + in_spatial.size()];
    ir::Dim span = DimAdd(in, DimOf(pad - effective));
    ir::Dim steps = w.ceil_mode ? DimCeilDiv(span, DimOf(s)) : DimFloorDiv(span, DimOf(s));
    ir::Dim o = DimAdd(steps, DimOf(1));
    // With ceil_mode the last window must start inside the (left-padded) input.
    if (w.ceil_mode && o.is_value() && in.is_value() && (o.value - 1) * s >= in.value + w.pads[i])
      o = DimOf(o.value - 1);
    out.push_back(o);
  }
  return out;
}

Status ConvLike(InferenceContext& ctx, DataType out_type, size_t x_input, size_t w_input) {
  const Dims* x = ctx.input_shape(x_input);
  const Dims* w = ctx.input_shape(w_input);
  if (x == nullptr || x->size() < 2) {
    ctx.set_output_tensor(0, out_type, std::nullopt);
    return Status::Ok();
  }
  size_t spatial = x->size() - 2;
  ONYX_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindow(ctx, spatial, w));
  Dims out{(*x)[0], w != nullptr && !w->empty() ? (*w)[0] : UnknownDim()};
  Dims sp = WindowOutput(Dims(x->begin() + 2, x->end()), attrs);
  out.insert(out.end(), sp.begin(), sp.end());
  ctx.set_output_tensor(0, out_type, out);
  return Status::Ok();
}

Status Conv(InferenceContext& ctx) { return ConvLike(ctx, ctx.input_elem_type(0), 0, 1); }
Status ConvInteger(InferenceContext& ctx) { return ConvLike(ctx, DataType::kInt32, 0, 1); }
Status QLinearConv(InferenceContext& ctx) { return ConvLike(ctx, ctx.input_elem_type(7), 0, 3); }

Status DeformConv(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  const Dims* w = ctx.input_shape(1);
  const Dims* offset = ctx.input_shape(2);
  if (x == nullptr || offset == nullptr || offset->size() != x->size()) {
    SetLike(ctx, 0, 0, x ? std::optional<Dims>(UnknownDims(static_cast<int64_t>(x->size()))) : std::nullopt);
    return Status::Ok();
  }
  Dims out{(*x)[0], w != nullptr && !w->empty() ? (*w)[0] : UnknownDim()};
  out.insert(out.end(), offset->begin() + 2, offset->end());
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status ConvTranspose(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  const Dims* w = ctx.input_shape(1);
  if (x == nullptr || x->size() < 2) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  size_t spatial = x->size() - 2;
  ONYX_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindow(ctx, spatial, w));
  int64_t group = ctx.GetInt("group", 1);
  Dims out{(*x)[0], w != nullptr && w->size() >= 2 ? DimMul((*w)[1], DimOf(group)) : UnknownDim()};
  auto output_shape = ctx.GetInts("output_shape");
  auto output_padding = ctx.GetInts("output_padding").value_or(std::vector<int64_t>(spatial, 0));
  if (output_padding.size() != spatial)
    return ctx.Error("'output_padding' has " + std::to_string(output_padding.size()) + " entries for " +
                     std::to_string(spatial) + " spatial dims");
  for (size_t i = 0; i < spatial; ++i) {
    const ir::Dim& in = (*x)[i + 2];
    if (output_shape) {
      // output_shape may list the spatial dims only or the whole shape.
      size_t off = output_shape->size() == spatial ? 0 : output_shape->size() - spatial;
      out.push_back(DimOf((*output_shape)[off + i]));
      continue;
    }
    int64_t s = attrs.strides[i];
    if (attrs.auto_pad == "SAME_UPPER" || attrs.auto_pad == "SAME_LOWER") {
      out.push_back(DimMul(in, DimOf(s)));
      continue;
    }
    if (attrs.kernel[i] < 0) {
      out.push_back(UnknownDim());
      continue;
    }
    int64_t effective = attrs.dilations[i] * (attrs.kernel[i] - 1) + 1;
    int64_t pad = attrs.auto_pad == "VALID" ? 0 : attrs.pads[i] + attrs.pads[i + spatial];
    out.push_back(DimAdd(DimMul(DimSub(in, DimOf(1)), DimOf(s)), DimOf(output_padding[i] + effective - pad)));
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Pool(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  if (x == nullptr || x->size() < 2) {
    SetLike(ctx, 0, 0, std::nullopt);
    if (ctx.has_output(1)) ctx.set_output_tensor(1, DataType::kInt64, std::nullopt);
    return Status::Ok();
  }
  size_t spatial = x->size() - 2;
  ONYX_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindow(ctx, spatial, nullptr));
  Dims out{(*x)[0], (*x)[1]};
  Dims sp = WindowOutput(Dims(x->begin() + 2, x->end()), attrs);
  out.insert(out.end(), sp.begin(), sp.end());
  SetLike(ctx, 0, 0, out);
  if (ctx.has_output(1)) ctx.set_output_tensor(1, DataType::kInt64, out);
  return Status::Ok();
}

Status GlobalPool(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  if (x == nullptr || x->size() < 2) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  Dims out{(*x)[0], (*x)[1]};
  out.resize(x->size(), DimOf(1));
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status MaxUnpool(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  if (ctx.has_input(2)) {
    SetLike(ctx, 0, 0, ShapeFromInput(ctx, 2));
    return Status::Ok();
  }
  if (x == nullptr || x->size() < 2) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  size_t spatial = x->size() - 2;
  ONYX_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindow(ctx, spatial, nullptr));
  Dims out{(*x)[0], (*x)[1]};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t pad = attrs.pads[i] + attrs.pads[i + spatial];
    out.push_back(DimAdd(DimMul(DimSub((*x)[i + 2], DimOf(1)), DimOf(attrs.strides[i])), DimOf(attrs.kernel[i] - pad)));
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status BatchNormalization(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  // Training-mode outputs: running mean/variance (and, before opset 14, saved mean/variance), shaped like scale.
  for (size_t i = 1; i < ctx.num_outputs(); ++i) {
    if (!ctx.has_output(i)) continue;
    const ir::TypeInfo* like = ctx.input_tensor(ctx.since_version() >= 14 ? 3 : 1);
    if (like != nullptr) ctx.set_output(i, *like);
  }
  return Status::Ok();
}

Status LayerNormalization(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  const Dims* x = ctx.input_shape(0);
  DataType stash = ElemTypeAttr(ctx, "stash_type", DataType::kFloat);
  std::optional<Dims> stats;
  if (x != nullptr) {
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", -1), static_cast<int64_t>(x->size()), "axis"));
    stats = *x;
    for (size_t i = static_cast<size_t>(axis); i < stats->size(); ++i) (*stats)[i] = DimOf(1);
  }
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_output(i)) ctx.set_output_tensor(i, stash, stats);
  }
  return Status::Ok();
}

Status MatMulShape(InferenceContext& ctx, DataType t) {
  const Dims* a = ctx.input_shape(0);
  const Dims* b = ctx.input_shape(ctx.node().op_type == "QLinearMatMul" ? 3 : 1);
  if (a == nullptr || b == nullptr) {
    ctx.set_output_tensor(0, t, std::nullopt);
    return Status::Ok();
  }
  if (a->empty() || b->empty()) return ctx.Error("MatMul inputs must have rank >= 1");
  Dims sa = *a, sb = *b;
  bool a1 = sa.size() == 1, b1 = sb.size() == 1;
  if (a1) sa.insert(sa.begin(), DimOf(1));
  if (b1) sb.push_back(DimOf(1));
  const ir::Dim& ka = sa[sa.size() - 1];
  const ir::Dim& kb = sb[sb.size() - 2];
  if (ka.is_value() && kb.is_value() && ka.value != kb.value) {
    return ctx.Error("inner dims differ: " + std::to_string(ka.value) + " vs " + std::to_string(kb.value));
  }
  Dims ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  ONYX_ASSIGN_OR_RETURN(auto batch, BroadcastShapes({&ba, &bb}));
  Dims out = *batch;
  if (!a1) out.push_back(sa[sa.size() - 2]);
  if (!b1) out.push_back(sb[sb.size() - 1]);
  ctx.set_output_tensor(0, t, out);
  return Status::Ok();
}

Status MatMul(InferenceContext& ctx) { return MatMulShape(ctx, ctx.input_elem_type(0)); }
Status MatMulInteger(InferenceContext& ctx) { return MatMulShape(ctx, DataType::kInt32); }
Status QLinearMatMul(InferenceContext& ctx) { return MatMulShape(ctx, ctx.input_elem_type(7)); }

Status Gemm(InferenceContext& ctx) {
  const Dims* a = ctx.input_shape(0);
  const Dims* b = ctx.input_shape(1);
  if (a == nullptr || b == nullptr || a->size() != 2 || b->size() != 2) {
    SetLike(ctx, 0, 0, a && b ? std::optional<Dims>(UnknownDims(2)) : std::nullopt);
    return Status::Ok();
  }
  bool ta = ctx.GetInt("transA", 0) != 0, tb = ctx.GetInt("transB", 0) != 0;
  SetLike(ctx, 0, 0, Dims{(*a)[ta ? 1 : 0], (*b)[tb ? 0 : 1]});
  return Status::Ok();
}

// RNN, GRU, LSTM: Y [seq, directions, batch, hidden] (layout 1: [batch, seq, directions, hidden]), Y_h and
// Y_c [directions, batch, hidden] (layout 1: [batch, directions, hidden]).
Status Recurrent(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  DataType t = ctx.input_elem_type(0);
  bool batch_first = ctx.since_version() >= 14 && ctx.GetInt("layout", 0) != 0;
  ir::Dim seq, batch;
  if (x != nullptr && x->size() == 3) {
    seq = (*x)[batch_first ? 1 : 0];
    batch = (*x)[batch_first ? 0 : 1];
  }
  std::string direction = ctx.GetString("direction", "forward");
  ir::Dim dirs = DimOf(direction == "bidirectional" ? 2 : 1);
  ir::Dim hidden;
  if (const ir::Attribute* h = ctx.attr("hidden_size"))
    hidden = DimOf(h->i);
  else if (const Dims* r = ctx.input_shape(2); r != nullptr && r->size() == 3)
    hidden = (*r)[2];
  if (ctx.has_output(0)) {
    ctx.set_output_tensor(0, t, batch_first ? Dims{batch, seq, dirs, hidden} : Dims{seq, dirs, batch, hidden});
  }
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_output(i))
      ctx.set_output_tensor(i, t, batch_first ? Dims{batch, dirs, hidden} : Dims{dirs, batch, hidden});
  }
  return Status::Ok();
}

Status GridSample(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  const Dims* grid = ctx.input_shape(1);
  if (x == nullptr || grid == nullptr || x->size() < 3 || grid->size() != x->size()) {
    SetLike(ctx, 0, 0, x ? std::optional<Dims>(UnknownDims(static_cast<int64_t>(x->size()))) : std::nullopt);
    return Status::Ok();
  }
  Dims out{(*x)[0], (*x)[1]};
  out.insert(out.end(), grid->begin() + 1, grid->end() - 1);
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status RoiAlign(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  const Dims* rois = ctx.input_shape(1);
  ir::Dim n = rois != nullptr && rois->size() == 2 ? (*rois)[0] : UnknownDim();
  if (n.kind == ir::Dim::Kind::kUnknown) {
    if (const Dims* bi = ctx.input_shape(2); bi != nullptr && bi->size() == 1) n = (*bi)[0];
  }
  ir::Dim c = x != nullptr && x->size() == 4 ? (*x)[1] : UnknownDim();
  SetLike(ctx, 0, 0, Dims{n, c, DimOf(ctx.GetInt("output_height", 1)), DimOf(ctx.GetInt("output_width", 1))});
  return Status::Ok();
}

Status NonMaxSuppression(InferenceContext& ctx) {
  ctx.set_output_tensor(0, DataType::kInt64, Dims{UnknownDim(), DimOf(3)});
  return Status::Ok();
}

Status QuantizeLinear(InferenceContext& ctx) {
  DataType t = ctx.has_input(2) ? ctx.input_elem_type(2) : ElemTypeAttr(ctx, "output_dtype", DataType::kUint8);
  const ir::TypeInfo* x = ctx.input_tensor(0);
  ctx.set_output_tensor(0, t, x ? x->shape : std::nullopt);
  return Status::Ok();
}

Status DequantizeLinear(InferenceContext& ctx) {
  DataType t = ctx.since_version() >= 19 ? ctx.input_elem_type(1) : DataType::kFloat;
  if (ctx.since_version() >= 23) t = ElemTypeAttr(ctx, "output_dtype", t);
  const ir::TypeInfo* x = ctx.input_tensor(0);
  ctx.set_output_tensor(0, t, x ? x->shape : std::nullopt);
  return Status::Ok();
}

Status DynamicQuantizeLinear(InferenceContext& ctx) {
  const ir::TypeInfo* x = ctx.input_tensor(0);
  ctx.set_output_tensor(0, DataType::kUint8, x ? x->shape : std::nullopt);
  ctx.set_output_tensor(1, DataType::kFloat, Dims{});
  ctx.set_output_tensor(2, DataType::kUint8, Dims{});
  return Status::Ok();
}

// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: a scalar unless reduction is "none" (then the
// target's shape); SoftmaxCrossEntropyLoss's second output is the log-probabilities, shaped like the scores.
Status Loss(InferenceContext& ctx) {
  DataType t = ctx.input_elem_type(0);
  std::string reduction = ctx.GetString("reduction", "mean");
  if (reduction == "none") {
    const ir::TypeInfo* target = ctx.input_tensor(1);
    ctx.set_output_tensor(0, t, target ? target->shape : std::nullopt);
  } else {
    ctx.set_output_tensor(0, t, Dims{});
  }
  if (ctx.has_output(1)) PassThrough(ctx, 0, 1);
  return Status::Ok();
}

// Attention (opset 23): Y is [batch, q_heads, q_seq, v_head] for 4-D inputs, [batch, q_seq, q_heads*v_head]
// for 3-D ones.
Status Attention(InferenceContext& ctx) {
  const Dims* q = ctx.input_shape(0);
  const Dims* v = ctx.input_shape(2);
  DataType t = ctx.input_elem_type(0);
  if (q == nullptr || v == nullptr) {
    ctx.set_output_tensor(0, t, std::nullopt);
    return Status::Ok();
  }
  if (q->size() == 4 && v->size() == 4) {
    ctx.set_output_tensor(0, t, Dims{(*q)[0], (*q)[1], (*q)[2], (*v)[3]});
  } else if (q->size() == 3 && v->size() == 3) {
    const ir::Attribute* qh = ctx.attr("q_num_heads");
    const ir::Attribute* kvh = ctx.attr("kv_num_heads");
    ir::Dim hidden;
    if (qh != nullptr && kvh != nullptr && kvh->i > 0)
      hidden = DimMul(DimFloorDiv((*v)[2], DimOf(kvh->i)), DimOf(qh->i));
    ctx.set_output_tensor(0, t, Dims{(*q)[0], (*q)[1], hidden});
  } else {
    ctx.set_output_tensor(0, t, std::nullopt);
  }
  return Status::Ok();
}

Status SameAsFirst(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  return Status::Ok();
}

}  // namespace

void RegisterNnInference(OpInferenceRegistry& r) {
  r.Add("", "Conv", Conv);
  r.Add("", "ConvInteger", ConvInteger);
  r.Add("", "QLinearConv", QLinearConv);
  r.Add("", "DeformConv", DeformConv);
  r.Add("", "ConvTranspose", ConvTranspose);
  r.Add("", "MaxPool", Pool);
  r.Add("", "AveragePool", Pool);
  r.Add("", "LpPool", Pool);
  r.Add("", "GlobalAveragePool", GlobalPool);
  r.Add("", "GlobalMaxPool", GlobalPool);
  r.Add("", "GlobalLpPool", GlobalPool);
  r.Add("", "MaxUnpool", MaxUnpool);
  r.Add("", "BatchNormalization", BatchNormalization);
  r.Add("", "InstanceNormalization", SameAsFirst);
  r.Add("", "GroupNormalization", SameAsFirst);
  r.Add("", "RMSNormalization", SameAsFirst);
  r.Add("", "LayerNormalization", LayerNormalization);
  r.Add("", "MatMul", MatMul);
  r.Add("", "MatMulInteger", MatMulInteger);
  r.Add("", "QLinearMatMul", QLinearMatMul);
  r.Add("", "Gemm", Gemm);
  r.Add("", "RNN", Recurrent);
  r.Add("", "GRU", Recurrent);
  r.Add("", "LSTM", Recurrent);
  r.Add("", "GridSample", GridSample);
  r.Add("", "RoiAlign", RoiAlign);
  r.Add("", "NonMaxSuppression", NonMaxSuppression);
  r.Add("", "QuantizeLinear", QuantizeLinear);
  r.Add("", "DequantizeLinear", DequantizeLinear);
  r.Add("", "DynamicQuantizeLinear", DynamicQuantizeLinear);
  r.Add("", "NegativeLogLikelihoodLoss", Loss);
  r.Add("", "SoftmaxCrossEntropyLoss", Loss);
  r.Add("", "Attention", Attention);
}

}  // namespace onyx::infer
