// NchwcConv: a 2-D float32 convolution through oneDNN's convolution primitive, reading plain or blocked input and
// writing blocked output, with bias, an optional residual sum and an activation fused as post-ops. The weights
// are reordered into the primitive's layout once; the primitive is rebuilt only when the input shape changes. Where
// there is a choice (direct or Winograd, one thread or the session's), the first run of a shape takes it by fixed
// rules or by timing the candidates on the real input, as ONYX_TUNING says (kernels/tuning_cache.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/nchwc_ops.h"
#include "kernels/deferred_tuning.h"
#include "kernels/dnnl_util.h"
#include "kernels/nchwc_direct_conv.h"
#include "kernels/nchwc_gemm_conv.h"
#include "kernels/parallel_tasks.h"
#include "kernels/shared_weights.h"
#include "kernels/thread_buffers.h"
#include "kernels/tuning_cache.h"
#include "kernels/vector_math.h"
#include "kernels/winograd_conv.h"
#include "kernels/winograd_weights.h"
#include "ops/nchwc/dilation_phases.h"
#include "ops/nchwc/nchwc_block.h"
#include "ops/nchwc/nchwc_ops.h"
#include "ops/nn/conv_core.h"
#include "ops/nn/window.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nchwc {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
// Reordered weights, shared between kernels (kernels/shared_weights.h).
using SharedMemory = std::shared_ptr<const memory>;
using kernels::CurrentTuningMode;
using kernels::DnnlCall;
using kernels::DnnlEngine;
using kernels::DnnlStream;
using kernels::PrimitiveThreads;
using kernels::ScopedOmpThreads;
using kernels::TuningCache;
using kernels::TuningEntry;
using kernels::TuningMode;

// Between these many flops a convolution's thread count (one, or the session's) is timed where tuning is on. Above
// the band every thread pays off (32 MFLOP take >= ~100 us on one core, against ~20 us for a oneDNN parallel
// region); below it one thread does (256 KFLOP are a few us of work): there the fixed rule holds on any CPU.
constexpr int64_t kTuneThreadsFromFlops = kernels::kSmallPrimitiveFlops / 8;
constexpr int64_t kTuneThreadsBelowFlops = 16 * kernels::kSmallPrimitiveFlops;

struct Activation {
  std::string name;  // the ONNX operator's name, empty for none
  std::optional<dnnl::algorithm> alg;
  float alpha = 0;
  float beta = 0;
};

// The activation named by attribute `attr` ("activation" or "dw_activation") and its _alpha/_beta attributes.
Result<Activation> ParseActivation(const KernelInfo& info, const std::string& attr) {
  const std::string name = info.GetString(attr);
  Activation a;
  a.name = name;
  a.alpha = info.GetFloat(attr + "_alpha", 0);
  a.beta = info.GetFloat(attr + "_beta", 0);
  if (name.empty()) return a;
  if (name == "Relu") {
    a.alg = dnnl::algorithm::eltwise_relu;
    a.alpha = 0;
  } else if (name == "LeakyRelu") {
    a.alg = dnnl::algorithm::eltwise_relu;
  } else if (name == "Clip") {
    a.alg = dnnl::algorithm::eltwise_clip;
  } else if (name == "Tanh") {
    a.alg = dnnl::algorithm::eltwise_tanh;
  } else if (name == "HardSwish") {
    a.alg = dnnl::algorithm::eltwise_hardswish;  // x * relu6(x + 3) / 6, ONNX's fixed alpha 1/6 and beta 0.5
  } else if (name == "Swish") {
    a.alg = dnnl::algorithm::eltwise_swish;  // x * sigmoid(alpha x): SiLU with alpha 1
    a.alpha = 1.0f;
  } else {
    return info.Error("unknown fused activation '" + name + "'");
  }
  return a;
}

// Appends `a` (when set) to a primitive's post-ops.
void AppendActivation(dnnl::post_ops& ops, const Activation& a) {
  if (a.alg) ops.append_eltwise(1.0f, *a.alg, a.alpha, a.beta);
}

// Whether `a` is applied by onyx after a oneDNN primitive rather than as its post-op: oneDNN 2.6's swish post-op
// took ~0.25 ns per value on an AMD EPYC Zen 5 (a 112x112x32 depthwise convolution 0.115 -> 0.21 ms), its output
// swept once more by kernels::Swish ~0.15 while still in cache. Kept as a post-op only between a 1x1 convolution and
// the depthwise one oneDNN fuses after it, whose intermediate result onyx never sees.
bool AppliedAfterPrimitive(const Activation& a) { return a.name == "Swish"; }

// A forward-inference convolution descriptor, with a bias when `bias` is given.
dnnl::convolution_forward::desc InferenceConvDesc(dnnl::algorithm alg, const memory::desc& src,
                                                  const memory::desc& weights, const memory::desc* bias,
                                                  const memory::desc& dst, const memory::dims& strides,
                                                  const memory::dims& dilations, const memory::dims& pad_l,
                                                  const memory::dims& pad_r) {
  const auto kind = dnnl::prop_kind::forward_inference;
  return bias != nullptr
             ? dnnl::convolution_forward::desc(kind, alg, src, weights, *bias, dst, strides, dilations, pad_l, pad_r)
             : dnnl::convolution_forward::desc(kind, alg, src, weights, dst, strides, dilations, pad_l, pad_r);
}

// One convolution of a split choice: output channels [m0, m1) (whole blocks but the last), with its own primitive
// built for one thread and its slice of the weights (and of a fused depthwise convolution's). It reads X from
// src_offset (a depthwise one its own channels, else all of them) and writes Y from dst_offset: for one image,
// both slices are contiguous in the blocked layout.
struct SplitPart {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  SharedMemory weights;
  SharedMemory dw_weights;
  SharedMemory dw_bias;
  int64_t m0 = 0, m1 = 0;
  int64_t src_offset = 0, dst_offset = 0;  // in floats
};

// What one input shape needs: the convolution (its weights reordered for it) and, for a fused depthwise
// convolution, either its post-op arguments (dw_fused) or a primitive of its own.
struct Primitives {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
  SharedMemory weights;
  bool dw_fused = false;
  dnnl::convolution_forward::primitive_desc dw_pd;
  dnnl::convolution_forward dw_primitive;
  SharedMemory dw_weights;
  SharedMemory dw_bias;
  // Set when oneDNN has only its reference loops for this convolution in the blocked layout (e.g. its AVX2 kernels
  // decline dilations of 4 and more): the convolution then runs in the layouts oneDNN chooses (pd's src/dst
  // descriptors), with reorders from and to the blocked tensors, which keeps it ~100 times faster.
  bool relayout = false;
  memory::desc blocked_src;  // the layouts of X and Y
  memory::desc blocked_dst;
  Shape between_shape;  // set when a separate depthwise primitive reads the 1x1 result from a buffer of this shape
  int threads = 1;      // the thread count it was built for and runs with
  // oneDNN's primitives keep a Swish activation as their post-op (the `pop` candidates) instead of leaving it to
  // onyx after them (AppliedAfterPrimitive).
  bool swish_in_primitive = false;
  bool winograd = false;
  // Set when a convolution dilated along W runs undilated along W over its input's dilation phases
  // (dilation_phases.h): pd is that convolution, reading and writing phase tensors of these shapes and layouts.
  bool phases = false;
  PhaseLayout phase_in, phase_out;
  Shape phase_src_shape, phase_dst_shape;
  // Set when onyx's own Winograd convolution (kernels/winograd_conv.h) runs it instead of a oneDNN primitive.
  std::shared_ptr<const kernels::WinogradConv> own_winograd;
  kernels::WinogradConvShape own_shape;
  // Set when onyx's own direct convolution (kernels/nchwc_direct_conv.h) runs it instead of a oneDNN primitive.
  std::shared_ptr<const kernels::NchwcDirectConv> own_direct;
  // Set when onyx's convolution as a matrix product (kernels/nchwc_gemm_conv.h) runs it.
  std::shared_ptr<const kernels::NchwcGemmConv> own_gemm;
  // Set for the split choice: single-threaded convolutions over disjoint ranges of output channels, run side by side
  // (one per thread) instead of one primitive that oneDNN splits itself.
  std::vector<SplitPart> split;
};

// What decides the bytes of reordered weights besides their source (kernels/shared_weights.h).
struct ReorderKey {
  memory::dims dims;
  memory::format_tag tag;
  memory::desc layout;
  bool operator==(const ReorderKey&) const = default;
};

// What decides onyx's own Winograd convolution besides its weights' source (the bias is an initializer too).
struct OwnWinogradKey {
  int tile;
  int64_t in_channels, out_channels;
  const float* bias;
  kernels::ConvEpilogue epilogue;
  bool operator==(const OwnWinogradKey&) const = default;
};

// Whether oneDNN chose its reference implementation (plain C++ loops) for pd.
bool IsReference(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).rfind("ref:", 0) == 0;
}

// Evicts the weights `p` reads from every cache level, and the cached address translations: a timed run then starts
// as a layer's run inside a model does, whose other layers' traffic has pushed its weights out since it last ran.
// Timed on cached weights instead, the candidates of ResNet-50's late layers (7x7 maps, up to 9 MB of weights per
// convolution) ranked otherwise than in the model: on an Intel Xeon (Sapphire Rapids) onyx's direct convolution, which
// prefetches the next weights while it multiplies, ran its 512 -> 2048 1x1 convolutions 0.80 ms in the model against
// oneDNN's 0.82-0.88, yet timed 10% slower than oneDNN's on cached weights.
void EvictWeights(const Primitives& p) {
  kernels::EvictTranslations();
  auto flush = [](const SharedMemory& m) {
    if (m != nullptr) kernels::FlushFromCaches(m->get_data_handle(), m->get_desc().get_size());
  };
  flush(p.weights);
  flush(p.dw_weights);
  for (const SplitPart& part : p.split) {
    flush(part.weights);
    flush(part.dw_weights);
  }
  if (p.own_direct != nullptr) kernels::FlushFromCaches(p.own_direct->packed_data(), p.own_direct->packed_bytes());
  if (p.own_gemm != nullptr) {
    kernels::FlushFromCaches(p.own_gemm->packed_data(), p.own_gemm->packed_bytes());
  }
  if (p.own_winograd != nullptr) {
    p.own_winograd->ForEachWeightBuffer([](const float* data, size_t bytes) { kernels::FlushFromCaches(data, bytes); });
  }
}

class NchwcConvKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(block_, ParseBlock(info));
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, false));
    group_ = info.GetInt("group", 1);
    input_blocked_ = info.GetInt("input_blocked", 0) != 0;
    ONYX_ASSIGN_OR_RETURN(activation_, ParseActivation(info, "activation"));
    has_sum_ = info.has_input(3);
    const Tensor* w = info.ConstantInput(1);
    if (w == nullptr || w->type() != DataType::kFloat || w->rank() != 4) {
      return info.Error("input 'W' must be a float32 initializer of rank 4");
    }
    weights_ = *w;
    if (info.has_input(2)) {
      const Tensor* b = info.ConstantInput(2);
      if (b == nullptr || b->type() != DataType::kFloat || b->rank() != 1 || b->dim(0) != w->dim(0)) {
        return info.Error("input 'B' must be a float32 initializer of shape [" + std::to_string(w->dim(0)) + "]");
      }
      bias_ = *b;
    }
    if (group_ < 1 || w->dim(0) % group_ != 0) return info.Error("attribute 'group' does not divide W's dim 0");
    conv_weights_ = weights_;
    if (input_blocked_ && group_ == 1 && w->dim(1) < block_) PadInputChannels();
    if (info.has_input(4)) ONYX_RETURN_IF_ERROR(InitDepthwise(info));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat) return InvalidArgument("input 'X' (0) must be float32");
    // The input shape of the last run, with what it resolved to, taken without copying (no allocation per run).
    std::shared_ptr<const Prepared> prepared;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (prepared_ != nullptr && prepared_->x_shape == x->shape()) prepared = prepared_;
    }
    if (prepared == nullptr) {
      ONYX_ASSIGN_OR_RETURN(prepared, Prepare(*x, ctx.num_threads(), ctx.deferred_tuning()));
    }
    const Primitives& p = prepared->primitives;
    const Shape& y_shape = prepared->y_shape;
    const ScopedOmpThreads threads(p.threads);
    Tensor* y_out = nullptr;
    if (has_sum_) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* sum, ctx.TensorInput(3));
      if (sum->shape() != y_shape || sum->type() != DataType::kFloat) {
        return InvalidArgument("fused residual input has shape " + ShapeToString(sum->shape()) + ", expected " +
                               ShapeToString(y_shape) + " (run with graph optimization off for this model)");
      }
      // oneDNN's sum post-op adds the convolution onto what the output holds: the residual's own buffer when
      // nothing reads it afterwards, else a copy of it.
      y_out = ctx.ReuseInputAsOutput(3, 0);
      if (y_out == nullptr) {
        y_out = &ctx.AllocateOutput(0, DataType::kFloat, y_shape);
        std::memcpy(y_out->data<float>(), sum->data<float>(), y_out->nbytes());
      }
    } else {
      y_out = &ctx.AllocateOutput(0, DataType::kFloat, y_shape);
    }
    if (p.relayout) return ComputeRelayout(p, *x, *y_out);
    // The arguments built once per shape (no allocation per run) unless another run of this node holds them.
    std::unique_lock<std::mutex> args_lock(exec_mutex_, std::try_to_lock);
    ExecState local;
    ExecState& state = args_lock.owns_lock() ? exec_ : local;
    if (!args_lock.owns_lock() || exec_for_ != prepared) {
      ONYX_RETURN_IF_ERROR(PrepareExec(p, state));
      if (args_lock.owns_lock()) exec_for_ = prepared;
    }
    return Execute(p, state, *x, *y_out);
  }

 private:
  // What one input shape resolved to: the output shape and the primitives.
  struct Prepared {
    Shape x_shape;  // as given (blocked or plain)
    Shape y_shape;  // blocked
    Primitives primitives;
  };

  // Per execution: the arguments of the convolution (and of a separate depthwise one) and the buffer between the
  // two, built once per Prepared and pointed at each run's tensors.
  struct ExecState {
    kernels::DnnlArgs conv;
    kernels::DnnlArgs dw;
    std::vector<kernels::DnnlArgs> split;  // one per Primitives::split part
    std::vector<Status> split_status;
  };

  // Resolves input `x`'s shape (validates it, computes the output shape, finds or builds the primitives) and makes
  // it the one the next runs take without resolving.
  Result<std::shared_ptr<const Prepared>> Prepare(const Tensor& x, int session_threads,
                                                  kernels::DeferredTuning* deferred) {
    const int64_t channels = weights_.dim(1) * group_;
    Shape logical = x.shape();
    if (input_blocked_) {
      if (x.rank() != 5 || x.dim(4) != block_ || x.dim(1) != (channels + block_ - 1) / block_) {
        return InvalidArgument("blocked input 'X' (0) has shape " + ShapeToString(x.shape()) + ", expected [N, " +
                               std::to_string((channels + block_ - 1) / block_) + ", H, W, " + std::to_string(block_) +
                               "]");
      }
      logical = {x.dim(0), channels, x.dim(2), x.dim(3)};
    }
    ONYX_ASSIGN_OR_RETURN(nn::ConvGeometry g, nn::ResolveConv(attrs_, group_, logical, weights_.shape()));
    int64_t out_pixels = 1;
    for (size_t d = 2; d < g.out_shape.size(); ++d) out_pixels *= g.out_shape[d];
    int64_t flops = 2 * g.batch * weights_.dim(0) * out_pixels * weights_.dim(1) * weights_.dim(2) * weights_.dim(3);
    const int64_t m = weights_.dim(0);
    auto prepared = std::make_shared<Prepared>();
    prepared->x_shape = x.shape();
    Shape& y_shape = prepared->y_shape;
    y_shape = {g.batch, (m + block_ - 1) / block_, g.out_shape[2], g.out_shape[3], block_};
    if (has_dw_) {
      // 3x3, pads 1: the depthwise output has ceil(size / stride) pixels per axis.
      y_shape[2] = (g.out_shape[2] - 1) / dw_stride_ + 1;
      y_shape[3] = (g.out_shape[3] - 1) / dw_stride_ + 1;
      flops += 2 * 9 * g.batch * m * y_shape[2] * y_shape[3];
    }
    // Session::Run may be called from several threads; the primitives are built once per input shape and kept
    // for the last kShapesKept shapes (a server's dynamic batches alternate between a few batch sizes).
    std::lock_guard<std::mutex> lock(mutex_);
    if (logical != built_for_) {
      auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const auto& e) { return e.first == logical; });
      if (kept != kept_.end()) {
        built_ = kept->second;
        built_for_ = logical;
        std::rotate(kept_.begin(), kept, kept + 1);  // most recent first
      } else {
        ONYX_RETURN_IF_ERROR(Build(g, logical, y_shape, x, flops, session_threads, deferred));
        kept_.insert(kept_.begin(), {logical, built_});
        if (kept_.size() > kShapesKept) kept_.pop_back();
        DropUnusedOwnWinograd();
      }
    }
    prepared->primitives = built_;
    prepared_ = prepared;
    return std::shared_ptr<const Prepared>(std::move(prepared));
  }

  // Builds `state`'s arguments for the primitives of `p` (not a relayout one).
  Status PrepareExec(const Primitives& p, ExecState& state) const {
    if (!p.split.empty()) {
      return DnnlCall("NchwcConv", [&] {
        state.split.assign(p.split.size(), kernels::DnnlArgs());
        state.split_status.assign(p.split.size(), Status::Ok());
        for (size_t i = 0; i < p.split.size(); ++i) {
          const SplitPart& part = p.split[i];
          kernels::DnnlArgs& args = state.split[i];
          args.Add(DNNL_ARG_SRC, part.pd.src_desc());
          args.Add(DNNL_ARG_WEIGHTS, *part.weights);
          args.Add(DNNL_ARG_DST, part.pd.dst_desc());
          if (bias_.size() > 0) {
            args.Add(DNNL_ARG_BIAS, part.pd.bias_desc());
            args.Set(DNNL_ARG_BIAS, bias_.data<float>() + part.m0);
          }
          if (has_dw_) {
            args.Add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, *part.dw_weights);
            if (dw_bias_.size() > 0) args.Add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, *part.dw_bias);
          }
          args.AddThreadScratchpad(part.pd.scratchpad_desc());
        }
      });
    }
    if (p.own_direct != nullptr || p.own_gemm != nullptr) {
      state.dw.Clear();
      if (p.between_shape.empty()) return Status::Ok();
      return DnnlCall("NchwcConv", [&] { PrepareSeparateDepthwise(p, state); });
    }
    if (p.own_winograd != nullptr) return Status::Ok();
    return DnnlCall("NchwcConv", [&] {
      state.conv.Clear();
      state.dw.Clear();
      state.conv.Add(DNNL_ARG_SRC, p.pd.src_desc());
      state.conv.Add(DNNL_ARG_WEIGHTS, *p.weights);
      state.conv.Add(DNNL_ARG_DST, p.pd.dst_desc());
      if (bias_.size() > 0) {
        state.conv.Add(DNNL_ARG_BIAS, p.pd.bias_desc());
        state.conv.Set(DNNL_ARG_BIAS, bias_.data<float>());
      }
      if (p.dw_fused) {
        state.conv.Add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, *p.dw_weights);
        if (dw_bias_.size() > 0) state.conv.Add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, *p.dw_bias);
      }
      state.conv.AddThreadScratchpad(p.pd.scratchpad_desc());
      if (!p.between_shape.empty()) PrepareSeparateDepthwise(p, state);
    });
  }

  // Without the fused depthwise post-op, the 1x1 result goes through a buffer (the thread's kIntermediate) into the
  // depthwise primitive.
  void PrepareSeparateDepthwise(const Primitives& p, ExecState& state) const {
    state.dw.Add(DNNL_ARG_SRC, p.dw_pd.src_desc());
    state.dw.Add(DNNL_ARG_WEIGHTS, *p.dw_weights);
    state.dw.Add(DNNL_ARG_DST, p.dw_pd.dst_desc());
    if (dw_bias_.size() > 0) state.dw.Add(DNNL_ARG_BIAS, *p.dw_bias);
    state.dw.AddThreadScratchpad(p.dw_pd.scratchpad_desc());
  }

  // Runs the convolution of `p` (not a relayout one) on x into y (onto y's contents when a residual is summed), with
  // `state` prepared for p.
  Status Execute(const Primitives& p, ExecState& state, const Tensor& x, Tensor& y) const {
    if (!p.split.empty()) {
      // One part per thread (RunTasks splits statically); each executes on its thread's stream and scratchpad.
      kernels::RunTasks(static_cast<int64_t>(p.split.size()), p.threads, [&](int64_t i) {
        const SplitPart& part = p.split[static_cast<size_t>(i)];
        kernels::DnnlArgs& args = state.split[static_cast<size_t>(i)];
        state.split_status[static_cast<size_t>(i)] = DnnlCall("NchwcConv", [&] {
          args.Set(DNNL_ARG_SRC, x.data<float>() + part.src_offset);
          args.Set(DNNL_ARG_DST, y.data<float>() + part.dst_offset);
          args.Execute(part.primitive);
        });
      });
      for (const Status& status : state.split_status) ONYX_RETURN_IF_ERROR(status);
      // The parts ran MakeAttr(has_dw_): the activation of the output left to onyx, where it is Swish.
      ApplyAfterPrimitive(p, has_dw_ ? dw_activation_ : activation_, y.data<float>(), y.size());
      return Status::Ok();
    }
    // Temporaries come from the thread's buffers (kernels/thread_buffers.h), not from the node.
    using kernels::ThreadBufferSlot;
    using kernels::ThreadFloats;
    float* between =
        p.between_shape.empty() ? nullptr : ThreadFloats(ThreadBufferSlot::kIntermediate, NumElements(p.between_shape));
    if (p.own_winograd != nullptr) {
      float* scratch =
          ThreadFloats(ThreadBufferSlot::kKernelScratch, p.own_winograd->ScratchFloats(p.own_shape, p.threads));
      p.own_winograd->Run(p.own_shape, x.data<float>(), y.data<float>(), scratch, p.threads);
      return Status::Ok();
    }
    if (p.own_direct != nullptr || p.own_gemm != nullptr) {
      float* out = between != nullptr ? between : y.data<float>();
      if (p.own_gemm != nullptr) {
        p.own_gemm->Run(x.data<float>(), out, p.threads);
      } else {
        const int64_t scratch_floats = p.own_direct->ScratchFloats();
        float* scratch = scratch_floats > 0 ? ThreadFloats(ThreadBufferSlot::kKernelScratch, scratch_floats) : nullptr;
        p.own_direct->Run(x.data<float>(), out, scratch, p.threads);
      }
      if (between == nullptr) return Status::Ok();
      ONYX_RETURN_IF_ERROR(DnnlCall("NchwcConv", [&] {
        state.dw.Set(DNNL_ARG_SRC, between);
        state.dw.Set(DNNL_ARG_DST, y.data<float>());
        state.dw.Execute(p.dw_primitive);
      }));
      ApplyAfterPrimitive(p, dw_activation_, y.data<float>(), y.size());
      return Status::Ok();
    }
    if (p.phases) {
      float* phase_src = ThreadFloats(ThreadBufferSlot::kIntermediate, NumElements(p.phase_src_shape));
      float* phase_dst = ThreadFloats(ThreadBufferSlot::kIntermediate2, NumElements(p.phase_dst_shape));
      GatherInputPhases(p.phase_in, x.data<float>(), phase_src);
      if (has_sum_) GatherOutputPhases(p.phase_out, y.data<float>(), phase_dst);
      ONYX_RETURN_IF_ERROR(DnnlCall("NchwcConv", [&] {
        state.conv.Set(DNNL_ARG_SRC, phase_src);
        state.conv.Set(DNNL_ARG_DST, phase_dst);
        state.conv.Execute(p.primitive);
      }));
      ScatterOutputPhases(p.phase_out, phase_dst, y.data<float>());
      ApplyAfterPrimitive(p, activation_, y.data<float>(), y.size());
      return Status::Ok();
    }
    // The 1x1 convolution's activation on the buffer between it and a separate depthwise one: the convolution must
    // have finished first.
    const bool between_activation = between != nullptr && !p.swish_in_primitive && AppliedAfterPrimitive(activation_);
    ONYX_RETURN_IF_ERROR(DnnlCall("NchwcConv", [&] {
      state.conv.Set(DNNL_ARG_SRC, x.data<float>());
      state.conv.Set(DNNL_ARG_DST, between != nullptr ? between : y.data<float>());
      state.conv.Execute(p.primitive, /*wait=*/between == nullptr || between_activation);
      if (between != nullptr) {
        if (between_activation) ApplyAfterPrimitive(p, activation_, between, NumElements(p.between_shape));
        state.dw.Set(DNNL_ARG_SRC, between);
        state.dw.Set(DNNL_ARG_DST, y.data<float>());
        state.dw.Execute(p.dw_primitive);
      }
    }));
    ApplyAfterPrimitive(p, has_dw_ ? dw_activation_ : activation_, y.data<float>(), y.size());
    return Status::Ok();
  }

  // `a` over data[0, n) where AppliedAfterPrimitive(a) and p's primitives left it out, on p's threads in whole cache
  // lines. Padding channels hold zeros, which Swish keeps.
  static void ApplyAfterPrimitive(const Primitives& p, const Activation& a, float* data, int64_t n) {
    if (p.swish_in_primitive || !AppliedAfterPrimitive(a)) return;
    const int threads = p.threads;
    const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, n / 4096));
    kernels::RunTasks(parts, static_cast<int>(parts), [&](int64_t i) {
      const int64_t lo = n * i / parts / 16 * 16, hi = i + 1 == parts ? n : n * (i + 1) / parts / 16 * 16;
      kernels::Swish(data + lo, data + lo, hi - lo);
    });
  }

  // The convolution of a Primitives with relayout: X reordered into the convolution's source layout, Y's residual
  // (when summed) into its destination layout, and the result back into Y.
  Status ComputeRelayout(const Primitives& p, const Tensor& x, Tensor& y) {
    return DnnlCall("NchwcConv", [&] {
      const dnnl::engine& eng = DnnlEngine();
      dnnl::stream& stream = DnnlStream();
      memory x_mem(p.blocked_src, eng, const_cast<float*>(x.data<float>()));
      memory y_mem(p.blocked_dst, eng, y.data<float>());
      memory src(p.pd.src_desc(), eng);
      memory dst(p.pd.dst_desc(), eng);
      dnnl::reorder(x_mem, src).execute(stream, x_mem, src);
      if (has_sum_) dnnl::reorder(y_mem, dst).execute(stream, y_mem, dst);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, *p.weights}, {DNNL_ARG_DST, dst}};
      if (bias_.size() > 0) {
        args.emplace(DNNL_ARG_BIAS, memory(p.pd.bias_desc(), eng, const_cast<float*>(bias_.data<float>())));
      }
      kernels::AddThreadScratchpad(p.pd, args);
      p.primitive.execute(stream, args);
      dnnl::reorder(dst, y_mem).execute(stream, dst, y_mem);
      stream.wait();
      ApplyAfterPrimitive(p, activation_, y.data<float>(), y.size());
    });
  }

  // A blocked input of fewer channels than one block: oneDNN 2.6's JIT kernels decline it (13 channels in blocks
  // of 16, 5 in blocks of 8: reference loops, ~100 times slower) but take the whole block, whose padding channels
  // hold zeros (ir/nchwc_ops.h), against zero weights: the same result. Wider inputs with a partial last block
  // run on the JIT kernels as they are (padding them would add multiplies by zero).
  void PadInputChannels() {
    const int64_t m = weights_.dim(0), c = weights_.dim(1), taps = weights_.dim(2) * weights_.dim(3);
    const int64_t padded = (c + block_ - 1) / block_ * block_;
    conv_weights_ = Tensor::Allocate(DataType::kFloat, {m, padded, weights_.dim(2), weights_.dim(3)}, true);
    const float* from = weights_.data<float>();
    float* to = conv_weights_.data<float>();
    for (int64_t o = 0; o < m; ++o) std::memcpy(to + o * padded * taps, from + o * c * taps, c * taps * sizeof(float));
  }

  Status InitDepthwise(const KernelInfo& info) {
    const int64_t c = weights_.dim(0);
    const Tensor* dw = info.ConstantInput(4);
    if (dw == nullptr || dw->type() != DataType::kFloat || dw->shape() != Shape{c, 1, 3, 3}) {
      return info.Error("input 'DwW' must be a float32 initializer of shape [" + std::to_string(c) + ", 1, 3, 3]");
    }
    if (has_sum_ || group_ != 1 || weights_.dim(2) != 1 || weights_.dim(3) != 1) {
      return info.Error("a fused depthwise convolution follows only a 1x1 convolution without a residual sum");
    }
    dw_weights_ = *dw;
    if (info.has_input(5)) {
      const Tensor* b = info.ConstantInput(5);
      if (b == nullptr || b->type() != DataType::kFloat || b->shape() != Shape{c}) {
        return info.Error("input 'DwB' must be a float32 initializer of shape [" + std::to_string(c) + "]");
      }
      dw_bias_ = *b;
    }
    dw_stride_ = info.GetInt("dw_stride", 1);
    if (dw_stride_ != 1 && dw_stride_ != 2) return info.Error("attribute 'dw_stride' must be 1 or 2");
    ONYX_ASSIGN_OR_RETURN(dw_activation_, ParseActivation(info, "dw_activation"));
    has_dw_ = true;
    return Status::Ok();
  }

  // How one convolution is computed: oneDNN's algorithm and the thread count it is built and run with.
  struct Choice {
    bool winograd = false;
    bool phases = false;  // a W-dilated convolution over its dilation phases
    int threads = 1;
    int own_winograd = 0;     // onyx's own Winograd F(n x n, 3x3) for n = 2 or 4 (kernels/winograd_conv.h); 0: oneDNN
    bool split = false;       // `threads` one-thread direct convolutions over output-channel ranges (SplitPart)
    bool own_direct = false;  // onyx's own direct convolution (kernels/nchwc_direct_conv.h)
    // A fused depthwise convolution as a primitive of its own after the 1x1 one (through a buffer), instead of
    // oneDNN's depthwise post-op; the 1x1 one oneDNN's, or with own_direct onyx's. MobileNet-v2's 7x7 blocks (160 ->
    // 960 -> depthwise): fused 0.26 ms alone, 0.31 in the model; onyx's 1x1 (0.11) then the depthwise primitive.
    bool separate_dw = false;
    // With own_direct: its gathered order (output pixels in tiles of 6 across row ends, on a padded copy of the input).
    bool gathered = false;
    bool own_gemm = false;  // onyx's convolution as a matrix product (kernels/nchwc_gemm_conv.h)
    // oneDNN's direct convolution with its Swish post-op kept (AppliedAfterPrimitive says why onyx applies it by
    // default; which is faster depends on the CPU and on whether the output stays in cache: timed).
    bool swish_post_op = false;
    std::string Name() const {
      std::string kind = phases         ? "phases"
                         : winograd     ? "winograd"
                         : own_winograd ? "owino" + std::to_string(own_winograd)
                         : split        ? "split"
                         : gathered     ? "ogather"
                         : own_direct   ? "odirect"
                         : own_gemm     ? "ogemm"
                                        : "direct";
      if (separate_dw) kind = own_direct ? "sepodirect" : own_gemm ? "sepogemm" : "sepdw";
      if (swish_post_op) kind += "pop";
      return kind + "/t" + std::to_string(threads);
    }
    // The kind of algorithm, Name() without the thread count, the Winograd tile and the own kernel's order.
    const char* Family() const {
      return phases         ? "phases"
             : winograd     ? "winograd"
             : own_winograd ? "owino"
             : split        ? "split"
             : separate_dw  ? "sep"
             : own_direct   ? "odirect"
             : own_gemm     ? "ogemm"
                            : "direct";
    }
    bool operator==(const Choice&) const = default;
  };

  // What every candidate for one input shape shares.
  struct Setup {
    memory::dims src_dims, dst_dims, w_dims, strides, dilations, pad_l, pad_r;
    int64_t src_blocks = 0;  // the blocked input's channel blocks
    memory::desc src_md, dst_md, w_any, b_md;
    Shape y_shape;
    Shape between_shape;  // the 1x1 output before a depthwise convolution of its own
    int64_t out_pixels_2d = 0;
  };

  Setup MakeSetup(const nn::ConvGeometry& g, const Shape& logical, const Shape& y_shape) const {
    Setup s;
    const int64_t m = weights_.dim(0);
    s.src_dims.assign(logical.begin(), logical.end());
    s.src_dims[1] = conv_weights_.dim(1) * group_;  // the padded channels of PadInputChannels
    s.dst_dims = {g.batch, m, g.out_shape[2], g.out_shape[3]};
    if (group_ > 1) {
      s.w_dims = {group_, m / group_, conv_weights_.dim(1), weights_.dim(2), weights_.dim(3)};
    } else {
      s.w_dims = {m, conv_weights_.dim(1), weights_.dim(2), weights_.dim(3)};
    }
    s.src_md = memory::desc(s.src_dims, memory::data_type::f32, input_blocked_ ? BlockedTag(block_) : Tag::nchw);
    s.src_blocks = (s.src_dims[1] + block_ - 1) / block_;
    s.dst_md = memory::desc(s.dst_dims, memory::data_type::f32, BlockedTag(block_));
    s.w_any = memory::desc(s.w_dims, memory::data_type::f32, Tag::any);
    s.b_md = memory::desc({m}, memory::data_type::f32, Tag::x);
    for (const auto& a : g.axes) {
      s.strides.push_back(a.stride);
      s.dilations.push_back(a.dilation - 1);
      s.pad_l.push_back(a.pad_begin);
      s.pad_r.push_back(a.pad_end);
    }
    s.y_shape = y_shape;
    s.between_shape = {y_shape[0], y_shape[1], g.out_shape[2], g.out_shape[3], block_};
    s.out_pixels_2d = g.out_shape[2] * g.out_shape[3];
    return s;
  }

  dnnl::convolution_forward::desc MakeDesc(const Setup& s, dnnl::algorithm alg) const {
    return InferenceConvDesc(alg, s.src_md, s.w_any, bias_.size() > 0 ? &s.b_md : nullptr, s.dst_md, s.strides,
                             s.dilations, s.pad_l, s.pad_r);
  }

  // The post-ops: the residual sum, the activation (a Swish one only with `swish_in_primitive` or before a fused
  // depthwise post-op), the depthwise convolution and its activation.
  dnnl::primitive_attr MakeAttr(bool with_dw, bool swish_in_primitive = false) const {
    dnnl::post_ops ops;
    if (has_sum_) ops.append_sum(1.0f);
    if (with_dw || swish_in_primitive || !AppliedAfterPrimitive(activation_)) AppendActivation(ops, activation_);
    if (with_dw) {
      ops.append_dw(memory::data_type::f32, dw_bias_.size() > 0 ? memory::data_type::f32 : memory::data_type::undef,
                    memory::data_type::f32, 3, dw_stride_, 1, 0, {});
      if (swish_in_primitive || !AppliedAfterPrimitive(dw_activation_)) AppendActivation(ops, dw_activation_);
    }
    dnnl::primitive_attr attr = kernels::UserScratchpadAttr();
    attr.set_post_ops(ops);
    return attr;
  }

  // Whether Winograd is a candidate at all: a 3x3 stride-1 undilated convolution of one group (oneDNN may still
  // decline it for the channel counts or post-ops).
  bool WinogradShape(const Setup& s) const {
    return !has_dw_ && group_ == 1 && weights_.dim(2) == 3 && weights_.dim(3) == 3 && s.strides == memory::dims{1, 1} &&
           s.dilations == memory::dims{0, 0};
  }

  // The geometry of onyx's own Winograd convolution for `s`, where it is a candidate: a Winograd shape between blocked
  // tensors, channel counts in whole blocks, an activation it applies.
  std::optional<kernels::WinogradConvShape> OwnWinogradGeometry(const Setup& s) const {
    if (!input_blocked_ || !WinogradShape(s) || !OwnConvEpilogue()) return std::nullopt;
    kernels::WinogradConvShape shape;
    shape.block = block_;
    shape.batch = s.src_dims[0];
    shape.in_channels = s.src_dims[1];
    shape.out_channels = s.dst_dims[1];
    shape.height = s.src_dims[2];
    shape.width = s.src_dims[3];
    shape.out_height = s.dst_dims[2];
    shape.out_width = s.dst_dims[3];
    shape.pad_top = s.pad_l[0];
    shape.pad_left = s.pad_l[1];
    if (!kernels::WinogradConv::Supported(shape)) return std::nullopt;
    return shape;
  }

  // The geometry of `s` as onyx's own blocked kernels take it, where one of them may be a candidate: one group, no
  // fused depthwise convolution, an activation they apply. With `separate_dw`, the 1x1 part of a convolution with a
  // fused depthwise one (which then runs apart).
  std::optional<kernels::BlockedConvShape> OwnKernelGeometry(const Setup& s, bool separate_dw) const {
    if (group_ != 1 || (has_dw_ && !separate_dw) || !OwnConvEpilogue()) return std::nullopt;
    kernels::BlockedConvShape shape;
    shape.block = block_;
    shape.input_blocked = input_blocked_;
    shape.batch = s.src_dims[0];
    shape.in_channels = weights_.dim(1);
    shape.out_channels = s.dst_dims[1];
    shape.height = s.src_dims[2];
    shape.width = s.src_dims[3];
    shape.out_height = s.dst_dims[2];
    shape.out_width = s.dst_dims[3];
    shape.kernel_h = weights_.dim(2);
    shape.kernel_w = weights_.dim(3);
    shape.stride_h = s.strides[0];
    shape.stride_w = s.strides[1];
    shape.dilation_h = s.dilations[0] + 1;
    shape.dilation_w = s.dilations[1] + 1;
    shape.pad_top = s.pad_l[0];
    shape.pad_left = s.pad_l[1];
    return shape;
  }

  // The geometry of onyx's own direct convolution for `s`, where it is a candidate (OwnKernelGeometry's, in a geometry
  // the kernel takes: a plain input of at most 4 channels).
  std::optional<kernels::BlockedConvShape> OwnDirectGeometry(const Setup& s, bool separate_dw = false) const {
    auto shape = OwnKernelGeometry(s, separate_dw);
    if (!shape || !kernels::NchwcDirectConv::Supported(*shape)) return std::nullopt;
    return shape;
  }

  // The geometry of onyx's convolution as a matrix product for `s`, where it is a candidate (OwnKernelGeometry's,
  // between blocked tensors of 16 channels on AVX-512; where the window pads, finite weights only).
  std::optional<kernels::BlockedConvShape> OwnGemmGeometry(const Setup& s, bool separate_dw = false) const {
    auto shape = OwnKernelGeometry(s, separate_dw);
    if (!shape || !kernels::NchwcGemmConv::Supported(*shape)) return std::nullopt;
    if (kernels::WindowPads(*shape) && !WeightsFinite()) return std::nullopt;
    return shape;
  }

  // Whether every weight is finite, found once (under mutex_, as the candidates are built).
  bool WeightsFinite() const {
    if (!weights_finite_.has_value()) {
      const float* w = weights_.data<float>();
      weights_finite_ = std::all_of(w, w + weights_.size(), [](float v) { return std::isfinite(v); });
    }
    return *weights_finite_;
  }

  // The fused residual sum and activation as the epilogue of onyx's own kernels (conv_epilogue.h), if they have them.
  std::optional<kernels::ConvEpilogue> OwnConvEpilogue() const {
    using Act = kernels::ConvEpilogue::Activation;
    kernels::ConvEpilogue e;
    e.sum = has_sum_;
    if (activation_.name.empty()) return e;
    if (activation_.name == "Relu" || activation_.name == "LeakyRelu") {
      e.activation = Act::kRelu;
      e.alpha = activation_.alpha;
    } else if (activation_.name == "Clip") {
      e.activation = Act::kClip;
      e.alpha = activation_.alpha;
      e.beta = activation_.beta;
    } else if (activation_.name == "Swish") {
      e.activation = Act::kSwish;
    } else if (activation_.name == "HardSwish") {
      e.activation = Act::kHardSwish;
    } else {
      return std::nullopt;
    }
    return e;
  }

  // The own Winograd convolution of tile `tile`, its weights transformed on first use (on `threads` threads) and
  // shared by every input shape. Under mutex_.
  std::shared_ptr<const kernels::WinogradConv> OwnWinograd(int tile, int threads) {
    auto& conv = own_winograd_[tile == 2 ? 0 : 1];
    if (conv == nullptr) {
      // Shared with the nodes of the same weights, bias and epilogue (a detector's head on each pyramid level).
      static kernels::SharedWeightsCache<kernels::WinogradConv, OwnWinogradKey> cache;
      const float* bias = bias_.size() > 0 ? bias_.data<float>() : nullptr;
      const kernels::ConvEpilogue epilogue = *OwnConvEpilogue();
      const OwnWinogradKey key{tile, conv_weights_.dim(1), conv_weights_.dim(0), bias, epilogue};
      conv = cache.Get(conv_weights_.data<float>(), key, [&] {
        return std::make_shared<const kernels::WinogradConv>(tile, key.in_channels, key.out_channels,
                                                             conv_weights_.data<float>(), bias, epilogue, threads);
      });
    }
    return conv;
  }

  // Whether the dilation-phase candidate applies: a stride-1 convolution dilated along W, of blocked input and
  // output (dilation_phases.h).
  bool PhasesShape(const Setup& s) const {
    return input_blocked_ && !has_dw_ && s.strides == memory::dims{1, 1} && s.dilations[1] > 0;
  }

  // Whether this convolution is depthwise: one input and one output channel per group.
  bool Depthwise() const { return group_ > 1 && group_ == weights_.dim(0) && weights_.dim(1) == 1; }

  // Whether the split candidate applies at `session_threads` (> 1): one image (each part's slice of the blocked
  // output, and of a depthwise convolution's blocked input, is then contiguous), one group or depthwise, at least one
  // output block per thread, not a W-dilated one (those have the phase candidate). Why: one-thread convolutions over
  // parts of the output channels keep oneDNN's single-thread efficiency where its own split of a small convolution
  // loses some (measured on an AMD EPYC at 2 threads: kept for 23 of 83 shapes of ResNet-50, MobileNet-v2 and
  // SqueezeNet, e.g. MobileNet's 112x112 depthwise 0.137 -> 0.103 ms; most others within 3%).
  bool SplitShape(const Setup& s, int session_threads) const {
    return session_threads > 1 && s.src_dims[0] == 1 && (group_ == 1 || (Depthwise() && input_blocked_)) &&
           s.y_shape[1] >= session_threads && !PhasesShape(s);
  }

  // Whether oneDNN has only its reference loops for the convolution of `s` as it stands in the blocked layout.
  bool BlockedDirectIsReference(const Setup& s) const {
    bool reference = false;
    const Status status = DnnlCall("NchwcConv: querying the convolution", [&] {
      reference = IsReference(dnnl::convolution_forward::primitive_desc(
          MakeDesc(s, dnnl::algorithm::convolution_direct), MakeAttr(false), DnnlEngine()));
    });
    return status.ok() && reference;
  }

  // Whether the fixed rule takes onyx's own Winograd: 16+ channels on either side and 64+ out, at any map size.
  // Its transforms cost less than oneDNN's (WinogradByRule's pixel threshold): measured on an AMD EPYC at 1 thread,
  // SqueezeNet's 13x13 expand convs (48 -> 192, 64 -> 256) take 0.34 and 0.56 ms against 0.50 and 0.91 direct, a
  // 21x23 one of 16 -> 64 0.07 against 0.08; with fewer output channels (32x32 at 56x56, 16x16) direct wins.
  bool OwnWinogradByRule(const Setup& s) const {
    return WinogradShape(s) && std::min(weights_.dim(0), weights_.dim(1)) >= 16 && weights_.dim(0) >= 64;
  }

  // Whether the fixed rule takes onyx's own direct convolution (rows order): strided convolutions of windows larger
  // than 1x1 with 64+ output channels, in blocks of 16 (AVX-512). oneDNN 2.6's AVX-512 direct kernel runs them
  // 1.2-1.6x slower on every such shape of ResNet-50 and MobileNet-v2 timed on an AVX-512 Xeon at 1 and 2 threads
  // (the 7x7 first convolution, the stride-2 3x3 ones of 128-512 channels; the gathered order within 8% of the rows
  // one either way); its 1x1 strided ones and fewer output channels are closer or oneDNN's. In blocks of 8 (AVX2)
  // oneDNN's kernel is faster. Only the fixed rule: a tuned cache times both.
  bool OwnDirectByRule(const Setup& s) const {
    return block_ == 16 && (s.strides[0] > 1 || s.strides[1] > 1) && weights_.dim(2) * weights_.dim(3) > 1 &&
           weights_.dim(0) >= 64 && OwnDirectGeometry(s).has_value();
  }

  // Whether the fixed rule takes onyx's convolution as a matrix product: 1x1 ones of 256+ input channels (a whole K
  // block per tile call, over which its epilogue and the output's reload are spread) and 64+ output channels (whole
  // panels). Timed with cold weights on an Intel Xeon (Sapphire Rapids) at 1 thread, ResNet-50's 1x1 convolutions of
  // 256-2048 input channels ran 5-25% faster than oneDNN's and onyx's direct kernels (3% slower on one 56x56 map),
  // those of 64 and 128 input channels 3-10% slower.
  bool OwnGemmByRule(const Setup& s) const {
    return weights_.dim(0) >= 64 && weights_.dim(1) >= 256 && weights_.dim(2) * weights_.dim(3) == 1 &&
           OwnGemmGeometry(s).has_value();
  }

  // The own Winograd convolution's tile by the fixed rule: F(4x4, 3x3) multiplies least, but its GEMMs have one row
  // per tile of 4x4 outputs: with fewer than 32 such rows (ResNet-50's 14x14 and 7x7 maps) they run far from the
  // FMA peak and a partial last tile wastes up to 3/4 of a row of tiles, so F(2x2, 3x3) is faster there (measured on
  // an AMD EPYC: 14x14x256 2.1 ms against 2.4 at 1 thread; 56x56x64 1.9 against 3.1 the other way).
  int OwnWinogradTileByRule(const Setup& s) const {
    const int64_t tiles4 = s.src_dims[0] * ((s.dst_dims[2] + 3) / 4) * ((s.dst_dims[3] + 3) / 4);
    return tiles4 >= 32 ? 4 : 2;
  }

  // The fixed rule (ONYX_TUNING=off, and the choice kept where timing cannot tell the candidates apart): Winograd
  // F(2x2, 3x3) for 3x3 stride-1 convolutions where oneDNN has it (about 2.25x fewer multiplies). Its input/output
  // transforms cost in proportion to (channels in + out) x pixels and its multiplies run as small GEMMs over the
  // 2x2 tiles, so it pays off with many tiles or many channels: measured inside the whole graph on an AMD EPYC,
  // SqueezeNet's 55x55 and 27x27 expand convs (16/32 -> 64/128 channels) gain 25-35%, its 13x13 ones (48/64
  // channels) lose; ResNet-50's 14x14 and 7x7 convs (256/512) gain. On an Intel Xeon the same 3x3 convs run about
  // as fast direct, which is why the choice is timed per CPU where tuning is on.
  bool WinogradByRule(const Setup& s) const {
    const int64_t fewer_channels = std::min(weights_.dim(0), weights_.dim(1));
    return WinogradShape(s) && fewer_channels >= 16 && weights_.dim(0) >= 64 &&
           (s.out_pixels_2d >= 400 || fewer_channels >= 128);
  }

  // An activation's name in the tuning key: "Swish2" since session 46, when oneDNN's candidates began to leave
  // Swish to onyx (AppliedAfterPrimitive) and onyx's kernels got a faster one, so choices timed before are timed again.
  static std::string ActivationKey(const Activation& a) {
    if (a.name.empty()) return "none";
    return a.name == "Swish" ? "Swish2" : a.name;
  }

  // The tuning cache's key for this convolution on this input: everything that changes which candidate wins.
  std::string Signature(const Setup& s, int session_threads) const {
    auto dims = [](const memory::dims& d) {
      std::string out;
      for (size_t i = 0; i < d.size(); ++i) out += (i ? "x" : "") + std::to_string(d[i]);
      return out;
    };
    // "cold" since session 30: candidates timed with their weights evicted (EvictWeights), a key of its own so that
    // choices timed on cached weights are timed again; "cold2" since session 33, when the direct kernels began to
    // spread their weight prefetches over every tap (choices timed on the bursty kernel are timed again); "cold3"
    // since session 34, when onyx's Winograd products began to run on the packed-rows AVX-512 tile.
    std::string sig = "nchwc_conv2d_cold3 src=" + dims(s.src_dims) + (input_blocked_ ? "/blocked" : "/plain") +
                      std::to_string(block_) + " w=" + dims(s.w_dims) + " s=" + dims(s.strides) +
                      " d=" + dims(s.dilations) + " p=" + dims(s.pad_l) + "_" + dims(s.pad_r) +
                      " bias=" + std::to_string(bias_.size() > 0) + " sum=" + std::to_string(has_sum_) +
                      " act=" + ActivationKey(activation_);
    if (has_dw_) {
      sig += " dw=s" + std::to_string(dw_stride_) + "/bias" + std::to_string(dw_bias_.size() > 0) + "/" +
             ActivationKey(dw_activation_);
    }
    // Stride-1 ones dilated along W have the phase candidate since session 14: a key of their own, so that choices
    // cached before it existed are timed again.
    if (PhasesShape(s)) sig += " phases";
    // Likewise the Winograd shapes onyx's own Winograd convolution takes (session 16).
    if (OwnWinogradGeometry(s)) sig += " owino";
    // And those the split candidate takes (session 17).
    if (SplitShape(s, session_threads)) sig += " split";
    // And those onyx's own direct convolution takes (session 21), with its gathered order since session 24.
    if (OwnDirectGeometry(s)) sig += " odirect ogather";
    // And fused depthwise ones, which have the separate candidates (session 23).
    if (has_dw_) sig += OwnDirectGeometry(s, true) ? " sepdw sepodirect" : " sepdw";
    // And those onyx's convolution as a matrix product takes (session 35).
    if (OwnGemmGeometry(s) || (has_dw_ && OwnGemmGeometry(s, true))) sig += " ogemm";
    // And, with several threads, timed on buffers placed as in a model (session 37: Tune).
    if (session_threads > 1) sig += " placed";
    return sig + " threads=" + std::to_string(session_threads);
  }

  // Builds the primitives for input shape `logical` (x is the input at hand, which the timing runs on): by the
  // fixed rules, or by the candidate the tuning cache names, or by timing the candidates (kernels/tuning_cache.h):
  // at once, or with `deferred` (a session's run), after the run, by the fixed rules meanwhile. Under mutex_.
  Status Build(const nn::ConvGeometry& g, const Shape& logical, const Shape& y_shape, const Tensor& x, int64_t flops,
               int session_threads, kernels::DeferredTuning* deferred) {
    const Setup s = MakeSetup(g, logical, y_shape);
    // W-dilated convolutions the blocked JIT kernels decline run over their dilation phases by the fixed rule.
    const bool phases_shape = PhasesShape(s);
    Choice fixed{WinogradByRule(s), phases_shape && BlockedDirectIsReference(s),
                 PrimitiveThreads(flops, session_threads)};
    if (block_ == 8 && OwnWinogradByRule(s) && OwnWinogradGeometry(s)) {
      // The blocked layout of 8 channels is AVX2's, where oneDNN has no float Winograd: onyx's own.
      fixed.winograd = false;
      fixed.own_winograd = OwnWinogradTileByRule(s);
    }
    if (OwnDirectByRule(s)) fixed.own_direct = true;
    if (OwnGemmByRule(s)) fixed.own_gemm = true;
    std::vector<Choice> candidates;
    std::vector<int> thread_counts{fixed.threads};
    if (session_threads > 1 && flops >= kTuneThreadsFromFlops && flops < kTuneThreadsBelowFlops) {
      thread_counts = {1, session_threads};
    }
    for (const bool winograd : WinogradShape(s) ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      for (const int t : thread_counts) candidates.push_back({winograd, false, t});
    }
    if (phases_shape) {
      for (const int t : thread_counts) candidates.push_back({false, true, t});
    }
    if (OwnWinogradGeometry(s)) {
      for (const int tile : {2, 4}) {
        for (const int t : thread_counts) candidates.push_back({false, false, t, tile});
      }
    }
    if (SplitShape(s, session_threads) && flops >= kTuneThreadsFromFlops) {
      candidates.push_back({false, false, session_threads, 0, true});
    }
    if (OwnDirectGeometry(s)) {
      for (const bool gathered : {false, true}) {
        for (const int t : thread_counts) candidates.push_back({false, false, t, 0, false, true, false, gathered});
      }
    }
    if (OwnGemmGeometry(s)) {
      for (const int t : thread_counts) candidates.push_back({false, false, t, 0, false, false, false, false, true});
    }
    if (AppliedAfterPrimitive(activation_) || (has_dw_ && AppliedAfterPrimitive(dw_activation_))) {
      // oneDNN's direct convolution with its Swish post-op kept, beside the default that leaves it to onyx.
      for (const int t : thread_counts) {
        Choice pop;
        pop.threads = t;
        pop.swish_post_op = true;
        candidates.push_back(pop);
      }
    }
    if (has_dw_) {
      for (const int t : thread_counts) candidates.push_back({false, false, t, 0, false, false, true});
      if (OwnDirectGeometry(s, true)) {
        for (const int t : thread_counts) candidates.push_back({false, false, t, 0, false, true, true});
      }
      if (OwnGemmGeometry(s, true)) {
        for (const int t : thread_counts) candidates.push_back({false, false, t, 0, false, false, true, false, true});
      }
    }
    auto install = [&](Primitives p) {
      built_ = std::move(p);
      built_for_ = logical;
      return Status::Ok();
    };
    const TuningMode mode = CurrentTuningMode();
    if (mode == TuningMode::kOff || candidates.size() < 2) {
      ONYX_ASSIGN_OR_RETURN(Primitives p, Create(s, fixed));
      return install(std::move(p));
    }
    const auto cache = TuningCache::Process();
    const std::string signature = Signature(s, session_threads);
    if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
      auto it = std::find_if(candidates.begin(), candidates.end(),
                             [&](const Choice& c) { return c.Name() == entry->choice; });
      if (it != candidates.end()) {
        ONYX_ASSIGN_OR_RETURN(Primitives p, Create(s, *it));
        cache->NoteDecision(signature, *entry, false);
        return install(std::move(p));
      }
    }
    if (mode == TuningMode::kCache && (!cache->MissBudgetLeft() || deferred != nullptr)) {
      ONYX_ASSIGN_OR_RETURN(Primitives p, Create(s, fixed));
      ONYX_RETURN_IF_ERROR(install(std::move(p)));
      if (deferred != nullptr && cache->MissBudgetLeft()) {
        deferred->Add(signature, TuningPriority(candidates, flops),
                      [this, s, candidates, fixed, signature, logical, x_shape = x.shape(), y_shape, session_threads] {
                        return TuneDeferred(s, candidates, fixed, signature, logical, x_shape, y_shape,
                                            session_threads);
                      });
      }
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(Primitives p, Tune(s, candidates, fixed, signature, x, y_shape, session_threads));
    return install(std::move(p));
  }

  // How much timing the candidates may gain, for the order of deferred requests (kernels/deferred_tuning.h): the
  // convolution's FLOPs times the kinds of algorithm among the candidates (oneDNN's direct and Winograd, onyx's own
  // Winograd and direct, the split, the separate depthwise; thread counts and tiles of one kind count once). The
  // kinds are what moves a time most: ResNet-50's 3x3 stride-1 shapes span 1.4-2.9x between kinds, its 1x1 ones,
  // with two kinds, 1.0-1.5x (AVX-512 Xeon).
  static double TuningPriority(const std::vector<Choice>& candidates, int64_t flops) {
    std::vector<std::string_view> kinds;
    for (const Choice& c : candidates) {
      if (std::find(kinds.begin(), kinds.end(), c.Family()) == kinds.end()) kinds.push_back(c.Family());
    }
    return static_cast<double>(flops) * static_cast<double>(kinds.size());
  }

  // A deferred request (Build): makes the primitives of `logical` those of the winner from the next run on, taken
  // from the cache when another node of the same shape was timed first in this queue, else timed here while the miss
  // budget lasts. Returns whether that is another choice than the fixed rule's (the run's). Runs after the session's
  // run, so the timing input is a buffer of its own (the run's may be gone): written, not left as zero pages the kernel
  // would share, and of values that keep the results finite; the float kernels' times do not depend on the values.
  bool TuneDeferred(const Setup& s, const std::vector<Choice>& candidates, const Choice& fixed,
                    const std::string& signature, const Shape& logical, const Shape& x_shape, const Shape& y_shape,
                    int session_threads) {
    const auto cache = TuningCache::Process();
    const std::optional<TuningEntry> entry = cache->Find(signature);
    const auto named = entry ? std::find_if(candidates.begin(), candidates.end(),
                                            [&](const Choice& c) { return c.Name() == entry->choice; })
                             : candidates.end();
    if (named == candidates.end() && !cache->MissBudgetLeft()) return false;
    Tensor x;
    if (named == candidates.end()) {
      x = Tensor::Allocate(DataType::kFloat, x_shape);
      float* xd = x.data<float>();
      for (int64_t i = 0; i < x.size(); ++i) xd[i] = static_cast<float>(i % 13) * 0.125f - 0.75f;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const auto& e) { return e.first == logical; });
    if (kept == kept_.end()) return false;  // the shape was displaced by others since
    bool changed = named != candidates.end() && !(*named == fixed);
    Result<Primitives> chosen = named != candidates.end()
                                    ? Create(s, *named)
                                    : Tune(s, candidates, fixed, signature, x, y_shape, session_threads, &changed);
    if (chosen.ok()) {
      if (named != candidates.end()) cache->NoteDecision(signature, *entry, false);
      kept->second = std::move(*chosen);
      if (built_for_ == logical) built_ = kept->second;
      prepared_.reset();  // the next run resolves its shape again and finds the winner
    }
    DropUnusedOwnWinograd();
    return chosen.ok() && changed;
  }

  // A Winograd tile that was timed but lost (its transformed weights are 1.8x or 4x the plain ones) is not kept past
  // the timing; one in use stays shared with the shapes still to come. Under mutex_.
  void DropUnusedOwnWinograd() {
    for (auto& conv : own_winograd_) {
      if (conv != nullptr && conv.use_count() == 1) conv.reset();
    }
  }

  // Times `candidates` on input `x` (fixed: the fixed rule's choice, kept unless beaten by more than the noise),
  // records the winner under `signature` and returns its primitives; `changed` (optional) tells whether the winner
  // is another candidate than the fixed rule's as built (oneDNN may decline Winograd: then its direct one). The time
  // counts against the process's miss budget. Under mutex_.
  Result<Primitives> Tune(const Setup& s, const std::vector<Choice>& candidates, const Choice& fixed,
                          const std::string& signature, const Tensor& x, const Shape& y_shape, int session_threads,
                          bool* changed = nullptr) {
    if (changed != nullptr) *changed = false;
    const auto cache = TuningCache::Process();
    // Each candidate built (Winograd only where oneDNN takes it) and run on x into a scratch output.
    const auto tuning_start = std::chrono::steady_clock::now();
    struct SpendOnExit {  // counts the time against the budget however Tune leaves
      const std::shared_ptr<TuningCache>& cache;
      std::chrono::steady_clock::time_point start;
      ~SpendOnExit() {
        cache->SpendMissTime(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
    } spend{cache, tuning_start};
    std::vector<Primitives> built;
    std::vector<Choice> tried;
    Choice fixed_effective = fixed;
    for (const Choice& c : candidates) {
      auto p = Create(s, c);
      if (!p.ok()) return p.status();
      if ((c.winograd && !p->winograd) || (c.phases && !p->phases) || (c.split && p->split.empty())) {
        if (c == fixed) fixed_effective.winograd = fixed_effective.phases = false;  // declined: the direct one
        continue;
      }
      built.push_back(std::move(*p));
      tried.push_back(c);
    }
    if (tried.size() < 2) return Create(s, fixed_effective);
    Tensor scratch = Tensor::Allocate(DataType::kFloat, y_shape, true);
    std::vector<int> thread_counts_tried;
    for (const Choice& c : tried) thread_counts_tried.push_back(c.threads);
    // With several threads, every candidate (one-thread ones too) runs on a copy of x and into an output that the
    // session's threads rewrite before each run, spread over their caches as in a model (kernels::PlaceAsWrittenBy).
    Tensor placed = x;
    if (session_threads > 1) {
      placed = Tensor::Allocate(x.type(), x.shape());
      kernels::PlaceAsWrittenBy(placed.raw(), x.raw(), x.nbytes(), session_threads);  // x's values for the warm-up run
    }
    // Each candidate's arguments and buffers prepared before timing, as a run finds them (ExecState is kept).
    std::vector<ExecState> states(tried.size());
    for (size_t i = 0; i < tried.size(); ++i) {
      if (!built[i].relayout) ONYX_RETURN_IF_ERROR(PrepareExec(built[i], states[i]));
    }
    const std::vector<double> ms = kernels::TimeCandidates(
        tried.size(),
        [&](size_t i) {
          const ScopedOmpThreads threads(tried[i].threads);
          if (built[i].relayout) return ComputeRelayout(built[i], placed, scratch);
          return Execute(built[i], states[i], placed, scratch);
        },
        thread_counts_tried, 20, 5,
        [&](size_t i) {
          EvictWeights(built[i]);
          if (session_threads > 1) {
            kernels::PlaceAsWrittenBy(placed.raw(), x.raw(), x.nbytes(), session_threads);
            kernels::PlaceAsWrittenBy(scratch.raw(), nullptr, scratch.nbytes(), session_threads);
          }
        });
    if (!std::all_of(ms.begin(), ms.end(), [](double t) { return std::isfinite(t); })) {
      // Some candidate never ran undisturbed (another process held a CPU): nothing trustworthy to record; the
      // fixed rule for now, and a later session measures again.
      return Create(s, fixed_effective);
    }
    const auto fixed_at = std::find(tried.begin(), tried.end(), fixed_effective);
    const size_t pick = kernels::PickFastest(ms, static_cast<size_t>(fixed_at - tried.begin()));
    if (changed != nullptr) *changed = !(tried[pick] == fixed_effective);
    TuningEntry entry{tried[pick].Name(), {}};
    for (size_t i = 0; i < tried.size(); ++i) entry.times.push_back({tried[i].Name(), ms[i]});
    (void)cache->Record(signature, entry);  // a cache that cannot be written was warned about; the run goes on
    cache->NoteDecision(signature, entry, true);
    return std::move(built[pick]);
  }

  // The kernel (member `kernel` of a kept shape's primitives, most recent first) whose packed weights a kernel for
  // `geometry` can share: the same node at another image size packs its weights the same way. Under mutex_.
  template <class Kernel>
  const Kernel* KeptPacking(std::shared_ptr<const Kernel> Primitives::*kernel,
                            const kernels::BlockedConvShape& geometry) const {
    for (const auto& [shape, kept] : kept_) {
      const Kernel* own = (kept.*kernel).get();
      if (own != nullptr && own->SharesPacking(geometry)) return own;
    }
    return nullptr;
  }

  // The primitives of candidate `c` for setup `s`, built with c's thread count (oneDNN sizes its work split by the
  // threads in force at creation). Reordered weights are shared (Reordered) with the candidates and shapes of this node
  // and with other nodes of the same initializer.
  Result<Primitives> Create(const Setup& s, const Choice& c) {
    const ScopedOmpThreads threads(c.threads);
    Primitives p;
    p.threads = c.threads;
    p.swish_in_primitive = c.swish_post_op;
    if (c.own_winograd != 0) {
      p.own_winograd = OwnWinograd(c.own_winograd, c.threads);
      p.own_shape = *OwnWinogradGeometry(s);
      return p;
    }
    if (c.split) {
      ONYX_RETURN_IF_ERROR(CreateSplit(s, c.threads, p));
      return p;
    }
    if (c.own_direct || c.own_gemm) {
      const float* bias = bias_.size() > 0 ? bias_.data<float>() : nullptr;
      if (c.own_gemm) {
        const kernels::BlockedConvShape geometry = *OwnGemmGeometry(s, c.separate_dw);
        if (const kernels::NchwcGemmConv* like = KeptPacking(&Primitives::own_gemm, geometry)) {
          ONYX_ASSIGN_OR_RETURN(p.own_gemm,
                                kernels::NchwcGemmConv::SharingWeights(geometry, *like, bias, *OwnConvEpilogue()));
        } else {
          p.own_gemm = std::make_shared<const kernels::NchwcGemmConv>(geometry, weights_.data<float>(), bias,
                                                                      *OwnConvEpilogue());
        }
      } else {
        const kernels::BlockedConvShape geometry = *OwnDirectGeometry(s, c.separate_dw);
        const auto order =
            c.gathered ? kernels::NchwcDirectConv::Order::kGathered : kernels::NchwcDirectConv::Order::kRows;
        if (const kernels::NchwcDirectConv* like = KeptPacking(&Primitives::own_direct, geometry)) {
          ONYX_ASSIGN_OR_RETURN(
              p.own_direct, kernels::NchwcDirectConv::SharingWeights(geometry, *like, bias, *OwnConvEpilogue(), order));
        } else {
          p.own_direct = std::make_shared<const kernels::NchwcDirectConv>(geometry, weights_.data<float>(), bias,
                                                                          *OwnConvEpilogue(), order);
        }
      }
      if (c.separate_dw) {
        ONYX_RETURN_IF_ERROR(DnnlCall("NchwcConv: creating the depthwise convolution", [&] {
          BuildSeparateDepthwise(p, s.dst_dims, s.y_shape);
          p.between_shape = s.between_shape;
        }));
      }
      return p;
    }
    ONYX_RETURN_IF_ERROR(DnnlCall("NchwcConv: creating the convolution", [&] {
      const int64_t m = weights_.dim(0);
      if (has_dw_) {
        // The depthwise post-op where oneDNN fuses it into this 1x1 convolution with the output ONNX defines (and
        // the candidate is not the separate one); otherwise a depthwise primitive of its own runs after it.
        p.dw_fused = false;
        if (!c.separate_dw) {
          try {
            p.pd = dnnl::convolution_forward::primitive_desc(MakeDesc(s, dnnl::algorithm::convolution_direct),
                                                             MakeAttr(true, c.swish_post_op), DnnlEngine());
            p.dw_fused = p.pd.dst_desc().dims() == memory::dims{s.y_shape[0], m, s.y_shape[2], s.y_shape[3]};
          } catch (const dnnl::error&) {
            p.dw_fused = false;
          }
        }
        if (!p.dw_fused) {
          BuildSeparateDepthwise(p, s.dst_dims, s.y_shape);
          p.between_shape = s.between_shape;
        }
      }
      if (c.phases) BuildPhases(s, p);
      if ((!has_dw_ || !p.dw_fused) && !p.phases) {
        // Winograd where chosen and oneDNN takes it for this shape and these post-ops; direct otherwise.
        bool built = false;
        if (c.winograd) {
          try {
            p.pd = dnnl::convolution_forward::primitive_desc(MakeDesc(s, dnnl::algorithm::convolution_winograd),
                                                             MakeAttr(false, c.swish_post_op), DnnlEngine());
            built = true;
          } catch (const dnnl::error&) {
            built = false;
          }
        }
        p.winograd = built;
        if (!built) {
          p.pd = dnnl::convolution_forward::primitive_desc(MakeDesc(s, dnnl::algorithm::convolution_direct),
                                                           MakeAttr(false, c.swish_post_op), DnnlEngine());
        }
        if (IsReference(p.pd)) {
          // Let oneDNN choose the layouts (its GEMM-based convolution, say); keep that unless it is the reference too.
          const memory::desc src_any(s.src_dims, memory::data_type::f32, Tag::any);
          const memory::desc dst_any(s.dst_dims, memory::data_type::f32, Tag::any);
          const auto desc = InferenceConvDesc(dnnl::algorithm::convolution_direct, src_any, s.w_any,
                                              bias_.size() > 0 ? &s.b_md : nullptr, dst_any, s.strides, s.dilations,
                                              s.pad_l, s.pad_r);
          dnnl::convolution_forward::primitive_desc any_pd(desc, MakeAttr(false, c.swish_post_op), DnnlEngine(), true);
          if (any_pd && !IsReference(any_pd)) {
            p.pd = any_pd;
            p.relayout = true;
            p.blocked_src = s.src_md;
            p.blocked_dst = s.dst_md;
          }
        }
      }
      p.primitive = dnnl::convolution_forward(p.pd);
      p.weights = Reordered(conv_weights_, s.w_dims, group_ > 1 ? Tag::goihw : Tag::oihw, p.pd.weights_desc());
      if (p.dw_fused) {
        const memory::dims dw_dims{m, 1, 1, 3, 3};
        p.dw_weights = Reordered(dw_weights_, dw_dims, Tag::goihw,
                                 p.pd.query_md(dnnl::query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS));
        if (dw_bias_.size() > 0) {
          p.dw_bias = Reordered(dw_bias_, {m}, Tag::x,
                                p.pd.query_md(dnnl::query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS));
        }
      }
    }));
    return p;
  }

  // The parts of the split choice for `s` over `parts` threads (Primitives::split), each built for one thread; none
  // where oneDNN has only its reference loops for a part or does not fuse its depthwise convolution.
  Status CreateSplit(const Setup& s, int parts, Primitives& p) const {
    const ScopedOmpThreads one(1);
    const int64_t m = weights_.dim(0), blocks = s.y_shape[1];
    const int64_t taps = conv_weights_.dim(1) * weights_.dim(2) * weights_.dim(3);
    const bool depthwise = Depthwise();
    std::vector<SplitPart> built;
    const Status status = DnnlCall("NchwcConv: creating the split convolutions", [&] {
      for (int64_t j = 0; j < parts; ++j) {
        SplitPart part;
        const int64_t b0 = blocks * j / parts, b1 = blocks * (j + 1) / parts;
        part.m0 = b0 * block_;
        part.m1 = std::min(m, b1 * block_);
        const int64_t mj = part.m1 - part.m0;
        memory::dims src_dims = s.src_dims, w_dims{mj, conv_weights_.dim(1), weights_.dim(2), weights_.dim(3)};
        if (depthwise) {
          src_dims[1] = mj;
          w_dims = {mj, 1, 1, weights_.dim(2), weights_.dim(3)};
          part.src_offset = b0 * s.src_dims[2] * s.src_dims[3] * block_;
        }
        const memory::dims dst_dims{1, mj, s.dst_dims[2], s.dst_dims[3]};
        part.dst_offset = b0 * s.y_shape[2] * s.y_shape[3] * block_;
        const memory::desc src_md =
            depthwise ? memory::desc(src_dims, memory::data_type::f32, BlockedTag(block_)) : s.src_md;
        const memory::desc dst_md(dst_dims, memory::data_type::f32, BlockedTag(block_));
        const memory::desc w_any(w_dims, memory::data_type::f32, Tag::any);
        const memory::desc b_md({mj}, memory::data_type::f32, Tag::x);
        const auto desc =
            InferenceConvDesc(dnnl::algorithm::convolution_direct, src_md, w_any, bias_.size() > 0 ? &b_md : nullptr,
                              dst_md, s.strides, s.dilations, s.pad_l, s.pad_r);
        part.pd = dnnl::convolution_forward::primitive_desc(desc, MakeAttr(has_dw_), DnnlEngine());
        if (IsReference(part.pd)) return;
        if (has_dw_ && part.pd.dst_desc().dims() != memory::dims{1, mj, s.y_shape[2], s.y_shape[3]}) return;
        part.primitive = dnnl::convolution_forward(part.pd);
        part.weights = Reordered(conv_weights_.data<float>() + part.m0 * taps, w_dims,
                                 depthwise ? Tag::goihw : Tag::oihw, part.pd.weights_desc());
        if (has_dw_) {
          const memory::dims dw_dims{mj, 1, 1, 3, 3};
          part.dw_weights =
              Reordered(dw_weights_.data<float>() + part.m0 * 9, dw_dims, Tag::goihw,
                        part.pd.query_md(dnnl::query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS));
          if (dw_bias_.size() > 0) {
            part.dw_bias =
                Reordered(dw_bias_.data<float>() + part.m0, {mj}, Tag::x,
                          part.pd.query_md(dnnl::query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS));
          }
        }
        built.push_back(std::move(part));
      }
    });
    ONYX_RETURN_IF_ERROR(status);
    if (built.size() == static_cast<size_t>(parts)) p.split = std::move(built);
    return Status::Ok();
  }

  // The convolution of `s` undilated along W over the horizontal dilation phases of its input
  // (dilation_phases.h), into p.pd, when oneDNN has a JIT kernel for that; p.phases says whether it was built.
  // Inside DnnlCall.
  void BuildPhases(const Setup& s, Primitives& p) const {
    PhaseLayout in = MakePhaseLayout(s.src_dims[3], s.dst_dims[3], weights_.dim(3), s.dilations[1] + 1, s.pad_l[1]);
    in.block = block_;
    PhaseLayout out = in;
    in.images = s.src_dims[0] * s.src_blocks;
    in.rows = s.src_dims[2];
    out.images = s.dst_dims[0] * s.y_shape[1];
    out.rows = s.dst_dims[2];
    const memory::dims src{s.src_dims[0], s.src_dims[1], s.src_dims[2], in.PhaseInWidth()};
    const memory::dims dst{s.dst_dims[0], s.dst_dims[1], s.dst_dims[2], in.PhaseOutWidth()};
    const memory::desc src_md(src, memory::data_type::f32, BlockedTag(block_));
    const memory::desc dst_md(dst, memory::data_type::f32, BlockedTag(block_));
    const auto desc =
        InferenceConvDesc(dnnl::algorithm::convolution_direct, src_md, s.w_any, bias_.size() > 0 ? &s.b_md : nullptr,
                          dst_md, s.strides, {s.dilations[0], 0}, {s.pad_l[0], 0}, {s.pad_r[0], 0});
    auto pd = dnnl::convolution_forward::primitive_desc(desc, MakeAttr(false), DnnlEngine());
    if (IsReference(pd)) return;
    p.pd = pd;
    p.phases = true;
    p.phase_in = in;
    p.phase_out = out;
    p.phase_src_shape = {s.src_dims[0], s.src_blocks, s.src_dims[2], in.PhaseInWidth(), block_};
    p.phase_dst_shape = {s.dst_dims[0], s.y_shape[1], s.dst_dims[2], in.PhaseOutWidth(), block_};
  }

  // The depthwise convolution as a primitive of its own, reading the 1x1 convolution's blocked output.
  void BuildSeparateDepthwise(Primitives& p, const memory::dims& between_dims, const Shape& y_shape) {
    // (p.swish_in_primitive: the `pop` candidate, whose fused depthwise post-op oneDNN declined.)
    const int64_t m = weights_.dim(0);
    const memory::desc src_md(between_dims, memory::data_type::f32, BlockedTag(block_));
    const memory::desc dst_md({y_shape[0], m, y_shape[2], y_shape[3]}, memory::data_type::f32, BlockedTag(block_));
    const memory::dims dw_dims{m, 1, 1, 3, 3};
    const memory::desc w_any(dw_dims, memory::data_type::f32, Tag::any);
    const memory::dims strides{dw_stride_, dw_stride_}, dilations{0, 0}, pads{1, 1};
    dnnl::post_ops ops;
    if (p.swish_in_primitive || !AppliedAfterPrimitive(dw_activation_)) AppendActivation(ops, dw_activation_);
    dnnl::primitive_attr attr = kernels::UserScratchpadAttr();
    attr.set_post_ops(ops);
    const memory::desc b_md({m}, memory::data_type::f32, Tag::x);
    const auto desc = InferenceConvDesc(dnnl::algorithm::convolution_direct, src_md, w_any,
                                        dw_bias_.size() > 0 ? &b_md : nullptr, dst_md, strides, dilations, pads, pads);
    p.dw_pd = dnnl::convolution_forward::primitive_desc(desc, attr, DnnlEngine());
    p.dw_primitive = dnnl::convolution_forward(p.dw_pd);
    p.dw_weights = Reordered(dw_weights_, dw_dims, Tag::goihw, p.dw_pd.weights_desc());
    if (dw_bias_.size() > 0) p.dw_bias = Reordered(dw_bias_, {m}, Tag::x, p.dw_pd.bias_desc());
  }

  // `t` (plain, `dims` in `tag`) copied into oneDNN memory of layout `md`: the copy another kernel (or shape, or
  // candidate) made of the same bytes for the same layout while one still holds it, else a new one.
  static SharedMemory Reordered(const Tensor& t, const memory::dims& dims, Tag tag, const memory::desc& md) {
    return Reordered(t.data<float>(), dims, tag, md);
  }
  static SharedMemory Reordered(const float* data, const memory::dims& dims, Tag tag, const memory::desc& md) {
    static kernels::SharedWeightsCache<memory, ReorderKey> cache;
    return cache.Get(data, ReorderKey{dims, tag, md},
                     [&] { return std::make_shared<const memory>(NewReordered(data, dims, tag, md)); });
  }
  static memory NewReordered(const float* data, const memory::dims& dims, Tag tag, const memory::desc& md) {
    memory out(md, DnnlEngine());
    // Winograd weights: the same bytes as oneDNN's reorder, ~10x faster (kernels/winograd_weights.h).
    if (tag == Tag::oihw && dims.size() == 4 && dims[2] == 3 && dims[3] == 3 &&
        kernels::TransformWinogradWeights(data, dims[0], dims[1], md, static_cast<float*>(out.get_data_handle()))) {
      return out;
    }
    const memory::desc plain(dims, memory::data_type::f32, tag);
    memory src(plain, DnnlEngine(), const_cast<float*>(data));
    dnnl::reorder(src, out).execute(DnnlStream(), src, out);
    DnnlStream().wait();
    return out;
  }

  nn::WindowAttrs attrs_;
  int block_ = ir::nchwc::kDefaultBlock;
  int64_t group_ = 1;
  bool input_blocked_ = false;
  bool has_sum_ = false;
  mutable std::optional<bool> weights_finite_;  // WeightsFinite()'s answer once known
  Activation activation_;
  Tensor weights_;
  Tensor conv_weights_;  // what oneDNN convolves with: weights_, or weights_ zero-padded by PadInputChannels
  Tensor bias_;
  std::shared_ptr<const kernels::WinogradConv> own_winograd_[2];  // F(2x2, 3x3) and F(4x4, 3x3), built when tried
  bool has_dw_ = false;
  Tensor dw_weights_;
  Tensor dw_bias_;
  int64_t dw_stride_ = 1;
  Activation dw_activation_;
  std::mutex mutex_;                          // guards prepared_, built_for_, built_ and kept_
  std::shared_ptr<const Prepared> prepared_;  // the last input shape's
  std::mutex exec_mutex_;                     // guards exec_ and exec_for_
  ExecState exec_;
  std::shared_ptr<const Prepared> exec_for_;  // what exec_ was prepared for
  Shape built_for_;
  Primitives built_;
  static constexpr size_t kShapesKept = 8;
  std::vector<std::pair<Shape, Primitives>> kept_;  // built_ among them, most recent first
};

}  // namespace

void RegisterNchwcConv(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, kConv, 1, 1, MakeFactory<NchwcConvKernel>());
}

}  // namespace onyx::ops::nchwc
