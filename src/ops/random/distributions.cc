// RandomUniform, RandomNormal and their *Like forms (which take the output shape, and by default the element type,
// from an input tensor). Values follow the reference implementation: a float64 draw, rounded into the output type,
// then scaled and shifted in that type: uniform = U * (high - low) + low, normal = Z * scale + mean.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/random/numpy_random.h"
#include "ops/random/random_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::random {
namespace {

enum class Distribution { kUniform, kNormal };

bool IsOutputFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// x rounded to T's precision and back, so that arithmetic done in double matches arithmetic done in T.
template <typename T>
double Round(double x) {
  return ToDouble(FromDouble<T>(x));
}

class RandomDistributionKernel : public OpKernel {
 public:
  RandomDistributionKernel(Distribution dist, bool like) : dist_(dist), like_(like) {}

  Status Init(const KernelInfo& info) override {
    seeds_.Init(info);
    if (dist_ == Distribution::kUniform) {
      a_ = info.GetFloat("low", 0.0f);
      b_ = info.GetFloat("high", 1.0f);
    } else {
      a_ = info.GetFloat("mean", 0.0f);
      b_ = info.GetFloat("scale", 1.0f);
    }
    has_dtype_ = info.HasAttribute("dtype") || !like_;
    const int64_t dtype = info.GetInt("dtype", static_cast<int64_t>(DataType::kFloat));
    if (has_dtype_) {
      if (!IsValidDataType(static_cast<int32_t>(dtype)) || !IsOutputFloatType(static_cast<DataType>(dtype))) {
        return info.Error("attribute 'dtype' is " + std::to_string(dtype) +
                          ", expected a floating-point type (float16, float, double or bfloat16)");
      }
      dtype_ = static_cast<DataType>(dtype);
    }
    if (!like_) {
      if (!info.HasAttribute("shape")) return info.Error("required ints attribute 'shape' is missing");
      shape_ = info.GetInts("shape");
      for (int64_t d : shape_) {
        if (d < 0) return info.Error("attribute 'shape' " + ShapeToString(shape_) + " has a negative dimension");
      }
      auto n = CheckedNumElements(shape_);
      if (!n.ok()) return info.Error("attribute 'shape' " + ShapeToString(shape_) + ": " + n.status().message());
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    Shape shape = shape_;
    DataType dtype = dtype_;
    if (like_) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
      shape = x->shape();
      if (!has_dtype_) {
        dtype = x->type();
        if (!IsOutputFloatType(dtype)) {
          return InvalidArgument("input 0 has element type " + std::string(DataTypeName(dtype)) +
                                 ", which is not a floating-point type; give the 'dtype' attribute");
        }
      }
    }
    Tensor& out = ctx.AllocateOutput(0, dtype, shape);
    NumpyRandom rng = seeds_.Next();
    return Dispatch<FloatTypes>(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* po = out.data<T>();
      if (dist_ == Distribution::kUniform) {
        const double range = Round<T>(b_ - a_), low = Round<T>(a_);
        for (int64_t i = 0; i < out.size(); ++i) {
          po[i] = FromDouble<T>(Round<T>(Round<T>(rng.Uniform()) * range) + low);
        }
      } else {
        const double scale = Round<T>(b_), mean = Round<T>(a_);
        for (int64_t i = 0; i < out.size(); ++i) {
          po[i] = FromDouble<T>(Round<T>(Round<T>(rng.Gauss()) * scale) + mean);
        }
      }
      return Status::Ok();
    });
  }

 private:
  Distribution dist_;
  bool like_;
  double a_ = 0, b_ = 1;  // low and high, or mean and scale
  bool has_dtype_ = false;
  DataType dtype_ = DataType::kFloat;
  Shape shape_;
  SeedSource seeds_;
};

KernelFactory Factory(Distribution dist, bool like) {
  return [dist, like](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<RandomDistributionKernel>(dist, like);
    ONYX_RETURN_IF_ERROR(k->Init(info));
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

}  // namespace

void RegisterDistributionOps(KernelRegistry& registry) {
  registry.Add("", "RandomUniform", 1, kLatestVersion, Factory(Distribution::kUniform, false));
  registry.Add("", "RandomNormal", 1, kLatestVersion, Factory(Distribution::kNormal, false));
  registry.Add("", "RandomUniformLike", 1, kLatestVersion, Factory(Distribution::kUniform, true));
  registry.Add("", "RandomNormalLike", 1, kLatestVersion, Factory(Distribution::kNormal, true));
}

}  // namespace onyx::ops::random
