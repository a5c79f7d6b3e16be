#include "ops/ml/ml_common.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onyx::ops::ml {

Result<PostTransform> ParsePostTransform(const KernelInfo& info) {
  const std::string s = info.GetString("post_transform", "NONE");
  if (s == "NONE") return PostTransform::kNone;
  if (s == "SOFTMAX") return PostTransform::kSoftmax;
  if (s == "LOGISTIC") return PostTransform::kLogistic;
  if (s == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (s == "PROBIT") return PostTransform::kProbit;
  return info.Error("attribute 'post_transform' is '" + s + "', expected NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT");
}

Result<PostTransform> PostTransformFromInt(const KernelInfo& info, int64_t v) {
  if (v < 0 || v > 4) {
    return info.Error("attribute 'post_transform' is " + std::to_string(v) +
                      ", expected 0 (NONE), 1 (SOFTMAX), 2 (LOGISTIC), 3 (SOFTMAX_ZERO) or 4 (PROBIT)");
  }
  return static_cast<PostTransform>(v);
}

double Logistic(double v) {
  const double e = 1.0 / (1.0 + std::exp(-std::abs(v)));
  return v < 0 ? 1.0 - e : e;
}

namespace {

// Winitzki's approximation of erf^-1 (a = 0.147), the one onnxruntime and the ONNX reference use.
double ErfInvApprox(double x) {
  const double sgn = x < 0 ? -1.0 : 1.0;
  const double w = (1.0 - x) * (1.0 + x);
  const double l = std::log(w);
  const double a = 0.147;
  const double v = 2.0 / (M_PI * a) + 0.5 * l;
  const double v2 = l / a;
  const double v3 = -v + std::sqrt(v * v - v2);
  return sgn * std::sqrt(v3);
}

}  // namespace

double Probit(double v) { return M_SQRT2 * ErfInvApprox(2.0 * v - 1.0); }

void ApplyPostTransform(PostTransform t, double* row, int64_t n) {
  switch (t) {
    case PostTransform::kNone:
      return;
    case PostTransform::kLogistic:
      for (int64_t i = 0; i < n; ++i) row[i] = Logistic(row[i]);
      return;
    case PostTransform::kProbit:
      for (int64_t i = 0; i < n; ++i) row[i] = Probit(row[i]);
      return;
    case PostTransform::kSoftmax: {
      if (n == 0) return;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < n; ++i) m = std::max(m, row[i]);
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        row[i] = std::exp(row[i] - m);
        sum += row[i];
      }
      for (int64_t i = 0; i < n; ++i) row[i] /= sum;
      return;
    }
    case PostTransform::kSoftmaxZero: {
      if (n == 0) return;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < n; ++i) m = std::max(m, row[i]);
      const double exp_neg_max = std::exp(-m);
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (row[i] > 1e-7 || row[i] < -1e-7) {
          row[i] = std::exp(row[i] - m);
          sum += row[i];
        } else {
          row[i] *= exp_neg_max;
        }
      }
      for (int64_t i = 0; i < n; ++i) row[i] = sum == 0 ? 0.5 : row[i] / sum;
      return;
    }
  }
}

Result<FeatureBatch> ReadFeatureBatch(const Tensor& x, const std::string& what) {
  if (x.rank() == 0) return InvalidArgument(what + " is a scalar, expected shape [N, F] or [F]");
  FeatureBatch b;
  if (x.rank() == 1) {
    b.n = 1;
    b.f = x.dim(0);
  } else {
    b.n = x.dim(0);
    b.f = 1;
    for (int64_t d = 1; d < x.rank(); ++d) b.f *= x.dim(d);
  }
  b.values.resize(static_cast<size_t>(x.size()));
  Status st = Dispatch<TypeList<float, double, Float16, BFloat16, int32_t, int64_t>>(x.type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    for (int64_t i = 0; i < x.size(); ++i) b.values[static_cast<size_t>(i)] = ToDouble(p[i]);
    return Status::Ok();
  });
  if (!st.ok()) {
    return InvalidArgument(what + " has element type " + std::string(DataTypeName(x.type())) +
                           ", expected float, double, int32 or int64");
  }
  return b;
}

Result<std::vector<double>> GetFloatsOrTensor(const KernelInfo& info, const std::string& name,
                                              const std::string& tensor_name) {
  const bool has_list = info.HasAttribute(name);
  const Tensor* t = info.GetTensor(tensor_name);
  if (has_list && t != nullptr) {
    return info.Error("attributes '" + name + "' and '" + tensor_name + "' are both given; expected one of them");
  }
  std::vector<double> out;
  if (t != nullptr) {
    if (t->type() != DataType::kFloat && t->type() != DataType::kDouble) {
      return info.Error("attribute '" + tensor_name + "' has element type " + std::string(DataTypeName(t->type())) +
                        ", expected double or float");
    }
    out.reserve(static_cast<size_t>(t->size()));
    for (int64_t i = 0; i < t->size(); ++i) out.push_back(t->DoubleAt(i));
    return out;
  }
  for (float v : info.GetFloats(name)) out.push_back(v);
  return out;
}

int64_t ArgMax(const double* v, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (v[i] > v[best] || (std::isnan(v[best]) && !std::isnan(v[i]))) best = i;
  }
  return best;
}

}  // namespace onyx::ops::ml
