// Convolutions: Conv1D/2D/3D, Conv1DTranspose/2D/3D, DepthwiseConv1D/2D, SeparableConv1D/2D. Kernels are
// re-laid at conversion time (Keras [k..., in, out] -> ONNX [out, in, k...]); the op runs channels-first
// between Transposes.
#include <algorithm>

#include "convert/common/tensor_layout.h"
#include "convert/keras/config_util.h"
#include "convert/keras/layer_context.h"

namespace onyx::convert::keras {

namespace {

struct ConvParams {
  size_t n = 2;  // spatial dims
  std::vector<int64_t> kernel, strides, dilations;
  std::string padding;
  int64_t groups = 1;
};

Result<ConvParams> ReadParams(const LayerCall& c, size_t n, const std::vector<int64_t>& kernel_shape) {
  ConvParams p;
  p.n = n;
  p.kernel.assign(kernel_shape.begin(), kernel_shape.begin() + static_cast<std::ptrdiff_t>(n));
  ONYX_ASSIGN_OR_RETURN(p.strides, GetInts(c.config, "strides", n, std::vector<int64_t>(n, 1), c.Where()));
  ONYX_ASSIGN_OR_RETURN(p.dilations, GetInts(c.config, "dilation_rate", n, std::vector<int64_t>(n, 1), c.Where()));
  p.padding = GetStringOr(c.config, "padding", "valid");
  p.groups = GetIntOr(c.config, "groups", 1);
  if (GetStringOr(c.config, "data_format", "channels_last") != "channels_last") {
    return Unsupported(c.Where() + ": data_format channels_first");
  }
  // Output sizes and SAME pads divide by the strides and multiply by the dilations: both must be positive (and
  // small enough that kernel * dilation cannot overflow).
  for (size_t i = 0; i < n; ++i) {
    for (int64_t v : {p.kernel[i], p.strides[i], p.dilations[i]}) {
      if (v < 1 || v > (int64_t{1} << 31)) {
        return InvalidArgument(c.Where() + ": kernel size, strides and dilation_rate must be in 1..2^31, got " +
                               std::to_string(v));
      }
    }
  }
  if (p.groups < 1) return InvalidArgument(c.Where() + ": groups must be positive");
  if (p.padding != "valid" && p.padding != "same" && p.padding != "causal") {
    return Unsupported(c.Where() + ": padding '" + p.padding + "'");
  }
  return p;
}

int64_t ConvOutDim(int64_t in, int64_t k, int64_t s, int64_t d, const std::string& padding) {
  if (in < 0) return -1;
  if (padding == "same" || padding == "causal") return (in + s - 1) / s;
  const int64_t eff = (k - 1) * d + 1;
  return in >= eff ? (in - eff) / s + 1 : 0;
}

// Runs an ONNX Conv channels-first on x (channels-last in and out); W in ONNX layout, bias may be empty.
KTensor EmitConv(Context& ctx, const std::string& name, const KTensor& x, const std::string& w, const std::string& bias,
                 const ConvParams& p, int64_t out_channels) {
  std::vector<ir::Attribute> attrs{ir::IntsAttr("kernel_shape", p.kernel), ir::IntsAttr("strides", p.strides),
                                   ir::IntsAttr("dilations", p.dilations), ir::IntAttr("group", p.groups)};
  std::vector<int64_t> shape{x.shape[0]};
  for (size_t i = 0; i < p.n; ++i)
    shape.push_back(ConvOutDim(x.shape[1 + i], p.kernel[i], p.strides[i], p.dilations[i], p.padding));
  shape.push_back(out_channels);
  // "same" as explicit pads wherever they are known at conversion time (stride 1, or a known input size):
  // ONNX Runtime refuses auto_pad SAME with dilations. TensorFlow puts the odd element at the end, as SAME_UPPER.
  bool static_same = p.padding == "same";
  std::vector<int64_t> same_pads(2 * p.n, 0);
  for (size_t i = 0; static_same && i < p.n; ++i) {
    const int64_t eff = (p.kernel[i] - 1) * p.dilations[i] + 1, s = p.strides[i], in = x.shape[1 + i];
    int64_t total = eff - 1;
    if (s != 1) {
      if (in < 0) {
        static_same = false;
        break;
      }
      total = std::max<int64_t>(((in + s - 1) / s - 1) * s + eff - in, 0);
    }
    same_pads[i] = total / 2;
    same_pads[i + p.n] = total - total / 2;
  }
  if (static_same) {
    attrs.push_back(ir::IntsAttr("pads", same_pads));
  } else if (p.padding == "same") {
    attrs.push_back(ir::StringAttr("auto_pad", "SAME_UPPER"));
  } else {
    std::vector<int64_t> pads(2 * p.n, 0);
    if (p.padding == "causal") pads[0] = (p.kernel[0] - 1) * p.dilations[0];
    attrs.push_back(ir::IntsAttr("pads", pads));
  }
  std::vector<std::string> ins{ToChannelsFirstValue(ctx, x, name), w};
  if (!bias.empty()) ins.push_back(bias);
  std::string y = ctx.b.Op1("Conv", ins, name + "/Conv", attrs);
  return KTensor{ToChannelsLastValue(ctx, y, x.rank(), name), shape, DataType::kFloat};
}

Result<std::vector<KTensor>> Finish(Context& ctx, const LayerCall& c, const KTensor& y) {
  ONYX_ASSIGN_OR_RETURN(std::string act, ActivationName(c.config, "activation", c.Where()));
  auto r = ApplyActivation(ctx, act, y, c.name);
  if (!r.ok()) return r.status().WithContext(c.Where());
  return std::vector<KTensor>{*r};
}

Result<std::string> Bias(Context& ctx, const LayerCall& c, size_t index) {
  if (!GetBoolOr(c.config, "use_bias", true)) return std::string();
  ONYX_ASSIGN_OR_RETURN(Tensor b, c.WeightAt(index, "bias"));
  return ctx.b.Constant(c.name + "/bias", b);
}

Status CheckInput(const LayerCall& c, size_t n) {
  if (c.inputs.size() != 1) return InvalidArgument(c.Where() + ": expects one input");
  if (c.inputs[0].rank() != static_cast<int64_t>(n) + 2) {
    return InvalidArgument(c.Where() + ": input has rank " + std::to_string(c.inputs[0].rank()) + ", expected " +
                           std::to_string(n + 2));
  }
  return Status::Ok();
}

// Keras [k..., in, out] -> ONNX [out, in, k...].
std::vector<int64_t> KernelToOnnx(int64_t rank) {
  std::vector<int64_t> perm{rank - 1, rank - 2};
  for (int64_t i = 0; i < rank - 2; ++i) perm.push_back(i);
  return perm;
}

Result<std::vector<KTensor>> Conv(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(CheckInput(c, n));
  ONYX_ASSIGN_OR_RETURN(Tensor k, c.WeightAt(0, "kernel"));
  if (k.rank() != static_cast<int64_t>(n) + 2) return InvalidArgument(c.Where() + ": kernel has the wrong rank");
  ONYX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(c, n, k.shape()));
  ONYX_ASSIGN_OR_RETURN(Tensor w, TransposeTensor(k, KernelToOnnx(k.rank())));
  ONYX_ASSIGN_OR_RETURN(std::string bias, Bias(ctx, c, 1));
  KTensor y = EmitConv(ctx, c.name, c.inputs[0], ctx.b.Constant(c.name + "/kernel", w), bias, p, k.dim(k.rank() - 1));
  return Finish(ctx, c, y);
}

// Depthwise kernel [k..., in, mult] -> grouped Conv weight [in * mult, 1, k...].
Result<Tensor> DepthwiseWeight(const Tensor& k, size_t n) {
  Shape flat(k.shape().begin(), k.shape().begin() + static_cast<std::ptrdiff_t>(n));
  flat.push_back(k.dim(static_cast<int64_t>(n)) * k.dim(static_cast<int64_t>(n) + 1));
  ONYX_ASSIGN_OR_RETURN(Tensor f, k.Reshaped(flat));
  std::vector<int64_t> perm{static_cast<int64_t>(n)};
  for (size_t i = 0; i < n; ++i) perm.push_back(static_cast<int64_t>(i));
  ONYX_ASSIGN_OR_RETURN(Tensor t, TransposeTensor(f, perm));
  Shape out{flat.back(), 1};
  out.insert(out.end(), k.shape().begin(), k.shape().begin() + static_cast<std::ptrdiff_t>(n));
  return t.Reshaped(out);
}

Result<std::vector<KTensor>> Depthwise(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(CheckInput(c, n));
  ONYX_ASSIGN_OR_RETURN(Tensor k, c.WeightAt(0, "depthwise_kernel"));
  if (k.rank() != static_cast<int64_t>(n) + 2) return InvalidArgument(c.Where() + ": kernel has the wrong rank");
  ONYX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(c, n, k.shape()));
  p.groups = k.dim(static_cast<int64_t>(n));
  ONYX_ASSIGN_OR_RETURN(Tensor w, DepthwiseWeight(k, n));
  ONYX_ASSIGN_OR_RETURN(std::string bias, Bias(ctx, c, 1));
  KTensor y = EmitConv(ctx, c.name, c.inputs[0], ctx.b.Constant(c.name + "/depthwise_kernel", w), bias, p, w.dim(0));
  return Finish(ctx, c, y);
}

Result<std::vector<KTensor>> Separable(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(CheckInput(c, n));
  ONYX_ASSIGN_OR_RETURN(Tensor dk, c.WeightAt(0, "depthwise_kernel"));
  ONYX_ASSIGN_OR_RETURN(Tensor pk, c.WeightAt(1, "pointwise_kernel"));
  if (dk.rank() != static_cast<int64_t>(n) + 2 || pk.rank() != static_cast<int64_t>(n) + 2) {
    return InvalidArgument(c.Where() + ": kernels have the wrong rank");
  }
  ONYX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(c, n, dk.shape()));
  p.groups = dk.dim(static_cast<int64_t>(n));
  ONYX_ASSIGN_OR_RETURN(Tensor dw, DepthwiseWeight(dk, n));
  KTensor mid = EmitConv(ctx, c.name + "/depthwise", c.inputs[0], ctx.b.Constant(c.name + "/depthwise_kernel", dw), "",
                         p, dw.dim(0));
  ConvParams pp;
  pp.n = n;
  pp.kernel.assign(n, 1);
  pp.strides.assign(n, 1);
  pp.dilations.assign(n, 1);
  pp.padding = "valid";
  ONYX_ASSIGN_OR_RETURN(Tensor pw, TransposeTensor(pk, KernelToOnnx(pk.rank())));
  ONYX_ASSIGN_OR_RETURN(std::string bias, Bias(ctx, c, 2));
  KTensor y = EmitConv(ctx, c.name + "/pointwise", mid, ctx.b.Constant(c.name + "/pointwise_kernel", pw), bias, pp,
                       pk.dim(pk.rank() - 1));
  return Finish(ctx, c, y);
}

// ConvTranspose reproducing Keras's output length: in*s for "same", in*s + max(k_eff - s, 0) for "valid",
// (in-1)*s + k_eff - 2*pad + output_padding when output_padding is given.
Result<std::vector<KTensor>> ConvTranspose(Context& ctx, const LayerCall& c, size_t n) {
  ONYX_RETURN_IF_ERROR(CheckInput(c, n));
  ONYX_ASSIGN_OR_RETURN(Tensor k, c.WeightAt(0, "kernel"));  // [k..., out, in]
  if (k.rank() != static_cast<int64_t>(n) + 2) return InvalidArgument(c.Where() + ": kernel has the wrong rank");
  ONYX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(c, n, k.shape()));
  if (p.padding == "causal") return InvalidArgument(c.Where() + ": causal padding");
  const bool has_op = HasNonNull(c.config, "output_padding");
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> op,
                        GetInts(c.config, "output_padding", n, std::vector<int64_t>(n, 0), c.Where()));
  std::vector<int64_t> pads(2 * n, 0), out_pad(n, 0);
  const KTensor& x = c.inputs[0];
  std::vector<int64_t> shape{x.shape[0]};
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = p.strides[i], eff = (p.kernel[i] - 1) * p.dilations[i] + 1;
    const int64_t in = x.shape[1 + i];
    if (has_op) {
      const int64_t pad = p.padding == "same" ? eff / 2 : 0;
      pads[i] = pads[n + i] = pad;
      out_pad[i] = op[i];
      shape.push_back(in < 0 ? -1 : (in - 1) * s + eff - 2 * pad + op[i]);
      continue;
    }
    // The full ConvTranspose output is (in-1)*s + eff; trim or extend it to Keras's length.
    const int64_t extra = p.padding == "same" ? eff - s : std::max<int64_t>(eff - s, 0) - (eff - s);
    if (p.padding == "same" && extra >= 0) {
      pads[i] = extra / 2;
      pads[n + i] = extra - extra / 2;
    } else if (p.padding == "same") {
      out_pad[i] = -extra;
    } else {
      out_pad[i] = extra;
    }
    shape.push_back(in < 0 ? -1 : (p.padding == "same" ? in * s : in * s + std::max<int64_t>(eff - s, 0)));
  }
  // Keras [k..., out, in] -> ONNX [in, out, k...].
  ONYX_ASSIGN_OR_RETURN(Tensor w, TransposeTensor(k, KernelToOnnx(k.rank())));
  ONYX_ASSIGN_OR_RETURN(std::string bias, Bias(ctx, c, 1));
  std::vector<ir::Attribute> attrs{ir::IntsAttr("kernel_shape", p.kernel), ir::IntsAttr("strides", p.strides),
                                   ir::IntsAttr("dilations", p.dilations), ir::IntsAttr("pads", pads)};
  bool any_op = false;
  for (int64_t v : out_pad) any_op |= v != 0;
  if (any_op) attrs.push_back(ir::IntsAttr("output_padding", out_pad));
  std::vector<std::string> ins{ToChannelsFirstValue(ctx, x, c.name), ctx.b.Constant(c.name + "/kernel", w)};
  if (!bias.empty()) ins.push_back(bias);
  std::string y = ctx.b.Op1("ConvTranspose", ins, c.name + "/ConvTranspose", attrs);
  shape.push_back(k.dim(static_cast<int64_t>(n)));
  return Finish(ctx, c, KTensor{ToChannelsLastValue(ctx, y, x.rank(), c.name), shape, DataType::kFloat});
}

}  // namespace

void RegisterConvLayers(LayerTable& t) {
  t["Conv1D"] = [](Context& ctx, const LayerCall& c) { return Conv(ctx, c, 1); };
  t["Conv2D"] = [](Context& ctx, const LayerCall& c) { return Conv(ctx, c, 2); };
  t["Conv3D"] = [](Context& ctx, const LayerCall& c) { return Conv(ctx, c, 3); };
  t["Convolution1D"] = t["Conv1D"];
  t["Convolution2D"] = t["Conv2D"];
  t["Convolution3D"] = t["Conv3D"];
  t["Conv1DTranspose"] = [](Context& ctx, const LayerCall& c) { return ConvTranspose(ctx, c, 1); };
  t["Conv2DTranspose"] = [](Context& ctx, const LayerCall& c) { return ConvTranspose(ctx, c, 2); };
  t["Conv3DTranspose"] = [](Context& ctx, const LayerCall& c) { return ConvTranspose(ctx, c, 3); };
  t["Convolution2DTranspose"] = t["Conv2DTranspose"];
  t["DepthwiseConv1D"] = [](Context& ctx, const LayerCall& c) { return Depthwise(ctx, c, 1); };
  t["DepthwiseConv2D"] = [](Context& ctx, const LayerCall& c) { return Depthwise(ctx, c, 2); };
  t["SeparableConv1D"] = [](Context& ctx, const LayerCall& c) { return Separable(ctx, c, 1); };
  t["SeparableConv2D"] = [](Context& ctx, const LayerCall& c) { return Separable(ctx, c, 2); };
  t["SeparableConvolution2D"] = t["SeparableConv2D"];
}

}  // namespace onyx::convert::keras
