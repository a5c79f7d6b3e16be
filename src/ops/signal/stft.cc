// STFT: short-time Fourier transform. Frames of frame_length samples start every frame_step samples along the
// signal axis of a [batch, signal_length, 1 or 2] input; each frame is multiplied by the window (rectangular when
// none is given) and transformed, giving [batch, frames, bins, 2] with frames = 1 + (signal_length - frame_length)
// / frame_step and bins = frame_length / 2 + 1 when onesided (the default), frame_length otherwise.
#include <vector>

#include "ops/signal/fft.h"
#include "ops/signal/signal.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::signal_ops {
namespace {

class StftKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const int64_t onesided = info.GetInt("onesided", 1);
    if (onesided != 0 && onesided != 1) {
      return info.Error("attribute 'onesided' is " + std::to_string(onesided) + ", expected 0 or 1");
    }
    onesided_ = onesided == 1;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() != 3 || (x->dim(2) != 1 && x->dim(2) != 2)) {
      return InvalidArgument("input 'signal' (0) has shape " + ShapeToString(x->shape()) +
                             ", expected [batch_size, signal_length, 1 or 2]");
    }
    const int64_t batch = x->dim(0), signal_length = x->dim(1), c_in = x->dim(2);
    ONYX_ASSIGN_OR_RETURN(const int64_t frame_step, ScalarIntInput(ctx, 1, "frame_step"));
    if (frame_step <= 0) return InvalidArgument("input 'frame_step' (1) is " + std::to_string(frame_step) + ", expected > 0");

    const Tensor* window = nullptr;
    if (ctx.has_input(2)) {
      ONYX_ASSIGN_OR_RETURN(window, ctx.TensorInput(2));
      if (window->rank() != 1) {
        return InvalidArgument("input 'window' (2) has shape " + ShapeToString(window->shape()) + ", expected rank 1");
      }
      if (window->type() != x->type()) {
        return InvalidArgument("input 'window' (2) has element type " + std::string(DataTypeName(window->type())) +
                               ", expected " + std::string(DataTypeName(x->type())) + " like the signal");
      }
    }
    int64_t frame_length = window != nullptr ? window->dim(0) : signal_length;
    if (ctx.has_input(3)) {
      ONYX_ASSIGN_OR_RETURN(frame_length, ScalarIntInput(ctx, 3, "frame_length"));
      if (window != nullptr && window->dim(0) != frame_length) {
        return InvalidArgument("input 'window' (2) has " + std::to_string(window->dim(0)) +
                               " values but 'frame_length' (3) is " + std::to_string(frame_length));
      }
    }
    if (frame_length <= 0 || frame_length > signal_length) {
      return InvalidArgument("frame length " + std::to_string(frame_length) + " must be in [1, signal_length = " +
                             std::to_string(signal_length) + "]");
    }
    const int64_t frames = 1 + (signal_length - frame_length) / frame_step;
    const int64_t bins = onesided_ ? frame_length / 2 + 1 : frame_length;

    return Dispatch<FloatTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, x->type(), {batch, frames, bins, 2});
      if (out.size() == 0) return Status::Ok();
      std::vector<double> w(static_cast<size_t>(frame_length), 1.0);
      if (window != nullptr) {
        for (int64_t t = 0; t < frame_length; ++t) w[static_cast<size_t>(t)] = ToDouble(window->data<T>()[t]);
      }
      const T* in = x->data<T>();
      T* o = out.data<T>();
      FftPlan plan(frame_length);
      std::vector<Complex> line(static_cast<size_t>(frame_length));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t t = 0; t < frame_length; ++t) {
            const T* v = in + (b * signal_length + f * frame_step + t) * c_in;
            line[static_cast<size_t>(t)] =
                Complex(ToDouble(v[0]), c_in == 2 ? ToDouble(v[1]) : 0.0) * w[static_cast<size_t>(t)];
          }
          plan.Transform(line, /*inverse=*/false);
          T* dst = o + (b * frames + f) * bins * 2;
          for (int64_t k = 0; k < bins; ++k) {
            dst[2 * k] = FromDouble<T>(line[static_cast<size_t>(k)].real());
            dst[2 * k + 1] = FromDouble<T>(line[static_cast<size_t>(k)].imag());
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool onesided_ = true;
};

}  // namespace

void RegisterStftOps(KernelRegistry& registry) {
  registry.Add("", "STFT", 17, kLatestVersion, MakeFactory<StftKernel>());
}

}  // namespace onyx::ops::signal_ops
