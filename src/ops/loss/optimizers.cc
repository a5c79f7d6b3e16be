// The training optimizers of domain ai.onnx.preview.training: Adagrad, Adam and Momentum (standard or Nesterov).
// Each takes a scalar learning rate R, a scalar update count T, then the optimized tensors X_1..X_n followed by
// their gradients and optimizer states, all grouped by kind (X_1..X_n, G_1..G_n, ...), and returns the updated
// tensors grouped the same way. Arithmetic is done in double per element and rounded once into X's type.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/loss/loss_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::loss {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

struct Scalars {
  double r = 0;
  int64_t t = 0;
};

Result<Scalars> ReadScalars(const KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* r, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(1));
  if (r->size() != 1 || (r->type() != DataType::kFloat && r->type() != DataType::kDouble)) {
    return InvalidArgument("input 'R' (0) must be a float or double scalar, got " +
                           std::string(DataTypeName(r->type())) + " of shape " + ShapeToString(r->shape()));
  }
  if (t->size() != 1 || t->type() != DataType::kInt64) {
    return InvalidArgument("input 'T' (1) must be an int64 scalar, got " + std::string(DataTypeName(t->type())) +
                           " of shape " + ShapeToString(t->shape()));
  }
  return Scalars{r->DoubleAt(0), t->IntAt(0)};
}

// Checks the variadic inputs: `groups` groups of n tensors after R and T, every one of X_i's type and shape.
// Returns n.
Result<int64_t> CheckGroups(const KernelContext& ctx, int64_t groups, const char* group_names) {
  const int64_t variadic = static_cast<int64_t>(ctx.num_inputs()) - 2;
  if (variadic <= 0 || variadic % groups != 0) {
    return InvalidArgument("expected R, T and then " + std::to_string(groups) + " equal groups of tensors (" +
                           group_names + "), got " + std::to_string(ctx.num_inputs()) + " inputs");
  }
  const int64_t n = variadic / groups;
  if (static_cast<int64_t>(ctx.num_outputs()) != (groups - 1) * n) {
    return InvalidArgument("expected " + std::to_string((groups - 1) * n) + " outputs for " + std::to_string(n) +
                           " optimized tensors, got " + std::to_string(ctx.num_outputs()));
  }
  for (int64_t i = 0; i < n; ++i) {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(static_cast<size_t>(2 + i)));
    if (x->type() != DataType::kFloat && x->type() != DataType::kDouble) {
      return InvalidArgument("input " + std::to_string(2 + i) + " has element type " +
                             std::string(DataTypeName(x->type())) + ", expected float or double");
    }
    for (int64_t g = 1; g < groups; ++g) {
      const size_t idx = static_cast<size_t>(2 + g * n + i);
      ONYX_ASSIGN_OR_RETURN(const Tensor* other, ctx.TensorInput(idx));
      if (other->type() != x->type() || other->shape() != x->shape()) {
        return InvalidArgument("input " + std::to_string(idx) + " is " + std::string(DataTypeName(other->type())) +
                               " " + ShapeToString(other->shape()) + ", expected " +
                               std::string(DataTypeName(x->type())) + " " + ShapeToString(x->shape()) +
                               " like input " + std::to_string(2 + i));
      }
    }
  }
  return n;
}

// Runs `update(in, out)` per element of optimized tensor i, where in[k] is the value of the k-th input group and
// out[k] receives the k-th output group.
template <size_t kIn, size_t kOut, typename F>
Status UpdateEach(KernelContext& ctx, int64_t n, F&& update) {
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& x = ctx.input(static_cast<size_t>(2 + i));
    Status st = Dispatch<TypeList<float, double>>(x.type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in[kIn];
      T* out[kOut];
      for (size_t k = 0; k < kIn; ++k) {
        in[k] = ctx.input(static_cast<size_t>(2 + static_cast<int64_t>(k) * n + i)).data<T>();
      }
      for (size_t k = 0; k < kOut; ++k) {
        const size_t o = static_cast<size_t>(static_cast<int64_t>(k) * n + i);
        out[k] = ctx.AllocateOutput(o, x.type(), x.shape()).data<T>();
      }
      double vin[kIn], vout[kOut];
      for (int64_t e = 0; e < x.size(); ++e) {
        for (size_t k = 0; k < kIn; ++k) vin[k] = static_cast<double>(in[k][e]);
        update(vin, vout);
        for (size_t k = 0; k < kOut; ++k) out[k][e] = static_cast<T>(vout[k]);
      }
      return Status::Ok();
    });
    ONYX_RETURN_IF_ERROR(st);
  }
  return Status::Ok();
}

Status RequireFloat(const KernelInfo& info, const char* name, float* value) {
  if (!info.HasAttribute(name)) return info.Error(std::string("required float attribute '") + name + "' is missing");
  *value = info.GetFloat(name, 0.0f);
  return Status::Ok();
}

// Adagrad: inputs R, T, X..., G..., H...; outputs X_new..., H_new...
class AdagradKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    decay_factor_ = info.GetFloat("decay_factor", 0.0f);
    epsilon_ = info.GetFloat("epsilon", 1e-6f);
    norm_coefficient_ = info.GetFloat("norm_coefficient", 0.0f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(Scalars s, ReadScalars(ctx));
    ONYX_ASSIGN_OR_RETURN(int64_t n, CheckGroups(ctx, 3, "X, G, H"));
    // The learning rate decays with the number of updates already done.
    const double rate = s.r / (1.0 + static_cast<double>(s.t) * decay_factor_);
    return UpdateEach<3, 2>(ctx, n, [&](const double* in, double* out) {
      const double x = in[0], g = in[1] + norm_coefficient_ * in[0], h = in[2] + g * g;
      out[0] = x - rate * g / (std::sqrt(h) + epsilon_);
      out[1] = h;
    });
  }

 private:
  double decay_factor_ = 0, epsilon_ = 1e-6, norm_coefficient_ = 0;
};

// Adam: inputs R, T, X..., G..., V..., H...; outputs X_new..., V_new..., H_new...
class AdamKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    alpha_ = info.GetFloat("alpha", 0.9f);
    beta_ = info.GetFloat("beta", 0.999f);
    epsilon_ = info.GetFloat("epsilon", 1e-6f);
    norm_coefficient_ = info.GetFloat("norm_coefficient", 0.0f);
    norm_coefficient_post_ = info.GetFloat("norm_coefficient_post", 0.0f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(Scalars s, ReadScalars(ctx));
    ONYX_ASSIGN_OR_RETURN(int64_t n, CheckGroups(ctx, 4, "X, G, V, H"));
    // Bias correction of both running averages applies once updates have been counted (T > 0).
    double rate = s.r;
    if (s.t > 0) {
      const double t = static_cast<double>(s.t);
      rate = s.r * std::sqrt(1.0 - std::pow(beta_, t)) / (1.0 - std::pow(alpha_, t));
    }
    return UpdateEach<4, 3>(ctx, n, [&](const double* in, double* out) {
      const double x = in[0], g = in[1] + norm_coefficient_ * in[0];
      const double v = alpha_ * in[2] + (1.0 - alpha_) * g;
      const double h = beta_ * in[3] + (1.0 - beta_) * g * g;
      const double x_new = x - rate * v / (std::sqrt(h) + epsilon_);
      out[0] = (1.0 - norm_coefficient_post_) * x_new;
      out[1] = v;
      out[2] = h;
    });
  }

 private:
  double alpha_ = 0.9, beta_ = 0.999, epsilon_ = 1e-6, norm_coefficient_ = 0, norm_coefficient_post_ = 0;
};

// Momentum: inputs R, T, X..., G..., V...; outputs X_new..., V_new...
class MomentumKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    float alpha = 0, beta = 0, norm_coefficient = 0;
    ONYX_RETURN_IF_ERROR(RequireFloat(info, "alpha", &alpha));
    ONYX_RETURN_IF_ERROR(RequireFloat(info, "beta", &beta));
    ONYX_RETURN_IF_ERROR(RequireFloat(info, "norm_coefficient", &norm_coefficient));
    ONYX_ASSIGN_OR_RETURN(std::string mode, info.GetRequiredString("mode"));
    if (mode != "standard" && mode != "nesterov") {
      return info.Error("attribute 'mode' must be 'standard' or 'nesterov', got '" + mode + "'");
    }
    alpha_ = alpha;
    beta_ = beta;
    norm_coefficient_ = norm_coefficient;
    nesterov_ = mode == "nesterov";
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(Scalars s, ReadScalars(ctx));
    ONYX_ASSIGN_OR_RETURN(int64_t n, CheckGroups(ctx, 3, "X, G, V"));
    // The first update (T == 0) takes the whole gradient into the momentum.
    const double beta = s.t > 0 ? beta_ : 1.0;
    return UpdateEach<3, 2>(ctx, n, [&](const double* in, double* out) {
      const double x = in[0], g = in[1] + norm_coefficient_ * in[0];
      const double v = alpha_ * in[2] + beta * g;
      out[0] = nesterov_ ? x - s.r * (g + alpha_ * v) : x - s.r * v;
      out[1] = v;
    });
  }

 private:
  double alpha_ = 0, beta_ = 0, norm_coefficient_ = 0;
  bool nesterov_ = false;
};

}  // namespace

void RegisterOptimizerOps(KernelRegistry& registry) {
  registry.Add(kTrainingDomain, "Adagrad", 1, kLatestVersion, MakeFactory<AdagradKernel>());
  registry.Add(kTrainingDomain, "Adam", 1, kLatestVersion, MakeFactory<AdamKernel>());
  registry.Add(kTrainingDomain, "Momentum", 1, kLatestVersion, MakeFactory<MomentumKernel>());
}

}  // namespace onyx::ops::loss
