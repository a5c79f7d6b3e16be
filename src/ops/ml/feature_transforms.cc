// Element-wise feature preprocessing: Scaler, Normalizer, Binarizer, Imputer.
//   - Scaler: Y = (X - offset) * scale (float output), offset and scale holding 1 value or one per feature (the
//     last dimension); an absent offset is 0, an absent scale 1.
//   - Normalizer ([C] or [N, C], each row on its own, float output): MAX divides by the largest magnitude, L1 by
//     the sum of magnitudes, L2 by the Euclidean norm; a row whose divisor is 0 is copied. MAX uses magnitudes as
//     the ONNX reference and scikit-learn's Normalizer(norm='max') do.
//   - Binarizer: 1 where X > threshold, else 0 (NaN gives 0), in X's type.
//   - Imputer: replaces the elements equal to the replaced value (a NaN replaced_value_float matches NaNs) by the
//     imputed value of their feature (1 value or one per feature); floats use the *_float(s) attributes, integers
//     the *_int64(s) ones.
#include <cmath>
#include <string>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

using MlNumericTypes = TypeList<float, double, int32_t, int64_t>;

std::string TypeError(const Tensor& x) {
  return "input 'X' (0) has element type " + std::string(DataTypeName(x.type())) +
         ", expected float, double, int32 or int64";
}

// Features per row: the last dimension (1 for a scalar).
int64_t LastDim(const Tensor& x) { return x.rank() == 0 ? 1 : x.dim(x.rank() - 1); }

Status CheckPerFeature(size_t size, int64_t features, const std::string& name) {
  if (size == 1 || static_cast<int64_t>(size) == features) return Status::Ok();
  return InvalidArgument("attribute '" + name + "' has " + std::to_string(size) + " values, expected 1 or " +
                         std::to_string(features) + " (the features of input 'X')");
}

class ScalerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    offset_ = info.GetFloats("offset", {0.0f});
    scale_ = info.GetFloats("scale", {1.0f});
    if (offset_.empty()) return info.Error("attribute 'offset' is empty");
    if (scale_.empty()) return info.Error("attribute 'scale' is empty");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const int64_t c = LastDim(*x);
    ONYX_RETURN_IF_ERROR(CheckPerFeature(offset_.size(), c, "offset"));
    ONYX_RETURN_IF_ERROR(CheckPerFeature(scale_.size(), c, "scale"));
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x->shape());
    Status st = Dispatch<MlNumericTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      float* out = y.data<float>();
      for (int64_t i = 0; i < x->size(); ++i) {
        const size_t f = static_cast<size_t>(c == 0 ? 0 : i % c);
        const double o = offset_[offset_.size() == 1 ? 0 : f];
        const double s = scale_[scale_.size() == 1 ? 0 : f];
        out[i] = static_cast<float>((static_cast<double>(in[i]) - o) * s);
      }
      return Status::Ok();
    });
    return st.ok() ? st : InvalidArgument(TypeError(*x));
  }

 private:
  std::vector<float> offset_, scale_;
};

class NormalizerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    norm_ = info.GetString("norm", "MAX");
    if (norm_ != "MAX" && norm_ != "L1" && norm_ != "L2") {
      return info.Error("attribute 'norm' is '" + norm_ + "', expected MAX, L1 or L2");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->rank() != 1 && x->rank() != 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [C] or [N, C]");
    }
    if (x->type() != DataType::kFloat && x->type() != DataType::kDouble && x->type() != DataType::kInt32 &&
        x->type() != DataType::kInt64) {
      return InvalidArgument(TypeError(*x));
    }
    ONYX_ASSIGN_OR_RETURN(FeatureBatch b, ReadFeatureBatch(*x, "input 'X' (0)"));
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, x->shape());
    for (int64_t i = 0; i < b.n; ++i) {
      const double* row = b.row(i);
      double d = 0;
      for (int64_t j = 0; j < b.f; ++j) {
        if (norm_ == "MAX") {
          d = std::max(d, std::abs(row[j]));
        } else if (norm_ == "L1") {
          d += std::abs(row[j]);
        } else {
          d += row[j] * row[j];
        }
      }
      if (norm_ == "L2") d = std::sqrt(d);
      for (int64_t j = 0; j < b.f; ++j) {
        y.data<float>()[i * b.f + j] = static_cast<float>(d == 0 ? row[j] : row[j] / d);
      }
    }
    return Status::Ok();
  }

 private:
  std::string norm_;
};

class BinarizerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    threshold_ = info.GetFloat("threshold", 0.0f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    Status st = Dispatch<MlNumericTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      for (int64_t i = 0; i < x->size(); ++i) out[i] = static_cast<double>(in[i]) > threshold_ ? T(1) : T(0);
      return Status::Ok();
    });
    return st.ok() ? st : InvalidArgument(TypeError(*x));
  }

 private:
  double threshold_ = 0;
};

class ImputerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    imputed_floats_ = info.GetFloats("imputed_value_floats");
    imputed_ints_ = info.GetInts("imputed_value_int64s");
    replaced_float_ = info.GetFloat("replaced_value_float", 0.0f);
    replaced_int_ = info.GetInt("replaced_value_int64", 0);
    if (imputed_floats_.empty() && imputed_ints_.empty()) {
      return info.Error("one of 'imputed_value_floats' and 'imputed_value_int64s' must be given");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const bool floats = x->type() == DataType::kFloat || x->type() == DataType::kDouble;
    if (floats && imputed_floats_.empty()) {
      return InvalidArgument("input 'X' (0) holds " + std::string(DataTypeName(x->type())) +
                             " values but 'imputed_value_floats' is not given");
    }
    if (!floats && imputed_ints_.empty()) {
      return InvalidArgument("input 'X' (0) holds " + std::string(DataTypeName(x->type())) +
                             " values but 'imputed_value_int64s' is not given");
    }
    const int64_t c = LastDim(*x);
    const size_t count = floats ? imputed_floats_.size() : imputed_ints_.size();
    ONYX_RETURN_IF_ERROR(CheckPerFeature(count, c, floats ? "imputed_value_floats" : "imputed_value_int64s"));
    Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
    Status st = Dispatch<MlNumericTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = x->data<T>();
      T* out = y.data<T>();
      for (int64_t i = 0; i < x->size(); ++i) {
        const size_t f = count == 1 || c == 0 ? 0 : static_cast<size_t>(i % c);
        bool replace = false;
        if constexpr (std::is_floating_point_v<T>) {
          replace = std::isnan(replaced_float_) ? std::isnan(in[i]) : in[i] == static_cast<T>(replaced_float_);
          out[i] = replace ? static_cast<T>(imputed_floats_[f]) : in[i];
        } else {
          replace = static_cast<int64_t>(in[i]) == replaced_int_;
          out[i] = replace ? static_cast<T>(imputed_ints_[f]) : in[i];
        }
      }
      return Status::Ok();
    });
    return st.ok() ? st : InvalidArgument(TypeError(*x));
  }

 private:
  std::vector<float> imputed_floats_;
  std::vector<int64_t> imputed_ints_;
  float replaced_float_ = 0;
  int64_t replaced_int_ = 0;
};

}  // namespace

void RegisterFeatureTransformOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "Scaler", 1, kLatestVersion, MakeFactory<ScalerKernel>());
  registry.Add(kMlDomain, "Normalizer", 1, kLatestVersion, MakeFactory<NormalizerKernel>());
  registry.Add(kMlDomain, "Binarizer", 1, kLatestVersion, MakeFactory<BinarizerKernel>());
  registry.Add(kMlDomain, "Imputer", 1, kLatestVersion, MakeFactory<ImputerKernel>());
}

}  // namespace onyx::ops::ml
