// Tensor-manipulation operators other than the shape-computation ones (ops_shape.cc): Flatten, Transpose,
// Split, Tile, Pad, Gather/Scatter variants, DepthToSpace, Resize, TopK, Unique, Einsum...
#include <cmath>
#include <map>

#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

Status Flatten(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    SetLike(ctx, 0, 0, UnknownDims(2));
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  int64_t axis = ctx.GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return ctx.Error("axis " + std::to_string(ctx.GetInt("axis", 1)) + " is out of range");
  SetLike(ctx, 0, 0,
          Dims{DimProduct(Dims(in->begin(), in->begin() + axis)), DimProduct(Dims(in->begin() + axis, in->end()))});
  return Status::Ok();
}

Status Transpose(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  size_t rank = in->size();
  std::vector<int64_t> perm;
  if (auto p = ctx.GetInts("perm")) {
    perm = *p;
  } else {
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  }
  if (perm.size() != rank)
    return ctx.Error("'perm' has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  Dims out;
  for (int64_t p : perm) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(p, static_cast<int64_t>(rank), "perm entry"));
    out.push_back((*in)[static_cast<size_t>(ax)]);
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Split(InferenceContext& ctx) {
  size_t n = ctx.num_outputs();
  const Dims* in = ctx.input_shape(0);
  for (size_t i = 0; i < n; ++i)
    SetLike(ctx, 0, i, in ? std::optional<Dims>(UnknownDims(static_cast<int64_t>(in->size()))) : std::nullopt);
  if (in == nullptr) return Status::Ok();
  int64_t rank = static_cast<int64_t>(in->size());
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", 0), rank, "axis"));
  std::optional<std::vector<int64_t>> split;
  if (ctx.since_version() >= 13) {
    if (ctx.has_input(1)) {
      split = ctx.input_int_values(1);
      if (!split) {
        for (size_t i = 0; i < n; ++i) {
          Dims d = *in;
          d[static_cast<size_t>(axis)] = UnknownDim();
          SetLike(ctx, 0, i, d);
        }
        return Status::Ok();
      }
    }
  } else if (auto s = ctx.GetInts("split")) {
    split = *s;
  } else if (ctx.since_version() >= 2 && ctx.has_input(1)) {
    split = ctx.input_int_values(1);
  }
  const ir::Dim& total = (*in)[static_cast<size_t>(axis)];
  std::vector<ir::Dim> parts;
  if (split) {
    if (split->size() != n)
      return ctx.Error("'split' has " + std::to_string(split->size()) + " entries for " + std::to_string(n) +
                       " outputs");
    int64_t sum = 0;
    for (int64_t s : *split) {
      parts.push_back(DimOf(s));
      sum += s;
    }
    if (total.is_value() && total.value != sum)
      return ctx.Error("'split' sums to " + std::to_string(sum) + ", the axis has " + std::to_string(total.value));
  } else if (total.is_value()) {
    int64_t t = total.value;
    int64_t count = static_cast<int64_t>(n);
    if (ctx.since_version() >= 18) {
      int64_t chunk = (t + count - 1) / count;  // the last part may be smaller
      for (int64_t i = 0; i < count; ++i) parts.push_back(DimOf(std::max<int64_t>(0, std::min(chunk, t - chunk * i))));
    } else {
      if (t % count != 0)
        return ctx.Error("axis of size " + std::to_string(t) + " does not split evenly into " + std::to_string(count));
      for (int64_t i = 0; i < count; ++i) parts.push_back(DimOf(t / count));
    }
  } else {
    ir::Dim each = n == 1 ? total : UnknownDim();
    if (total.is_param() && n > 1 && ctx.since_version() < 18)
      each = DimFloorDiv(total, DimOf(static_cast<int64_t>(n)));
    parts.assign(n, each);
  }
  for (size_t i = 0; i < n; ++i) {
    Dims d = *in;
    d[static_cast<size_t>(axis)] = parts[i];
    SetLike(ctx, 0, i, d);
  }
  // Splitting a known 1-D value (pads or a shape taken apart) keeps the pieces known.
  const KnownInts* k = ctx.input_ints(0);
  if (k != nullptr && rank == 1) {
    size_t offset = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!parts[i].is_value() || offset + static_cast<size_t>(parts[i].value) > k->elems.size()) break;
      auto begin = k->elems.begin() + static_cast<int64_t>(offset);
      ctx.set_output_ints(i, KnownInts{Dims(begin, begin + parts[i].value), false});
      offset += static_cast<size_t>(parts[i].value);
    }
  }
  return Status::Ok();
}

Status GatherElements(InferenceContext& ctx) {
  const ir::TypeInfo* idx = ctx.input_tensor(1);
  SetLike(ctx, 0, 0, idx ? idx->shape : std::nullopt);
  return Status::Ok();
}

Status GatherND(InferenceContext& ctx) {
  const Dims* data = ctx.input_shape(0);
  const Dims* idx = ctx.input_shape(1);
  if (data == nullptr || idx == nullptr || idx->empty() || !idx->back().is_value()) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t batch = ctx.GetInt("batch_dims", 0);
  int64_t last = idx->back().value;
  if (batch + last > static_cast<int64_t>(data->size()))
    return ctx.Error("indices' last dim " + std::to_string(last) + " is too large for the data rank");
  Dims out(idx->begin(), idx->end() - 1);
  out.insert(out.end(), data->begin() + batch + last, data->end());
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Tile(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  auto repeats = ctx.input_int_values(1);
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  Dims out = UnknownDims(static_cast<int64_t>(in->size()));
  if (repeats) {
    if (repeats->size() != in->size())
      return ctx.Error("'repeats' has " + std::to_string(repeats->size()) + " entries for rank " +
                       std::to_string(in->size()));
    for (size_t i = 0; i < in->size(); ++i) out[i] = DimMul((*in)[i], DimOf((*repeats)[i]));
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Pad(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  std::optional<std::vector<int64_t>> pads;
  if (ctx.since_version() < 11) {
    pads = ctx.GetInts(ctx.since_version() < 2 ? "paddings" : "pads");
  } else {
    pads = ctx.input_int_values(1);
  }
  std::vector<int64_t> axes;
  bool axes_known = true;
  if (ctx.since_version() >= 18 && ctx.has_input(3)) {
    auto a = ctx.input_int_values(3);
    if (a)
      axes = *a;
    else
      axes_known = false;
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (!pads || !axes_known) {
    SetLike(ctx, 0, 0, UnknownDims(rank));
    return Status::Ok();
  }
  if (pads->size() != 2 * axes.size())
    return ctx.Error("'pads' has " + std::to_string(pads->size()) + " entries, expected " +
                     std::to_string(2 * axes.size()));
  Dims out = *in;
  for (size_t i = 0; i < axes.size(); ++i) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank, "axis"));
    out[static_cast<size_t>(ax)] = DimAdd(out[static_cast<size_t>(ax)], DimOf((*pads)[i] + (*pads)[i + axes.size()]));
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Compress(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  const ir::Attribute* axis = ctx.attr("axis");
  if (axis == nullptr) {
    SetLike(ctx, 0, 0, UnknownDims(1));
  } else if (in != nullptr) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axis->i, static_cast<int64_t>(in->size()), "axis"));
    Dims out = *in;
    out[static_cast<size_t>(ax)] = UnknownDim();
    SetLike(ctx, 0, 0, out);
  } else {
    SetLike(ctx, 0, 0, std::nullopt);
  }
  return Status::Ok();
}

Status NonZero(InferenceContext& ctx) {
  auto rank = ctx.input_rank(0);
  ctx.set_output_tensor(0, DataType::kInt64, Dims{rank ? DimOf(*rank) : UnknownDim(), UnknownDim()});
  return Status::Ok();
}

Status OneHot(InferenceContext& ctx) {
  const Dims* idx = ctx.input_shape(0);
  DataType t = ctx.input_elem_type(2);
  if (idx == nullptr) {
    ctx.set_output_tensor(0, t, std::nullopt);
    return Status::Ok();
  }
  int64_t out_rank = static_cast<int64_t>(idx->size()) + 1;
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", -1), out_rank, "axis"));
  ir::Dim depth;
  if (const Tensor* d = ctx.input_constant(1); d != nullptr && d->size() == 1) {
    depth = DimOf(static_cast<int64_t>(d->DoubleAt(0)));
  }
  Dims out(idx->begin(), idx->end());
  out.insert(out.begin() + axis, depth);
  ctx.set_output_tensor(0, t, out);
  return Status::Ok();
}

Status EyeLike(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  DataType dt = ElemTypeAttr(ctx, "dtype", ctx.input_elem_type(0));
  ctx.set_output_tensor(0, dt, t ? t->shape : std::nullopt);
  return Status::Ok();
}

// DepthToSpace (to_space) and SpaceToDepth on NCHW: channels divided (multiplied) by blocksize^2, height and width
// multiplied (divided) by blocksize.
template <bool kToSpace>
Status BlockRearrange(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  int64_t b = ctx.GetInt("blocksize", 0);
  if (in == nullptr || in->size() != 4 || b <= 0) {
    SetLike(ctx, 0, 0, in ? std::optional<Dims>(UnknownDims(4)) : std::nullopt);
    return Status::Ok();
  }
  const auto& s = *in;
  const auto shrink = [](const ir::Dim& d, int64_t f) { return DimFloorDiv(d, DimOf(f)); };
  const auto grow = [](const ir::Dim& d, int64_t f) { return DimMul(d, DimOf(f)); };
  if constexpr (kToSpace) {
    SetLike(ctx, 0, 0, Dims{s[0], shrink(s[1], b * b), grow(s[2], b), grow(s[3], b)});
  } else {
    SetLike(ctx, 0, 0, Dims{s[0], grow(s[1], b * b), shrink(s[2], b), shrink(s[3], b)});
  }
  return Status::Ok();
}

// Output dims scaled by float factors (floor(d * scale), as ONNX's Resize and Upsample compute them).
std::optional<Dims> ScaledDims(const Dims& in, const Tensor& scales, const std::vector<int64_t>& axes) {
  if (scales.size() != static_cast<int64_t>(axes.size())) return std::nullopt;
  Dims out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    ir::Dim& d = out[static_cast<size_t>(axes[i])];
    double s = scales.DoubleAt(static_cast<int64_t>(i));
    if (d.is_value())
      d = DimOf(static_cast<int64_t>(std::floor(static_cast<double>(d.value) * s + 1e-9)));
    else if (s == 1.0)
      continue;
    else if (s == std::floor(s) && s > 0)
      d = DimMul(d, DimOf(static_cast<int64_t>(s)));
    else
      d = UnknownDim();
  }
  return out;
}

Status Resize(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  std::vector<int64_t> axes;
  if (auto a = ctx.since_version() >= 18 ? ctx.GetInts("axes") : std::nullopt) {
    for (int64_t x : *a) {
      ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(x, rank, "axis"));
      axes.push_back(ax);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  size_t scales_input = ctx.since_version() >= 11 ? 2 : 1;
  const Tensor* scales = nullptr;
  if (ctx.node().op_type == "Upsample" && ctx.since_version() < 9) {
    if (const ir::Attribute* a = ctx.attr("scales")) {
      Tensor s = Tensor::FromVector<float>(a->floats, {static_cast<int64_t>(a->floats.size())});
      SetLike(ctx, 0, 0, ScaledDims(*in, s, axes).value_or(UnknownDims(rank)));
      return Status::Ok();
    }
  } else {
    scales = ctx.input_constant(scales_input);
  }
  if (ctx.since_version() >= 11 && ctx.has_input(3)) {
    if (auto sizes = ShapeFromInput(ctx, 3); sizes && sizes->size() == axes.size()) {
      Dims out = *in;
      std::string policy = ctx.GetString("keep_aspect_ratio_policy", "stretch");
      if (policy != "stretch" && ctx.since_version() >= 18) {
        for (size_t i = 0; i < axes.size(); ++i) out[static_cast<size_t>(axes[i])] = UnknownDim();
      } else {
        for (size_t i = 0; i < axes.size(); ++i) out[static_cast<size_t>(axes[i])] = (*sizes)[i];
      }
      SetLike(ctx, 0, 0, out);
      return Status::Ok();
    }
  }
  if (scales != nullptr && scales->size() > 0) {
    SetLike(ctx, 0, 0, ScaledDims(*in, *scales, axes).value_or(UnknownDims(rank)));
    return Status::Ok();
  }
  SetLike(ctx, 0, 0, UnknownDims(rank));
  return Status::Ok();
}

Status Unique(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  const ir::Attribute* axis = ctx.attr("axis");
  std::optional<Dims> y = UnknownDims(1);
  ir::Dim inverse_len;
  if (axis != nullptr) {
    if (in != nullptr) {
      ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axis->i, static_cast<int64_t>(in->size()), "axis"));
      y = *in;
      (*y)[static_cast<size_t>(ax)] = UnknownDim();
      inverse_len = (*in)[static_cast<size_t>(ax)];
    } else {
      y.reset();
    }
  } else if (in != nullptr) {
    inverse_len = DimProduct(*in);
  }
  SetLike(ctx, 0, 0, y);
  ctx.set_output_tensor(1, DataType::kInt64, UnknownDims(1));
  ctx.set_output_tensor(2, DataType::kInt64, Dims{inverse_len});
  ctx.set_output_tensor(3, DataType::kInt64, UnknownDims(1));
  return Status::Ok();
}

Status TopK(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    ctx.set_output_tensor(1, DataType::kInt64, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", -1), rank, "axis"));
  ir::Dim k;
  if (ctx.since_version() < 10) {
    k = DimOf(ctx.GetInt("k", 0));
  } else if (const KnownInts* ki = ctx.input_ints(1); ki != nullptr && ki->elems.size() == 1) {
    k = ki->elems[0];
  }
  Dims out = *in;
  out[static_cast<size_t>(axis)] = k;
  SetLike(ctx, 0, 0, out);
  ctx.set_output_tensor(1, DataType::kInt64, out);
  return Status::Ok();
}

// Einsum: labels of each operand (with "..." standing for the broadcast dims), explicit or implicit output.
Status Einsum(InferenceContext& ctx) {
  std::string eq;
  for (char c : ctx.GetString("equation")) {
    if (c != ' ') eq += c;
  }
  DataType t = ctx.input_elem_type(0);
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  size_t pos = 0;
  while (true) {
    size_t comma = lhs.find(',', pos);
    terms.push_back(lhs.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (terms.size() != ctx.num_inputs())
    return ctx.Error("equation has " + std::to_string(terms.size()) + " operands for " +
                     std::to_string(ctx.num_inputs()) + " inputs");
  std::map<char, ir::Dim> label_dim;
  std::map<char, int> label_count;
  std::vector<const Dims*> ellipsis_shapes;
  std::vector<Dims> ellipsis_storage(terms.size());
  bool all_known = true;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Dims* s = ctx.input_shape(i);
    const std::string& term = terms[i];
    size_t ell = term.find("...");
    std::string letters = term;
    if (ell != std::string::npos) letters.erase(ell, 3);
    for (char c : letters) ++label_count[c];
    if (s == nullptr) {
      all_known = false;
      continue;
    }
    int64_t ell_rank = static_cast<int64_t>(s->size()) - static_cast<int64_t>(letters.size());
    if (ell_rank < 0 || (ell == std::string::npos && ell_rank != 0))
      return ctx.Error("operand " + std::to_string(i) + " '" + term + "' does not match its rank " +
                       std::to_string(s->size()));
    size_t d = 0;
    for (size_t j = 0; j < term.size();) {
      if (term.compare(j, 3, "...") == 0) {
        ellipsis_storage[i] =
            Dims(s->begin() + static_cast<int64_t>(d), s->begin() + static_cast<int64_t>(d) + ell_rank);
        ellipsis_shapes.push_back(&ellipsis_storage[i]);
        d += static_cast<size_t>(ell_rank);
        j += 3;
        continue;
      }
      ir::Dim& known = label_dim[term[j]];
      const ir::Dim& here = (*s)[d];
      if (known.kind == ir::Dim::Kind::kUnknown || (known.is_value() && known.value == 1)) known = here;
      ++d;
      ++j;
    }
  }
  std::string out_term;
  if (arrow != std::string::npos) {
    out_term = eq.substr(arrow + 2);
  } else {
    bool has_ellipsis = lhs.find("...") != std::string::npos;
    if (has_ellipsis) out_term = "...";
    for (const auto& [c, n] : label_count) {
      if (n == 1) out_term += c;
    }
  }
  if (!all_known) {
    ctx.set_output_tensor(0, t, std::nullopt);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(auto ell, BroadcastShapes(ellipsis_shapes));
  Dims out;
  for (size_t j = 0; j < out_term.size();) {
    if (out_term.compare(j, 3, "...") == 0) {
      if (ell) out.insert(out.end(), ell->begin(), ell->end());
      j += 3;
      continue;
    }
    out.push_back(label_dim[out_term[j]]);
    ++j;
  }
  ctx.set_output_tensor(0, t, out);
  return Status::Ok();
}

Status CenterCropPad(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  auto shape = ShapeFromInput(ctx, 1);
  if (in == nullptr || !shape) {
    SetLike(ctx, 0, 0, in ? std::optional<Dims>(UnknownDims(static_cast<int64_t>(in->size()))) : std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  std::vector<int64_t> axes;
  if (auto a = ctx.GetInts("axes"))
    axes = *a;
  else
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  if (axes.size() != shape->size())
    return ctx.Error("'shape' has " + std::to_string(shape->size()) + " entries for " + std::to_string(axes.size()) +
                     " axes");
  Dims out = *in;
  for (size_t i = 0; i < axes.size(); ++i) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axes[i], rank, "axis"));
    out[static_cast<size_t>(ax)] = (*shape)[i];
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Col2Im(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  auto image = ctx.input_int_values(1);
  auto block = ctx.input_int_values(2);
  if (in == nullptr || in->size() != 3 || !image || !block) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t block_size = 1;
  for (int64_t b : *block) block_size *= b;
  Dims out{(*in)[0], DimFloorDiv((*in)[1], DimOf(block_size))};
  for (int64_t d : *image) out.push_back(DimOf(d));
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status Det(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr || in->size() < 2) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  SetLike(ctx, 0, 0, Dims(in->begin(), in->end() - 2));
  return Status::Ok();
}

Status BitCast(InferenceContext& ctx) {
  DataType to = ElemTypeAttr(ctx, "to");
  DataType from = ctx.input_elem_type(0);
  const ir::TypeInfo* t = ctx.input_tensor(0);
  std::optional<Dims> shape;
  if (t != nullptr && t->shape && from != DataType::kUndefined && to != DataType::kUndefined) {
    int fb = DataTypeBits(from), tb = DataTypeBits(to);
    shape = *t->shape;
    if (fb > tb && tb > 0 && fb % tb == 0)
      shape->push_back(DimOf(fb / tb));
    else if (fb < tb && !shape->empty())
      shape->pop_back();
  }
  ctx.set_output_tensor(0, to, shape);
  return Status::Ok();
}

}  // namespace

void RegisterTensorInference(OpInferenceRegistry& r) {
  r.Add("", "Flatten", Flatten);
  r.Add("", "Transpose", Transpose);
  r.Add("", "Split", Split);
  r.Add("", "GatherElements", GatherElements);
  r.Add("", "GatherND", GatherND);
  r.Add("", "Tile", Tile);
  r.Add("", "Pad", Pad);
  r.Add("", "Compress", Compress);
  r.Add("", "NonZero", NonZero);
  r.Add("", "OneHot", OneHot);
  r.Add("", "EyeLike", EyeLike);
  r.Add("", "DepthToSpace", BlockRearrange<true>);
  r.Add("", "SpaceToDepth", BlockRearrange<false>);
  r.Add("", "Resize", Resize);
  r.Add("", "Upsample", Resize);
  r.Add("", "Unique", Unique);
  r.Add("", "TopK", TopK);
  r.Add("", "Einsum", Einsum);
  r.Add("", "CenterCropPad", CenterCropPad);
  r.Add("", "Col2Im", Col2Im);
  r.Add("", "Det", Det);
  r.Add("", "BitCast", BitCast);
}

}  // namespace onyx::infer
