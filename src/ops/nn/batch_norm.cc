// BatchNormalization: inference with the given statistics, and training mode (attribute training_mode from
// version 14; extra outputs before that) which normalizes with the batch statistics and updates running ones.
#include <cmath>
#include <string>

#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

const char* const kParamNames[] = {"scale", "B", "input_mean", "input_var"};

class BatchNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    epsilon_ = info.GetFloat("epsilon", 1e-5f);
    momentum_ = info.GetFloat("momentum", 0.9f);
    if (info.since_version() >= 14) {
      training_ = info.GetInt("training_mode", 0) != 0;
    } else {
      // Earlier versions are in training when the node asks for the statistics outputs.
      for (size_t i = 1; i < info.num_outputs(); ++i) training_ = training_ || !info.node().outputs[i].empty();
    }
    requested_.assign(5, false);
    for (size_t i = 0; i < info.num_outputs() && i < 5; ++i) requested_[i] = !info.node().outputs[i].empty();
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() < 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [N, C, ...]");
    }
    const int64_t batch = x->dim(0), channels = x->dim(1);
    const int64_t inner = ShapeProduct(x->shape(), 2, x->shape().size());
    std::vector<double> params[4];
    const Tensor* param_tensors[4];
    for (size_t i = 0; i < 4; ++i) {
      ONYX_ASSIGN_OR_RETURN(param_tensors[i], ctx.TensorInput(i + 1));
      const Tensor& t = *param_tensors[i];
      // Per channel, or (spatial = 0 in versions before 9) per channel and spatial position.
      if (t.size() != channels && !(t.size() == channels * inner && t.rank() >= 2)) {
        return InvalidArgument("input '" + std::string(kParamNames[i]) + "' (" + std::to_string(i + 1) +
                               ") has shape " + ShapeToString(t.shape()) + ", expected [" + std::to_string(channels) +
                               "] for X " + ShapeToString(x->shape()));
      }
      if (!IsFloatingPoint(t.type())) {
        return InvalidArgument("input '" + std::string(kParamNames[i]) + "' must have a float type");
      }
      params[i] = ToDoubleVector(t);
    }
    auto at = [&](int p, int64_t c, int64_t i) {
      const std::vector<double>& v = params[p];
      return static_cast<int64_t>(v.size()) == channels ? v[static_cast<size_t>(c)]
                                                        : v[static_cast<size_t>(c * inner + i)];
    };
    std::vector<double> mean, var;  // the statistics used to normalize, [C * inner] (per-activation layout)
    mean.resize(static_cast<size_t>(channels * inner));
    var.resize(static_cast<size_t>(channels * inner));
    std::vector<double> batch_mean, batch_var;
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      auto xv = [&](int64_t n, int64_t c, int64_t i) {
        return static_cast<double>(static_cast<ComputeType<T>>(in[(n * channels + c) * inner + i]));
      };
      const bool per_activation = static_cast<int64_t>(params[2].size()) != channels;
      if (training_) {
        // Batch statistics (biased variance), per channel or per activation.
        const int64_t groups = per_activation ? channels * inner : channels;
        batch_mean.assign(static_cast<size_t>(groups), 0.0);
        batch_var.assign(static_cast<size_t>(groups), 0.0);
        const double count = static_cast<double>(per_activation ? batch : batch * inner);
        auto gi = [&](int64_t c, int64_t i) { return static_cast<size_t>(per_activation ? c * inner + i : c); };
        for (int64_t n = 0; n < batch; ++n)
          for (int64_t c = 0; c < channels; ++c)
            for (int64_t i = 0; i < inner; ++i) batch_mean[gi(c, i)] += xv(n, c, i);
        for (double& m : batch_mean) m /= count;
        for (int64_t n = 0; n < batch; ++n)
          for (int64_t c = 0; c < channels; ++c)
            for (int64_t i = 0; i < inner; ++i) {
              const double d = xv(n, c, i) - batch_mean[gi(c, i)];
              batch_var[gi(c, i)] += d * d;
            }
        for (double& v : batch_var) v /= count;
        for (int64_t c = 0; c < channels; ++c)
          for (int64_t i = 0; i < inner; ++i) {
            mean[static_cast<size_t>(c * inner + i)] = batch_mean[gi(c, i)];
            var[static_cast<size_t>(c * inner + i)] = batch_var[gi(c, i)];
          }
      } else {
        for (int64_t c = 0; c < channels; ++c)
          for (int64_t i = 0; i < inner; ++i) {
            mean[static_cast<size_t>(c * inner + i)] = at(2, c, i);
            var[static_cast<size_t>(c * inner + i)] = at(3, c, i);
          }
      }
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          for (int64_t i = 0; i < inner; ++i) {
            const size_t s = static_cast<size_t>(c * inner + i);
            const double norm = (xv(n, c, i) - mean[s]) / std::sqrt(var[s] + epsilon_);
            out[(n * channels + c) * inner + i] = FromDouble<T>(norm * at(0, c, i) + at(1, c, i));
          }
        }
      }
      if (training_) WriteStatistics(ctx, *param_tensors[2], *param_tensors[3], batch_mean, batch_var);
      return Status::Ok();
    });
  }

 private:
  // Outputs 1, 2: running mean and variance (momentum-blended); outputs 3, 4 (versions before 14): batch ones.
  void WriteStatistics(KernelContext& ctx, const Tensor& in_mean, const Tensor& in_var,
                       const std::vector<double>& batch_mean, const std::vector<double>& batch_var) {
    auto write = [&](size_t index, const Tensor& like, auto value) {
      if (!requested_[index]) return;
      Tensor& t = ctx.AllocateOutput(index, like.type(), like.shape());
      (void)Dispatch<FloatTypes>(like.type(), [&](auto tag) {
        using U = typename decltype(tag)::type;
        U* d = t.data<U>();
        for (int64_t i = 0; i < t.size(); ++i) d[i] = FromDouble<U>(value(static_cast<size_t>(i)));
        return Status::Ok();
      });
    };
    const std::vector<double> old_mean = ToDoubleVector(in_mean);
    const std::vector<double> old_var = ToDoubleVector(in_var);
    const double mom = momentum_;
    write(1, in_mean, [&](size_t i) { return old_mean[i] * mom + batch_mean[i % batch_mean.size()] * (1 - mom); });
    write(2, in_var, [&](size_t i) { return old_var[i] * mom + batch_var[i % batch_var.size()] * (1 - mom); });
    write(3, in_mean, [&](size_t i) { return batch_mean[i % batch_mean.size()]; });
    write(4, in_var, [&](size_t i) { return batch_var[i % batch_var.size()]; });
  }

  double epsilon_ = 1e-5;
  double momentum_ = 0.9;
  bool training_ = false;
  std::vector<bool> requested_;
};

}  // namespace

void RegisterBatchNormOps(KernelRegistry& registry) {
  registry.Add("", "BatchNormalization", 1, kLatestVersion, MakeFactory<BatchNormKernel>());
}

}  // namespace onyx::ops::nn
