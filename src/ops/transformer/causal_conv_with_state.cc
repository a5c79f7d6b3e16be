// CausalConvWithState (opset 27): a causal depthwise 1-D convolution with a carried state. Per (batch, channel),
// the sequence past_state (k - 1 values, zeros when absent) followed by the input is convolved with the channel's
// kernel (weight (C, 1, k)) plus bias, optionally passed through SiLU ("silu" or its alias "swish"), and the last
// k - 1 values of that sequence become present_state.
#include <cmath>
#include <string>

#include "ops/transformer/transformer_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::transformer {
namespace {

class CausalConvWithStateKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::string activation = info.GetString("activation", "none");
    if (activation == "silu" || activation == "swish") {
      silu_ = true;
    } else if (activation != "none") {
      return info.Error("attribute 'activation' is '" + activation + "', expected 'none', 'silu' or 'swish'");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* w, ctx.TensorInput(1));
    const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor* past = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (x->rank() != 3) return InvalidArgument(DescribeInput("input", 0, *x) + ", expected (batch, channels, length)");
    const int64_t batch = x->dim(0), channels = x->dim(1), len = x->dim(2);
    if (w->rank() != 3 || w->dim(0) != channels || w->dim(1) != 1 || w->dim(2) < 1) {
      return InvalidArgument(DescribeInput("weight", 1, *w) + ", expected [" + std::to_string(channels) + ", 1, k]");
    }
    const int64_t ksize = w->dim(2);
    const int64_t state_len = ksize - 1;
    if (bias != nullptr && bias->shape() != Shape{channels}) {
      return InvalidArgument(DescribeInput("bias", 2, *bias) + ", expected [" + std::to_string(channels) + "]");
    }
    const Shape state_shape{batch, channels, state_len};
    if (past != nullptr && past->shape() != state_shape) {
      return InvalidArgument(DescribeInput("past_state", 3, *past) + ", expected " + ShapeToString(state_shape));
    }
    for (const Tensor* t : {w, bias, past}) {
      if (t != nullptr && t->type() != x->type()) {
        return InvalidArgument("all inputs must have the element type of 'input' (" +
                               std::string(DataTypeName(x->type())) + ")");
      }
    }
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
      T* out = y.data<T>();
      T* present = nullptr;
      if (ctx.num_outputs() > 1) present = ctx.AllocateOutput(1, x->type(), state_shape).template data<T>();
      const T* in = x->data<T>();
      const T* wd = w->data<T>();
      std::vector<T> seq(static_cast<size_t>(state_len + len));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t row = b * channels + c;
          for (int64_t i = 0; i < state_len; ++i) {
            seq[static_cast<size_t>(i)] = past != nullptr ? past->data<T>()[row * state_len + i] : T(0.0f);
          }
          for (int64_t i = 0; i < len; ++i) seq[static_cast<size_t>(state_len + i)] = in[row * len + i];
          const CT bc = bias != nullptr ? static_cast<CT>(bias->data<T>()[c]) : CT(0);
          for (int64_t t = 0; t < len; ++t) {
            CT acc = 0;
            for (int64_t j = 0; j < ksize; ++j) {
              acc += static_cast<CT>(wd[c * ksize + j]) * static_cast<CT>(seq[static_cast<size_t>(t + j)]);
            }
            CT v = static_cast<CT>(T(acc + bc));
            if (silu_) v = v / (CT(1) + std::exp(-v));
            out[row * len + t] = T(v);
          }
          if (present != nullptr) {
            for (int64_t i = 0; i < state_len; ++i) present[row * state_len + i] = seq[static_cast<size_t>(len + i)];
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool silu_ = false;
};

}  // namespace

void RegisterCausalConvWithStateOps(KernelRegistry& registry) {
  registry.Add("", "CausalConvWithState", 27, kLatestVersion, MakeFactory<CausalConvWithStateKernel>());
}

}  // namespace onyx::ops::transformer
