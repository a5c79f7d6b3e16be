#include "infer/infer_util.h"

#include <memory>

namespace onyx::infer {

Result<std::optional<Dims>> BroadcastShapes(const std::vector<const Dims*>& shapes) {
  size_t rank = 0;
  for (const Dims* s : shapes) {
    if (s == nullptr) return std::optional<Dims>();
    rank = std::max(rank, s->size());
  }
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Like ONNX: a number other than 1 wins (all such must agree); else one symbol (the others 1) is kept.
    std::optional<int64_t> value;
    const ir::Dim* symbol = nullptr;
    bool unknown = false, several_symbols = false;
    for (const Dims* s : shapes) {
      if (i + s->size() < rank) continue;
      const ir::Dim& d = (*s)[i + s->size() - rank];
      if (d.is_value()) {
        if (d.value == 1) continue;
        if (value && *value != d.value) {
          return InvalidArgument("shapes cannot broadcast: dim " + std::to_string(*value) + " vs " +
                                 std::to_string(d.value) + " at output axis " + std::to_string(i));
        }
        value = d.value;
      } else if (d.is_param()) {
        if (symbol != nullptr && symbol->param != d.param) several_symbols = true;
        symbol = &d;
      } else {
        unknown = true;
      }
    }
    if (value) {
      out[i] = ir::Dim::Value(*value);
    } else if (symbol != nullptr && !unknown && !several_symbols) {
      out[i] = ir::Dim::Param(symbol->param);
    } else if (symbol == nullptr && !unknown) {
      out[i] = ir::Dim::Value(1);
    }
  }
  return std::optional<Dims>(std::move(out));
}

Result<std::optional<Dims>> BroadcastInputs(const InferenceContext& ctx, const std::vector<size_t>& inputs) {
  std::vector<const Dims*> shapes;
  for (size_t i : inputs) {
    if (!ctx.has_input(i)) continue;
    shapes.push_back(ctx.input_shape(i));
  }
  return BroadcastShapes(shapes);
}

Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                           std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

std::optional<ir::TypeInfo> UnionTypes(const ir::TypeInfo& a, const ir::TypeInfo& b) {
  using K = ir::TypeInfo::Kind;
  if (a.kind != b.kind) return std::nullopt;
  ir::TypeInfo out = a;
  switch (a.kind) {
    case K::kTensor:
    case K::kSparseTensor:
      if (a.elem_type != b.elem_type) return std::nullopt;
      if (!a.shape || !b.shape || a.shape->size() != b.shape->size()) {
        out.shape.reset();
      } else {
        for (size_t i = 0; i < a.shape->size(); ++i) {
          if (!SameDim((*a.shape)[i], (*b.shape)[i])) (*out.shape)[i] = ir::Dim{};
        }
      }
      return out;
    case K::kSequence:
    case K::kOptional:
      if (a.elem && b.elem) {
        auto e = UnionTypes(*a.elem, *b.elem);
        if (!e) return std::nullopt;
        out.elem = std::make_shared<ir::TypeInfo>(std::move(*e));
      } else {
        out.elem = a.elem ? a.elem : b.elem;
      }
      return out;
    default:
      return out;
  }
}

void PassThrough(InferenceContext& ctx, size_t in, size_t out) {
  if (const ir::TypeInfo* t = ctx.input_type(in)) ctx.set_output(out, *t);
}

void SetLike(InferenceContext& ctx, size_t in, size_t out, std::optional<Dims> shape) {
  ctx.set_output_tensor(out, ctx.input_elem_type(in), std::move(shape));
}

Dims DimsFromValues(const std::vector<int64_t>& values) {
  Dims d;
  d.reserve(values.size());
  for (int64_t v : values) d.push_back(ir::Dim::Value(v));
  return d;
}

Dims UnknownDims(int64_t rank) { return Dims(static_cast<size_t>(std::max<int64_t>(rank, 0))); }

std::optional<Dims> ShapeFromInput(const InferenceContext& ctx, size_t i) {
  if (const KnownInts* k = ctx.input_ints(i)) return k->elems;
  if (const Tensor* c = ctx.input_constant(i)) {
    if (auto k = KnownIntsFromTensor(*c)) return k->elems;
  }
  const Dims* s = ctx.input_shape(i);
  if (s != nullptr && s->size() == 1 && (*s)[0].is_value()) return UnknownDims((*s)[0].value);
  return std::nullopt;
}

DataType ElemTypeAttr(const InferenceContext& ctx, std::string_view name, DataType fallback) {
  const ir::Attribute* a = ctx.attr(name);
  if (a == nullptr || a->type != ir::AttrType::kInt) return fallback;
  if (!IsValidDataType(static_cast<int32_t>(a->i)) || a->i == 0) return fallback;
  return static_cast<DataType>(a->i);
}

}  // namespace onyx::infer
