// TensorFlow operators of the spectral family (see op_context.h): complex numbers and FFTs.
//
// A TF complex tensor of shape S is an ONNX float tensor of shape S + [2] holding (real, imaginary) pairs, the form
// ONNX's DFT reads and writes; its TfValue says DataType::kComplex64 (the pair layout), so the ops here can tell it
// from a float tensor. Only the ops of this file understand that layout: a complex value reaching any other
// converter is a wrong-shaped float tensor, so the graph walk must refuse it (see the report of issue 15).
// Complex graph inputs and outputs are not supported.
#include <optional>

#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

Status RequireComplex(const OpContext& ctx, const TfValue& v) {
  if (v.type == DataType::kComplex64) return Status::Ok();
  return Unsupported(ctx.node.Where() + ": input of element type " + std::string(DataTypeName(v.type)) +
                     " (a complex64 tensor expected)");
}

Status RequireFloat32(const OpContext& ctx, const TfValue& v) {
  if (v.type == DataType::kFloat) return Status::Ok();
  return Unsupported(ctx.node.Where() + ": input of element type " + std::string(DataTypeName(v.type)) +
                     " (float32 expected: complex64 is the only complex type converted)");
}

// Complex(real, imag): both broadcast to one shape, then paired on a new last axis.
Status Complex(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue re, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue im, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireFloat32(ctx, re));
  ONYX_RETURN_IF_ERROR(RequireFloat32(ctx, im));
  // Expand broadcasts both ways: re to the common shape, then im to it.
  const std::string re_b =
      ctx.b.Op1("Expand", {re.name, ctx.b.Op1("Shape", {im.name}, ctx.Name("imag_shape"))}, ctx.Name("real_b"));
  const std::string im_b =
      ctx.b.Op1("Expand", {im.name, ctx.b.Op1("Shape", {re_b}, ctx.Name("shape"))}, ctx.Name("imag_b"));
  const std::string last = ctx.b.ConstInts(ctx.Name("pair_axis"), {-1});
  ctx.SetOutput(0,
                ctx.b.Op1("Concat",
                          {ctx.b.Op1("Unsqueeze", {re_b, last}, ctx.Name("real_pair")),
                           ctx.b.Op1("Unsqueeze", {im_b, last}, ctx.Name("imag_pair"))},
                          ctx.Name(), {ir::IntAttr("axis", -1)}),
                DataType::kComplex64);
  return Status::Ok();
}

// Component k (0 real, 1 imaginary) of a complex tensor.
std::string Component(OpContext& ctx, const std::string& v, int k, const std::string& name) {
  return ctx.b.Op1("Gather",
                   {v, ctx.b.Constant(ctx.Name(k == 0 ? "real_index" : "imag_index"), Tensor::Scalar<int64_t>(k))},
                   name, {ir::IntAttr("axis", -1)});
}

template <int kPart>
Status Part(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireComplex(ctx, x));
  ctx.SetOutput(0, Component(ctx, x.name, kPart, ctx.Name()), DataType::kFloat);
  return Status::Ok();
}

// ComplexAbs: sqrt(re^2 + im^2).
Status ComplexAbs(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireComplex(ctx, x));
  const std::string sq = ctx.b.Op1("ReduceSumSquare", {x.name}, ctx.Name("squared"),
                                   {ir::IntsAttr("axes", {-1}), ir::IntAttr("keepdims", 0)});
  ctx.SetOutput(0, ctx.b.Op1("Sqrt", {sq}, ctx.Name()), DataType::kFloat);
  return Status::Ok();
}

// Conj: the imaginary part negated.
Status Conj(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireComplex(ctx, x));
  const std::string sign = ctx.b.Constant(ctx.Name("conjugate"), Tensor::FromVector<float>({1.0f, -1.0f}, {2}));
  ctx.SetOutput(0, ctx.b.Op1("Mul", {x.name, sign}, ctx.Name()), DataType::kComplex64);
  return Status::Ok();
}

// One ONNX DFT along `axis` (of the pair-layout tensor: -2 is the innermost TF axis, -3 the next one...). The tensor
// is reshaped to [outer, n, inner, 1 or 2] and transformed along axis 1, so the DFT only ever sees a positive axis
// after its batch axis 0 whatever the input's rank (a rank-2 complex input included), and needs no rank at
// conversion: opset 17's DFT does not define negative axes, and runtimes disagree on them. The result is reshaped
// back with the transformed axis at its new length.
std::string Dft(OpContext& ctx, const std::string& x, int64_t axis, bool inverse, bool onesided,
                const std::string& length, const std::string& name) {
  const auto dims = [&](const std::string& v, int64_t start, std::optional<int64_t> end, const std::string& what) {
    std::vector<ir::Attribute> attrs = {ir::IntAttr("start", start)};
    if (end) attrs.push_back(ir::IntAttr("end", *end));
    return ctx.b.Op1("Shape", {v}, name + "/" + what, attrs);
  };
  const std::string prefix = dims(x, 0, axis, "prefix_dims");
  const std::string signal = dims(x, axis, axis + 1, "signal_dim");
  const std::string middle = dims(x, axis + 1, -1, "middle_dims");
  const std::string inner = axis == -2
                                ? ctx.b.ConstInts(name + "/inner", {1})
                                : ctx.b.Op1("ReduceProd", {middle}, name + "/inner", {ir::IntAttr("keepdims", 1)});
  const std::string pair = dims(x, -1, std::nullopt, "pair_dim");
  const std::string flat_shape = ctx.b.Op1("Concat", {ctx.b.ConstInts(name + "/outer", {-1}), signal, inner, pair},
                                           name + "/flat_shape", {ir::IntAttr("axis", 0)});
  std::vector<std::string> ins = {ctx.b.Op1("Reshape", {x, flat_shape}, name + "/flat")};
  if (!length.empty()) ins.push_back(length);
  const std::string y = ctx.b.Op1(
      "DFT", ins, name + "/dft",
      {ir::IntAttr("axis", 1), ir::IntAttr("inverse", inverse ? 1 : 0), ir::IntAttr("onesided", onesided ? 1 : 0)});
  const std::string back = ctx.b.Op1(
      "Concat", {prefix, dims(y, 1, 2, "transformed_dim"), middle, dims(y, -1, std::nullopt, "result_pair_dim")},
      name + "/shape", {ir::IntAttr("axis", 0)});
  return ctx.b.Op1("Reshape", {y, back}, name);
}

// FFT / IFFT / FFT2D / IFFT2D / FFT3D / IFFT3D: complex-to-complex over the `kDims` innermost axes. IFFT scales by
// 1/n per axis, as TF's does.
template <int kDims, bool kInverse>
Status Fft(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_RETURN_IF_ERROR(RequireComplex(ctx, x));
  std::string y = x.name;
  for (int d = kDims; d >= 1; --d) {
    y = Dft(ctx, y, -1 - d, kInverse, false, "", d == 1 ? ctx.Name() : ctx.Name("axis" + std::to_string(d)));
  }
  ctx.SetOutput(0, y, DataType::kComplex64);
  return Status::Ok();
}

// fft_length[i] as an int64 scalar (the DFT's dft_length).
std::string LengthAt(OpContext& ctx, const TfValue& fft_length, int64_t i) {
  const std::string all = AsInt64(ctx, fft_length, "fft_length64");
  return ctx.b.Op1("Gather", {all, ctx.b.Constant(ctx.Name("length_index"), Tensor::Scalar<int64_t>(i))},
                   ctx.Name("fft_length" + std::to_string(i)));
}

// RFFT(input [..., L], fft_length [n]) / RFFT2D (fft_length [m, n]): the one-sided DFT of the innermost axis,
// cropped or zero-padded to n (ONNX's dft_length does the same), then for 2D a full DFT of the next axis (length m).
template <int kDims>
Status Rfft(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue fft_length, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireFloat32(ctx, x));
  const std::string real =
      ctx.b.Op1("Unsqueeze", {x.name, ctx.b.ConstInts(ctx.Name("pair_axis"), {-1})}, ctx.Name("real_signal"));
  std::string y = Dft(ctx, real, -2, false, true, LengthAt(ctx, fft_length, kDims - 1),
                      kDims == 1 ? ctx.Name() : ctx.Name("inner"));
  if (kDims == 2) y = Dft(ctx, y, -3, false, false, LengthAt(ctx, fft_length, 0), ctx.Name());
  ctx.SetOutput(0, y, DataType::kComplex64);
  return Status::Ok();
}

// IRFFT(input [..., bins], fft_length [n]) / IRFFT2D (fft_length [m, n]): the real signal of a one-sided spectrum.
// The full spectrum is rebuilt from conjugate symmetry (bin k > n/2 is the conjugate of bin n - k: one Gather of
// the first n/2 + 1 bins and a sign flip), inverse-transformed, and its real part kept (so the imaginary parts of
// bins 0 and n/2 are ignored, as in TF). n must be a constant; the input needs at least n/2 + 1 bins. For 2D, the
// outer axis is first inverse-transformed at length m.
template <int kDims>
Status Irfft(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(TfValue fft_length, ctx.Input(1));
  ONYX_RETURN_IF_ERROR(RequireComplex(ctx, x));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, ctx.ConstInts(1, "fft_length"));
  if (lengths.size() != static_cast<size_t>(kDims) || lengths.back() < 1) {
    return InvalidArgument(ctx.node.Where() + ": fft_length has " + std::to_string(lengths.size()) +
                           " entries (expected " + std::to_string(kDims) + ", positive)");
  }
  // The bin map below is built at conversion, n entries: a length no signal has would exhaust memory first.
  constexpr int64_t kMaxFftLength = int64_t{1} << 24;
  if (lengths.back() > kMaxFftLength) {
    return InvalidArgument(ctx.node.Where() + ": fft_length " + std::to_string(lengths.back()) +
                           " is larger than the converter's limit of " + std::to_string(kMaxFftLength));
  }
  std::string spectrum = x.name;
  if (kDims == 2) spectrum = Dft(ctx, spectrum, -3, true, false, LengthAt(ctx, fft_length, 0), ctx.Name("outer"));
  const int64_t n = lengths.back();
  std::vector<int64_t> source(static_cast<size_t>(n));
  std::vector<float> sign(static_cast<size_t>(2 * n));
  for (int64_t k = 0; k < n; ++k) {
    const bool mirrored = k > n / 2;
    source[static_cast<size_t>(k)] = mirrored ? n - k : k;
    sign[static_cast<size_t>(2 * k)] = 1.0f;
    sign[static_cast<size_t>(2 * k + 1)] = mirrored ? -1.0f : 1.0f;
  }
  const std::string gathered =
      ctx.b.Op1("Gather", {spectrum, ctx.b.Constant(ctx.Name("bins"), Tensor::FromVector<int64_t>(source, {n}))},
                ctx.Name("full_bins"), {ir::IntAttr("axis", -2)});
  const std::string full =
      ctx.b.Op1("Mul", {gathered, ctx.b.Constant(ctx.Name("conjugate"), Tensor::FromVector<float>(sign, {n, 2}))},
                ctx.Name("full_spectrum"));
  const std::string signal = Dft(ctx, full, -2, true, false, "", ctx.Name("signal"));
  ctx.SetOutput(0, Component(ctx, signal, 0, ctx.Name()), DataType::kFloat);
  return Status::Ok();
}

}  // namespace

void AddSpectralOps(std::map<std::string, OpFn>& t) {
  t["Complex"] = Complex;
  t["Real"] = Part<0>;
  t["Imag"] = Part<1>;
  t["ComplexAbs"] = ComplexAbs;
  t["Conj"] = Conj;
  t["FFT"] = Fft<1, false>;
  t["IFFT"] = Fft<1, true>;
  t["FFT2D"] = Fft<2, false>;
  t["IFFT2D"] = Fft<2, true>;
  t["FFT3D"] = Fft<3, false>;
  t["IFFT3D"] = Fft<3, true>;
  t["RFFT"] = Rfft<1>;
  t["RFFT2D"] = Rfft<2>;
  t["IRFFT"] = Irfft<1>;
  t["IRFFT2D"] = Irfft<2>;
}

}  // namespace onyx::convert::tf
