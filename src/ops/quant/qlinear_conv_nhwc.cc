// ai.onyx.internal.QLinearConv with channels_last = 1: ONNX QLinearConv (same inputs and attributes) on 8-bit images
// laid out [N, H, W, C], giving [N, OH, OW, M]. The int8 layout pass (optimizer/int8_nhwc_layout.h) emits it so
// that 8-bit activations stay channels last between convolutions, the layout oneDNN's int8 kernels read and write:
// no reorder of the input and no transposition of the output, only the requantization of the int32 sums, computed
// as ONNX Runtime's MLAS computes it (kernels/int8_requantize.h), so the results are QLinearConv's bit for bit.
// Weights must be constant int8 with zero points of 0 (the pass checks); where oneDNN has only its reference
// kernel for a shape, direct loops compute the same sums.
//
// With inputs 9-13 (optimizer/int8_residual_fusion.h), the node also computes the QLinearAdd that read the
// convolution's result: y = QLinearAdd(conv, residual) with input 9 the Add's other operand, 10 and 11 its scale and
// zero point, 12 and 13 the sum's, and attribute sum_conv_operand the Add's input the convolution's result was (0: A,
// 1: B). The 1x1 kernel adds while its results are in registers; the other paths add after (in place).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/int8_conv.h"
#include "kernels/int8_depthwise_nhwc.h"
#include "kernels/int8_direct_conv_nhwc.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_pointwise_nhwc.h"
#include "kernels/int8_qlinear_add.h"
#include "kernels/int8_requantize.h"
#include "kernels/tuning_cache.h"
#include "ops/common/parallel.h"
#include "ops/nn/conv_core.h"
#include "ops/nn/nn_util.h"
#include "ops/quant/qlinear_common.h"
#include "ops/quant/quant_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::quant {
namespace {

// sum over taps of (x - x_zero_point) * w for channels-last x [N, H, W, C], w [M, C/g, KH, KW]: the reference
// where oneDNN declines a shape.
template <typename A>
void DirectNhwcSums(const nn::ConvGeometry& g, const A* x, int32_t xz, const int8_t* w, int32_t* acc) {
  const nn::WindowAxis& ah = g.axes[0];
  const nn::WindowAxis& aw = g.axes[1];
  const int64_t c = g.in_channels, m_all = g.out_channels;
  const int64_t cg = c / g.group, mg = m_all / g.group;
  ParallelFor(g.batch * ah.out, aw.out * m_all * cg * ah.kernel * aw.kernel, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t n = row / ah.out, oh = row % ah.out;
      for (int64_t ow = 0; ow < aw.out; ++ow) {
        int32_t* out = acc + ((n * ah.out + oh) * aw.out + ow) * m_all;
        for (int64_t m = 0; m < m_all; ++m) {
          const int64_t gi = m / mg;
          int32_t sum = 0;
          for (int64_t kh = 0; kh < ah.kernel; ++kh) {
            const int64_t ih = oh * ah.stride - ah.pad_begin + kh * ah.dilation;
            if (ih < 0 || ih >= ah.in) continue;
            for (int64_t kw = 0; kw < aw.kernel; ++kw) {
              const int64_t iw = ow * aw.stride - aw.pad_begin + kw * aw.dilation;
              if (iw < 0 || iw >= aw.in) continue;
              const A* px = x + ((n * ah.in + ih) * aw.in + iw) * c + gi * cg;
              const int8_t* pw = w + ((m * cg) * ah.kernel + kh) * aw.kernel + kw;
              for (int64_t ci = 0; ci < cg; ++ci) {
                sum += (static_cast<int32_t>(px[ci]) - xz) * pw[ci * ah.kernel * aw.kernel];
              }
            }
          }
          out[m] = sum;
        }
      }
    }
  });
}

// The batch and 2-D window of ResolveConv's geometry into a channels-last kernel's geometry (the depthwise and the
// direct kernel's have the same fields for them).
template <class Geometry>
void SetWindow(const nn::ConvGeometry& g, Geometry& d) {
  const nn::WindowAxis& ah = g.axes[0];
  const nn::WindowAxis& aw = g.axes[1];
  d.batch = g.batch;
  d.in_h = ah.in;
  d.in_w = aw.in;
  d.out_h = ah.out;
  d.out_w = aw.out;
  d.kernel_h = ah.kernel;
  d.kernel_w = aw.kernel;
  d.stride_h = ah.stride;
  d.stride_w = aw.stride;
  d.dilation_h = ah.dilation;
  d.dilation_w = aw.dilation;
  d.pad_top = ah.pad_begin;
  d.pad_left = aw.pad_begin;
}

class QLinearConvNhwcKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    if (info.GetInt("channels_last", 0) != 1) return info.Error("only channels_last = 1 is implemented");
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, false));
    if (attrs_.ceil_mode) return info.Error("QLinearConv has no attribute 'ceil_mode'");
    group_ = info.GetInt("group", 1);
    if (group_ < 1) return info.Error("attribute 'group' must be >= 1, got " + std::to_string(group_));
    const Tensor* w = info.ConstantInput(3);
    if (w == nullptr || w->type() != DataType::kInt8 || w->rank() != 4) {
      return info.Error("input 'w' (3) must be a constant int8 [M, C/group, KH, KW] tensor");
    }
    if (info.has_input(5)) {
      const Tensor* z = info.ConstantInput(5);
      if (z == nullptr || z->type() != DataType::kInt8) return info.Error("input 'w_zero_point' (5) must be constant");
      for (int64_t i = 0; i < z->size(); ++i) {
        if (z->data<int8_t>()[i] != 0) return info.Error("input 'w_zero_point' (5) must be all zeros");
      }
    }
    weights_ = *w;
    if (nn::WeightsMayPairAcrossTaps(*w)) weights_khwc_ = nn::WeightsKhwc(*w);
    if (!info.has_input(2)) {
      constant_x_zero_point_ = 0;
    } else if (const Tensor* xz = info.ConstantInput(2);
               xz != nullptr && xz->size() == 1 && (xz->type() == DataType::kUint8 || xz->type() == DataType::kInt8)) {
      constant_x_zero_point_ = nn::Int32Values(*xz)[0];
    }
    PrepareFusedRequant(info);
    if (info.has_input(9)) return PrepareResidualAdd(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x_zp, nn::OptionalTensorInput(ctx, 2));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w_scale, ctx.TensorInput(4));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_scale, ctx.TensorInput(6));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y_zp, nn::OptionalTensorInput(ctx, 7));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, nn::OptionalTensorInput(ctx, 8));
    if ((x->type() != DataType::kUint8 && x->type() != DataType::kInt8) || x->rank() != 4) {
      return InvalidArgument("input 'x' (0) must be a uint8 or int8 [N, H, W, C] tensor, got " +
                             std::string(DataTypeName(x->type())) + " " + ShapeToString(x->shape()));
    }
    ONYX_ASSIGN_OR_RETURN(const std::shared_ptr<const Plan> plan, PlanFor(*x, ctx.num_threads()));
    const nn::ConvGeometry& g = plan->g;
    const Tensor* residual = nullptr;
    if (residual_) {
      ONYX_ASSIGN_OR_RETURN(residual, ctx.TensorInput(9));
      if (residual->type() != DataType::kUint8 && residual->type() != DataType::kInt8) {
        return InvalidArgument("input 'residual' (9) must be uint8 or int8, got " +
                               std::string(DataTypeName(residual->type())));
      }
    }
    // The convolution's 8-bit result goes to output 0, where the sum (if any) is then added in place; a residual of
    // another shape (broadcast) sends it to a temporary that the general QLinearAdd reads.
    std::optional<Tensor> conv_temp;
    auto conv_output = [&](DataType type) -> Tensor& {
      if (residual == nullptr || residual->shape() == plan->y_shape) return ctx.AllocateOutput(0, type, plan->y_shape);
      conv_temp = Tensor::Allocate(type, plan->y_shape);
      return *conv_temp;
    };
    if (plan->depthwise != nullptr) {
      Tensor& y = conv_output(fused_output_type_);
      plan->depthwise->Run(x->raw(), y.raw(), ctx.num_threads());
      return AddResidual(ctx, y, residual);
    }
    // The kernels that add in their epilogue read each residual byte just before writing the output byte at the same
    // place: they can write over the residual when nothing reads it afterwards, which saves a cold output's
    // read-for-ownership and half the bytes in the caches (ResNet-50 QDQ's 64 -> 256 layers: 0.8 MB each).
    const bool adds_in_epilogue = residual != nullptr && residual->type() == fused_output_type_ &&
                                  residual->shape() == plan->y_shape &&
                                  (plan->direct != nullptr || (plan->pointwise != nullptr && plan->pointwise_adds));
    if (adds_in_epilogue) {
      // (ReuseInputAsOutput declines a residual that is also x: an input read twice by the node is not its last read.)
      Tensor* in_place = ctx.ReuseInputAsOutput(9, 0);
      Tensor& y = in_place != nullptr ? *in_place : conv_output(fused_output_type_);
      if (plan->direct != nullptr) {
        plan->direct->Run(x->raw(), y.raw(), ctx.num_threads(), residual->raw(), &residual_->kernel);
      } else {
        plan->pointwise->Run(x->raw(), y.raw(), ctx.num_threads(), residual->raw(), &residual_->kernel);
      }
      return Status::Ok();
    }
    if (plan->direct != nullptr) {
      Tensor& y = conv_output(fused_output_type_);
      plan->direct->Run(x->raw(), y.raw(), ctx.num_threads());
      return AddResidual(ctx, y, residual);
    }
    if (plan->pointwise != nullptr) {
      Tensor& y = conv_output(fused_output_type_);
      plan->pointwise->Run(x->raw(), y.raw(), ctx.num_threads());
      return AddResidual(ctx, y, residual);
    }
    const std::shared_ptr<kernels::Int8Conv>& conv = plan->conv;
    if (conv != nullptr && conv->fused_requant()) {
      // Every quantization parameter is a constant, checked once (PrepareFusedRequant), and x has the type the
      // primitive was fused for: nothing to read or resolve per run.
      Tensor& y = conv_output(fused_output_type_);
      ONYX_RETURN_IF_ERROR(conv->RunNhwc(x->raw(), fused_x_zero_point_, y.raw()));
      return AddResidual(ctx, y, residual);
    }
    ONYX_RETURN_IF_ERROR(nn::CheckScalarParam(*x_scale, "input 'x_scale' (1)"));
    ONYX_RETURN_IF_ERROR(nn::CheckScalarParam(*y_scale, "input 'y_scale' (6)"));
    if (w_scale->size() != 1 && w_scale->size() != g.out_channels) {
      return InvalidArgument("input 'w_scale' (4) has " + std::to_string(w_scale->size()) + " values, expected 1 or " +
                             std::to_string(g.out_channels));
    }
    if (bias != nullptr && (bias->type() != DataType::kInt32 || bias->size() != g.out_channels)) {
      return InvalidArgument("input 'B' (8) must be " + std::to_string(g.out_channels) + " int32 values");
    }
    int32_t xz = 0, yz = 0;
    if (x_zp != nullptr) {
      ONYX_RETURN_IF_ERROR(nn::CheckScalarParam(*x_zp, "input 'x_zero_point' (2)"));
      if (x_zp->type() != x->type()) return InvalidArgument("input 'x_zero_point' (2) has a different type than x");
      xz = nn::Int32Values(*x_zp)[0];
    }
    DataType out_type = x->type();
    if (y_zp != nullptr) {
      ONYX_RETURN_IF_ERROR(nn::CheckScalarParam(*y_zp, "input 'y_zero_point' (7)"));
      out_type = y_zp->type();
      yz = nn::Int32Values(*y_zp)[0];
    }
    const nn::WindowAxis& ah = g.axes[0];
    const nn::WindowAxis& aw = g.axes[1];
    const int64_t pixels = g.batch * ah.out * aw.out;
    const int64_t slack = conv != nullptr ? conv->OutputSlack() : 0;
    std::unique_ptr<int32_t[]> acc(new int32_t[static_cast<size_t>(pixels * g.out_channels + slack)]);
    bool summed = false;
    if (conv != nullptr && conv->SumsExactFor(x->raw())) {
      ONYX_RETURN_IF_ERROR(conv->RunNhwc(x->raw(), xz, acc.get()));
      summed = conv->ResultExact(acc.get());  // else rounded past 2^24: the exact way below
    }
    if (summed) {
    } else if (!weights_khwc_.empty() && nn::MlasPairsAcrossTaps(g, x->type()) &&
               nn::Im2colGemmSums(g, x->data<uint8_t>(), true, xz, weights_khwc_.data(), ctx.num_threads(),
                                  acc.get())) {
    } else if (x->type() == DataType::kUint8) {
      DirectNhwcSums(g, x->data<uint8_t>(), xz, weights_.data<int8_t>(), acc.get());
    } else {
      DirectNhwcSums(g, x->data<int8_t>(), xz, weights_.data<int8_t>(), acc.get());
    }
    const std::vector<float> multiplier = nn::QLinearConvScales(*x_scale, *w_scale, *y_scale, g.out_channels);
    Tensor& y = conv_output(out_type);
    const int32_t* b = bias != nullptr ? bias->data<int32_t>() : nullptr;
    ONYX_RETURN_IF_ERROR(Dispatch<nn::Quant8Types>(out_type, [&](auto tag) {
      using Q = typename decltype(tag)::type;
      Q* out = y.data<Q>();
      ParallelFor(pixels, g.out_channels * 4, [&](int64_t lo, int64_t hi) {
        kernels::RequantizeRows<Q>(acc.get() + lo * g.out_channels, hi - lo, g.out_channels, b, multiplier.data(), true,
                                   yz, out + lo * g.out_channels);
      });
      return Status::Ok();
    }));
    return AddResidual(ctx, y, residual);
  }

 private:
  // What one input shape, type and thread count resolve to: the geometry, the output shape and the primitive (null:
  // direct loops). Kept for the last input seen, so that the steady state of a session (one shape) resolves nothing.
  struct Plan {
    Shape x_shape;
    bool pointwise_adds = false;  // the 1x1 kernel adds the residual in its epilogue
    DataType x_type = DataType::kUndefined;
    int threads = 1;
    nn::ConvGeometry g;
    Shape y_shape;
    std::shared_ptr<kernels::Int8Conv> conv;
    std::shared_ptr<const kernels::DepthwiseNhwcInt8> depthwise;  // instead of conv, where it applies
    std::shared_ptr<const kernels::PointwiseNhwcInt8> pointwise;  // instead of conv, where it applies and is faster
    // instead of oneDNN's int32 sums and a requantization pass, where oneDNN cannot requantize exactly itself
    std::shared_ptr<const kernels::DirectConvNhwcInt8> direct;
  };

  Result<std::shared_ptr<const Plan>> PlanFor(const Tensor& x, int threads) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (plan_ != nullptr && plan_->x_type == x.type() && plan_->threads == threads && plan_->x_shape == x.shape()) {
        return plan_;
      }
    }
    auto plan = std::make_shared<Plan>();
    plan->x_shape = x.shape();
    plan->x_type = x.type();
    plan->threads = threads;
    const Shape nchw{x.dim(0), x.dim(3), x.dim(1), x.dim(2)};
    ONYX_ASSIGN_OR_RETURN(plan->g, nn::ResolveConv(attrs_, group_, nchw, weights_.shape()));
    plan->y_shape = {plan->g.batch, plan->g.axes[0].out, plan->g.axes[1].out, plan->g.out_channels};
    plan->depthwise = Depthwise(plan->g, x.type());
    const std::shared_ptr<kernels::PointwiseNhwcInt8> pointwise = Pointwise(plan->g, x.type());
    plan->pointwise = pointwise;
    plan->conv = Primitive(plan->g, x.type(), threads);
    if (plan->depthwise != nullptr && plan->conv != nullptr) {
      const auto& dw = *plan->depthwise;
      if (OwnBeatsOneDnn(
              "int8dw_nhwc", [&](const void* src, void* dst) { dw.Run(src, dst, threads); }, [&] { dw.EvictWeights(); },
              dw.signed_input(), *plan->conv, fused_x_zero_point_, threads, /*own_without_timing=*/true)) {
        plan->conv = nullptr;
      } else {
        plan->depthwise = nullptr;
      }
    }
    if (pointwise != nullptr && plan->conv != nullptr) {
      kernels::PointwiseNhwcInt8& pw = *pointwise;
      // onyx's candidates: its software-pipelined tiles ("onyx") and, where those apply, its plain tiles
      // ("onyx-tiles"), each timed as it would run (the plan is not shared yet).
      const auto own_candidates = [&](const std::function<void(const void*, void*)>& run) {
        std::vector<OwnCandidate> own{{"onyx", [&, run](const void* src, void* dst) {
                                         pw.set_pipelined_tiles(true);
                                         run(src, dst);
                                       }}};
        if (pw.PipelinedTilesApply()) {
          own.push_back({"onyx-tiles", [&, run](const void* src, void* dst) {
                           pw.set_pipelined_tiles(false);
                           run(src, dst);
                         }});
        }
        return own;
      };
      std::string choice;
      if (residual_) {
        // The 1x1 kernel with the add in its epilogue, writing over the residual as Run does where nothing reads it
        // later ("ip" in the key), against oneDNN's convolution and the add after it ("2": timed again since the
        // kernel's tiles run software-pipelined, session 51).
        const int64_t y_bytes = NumElements(plan->y_shape);
        std::vector<uint8_t> residual(static_cast<size_t>(y_bytes), 1);
        choice = ChooseImplementation(
            "int8pw_addip2_nhwc", own_candidates([&](const void* src, void*) {
              pw.Run(src, residual.data(), threads, residual.data(), &residual_->kernel);
            }),
            [&] { pw.EvictWeights(); }, pw.signed_input(), *plan->conv, fused_x_zero_point_, threads,
            /*own_without_timing=*/false,
            [&](void* dst) { AddSameShape(fused_output_type_, dst, residual.data(), y_bytes, dst); });
      } else {
        // ("3": timed again since onyx's tiles run software-pipelined, session 51; "2" since they narrow by saturating
        // packs, session 49)
        choice = ChooseImplementation(
            "int8pw3_nhwc", own_candidates([&](const void* src, void* dst) { pw.Run(src, dst, threads); }),
            [&] { pw.EvictWeights(); }, pw.signed_input(), *plan->conv, fused_x_zero_point_, threads,
            /*own_without_timing=*/false);
      }
      if (choice == "onednn") {
        plan->pointwise = nullptr;
      } else {
        pw.set_pipelined_tiles(choice != "onyx-tiles");
        plan->conv = nullptr;
      }
    }
    plan->pointwise_adds = plan->pointwise != nullptr && residual_.has_value();
    if (plan->pointwise == nullptr && plan->depthwise == nullptr &&
        (plan->conv == nullptr || !plan->conv->fused_requant())) {
      // oneDNN's primitive leaves int32 sums for a pass of their own (its float requantization would not be exact), or
      // oneDNN has only its reference kernel: the direct kernel, which requantizes in registers, where it is faster.
      std::shared_ptr<const kernels::DirectConvNhwcInt8> direct = Direct(plan->g, x.type());
      if (direct != nullptr && (plan->conv == nullptr || DirectBeatsOneDnn(*direct, *plan, threads))) {
        plan->direct = std::move(direct);
        plan->conv = nullptr;
      }
    } else if (plan->pointwise == nullptr && plan->depthwise == nullptr && plan->conv != nullptr && !residual_ &&
               FirstLayer(plan->g)) {
      // A first layer (a few input channels, a window wider than 1): the direct kernel's row taps (a window row's
      // channels as one run of bytes) against oneDNN's kernel with its requantization fused, timed (key
      // `int8direct_rowtaps_nhwc`). AMD Zen 5, ResNet-50 QDQ's 7x7 stride-2 layer at 1 thread: 0.36 ms alone, oneDNN's
      // 0.44 in the model; on a Sapphire Rapids (session 41) the two were even.
      std::shared_ptr<const kernels::DirectConvNhwcInt8> direct = Direct(plan->g, x.type());
      if (direct != nullptr &&
          OwnBeatsOneDnn(
              "int8direct_rowtaps_nhwc", [&](const void* src, void* dst) { direct->Run(src, dst, threads); },
              [&] { direct->EvictWeights(); }, direct->signed_input(), *plan->conv, fused_x_zero_point_, threads,
              /*own_without_timing=*/false)) {
        plan->direct = std::move(direct);
        plan->conv = nullptr;
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    plan_ = plan;
    return std::shared_ptr<const Plan>(plan_);
  }

  // Whether the direct kernel (with the residual add where the node has one) runs faster than oneDNN's int32 sums, the
  // requantization pass and the add: timed as OwnBeatsOneDnn times (key `int8direct2_nhwc`, `int8direct_addip_nhwc`).
  // Measured on a Sapphire Rapids: capped to VNNI, the direct kernel wins ResNet-50's 512-channel 3x3 layers (the
  // model 1.6-2.6% faster); with AMX, oneDNN's AMX sums and the pass win.
  bool DirectBeatsOneDnn(const kernels::DirectConvNhwcInt8& direct, const Plan& plan, int threads) const {
    const int64_t outputs = NumElements(plan.y_shape), m = plan.g.out_channels;
    std::vector<uint8_t> out(static_cast<size_t>(outputs)), residual(residual_ ? static_cast<size_t>(outputs) : 0, 1);
    const kernels::Int8ConvRequant& r = *requant_;
    const int32_t* bias = r.bias.empty() ? nullptr : r.bias.data();
    // With a residual add, onyx's kernel writes over the residual as Run does where nothing reads it later ("ip").
    return OwnBeatsOneDnn(
        residual_ ? "int8direct_addip_nhwc" : "int8direct2_nhwc",
        [&](const void* src, void* dst) {
          if (residual_) {
            direct.Run(src, residual.data(), threads, residual.data(), &residual_->kernel);
          } else {
            direct.Run(src, dst, threads);
          }
        },
        [&] { direct.EvictWeights(); }, direct.signed_input(), *plan.conv, fused_x_zero_point_, threads,
        /*own_without_timing=*/false,
        [&](void* sums) {
          const auto* acc = static_cast<const int32_t*>(sums);
          ParallelFor(outputs / m, m * 4, [&](int64_t lo, int64_t hi) {
            if (r.signed_output) {
              kernels::RequantizeRows<int8_t>(acc + lo * m, hi - lo, m, bias, r.scales.data(), r.scales.size() > 1,
                                              r.zero_point, reinterpret_cast<int8_t*>(out.data()) + lo * m);
            } else {
              kernels::RequantizeRows<uint8_t>(acc + lo * m, hi - lo, m, bias, r.scales.data(), r.scales.size() > 1,
                                               r.zero_point, out.data() + lo * m);
            }
          });
          if (residual_) AddSameShape(fused_output_type_, out.data(), residual.data(), outputs, out.data());
        });
  }

  // The oneDNN primitive for these dims, built once per input shape, type and thread count; null where oneDNN has
  // only its reference kernel (the direct loops run instead).
  std::shared_ptr<kernels::Int8Conv> Primitive(const nn::ConvGeometry& g, DataType type, int threads) {
    const kernels::Int8ConvDims d = nn::Int8ConvDimsOf(g);
    // Without VNNI/AMX only u8 activations (kernels::Int8GemmUsable); elsewhere the direct loops run.
    if (!kernels::Int8GemmUsable(type == DataType::kInt8)) return nullptr;
    if (nn::MlasPairsAcrossTaps(g, type)) return nullptr;  // MLAS's pairing (Im2colGemmSums), not oneDNN's
    // Without VNNI: only weights no pairing of int16 products can clip (kernels/int8_gemm.h).
    if (!kernels::Int8WeightsCannotClip(weights_.data<int8_t>(), weights_.size())) return nullptr;
    if (d.batch * d.out_h * d.out_w * d.out_channels == 0 || d.in_channels == 0) return nullptr;
    const Key key{d, type == DataType::kInt8, kernels::Int8ConvThreads(d, threads)};
    std::lock_guard<std::mutex> lock(mutex_);
    // Kept for the last few input shapes: a server's dynamic batches alternate between batch sizes.
    auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const auto& e) { return e.first == key; });
    if (kept != kept_.end()) return kept->second;
    // The fused requantization holds for the source type its bound was checked for.
    const bool fuse = requant_.has_value() && fused_exact_ && key.is_signed == fused_signed_source_;
    auto made = kernels::Int8Conv::Create(d, key.is_signed, weights_.data<int8_t>(), key.threads,
                                          fuse ? &*requant_ : nullptr, {}, constant_x_zero_point_);
    if (!made.ok() && fuse) {  // no fast kernel with the requantization fused: the int32 sums and the separate pass
      made = kernels::Int8Conv::Create(d, key.is_signed, weights_.data<int8_t>(), key.threads, nullptr, {},
                                       constant_x_zero_point_);
    }
    std::shared_ptr<kernels::Int8Conv> conv =
        made.ok() ? std::shared_ptr<kernels::Int8Conv>(std::move(*made)) : nullptr;
    kept_.insert(kept_.begin(), {key, conv});
    if (kept_.size() > kShapesKept) kept_.pop_back();
    return conv;
  }

  // One of onyx's implementations of a convolution, by the name a tuning entry gives it.
  struct OwnCandidate {
    std::string name;
    std::function<void(const void*, void*)> run;
  };

  // Whether onyx's kernel (`run_own`: the depthwise or the 1x1 one) runs this shape faster than oneDNN's primitive
  // (with its fused requantization: else oneDNN's int32 sums need a pass of their own and onyx's kernel is taken),
  // timed on the CPU at hand and kept in the tuning cache (kernels/tuning_cache.h) under `kind`; with tuning off, or
  // the process's budget for timing spent, `own_without_timing` (the depthwise kernel: measured faster on AVX2 CPUs
  // without VNNI, MobileNet-v2's depthwise layers ~10-25%; the 1x1 one is taken only where timed faster).
  // `after_onednn`, where given, runs on oneDNN's result as part of its candidate (the residual add the own kernel
  // fuses). `evict_own_weights` evicts onyx's kernel's weights before its timed runs, as conv.EvictWeights() oneDNN's.
  static bool OwnBeatsOneDnn(const char* kind, const std::function<void(const void*, void*)>& run_own,
                             const std::function<void()>& evict_own_weights, bool signed_input,
                             const kernels::Int8Conv& conv, int32_t x_zero_point, int threads, bool own_without_timing,
                             const std::function<void(void*)>& after_onednn = {}) {
    return ChooseImplementation(kind, {{"onyx", run_own}}, evict_own_weights, signed_input, conv, x_zero_point, threads,
                                own_without_timing, after_onednn) != "onednn";
  }

  // The fastest of onyx's candidates (`own`, the first its default) and oneDNN's primitive `conv`: the name of the
  // chosen one ("onednn" for oneDNN's), from the tuning cache or timed (key `kind` and the geometry).
  static std::string ChooseImplementation(const char* kind, const std::vector<OwnCandidate>& own,
                                          const std::function<void()>& evict_own_weights, bool signed_input,
                                          const kernels::Int8Conv& conv, int32_t x_zero_point, int threads,
                                          bool own_without_timing,
                                          const std::function<void(void*)>& after_onednn = {}) {
    const std::string& default_own = own.front().name;
    const std::string fixed = own_without_timing ? default_own : "onednn";
    // Without its fused requantization oneDNN's sums need a pass of their own: onyx's kernel, unless the caller times
    // the pass too (after_onednn).
    if (!conv.fused_requant() && !after_onednn) return default_own;
    // ONYX_INT8_NHWC_IMPL=onyx|dnnl forces the choice (tests, measurements).
    if (const std::optional<std::string> forced = kernels::ForcedImplementation("ONYX_INT8_NHWC_IMPL")) {
      return *forced == "onyx" ? default_own : "onednn";
    }
    const kernels::TuningMode mode = kernels::CurrentTuningMode();
    if (mode == kernels::TuningMode::kOff) return fixed;
    const kernels::Int8ConvDims& d = conv.dims();
    auto dim = [](int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); };
    const std::string signature =
        std::string(kind) + "/" + (signed_input ? "s8" : "u8") + "/n" + std::to_string(d.batch) + "/c" +
        std::to_string(d.in_channels) + "/m" + std::to_string(d.out_channels) + "/in" + dim(d.in_h, d.in_w) + "/k" +
        dim(d.kernel_h, d.kernel_w) + "/s" + dim(d.stride_h, d.stride_w) + "/d" + dim(d.dilation_h, d.dilation_w) +
        "/p" + dim(d.pad_top, d.pad_left) + "-" + dim(d.pad_bottom, d.pad_right) + "/cold/t" + std::to_string(threads);
    const auto cache = kernels::TuningCache::Process();
    if (auto entry = cache->Find(signature, mode == kernels::TuningMode::kAlways)) {
      // The cached choice, or the default for a candidate this build does not offer here; noted as taken.
      kernels::TuningEntry taken = *entry;
      taken.choice = entry->choice == "onednn" ? "onednn" : default_own;
      for (const OwnCandidate& c : own) {
        if (entry->choice == c.name) taken.choice = c.name;
      }
      cache->NoteDecision(signature, taken, false);
      return taken.choice;
    }
    if (mode == kernels::TuningMode::kCache && !cache->MissBudgetLeft()) return fixed;
    const auto start = std::chrono::steady_clock::now();
    // Scratch images (values do not change the time of integer products), with oneDNN's output margin.
    std::vector<uint8_t> src(static_cast<size_t>(d.batch * d.in_h * d.in_w * d.in_channels), 1);
    // (int32 sums where oneDNN does not requantize)
    std::vector<uint8_t> dst(static_cast<size_t>((d.batch * d.out_h * d.out_w * d.out_channels + conv.OutputSlack()) *
                                                 (conv.fused_requant() ? 1 : int64_t{sizeof(int32_t)})));
    // The output and every candidate's weights are evicted before each timed run ("cold" in the key): in a model a
    // layer's output buffer was last written a whole run earlier, and weights beyond the caches' share come from
    // memory. Timed warm, onyx's 1x1 kernel (before it prefetched its next tile's output) tied oneDNN's on ResNet-50's
    // 64 -> 256 layers and then ran twice as long in the model; layer 4's 1x1 and 3x3 layers (1-2.4 MB of weights)
    // ran 40-50% longer in the model than timed warm (AMD Zen 5).
    const size_t n_own = own.size();
    std::vector<int> thread_counts(n_own, threads);
    thread_counts.push_back(conv.threads());
    const std::vector<double> ms = kernels::TimeCandidates(
        n_own + 1,
        [&](size_t i) -> Status {
          if (i < n_own) {
            own[i].run(src.data(), dst.data());
            return Status::Ok();
          }
          ONYX_RETURN_IF_ERROR(conv.RunNhwc(src.data(), x_zero_point, dst.data()));
          if (after_onednn) after_onednn(dst.data());
          return Status::Ok();
        },
        thread_counts, 20, 5,
        [&](size_t i) {
          kernels::FlushFromCaches(dst.data(), dst.size());
          if (i < n_own) {
            evict_own_weights();
          } else {
            conv.EvictWeights();
          }
        });
    cache->SpendMissTime(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    auto name = [&](size_t i) { return i < n_own ? own[i].name : std::string("onednn"); };
    kernels::TuningEntry entry;
    for (size_t i = 0; i <= n_own; ++i) {
      if (std::isfinite(ms[i])) entry.times.push_back({name(i), ms[i]});
    }
    const size_t pick = kernels::PickFastest(ms, 0);
    entry.choice = name(pick);
    if (std::isfinite(ms[pick])) {
      (void)cache->Record(signature, entry);  // a cache that cannot be written was warned about; the run goes on
      cache->NoteDecision(signature, entry, true);
    }
    return entry.choice;
  }

  // The channels-last depthwise kernel (kernels/int8_depthwise_nhwc.h) for one input and one output channel per
  // group, 2-D, with every quantization parameter constant; null elsewhere (oneDNN or the direct loops run).
  std::shared_ptr<const kernels::DepthwiseNhwcInt8> Depthwise(const nn::ConvGeometry& g, DataType type) const {
    if (!requant_ || !kernels::DepthwiseNhwcInt8::Available() || g.axes.size() != 2) return nullptr;
    if (g.group != g.in_channels || g.out_channels != g.in_channels ||
        (type == DataType::kInt8) != fused_signed_source_) {
      return nullptr;
    }
    kernels::DepthwiseNhwcGeometry d;
    SetWindow(g, d);
    d.channels = g.in_channels;
    const kernels::Int8ConvRequant& r = *requant_;
    return std::make_shared<const kernels::DepthwiseNhwcInt8>(
        d, weights_.data<int8_t>(), r.bias.empty() ? nullptr : r.bias.data(), r.scales, fused_x_zero_point_,
        fused_signed_source_, r.zero_point, r.signed_output);
  }

  // The channels-last 1x1 kernel (kernels/int8_pointwise_nhwc.h) for a 2-D convolution of one group with a 1x1
  // window, no padding, no dilation and every quantization parameter constant, on AVX-512 VNNI; null elsewhere.
  std::shared_ptr<kernels::PointwiseNhwcInt8> Pointwise(const nn::ConvGeometry& g, DataType type) const {
    if (!requant_ || !kernels::PointwiseNhwcInt8::Supported() || g.axes.size() != 2 || g.group != 1) return nullptr;
    if ((type == DataType::kInt8) != fused_signed_source_) return nullptr;
    for (const nn::WindowAxis& a : g.axes) {
      if (a.kernel != 1 || a.dilation != 1 || a.pad_begin != 0 || a.out != (a.in - 1) / a.stride + 1) return nullptr;
    }
    kernels::PointwiseNhwcGeometry p;
    p.batch = g.batch;
    p.in_channels = g.in_channels;
    p.out_channels = g.out_channels;
    p.in_h = g.axes[0].in;
    p.in_w = g.axes[1].in;
    p.out_h = g.axes[0].out;
    p.out_w = g.axes[1].out;
    p.stride_h = g.axes[0].stride;
    p.stride_w = g.axes[1].stride;
    const kernels::Int8ConvRequant& r = *requant_;
    return std::make_shared<kernels::PointwiseNhwcInt8>(
        p, weights_.data<int8_t>(), r.bias.empty() ? nullptr : r.bias.data(), r.scales, fused_x_zero_point_,
        fused_signed_source_, r.zero_point, r.signed_output);
  }

  // The direct kernel's geometry for `g` (2-D).
  static kernels::DirectConvNhwcGeometry DirectGeometry(const nn::ConvGeometry& g) {
    kernels::DirectConvNhwcGeometry d;
    SetWindow(g, d);
    d.in_channels = g.in_channels;
    d.out_channels = g.out_channels;
    return d;
  }

  // Whether the direct kernel would read a window row's channels as one run (DirectConvNhwcInt8::RowTapsPay: C no
  // multiple of 4, a window wider than 1): an image network's first layer.
  static bool FirstLayer(const nn::ConvGeometry& g) {
    return g.axes.size() == 2 && g.group == 1 && kernels::DirectConvNhwcInt8::RowTapsPay(DirectGeometry(g));
  }

  // The channels-last direct kernel (kernels/int8_direct_conv_nhwc.h) for a 2-D convolution of one group with every
  // quantization parameter constant, on AVX-512 VNNI; null elsewhere.
  std::shared_ptr<const kernels::DirectConvNhwcInt8> Direct(const nn::ConvGeometry& g, DataType type) const {
    if (!requant_ || !kernels::DirectConvNhwcInt8::Supported() || g.axes.size() != 2 || g.group != 1) return nullptr;
    if ((type == DataType::kInt8) != fused_signed_source_) return nullptr;
    const kernels::Int8ConvRequant& r = *requant_;
    return std::make_shared<const kernels::DirectConvNhwcInt8>(
        DirectGeometry(g), weights_.data<int8_t>(), r.bias.empty() ? nullptr : r.bias.data(), r.scales,
        fused_x_zero_point_, fused_signed_source_, r.zero_point, r.signed_output);
  }

  // When every quantization parameter is a constant, oneDNN requantizes inside the convolution (8-bit output, no
  // int32 pass over memory), provided the float sums are provably exact (kernels::FusedRequantIsExact); y's zero
  // point is added after rounding, as MLAS does (kernels::Int8ConvRequant).
  void PrepareFusedRequant(const KernelInfo& info) {
    auto constant = [&](size_t i) { return info.has_input(i) ? info.ConstantInput(i) : nullptr; };
    const Tensor* xs = constant(1);
    const Tensor* xz = constant(2);
    const Tensor* ws = constant(4);
    const Tensor* ys = constant(6);
    const Tensor* yz = constant(7);
    const Tensor* b = constant(8);
    if (xs == nullptr || ws == nullptr || ys == nullptr) return;
    if ((info.has_input(2) && xz == nullptr) || (info.has_input(7) && yz == nullptr) ||
        (info.has_input(8) && b == nullptr)) {
      return;
    }
    // What Compute checks per run where the parameters are not all constant (the fused runs read none of them).
    auto scalar = [](const Tensor* t) { return t == nullptr || (t->size() == 1 && t->rank() <= 1); };
    auto eight_bit = [](const Tensor* t) {
      return t == nullptr || t->type() == DataType::kUint8 || t->type() == DataType::kInt8;
    };
    if (!scalar(xs) || !scalar(ys) || !scalar(xz) || !scalar(yz) || !eight_bit(xz) || !eight_bit(yz)) return;
    if (xs->type() != DataType::kFloat || ws->type() != DataType::kFloat || ys->type() != DataType::kFloat) return;
    const int64_t m_count = weights_.dim(0);
    if (ws->size() != 1 && ws->size() != m_count) return;
    if (b != nullptr && (b->type() != DataType::kInt32 || b->size() != m_count)) return;
    kernels::Int8ConvRequant r;
    r.signed_output = yz != nullptr && yz->type() == DataType::kInt8;
    fused_signed_source_ = xz != nullptr && xz->type() == DataType::kInt8;
    fused_output_type_ = yz != nullptr ? yz->type() : fused_signed_source_ ? DataType::kInt8 : DataType::kUint8;
    r.signed_output = fused_output_type_ == DataType::kInt8;
    r.scales = nn::QLinearConvScales(*xs, *ws, *ys, m_count);
    if (b != nullptr) r.bias.assign(b->data<int32_t>(), b->data<int32_t>() + m_count);
    r.zero_point = yz != nullptr ? nn::Int32Values(*yz)[0] : 0;
    const int32_t zx = xz != nullptr ? nn::Int32Values(*xz)[0] : 0;
    const int32_t q_low = fused_signed_source_ ? -128 : 0, q_high = fused_signed_source_ ? 127 : 255;
    fused_exact_ =
        kernels::FusedRequantIsExact(weights_.data<int8_t>(), m_count, weights_.size() / std::max<int64_t>(m_count, 1),
                                     r.bias, q_low - zx, q_high - zx);
    fused_x_zero_point_ = zx;
    requant_ = std::move(r);
  }

  // The fused residual add's constants (inputs 10-13 with the convolution's own y_scale and y_zero_point, 6 and 7),
  // as QLinearAdd's A and B in the order the Add had them.
  Status PrepareResidualAdd(const KernelInfo& info) {
    const int64_t operand = info.GetInt("sum_conv_operand", 0);
    if (operand != 0 && operand != 1) {
      return info.Error("attribute 'sum_conv_operand' must be 0 or 1, got " + std::to_string(operand));
    }
    auto scale = [&](size_t i, const char* name) -> Result<float> {
      const Tensor* t = info.has_input(i) ? info.ConstantInput(i) : nullptr;
      if (t == nullptr) return info.Error(std::string(name) + " must be a constant with the residual add");
      return ScalarScale(*t, name);
    };
    auto zero_point = [&](size_t i, const char* name) -> Result<int32_t> {
      if (!info.has_input(i)) return 0;
      const Tensor* t = info.ConstantInput(i);
      if (t == nullptr) return info.Error(std::string(name) + " must be a constant with the residual add");
      return ScalarZeroPoint(t, t->type(), name);
    };
    ONYX_ASSIGN_OR_RETURN(const float conv_scale, scale(6, "input 'y_scale' (6)"));
    ONYX_ASSIGN_OR_RETURN(const int32_t conv_zero_point, zero_point(7, "input 'y_zero_point' (7)"));
    ONYX_ASSIGN_OR_RETURN(const float residual_scale, scale(10, "input 'residual_scale' (10)"));
    ONYX_ASSIGN_OR_RETURN(const int32_t residual_zero_point, zero_point(11, "input 'residual_zero_point' (11)"));
    ONYX_ASSIGN_OR_RETURN(const float sum_scale, scale(12, "input 'sum_scale' (12)"));
    ONYX_ASSIGN_OR_RETURN(const int32_t sum_zero_point, zero_point(13, "input 'sum_zero_point' (13)"));
    const bool conv_is_a = operand == 0;
    ResidualAdd r;
    r.a_scale = conv_is_a ? conv_scale : residual_scale;
    r.a_zero_point = conv_is_a ? conv_zero_point : residual_zero_point;
    r.b_scale = conv_is_a ? residual_scale : conv_scale;
    r.b_zero_point = conv_is_a ? residual_zero_point : conv_zero_point;
    r.sum_scale = sum_scale;
    r.sum_zero_point = sum_zero_point;
    r.kernel = kernels::Int8ResidualAdd{
        kernels::MakeQLinearAddParams(r.a_scale, r.a_zero_point, r.b_scale, r.b_zero_point, sum_scale, sum_zero_point),
        conv_is_a};
    residual_ = r;
    return Status::Ok();
  }

  // out = QLinearAdd(conv, residual) of n same-shaped values of `type`, as the Add had its operands (out may be
  // conv).
  void AddSameShape(DataType type, const void* conv, const void* residual, int64_t n, void* out) const {
    const kernels::QLinearAddParams& p = residual_->kernel.params;
    const bool conv_is_a = residual_->kernel.conv_is_a;
    auto run = [&](auto* o, const auto* c, const auto* r) {
      using Q = std::remove_pointer_t<decltype(o)>;
      ParallelFor(n, 4, [&](int64_t lo, int64_t hi) {
        kernels::QLinearAddSpans<Q>(conv_is_a ? c + lo : r + lo, conv_is_a ? r + lo : c + lo, hi - lo, p, o + lo);
      });
    };
    if (type == DataType::kUint8) {
      run(static_cast<uint8_t*>(out), static_cast<const uint8_t*>(conv), static_cast<const uint8_t*>(residual));
    } else {
      run(static_cast<int8_t*>(out), static_cast<const int8_t*>(conv), static_cast<const int8_t*>(residual));
    }
  }

  // The residual add after the convolution (none without one): in place in output 0 where the shapes match, else
  // the general (broadcasting) QLinearAdd into output 0.
  Status AddResidual(KernelContext& ctx, Tensor& conv, const Tensor* residual) const {
    if (residual == nullptr) return Status::Ok();
    if (residual->type() != conv.type()) {
      return InvalidArgument("input 'residual' (9) is " + std::string(DataTypeName(residual->type())) +
                             ", the convolution's result " + std::string(DataTypeName(conv.type())));
    }
    if (residual->shape() == conv.shape()) {
      AddSameShape(conv.type(), conv.raw(), residual->raw(), conv.size(), conv.raw());
      return Status::Ok();
    }
    const ResidualAdd& r = *residual_;
    return r.kernel.conv_is_a ? QLinearAddTensors(conv, r.a_scale, r.a_zero_point, *residual, r.b_scale, r.b_zero_point,
                                                  r.sum_scale, r.sum_zero_point, ctx)
                              : QLinearAddTensors(*residual, r.a_scale, r.a_zero_point, conv, r.b_scale, r.b_zero_point,
                                                  r.sum_scale, r.sum_zero_point, ctx);
  }

  // The residual add's parameters as QLinearAdd had them (for the general, broadcasting add), and in the form onyx's
  // kernels fuse.
  struct ResidualAdd {
    float a_scale = 1, b_scale = 1, sum_scale = 1;
    int32_t a_zero_point = 0, b_zero_point = 0, sum_zero_point = 0;
    kernels::Int8ResidualAdd kernel;
  };

  struct Key {
    kernels::Int8ConvDims dims;
    bool is_signed = false;
    int threads = 1;
    bool operator==(const Key&) const = default;
  };
  nn::WindowAttrs attrs_;
  int64_t group_ = 1;
  Tensor weights_;
  std::vector<int8_t> weights_khwc_;  // weights_ as [M, KH, KW, C / group] where WeightsMayPairAcrossTaps, else empty
  std::mutex mutex_;
  static constexpr size_t kShapesKept = 8;
  std::vector<std::pair<Key, std::shared_ptr<kernels::Int8Conv>>> kept_;  // most recent first; null: direct loops
  std::shared_ptr<const Plan> plan_;                                      // guarded by mutex_
  std::optional<kernels::Int8ConvRequant> requant_;  // the constant parameters, where all are constants
  bool fused_exact_ = false;                         // oneDNN's fused requantization is exact for them
  bool fused_signed_source_ = false;
  DataType fused_output_type_ = DataType::kUint8;
  int32_t fused_x_zero_point_ = 0;
  // x's zero point where it is a constant (absent: 0): the primitives are built for it (kernels::Int8Conv::Create).
  std::optional<int32_t> constant_x_zero_point_;
  std::optional<ResidualAdd> residual_;  // with inputs 9-13
};

// com.microsoft QLinearConv with channels_last = 1 whose weights the kernel above does not take (uint8 weights,
// non-zero weight zero points, weights computed at run time): ONNX's QLinearConv kernel on the image transposed to [N,
// C, H, W], its result transposed back to [N, OH, OW, M]. Slower (two transpositions), same values.
class QLinearConvViaChannelsFirstKernel : public OpKernel {
 public:
  explicit QLinearConvViaChannelsFirstKernel(std::unique_ptr<OpKernel> inner) : inner_(std::move(inner)) {}

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() != 4 || (x->type() != DataType::kUint8 && x->type() != DataType::kInt8)) {
      return InvalidArgument("input 'x' (0) must be a uint8 or int8 [N, H, W, C] tensor, got " +
                             std::string(DataTypeName(x->type())) + " " + ShapeToString(x->shape()));
    }
    const int64_t n = x->dim(0), h = x->dim(1), w = x->dim(2), c = x->dim(3);
    Value first(Tensor::Allocate(x->type(), {n, c, h, w}));
    Transpose4(static_cast<const uint8_t*>(x->raw()), n, h * w, c, static_cast<uint8_t*>(first.tensor().raw()));
    std::vector<const Value*> ins(ctx.num_inputs(), nullptr);
    ins[0] = &first;
    for (size_t i = 1; i < ins.size(); ++i) {
      if (ctx.has_input(i)) ins[i] = &ctx.input_value(i);
    }
    std::vector<Value> outs(1);
    KernelContext inner(std::move(ins), &outs, nullptr, ctx.num_threads());
    ONYX_RETURN_IF_ERROR(inner_->Compute(inner));
    const Tensor& y = outs[0].tensor();
    const int64_t m = y.dim(1), oh = y.dim(2), ow = y.dim(3);
    Tensor& out = ctx.AllocateOutput(0, y.type(), {n, oh, ow, m});
    Transpose4(static_cast<const uint8_t*>(y.raw()), n, m, oh * ow, static_cast<uint8_t*>(out.raw()));
    return Status::Ok();
  }

 private:
  // [n, rows, cols] bytes to [n, cols, rows].
  static void Transpose4(const uint8_t* in, int64_t n, int64_t rows, int64_t cols, uint8_t* out) {
    for (int64_t b = 0; b < n; ++b) {
      const uint8_t* src = in + b * rows * cols;
      uint8_t* dst = out + b * rows * cols;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < cols; ++k) dst[k * rows + r] = src[r * cols + k];
      }
    }
  }

  std::unique_ptr<OpKernel> inner_;
};

}  // namespace

void RegisterQLinearConvNhwcOps(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, "QLinearConv", 1, kLatestVersion, MakeFactory<QLinearConvNhwcKernel>());
  // ONNX Runtime's com.microsoft QLinearConv (its NHWC transformer's output, in models its optimizer saved at level
  // all): channels last as here; with channels_last = 0, or weights this kernel does not take (it names the cause),
  // ONNX's QLinearConv, which computes the same values in [N, C, H, W].
  registry.Add(
      "com.microsoft", "QLinearConv", 1, kLatestVersion,
      [](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
        const bool last = info.GetInt("channels_last", 0) == 1;
        if (last) {
          auto nhwc = MakeFactory<QLinearConvNhwcKernel>()(info);
          if (nhwc.ok()) return nhwc;
        }
        const KernelFactory* onnx = KernelRegistry::Global().Find("", "QLinearConv", 10);
        if (onnx == nullptr) return Unsupported("no kernel for QLinearConv");
        ONYX_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, (*onnx)(info));
        if (!last) return kernel;
        return std::unique_ptr<OpKernel>(std::make_unique<QLinearConvViaChannelsFirstKernel>(std::move(kernel)));
      });
}

}  // namespace onyx::ops::quant
