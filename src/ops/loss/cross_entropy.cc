// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. Both pick, for every sample n and spatial position d,
// the value of class target[n, d] from an [N, C, d1..dk] input (log-probabilities for NLL, log-softmax over C of
// the scores for SCE), negate it, weight it by weight[target] and reduce ('none', 'sum', or 'mean' = weighted sum
// divided by the sum of the weights used). Targets equal to ignore_index contribute neither loss nor weight.
// ONNX defines both as functions; these direct kernels compute in double and round once at the end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/loss/loss_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::loss {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossAttributes {
  Reduction reduction = Reduction::kMean;
  bool has_ignore_index = false;
  int64_t ignore_index = 0;
};

Status ParseLossAttributes(const KernelInfo& info, LossAttributes* attrs) {
  const std::string reduction = info.GetString("reduction", "mean");
  if (reduction == "none") {
    attrs->reduction = Reduction::kNone;
  } else if (reduction == "sum") {
    attrs->reduction = Reduction::kSum;
  } else if (reduction == "mean") {
    attrs->reduction = Reduction::kMean;
  } else {
    return info.Error("attribute 'reduction' must be 'none', 'sum' or 'mean', got '" + reduction + "'");
  }
  attrs->has_ignore_index = info.HasAttribute("ignore_index");
  attrs->ignore_index = info.GetInt("ignore_index", 0);
  return Status::Ok();
}

// The input as [N, C, D] (D = product of the spatial dims, 1 when there are none), checked against the target
// and the optional weight.
struct LossGeometry {
  int64_t n = 0, c = 0, d = 1;
};

Result<LossGeometry> CheckLossInputs(const Tensor& x, const Tensor& target, const Tensor* weight) {
  if (x.rank() < 2) {
    return InvalidArgument("input 0 has shape " + ShapeToString(x.shape()) + ", expected [N, C, d1, ...]");
  }
  if (target.type() != DataType::kInt32 && target.type() != DataType::kInt64) {
    return InvalidArgument("input 'target' (1) has element type " + std::string(DataTypeName(target.type())) +
                           ", expected int32 or int64");
  }
  Shape expected_target = {x.dim(0)};
  for (int64_t i = 2; i < x.rank(); ++i) expected_target.push_back(x.dim(i));
  if (target.shape() != expected_target) {
    return InvalidArgument("input 'target' (1) has shape " + ShapeToString(target.shape()) + ", expected " +
                           ShapeToString(expected_target) + " for input shape " + ShapeToString(x.shape()));
  }
  LossGeometry g;
  g.n = x.dim(0);
  g.c = x.dim(1);
  for (int64_t i = 2; i < x.rank(); ++i) g.d *= x.dim(i);
  if (weight != nullptr) {
    if (weight->type() != x.type()) {
      return InvalidArgument("input 'weight' (2) has element type " + std::string(DataTypeName(weight->type())) +
                             ", expected " + std::string(DataTypeName(x.type())) + " like input 0");
    }
    if (weight->rank() != 1 || weight->dim(0) != g.c) {
      return InvalidArgument("input 'weight' (2) has shape " + ShapeToString(weight->shape()) + ", expected [" +
                             std::to_string(g.c) + "] (one weight per class)");
    }
  }
  return g;
}

// Computes the loss from log-probabilities `logp` laid out as [N, C, D] and writes output 0.
template <typename T>
Status ComputeLoss(KernelContext& ctx, const LossAttributes& attrs, const LossGeometry& g,
                   const std::vector<double>& logp, const Tensor& target, const Tensor* weight) {
  const int64_t count = g.n * g.d;
  std::vector<double> losses(static_cast<size_t>(count));
  double loss_sum = 0, weight_sum = 0;
  const T* w = weight != nullptr ? weight->data<T>() : nullptr;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t d = 0; d < g.d; ++d) {
      const int64_t i = n * g.d + d;
      const int64_t t = target.IntAt(i);
      double loss = 0, wt = 0;
      if (!(attrs.has_ignore_index && t == attrs.ignore_index)) {
        if (t < 0 || t >= g.c) {
          return InvalidArgument("input 'target' (1) element " + std::to_string(i) + " is " + std::to_string(t) +
                                 ", outside the class range [0, " + std::to_string(g.c) + ")" +
                                 (attrs.has_ignore_index ? "" : " (no ignore_index is set)"));
        }
        wt = w != nullptr ? ToDouble(w[t]) : 1.0;
        loss = -logp[static_cast<size_t>((n * g.c + t) * g.d + d)] * wt;
      }
      losses[static_cast<size_t>(i)] = loss;
      loss_sum += loss;
      weight_sum += wt;
    }
  }
  if (attrs.reduction == Reduction::kNone) {
    Tensor& out = ctx.AllocateOutput(0, DataTypeOf<T>::value, target.shape());
    T* po = out.data<T>();
    for (int64_t i = 0; i < count; ++i) po[i] = FromDouble<T>(losses[static_cast<size_t>(i)]);
    return Status::Ok();
  }
  Tensor& out = ctx.AllocateOutput(0, DataTypeOf<T>::value, {});
  // A mean over no weight (every target ignored, or an empty batch) is 0/0 = NaN, as in ONNX's function body.
  out.data<T>()[0] = FromDouble<T>(attrs.reduction == Reduction::kSum ? loss_sum : loss_sum / weight_sum);
  return Status::Ok();
}

// NegativeLogLikelihoodLoss takes log-probabilities; SoftmaxCrossEntropyLoss takes scores, applies log-softmax over
// the class axis first (optionally returning it as log_prob), then computes the same loss.
template <bool kSoftmax>
class CrossEntropyKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override { return ParseLossAttributes(info, &attrs_); }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* target, ctx.TensorInput(1));
    const Tensor* weight = nullptr;
    if (ctx.has_input(2)) {
      ONYX_ASSIGN_OR_RETURN(weight, ctx.TensorInput(2));
    }
    ONYX_ASSIGN_OR_RETURN(LossGeometry g, CheckLossInputs(*x, *target, weight));
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* px = x->data<T>();
      std::vector<double> logp(static_cast<size_t>(x->size()));
      if constexpr (!kSoftmax) {
        for (size_t i = 0; i < logp.size(); ++i) logp[i] = ToDouble(px[i]);
      } else {
        // Log-softmax over the class axis, shifted by the maximum so that large scores do not overflow.
        for (int64_t n = 0; n < g.n; ++n) {
          for (int64_t d = 0; d < g.d; ++d) {
            auto at = [&](int64_t c) { return static_cast<size_t>((n * g.c + c) * g.d + d); };
            double max = -std::numeric_limits<double>::infinity();
            for (int64_t c = 0; c < g.c; ++c) max = std::max(max, ToDouble(px[at(c)]));
            double sum = 0;
            for (int64_t c = 0; c < g.c; ++c) sum += std::exp(ToDouble(px[at(c)]) - max);
            const double log_sum = std::log(sum);
            for (int64_t c = 0; c < g.c; ++c) logp[at(c)] = ToDouble(px[at(c)]) - max - log_sum;
          }
        }
        if (ctx.num_outputs() > 1) {
          Tensor& log_prob = ctx.AllocateOutput(1, x->type(), x->shape());
          T* pl = log_prob.data<T>();
          for (size_t i = 0; i < logp.size(); ++i) pl[i] = FromDouble<T>(logp[i]);
        }
      }
      return ComputeLoss<T>(ctx, attrs_, g, logp, *target, weight);
    });
  }

 private:
  LossAttributes attrs_;
};

}  // namespace

void RegisterCrossEntropyOps(KernelRegistry& registry) {
  registry.Add("", "NegativeLogLikelihoodLoss", 12, kLatestVersion, MakeFactory<CrossEntropyKernel<false>>());
  registry.Add("", "SoftmaxCrossEntropyLoss", 12, kLatestVersion, MakeFactory<CrossEntropyKernel<true>>());
}

}  // namespace onyx::ops::loss
