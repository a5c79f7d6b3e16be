// Bernoulli (one 0/1 draw per element with the element as probability) and Multinomial (sample_size class indices
// per batch row, drawn from the softmax of the row's unnormalized log-probabilities).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/random/numpy_random.h"
#include "ops/random/random_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::random {
namespace {

class BernoulliKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    seeds_.Init(info);
    has_dtype_ = info.HasAttribute("dtype");
    if (has_dtype_) {
      const int64_t dtype = info.GetInt("dtype", 0);
      const DataType t = static_cast<DataType>(dtype);
      const bool allowed = IsValidDataType(static_cast<int32_t>(dtype)) &&
                           (IsFloatingPoint(t) || t == DataType::kBool ||
                            ((IsSignedInteger(t) || IsUnsignedInteger(t)) && !IsSubByte(t)));
      if (!allowed) {
        return info.Error("attribute 'dtype' is " + std::to_string(dtype) +
                          ", expected a floating-point, integer or bool type");
      }
      dtype_ = t;
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    std::vector<double> p(static_cast<size_t>(x->size()));
    ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* px = x->data<T>();
      for (size_t i = 0; i < p.size(); ++i) {
        p[i] = ToDouble(px[i]);
        if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
          return InvalidArgument("input 0 element " + std::to_string(i) + " is " + std::to_string(p[i]) +
                                 ", not a probability in [0, 1]");
        }
      }
      return Status::Ok();
    }));
    const DataType out_type = has_dtype_ ? dtype_ : x->type();
    Tensor& out = ctx.AllocateOutput(0, out_type, x->shape());
    NumpyRandom rng = seeds_.Next();
    return Dispatch<AllFixedTypes>(out_type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* po = out.data<T>();
      for (size_t i = 0; i < p.size(); ++i) po[i] = FromDouble<T>(rng.Bernoulli(p[i]));
      return Status::Ok();
    });
  }

 private:
  bool has_dtype_ = false;
  DataType dtype_ = DataType::kFloat;
  SeedSource seeds_;
};

class MultinomialKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    seeds_.Init(info);
    const int64_t dtype = info.GetInt("dtype", static_cast<int64_t>(DataType::kInt32));
    if (dtype != static_cast<int64_t>(DataType::kInt32) && dtype != static_cast<int64_t>(DataType::kInt64)) {
      return info.Error("attribute 'dtype' is " + std::to_string(dtype) + ", expected int32 (6) or int64 (7)");
    }
    dtype_ = static_cast<DataType>(dtype);
    sample_size_ = info.GetInt("sample_size", 1);
    if (sample_size_ < 0) return info.Error("attribute 'sample_size' is negative: " + std::to_string(sample_size_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() != 2) {
      return InvalidArgument("input 0 has shape " + ShapeToString(x->shape()) + ", expected [batch_size, class_size]");
    }
    const int64_t batch = x->dim(0), classes = x->dim(1);
    std::vector<double> logits(static_cast<size_t>(x->size()));
    ONYX_RETURN_IF_ERROR(Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* px = x->data<T>();
      for (size_t i = 0; i < logits.size(); ++i) logits[i] = ToDouble(px[i]);
      return Status::Ok();
    }));
    Tensor& out = ctx.AllocateOutput(0, dtype_, {batch, sample_size_});
    NumpyRandom rng = seeds_.Next();
    std::vector<double> cdf(static_cast<size_t>(classes));
    for (int64_t b = 0; b < batch; ++b) {
      const double* row = logits.data() + b * classes;
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < classes; ++c) max = std::max(max, row[c]);
      // Shifting by the maximum keeps exp() finite; +inf scores share all the probability.
      double total = 0;
      for (int64_t c = 0; c < classes; ++c) {
        const double w = std::isinf(max) && max > 0 ? (row[c] == max ? 1.0 : 0.0) : std::exp(row[c] - max);
        total += w;
        cdf[static_cast<size_t>(c)] = total;
      }
      if (sample_size_ > 0 && !(total > 0 && std::isfinite(total))) {
        return InvalidArgument("input 0 row " + std::to_string(b) +
                               " has no class with positive probability (every score is -inf or NaN)");
      }
      for (int64_t s = 0; s < sample_size_; ++s) {
        const double u = rng.Uniform() * total;
        // The first class whose cumulative weight exceeds u; rounding can leave u at the very top, hence the clamp.
        int64_t k = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        k = std::min(k, classes - 1);
        if (dtype_ == DataType::kInt32) {
          out.data<int32_t>()[b * sample_size_ + s] = static_cast<int32_t>(k);
        } else {
          out.data<int64_t>()[b * sample_size_ + s] = k;
        }
      }
    }
    return Status::Ok();
  }

 private:
  DataType dtype_ = DataType::kInt32;
  int64_t sample_size_ = 1;
  SeedSource seeds_;
};

}  // namespace

void RegisterSamplingOps(KernelRegistry& registry) {
  registry.Add("", "Bernoulli", 15, kLatestVersion, MakeFactory<BernoulliKernel>());
  registry.Add("", "Multinomial", 7, kLatestVersion, MakeFactory<MultinomialKernel>());
}

}  // namespace onyx::ops::random
