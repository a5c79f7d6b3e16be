// The operators of shape computations, which also carry known values forward (data propagation): Shape,
// Size, Constant, ConstantOfShape, Range, Reshape, Expand, Squeeze, Unsqueeze, Concat, Gather, Slice.
#include <cmath>
#include <limits>

#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

Status ShapeOp(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  if (in == nullptr) {
    ctx.set_output_tensor(0, DataType::kInt64, Dims{UnknownDim()});
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  int64_t start = ctx.since_version() >= 15 ? ctx.GetInt("start", 0) : 0;
  int64_t end = ctx.since_version() >= 15 ? ctx.GetInt("end", rank) : rank;
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  start = clamp(start);
  end = clamp(end);
  KnownInts k;
  for (int64_t i = start; i < end; ++i) k.elems.push_back((*in)[static_cast<size_t>(i)]);
  ctx.set_output_tensor(0, DataType::kInt64, Dims{DimOf(static_cast<int64_t>(k.elems.size()))});
  ctx.set_output_ints(0, std::move(k));
  return Status::Ok();
}

Status SizeOp(InferenceContext& ctx) {
  ctx.set_output_tensor(0, DataType::kInt64, Dims{});
  if (const Dims* in = ctx.input_shape(0)) {
    ir::Dim n = DimProduct(*in);
    if (n.kind != ir::Dim::Kind::kUnknown) ctx.set_output_ints(0, KnownInts{{n}, true});
  }
  return Status::Ok();
}

Status ConstantOp(InferenceContext& ctx) {
  for (const auto& a : ctx.node().attributes) {
    using A = ir::AttrType;
    if (a.name == "value" && a.type == A::kTensor) {
      ctx.set_output_tensor(0, a.t.tensor.type(), DimsFromValues(a.t.tensor.shape()));
      if (a.t.tensor.raw() != nullptr && a.t.tensor.size() <= kMaxTrackedElements) {
        ctx.set_output_constant(0, a.t.tensor);
      }
    } else if (a.name == "value_float" && a.type == A::kFloat) {
      ctx.set_output_tensor(0, DataType::kFloat, Dims{});
    } else if (a.name == "value_floats" && a.type == A::kFloats) {
      ctx.set_output_tensor(0, DataType::kFloat, Dims{DimOf(static_cast<int64_t>(a.floats.size()))});
    } else if (a.name == "value_int" && a.type == A::kInt) {
      ctx.set_output_tensor(0, DataType::kInt64, Dims{});
      ctx.set_output_constant(0, Tensor::Scalar<int64_t>(a.i));
    } else if (a.name == "value_ints" && a.type == A::kInts) {
      ctx.set_output_tensor(0, DataType::kInt64, Dims{DimOf(static_cast<int64_t>(a.ints.size()))});
      ctx.set_output_constant(0, Tensor::FromVector<int64_t>(a.ints, {static_cast<int64_t>(a.ints.size())}));
    } else if (a.name == "value_string" && a.type == A::kString) {
      ctx.set_output_tensor(0, DataType::kString, Dims{});
    } else if (a.name == "value_strings" && a.type == A::kStrings) {
      ctx.set_output_tensor(0, DataType::kString, Dims{DimOf(static_cast<int64_t>(a.strings.size()))});
    } else if (a.name == "sparse_value") {
      ctx.set_output_tensor(0, DataType::kUndefined, std::nullopt);  // the dense shape needs the sparse proto
    }
  }
  return Status::Ok();
}

Status ConstantOfShape(InferenceContext& ctx) {
  DataType t = DataType::kFloat;
  if (const ir::Attribute* v = ctx.attr("value"); v != nullptr && v->type == ir::AttrType::kTensor) {
    t = v->t.tensor.type();
  }
  std::optional<Dims> shape = ShapeFromInput(ctx, 0);
  ctx.set_output_tensor(0, t, shape);
  // A 1-D int64 fill of known length is itself a known value (e.g. a shape of ones).
  if (shape && shape->size() == 1 && (*shape)[0].is_value() && (*shape)[0].value <= kMaxTrackedElements &&
      IsInteger(t)) {
    const ir::Attribute* v = ctx.attr("value");
    int64_t fill = v != nullptr && v->t.tensor.raw() != nullptr && v->t.tensor.size() == 1 ? v->t.tensor.IntAt(0) : 0;
    ctx.set_output_ints(0, KnownInts{Dims(static_cast<size_t>((*shape)[0].value), DimOf(fill)), false});
  }
  return Status::Ok();
}

Status Range(InferenceContext& ctx) {
  DataType t = ctx.input_elem_type(0);
  ctx.set_output_tensor(0, t, Dims{UnknownDim()});
  const Tensor* s = ctx.input_constant(0);
  const Tensor* l = ctx.input_constant(1);
  const Tensor* d = ctx.input_constant(2);
  if (s != nullptr && l != nullptr && d != nullptr && s->size() == 1 && l->size() == 1 && d->size() == 1) {
    double start = s->DoubleAt(0), limit = l->DoubleAt(0), delta = d->DoubleAt(0);
    if (delta == 0) return ctx.Error("input 'delta' is 0");
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
    ctx.set_output_tensor(0, t, Dims{DimOf(n)});
    return Status::Ok();
  }
  const KnownInts* ks = ctx.input_ints(0);
  const KnownInts* kl = ctx.input_ints(1);
  const KnownInts* kd = ctx.input_ints(2);
  if (ks != nullptr && kl != nullptr && kd != nullptr && ks->elems.size() == 1 && kl->elems.size() == 1 &&
      kd->elems.size() == 1 && kd->elems[0].is_value() && kd->elems[0].value > 0) {
    // Range(0, N, 1) has N elements; Range(a, b, k) has ceil((b-a)/k).
    ir::Dim n = DimCeilDiv(DimSub(kl->elems[0], ks->elems[0]), kd->elems[0]);
    if (n.is_value() && n.value < 0) n = DimOf(0);
    ctx.set_output_tensor(0, t, Dims{n});
  }
  return Status::Ok();
}

Status Reshape(InferenceContext& ctx) {
  DataType t = ctx.input_elem_type(0);
  std::optional<Dims> target;
  if (ctx.since_version() < 5) {
    if (auto s = ctx.GetInts("shape")) target = DimsFromValues(*s);
  } else {
    target = ShapeFromInput(ctx, 1);
  }
  if (!target) {
    ctx.set_output_tensor(0, t, std::nullopt);
    return Status::Ok();
  }
  bool allow_zero = ctx.since_version() >= 14 && ctx.GetInt("allowzero", 0) != 0;
  const Dims* in = ctx.input_shape(0);
  Dims out = *target;
  std::optional<size_t> minus_one;
  for (size_t i = 0; i < out.size(); ++i) {
    const ir::Dim& d = out[i];
    if (!d.is_value()) continue;
    if (d.value == 0 && !allow_zero) {
      if (in != nullptr && i < in->size())
        out[i] = (*in)[i];
      else if (in != nullptr)
        return ctx.Error("shape has 0 at axis " + std::to_string(i) + " beyond the input rank");
      else
        out[i] = UnknownDim();
    } else if (d.value == -1) {
      if (minus_one) return ctx.Error("shape has more than one -1");
      minus_one = i;
    } else if (d.value < -1) {
      return ctx.Error("shape has the invalid dim " + std::to_string(d.value));
    }
  }
  if (minus_one) {
    Dims others;
    for (size_t i = 0; i < out.size(); ++i) {
      if (i != *minus_one) others.push_back(out[i]);
    }
    // Input elements over the other output dims; symbols cancel (N*C*H*W / (N*C) = H*W).
    out[*minus_one] = in != nullptr ? DimFloorDiv(DimProduct(*in), DimProduct(others)) : UnknownDim();
  } else if (in != nullptr) {
    ir::Dim a = DimProduct(*in), b = DimProduct(out);
    if (a.is_value() && b.is_value() && a.value != b.value) {
      return ctx.Error("cannot reshape " + std::to_string(a.value) + " elements into " + std::to_string(b.value));
    }
  }
  ctx.set_output_tensor(0, t, out);
  if (out.size() <= 1) {
    if (const KnownInts* k = ctx.input_ints(0)) ctx.set_output_ints(0, KnownInts{k->elems, out.empty()});
  }
  return Status::Ok();
}

Status Expand(InferenceContext& ctx) {
  std::optional<Dims> target = ShapeFromInput(ctx, 1);
  const Dims* in = ctx.input_shape(0);
  if (!target || in == nullptr) {
    ctx.set_output_tensor(0, ctx.input_elem_type(0), std::nullopt);
    return Status::Ok();
  }
  // A target dim 1 keeps the input dim; an unknown target dim over an input dim 1 stays unknown.
  ONYX_ASSIGN_OR_RETURN(auto shape, BroadcastShapes({in, &*target}));
  SetLike(ctx, 0, 0, std::move(shape));
  return Status::Ok();
}

// The axes of Squeeze/Unsqueeze: attribute before opset 13, input from 13. nullopt: not given.
std::optional<std::vector<int64_t>> AxesOf(InferenceContext& ctx, bool* known) {
  *known = true;
  if (ctx.since_version() < 13) return ctx.GetInts("axes");
  if (!ctx.has_input(1)) return std::nullopt;
  auto v = ctx.input_int_values(1);
  if (!v) *known = false;
  return v;
}

Status Squeeze(InferenceContext& ctx) {
  bool known = true;
  auto axes = AxesOf(ctx, &known);
  const Dims* in = ctx.input_shape(0);
  if (!known || in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  std::vector<bool> drop(in->size(), false);
  if (axes) {
    for (int64_t a : *axes) {
      ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank, "axis"));
      const ir::Dim& d = (*in)[static_cast<size_t>(ax)];
      if (d.is_value() && d.value != 1) {
        return ctx.Error("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(d.value));
      }
      drop[static_cast<size_t>(ax)] = true;
    }
  } else {
    for (size_t i = 0; i < in->size(); ++i) {
      if (!(*in)[i].is_value()) {
        SetLike(ctx, 0, 0, std::nullopt);  // which axes are 1 is not known
        return Status::Ok();
      }
      drop[i] = (*in)[i].value == 1;
    }
  }
  Dims out;
  for (size_t i = 0; i < in->size(); ++i) {
    if (!drop[i]) out.push_back((*in)[i]);
  }
  SetLike(ctx, 0, 0, out);
  if (const KnownInts* k = ctx.input_ints(0); k != nullptr && out.empty() && k->elems.size() == 1) {
    ctx.set_output_ints(0, KnownInts{k->elems, true});
  }
  return Status::Ok();
}

Status Unsqueeze(InferenceContext& ctx) {
  bool known = true;
  auto axes = AxesOf(ctx, &known);
  const Dims* in = ctx.input_shape(0);
  if (!known || !axes || in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t out_rank = static_cast<int64_t>(in->size() + axes->size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t a : *axes) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, out_rank, "axis"));
    if (inserted[static_cast<size_t>(ax)]) return ctx.Error("axis " + std::to_string(a) + " is repeated");
    inserted[static_cast<size_t>(ax)] = true;
  }
  Dims out;
  size_t j = 0;
  for (size_t i = 0; i < inserted.size(); ++i) out.push_back(inserted[i] ? DimOf(1) : (*in)[j++]);
  SetLike(ctx, 0, 0, out);
  if (const KnownInts* k = ctx.input_ints(0); k != nullptr && out.size() == 1) {
    ctx.set_output_ints(0, KnownInts{k->elems, false});
  }
  return Status::Ok();
}

Status Concat(InferenceContext& ctx) {
  DataType t = DataType::kUndefined;
  std::optional<Dims> out;
  bool shape_known = true;
  int64_t axis = ctx.GetInt("axis", 0);
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (t == DataType::kUndefined) t = ctx.input_elem_type(i);
    const Dims* s = ctx.input_shape(i);
    if (s == nullptr) {
      shape_known = false;
      continue;
    }
    int64_t rank = static_cast<int64_t>(s->size());
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axis, rank, "axis"));
    if (!out) {
      out = *s;
      continue;
    }
    if (out->size() != s->size())
      return ctx.Error("inputs have ranks " + std::to_string(out->size()) + " and " + std::to_string(s->size()));
    for (size_t d = 0; d < s->size(); ++d) {
      ir::Dim& o = (*out)[d];
      const ir::Dim& n = (*s)[d];
      if (static_cast<int64_t>(d) == ax) {
        o = DimAdd(o, n);
      } else if (o.is_value() && n.is_value() && o.value != n.value) {
        return ctx.Error("input " + std::to_string(i) + " has dim " + std::to_string(n.value) + " at axis " +
                         std::to_string(d) + " where the others have " + std::to_string(o.value));
      } else if (!o.is_value() && (n.is_value() || (o.kind == ir::Dim::Kind::kUnknown && n.is_param()))) {
        o = n;
      }
    }
  }
  if (!shape_known && out) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axis, static_cast<int64_t>(out->size()), "axis"));
    (*out)[static_cast<size_t>(ax)] = UnknownDim();
  }
  ctx.set_output_tensor(0, t, out);
  KnownInts k;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const KnownInts* in = ctx.input_ints(i);
    if (in == nullptr) return Status::Ok();
    k.elems.insert(k.elems.end(), in->elems.begin(), in->elems.end());
  }
  ctx.set_output_ints(0, std::move(k));
  return Status::Ok();
}

Status Gather(InferenceContext& ctx) {
  const Dims* data = ctx.input_shape(0);
  const Dims* idx = ctx.input_shape(1);
  if (data == nullptr || idx == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(data->size());
  ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.GetInt("axis", 0), rank, "axis"));
  Dims out(data->begin(), data->begin() + axis);
  out.insert(out.end(), idx->begin(), idx->end());
  out.insert(out.end(), data->begin() + axis + 1, data->end());
  SetLike(ctx, 0, 0, out);
  const KnownInts* k = ctx.input_ints(0);
  auto indices = ctx.input_int_values(1);
  if (k != nullptr && indices && rank == 1 && idx->size() <= 1) {
    KnownInts picked;
    picked.scalar = idx->empty();
    int64_t n = static_cast<int64_t>(k->elems.size());
    for (int64_t i : *indices) {
      if (i < -n || i >= n)
        return ctx.Error("index " + std::to_string(i) + " is out of range for " + std::to_string(n) + " elements");
      picked.elems.push_back(k->elems[static_cast<size_t>(i < 0 ? i + n : i)]);
    }
    ctx.set_output_ints(0, std::move(picked));
  }
  return Status::Ok();
}

// The number of elements a slice [start, end) by step takes from a dim of size n (ONNX clamping rules).
int64_t SliceLength(int64_t n, int64_t start, int64_t end, int64_t step) {
  auto clamp_index = [n, step](int64_t v, bool is_start) {
    if (v < 0) v += n;
    if (step > 0) return std::clamp<int64_t>(v, 0, n);
    (void)is_start;
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  int64_t s = clamp_index(start, true), e = clamp_index(end, false);
  if (step > 0) return e > s ? (e - s + step - 1) / step : 0;
  return s > e ? (s - e + (-step) - 1) / (-step) : 0;
}

// A symbolic dim sliced with known bounds: "N", "N-1", "N-2"... (step 1), or a number when both bounds
// count from the end (`x[..., -4:-1]` has 3 elements, `x[-3:]` 3), "N" for a reversal (`x[::-1]`);
// assuming N is large enough for the bounds.
ir::Dim SymbolicSliceLength(const ir::Dim& n, int64_t start, int64_t end, int64_t step) {
  constexpr int64_t kHuge = std::numeric_limits<int32_t>::max();
  if (!n.is_param()) return UnknownDim();
  if (step == 1) {
    if (start >= 0 && end >= kHuge) return DimSub(n, DimOf(start));
    if (start >= 0 && end < 0) return DimSub(n, DimOf(start - end));
    if (start < 0 && end >= kHuge) return DimOf(-start);
  }
  // Both bounds from the end: the length does not depend on N (any N at least as large as the bounds).
  bool end_from_end = end < 0 && (step > 0 || end > -kHuge);
  if (start < 0 && end_from_end) return DimOf(SliceLength(kHuge, start, end, step));
  if (step == -1 && end <= -kHuge) {  // down to the first element
    if (start >= kHuge) return n;
    if (start < 0) return DimAdd(n, DimOf(start + 1));
  }
  return UnknownDim();  // e.g. min(N, end) - start: not expressed
}

Status Slice(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;
  bool known = true;
  if (ctx.since_version() < 10) {
    starts = ctx.GetInts("starts");
    ends = ctx.GetInts("ends");
    axes = ctx.GetInts("axes");
  } else {
    starts = ctx.input_int_values(1);
    ends = ctx.input_int_values(2);
    if (ctx.has_input(3)) {
      axes = ctx.input_int_values(3);
      known = known && axes.has_value();
    }
    if (ctx.has_input(4)) {
      steps = ctx.input_int_values(4);
      known = known && steps.has_value();
    }
  }
  if (in == nullptr) {
    SetLike(ctx, 0, 0, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  if (!starts || !ends || !known) {
    // The rank is kept; the sliced axes (all of them when axes are unknown) become unknown.
    Dims out = *in;
    if (axes) {
      for (int64_t a : *axes) {
        ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank, "axis"));
        out[static_cast<size_t>(ax)] = UnknownDim();
      }
    } else {
      out = UnknownDims(rank);
    }
    SetLike(ctx, 0, 0, out);
    return Status::Ok();
  }
  if (starts->size() != ends->size()) return ctx.Error("'starts' and 'ends' have different lengths");
  if (!axes) {
    axes.emplace();
    for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (!steps) steps = std::vector<int64_t>(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size()) {
    return ctx.Error("'starts', 'ends', 'axes' and 'steps' have different lengths");
  }
  Dims out = *in;
  for (size_t i = 0; i < axes->size(); ++i) {
    ONYX_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis((*axes)[i], rank, "axis"));
    int64_t step = (*steps)[i];
    if (step == 0) return ctx.Error("step is 0");
    ir::Dim& d = out[static_cast<size_t>(ax)];
    if (d.is_value()) {
      d = DimOf(SliceLength(d.value, (*starts)[i], (*ends)[i], step));
    } else {
      d = SymbolicSliceLength(d, (*starts)[i], (*ends)[i], step);
    }
  }
  SetLike(ctx, 0, 0, out);
  // Slicing a known 1-D value (a shape).
  const KnownInts* k = ctx.input_ints(0);
  if (k != nullptr && rank == 1 && !k->scalar) {
    int64_t n = static_cast<int64_t>(k->elems.size());
    int64_t start = (*starts)[0], end = (*ends)[0], step = (*steps)[0];
    if (start < 0) start += n;
    if (end < 0) end += n;
    KnownInts sliced;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, n);
      end = std::clamp<int64_t>(end, 0, n);
      for (int64_t i = start; i < end; i += step) sliced.elems.push_back(k->elems[static_cast<size_t>(i)]);
    } else {
      start = std::clamp<int64_t>(start, -1, n - 1);
      end = std::clamp<int64_t>(end, -1, n - 1);
      for (int64_t i = start; i > end; i += step) sliced.elems.push_back(k->elems[static_cast<size_t>(i)]);
    }
    ctx.set_output_ints(0, std::move(sliced));
  }
  return Status::Ok();
}

}  // namespace

void RegisterShapeInference(OpInferenceRegistry& r) {
  r.Add("", "Shape", ShapeOp);
  r.Add("", "Size", SizeOp);
  r.Add("", "Constant", ConstantOp);
  r.Add("", "ConstantOfShape", ConstantOfShape);
  r.Add("", "Range", Range);
  r.Add("", "Reshape", Reshape);
  r.Add("", "Expand", Expand);
  r.Add("", "Squeeze", Squeeze);
  r.Add("", "Unsqueeze", Unsqueeze);
  r.Add("", "Concat", Concat);
  r.Add("", "Gather", Gather);
  r.Add("", "Slice", Slice);
}

}  // namespace onyx::infer
