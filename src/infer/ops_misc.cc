// Everything else: strings, signal processing (windows, DFT, STFT, mel matrix), random generators,
// image decoding, ai.onnx.ml classics and the training optimizers (ai.onnx.preview.training).
#include <cmath>

#include "infer/infer_util.h"
#include "infer/op_registry.h"

namespace onyx::infer {
namespace {

Status StringConcat(InferenceContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(auto shape, BroadcastInputs(ctx, {0, 1}));
  ctx.set_output_tensor(0, DataType::kString, std::move(shape));
  return Status::Ok();
}

Status RegexFullMatch(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  ctx.set_output_tensor(0, DataType::kBool, t ? t->shape : std::nullopt);
  return Status::Ok();
}

Status StringNormalizer(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  std::optional<Dims> out;
  if (in != nullptr && in->size() == 1) out = Dims{UnknownDim()};
  if (in != nullptr && in->size() == 2) out = Dims{(*in)[0], UnknownDim()};
  ctx.set_output_tensor(0, DataType::kString, out);
  return Status::Ok();
}

Status StringSplit(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  std::optional<Dims> out;
  if (t != nullptr && t->shape) {
    out = *t->shape;
    out->push_back(UnknownDim());
  }
  ctx.set_output_tensor(0, DataType::kString, out);
  ctx.set_output_tensor(1, DataType::kInt64, t ? t->shape : std::nullopt);
  return Status::Ok();
}

Status TfIdfVectorizer(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  ir::Dim width;
  if (auto idx = ctx.GetInts("ngram_indexes"); idx && !idx->empty()) {
    int64_t m = 0;
    for (int64_t i : *idx) m = std::max(m, i);
    width = DimOf(m + 1);
  }
  std::optional<Dims> out;
  if (in != nullptr && in->size() == 1) out = Dims{width};
  if (in != nullptr && in->size() == 2) out = Dims{(*in)[0], width};
  ctx.set_output_tensor(0, DataType::kFloat, out);
  return Status::Ok();
}

Status ImageDecoder(InferenceContext& ctx) {
  std::string format = ctx.GetString("pixel_format", "RGB");
  ctx.set_output_tensor(0, DataType::kUint8, Dims{UnknownDim(), UnknownDim(), DimOf(format == "Grayscale" ? 1 : 3)});
  return Status::Ok();
}

Status Window(InferenceContext& ctx) {
  DataType t = ElemTypeAttr(ctx, "output_datatype", DataType::kFloat);
  ir::Dim size;
  if (const KnownInts* k = ctx.input_ints(0); k != nullptr && k->elems.size() == 1) size = k->elems[0];
  ctx.set_output_tensor(0, t, Dims{size});
  return Status::Ok();
}

Status MelWeightMatrix(InferenceContext& ctx) {
  DataType t = ElemTypeAttr(ctx, "output_datatype", DataType::kFloat);
  ir::Dim bins, mels;
  if (const KnownInts* k = ctx.input_ints(1); k != nullptr && k->elems.size() == 1) {
    bins = DimAdd(DimFloorDiv(k->elems[0], DimOf(2)), DimOf(1));
  }
  if (const KnownInts* k = ctx.input_ints(0); k != nullptr && k->elems.size() == 1) mels = k->elems[0];
  ctx.set_output_tensor(0, t, Dims{bins, mels});
  return Status::Ok();
}

Status Dft(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  DataType t = ctx.input_elem_type(0);
  if (in == nullptr || in->size() < 2) {
    ctx.set_output_tensor(0, t, std::nullopt);
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(in->size());
  int64_t axis = 1;
  if (ctx.since_version() >= 20) {
    axis = -2;
    if (ctx.has_input(2)) {
      auto a = ctx.input_int_values(2);
      if (!a || a->size() != 1) {
        ctx.set_output_tensor(0, t, UnknownDims(rank));
        return Status::Ok();
      }
      axis = (*a)[0];
    }
  } else {
    axis = ctx.GetInt("axis", 1);
  }
  // A negative axis counts from the back of the whole input, as the kernel and the spec (range [-r, -2]) read it;
  // the last dim (real/imaginary) is not a signal axis.
  ONYX_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank, "axis"));
  if (axis == rank - 1) {
    return InvalidArgument("axis " + std::to_string(axis) + " is the last dimension, which holds real/imaginary parts");
  }
  Dims out = *in;
  ir::Dim length = out[static_cast<size_t>(axis)];
  if (ctx.has_input(1)) {
    const KnownInts* k = ctx.input_ints(1);
    length = k != nullptr && k->elems.size() == 1 ? k->elems[0] : UnknownDim();
  }
  bool onesided = ctx.GetInt("onesided", 0) != 0, inverse = ctx.GetInt("inverse", 0) != 0;
  if (onesided && inverse) {
    // The inverse of a one-sided spectrum is a real signal of dft_length (default 2*(n-1)) samples.
    if (!ctx.has_input(1)) length = DimMul(DimSub(length, DimOf(1)), DimOf(2));
    out[static_cast<size_t>(axis)] = length;
    out.back() = DimOf(1);
    ctx.set_output_tensor(0, t, out);
    return Status::Ok();
  }
  if (onesided) length = DimAdd(DimFloorDiv(length, DimOf(2)), DimOf(1));
  out[static_cast<size_t>(axis)] = length;
  out.back() = DimOf(2);
  ctx.set_output_tensor(0, t, out);
  return Status::Ok();
}

Status Stft(InferenceContext& ctx) {
  const Dims* signal = ctx.input_shape(0);
  DataType t = ctx.input_elem_type(0);
  if (signal == nullptr || signal->size() != 3) {
    ctx.set_output_tensor(0, t, UnknownDims(4));
    return Status::Ok();
  }
  const KnownInts* step = ctx.input_ints(1);
  ir::Dim length;
  if (ctx.has_input(3)) {
    if (const KnownInts* k = ctx.input_ints(3); k != nullptr && k->elems.size() == 1) length = k->elems[0];
  } else if (const Dims* w = ctx.input_shape(2); w != nullptr && w->size() == 1) {
    length = (*w)[0];
  }
  ir::Dim frames;
  if (step != nullptr && step->elems.size() == 1) {
    frames = DimAdd(DimFloorDiv(DimSub((*signal)[1], length), step->elems[0]), DimOf(1));
  }
  bool onesided = ctx.GetInt("onesided", 1) != 0;
  ir::Dim bins = onesided ? DimAdd(DimFloorDiv(length, DimOf(2)), DimOf(1)) : length;
  ctx.set_output_tensor(0, t, Dims{(*signal)[0], frames, bins, DimOf(2)});
  return Status::Ok();
}

Status RandomFromShapeAttr(InferenceContext& ctx) {
  std::optional<Dims> shape;
  if (auto s = ctx.GetInts("shape")) shape = DimsFromValues(*s);
  ctx.set_output_tensor(0, ElemTypeAttr(ctx, "dtype", DataType::kFloat), shape);
  return Status::Ok();
}

Status RandomLike(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_tensor(0);
  ctx.set_output_tensor(0, ElemTypeAttr(ctx, "dtype", ctx.input_elem_type(0)), t ? t->shape : std::nullopt);
  return Status::Ok();
}

Status Multinomial(InferenceContext& ctx) {
  const Dims* in = ctx.input_shape(0);
  ctx.set_output_tensor(
      0, ElemTypeAttr(ctx, "dtype", DataType::kInt32),
      Dims{in != nullptr && in->size() == 2 ? (*in)[0] : UnknownDim(), DimOf(ctx.GetInt("sample_size", 1))});
  return Status::Ok();
}

// ai.onnx.ml

Status ArrayFeatureExtractor(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  const Dims* y = ctx.input_shape(1);
  std::optional<Dims> out;
  if (x != nullptr && y != nullptr && !x->empty()) {
    out = *x;
    out->back() = DimProduct(*y);
    if (x->size() == 1) out = Dims{DimOf(1), DimProduct(*y)};
  }
  SetLike(ctx, 0, 0, out);
  return Status::Ok();
}

Status LabelEncoder(InferenceContext& ctx) {
  DataType t = DataType::kUndefined;
  if (ctx.attr("values_strings") != nullptr)
    t = DataType::kString;
  else if (ctx.attr("values_int64s") != nullptr)
    t = DataType::kInt64;
  else if (ctx.attr("values_floats") != nullptr)
    t = DataType::kFloat;
  else if (const ir::Attribute* a = ctx.attr("values_tensor"))
    t = a->t.tensor.type();
  const ir::TypeInfo* x = ctx.input_tensor(0);
  ctx.set_output_tensor(0, t, x ? x->shape : std::nullopt);
  return Status::Ok();
}

Status TreeEnsemble(InferenceContext& ctx) {
  const Dims* x = ctx.input_shape(0);
  ir::Dim n = x != nullptr && !x->empty() ? (*x)[0] : UnknownDim();
  SetLike(ctx, 0, 0, Dims{n, DimOf(ctx.GetInt("n_targets", 1))});
  return Status::Ok();
}

Status Binarizer(InferenceContext& ctx) {
  PassThrough(ctx, 0, 0);
  return Status::Ok();
}

// ai.onnx.preview.training optimizers: inputs R, T, then `groups` groups of n tensors (X, G, ...); the
// outputs are the updated tensors of the groups listed in `updated` (indices of input groups).
template <int kGroups, int... kUpdated>
Status Optimizer(InferenceContext& ctx) {
  if (ctx.num_inputs() < 2) return Status::Ok();
  size_t n = (ctx.num_inputs() - 2) / kGroups;
  size_t o = 0;
  for (int g : {kUpdated...}) {
    for (size_t i = 0; i < n; ++i, ++o) PassThrough(ctx, 2 + static_cast<size_t>(g) * n + i, o);
  }
  return Status::Ok();
}

}  // namespace

void RegisterMiscInference(OpInferenceRegistry& r) {
  r.Add("", "StringConcat", StringConcat);
  r.Add("", "RegexFullMatch", RegexFullMatch);
  r.Add("", "StringNormalizer", StringNormalizer);
  r.Add("", "StringSplit", StringSplit);
  r.Add("", "TfIdfVectorizer", TfIdfVectorizer);
  r.Add("", "ImageDecoder", ImageDecoder);
  r.Add("", "BlackmanWindow", Window);
  r.Add("", "HammingWindow", Window);
  r.Add("", "HannWindow", Window);
  r.Add("", "MelWeightMatrix", MelWeightMatrix);
  r.Add("", "DFT", Dft);
  r.Add("", "STFT", Stft);
  r.Add("", "RandomUniform", RandomFromShapeAttr);
  r.Add("", "RandomNormal", RandomFromShapeAttr);
  r.Add("", "RandomUniformLike", RandomLike);
  r.Add("", "RandomNormalLike", RandomLike);
  r.Add("", "Bernoulli", RandomLike);
  r.Add("", "Multinomial", Multinomial);
  r.Add("ai.onnx.ml", "ArrayFeatureExtractor", ArrayFeatureExtractor);
  r.Add("ai.onnx.ml", "LabelEncoder", LabelEncoder);
  r.Add("ai.onnx.ml", "TreeEnsemble", TreeEnsemble);
  r.Add("ai.onnx.ml", "Binarizer", Binarizer);
  r.Add("ai.onnx.preview.training", "Adagrad", Optimizer<3, 0, 2>);
  r.Add("ai.onnx.preview.training", "Momentum", Optimizer<3, 0, 2>);
  r.Add("ai.onnx.preview.training", "Adam", Optimizer<4, 0, 2, 3>);
}

}  // namespace onyx::infer
