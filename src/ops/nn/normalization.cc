// InstanceNormalization, LayerNormalization, GroupNormalization and MeanVarianceNormalization: each normalizes
// runs of elements to zero mean and unit (biased) variance, then applies its own scale and bias.
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>

#include "kernels/vector_math.h"
#include "ops/common/kept_plan.h"
#include "ops/common/op_util.h"
#include "ops/common/parallel.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::nn {
namespace {

// Mean and 1 / sqrt(variance + epsilon) of each of `rows` consecutive runs of `len` values.
template <typename T>
void RowStats(const T* x, int64_t rows, int64_t len, double epsilon, std::vector<double>* mean,
              std::vector<double>* inv_std) {
  mean->assign(static_cast<size_t>(rows), 0.0);
  inv_std->assign(static_cast<size_t>(rows), 0.0);
  ParallelFor(rows, len * 2, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* row = x + r * len;
      if constexpr (std::is_same_v<T, float>) {  // the same two passes in double, vectorized
        const double m = len > 0 ? kernels::ReduceRowSum(row, len) / static_cast<double>(len) : 0.0;
        const double var =
            len > 0 ? kernels::ReduceRowSumSquaredDeviations(row, len, m) / static_cast<double>(len) : 0.0;
        (*mean)[static_cast<size_t>(r)] = m;
        (*inv_std)[static_cast<size_t>(r)] = 1.0 / std::sqrt(var + epsilon);
        continue;
      }
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) sum += static_cast<double>(static_cast<ComputeType<T>>(row[i]));
      const double m = len > 0 ? sum / static_cast<double>(len) : 0.0;
      double sq = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double d = static_cast<double>(static_cast<ComputeType<T>>(row[i])) - m;
        sq += d * d;
      }
      const double var = len > 0 ? sq / static_cast<double>(len) : 0.0;
      (*mean)[static_cast<size_t>(r)] = m;
      (*inv_std)[static_cast<size_t>(r)] = 1.0 / std::sqrt(var + epsilon);
    }
  });
}

Status CheckFloatParam(const Tensor& t, const std::string& name) {
  if (!IsFloatingPoint(t.type())) return InvalidArgument(name + " must have a float type");
  return Status::Ok();
}

class InstanceNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    epsilon_ = info.GetFloat("epsilon", 1e-5f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, ctx.TensorInput(2));
    if (x->rank() < 2) {
      return InvalidArgument("input 'input' (0) has shape " + ShapeToString(x->shape()) + ", expected [N, C, ...]");
    }
    const int64_t channels = x->dim(1);
    for (const Tensor* t : {scale, bias}) {
      if (t->rank() != 1 || t->dim(0) != channels) {
        return InvalidArgument("scale and B must have shape [" + std::to_string(channels) + "], got " +
                               ShapeToString(t->shape()));
      }
      ONYX_RETURN_IF_ERROR(CheckFloatParam(*t, "scale and B"));
    }
    const std::vector<double> s = ToDoubleVector(*scale);
    const std::vector<double> b = ToDoubleVector(*bias);
    const int64_t rows = x->dim(0) * channels;
    const int64_t len = ShapeProduct(x->shape(), 2, x->shape().size());
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      std::vector<double> mean, inv_std;
      RowStats(in, rows, len, epsilon_, &mean, &inv_std);
      if constexpr (std::is_same_v<T, float>) {
        ParallelFor(rows, len, [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo; r < hi; ++r) {
            const size_t c = static_cast<size_t>(r % channels), ri = static_cast<size_t>(r);
            kernels::NormalizeRow(in + r * len, out + r * len, len, mean[ri], static_cast<float>(inv_std[ri] * s[c]),
                                  static_cast<float>(b[c]));
          }
        });
        return Status::Ok();
      }
      for (int64_t r = 0; r < rows; ++r) {
        const size_t c = static_cast<size_t>(r % channels);
        for (int64_t i = 0; i < len; ++i) {
          const double v = static_cast<double>(static_cast<ComputeType<T>>(in[r * len + i]));
          out[r * len + i] =
              FromDouble<T>((v - mean[static_cast<size_t>(r)]) * inv_std[static_cast<size_t>(r)] * s[c] + b[c]);
        }
      }
      return Status::Ok();
    });
  }

 private:
  double epsilon_ = 1e-5;
};

class LayerNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axis_ = info.GetInt("axis", -1);
    epsilon_ = info.GetFloat("epsilon", 1e-5f);
    const int64_t stash = info.GetInt("stash_type", 1);
    if (!IsValidDataType(static_cast<int32_t>(stash)) || !IsFloatingPoint(static_cast<DataType>(stash))) {
      return info.Error("attribute 'stash_type' " + std::to_string(stash) + " is not a float type");
    }
    stash_type_ = static_cast<DataType>(stash);
    for (size_t i = 1; i < info.num_outputs() && i < 3; ++i) requested_[i] = !info.node().outputs[i].empty();
    // Scale and B as doubles once when they are initializers (the usual case), not per run.
    const Tensor* scale = info.ConstantInput(1);
    const Tensor* bias = info.has_input(2) ? info.ConstantInput(2) : nullptr;
    if (scale != nullptr && IsFloatingPoint(scale->type()) && (!info.has_input(2) || bias != nullptr) &&
        (bias == nullptr || IsFloatingPoint(bias->type()))) {
      const_params_ = true;
      const_scale_ = ToDoubleVector(*scale);
      const_bias_ = bias != nullptr ? ToDoubleVector(*bias) : std::vector<double>{0.0};
      // float32 Scale and B also as floats, for the vectorized path of float32 inputs.
      if (scale->type() == DataType::kFloat && (bias == nullptr || bias->type() == DataType::kFloat)) {
        float_scale_.assign(scale->data<float>(), scale->data<float>() + scale->size());
        if (bias != nullptr) float_bias_.assign(bias->data<float>(), bias->data<float>() + bias->size());
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, OptionalTensorInput(ctx, 2));
    if (x->rank() == 0) return InvalidArgument("input 'X' (0) must have rank >= 1");
    ONYX_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_, x->rank()));
    const Shape& xs = x->shape();
    const Shape no_shape;
    const Shape& b_shape = bias != nullptr ? bias->shape() : no_shape;
    const bool checked = checked_.Find([&](const Checked& c) {
      return c.x == xs && c.scale == scale->shape() && c.bias == b_shape && c.has_bias == (bias != nullptr) &&
             c.scale_type == scale->type() && c.bias_type == (bias ? bias->type() : scale->type());
    }) != nullptr;
    if (!checked) {
      for (const Tensor* t : {scale, bias}) {
        if (t == nullptr) continue;
        auto bs = BroadcastShapes(xs, t->shape());
        if (!bs.ok() || *bs != xs) {
          return InvalidArgument("Scale/B shape " + ShapeToString(t->shape()) + " does not broadcast to X " +
                                 ShapeToString(xs));
        }
        ONYX_RETURN_IF_ERROR(CheckFloatParam(*t, "Scale and B"));
      }
      checked_.Keep(std::make_shared<const Checked>(
          Checked{xs, scale->shape(), b_shape, bias != nullptr, scale->type(), bias ? bias->type() : scale->type()}));
    }
    const int64_t rows = ShapeProduct(xs, 0, static_cast<size_t>(axis));
    const int64_t len = ShapeProduct(xs, static_cast<size_t>(axis), xs.size());
    std::vector<double> run_scale, run_bias;
    if (!const_params_) {
      run_scale = ToDoubleVector(*scale);
      run_bias = bias != nullptr ? ToDoubleVector(*bias) : std::vector<double>{0.0};
    }
    const std::vector<double>& s = const_params_ ? const_scale_ : run_scale;
    const std::vector<double>& b = const_params_ ? const_bias_ : run_bias;
    Tensor& y = ctx.AllocateOutput(0, x->type(), xs);
    // The row statistics in the calling thread's vectors (bound here: the parallel loops read them through these
    // references), reused from run to run.
    thread_local std::vector<double> thread_mean, thread_inv_std;
    std::vector<double>& mean = thread_mean;
    std::vector<double>& inv_std = thread_inv_std;
    if (x->type() == DataType::kFloat && static_cast<int64_t>(float_scale_.size()) == len &&
        (bias == nullptr ? float_bias_.empty() : static_cast<int64_t>(float_bias_.size()) == len)) {
      // float32 with constant float32 Scale and B over the normalized dims (transformers): one vectorized kernel
      // per row (kernels/vector_math.h), ONNX Runtime's arithmetic on AVX2 CPUs, the output formed in float.
      const bool stats = requested_[1] || requested_[2];
      if (stats) {
        mean.resize(static_cast<size_t>(rows));
        inv_std.resize(static_cast<size_t>(rows));
      }
      const float* in = x->data<float>();
      float* out = y.data<float>();
      const float* fb = float_bias_.empty() ? nullptr : float_bias_.data();
      ParallelFor(rows, len * 4, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          kernels::LayerNormRow(in + r * len, float_scale_.data(), fb, static_cast<float>(epsilon_), out + r * len, len,
                                stats ? &mean[static_cast<size_t>(r)] : nullptr,
                                stats ? &inv_std[static_cast<size_t>(r)] : nullptr);
        }
      });
    } else {
      ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(x->type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* in = x->data<T>();
        T* out = y.data<T>();
        RowStats(in, rows, len, epsilon_, &mean, &inv_std);
        if (static_cast<int64_t>(s.size()) == len && (bias == nullptr || static_cast<int64_t>(b.size()) == len)) {
          // Scale and B cover exactly the normalized dims (the usual case): rows in parallel, plain inner loops.
          ParallelFor(rows, len * 4, [&](int64_t lo, int64_t hi) {
            for (int64_t r = lo; r < hi; ++r) {
              const double m = mean[static_cast<size_t>(r)];
              const double is = inv_std[static_cast<size_t>(r)];
              for (int64_t i = 0; i < len; ++i) {
                const auto k = static_cast<size_t>(i);
                const double v = static_cast<double>(static_cast<ComputeType<T>>(in[r * len + i]));
                out[r * len + i] = FromDouble<T>((v - m) * is * s[k] + (bias != nullptr ? b[k] : 0.0));
              }
            }
          });
          return Status::Ok();
        }
        std::vector<int64_t> strides[2] = {BroadcastStrides(scale->shape(), xs), BroadcastStrides(b_shape, xs)};
        ForEachStrided(xs, strides, [&](int64_t i, const int64_t* off) {
          const size_t r = static_cast<size_t>(len > 0 ? i / len : 0);
          const double v = static_cast<double>(static_cast<ComputeType<T>>(in[i]));
          out[i] = FromDouble<T>((v - mean[r]) * inv_std[r] * s[static_cast<size_t>(off[0])] +
                                 b[static_cast<size_t>(off[1])]);
        });
        return Status::Ok();
      }));
    }
    if (!requested_[1] && !requested_[2]) return Status::Ok();
    // Mean and InvStdDev keep the reduced axes as 1s, in the stash type.
    Shape stat_shape = xs;
    for (size_t d = static_cast<size_t>(axis); d < stat_shape.size(); ++d) stat_shape[d] = 1;
    const std::vector<double>* stats[2] = {&mean, &inv_std};
    for (size_t o = 1; o <= 2; ++o) {
      if (!requested_[o]) continue;
      Tensor& t = ctx.AllocateOutput(o, stash_type_, stat_shape);
      ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(stash_type_, [&](auto tag) {
        using U = typename decltype(tag)::type;
        for (int64_t i = 0; i < t.size(); ++i) t.data<U>()[i] = FromDouble<U>((*stats[o - 1])[static_cast<size_t>(i)]);
        return Status::Ok();
      }));
    }
    return Status::Ok();
  }

 private:
  struct Checked {
    Shape x, scale, bias;
    bool has_bias = false;
    DataType scale_type = DataType::kUndefined, bias_type = DataType::kUndefined;
  };
  int64_t axis_ = -1;
  double epsilon_ = 1e-5;
  DataType stash_type_ = DataType::kFloat;
  bool requested_[3] = {true, false, false};
  bool const_params_ = false;  // Scale and B are initializers, held as doubles below
  std::vector<double> const_scale_, const_bias_;
  std::vector<float> float_scale_, float_bias_;  // the same, when float32 (float_bias_ empty without B)
  KeptPlan<Checked> checked_;                    // the shapes and types the last run checked
};

class GroupNormKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    epsilon_ = info.GetFloat("epsilon", 1e-5f);
    ONYX_ASSIGN_OR_RETURN(num_groups_, info.GetRequiredInt("num_groups"));
    if (num_groups_ < 1) return info.Error("attribute 'num_groups' must be >= 1, got " + std::to_string(num_groups_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* scale, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* bias, ctx.TensorInput(2));
    if (x->rank() < 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [N, C, ...]");
    }
    const int64_t channels = x->dim(1);
    if (channels % num_groups_ != 0) {
      return InvalidArgument("X channels " + std::to_string(channels) + " are not divisible by num_groups " +
                             std::to_string(num_groups_));
    }
    // Version 18 takes one scale/bias per group, version 21 one per channel; the size tells which.
    for (const Tensor* t : {scale, bias}) {
      if (t->rank() != 1 || (t->dim(0) != channels && t->dim(0) != num_groups_)) {
        return InvalidArgument("scale and bias must have shape [" + std::to_string(channels) + "] (or [" +
                               std::to_string(num_groups_) + "] in version 18), got " + ShapeToString(t->shape()));
      }
      ONYX_RETURN_IF_ERROR(CheckFloatParam(*t, "scale and bias"));
    }
    const std::vector<double> s = ToDoubleVector(*scale);
    const std::vector<double> b = ToDoubleVector(*bias);
    const int64_t spatial = ShapeProduct(x->shape(), 2, x->shape().size());
    const int64_t per_group = channels / num_groups_;
    const int64_t rows = x->dim(0) * num_groups_;
    const int64_t len = per_group * spatial;
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      std::vector<double> mean, inv_std;
      RowStats(in, rows, len, epsilon_, &mean, &inv_std);
      if constexpr (std::is_same_v<T, float>) {  // per channel of each group: one scale and bias over its plane
        ParallelFor(rows * per_group, spatial, [&](int64_t lo, int64_t hi) {
          for (int64_t rc = lo; rc < hi; ++rc) {
            const int64_t r = rc / per_group, g = r % num_groups_, c = g * per_group + rc % per_group;
            const size_t sc = static_cast<size_t>(static_cast<int64_t>(s.size()) == channels ? c : g);
            const size_t bc = static_cast<size_t>(static_cast<int64_t>(b.size()) == channels ? c : g);
            const size_t ri = static_cast<size_t>(r);
            kernels::NormalizeRow(in + rc * spatial, out + rc * spatial, spatial, mean[ri],
                                  static_cast<float>(inv_std[ri] * s[sc]), static_cast<float>(b[bc]));
          }
        });
        return Status::Ok();
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t g = r % num_groups_;
        for (int64_t i = 0; i < len; ++i) {
          const int64_t c = g * per_group + i / std::max<int64_t>(spatial, 1);
          const size_t sc = static_cast<size_t>(static_cast<int64_t>(s.size()) == channels ? c : g);
          const size_t bc = static_cast<size_t>(static_cast<int64_t>(b.size()) == channels ? c : g);
          const double v = static_cast<double>(static_cast<ComputeType<T>>(in[r * len + i]));
          out[r * len + i] =
              FromDouble<T>((v - mean[static_cast<size_t>(r)]) * inv_std[static_cast<size_t>(r)] * s[sc] + b[bc]);
        }
      }
      return Status::Ok();
    });
  }

 private:
  double epsilon_ = 1e-5;
  int64_t num_groups_ = 1;
};

// MeanVarianceNormalization: (X - mean) / (std + 1e-9) over `axes` (default [0, 2, 3]).
class MvnKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    axes_ = info.GetInts("axes", {0, 2, 3});
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, NormalizeAxes(axes_, x->rank()));
    const Shape& xs = x->shape();
    Shape stat_shape = xs;
    for (int64_t a : axes) stat_shape[static_cast<size_t>(a)] = 1;
    const int64_t stat_count = NumElements(stat_shape);
    const int64_t group = stat_count > 0 ? x->size() / stat_count : 0;
    Tensor& y = ctx.AllocateOutput(0, x->type(), xs);
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      if constexpr (std::is_same_v<T, float>) {
        if (TrailingAxes(xs, axes)) {  // each statistic over one contiguous row (the default axes when N = 1)
          ParallelFor(stat_count, group * 3, [&](int64_t lo, int64_t hi) {
            for (int64_t r = lo; r < hi; ++r) {
              const float* row = in + r * group;
              const double m = kernels::ReduceRowSum(row, group) / static_cast<double>(group);
              const double sd =
                  std::sqrt(kernels::ReduceRowSumSquaredDeviations(row, group, m) / static_cast<double>(group)) + 1e-9;
              kernels::NormalizeRow(row, out + r * group, group, m, static_cast<float>(1.0 / sd), 0.0f);
            }
          });
          return Status::Ok();
        }
      }
      auto val = [&](int64_t i) { return static_cast<double>(static_cast<ComputeType<T>>(in[i])); };
      std::vector<double> mean(static_cast<size_t>(stat_count), 0.0), var(static_cast<size_t>(stat_count), 0.0);
      std::vector<int64_t> strides[1] = {BroadcastStrides(stat_shape, xs)};
      ForEachStrided(xs, strides, [&](int64_t i, const int64_t* off) { mean[static_cast<size_t>(off[0])] += val(i); });
      for (double& m : mean) m /= static_cast<double>(group);
      ForEachStrided(xs, strides, [&](int64_t i, const int64_t* off) {
        const double d = val(i) - mean[static_cast<size_t>(off[0])];
        var[static_cast<size_t>(off[0])] += d * d;
      });
      for (double& v : var) v = std::sqrt(v / static_cast<double>(group)) + 1e-9;
      ForEachStrided(xs, strides, [&](int64_t i, const int64_t* off) {
        const size_t s = static_cast<size_t>(off[0]);
        out[i] = FromDouble<T>((val(i) - mean[s]) / var[s]);
      });
      return Status::Ok();
    });
  }

 private:
  // Whether the reduced axes, dims of size 1 aside, are the trailing ones: then each statistic covers one contiguous
  // run of the input.
  static bool TrailingAxes(const Shape& shape, const std::vector<int64_t>& axes) {
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
    bool in_reduced_run = false;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      if (reduced[d]) {
        in_reduced_run = true;
      } else if (in_reduced_run) {
        return false;
      }
    }
    return true;
  }

  std::vector<int64_t> axes_;
};

}  // namespace

void RegisterNormalizationOps(KernelRegistry& registry) {
  registry.Add("", "InstanceNormalization", 1, kLatestVersion, MakeFactory<InstanceNormKernel>());
  registry.Add("", "LayerNormalization", 17, kLatestVersion, MakeFactory<LayerNormKernel>());
  registry.Add("", "GroupNormalization", 18, kLatestVersion, MakeFactory<GroupNormKernel>());
  registry.Add("", "MeanVarianceNormalization", 9, kLatestVersion, MakeFactory<MvnKernel>());
}

}  // namespace onyx::ops::nn
