// Conv, ConvInteger and QLinearConv: one convolution core (conv_core.h) computed in float/double for the float
// types and in int32 for the quantized ones.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/dnnl_float_conv.h"
#include "kernels/int8_depthwise.h"
#include "kernels/int8_exact_gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_requantize.h"
#include "kernels/tuning_cache.h"
#include "ops/common/parallel.h"
#include "ops/nn/conv_core.h"
#include "ops/nn/conv_ort_order.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

Status ParseConvAttrs(const KernelInfo& info, WindowAttrs* attrs, int64_t* group) {
  ONYX_RETURN_IF_ERROR(attrs->Parse(info, false));
  if (attrs->ceil_mode) return info.Error("Conv has no attribute 'ceil_mode'");
  *group = info.GetInt("group", 1);
  if (*group < 1) return info.Error("attribute 'group' must be >= 1, got " + std::to_string(*group));
  return Status::Ok();
}

// A 1-D tensor of `count` elements, or (when allow_scalar) a single element.
Status CheckPerChannel(const Tensor& t, int64_t count, bool allow_scalar, const std::string& what) {
  if (allow_scalar && t.size() == 1 && t.rank() <= 1) return Status::Ok();
  if (t.rank() != 1 || t.dim(0) != count) {
    return InvalidArgument(what + " has shape " + ShapeToString(t.shape()) + ", expected [" + std::to_string(count) +
                           "]" + (allow_scalar ? " or a scalar" : ""));
  }
  return Status::Ok();
}

// Whether a float convolution of this many spatial axes may run on oneDNN's blocked kernels from the Conv operator
// (kernels/dnnl_float_conv.h): 3-D ones, and 1-D ones where timed faster; 2-D ones run blocked after the layout pass.
bool OneDnnSpatialAxes(int64_t axes) { return axes == 3 || axes == 1; }

class ConvKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ort_order_ = info.ort_summation_order();
    // Constant float weights (and bias) of a 3-D or 1-D convolution: it may run on oneDNN (kernels/dnnl_float_conv.h),
    // which keeps them reordered. The kernel then adopts them (the session keeps a shell) and drops its plain copy
    // once oneDNN has its own: two copies of R3D-18's 133 MB of weights put its peak RSS 1.27x ONNX Runtime's. (2-D
    // ones run blocked after the layout pass, optimizer/nchwc_layout.)
    const Tensor* w = info.ConstantInput(1);
    const Tensor* b = info.has_input(2) ? info.ConstantInput(2) : nullptr;
    if (!ort_order_ && w != nullptr && w->type() == DataType::kFloat && OneDnnSpatialAxes(w->rank() - 2) &&
        (!info.has_input(2) || b != nullptr)) {
      constant_weights_ = *w;
      plain_weights_kept_ = true;
      info.AdoptConstantInput(1);
      if (b != nullptr) constant_bias_ = *b;
    }
    return ParseConvAttrs(info, &attrs_, &group_);
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    if (w->type() != x->type()) {
      return InvalidArgument("input 'W' (1) has type " + std::string(DataTypeName(w->type())) + ", X has " +
                             std::string(DataTypeName(x->type())));
    }
    ONYX_ASSIGN_OR_RETURN(ConvGeometry g, ResolveConv(attrs_, group_, x->shape(), w->shape()));
    const Tensor* b = nullptr;
    if (ctx.has_input(2)) {
      ONYX_ASSIGN_OR_RETURN(b, ctx.TensorInput(2));
      if (b->type() != x->type()) return InvalidArgument("input 'B' (2) has a different type than X");
      ONYX_RETURN_IF_ERROR(CheckPerChannel(*b, g.out_channels, false, "input 'B' (2)"));
    }
    Tensor& y = ctx.AllocateOutput(0, x->type(), g.out_shape);
    if (adopted()) {
      if (x->type() == DataType::kFloat && OneDnnSpatialAxes(static_cast<int64_t>(g.axes.size()))) {
        ONYX_ASSIGN_OR_RETURN(const kernels::DnnlFloatConv* conv, OneDnnConv(g, x->shape(), ctx.num_threads()));
        if (conv != nullptr) return conv->Run(x->data<float>(), y.data<float>());
      }
      ONYX_ASSIGN_OR_RETURN(w, PlainWeights());  // the input is a shell: the values are the kernel's
    }
    if (ort_order_ && x->type() == DataType::kFloat && OrtConvApplies(g)) {
      // ONNX Runtime's order (MLAS's convolution, bias added last), for outputs bit-identical to its own.
      RunConvOrtOrder(g, x->data<float>(), w->data<float>(), b != nullptr ? b->data<float>() : nullptr, y.data<float>(),
                      ctx.num_threads());
      return Status::Ok();
    }
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      ComputeView<T> xv(*x);
      ComputeView<T> wv(*w);
      ComputeOutput<T> yv(y);
      RunConv<CT>(g, xv.data(), wv.data(), yv.data(), ctx.num_threads());
      if (b != nullptr) {
        ComputeView<T> bv(*b);
        const int64_t out_size = OutputSize(g.axes);
        CT* out = yv.data();
        for (int64_t n = 0; n < g.batch; ++n) {
          for (int64_t m = 0; m < g.out_channels; ++m) {
            const CT bias = bv.data()[m];
            for (int64_t i = 0; i < out_size; ++i) *out++ += bias;
          }
        }
      }
      yv.Finish();
      return Status::Ok();
    });
  }

 private:
  // Whether the kernel adopted its weights (a 3-D or 1-D convolution's constant float weights).
  bool adopted() const {
    return constant_weights_.type() == DataType::kFloat && OneDnnSpatialAxes(constant_weights_.rank() - 2);
  }

  // The adopted weights in their plain layout: the kernel's copy, or (once dropped) read back from a oneDNN
  // convolution's reordered ones and kept from then on. Under mutex_ or from Compute.
  Result<const Tensor*> PlainWeights() {
    std::lock_guard<std::mutex> lock(mutex_);
    return PlainWeightsLocked();
  }

  Result<const Tensor*> PlainWeightsLocked() {
    if (!plain_weights_kept_) {
      Tensor plain = Tensor::Allocate(DataType::kFloat, constant_weights_.shape());
      ONYX_RETURN_IF_ERROR(dnnl_convs_.begin()->second->CopyPlainWeights(plain.data<float>()));
      constant_weights_ = std::move(plain);
      plain_weights_kept_ = true;
    }
    return &constant_weights_;
  }

  // The oneDNN convolution for input shape `x` at `threads`, built on first use; null where oneDNN has no fast
  // kernel for it, or (1-D) where the im2col + GEMM path measured faster: then that path runs.
  Result<const kernels::DnnlFloatConv*> OneDnnConv(const ConvGeometry& g, const Shape& x, int threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<int64_t> key = x;
    key.push_back(threads);
    auto it = dnnl_convs_.find(key);
    if (it == dnnl_convs_.end()) {
      kernels::FloatConvShape s;
      s.batch = g.batch;
      s.in_channels = g.in_channels;
      s.out_channels = g.out_channels;
      s.group = g.group;
      for (const WindowAxis& a : g.axes) {
        s.in.push_back(a.in);
        s.kernel.push_back(a.kernel);
        s.out.push_back(a.out);
        s.stride.push_back(a.stride);
        s.dilation.push_back(a.dilation);
        s.pad_begin.push_back(a.pad_begin);
        s.pad_end.push_back(a.pad_end);
      }
      const float* bias = constant_bias_.size() > 0 ? constant_bias_.data<float>() : nullptr;
      ONYX_ASSIGN_OR_RETURN(const Tensor* plain, PlainWeightsLocked());
      ONYX_ASSIGN_OR_RETURN(auto conv, kernels::DnnlFloatConv::Create(s, plain->data<float>(), bias, threads));
      if (conv != nullptr && g.axes.size() == 1 && !OneDnnMeasuredFaster(g, *conv, *plain, threads)) conv.reset();
      const bool made = conv != nullptr;
      it = dnnl_convs_.emplace(std::move(key), std::move(conv)).first;
      // oneDNN holds the weights now: the plain copy goes (read back if a later shape needs it).
      if (made &&
          std::all_of(dnnl_convs_.begin(), dnnl_convs_.end(), [](const auto& e) { return e.second != nullptr; })) {
        constant_weights_ = Tensor::Borrow(DataType::kFloat, constant_weights_.shape(), nullptr, nullptr);
        plain_weights_kept_ = false;
      }
    }
    return it->second.get();
  }

  // Whether oneDNN's blocked convolution `conv` runs 1-D geometry `g` faster than im2col + GEMM: timed on the CPU at
  // hand and cached (kernels/tuning_cache.h). Measured on an AMD EPYC Zen 5, a speech front end's 256 -> 256
  // channels, kernel 3, stride 2 over 6399 steps took 5.96 ms in oneDNN against 6.68 (1 thread) and 3.39 against
  // 4.24 (2), while its first layer (1 input channel, kernel 10, stride 5) took 0.97 against 0.60: no rule on the
  // shape covers both. With tuning off, im2col + GEMM; ONYX_FLOAT_CONV1D_IMPL=dnnl|im2col forces one (tests).
  bool OneDnnMeasuredFaster(const ConvGeometry& g, const kernels::DnnlFloatConv& conv, const Tensor& plain,
                            int threads) {
    using kernels::TuningCache, kernels::TuningMode;
    static constexpr const char* kDnnl = "dnnl";
    static constexpr const char* kIm2col = "im2col";
    if (const auto forced = kernels::ForcedImplementation("ONYX_FLOAT_CONV1D_IMPL")) return *forced == kDnnl;
    const TuningMode mode = kernels::CurrentTuningMode();
    if (mode == TuningMode::kOff) return false;
    const WindowAxis& a = g.axes[0];
    const std::string signature =
        "fconv1d/n" + std::to_string(g.batch) + "c" + std::to_string(g.in_channels) + "m" +
        std::to_string(g.out_channels) + "g" + std::to_string(g.group) + "w" + std::to_string(a.in) + "k" +
        std::to_string(a.kernel) + "s" + std::to_string(a.stride) + "d" + std::to_string(a.dilation) + "p" +
        std::to_string(a.pad_begin) + "_" + std::to_string(a.pad_end) + "/t" + std::to_string(threads);
    const auto cache = TuningCache::Process();
    if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
      cache->NoteDecision(signature, *entry, false);
      return entry->choice == kDnnl;
    }
    if (mode == TuningMode::kCache && !cache->MissBudgetLeft()) return false;
    const auto start = std::chrono::steady_clock::now();
    std::vector<float> x(static_cast<size_t>(g.batch * g.in_channels * a.in), 0.0f);
    std::vector<float> y(static_cast<size_t>(g.batch * g.out_channels * a.out));
    const std::vector<double> ms =
        kernels::TimeCandidates(2,
                                [&](size_t i) -> Status {
                                  if (i == 0) {
                                    RunConv<float>(g, x.data(), plain.data<float>(), y.data(), threads);
                                    return Status::Ok();
                                  }
                                  return conv.Run(x.data(), y.data());
                                },
                                {threads, threads});
    return cache->DecideMeasured(signature, {kIm2col, kDnnl}, ms, 0, kernels::kTimingNoise, start) == 1;
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  bool ort_order_ = false;  // KernelInfo::ort_summation_order
  Tensor constant_weights_, constant_bias_;
  bool plain_weights_kept_ = false;  // constant_weights_ holds the values (else a shell: type and shape)
  std::mutex mutex_;
  std::map<std::vector<int64_t>, std::unique_ptr<kernels::DnnlFloatConv>> dnnl_convs_;  // by input shape, threads
};

// A convolution as one GEMM per image and group: W_g [M/g, C/g * kernel] times the patch matrix [C/g * kernel, out].
struct GroupGemmDims {
  explicit GroupGemmDims(const ConvGeometry& g)
      : in_size(InputSize(g.axes)),
        out_size(OutputSize(g.axes)),
        cg(g.in_channels / g.group),
        mg(g.out_channels / g.group),
        patch_rows(cg * KernelSize(g.axes)),
        pointwise(IsPointwise(g.axes)) {}
  int64_t in_size, out_size;  // pixels per input / output image
  int64_t cg, mg;             // input / output channels per group
  int64_t patch_rows;         // rows of the patch matrix
  bool pointwise;             // the patch matrix is the input itself
};

// The patch matrix [C/g * kernel, out] of one image's group of input channels `xg` into `cols` (padding taps hold
// x's zero point, 0 once centred), or `xg` itself for a pointwise convolution.
template <typename X>
const X* GroupPatches(const ConvGeometry& g, const GroupGemmDims& d, const X* xg, X xz, std::vector<X>& cols) {
  if (d.pointwise) return xg;
  Im2ColColumns(g.axes, xg, d.cg, 0, d.out_size, cols.data(), xz);
  return cols.data();
}

// The accumulators on oneDNN's int8 GEMM (kernels/int8_gemm.h), when it applies: x uint8 or int8 with one zero
// point, w int8 or uint8 with one zero point (or the same one for every channel). Per image and group: the patch matrix
// of the raw 8-bit input [C/g * kernel, out] (padding taps hold x's zero point, i.e. 0 once centred), then C[out, M/g]
// = patches^T x W_g^T with both zero points subtracted inside the GEMM (oneDNN's GEMM wants the unsigned operand
// first), transposed into [M/g, out]. Returns false where the reference loops have to run.
bool FastQuantizedConv(const ConvGeometry& g, const Tensor& x, const Tensor* x_zp, const Tensor& w, const Tensor* w_zp,
                       int threads, int32_t* acc, bool exact_pairs) {
  if (w.type() != DataType::kInt8 && w.type() != DataType::kUint8) return false;
  if (x.type() != DataType::kUint8 && x.type() != DataType::kInt8) return false;
  if (!kernels::Int8GemmUsable(x.type() == DataType::kInt8)) return false;
  // W's zero point, one value (or the same for every channel), as W's 8 bits.
  uint8_t wz_bits = 0;
  if (w_zp != nullptr) {
    if (w_zp->type() != w.type() || w_zp->size() < 1) return false;
    const uint8_t* z = static_cast<const uint8_t*>(w_zp->raw());
    for (int64_t i = 1; i < w_zp->size(); ++i) {
      if (z[i] != z[0]) return false;
    }
    wz_bits = z[0];
  }
  const bool unsigned_weights = w.type() == DataType::kUint8;
  const GroupGemmDims d(g);
  const int64_t in_size = d.in_size, out_size = d.out_size, cg = d.cg, mg = d.mg, patch_rows = d.patch_rows;
  const bool pointwise = d.pointwise;
  auto run = [&](auto tag) {
    using A = decltype(tag);
    const A xz = x_zp != nullptr ? x_zp->data<A>()[0] : A{0};
    std::vector<A> cols(pointwise ? 0 : static_cast<size_t>(patch_rows * out_size));
    std::vector<int32_t> c(static_cast<size_t>(out_size * mg));
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t gi = 0; gi < g.group; ++gi) {
        const A* patches = GroupPatches(g, d, x.data<A>() + (n * g.in_channels + gi * cg) * in_size, xz, cols);
        int32_t* yg = acc + (n * g.out_channels + gi * mg) * out_size;
        // [out, 1] is already the output's layout.
        int32_t* product = mg == 1 ? yg : c.data();
        const int64_t w_offset = gi * mg * patch_rows;
        const bool done = unsigned_weights
                              ? kernels::GemmInt8UnsignedWeights<A>(true, true, out_size, mg, patch_rows, patches,
                                                                    out_size, xz, w.data<uint8_t>() + w_offset,
                                                                    patch_rows, wz_bits, product, mg, threads)
                              : kernels::GemmInt8<A>(true, true, out_size, mg, patch_rows, patches, out_size, xz,
                                                     w.data<int8_t>() + w_offset, patch_rows,
                                                     static_cast<int8_t>(wz_bits), product, mg, threads, exact_pairs);
        if (!done) return false;
        if (mg == 1) continue;
        for (int64_t j = 0; j < mg; ++j) {
          int32_t* row = yg + j * out_size;
          for (int64_t o = 0; o < out_size; ++o) row[o] = c[static_cast<size_t>(o * mg + j)];
        }
      }
    }
    return true;
  };
  return x.type() == DataType::kUint8 ? run(uint8_t{}) : run(int8_t{});
}

// A kernel's constant weights centred and paired once per group for ExactGemmConv (when W and its zero point are
// constants), instead of on every run: a classifier head's 1x1 convolution over one pixel spent most of its time
// there.
class ExactConvWeights {
 public:
  void Init(const KernelInfo& info, size_t w_index, size_t w_zp_index) {
    constant_ = info.ConstantInput(w_index) != nullptr &&
                (!info.has_input(w_zp_index) || info.ConstantInput(w_zp_index) != nullptr);
  }
  // The groups of w (the kernel's constant weights, [group][M/g rows of patch_rows]) with zero points w_zp (one per
  // output channel), packed on the first call; null when the weights are not constants.
  template <typename W>
  const std::vector<kernels::ExactInt8Left>* Groups(const W* w, const std::vector<int32_t>& w_zp, int64_t group,
                                                    int64_t mg, int64_t patch_rows) {
    if (!constant_) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    if (groups_.empty()) {
      for (int64_t gi = 0; gi < group; ++gi) {
        groups_.push_back(kernels::ExactInt8Left::Pack<W>(mg, patch_rows, w + gi * mg * patch_rows, patch_rows,
                                                          w_zp.data() + gi * mg));
      }
    }
    return &groups_;
  }

 private:
  bool constant_ = false;
  std::mutex mutex_;  // Session::Run may be called from several threads
  std::vector<kernels::ExactInt8Left> groups_;
};

// The accumulators on the exact int16-pair GEMM (kernels/int8_exact_gemm.h) on CPUs whose oneDNN int8 kernels add
// products in saturating pairs, for the convolutions whose sums must be exact there: uint8 weights (ONNX Runtime's
// U8U8 kernels are exact) and int8 activations (onyx's reference loops, exact, ran them before). Per image and
// group: W_g [M/g, C/g * kernel] (a zero point per output channel) times the patch matrix of x [C/g * kernel, out]
// (padding taps hold x's zero point, 0 once centred), straight into the output's [M/g, out] block.
bool ExactGemmConv(const ConvGeometry& g, const Tensor& x, int32_t xz, const Tensor& w,
                   const std::vector<int32_t>& w_zp, int threads, ExactConvWeights* cached, int32_t* acc) {
  const bool x_signed = x.type() == DataType::kInt8, w_signed = w.type() == DataType::kInt8;
  if (!x_signed && x.type() != DataType::kUint8) return false;
  if (!w_signed && w.type() != DataType::kUint8) return false;
  if (!kernels::ExactInt8GemmWanted(x_signed, w_signed)) return false;
  const GroupGemmDims d(g);
  const int64_t in_size = d.in_size, out_size = d.out_size, cg = d.cg, mg = d.mg, patch_rows = d.patch_rows;
  const bool pointwise = d.pointwise;
  auto run = [&](auto x_tag, auto w_tag) {
    using X = decltype(x_tag);
    using W = decltype(w_tag);
    const std::vector<kernels::ExactInt8Left>* groups =
        cached != nullptr ? cached->Groups<W>(w.data<W>(), w_zp, g.group, mg, patch_rows) : nullptr;
    std::vector<X> cols(pointwise ? 0 : static_cast<size_t>(patch_rows * out_size));
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t gi = 0; gi < g.group; ++gi) {
        const X* patches =
            GroupPatches(g, d, x.data<X>() + (n * g.in_channels + gi * cg) * in_size, static_cast<X>(xz), cols);
        int32_t* yg = acc + (n * g.out_channels + gi * mg) * out_size;
        const bool done =
            groups != nullptr
                ? kernels::ExactInt8Gemm<X>((*groups)[static_cast<size_t>(gi)], out_size, patches, out_size, xz, yg,
                                            out_size, threads)
                : kernels::ExactInt8Gemm<W, X>(mg, out_size, patch_rows, w.data<W>() + gi * mg * patch_rows, patch_rows,
                                               w_zp.data() + gi * mg, patches, out_size, xz, yg, out_size, threads);
        if (!done) return false;
      }
    }
    return true;
  };
  if (x_signed) return w_signed ? run(int8_t{}, int8_t{}) : run(int8_t{}, uint8_t{});
  return run(uint8_t{}, uint8_t{});
}

// The accumulators of a depthwise convolution (one input channel per group, 1-D or 2-D) on the exact kernel
// (kernels/int8_depthwise.h), where the result must be the exact sums anyway: uint8 weights, int8 activations, or
// a CPU whose int8 products are exact. Not for uint8 activations with int8 weights on CPUs whose products clip in
// pairs (there the GEMM path reproduces ONNX Runtime's clipping), nor under ONYX_INT8_REFERENCE=1 (its loops).
bool ExactDepthwiseConv(const ConvGeometry& g, const Tensor& x, int32_t xz, const Tensor& w,
                        const std::vector<int32_t>& w_zp, int threads, int32_t* acc) {
  if (g.group != g.in_channels || g.axes.empty() || g.axes.size() > 2) return false;
  const bool x_signed = x.type() == DataType::kInt8, w_signed = w.type() == DataType::kInt8;
  if (!x_signed && x.type() != DataType::kUint8) return false;
  if (!w_signed && w.type() != DataType::kUint8) return false;
  const kernels::Int8Arithmetic arithmetic = kernels::Int8GemmArithmetic();
  if (arithmetic == kernels::Int8Arithmetic::kReferenceOnly) return false;
  if (arithmetic == kernels::Int8Arithmetic::kSaturatingPairs && !x_signed && w_signed) return false;
  kernels::DepthwiseInt8Dims d;
  d.batch = g.batch;
  d.channels = g.in_channels;
  d.multiplier = g.out_channels / g.group;
  if (g.axes.size() == 2) {
    const WindowAxis& h = g.axes[0];
    d.in_h = h.in, d.out_h = h.out, d.kernel_h = h.kernel, d.stride_h = h.stride, d.dilation_h = h.dilation;
    d.pad_top = h.pad_begin;
  }
  const WindowAxis& wa = g.axes.back();
  d.in_w = wa.in, d.out_w = wa.out, d.kernel_w = wa.kernel, d.stride_w = wa.stride, d.dilation_w = wa.dilation;
  d.pad_left = wa.pad_begin;
  auto run = [&](auto x_tag, auto w_tag) {
    using X = decltype(x_tag);
    using W = decltype(w_tag);
    kernels::DepthwiseConvInt8<X, W>(d, x.data<X>(), xz, w.data<W>(), w_zp.data(), acc, threads);
  };
  if (x_signed) {
    w_signed ? run(int8_t{}, int8_t{}) : run(int8_t{}, uint8_t{});
  } else {
    w_signed ? run(uint8_t{}, int8_t{}) : run(uint8_t{}, uint8_t{});
  }
  return true;
}

// The int32 accumulator of an 8-bit convolution: sum over taps of (x - x_zero_point) * (w - w_zero_point[m]).
Result<std::vector<int32_t>> QuantizedConv(const ConvGeometry& g, const Tensor& x, const Tensor* x_zp, const Tensor& w,
                                           const Tensor* w_zp, const std::string& x_zp_name,
                                           const std::string& w_zp_name, int threads,
                                           ExactConvWeights* cached_weights = nullptr, bool exact_pairs = false) {
  std::vector<int32_t> xz = {0};
  std::vector<int32_t> wz = {0};
  if (x_zp != nullptr) {
    ONYX_RETURN_IF_ERROR(CheckScalarParam(*x_zp, x_zp_name));
    if (x_zp->type() != x.type()) return InvalidArgument(x_zp_name + " has a different type than x");
    xz = Int32Values(*x_zp);
  }
  if (w_zp != nullptr) {
    ONYX_RETURN_IF_ERROR(CheckPerChannel(*w_zp, g.out_channels, true, w_zp_name));
    if (w_zp->type() != w.type()) return InvalidArgument(w_zp_name + " has a different type than w");
    wz = Int32Values(*w_zp);
  }
  std::vector<int32_t> acc(static_cast<size_t>(NumElements(g.out_shape)));
  // The exact kernels take a zero point per output channel.
  std::vector<int32_t> wz_per_channel(static_cast<size_t>(g.out_channels));
  for (int64_t m = 0; m < g.out_channels; ++m) wz_per_channel[static_cast<size_t>(m)] = wz.size() == 1 ? wz[0] : wz[m];
  if (ExactDepthwiseConv(g, x, xz[0], w, wz_per_channel, threads, acc.data())) return acc;
  if (ExactGemmConv(g, x, xz[0], w, wz_per_channel, threads, cached_weights, acc.data())) return acc;
  if (FastQuantizedConv(g, x, x_zp, w, w_zp, threads, acc.data(), exact_pairs)) return acc;
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> xi, CenteredInt32(x, xz, 1));
  const int64_t per_channel = g.out_channels > 0 ? w.size() / g.out_channels : 1;
  ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> wi, CenteredInt32(w, wz, std::max<int64_t>(per_channel, 1)));
  RunConv<int32_t>(g, xi.data(), wi.data(), acc.data());
  return acc;
}

// Validates x's zero point (one value of x's type) and w's (one value or one per output channel, of w's type).
Status CheckZeroPoints(const ConvGeometry& g, const Tensor& x, const Tensor* x_zp, const Tensor& w, const Tensor* w_zp,
                       const std::string& x_zp_name, const std::string& w_zp_name) {
  if (x_zp != nullptr) {
    ONYX_RETURN_IF_ERROR(CheckScalarParam(*x_zp, x_zp_name));
    if (x_zp->type() != x.type()) return InvalidArgument(x_zp_name + " has a different type than x");
  }
  if (w_zp != nullptr) {
    ONYX_RETURN_IF_ERROR(CheckPerChannel(*w_zp, g.out_channels, true, w_zp_name));
    if (w_zp->type() != w.type()) return InvalidArgument(w_zp_name + " has a different type than w");
  }
  return Status::Ok();
}

// Pixels per image of a convolution's output.
int64_t OutputPixels(const ConvGeometry& g) { return OutputSize(g.axes); }

class ConvIntegerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(ParseConvAttrs(info, &attrs_, &group_));
    packed_.Init(info, 1, 3);
    exact_weights_.Init(info, 1, 3);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_zp, OptionalTensorInput(ctx, 2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w_zp, OptionalTensorInput(ctx, 3));
    ONYX_ASSIGN_OR_RETURN(ConvGeometry g, ResolveConv(attrs_, group_, x->shape(), w->shape()));
    ONYX_RETURN_IF_ERROR(
        CheckZeroPoints(g, *x, x_zp, *w, w_zp, "input 'x_zero_point' (2)", "input 'w_zero_point' (3)"));
    std::unique_ptr<int32_t[]> nhwc;
    ONYX_ASSIGN_OR_RETURN(bool packed, packed_.Run(g, *x, x_zp, ctx.num_threads(), &nhwc));
    if (packed) {
      Tensor& y = ctx.AllocateOutput(0, DataType::kInt32, g.out_shape);
      const int64_t pixels = OutputPixels(g), per_image = pixels * g.out_channels;
      for (int64_t n = 0; n < g.batch; ++n) {
        kernels::Int32NhwcToNchw(nhwc.get() + n * per_image, pixels, g.out_channels, y.data<int32_t>() + n * per_image);
      }
      return Status::Ok();
    }
    // Exact sums where oneDNN's pairs could saturate (no VNNI): ONNX Runtime's ConvInteger is exact there (the
    // dynamically quantized U-Net of tests/data/quant: ORT's values on an AMD EPYC equal onyx's exact ones).
    ONYX_ASSIGN_OR_RETURN(std::vector<int32_t> acc,
                          QuantizedConv(g, *x, x_zp, *w, w_zp, "input 'x_zero_point' (2)", "input 'w_zero_point' (3)",
                                        ctx.num_threads(), &exact_weights_, /*exact_pairs=*/true));
    Tensor& y = ctx.AllocateOutput(0, DataType::kInt32, g.out_shape);
    std::copy(acc.begin(), acc.end(), y.data<int32_t>());
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  PackedInt8Conv packed_;
  ExactConvWeights exact_weights_;
};

// QLinearConv requantizes its int32 accumulators as ONNX Runtime does (kernels/int8_requantize.h: float multiply,
// round half to even, then the zero point, saturated). Adding the zero point before rounding, or multiplying in
// double, moves exact and near ties.
class QLinearConvKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(ParseConvAttrs(info, &attrs_, &group_));
    packed_.Init(info, 3, 5);
    exact_weights_.Init(info, 3, 5);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(3));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w_scale, ctx.TensorInput(4));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_scale, ctx.TensorInput(6));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_zp, OptionalTensorInput(ctx, 2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w_zp, OptionalTensorInput(ctx, 5));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_zp, OptionalTensorInput(ctx, 7));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, OptionalTensorInput(ctx, 8));
    ONYX_ASSIGN_OR_RETURN(ConvGeometry g, ResolveConv(attrs_, group_, x->shape(), w->shape()));
    ONYX_RETURN_IF_ERROR(CheckScalarParam(*x_scale, "input 'x_scale' (1)"));
    ONYX_RETURN_IF_ERROR(CheckScalarParam(*y_scale, "input 'y_scale' (6)"));
    ONYX_RETURN_IF_ERROR(CheckPerChannel(*w_scale, g.out_channels, true, "input 'w_scale' (4)"));
    if (bias != nullptr) {
      if (bias->type() != DataType::kInt32) return InvalidArgument("input 'B' (8) must be int32");
      ONYX_RETURN_IF_ERROR(CheckPerChannel(*bias, g.out_channels, false, "input 'B' (8)"));
    }
    std::vector<int32_t> yz = {0};
    DataType out_type = x->type();
    if (y_zp != nullptr) {
      ONYX_RETURN_IF_ERROR(CheckScalarParam(*y_zp, "input 'y_zero_point' (7)"));
      out_type = y_zp->type();
      yz = Int32Values(*y_zp);
    }
    ONYX_RETURN_IF_ERROR(
        CheckZeroPoints(g, *x, x_zp, *w, w_zp, "input 'x_zero_point' (2)", "input 'w_zero_point' (5)"));
    std::unique_ptr<int32_t[]> nhwc;
    ONYX_ASSIGN_OR_RETURN(bool packed, packed_.Run(g, *x, x_zp, ctx.num_threads(), &nhwc));
    std::vector<int32_t> acc;
    if (!packed) {
      ONYX_ASSIGN_OR_RETURN(acc, QuantizedConv(g, *x, x_zp, *w, w_zp, "input 'x_zero_point' (2)",
                                               "input 'w_zero_point' (5)", ctx.num_threads(), &exact_weights_));
    }
    const std::vector<float> multiplier = QLinearConvScales(*x_scale, *w_scale, *y_scale, g.out_channels);
    Tensor& y = ctx.AllocateOutput(0, out_type, g.out_shape);
    const int64_t out_size = OutputSize(g.axes);
    return Dispatch<Quant8Types>(out_type, [&](auto tag) {
      using Q = typename decltype(tag)::type;
      Q* out = y.data<Q>();
      if (packed) {
        const int64_t per_image = out_size * g.out_channels;
        const int32_t* b = bias != nullptr ? bias->data<int32_t>() : nullptr;
        // Threads take blocks of 64 pixels (multiples of the kernel's 8-pixel blocks) of each image.
        constexpr int64_t kBlock = 64;
        const int64_t blocks = (out_size + kBlock - 1) / kBlock;
        for (int64_t n = 0; n < g.batch; ++n) {
          ParallelFor(blocks, kBlock * g.out_channels, [&](int64_t lo, int64_t hi) {
            const int64_t p0 = lo * kBlock, p1 = std::min(out_size, hi * kBlock);
            kernels::RequantizeNhwcToNchw<Q>(nhwc.get() + n * per_image + p0 * g.out_channels, p1 - p0, g.out_channels,
                                             b, multiplier.data(), yz[0], out + n * per_image + p0, out_size);
          });
        }
        return Status::Ok();
      }
      size_t i = 0;
      for (int64_t n = 0; n < g.batch; ++n) {
        for (int64_t m = 0; m < g.out_channels; ++m) {
          const int32_t b = bias != nullptr ? bias->data<int32_t>()[m] : 0;
          const float mult = multiplier[static_cast<size_t>(m)];
          for (int64_t k = 0; k < out_size; ++k, ++i) {
            const int32_t a = static_cast<int32_t>(static_cast<uint32_t>(acc[i]) + static_cast<uint32_t>(b));
            out[i] = kernels::RequantizeValue<Q>(a, mult, yz[0]);
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  PackedInt8Conv packed_;
  ExactConvWeights exact_weights_;
};

}  // namespace

void RegisterConvOps(KernelRegistry& registry) {
  registry.Add("", "Conv", 1, kLatestVersion, MakeFactory<ConvKernel>());
  registry.Add("", "ConvInteger", 10, kLatestVersion, MakeFactory<ConvIntegerKernel>());
  registry.Add("", "QLinearConv", 10, kLatestVersion, MakeFactory<QLinearConvKernel>());
}

}  // namespace onyx::ops::nn
