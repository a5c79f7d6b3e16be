// ConvTranspose: the adjoint of Conv. Per image and group one GEMM (W_group^T x X_group) gives every kernel tap's
// contribution, and col2im adds them into the output positions they map to.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/parallel_tasks.h"
#include "kernels/thread_buffers.h"
#include "ops/common/parallel.h"
#include "ops/nn/conv_transpose_ort_order.h"
#include "ops/nn/gemm_kernel.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

// Floor division, as ONNX's reference splits a (possibly negative) total padding.
int64_t FloorHalf(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

class ConvTransposeKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(attrs_.Parse(info, false));
    ort_order_ = info.ort_summation_order();
    group_ = info.GetInt("group", 1);
    if (group_ < 1) return info.Error("attribute 'group' must be >= 1, got " + std::to_string(group_));
    output_padding_ = info.GetInts("output_padding");
    output_shape_ = info.GetInts("output_shape");
    for (int64_t v : output_padding_) {
      if (v < 0) return info.Error("attribute 'output_padding' must not be negative");
    }
    for (int64_t v : output_shape_) {
      if (v < 0) return info.Error("attribute 'output_shape' must not be negative");
    }
    const Tensor* w = info.ConstantInput(1);
    if (ort_order_ && w != nullptr && w->type() == DataType::kFloat && w->rank() >= 3 && w->dim(0) % group_ == 0) {
      // ONNX Runtime transposes a constant W once (PrePack), which changes how MLAS sums the products.
      const int64_t cg = w->dim(0) / group_;
      const int64_t kernel_dim = w->size() / std::max<int64_t>(w->dim(0), 1);
      if (OrtTransposesFilter(cg, kernel_dim)) {
        w_transposed_ = TransposeFilterPerGroup(w->data<float>(), group_, cg, kernel_dim);
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, OptionalTensorInput(ctx, 2));
    const Shape& xs = x->shape();
    const Shape& ws = w->shape();
    if (xs.size() < 3) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(xs) + ", expected [N, C, D1, ...]");
    }
    if (ws.size() != xs.size()) {
      return InvalidArgument("input 'W' (1) has shape " + ShapeToString(ws) + ", expected rank " +
                             std::to_string(xs.size()));
    }
    if (w->type() != x->type() || (b != nullptr && b->type() != x->type())) {
      return InvalidArgument("inputs X, W and B must have the same element type");
    }
    const size_t nd = xs.size() - 2;
    const int64_t batch = xs[0], channels = xs[1];
    if (ws[0] != channels || channels % group_ != 0) {
      return InvalidArgument("input 'W' (1) has shape " + ShapeToString(ws) + ": dim 0 must equal X's channels " +
                             std::to_string(channels) + ", divisible by group " + std::to_string(group_));
    }
    const int64_t cg = channels / group_;
    const int64_t mg = ws[1];
    const int64_t out_channels = mg * group_;
    if (b != nullptr && (b->rank() != 1 || b->dim(0) != out_channels)) {
      return InvalidArgument("input 'B' (2) has shape " + ShapeToString(b->shape()) + ", expected [" +
                             std::to_string(out_channels) + "]");
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<WindowAxis> axes, ResolveAxes(xs, ws, nd));

    Shape out_shape = {batch, out_channels};
    for (const auto& a : axes) out_shape.push_back(a.in);
    Tensor& y = ctx.AllocateOutput(0, x->type(), out_shape);
    if (ort_order_ && x->type() == DataType::kFloat && nd <= 3) {
      // ONNX Runtime's order (MLAS's GEMM of W^T by X, col2im, bias last), for outputs bit-identical to its own.
      ConvTransposeGeometry g;
      g.batch = batch, g.in_channels = channels, g.out_channels = out_channels, g.group = group_;
      g.axes = std::move(axes);
      // A session constant is the input at every run (no feed overrides it).
      const float* wt = w_transposed_.size() == static_cast<size_t>(w->size()) ? w_transposed_.data() : nullptr;
      RunConvTransposeOrtOrder(g, x->data<float>(), w->data<float>(), wt, b != nullptr ? b->data<float>() : nullptr,
                               y.data<float>(), ctx.num_threads());
      return Status::Ok();
    }
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      ComputeView<T> xv(*x);
      ComputeView<T> wv(*w);
      ComputeOutput<T> yv(y);
      CT* out = yv.data();
      const int64_t in_size = OutputSize(axes);  // X's spatial size: the "output" side of the patch walk
      const int64_t out_size = InputSize(axes);
      const int64_t kernel_size = KernelSize(axes);
      const int64_t rows = mg * kernel_size;
      std::optional<ComputeView<T>> bv;
      if (b != nullptr) bv.emplace(*b);
      // Each (image, group) on its own: the output channels start at their bias (one pass over Y instead of a fill
      // and a bias pass), then one GEMM gives every tap's contribution and col2im adds them. Images and groups run
      // side by side on the threads, each GEMM on one (Mask R-CNN's mask head, 100 images of 256 x 14 x 14, took
      // 216 ms on one thread as a series of threaded GEMMs; ONNX Runtime 128 ms).
      const int64_t tasks = batch * group_;
      const int64_t chunks = std::min<int64_t>(tasks, std::max(ctx.num_threads(), 1));
      const kernels::ScopedOmpThreads gemm_threads(chunks > 1 ? 1 : ctx.num_threads());
      kernels::RunTasks(chunks, static_cast<int>(chunks), [&](int64_t chunk) {
        // The chunk's taps, in the thread's reused buffer: a vector per run was a large allocation whose release
        // (munmap) cost TLB shootdowns on every CPU, making a 3-D ConvTranspose slower on 2 threads than on 1.
        CT* cols = static_cast<CT*>(kernels::ThreadBuffer(kernels::ThreadBufferSlot::kIntermediate,
                                                          static_cast<size_t>(rows * in_size) * sizeof(CT)));
        for (int64_t task = chunk * tasks / chunks; task < (chunk + 1) * tasks / chunks; ++task) {
          const int64_t n = task / group_, g = task % group_;
          CT* yg = out + (n * out_channels + g * mg) * out_size;
          for (int64_t m = 0; m < mg; ++m) {
            std::fill(yg + m * out_size, yg + (m + 1) * out_size, bv ? bv->data()[g * mg + m] : CT(0));
          }
          const CT* xg = xv.data() + (n * channels + g * cg) * in_size;
          const CT* wg = wv.data() + g * cg * rows;
          Gemm<CT>(true, false, rows, in_size, cg, CT(1), wg, rows, xg, in_size, CT(0), cols, in_size);
          if (chunks > 1) {
            Col2ImAdd(axes, cols, mg, yg);
          } else {  // one (image, group): its output channels over the threads (each adds into its own plane only)
            ParallelFor(mg, kernel_size * in_size, [&](int64_t m0, int64_t m1) {
              Col2ImAdd(axes, cols + m0 * kernel_size * in_size, m1 - m0, yg + m0 * out_size);
            });
          }
        }
      });
      yv.Finish();
      return Status::Ok();
    });
  }

 private:
  // Axes seen from the output: `in` is the output size, `out` the input size (output = input * stride - pads...).
  Result<std::vector<WindowAxis>> ResolveAxes(const Shape& xs, const Shape& ws, size_t nd) const {
    auto check_size = [&](const std::vector<int64_t>& v, size_t want, const char* name) -> Status {
      if (!v.empty() && v.size() != want) {
        return InvalidArgument(std::string("attribute '") + name + "' " + ShapeToString(v) + " should have " +
                               std::to_string(want) + " values for X " + ShapeToString(xs));
      }
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_size(attrs_.kernel_shape, nd, "kernel_shape"));
    ONYX_RETURN_IF_ERROR(check_size(attrs_.strides, nd, "strides"));
    ONYX_RETURN_IF_ERROR(check_size(attrs_.dilations, nd, "dilations"));
    ONYX_RETURN_IF_ERROR(check_size(attrs_.pads, 2 * nd, "pads"));
    ONYX_RETURN_IF_ERROR(check_size(output_padding_, nd, "output_padding"));
    std::vector<int64_t> target = output_shape_;
    if (target.size() == nd + 2) target.erase(target.begin(), target.begin() + 2);  // given as a full shape
    ONYX_RETURN_IF_ERROR(check_size(target, nd, "output_shape"));

    std::vector<WindowAxis> axes(nd);
    for (size_t i = 0; i < nd; ++i) {
      WindowAxis& a = axes[i];
      a.out = xs[i + 2];
      a.kernel = ws[i + 2];
      if (!attrs_.kernel_shape.empty() && attrs_.kernel_shape[i] != a.kernel) {
        return InvalidArgument("attribute 'kernel_shape' " + ShapeToString(attrs_.kernel_shape) +
                               " differs from the weights' spatial shape");
      }
      a.stride = attrs_.strides.empty() ? 1 : attrs_.strides[i];
      a.dilation = attrs_.dilations.empty() ? 1 : attrs_.dilations[i];
      const int64_t out_pad = output_padding_.empty() ? 0 : output_padding_[i];
      const int64_t full = a.stride * (a.out - 1) + out_pad + (a.kernel - 1) * a.dilation + 1;
      const bool same = attrs_.auto_pad == AutoPad::kSameUpper || attrs_.auto_pad == AutoPad::kSameLower;
      if (!target.empty() || same) {
        a.in = !target.empty() ? target[i] : a.out * a.stride;
        const int64_t total = full - a.in;
        if (attrs_.auto_pad == AutoPad::kSameUpper) {
          a.pad_begin = FloorHalf(total);
          a.pad_end = total - a.pad_begin;
        } else {
          a.pad_end = FloorHalf(total);
          a.pad_begin = total - a.pad_end;
        }
      } else {
        if (attrs_.auto_pad == AutoPad::kNotSet && !attrs_.pads.empty()) {
          a.pad_begin = attrs_.pads[i];
          a.pad_end = attrs_.pads[i + nd];
        }
        a.in = full - a.pad_begin - a.pad_end;
        if (a.in < 0) {
          return InvalidArgument("pads " + ShapeToString(attrs_.pads) + " leave a negative output size on axis " +
                                 std::to_string(i));
        }
      }
    }
    return axes;
  }

  WindowAttrs attrs_;
  int64_t group_ = 1;
  bool ort_order_ = false;  // KernelInfo::ort_summation_order
  // Under ort_order_, a constant W transposed per group as ONNX Runtime's PrePack does (empty when it does not).
  std::vector<float> w_transposed_;
  std::vector<int64_t> output_padding_;
  std::vector<int64_t> output_shape_;
};

}  // namespace

void RegisterConvTransposeOps(KernelRegistry& registry) {
  registry.Add("", "ConvTranspose", 1, kLatestVersion, MakeFactory<ConvTransposeKernel>());
}

}  // namespace onyx::ops::nn
